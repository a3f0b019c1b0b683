"""The PettingZoo AEC and Gymnasium environments (ddz.envs): the frameworks' own checkers
(pettingzoo.test.api_test and seed_test, gymnasium.utils.env_checker.check_env) on the three
variants, whole hands with the auction (RULES.md §2.1–§2.3) as action ids, observations that
are ddz.encode.compact of the seat, rewards that are the hand's scores, and sampled worlds.
Skipped when a framework is not installed (pip install ".[rl]")."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ddz
from ddz.envs import gymnasium_env, pettingzoo_env

FACTORY = {"classic": ddz.Rules.classic, "two_player": ddz.Rules.two_player, "bengbu": ddz.Rules.bengbu}


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checkers warn that a dict observation is not an array
        yield


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_pettingzoo_api_and_seed_tests(variant):
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test, seed_test
    rules = FACTORY[variant]()
    api_test(pettingzoo_env(rules), num_cycles=300)
    seed_test(lambda: pettingzoo_env(rules), num_cycles=100)


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_pettingzoo_hands_observations_and_rewards(variant):
    pytest.importorskip("pettingzoo")
    rules = FACTORY[variant]()
    env = pettingzoo_env(rules)
    rng = np.random.default_rng(1)
    phases = set()
    for hand in range(3):
        env.reset(seed=hand)
        totals = {a: 0 for a in env.possible_agents}
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            totals[agent] += reward
            if term or trunc:
                assert info == {}
                env.step(None)
                continue
            g = env.game
            seat = int(agent.split("_")[1])
            assert g.current_seat == seat
            phases.add(g.phase)
            np.testing.assert_array_equal(obs["observation"], ddz.encode.compact(g, seat))
            legal = g.legal_action_ids()
            assert sorted(np.flatnonzero(obs["action_mask"]).tolist()) == sorted(legal)
            other = env.possible_agents[(seat + 1) % rules.players]
            assert not env.observe(other)["action_mask"].any()  # only the seat to act has a mask
            assert info["legal_action_ids"] == legal  # the same ids as a list, in legal_action_ids' order
            assert all(env.infos[a] == {} for a in env.agents if a != agent)
            env.step(int(rng.choice(legal)))
        assert env.agents == []
        assert [totals[a] for a in env.possible_agents] == list(g.result.scores)
    assert "PLAY" in phases and len(phases) >= 2  # the auction is played too


def test_pettingzoo_illegal_action_changes_nothing():
    pytest.importorskip("pettingzoo")
    env = pettingzoo_env(ddz.Rules.classic())
    env.reset(seed=3)
    before = env.game.to_json()
    with pytest.raises(ddz.IllegalAction):
        env.step(0)  # a play during the auction
    assert env.game.to_json() == before
    w = env.sample_worlds(env.agent_selection, 4, seed=1)
    assert w.shape == (4, 3)


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_gymnasium_check_env(variant):
    pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env
    rules = FACTORY[variant]()
    # check_env steps with action_space.sample(), an illegal id almost always: the default
    # ("raise") would raise it, so the checker runs the mode that answers every id
    check_env(gymnasium_env(rules, seat=rules.players - 1, illegal_action="penalize"))


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_gymnasium_episodes(variant):
    pytest.importorskip("gymnasium")
    rules = FACTORY[variant]()
    env = gymnasium_env(rules, seat=1, opponents=[ddz.bots.RandomBot()] * (rules.players - 1))
    rng = np.random.default_rng(2)
    for episode in range(3):
        obs, _ = env.reset(seed=episode)
        assert env.observation_space.contains(obs)
        done, reward, steps = False, 0.0, 0
        while not done:
            assert env.game.current_seat == 1
            np.testing.assert_array_equal(obs["observation"], ddz.encode.compact(env.game, 1))
            legal = np.flatnonzero(obs["action_mask"])
            assert sorted(legal.tolist()) == sorted(env.legal_action_ids())
            if steps == 0 and env.game.phase == "PLAY":
                assert env.sample_worlds(3, seed=1).shape == (3, rules.players)
            obs, reward, done, truncated, info = env.step(int(rng.choice(legal)))
            steps += 1
            assert not truncated and (done or reward == 0.0)
        assert reward == float(env.game.result.scores[1])
    # the same seed, the same hand
    a, _ = env.reset(seed=5)
    b, _ = env.reset(seed=5)
    np.testing.assert_array_equal(a["observation"], b["observation"])


def test_gymnasium_illegal_action_and_arguments():
    pytest.importorskip("gymnasium")
    rules = ddz.Rules.classic()
    env = gymnasium_env(rules, seat=0, opponents=[lambda obs: obs["legal_action_ids"][0], ddz.bots.RuleBot()])
    obs, _ = env.reset(seed=1)
    before = env.game.to_json()
    with pytest.raises(ddz.IllegalAction):  # illegal_action="raise", the default
        env.step(0 if env.game.phase != "PLAY" else rules.action_id("CALL"))
    assert env.game.to_json() == before
    np.testing.assert_array_equal(obs["observation"], ddz.encode.compact(env.game, 0))
    with pytest.raises(ddz.ArgumentError, match="opponents"):
        gymnasium_env(rules, opponents=[ddz.bots.RuleBot()])
    with pytest.raises(ddz.ArgumentError, match="seat"):
        gymnasium_env(rules, seat=3)
