"""``VectorEnv.oracle`` (the perfect-information value of each table's position, a training
target only): on every table of whole hands of every variant it must be ``ddz.solve``'s verdict
on the ``ddz.Game`` the table replays (``hand_seed``), translated to the landlord's side, once no
more than ``max_cards`` cards are left; unknown (-1) during the auction, above ``max_cards`` and
when the node limit stops the search."""
from __future__ import annotations

import random

import numpy as np
import pytest

import ddz
from ddz.learn.vector_env import VectorEnv, hand_seed

VARIANTS = [ddz.Rules.classic(), ddz.Rules.two_player(), ddz.Rules.bengbu()]
MAX_CARDS = {"classic": 20, "two_player": 22, "bengbu": 30}


def _cards_left(game: ddz.Game) -> int:
    return sum(len(game.hand(s)) for s in range(game.num_players))


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: r.variant)
def test_the_oracle_is_the_solvers_verdict_on_the_replayed_game(rules: ddz.Rules) -> None:
    tables, seed = 8, 23
    max_cards = MAX_CARDS[rules.variant]
    env = VectorEnv(rules, tables, seed=seed)
    st = env.reset()
    games = [ddz.Game(rules, seed=hand_seed(seed, i)) for i in range(tables)]
    played = [0] * tables
    rng = random.Random(3)
    seen = {"auction": 0, "above": 0, "solved": 0}
    for _ in range(700):
        o = env.oracle(max_cards=max_cards, node_limit=10**9)
        assert o.dtype == np.int8 and o.shape == (tables,)
        for i, g in enumerate(games):
            if g.phase != "PLAY":
                assert o[i] == -1
                seen["auction"] += 1
            elif _cards_left(g) > max_cards:
                assert o[i] == -1
                seen["above"] += 1
            else:
                ps = g.play_state
                sol = ddz.solve(ps)
                assert sol.complete
                mover_is_landlord = g.current_seat == g.landlord
                assert o[i] == int(sol.win == mover_is_landlord), (i, g.history())
                seen["solved"] += 1
        k = env.rule_choices()
        ids = np.empty(tables, dtype=np.int64)
        for i, g in enumerate(games):
            legal = st.legal_ids[st.legal_offsets[i]:st.legal_offsets[i + 1]]
            ids[i] = legal[int(k[i])] if rng.random() < 0.6 else rng.choice(list(legal))
            g.apply(int(ids[i]))
        st = env.step(ids)
        for i in np.flatnonzero(st.done):
            assert games[i].is_over
            played[i] += 1
            games[i] = ddz.Game(rules, seed=hand_seed(seed, played[i] * tables + i))
    assert min(seen.values()) > 20, seen


def test_the_node_limit_leaves_a_position_unknown_and_the_play_phase_mode_is_solved() -> None:
    rules = ddz.Rules.classic_douzero()
    env = VectorEnv(rules, 64, seed=4, auction=False)
    env.reset()
    # a fresh deal has 54 cards: no verdict under a small max_cards, and none within 1 node
    assert (env.oracle(max_cards=53, node_limit=10**9) == -1).all()
    assert (env.oracle(max_cards=54, node_limit=1) == -1).all()


def test_the_oracle_refuses_bad_arguments_and_a_table_before_reset() -> None:
    env = VectorEnv(ddz.Rules.classic(), 2, seed=1)
    with pytest.raises(ddz.ArgumentError, match="reset"):
        env.oracle()
    env.reset()
    with pytest.raises(ddz.ArgumentError, match="max_cards"):
        env.oracle(max_cards=-1)
    with pytest.raises(ddz.ArgumentError, match="node_limit"):
        env.oracle(node_limit=0)
    with pytest.raises(ddz.ArgumentError, match="table_mb"):
        env.oracle(table_mb=0)
    with pytest.raises(TypeError, match="max_cards"):
        env.oracle(max_cards="20")  # type: ignore[arg-type]
