"""RLCard environments on ddz rules (ddz.envs.register_rlcard): RLCard's RandomAgent,
env.run() and tournament() on the three variants (RULES.md §2.1–§2.3 play phases), and
under Rules.classic_rlcard() the same observation arrays, action ids, legal sets and raw
observations as RLCard's own doudizhu environment on the same deals."""
from __future__ import annotations

import numpy as np
import pytest

import ddz

rlcard = pytest.importorskip("rlcard")
from rlcard.agents import RandomAgent  # noqa: E402
from rlcard.games.doudizhu.utils import cards2str  # noqa: E402
from rlcard.utils import tournament  # noqa: E402

from ddz.envs import register_rlcard  # noqa: E402

ENVS = {"ddz-classic": ddz.Rules.classic, "ddz-two-player": ddz.Rules.two_player, "ddz-bengbu": ddz.Rules.bengbu}


@pytest.fixture(scope="module", autouse=True)
def registered():
    register_rlcard()
    register_rlcard()  # a second call is harmless


@pytest.mark.parametrize("env_id", ENVS)
def test_random_agents_run_and_tournament(env_id):
    rules = ENVS[env_id]()
    env = rlcard.make(env_id, config={"seed": 3})
    assert env.num_players == rules.players and env.num_actions == rules.pass_id + 1
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    np.random.seed(0)  # RandomAgent draws from NumPy's global generator
    trajectories, payoffs = env.run(is_training=False)
    assert len(trajectories) == rules.players
    assert sorted(payoffs.tolist()) in ([0] * (rules.players - 1) + [1], [0] + [1] * (rules.players - 1))
    assert payoffs[0] == 1 or payoffs[1:].all()  # player 0 is the landlord: one side wins
    for p, traj in enumerate(trajectories):
        states = traj[0::2]
        for s in states:
            assert s["obs"].shape == tuple(env.state_shape[p]) and s["obs"].dtype == np.int8
            for a, feature in s["legal_actions"].items():
                assert 0 <= a < env.num_actions and feature.shape == tuple(env.action_shape[p])
        for a in traj[1::2]:
            assert 0 <= a < env.num_actions
    averages = tournament(env, 5)
    assert len(averages) == rules.players and all(0 <= x <= 1 for x in averages)


def test_raw_agents_and_step_back():
    """RLCard's rule agent (use_raw: raw actions) plays ddz-classic; step_back undoes."""
    from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1
    env = rlcard.make("ddz-classic", config={"seed": 1, "allow_step_back": True,
                                             "rules": ddz.Rules.classic_rlcard()})
    env.set_agents([DouDizhuRuleAgentV1() for _ in range(3)])
    np.random.seed(1)
    _, payoffs = env.run()
    assert payoffs.sum() in (1, 2)
    state, _ = env.reset()
    before = state["obs"].copy()
    state, _ = env.step(next(iter(state["legal_actions"])))
    state, player = env.step_back()
    assert player == 0 and np.array_equal(state["obs"], before)


def test_rules_must_match_the_variant():
    with pytest.raises(ddz.ArgumentError, match="classic"):
        rlcard.make("ddz-classic", config={"rules": ddz.Rules.bengbu()})
    with pytest.raises(ddz.ArgumentTypeError):
        rlcard.make("ddz-classic", config={"rules": "classic"})


def _same(a, b, where):
    np.testing.assert_array_equal(a["obs"], b["obs"], err_msg=str(where))
    assert set(a["legal_actions"]) == set(b["legal_actions"]), where
    for k, feature in b["legal_actions"].items():
        np.testing.assert_array_equal(a["legal_actions"][k], feature, err_msg=str(where))
    ra, rb = a["raw_obs"], b["raw_obs"]
    for key in ("seen_cards", "landlord", "trace", "played_cards", "self", "current_hand", "others_hand",
                "num_cards_left"):
        assert ra[key] == rb[key], (where, key)
    assert sorted(ra["actions"]) == sorted(rb["actions"]) == sorted(a["raw_legal_actions"]), where


@pytest.mark.parametrize("hands, seed", [(200, 0), pytest.param(3000, 1, marks=pytest.mark.slow)])
def test_classic_rlcard_equals_rlcards_doudizhu(hands, seed):
    """The same deal in both environments, the same random legal id applied to both, every
    state (and every player's final state and the payoffs) compared."""
    ours = rlcard.make("ddz-classic", config={"seed": seed, "rules": ddz.Rules.classic_rlcard()})
    theirs = rlcard.make("doudizhu", config={"seed": seed})
    assert ours.num_actions == theirs.num_actions and ours.state_shape == theirs.state_shape
    rng = np.random.default_rng(seed)
    steps = 0
    for hand in range(hands):
        sb, pb = theirs.reset()
        dealt = [cards2str(p.current_hand) for p in theirs.game.players]
        sa, pa = ours.reset(hands=dealt, kitty=theirs.game.round.seen_cards)
        assert pa == pb == 0
        _same(sa, sb, (hand, 0))
        while not theirs.is_over():
            a = int(rng.choice(list(sb["legal_actions"])))
            sb, pb = theirs.step(a)
            sa, pa = ours.step(a)
            steps += 1
            assert pa == pb and ours.is_over() == theirs.is_over()
            if not theirs.is_over():
                _same(sa, sb, (hand, steps))
        for p in range(3):
            _same(ours.get_state(p), theirs.get_state(p), (hand, "end", p))
        assert ours.get_payoffs().tolist() == theirs.get_payoffs().tolist()
    assert steps > hands * 30
