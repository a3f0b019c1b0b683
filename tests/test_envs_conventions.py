"""The environments (ddz.envs) under the frameworks' own conventions (docs/environments.md):
action ids checked as Game.apply checks them, Gymnasium ids and check_env on each,
PettingZoo's module convention (env/raw_env, wrappers, metadata) with its api_test,
seed_test and render_test, rendering of the acting agent's view only, one reward option
with one meaning (score / win / normalized) in PettingZoo, Gymnasium and RLCard, factories
taking names, observation spaces with each block's bounds, Gymnasium's illegal_action and
step limit. Skipped when a framework is not installed (pip install 'ddz[rl]')."""
from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import ddz

pytest.importorskip("pettingzoo")
gymnasium = pytest.importorskip("gymnasium")

from ddz.envs import GYM_IDS, bengbu_v0, classic_v0, gymnasium_env, pettingzoo_env, two_player_v0  # noqa: E402
from ddz.learn.rewards import REWARD_SCALE, reward_unit  # noqa: E402

MODULES = {"classic": classic_v0, "two_player": two_player_v0, "bengbu": bengbu_v0}
FACTORY = {"classic": ddz.Rules.classic, "two_player": ddz.Rules.two_player, "bengbu": ddz.Rules.bengbu}


@pytest.fixture(autouse=True)
def quiet():
    from pettingzoo.utils.env_logger import EnvLogger
    EnvLogger.suppress_output()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checkers warn that a dict observation is not an array
        yield
    EnvLogger.unsuppress_output()


def _snapshot(env):
    u = env.unwrapped
    a = u.agent_selection
    obs = u.observe(a)
    return a, u.game.to_json(), obs["observation"].tolist(), obs["action_mask"].tolist(), dict(u.infos[a])


def _play_out(env, rng):
    """Plays the raw AEC environment's hand to the end with random legal ids; returns the
    reward each agent collected."""
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        _, reward, term, trunc, info = env.last()
        totals[agent] += reward
        env.step(None if term or trunc else int(rng.choice(info["legal_action_ids"])))
    return totals


# ---- action ids ---------------------------------------------------------------------------

NON_IDS = [True, False, np.bool_(True), 12655.9, 1.7, np.float64(12655.0), None, "CALL", "12655", b"1",
           [12655], np.array(12655), 1j]


@pytest.mark.parametrize("action", NON_IDS, ids=repr)
def test_aec_refuses_non_ids_and_changes_nothing(action):
    env = pettingzoo_env(ddz.Rules.classic())
    env.reset(seed=1)
    before = _snapshot(env)
    with pytest.raises(ddz.IllegalActionTypeError, match="action id"):
        env.step(action)
    assert _snapshot(env) == before


@pytest.mark.parametrize("action", [-1, 12661, 2**64, -(2**70), np.int8(-1)], ids=repr)
def test_aec_refuses_ids_out_of_range(action):
    env = pettingzoo_env(ddz.Rules.classic())
    env.reset(seed=1)
    before = _snapshot(env)
    with pytest.raises(ddz.IllegalAction, match="out of range") as e:
        env.step(action)
    assert e.value.code == ddz.IllegalCode.MALFORMED and _snapshot(env) == before


def test_aec_takes_numpy_integers():
    env = pettingzoo_env(ddz.Rules.classic())
    env.reset(seed=1)
    call = ddz.Rules.classic().action_id("CALL")
    env.step(np.int64(call))
    env.step(np.uint16(ddz.Rules.classic().action_id("NO_ROB")))
    assert [t for _, t in env.game.history] == ["CALL", "NO_ROB"]


def test_aec_step_before_reset_and_after_the_end():
    env = pettingzoo_env("classic")
    with pytest.raises(ddz.IllegalAction, match=r"reset\(\)"):
        env.step(0)
    env.reset(seed=2)
    _play_out(env, np.random.default_rng(0))
    assert env.agents == []
    with pytest.raises(ddz.IllegalAction, match=r"reset\(\)") as e:
        env.step(None)
    assert e.value.code == ddz.IllegalCode.HAND_OVER


def test_aec_terminated_agent_takes_only_none():
    env = pettingzoo_env("classic")
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    while not env.terminations[env.agent_selection]:
        env.step(int(rng.choice(env.infos[env.agent_selection]["legal_action_ids"])))
    agent = env.agent_selection
    with pytest.raises(ddz.IllegalAction, match="None"):
        env.step(0)
    assert env.agent_selection == agent and agent in env.agents
    env.step(None)
    assert agent not in env.agents


@pytest.mark.parametrize("action", NON_IDS, ids=repr)
def test_gym_refuses_non_ids_and_changes_nothing(action):
    env = gymnasium_env(ddz.Rules.classic(), seat=0, illegal_action="penalize")  # even in penalize mode
    obs, _ = env.reset(seed=1)
    before = env.game.to_json()
    with pytest.raises(ddz.IllegalActionTypeError, match="action id"):
        env.step(action)
    assert env.game.to_json() == before
    np.testing.assert_array_equal(obs["observation"], ddz.encode.compact(env.game, 0))


def test_gym_step_before_reset_and_after_the_end():
    env = gymnasium_env("classic", seat=0, opponents=[ddz.bots.RandomBot(), ddz.bots.RandomBot()])
    with pytest.raises(ddz.IllegalAction, match=r"reset\(\)"):
        env.step(0)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    done = False
    while not done:
        _, reward, done, truncated, _ = env.step(int(rng.choice(env.legal_action_ids())))
        assert not truncated
    assert reward == float(env.game.result.scores[0])
    before = env.game.to_json()
    for action in (0, int(rng.integers(env.rules.num_actions)), 1.5):
        with pytest.raises(ddz.IllegalAction, match=r"reset\(\)") as e:
            env.step(action)  # used to answer terminated=False, reward 0
        assert e.value.code == ddz.IllegalCode.HAND_OVER
    assert env.game.to_json() == before and not env.action_masks().any()
    env.reset(seed=4)
    assert env.action_masks().any()


def test_rlcard_checks_actions_before_its_bookkeeping():
    rlcard = pytest.importorskip("rlcard")
    from ddz.envs import register_rlcard
    register_rlcard()
    env = rlcard.make("ddz-classic", config={"seed": 0})
    state, _ = env.reset()
    legal = list(state["legal_actions"])
    illegal_id = next(i for i in range(env.num_actions) if i not in legal)
    for action in (float(legal[0]) + 0.5, True, None, "33", illegal_id, -1, env.num_actions):
        before = (list(env.game.trace), len(env.action_recorder), env.timestep)
        with pytest.raises(ddz.IllegalAction):
            env.step(action)
        assert (list(env.game.trace), len(env.action_recorder), env.timestep) == before
    with pytest.raises(ddz.IllegalActionTypeError):
        env.step(3, raw_action=True)
    env.step(np.int64(legal[0]))
    assert len(env.game.trace) == 1


# ---- Gymnasium ids ------------------------------------------------------------------------

@pytest.mark.parametrize("env_id", list(GYM_IDS))
def test_gymnasium_ids_make_and_check_env(env_id):
    from gymnasium.utils.env_checker import check_env
    env = gymnasium.make(env_id)
    assert env.spec.id == env_id and env.unwrapped.rules == ddz.envs._common.rules_from(GYM_IDS[env_id])
    assert env.unwrapped.illegal_action == "raise"
    # check_env steps with unmasked samples: the mode that answers every id; with its spec, the
    # checker also makes the environment in each render mode
    checked = gymnasium.make(env_id, illegal_action="penalize")
    check_env(checked.unwrapped)
    obs, _ = env.reset(seed=0)
    mask = env.unwrapped.action_masks()
    assert mask.dtype == bool and mask.shape == (env.unwrapped.rules.num_actions,)
    np.testing.assert_array_equal(mask, obs["action_mask"].astype(bool))
    env.close()


def test_gymnasium_module_form_without_importing_ddz_envs():
    code = ("import sys, gymnasium; env = gymnasium.make('ddz.envs:ddz/Classic-v0'); "
            "obs, _ = env.reset(seed=1); print(env.spec.id, obs['observation'].shape)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["ddz/Classic-v0", "(317,)"]


# ---- PettingZoo's module convention -------------------------------------------------------

@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_pettingzoo_modules_pass_api_seed_and_render_tests(variant):
    from pettingzoo.test import api_test, render_test, seed_test
    from pettingzoo.utils import wrappers
    m = MODULES[variant]
    env = m.env()
    assert isinstance(env, wrappers.OrderEnforcingWrapper)
    assert isinstance(env.unwrapped, ddz.envs.aec_env.DdzAECEnv) and isinstance(m.raw_env(), ddz.envs.aec_env.DdzAECEnv)
    assert env.metadata["name"] == f"ddz_{variant}_v0" and env.metadata["is_parallelizable"] is False
    assert env.metadata["render_fps"] > 0
    api_test(m.env(), num_cycles=200)
    api_test(m.raw_env(), num_cycles=100)
    seed_test(m.env, num_cycles=100)
    render_test(m.env)
    assert m.env(rules=FACTORY[variant]()).unwrapped.rules == FACTORY[variant]()


def test_pettingzoo_module_options():
    env = classic_v0.env(classic_rob_cap=4, reward="win")
    assert env.unwrapped.rules == ddz.Rules.classic(classic_rob_cap=4) and env.unwrapped.reward == "win"
    assert classic_v0.env(rules="classic_rlcard").unwrapped.rules == ddz.Rules.classic_rlcard()
    with pytest.raises(ddz.ArgumentError, match="plays classic"):
        classic_v0.env(rules=ddz.Rules.bengbu())
    with pytest.raises(ddz.ArgumentError, match="not both"):
        classic_v0.env(rules="classic", classic_rob_cap=4)
    with pytest.raises(ddz.ArgumentError, match="illegal_reward"):
        classic_v0.env(illegal_reward="x")


def test_pettingzoo_wrapped_step_before_reset_and_illegal_id():
    env = classic_v0.env()
    with pytest.raises(AssertionError, match=r"reset\(\)"):  # PettingZoo's OrderEnforcingWrapper
        env.step(0)
    env.reset(seed=1)
    agent = env.agent_selection
    env.step(0)  # a play during the auction: TerminateIllegalWrapper ends the hand
    assert all(env.terminations.values())
    assert env.rewards[agent] == -REWARD_SCALE["classic"] and sum(env.rewards.values()) == env.rewards[agent]
    env = classic_v0.env(reward="win")
    env.reset(seed=1)
    agent = env.agent_selection
    env.step(0)
    assert env.rewards[agent] == -1
    with pytest.raises(AssertionError, match="action space"):  # PettingZoo's AssertOutOfBoundsWrapper
        env2 = two_player_v0.env()
        env2.reset(seed=0)
        env2.step(1.5)
    env3 = bengbu_v0.env()
    env3.reset(seed=0)
    with pytest.raises(ddz.IllegalActionTypeError):  # a bool is in Discrete's space but is no id
        env3.step(True)


# ---- rendering ----------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_ansi_render_shows_the_agent_to_act_only(variant):
    env = pettingzoo_env(variant, render_mode="ansi")
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    spectator = pettingzoo_env(variant, render_mode="ansi", render_view="spectator")
    for _ in range(30):
        if not env.agents or env.terminations[env.agent_selection]:
            break
        g = env.game
        text = env.render()
        seat = g.current_seat
        assert f"{env.possible_agents[seat]} (you)" in text or f"{env.possible_agents[seat]} (landlord) (you)" in text
        assert str(g.hand(seat)) in text
        for s in range(g.rules.players):
            if s != seat and s not in g.observation(seat)["shown"] and len(g.hand(s)) > 3:
                assert str(g.hand(s)) not in text  # no other hidden hand leaks
        spectator.game = g
        public = spectator.render()
        assert "(you)" not in public
        for s in range(g.rules.players):
            if s not in g.observation(None)["shown"] and len(g.hand(s)) > 3:
                assert str(g.hand(s)) not in public
        env.step(int(rng.choice(env.infos[env.agent_selection]["legal_action_ids"])))


def test_ansi_render_after_a_redeal():
    """The dealer's REDEAL entry has no seat: the render names it the dealer (it raised
    TypeError when every seat passed and the hand was dealt again)."""
    env = pettingzoo_env("classic", render_mode="ansi")
    env.reset(seed=1)
    rules = env.game.rules
    for _ in range(3):  # CLASSIC3: all three pass, the cards are dealt again (docs/rules.md §6)
        env.step(rules.action_id("NO_CALL"))
    assert any(t == "REDEAL" for _, t in env.game.history)
    assert "dealer REDEAL" in env.render()


def test_human_render_prints_and_modes_are_checked(capsys):
    env = pettingzoo_env("classic", render_mode="human")
    env.reset(seed=1)
    assert env.render() is None
    assert "player_0 (you)" in capsys.readouterr().out
    gym = gymnasium_env("twop", render_mode="human")
    gym.reset(seed=1)
    assert gym.render() is None
    assert "seat 0 (you)" in capsys.readouterr().out
    ansi = gymnasium_env("twop", render_mode="ansi", render_view="spectator")
    ansi.reset(seed=1)
    assert "(you)" not in ansi.render()
    assert pettingzoo_env("classic").render() is None
    for bad in ("rgb_array", "ANSI", 3):
        with pytest.raises(ddz.ArgumentError, match="render_mode"):
            pettingzoo_env("classic", render_mode=bad)
        with pytest.raises(ddz.ArgumentError, match="render_mode"):
            gymnasium_env("classic", render_mode=bad)
    with pytest.raises(ddz.ArgumentError, match="render_view"):
        pettingzoo_env("classic", render_view="everyone")


# ---- rewards ------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_pettingzoo_rewards_have_one_meaning(variant):
    got = {}
    for reward in ("score", "win", "normalized"):
        env = pettingzoo_env(variant, reward=reward)
        env.reset(seed=11)
        got[reward] = _play_out(env, np.random.default_rng(11))
        result = env.game.result
    agents = list(got["score"])
    assert [got["score"][a] for a in agents] == [float(s) for s in result.scores]
    assert [got["normalized"][a] for a in agents] == [s / REWARD_SCALE[variant] for s in result.scores]
    winners = {s for s in range(len(agents)) if (s == result.landlord) == (result.winner_side == "landlord")}
    assert [got["win"][a] for a in agents] == [1.0 if s in winners else -1.0 for s in range(len(agents))]
    with pytest.raises(ddz.ArgumentError, match="reward"):
        pettingzoo_env(variant, reward="money")
    with pytest.raises(ddz.ArgumentTypeError, match="reward"):
        pettingzoo_env(variant, reward=1)


@pytest.mark.parametrize("reward", ["score", "win", "normalized"])
def test_gymnasium_rewards(reward):
    env = gymnasium_env("bengbu", seat=2, reward=reward, opponents=[ddz.bots.RandomBot()] * 3)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    done = False
    while not done:
        _, r, done, _, _ = env.step(int(rng.choice(env.legal_action_ids())))
    res = env.game.result
    expected = {"score": float(res.scores[2]), "normalized": res.scores[2] / 3,
                "win": 1.0 if (res.landlord == 2) == (res.winner_side == "landlord") else -1.0}[reward]
    assert r == expected


def test_rlcard_reward_options():
    rlcard = pytest.importorskip("rlcard")
    from rlcard.agents import RandomAgent
    from ddz.envs import register_rlcard
    register_rlcard()
    payoffs = {}
    for reward in ("rlcard", "score", "win", "normalized"):
        env = rlcard.make("ddz-classic", config={"seed": 7, "reward": reward})
        env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(3)])
        np.random.seed(7)
        _, payoffs[reward] = env.run(is_training=False)
    won = payoffs["rlcard"] == 1
    assert sorted(payoffs["rlcard"].tolist()) in ([0, 0, 1], [0, 1, 1])
    np.testing.assert_array_equal(payoffs["win"], np.where(won, 1.0, -1.0))
    np.testing.assert_array_equal(payoffs["normalized"], payoffs["score"] / REWARD_SCALE["classic"])
    # the play's score with every auction factor at 1: landlord ±2u, farmers ∓u, u = 2^bombs (×2 spring)
    u = abs(payoffs["score"][1])
    assert u >= 1 and np.log2(u) == int(np.log2(u)) and payoffs["score"][0] == -2 * payoffs["score"][1]
    assert (payoffs["score"][0] > 0) == bool(won[0])
    with pytest.raises(ddz.ArgumentError, match="reward"):
        rlcard.make("ddz-classic", config={"reward": "coins"})


# ---- factories and spaces -----------------------------------------------------------------

def test_factories_take_names_or_rules():
    assert pettingzoo_env("classic").rules == ddz.Rules.classic()
    assert pettingzoo_env("TWOP").rules == ddz.Rules.two_player()
    assert gymnasium_env("bengbu4").rules == ddz.Rules.bengbu()
    assert gymnasium_env("classic_douzero").rules == ddz.Rules.classic_douzero()
    with pytest.raises(ddz.ArgumentError, match="unknown rules"):
        pettingzoo_env("poker")
    with pytest.raises(ddz.ArgumentTypeError):
        gymnasium_env(3)


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_observation_space_bounds_per_block(variant):
    rules = FACTORY[variant]()
    space = pettingzoo_env(rules).observation_space("player_0")["observation"]
    layout = ddz.encode.compact_layout(rules)
    low, high = space.low.astype(int), space.high.astype(int)
    d = rules.decks
    assert high[layout["hand"]].tolist() == [4 * d] * 13 + [d, d] and low[layout["hand"]].max() == 0
    assert set(high[layout["cards_left"]]) == {rules.max_hand}
    assert set(high[layout["to_act"]]) == {1} and set(high[layout["auction"]]) == {1}
    assert set(low[layout["bombs_left"]]) == {-1}
    assert (high > low).all()  # no zero-width entry for a normalising wrapper to divide by
    assert high.max() < 127 and low.min() >= -1  # not int8's range: real bounds
    # every observation of random hands lies inside
    env = pettingzoo_env(rules)
    rng = np.random.default_rng(0)
    for hand in range(4):
        env.reset(seed=hand)
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            assert space.contains(obs["observation"]), agent
            env.step(None if term or trunc else int(rng.choice(info["legal_action_ids"])))


# ---- Gymnasium illegal actions and the step limit ------------------------------------------

@pytest.mark.parametrize("reward", ["score", "win"])
def test_gymnasium_penalize_ends_the_episode(reward):
    env = gymnasium_env("classic", seat=0, illegal_action="penalize", reward=reward)
    env.reset(seed=1)
    before = env.game.to_json()
    bad = next(i for i in range(env.rules.num_actions) if not env.action_masks()[i])
    obs, r, terminated, truncated, info = env.step(bad)
    assert terminated and not truncated and r == -reward_unit("classic", reward) and "illegal_action" in info
    assert r == (-2.0 if reward == "score" else -1.0) and env.game.to_json() == before
    with pytest.raises(ddz.IllegalAction, match=r"reset\(\)"):
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))


def test_gymnasium_unmasked_sampling_terminates_under_penalize():
    env = gymnasium_env("two_player", seat=0, illegal_action="penalize")
    env.action_space.seed(0)
    env.reset(seed=0)
    for _ in range(5):
        _, r, term, trunc, _ = env.step(env.action_space.sample())
        if term or trunc:
            break
    assert term and r < 0


def test_gymnasium_step_limit_truncates():
    rules = ddz.Rules.classic(max_redeals=0)
    # opponents that never call: every deal is redealt, a hand that never ends without a limit
    never = ddz.Rules.classic().action_id("NO_CALL")
    env = gymnasium_env(rules, seat=0, max_steps=7, opponents=[lambda obs: never, lambda obs: never])
    env.reset(seed=0)
    steps = 0
    while True:
        _, r, term, trunc, _ = env.step(never)
        steps += 1
        if term or trunc:
            break
    assert trunc and not term and steps == 7 and r == 0.0
    with pytest.raises(ddz.IllegalAction, match=r"reset\(\)"):
        env.step(never)
    assert gymnasium_env("classic").max_steps == ddz.envs.gym_env.MAX_STEPS
    assert gymnasium_env("classic", max_steps=None).max_steps is None
    for bad in (0, -1, 1.5, True, "10"):
        with pytest.raises(ddz.ArgumentError, match="max_steps"):
            gymnasium_env("classic", max_steps=bad)
    for bad in ("ignore", None, 1):
        with pytest.raises(ddz.ArgumentError, match="illegal_action"):
            gymnasium_env("classic", illegal_action=bad)
