"""``VectorEnv.rule_choices`` (the core's rule policy, for training against rule opponents):
in the auction it must take ``RuleBot``'s decision, in the play the PIMC rollout policy's
(``_core._rollout``, SearchBot's), on every table of whole hands of every variant. The tables
are stepped by a mix of the rule choice and random legal actions (so the states go beyond the
ones rule players reach), each beside the ``ddz.Game`` it replays (``hand_seed``)."""
from __future__ import annotations

import random

import numpy as np
import pytest

import ddz
from ddz import _core
from ddz.learn.vector_env import VectorEnv, hand_seed
from ddz.search.rule_bot import RuleBot
from ddz.search.search_bot import _position

VARIANTS = [ddz.Rules.classic(), ddz.Rules.two_player(), ddz.Rules.bengbu(),
            ddz.Rules.classic(classic_rob_winner="last", classic_show_timing="after_kitty"),
            ddz.Rules.two_player(twop_fanshen_point="before_lead")]


def _rollout_choice(game: ddz.Game, seat: int) -> str:
    """The rollout policy's first action from the game's true position."""
    obs = game.observation(seat)
    n = game.num_players
    top, owner, passes, left = _position(game, obs)
    hands = [game.hand(s).word for s in range(n)]
    sides = [0 if s == obs["landlord"] else 1 for s in range(n)]
    _, trace = _core._rollout(game.rules, hands, seat, top, owner, passes, left, sides)
    who, move = trace[0]
    assert who == seat
    return "PASS" if move.is_pass else f"PLAY {move}"


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.variant}-{len(r.options)}")
def test_rule_choices_are_rulebots_decisions_and_the_rollout_policys_plays(rules: ddz.Rules) -> None:
    tables, seed = 6, 17
    env = VectorEnv(rules, tables, seed=seed)
    st = env.reset()
    games = [ddz.Game(rules, seed=hand_seed(seed, i)) for i in range(tables)]
    played = [0] * tables
    rng = random.Random(5)
    bot = RuleBot()
    checked = {"auction": 0, "play": 0}
    for _ in range(400):
        k = env.rule_choices()
        assert k.dtype == np.int64 and k.shape == (tables,)
        ids = np.empty(tables, dtype=np.int64)
        for i, g in enumerate(games):
            legal = st.legal_ids[st.legal_offsets[i]:st.legal_offsets[i + 1]]
            assert list(legal) == g.legal_action_ids()
            assert 0 <= k[i] < len(legal)
            seat = g.current_seat
            chosen = g.legal_actions()[int(k[i])]
            if g.phase == "PLAY":
                want = _rollout_choice(g, seat)
                assert chosen == want, (i, chosen, want)
                checked["play"] += 1
            else:
                assert chosen == bot.act(g, seat), (i, g.phase, chosen)
                checked["auction"] += 1
            ids[i] = legal[int(k[i])] if rng.random() < 0.7 else rng.choice(list(legal))
        for i, g in enumerate(games):
            g.apply(int(ids[i]))
        st = env.step(ids)
        for i in np.flatnonzero(st.done):
            assert games[i].is_over
            played[i] += 1
            games[i] = ddz.Game(rules, seed=hand_seed(seed, played[i] * tables + i))
    assert checked["auction"] > 50 and checked["play"] > 500, checked


def test_rule_choices_before_reset_and_in_the_play_phase_mode() -> None:
    rules = ddz.Rules.classic_douzero()
    env = VectorEnv(rules, 3, seed=1, auction=False)
    with pytest.raises(ddz.ArgumentError, match="reset"):
        env.rule_choices()
    st = env.reset()
    k = env.rule_choices()
    for i in range(3):
        assert 0 <= k[i] < st.legal_offsets[i + 1] - st.legal_offsets[i]
