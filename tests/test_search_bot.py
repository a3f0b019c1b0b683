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
        bots = {s: (SearchBot(time_per_move=None, node_limit=20_000, worlds=8, rollout_worlds=8, seed=seed)
                    if s % 2 == 0 else RuleBot()) for s in range(g.num_players)}
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
        bot = SearchBot(time_per_move=None, node_limit=60_000, worlds=4, rollout_worlds=8, seed=seed)
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


def _ranks(token: str, decks: int = 1) -> str:
    if token == "PASS":
        return token
    body = token[5:]
    return "PLAY " + str(ddz.Cards("".join(c[0] for c in body.split()) if " " in body or any(
        ch in "shcd'" for ch in body) else body, decks=decks))


def test_reproducible_with_a_node_budget() -> None:
    def play(seed: int):
        g = ddz.Game(ddz.Rules.classic(), seed=seed)
        bots = [SearchBot(time_per_move=None, node_limit=20_000, worlds=8, rollout_worlds=8, seed=3), RuleBot(), RuleBot()]
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
    with pytest.raises(ValueError):
        SearchBot(rollout_worlds=0)


@pytest.mark.parametrize("variant", ["classic", "two_player", "bengbu"])
def test_rollouts_where_the_search_cannot_finish(variant: str) -> None:
    """With a node budget too small to solve anything, every decision with a choice is made
    by rollouts: legal to the end of the hand, and one of the best-scoring candidates."""
    g = ddz.Game(getattr(ddz.Rules, variant)(), seed=11)
    decide(g)
    bot = SearchBot(time_per_move=None, node_limit=1, rollout_worlds=12, seed=2)
    rule = RuleBot()
    rolled = 0
    while not g.is_over:
        s = g.current_seat
        action = bot.act(g, s) if s == g.landlord else rule.act(g, s)
        if s == g.landlord and "rollouts" in bot.last:
            scores = bot.last["rollouts"]
            assert 1 <= bot.last["rollout_worlds"] <= 12
            token = _ranks(action, g.rules.decks)
            assert token in scores and scores[token] == max(scores.values())
            rolled += 1
        g.apply(action)
    assert rolled >= 2


def test_rollouts_reproducible_for_a_seed() -> None:
    def play(seed: int):
        g = ddz.Game(ddz.Rules.classic(), seed=7)
        bots = [SearchBot(time_per_move=None, node_limit=1, rollout_worlds=16, seed=seed), RuleBot(), RuleBot()]
        while not g.is_over:
            g.apply(bots[g.current_seat].act(g, g.current_seat))
        return g.history

    assert play(4) == play(4)


def test_bengbu_bomb_limits_come_from_the_game() -> None:
    """BENGBU4: the bot reads Game.bomb_limits less the bomb plays made (§2.3.6); it never
    plays a bomb beyond its limit (Game.apply would raise)."""
    for seed in range(3):
        g = ddz.Game(ddz.Rules.bengbu(), seed=seed)
        decide(g)
        bots = [SearchBot(time_per_move=None, node_limit=1, rollout_worlds=8, seed=seed) for _ in range(4)]
        while not g.is_over:
            s = g.current_seat
            g.apply(bots[s].act(g, s))
        limits = g.bomb_limits
        assert limits is not None
        for s, lim in enumerate(limits):
            if lim is not None:
                assert g.play_state.bombs_played(s) <= lim
