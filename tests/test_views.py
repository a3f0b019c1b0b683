"""What a seat or a spectator may see (issue: hostile input, item 7): ``observation(seat)``,
``observation(None)`` and ``view_json(seat)`` must not depend on any card hidden from that
seat. Method: rebuild the same hand with the hidden cards shuffled among their hidden places
(other seats' unplayed cards that were never shown, the unrevealed kitty, the set-aside
cards), replay the same actions, and check the view is identical (RULES.md §2.1.2, §2.2.2,
§2.3.3 say what is public)."""
from __future__ import annotations

import json
import random

import pytest

import ddz
from ddz.core.cards import card_id


def _random_game(variant, seed, stop_at):
    g = ddz.Game(ddz.Rules(variant), seed)
    rng = random.Random(seed)
    while not g.is_over and len(g.history) < stop_at:
        g.apply(rng.choice(g.legal_actions()))
    return g


def _shuffled(g, seat, rng):
    """The record of g with every card hidden from `seat` moved to another hidden place."""
    d = json.loads(g.to_json())
    decks = g.rules.decks
    obs = g.observation(seat)
    last = len(d["deals"]) - 1
    for i, dl in enumerate(d["deals"]):
        current = i == last
        # places: (list, index) of hidden cards in this deal
        hidden = []
        for s, hand in enumerate(dl["hands"]):
            if s == seat:
                continue
            if current:
                public = set(obs["shown"].get(s, obs["shown"].get(str(s), [])))
                if g._dealt() and s in g._visible_seats():
                    continue  # a shown hand: every card of it is public
                held = set(g.cards(s))
                # a card played (not held now) is public; so is a revealed kitty card
                hidden += [(hand, k) for k, c in enumerate(hand) if c in held and c not in public]
            else:
                hidden += [(hand, k) for k in range(len(hand))]
        kitty_public = current and obs["kitty"] is not None
        if not kitty_public:
            hidden += [(dl["kitty"], k) for k in range(len(dl["kitty"]))]
        hidden += [(dl["aside"], k) for k in range(len(dl["aside"]))]
        cards = [lst[k] for lst, k in hidden]
        rng.shuffle(cards)
        for (lst, k), c in zip(hidden, cards):
            lst[k] = c
    for dl in d["deals"]:  # keep each list sorted like a real record
        for h in dl["hands"]:
            h.sort(key=lambda c: card_id(c, decks))
    return d


def _rebuilt(d):
    """Replays the shuffled record; None when the shuffle changed the course of the hand
    (a BENGBU4 deal that now ends at once with 天炸/天尊) so the comparison does not apply."""
    d = dict(d, result=None)
    g = ddz.Game(ddz.Rules(d["rules"]["variant"], **d["rules"]["options"]), d["seed"],
                 _deals=[{"hands": [[card_id(c, 2 if d["rules"]["variant"] == "bengbu" else 1) for c in h]
                                    for h in dl["hands"]],
                          "kitty": [card_id(c, 2 if d["rules"]["variant"] == "bengbu" else 1) for c in dl["kitty"]],
                          "aside": [card_id(c, 2 if d["rules"]["variant"] == "bengbu" else 1) for c in dl["aside"]],
                          "first_bidder": dl["first_bidder"], "first_to_decide": dl["first_to_decide"]}
                         for dl in d["deals"]])
    for a in d["actions"]:
        if a["action"] == "ESCAPE":
            g.escape(a["seat"])
        elif a["action"] == "TIMEOUT":
            g._note_timeout()
        else:
            if g.is_over:
                return None
            g.apply(a["action"])
    return g


def _public(view):
    """A view without the result's scores of a hand still running (the same either way)."""
    return json.dumps(view, sort_keys=True)


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_views_do_not_depend_on_hidden_cards(variant):
    rng = random.Random(7)
    compared = 0
    for seed in range(12):
        for stop_at in (1, 3, 8, 20, 45, 10_000):
            g = _random_game(variant, seed, stop_at)
            if g.is_over:  # a finished hand's scores may depend on held bombs (TWOP escapes): compare mid-hand
                continue
            for seat in [None] + list(range(g.num_players)):
                h = _rebuilt(_shuffled(g, seat, rng))
                if h is None or h.is_over != g.is_over or h.phase != g.phase:
                    continue
                assert _public(g.observation(seat)) == _public(h.observation(seat)), (variant, seed, stop_at, seat)
                assert g.view_json(seat) == h.view_json(seat), (variant, seed, stop_at, seat)
                compared += 1
    assert compared > 100


def test_spectator_view_holds_no_hand():
    g = _random_game("classic", 3, 10)
    obs = g.observation(None)
    assert obs["hand"] == "" and obs["cards"] == [] and obs["legal_actions"] == []
    view = json.loads(g.view_json(None))
    assert all(dl["hand"] is None for dl in view["deals"])
    assert "hands" not in json.dumps(view)
    seat_view = json.loads(g.view_json(1))
    assert seat_view["deals"][-1]["hand"] and seat_view["observation"]["cards"] == g.cards(1)


def test_view_of_twop_before_the_deal_holds_no_card():
    g = ddz.Game(ddz.Rules.two_player(), 5)
    assert g.phase == "PRE_DEAL"
    for seat in (None, 0, 1):
        v = json.loads(g.view_json(seat))
        assert v["deals"][0]["hand"] is None and v["observation"]["cards"] == []


def test_observation_history_from_gives_the_tail_and_checks_its_argument():
    """``observation(seat, history_from=k)``: the same view with the history from entry k on
    (empty past the end); k must be an int ≥ 0 (``ArgumentError`` / ``ArgumentTypeError``)."""
    import random
    from ddz import Game, Rules
    from ddz.core.errors import ArgumentError, ArgumentTypeError
    rng = random.Random(5)
    g = Game(Rules.classic(), 5)
    while not g.is_over:
        for seat in (None, 0, 1, 2):
            whole = g.observation(seat)
            n = len(whole["history"])
            for k in (0, n // 2, n, n + 3):
                tail = g.observation(seat, history_from=k)
                assert tail["history"] == whole["history"][k:]
                assert {a: b for a, b in tail.items() if a != "history"} == \
                    {a: b for a, b in whole.items() if a != "history"}
        g.apply(rng.choice(g.legal_actions()), seat=g.current_seat)
    for bad, err in ((-1, ArgumentError), (2**70, ArgumentError), (True, ArgumentTypeError),
                     ("1", ArgumentTypeError), (1.0, ArgumentTypeError)):
        with pytest.raises(err):
            g.observation(None, history_from=bad)
