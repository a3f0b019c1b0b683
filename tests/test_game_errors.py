"""Illegal input to ``ddz.Game`` (RULES.md §1.3, §1.5, §2.0.1, §2.1.3, §2.3.4, §2.3.6 and the
Game API contract): every illegal action in every phase raises ``ddz.IllegalAction`` or another
``ValueError`` subclass whose message names the problem, and leaves the game exactly as it was
(record, phase, seat to act, legal actions, history, hands, observations); constructor and
record errors raise ``ValueError`` too.

``Game.apply`` takes no seat: the actor is always the seat to act (§1.5 "exactly one seat is to
act"). Out-of-turn actions therefore cannot be expressed; the tests express them through the
state that results (e.g. A12: once the rob queue is exhausted, ``ROB`` is refused).
"""
from __future__ import annotations

import json
import re
from collections import Counter

import pytest

import ddz
from ddz.variants import VARIANT

RANKS = "3456789TJQKA2BR"
RV = {r: i for i, r in enumerate(RANKS)}
LAYOUT = {name: (v.players, v.hand, v.kitty, v.aside) for name, v in VARIANT.items()}  # the package's table
FACTORY = {"classic": ddz.Rules.classic, "two_player": ddz.Rules.two_player, "bengbu": ddz.Rules.bengbu}
ALL_TOKENS = ["CALL", "NO_CALL", "ROB", "NO_ROB", "SHOW", "NO_SHOW", "SHOW_START", "NORMAL_START", "FANSHEN",
              "NO_FANSHEN", "YAPO", "NO_YAPO", "BID1", "BID2", "BID3", "GRAB", "OPEN", "CLOSED", "PASS"]
JUNK_TOKENS = ["", "FOO", "BID4", "BID0", "REDEAL", "TIMEOUT", "CALL CALL", "PLAY"]


def balanced_deal(variant, p0=0, fixed=None, kitty=""):
    """Rank strings for a whole deal: fixed cards where asked (P-index keys), the rest spread."""
    n, size, ksize, aside = LAYOUT[variant]
    copies, jokers = (8, 2) if variant == "bengbu" else (4, 1)
    rest = Counter({r: copies for r in RANKS[:13]})
    rest.update({"B": jokers, "R": jokers})
    boxes = [Counter() for _ in range(n)] + [Counter(kitty), Counter()]
    caps = [size] * n + [ksize, aside]
    for k, cards in (fixed or {}).items():
        boxes[(p0 + k) % n].update(cards)
    for b in boxes:
        rest.subtract(b)
    for r in sorted(rest.elements(), key=RV.__getitem__):
        free = [i for i in range(len(boxes)) if sum(boxes[i].values()) < caps[i]]
        best = min(free, key=lambda i: (boxes[i][r], -(caps[i] - sum(boxes[i].values())), i))
        boxes[best][r] += 1
    join = lambda b: "".join(sorted(b.elements(), key=RV.__getitem__))  # noqa: E731
    return [join(b) for b in boxes[:n]], join(boxes[n]), join(boxes[n + 1])


def players(g):
    return len(json.loads(g.to_json())["deals"][0]["hands"])


def snapshot(g):
    n = players(g)
    return (g.to_json(), g.phase, g.current_seat, tuple(g.legal_actions()), tuple(g.history), g.multiplier,
            g.landlord, g.is_over, g.result, json.dumps(g.factors, sort_keys=True, default=str),
            tuple(tuple(sorted(g.cards(s))) for s in range(n)) if g.phase != "PRE_DEAL" else None,
            tuple(json.dumps(g.observation(s), sort_keys=True, default=str) for s in range(n)))


def refuse(g, action, *needles):
    """``action`` raises a ValueError whose message matches one of ``needles`` (case-insensitive
    regexes) and changes nothing."""
    before = snapshot(g)
    with pytest.raises(ValueError) as e:
        g.apply(action)
    msg = str(e.value)
    assert msg.strip(), f"empty error message for {action!r}"
    if needles:
        assert any(re.search(n, msg, re.I) for n in needles), f"{action!r}: message {msg!r} names none of {needles}"
    assert snapshot(g) == before, f"{action!r} changed the game"
    return msg


def lowest_single(g):
    return min((a[5:] for a in g.legal_actions() if a.startswith("PLAY ") and len(a) == 6), key=RV.__getitem__)


def finish(g):
    """Plays out: pass when possible, else lead the lowest single."""
    while not g.is_over:
        if g.phase in ("FANSHEN", "YAPO"):
            g.apply("NO_" + g.phase)
        elif "PASS" in g.legal_actions():
            g.apply("PASS")
        else:
            g.apply("PLAY " + lowest_single(g))


STATES = {
    # variant, script from a fresh game (first_bidder 0, first_to_decide 0), state id
    "classic/CALL": ("classic", []),
    "classic/ROB": ("classic", ["CALL"]),
    "classic/FINAL_ROB": ("classic", ["CALL", "ROB", "NO_ROB"]),
    "classic/SHOW": ("classic", ["CALL", "NO_ROB", "NO_ROB"]),
    "classic/PLAY-lead": ("classic", ["CALL", "NO_ROB", "NO_ROB", "NO_SHOW"]),
    "classic/PLAY-follow": ("classic", ["CALL", "NO_ROB", "NO_ROB", "NO_SHOW", "LEAD"]),
    "classic/OVER": ("classic", ["CALL", "NO_ROB", "NO_ROB", "NO_SHOW", "FINISH"]),
    "two_player/PRE_DEAL": ("two_player", []),
    "two_player/PRE_DEAL-second": ("two_player", ["SHOW_START"]),
    "two_player/BID": ("two_player", ["NORMAL_START", "NORMAL_START"]),
    "two_player/PLAY-lead": ("two_player", ["NORMAL_START", "NORMAL_START", "CALL"]),
    "two_player/FANSHEN": ("two_player", ["NORMAL_START", "NORMAL_START", "CALL", "LEAD"]),
    "two_player/YAPO": ("two_player", ["NORMAL_START", "NORMAL_START", "CALL", "LEAD", "FANSHEN"]),
    "two_player/PLAY-follow": ("two_player", ["NORMAL_START", "NORMAL_START", "CALL", "LEAD", "FANSHEN", "YAPO"]),
    "two_player/OVER": ("two_player", ["NORMAL_START", "NORMAL_START", "CALL", "FINISH"]),
    "bengbu/BID": ("bengbu", []),
    "bengbu/BID-after-BID2": ("bengbu", ["BID2"]),
    "bengbu/OPEN_CHOICE": ("bengbu", ["BID1", "NO_CALL", "NO_CALL", "NO_CALL"]),
    "bengbu/PLAY-lead": ("bengbu", ["BID1", "NO_CALL", "NO_CALL", "NO_CALL", "CLOSED"]),
    "bengbu/PLAY-follow": ("bengbu", ["GRAB", "LEAD"]),
    "bengbu/OVER": ("bengbu", ["GRAB", "FINISH"]),
}


def reach(state_id, seed=3):
    variant, script = STATES[state_id]
    hands, kitty, aside = balanced_deal(variant)
    kw = {"first_to_decide": 0} if variant == "two_player" else {}
    g = ddz.Game(FACTORY[variant](), seed, hands=hands, kitty=kitty, first_bidder=0, **kw)
    for step in script:
        if step == "LEAD":
            g.apply("PLAY " + lowest_single(g))
        elif step == "FINISH":
            finish(g)
        else:
            g.apply(step)
    return g


def bidding_phase(g):
    return g.phase not in ("PLAY", "OVER")


@pytest.mark.parametrize("state_id", list(STATES))
def test_every_token_outside_legal_actions_is_refused(state_id):
    """§1.5: the engine MUST reject any token not in the state's legal-action list: every token of
    every variant, plays in a bidding phase, junk tokens; the message names the token or the
    phase, and nothing changes."""
    g = reach(state_id)
    expected_phase = state_id.split("/")[1].split("-")[0]
    assert g.phase == expected_phase
    legal = g.legal_actions()
    if g.is_over:
        assert legal == [] and g.current_seat is None
    for token in ALL_TOKENS + JUNK_TOKENS:
        if token in legal:
            continue
        needles = [re.escape(w) for w in token.split()] + [re.escape(g.phase), "over", "legal"] if token else \
            ["empty", "legal", "action"]
        refuse(g, token, *needles)
    if bidding_phase(g) or g.is_over:  # no play is legal outside PLAY
        for play in ["PLAY 3", "3", "PLAY 33", "PLAY 3s", [0]]:
            refuse(g, play, "play", re.escape(g.phase), "over", "legal", re.escape(str(play)))


def test_a_bid_must_be_above_the_current_one():
    """§2.3.4: BIDv needs v > h; each seat bids at most once."""
    g = reach("bengbu/BID")
    g.apply("BID2")
    for bad in ["BID1", "BID2"]:
        refuse(g, bad, re.escape(bad), "higher", "above", "exceed", "greater")
    g.apply("BID3")
    for bad in ["BID1", "BID2", "BID3"]:
        refuse(g, bad, re.escape(bad), "higher", "above", "exceed", "greater")
    assert sorted(g.legal_actions()) == ["GRAB", "NO_CALL"]
    g.apply("NO_CALL")
    g.apply("GRAB")  # a grab after BID3 is still legal (A31)
    assert g.phase == "PLAY" and g.landlord == 3
    # the seats that acted do not act again: bidding is over
    for bad in ["BID1", "BID2", "BID3", "GRAB", "NO_CALL"]:
        refuse(g, bad, re.escape(bad), "PLAY", "legal")


def test_seat_that_passed_the_call_cannot_rob_a12():
    """A12 (§2.1.3): a seat that said NO_CALL never gets a ROB decision. With P0 NO_CALL, P1
    CALL the rob queue is [P2]; once it is done no ROB is accepted from anybody (the only seat
    that could still want to rob is P0, who passed)."""
    for first in range(3):
        hands, kitty, _ = balanced_deal("classic", first)
        g = ddz.Game(ddz.Rules.classic(), 1, hands=hands, kitty=kitty, first_bidder=first)
        g.apply("NO_CALL")
        g.apply("CALL")
        assert g.phase == "ROB" and g.current_seat == (first + 2) % 3
        g.apply("NO_ROB")
        assert g.phase == "SHOW" and g.current_seat == (first + 1) % 3
        refuse(g, "ROB", "ROB", "SHOW", "legal")
        refuse(g, "NO_ROB", "NO_ROB", "SHOW", "legal")
        # B9 shape: P2 robs, the caller has the final decision; P0 still has none
        g = ddz.Game(ddz.Rules.classic(), 1, hands=hands, kitty=kitty, first_bidder=first)
        g.apply("NO_CALL")
        g.apply("CALL")
        g.apply("ROB")
        assert g.phase == "FINAL_ROB" and g.current_seat == (first + 1) % 3
        g.apply("NO_ROB")
        assert g.phase == "SHOW" and g.landlord == (first + 2) % 3
        refuse(g, "ROB", "ROB", "SHOW", "legal")
        # B10 shape: the last seat calls, the rob queue is empty
        g = ddz.Game(ddz.Rules.classic(), 1, hands=hands, kitty=kitty, first_bidder=first)
        g.apply("NO_CALL")
        g.apply("NO_CALL")
        g.apply("CALL")
        assert g.phase == "SHOW"
        refuse(g, "ROB", "ROB", "SHOW", "legal")
    assert not any(s == first and t in ("ROB", "NO_ROB") for s, t in g.history)


@pytest.mark.parametrize("state_id", ["classic/PLAY-lead", "two_player/PLAY-lead", "bengbu/PLAY-lead"])
def test_pass_on_a_lead(state_id):
    """§2.0.1: a player who leads must play; PASS is refused."""
    g = reach(state_id)
    assert "PASS" not in g.legal_actions()
    refuse(g, "PASS", "pass", "lead")


def _held(g, seat):
    return Counter(c[0] for c in g.cards(seat))


@pytest.mark.parametrize("state_id", ["classic/PLAY-lead", "classic/PLAY-follow", "two_player/PLAY-lead",
                                      "two_player/PLAY-follow", "bengbu/PLAY-lead", "bengbu/PLAY-follow"])
def test_cards_not_held(state_id):
    """Playing ranks the seat does not hold (none, or more copies than held) is refused, in
    every input form."""
    g = reach(state_id)
    seat = g.current_seat
    held = _held(g, seat)
    decks = 2 if state_id.startswith("bengbu") else 1
    missing = [r for r in RANKS if held[r] == 0]
    if missing:  # a rank the seat does not hold at all (a 33-card BENGBU4 hand may hold every rank)
        r = missing[0]
        for action in ["PLAY " + r, r]:
            refuse(g, action, "hold", "not in", "have", re.escape(r))
    # one more copy than held of a rank held once or more (a pair / trio / bomb shape)
    r2 = next(x for x in RANKS[:13] if 1 <= held[x] <= 3)
    refuse(g, "PLAY " + r2 * (held[r2] + 1), "hold", "not in", "have", "beat", "legal")
    # a physical card of a held rank, but another seat's copy
    others = [c for s in range(players(g)) if s != seat for c in g.cards(s)]
    foreign = next(c for c in others if held[c[0]])
    refuse(g, "PLAY " + foreign, "hold", re.escape(foreign))
    refuse(g, [ddz.card_id(foreign, decks)], "hold", re.escape(foreign))
    # a foreign card mixed with own cards of the same rank (a pair)
    own = next(c for c in g.cards(seat) if c[0] == foreign[0])
    refuse(g, "PLAY " + own + " " + foreign, "hold", re.escape(foreign), "beat", "legal")


def test_set_aside_and_unrevealed_cards_cannot_be_played():
    """TWOP's 11 set-aside cards are out of the hand (§2.2.1); the kitty before the kitty goes to
    the landlord is nobody's: both are 'cards not held'."""
    g = reach("two_player/PLAY-lead")
    seat = g.current_seat
    aside = json.loads(g.to_json())["deals"][0]["aside"]
    assert len(aside) == 11
    for c in aside:
        refuse(g, "PLAY " + c, "hold", re.escape(c))
        refuse(g, [ddz.card_id(c, 1)], "hold", re.escape(c))
    assert seat == g.landlord
    # CLASSIC3 in SHOW: the kitty is not yet the landlord's, and no play is legal anyway
    g = reach("classic/SHOW")
    kitty = json.loads(g.to_json())["deals"][0]["kitty"]
    for c in kitty:
        refuse(g, "PLAY " + c, "play", "SHOW", "legal", "hold")


@pytest.mark.parametrize("variant", ["classic", "two_player", "bengbu"])
def test_a_play_that_does_not_beat(variant):
    """§2.0.5: a follow must beat the top: an equal single, a lower single, another pattern."""
    n = LAYOUT[variant][0]
    fixed = {0: "7", 1: "5" + "7" + "99"}
    hands, kitty, _ = balanced_deal(variant, 0, fixed)
    kw = {"first_to_decide": 0} if variant == "two_player" else {}
    g = ddz.Game(FACTORY[variant](), 2, hands=hands, kitty=kitty, first_bidder=0, **kw)
    script = {"classic": ["CALL", "NO_ROB", "NO_ROB", "NO_SHOW"], "two_player": ["NORMAL_START", "NORMAL_START",
                                                                                  "CALL"],
              "bengbu": ["GRAB"]}[variant]
    for t in script:
        g.apply(t)
    assert g.current_seat == 0 and g.landlord == 0
    # the landlord leads a 7 (it holds one at least); seat 1 holds 5, 7 and 99
    seven = next(c for c in g.cards(0) if c[0] == "7")
    g.apply("PLAY " + seven)
    if variant == "two_player":
        g.apply("NO_FANSHEN")
    assert g.current_seat == 1 and "PASS" in g.legal_actions()
    for bad in ["PLAY 5", "PLAY 7", "PLAY 99"]:
        assert bad[5:] in "".join(c[0] for c in g.cards(1))
        refuse(g, bad, "beat", "legal")
    c5 = next(c for c in g.cards(1) if c[0] == "5")
    refuse(g, "PLAY " + c5, "beat", "legal")
    refuse(g, [ddz.card_id(c5, 2 if variant == "bengbu" else 1)], "beat", "legal")
    assert n >= 2


def test_not_a_combination_and_variant_patterns():
    """§2.0.2: a multiset that is no legal combination of the variant is refused (BENGBU4 has no
    STRAIGHT, TRIO_SOLO or ROCKET)."""
    g = reach("classic/PLAY-lead")
    held = _held(g, g.current_seat)
    two = [r for r in RANKS[:13] if held[r]][:2]
    refuse(g, "PLAY " + two[0] + two[1], "combination", "legal", "pattern")
    hands, kitty, _ = balanced_deal("bengbu", 0, {0: "34567333BR"})
    g = ddz.Game(ddz.Rules.bengbu(), 2, hands=hands, kitty=kitty, first_bidder=0)
    g.apply("GRAB")
    for bad in ["PLAY 34567", "PLAY 3334", "PLAY BR"]:
        refuse(g, bad, "combination", "legal", "pattern")


def test_bomb_over_the_bengbu_limit():
    """§2.3.6 (L10, L11): a bomb play beyond the seat's limit is refused; splitting stays legal."""
    hands, kitty, _ = balanced_deal("bengbu", 0, {2: "3R", 0: "444499999"})
    g = ddz.Game(ddz.Rules.bengbu(), 5, hands=hands, kitty=kitty, first_bidder=0)
    for t in ["NO_CALL", "NO_CALL", "BID1", "NO_CALL", "CLOSED"]:
        g.apply(t)
    for t in ["PLAY 3", "PASS", "PLAY 4444", "PASS", "PASS", "PASS"]:
        g.apply(t)
    assert g.current_seat == 0
    refuse(g, "PLAY 99999", "bomb", "limit", r"2\.3\.6")
    nines = [c for c in g.cards(0) if c[0] == "9"]
    refuse(g, "PLAY " + " ".join(nines), "bomb", "limit", r"2\.3\.6")
    refuse(g, [ddz.card_id(c, 2) for c in nines], "bomb", "limit", r"2\.3\.6")
    refuse(g, "PLAY 9999", "bomb", "limit", r"2\.3\.6")
    g.apply("PLAY 999")
    # limit 2 (L11)
    hands, kitty, _ = balanced_deal("bengbu", 0, {0: "3R", 1: "888899999JJJJ"})
    g = ddz.Game(ddz.Rules.bengbu(), 5, hands=hands, kitty=kitty, first_bidder=0)
    for t in ["BID1", "NO_CALL", "NO_CALL", "NO_CALL", "CLOSED", "PLAY 3", "PLAY 8888", "PASS", "PASS", "PASS",
              "PLAY 99999", "PASS", "PASS", "PASS"]:
        g.apply(t)
    assert g.current_seat == 1
    refuse(g, "PLAY JJJJ", "bomb", "limit", r"2\.3\.6")


@pytest.mark.parametrize("variant", ["classic", "two_player", "bengbu"])
def test_nothing_after_over(variant):
    """After OVER every action is refused with a message saying the hand is over."""
    g = reach(f"{variant}/OVER")
    assert g.is_over and g.result is not None
    some_card = next(c for s in range(players(g)) for c in g.cards(s))
    for action in ALL_TOKENS + ["PLAY 3", "3", "PLAY " + some_card, [0], ddz.classify("3", FACTORY[variant]())]:
        refuse(g, action, "over", "ended", "finished")


def test_nothing_after_a_special_deal():
    hands, kitty, _ = balanced_deal("bengbu", 0, {1: "BBRR"})
    g = ddz.Game(ddz.Rules.bengbu(), 5, hands=hands, kitty=kitty, first_bidder=0)
    assert g.is_over and g.result.kind == "special"
    for action in ["NO_CALL", "GRAB", "BID1", "PASS", "PLAY 3"]:
        refuse(g, action, "over", "ended", "finished")


def test_nothing_after_a_void_hand():
    g = ddz.Game(ddz.Rules.classic(max_redeals=1), 5)
    while not g.is_over:
        g.apply("NO_CALL")
    assert g.result.kind == "void"
    for action in ["NO_CALL", "CALL", "PASS", "PLAY 3"]:
        refuse(g, action, "over", "ended", "finished", "void")


MALFORMED_ONE_DECK = [
    ("PLAY 3X", "X"), ("3X", "X"), ("PLAY 33333", "too many|3"), ("PLAY BB", "too many|B"),
    ("PLAY 3z", "3z|suit|card"), ("PLAY Zs", "Zs|card|rank"), ("PLAY 1", "1|card"),
    ("PLAY 3s 3s", "3s|twice|duplicate"), ("PLAY 3s'", "3s'|card|deck"), ("PLAY B'", "B'|card|deck"),
    ("PLAY 10", "1|card"), ("PLAY ", "empty|card|PLAY"), ([54], "54|range|card"), ([-1], "-1|range|card"),
    ([], "empty"), ([1, 1], "1|twice|duplicate|3h"),
]


@pytest.mark.parametrize("action, needle", MALFORMED_ONE_DECK, ids=[repr(a) for a, _ in MALFORMED_ONE_DECK])
def test_malformed_plays_one_deck(action, needle):
    """§1.3: malformed card strings and card ids are errors that name the offending input."""
    g = reach("classic/PLAY-lead")
    refuse(g, action, needle)


MALFORMED_TWO_DECKS = [
    ("PLAY 333333333", "too many|3"), ("PLAY BBB", "too many|B"), ("PLAY 3s''", "3s''|card"),
    ("PLAY 3s' 3s'", "3s'|twice|duplicate"), ([108], "108|range|card"), ("PLAY 3X", "X"),
]


@pytest.mark.parametrize("action, needle", MALFORMED_TWO_DECKS, ids=[repr(a) for a, _ in MALFORMED_TWO_DECKS])
def test_malformed_plays_two_decks(action, needle):
    g = reach("bengbu/PLAY-lead")
    refuse(g, action, needle)


def test_wrong_action_types():
    """None and other non-actions are refused as ValueError (the contract's IllegalAction)."""
    g = reach("classic/PLAY-lead")
    for action in [None, 3.5, {"PLAY": "3"}]:
        refuse(g, action)


# ---- constructor errors ----

def _cl(**kw):
    return lambda: ddz.Game(ddz.Rules.classic(), 1, **kw)


def _tp(**kw):
    return lambda: ddz.Game(ddz.Rules.two_player(), 1, **kw)


def _bb(**kw):
    return lambda: ddz.Game(ddz.Rules.bengbu(), 1, **kw)


H3, K3, _ = balanced_deal("classic")
H2, K2, A2 = balanced_deal("two_player")
H4, K4, _ = balanced_deal("bengbu")


def _swap(hands, i, old, new):
    out = list(hands)
    out[i] = out[i].replace(old, new, 1)
    return out


CONSTRUCTOR_ERRORS = [
    ("classic two hands", _cl(hands=H3[:2], kitty=K3), "3|seat|hands"),
    ("classic four hands", _cl(hands=H3 + ["3"], kitty=K3), "3|seat|hands"),
    ("classic 16-card hand", _cl(hands=[H3[0][1:]] + H3[1:], kitty=K3), "17|size|cards"),
    ("classic 18-card hand", _cl(hands=[H3[0] + H3[1][0], H3[1][1:], H3[2]], kitty=K3), "17|size|cards"),
    ("classic 2-card kitty", _cl(hands=H3, kitty=K3[:2]), "3|kitty"),
    ("classic 4-card kitty", _cl(hands=H3, kitty=K3 + "3"), "3|kitty|too many"),
    ("classic five 3s in a hand", _cl(hands=["33333" + H3[0][5:]] + H3[1:], kitty=K3), "too many|3|deck"),
    ("classic five 3s over the hands", _cl(hands=_swap(H3, 0, H3[0][-1], "3"), kitty=K3), "too many|3|deck"),
    ("classic two small jokers", _cl(hands=_swap(H3, 0, H3[0][0], "B"), kitty=K3), "too many|B|deck"),
    ("classic unknown character", _cl(hands=_swap(H3, 0, H3[0][0], "X"), kitty=K3), "X"),
    ("classic first_bidder 3", _cl(first_bidder=3), "first_bidder|seat|3"),
    ("classic first_bidder -1", _cl(first_bidder=-1), "first_bidder|seat|-1"),
    ("two_player 19-card hand", _tp(hands=[H2[0][1:], H2[1]], kitty=K2), "20|size|cards"),
    ("two_player 3 hands", _tp(hands=H2 + ["3"], kitty=K2), "2|seat|hands"),
    ("two_player 10-card aside", _tp(hands=H2, kitty=K2, aside=A2[1:]), "11|aside"),
    ("two_player aside beyond the deck", _tp(hands=H2, kitty=K2, aside=A2[1:] + ("2" if A2[0] != "2" else "3")),
     "too many|deck|aside"),
    ("two_player 4-card kitty", _tp(hands=H2, kitty=K2 + A2[0], aside=A2[1:]), "3|kitty"),
    ("two_player first_to_decide 2", _tp(first_to_decide=2), "first_to_decide|seat|2"),
    ("two_player first_bidder 2", _tp(first_bidder=2), "first_bidder|seat|2"),
    ("bengbu 24-card hand", _bb(hands=[H4[0][1:]] + H4[1:], kitty=K4), "25|size|cards"),
    ("bengbu 7-card kitty", _bb(hands=H4, kitty=K4[1:]), "8|kitty"),
    ("bengbu nine 3s", _bb(hands=_swap(H4, 1, H4[1][-1], "3"), kitty=K4), "too many|3|deck"),
    ("bengbu three big jokers", _bb(hands=_swap(H4, 0, H4[0][0], "R"), kitty=K4), "too many|R|deck"),
    ("bengbu first_bidder 4", _bb(first_bidder=4), "first_bidder|seat|4"),
    ("bengbu 3 hands", _bb(hands=H4[:3], kitty=K4), "4|seat|hands"),
]


@pytest.mark.parametrize("make, needle", [c[1:] for c in CONSTRUCTOR_ERRORS], ids=[c[0] for c in CONSTRUCTOR_ERRORS])
def test_constructor_errors(make, needle):
    """Bad injected deals (wrong sizes, cards beyond the deck, malformed) and bad seats."""
    with pytest.raises(ValueError) as e:
        make()
    assert re.search(needle, str(e.value), re.I), str(e.value)


def test_constructor_accepts_the_good_versions():
    """The error cases above differ from a valid construction only by the named defect."""
    ddz.Game(ddz.Rules.classic(), 1, hands=H3, kitty=K3, first_bidder=2)
    ddz.Game(ddz.Rules.classic(), 1, hands=H3)  # kitty = the rest of the deck
    ddz.Game(ddz.Rules.two_player(), 1, hands=H2, kitty=K2, aside=A2, first_bidder=1, first_to_decide=1)
    ddz.Game(ddz.Rules.two_player(), 1, hands=H2, kitty=K2)  # aside = the rest of the deck
    ddz.Game(ddz.Rules.bengbu(), 1, hands=H4, kitty=K4, first_bidder=3)
    ddz.Game(ddz.Rules.bengbu(), 1, hands=H4)


# ---- records and card names ----

def test_from_json_errors():
    g = reach("classic/PLAY-follow")
    good = json.loads(g.to_json())
    bad_records = [
        "not json",
        json.dumps(dict(good, format="other")),
        json.dumps(dict(good, version=99)),
        json.dumps(dict(good, actions=good["actions"] + [{"seat": g.current_seat, "action": "CALL"}])),
        json.dumps(dict(good, actions=[{"seat": 1, "action": "PASS"}])),
    ]
    for text in bad_records:
        with pytest.raises(ValueError):
            ddz.Game.from_json(text)
    assert ddz.Game.from_json(json.dumps(good)).history == g.history


@pytest.mark.parametrize("name, decks", [("3x", 1), ("3s'", 1), ("Z", 1), ("", 1), ("B''", 2), ("1s", 1),
                                         ("3s'", 3)])
def test_bad_card_names(name, decks):
    with pytest.raises(ValueError):
        ddz.card_id(name, decks)


@pytest.mark.parametrize("cid, decks", [(54, 1), (-1, 1), (108, 2), (-1, 2)])
def test_bad_card_ids(cid, decks):
    with pytest.raises(ValueError):
        ddz.card_name(cid, decks)
