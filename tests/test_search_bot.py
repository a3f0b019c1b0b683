"""ddz.bots.SearchBot: legal in every variant; exact when the hidden cards are determined (it
then plays a winning action whenever the solver says its side wins); reproducible; it sees
only its observation."""
from __future__ import annotations

import pytest

import ddz
from ddz.bots import RuleBot, SearchBot


def decide(g: ddz.Game, show: bool = False) -> None:
    while g.phase != "PLAY" and not g.is_over:
        la = g.legal_actions()
        prefs = ("NORMAL_START", "CALL", "GRAB", "NO_ROB", "SHOW" if show else "NO_SHOW", "NO_FANSHEN", "NO_YAPO")
        pick = [t for t in prefs if t in la]
        g.apply(pick[0] if pick else la[0])


@pytest.mark.parametrize("variant", ["classic", "two_player", "bengbu"])
def test_plays_legal_actions_to_the_end(variant: str) -> None:
    for seed in range(2):
        g = ddz.Game(getattr(ddz.Rules, variant)(), seed=seed)
        bots = {s: (SearchBot(time_per_move=None, node_limit=20_000, worlds=8, seed=seed) if s % 2 == 0 else RuleBot())
                for s in range(g.num_players)}
        while not g.is_over:
            s = g.current_seat
            action = bots[s].act(g, s)
            assert action in g.legal_actions() or action.startswith("PLAY ")
            g.apply(action)  # raises on an illegal action
        assert g.result is not None


def test_exact_when_the_hidden_hand_is_determined() -> None:
    """CLASSIC3, the landlord shows its hand: seat 1 then knows every hand (the kitty is
    taken, nothing is set aside), so its one sampled world is the true deal and it must
    play a winning action whenever the true position is won for the farmers."""
    checked = 0
    for seed in range(12):
        g = ddz.Game(ddz.Rules.classic(), seed=seed, first_bidder=0)
        decide(g, show=True)
        if g.landlord != 0 or 0 not in g.observation(1)["shown"]:
            continue
        bot = SearchBot(time_per_move=None, node_limit=60_000, worlds=4, seed=seed)
        rule = RuleBot()
        while not g.is_over:
            s = g.current_seat
            if s != 1:
                g.apply(rule.act(g, s))
                continue
            action = bot.act(g, s)
            if bot.last.get("solved"):
                assert bot.last["distinct"] == 1
                truth = ddz.solve(g.play_state, all_moves=True, node_limit=2_000_000)
                if truth.complete and truth.win:
                    wins = {("PASS" if m.is_pass else f"PLAY {m}") for m in truth.moves}
                    assert _ranks(action) in wins, (action, wins)
                    checked += 1
            g.apply(action)
    assert checked >= 20, checked


def _ranks(token: str) -> str:
    if token == "PASS":
        return token
    body = token[5:]
    return "PLAY " + str(ddz.Cards("".join(c[0] for c in body.split()) if " " in body or any(
        ch in "shcd" for ch in body) else body))


def test_reproducible_with_a_node_budget() -> None:
    def play(seed: int):
        g = ddz.Game(ddz.Rules.classic(), seed=seed)
        bots = [SearchBot(time_per_move=None, node_limit=20_000, worlds=8, seed=3), RuleBot(), RuleBot()]
        while not g.is_over:
            g.apply(bots[g.current_seat].act(g, g.current_seat))
        return g.history

    assert play(5) == play(5)


def test_bad_options() -> None:
    with pytest.raises(ValueError):
        SearchBot(time_per_move=None, node_limit=None)
    with pytest.raises(ValueError):
        SearchBot(time_per_move=-1)
    with pytest.raises(ValueError):
        SearchBot(node_limit=0)
    with pytest.raises(ValueError):
        SearchBot(worlds=0)
