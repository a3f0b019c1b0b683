"""Fuzz targets of the learning environments (ddz.envs): the PettingZoo AEC environment, raw
and wrapped as PettingZoo's classic games are, the Gymnasium environment and the RLCard
environment, each driven through hands with legal ids and hostile actions (ids out of
range, numpy integers, bools, floats, tokens, anything).

The contract checked (the conventions of tests/fuzz/targets.py): a step either succeeds, and
then the action was a legal id and the environment moved on consistently, or raises a short
``ddz.DdzError`` and leaves the environment exactly as it was (the agent to act, its
observation and info, the hand's history). PettingZoo's own wrappers keep their own errors
(an ``AssertionError`` for an action outside the action space, or before ``reset()``). Any
other exception escaping a target is a finding."""
from __future__ import annotations

import importlib.util
import math
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

import ddz

from .provider import Data
from .targets import Finding, rejected

_RULES: List[ddz.Rules] = [ddz.Rules.classic(), ddz.Rules.two_player(), ddz.Rules.bengbu(),
                           ddz.Rules.classic_rlcard()]
_REWARDS = ("score", "win", "normalized")
_envs: Dict[Tuple[Any, ...], Any] = {}  # environments are reused across inputs: reset makes them new


def _cached(key: Tuple[Any, ...], make: Callable[[], Any]) -> Any:
    env = _envs.get(key)
    if env is None:
        env = _envs[key] = make()
    return env


def _action(d: Data, rules: ddz.Rules, legal: List[int]) -> Tuple[Any, bool]:
    """(an action, whether it is an id the environment must take when it is legal)."""
    k = d.int(0, 15)
    n = rules.num_actions
    if k <= 6 and legal:
        return d.choice(legal), True
    if k == 7 and legal:
        return d.choice([np.int64, np.int32, np.uint16, np.uint64])(d.choice(legal)), True
    if k == 8:
        return d.int(0, n - 1), True                  # any id: mostly illegal here
    if k == 9:
        return d.choice([-1, n, n + 1, 2**31, 2**63, 2**64, -(2**64), 10**30, np.int8(-1)]), False
    if k == 10 and legal:
        aid = d.choice(legal)
        return d.choice([float(aid), aid + 0.5, np.float64(aid), str(aid), bool(aid), np.bool_(aid),
                         np.array(aid), [aid], rules.action_token(aid)]), False
    if k == 11:
        return d.choice([True, False, None, math.nan, math.inf, 12655.9, 1.7, "CALL", "PASS", "", b"1"]), False
    return d.hostile(), False


def _is_id(action: Any) -> bool:
    return (isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)))


def _same_obs(a: Dict[str, np.ndarray], b: Dict[str, np.ndarray]) -> bool:
    return all(np.array_equal(a[k], b[k]) for k in ("observation", "action_mask"))


# ---- PettingZoo -----------------------------------------------------------------------------

def _aec_snapshot(env: Any) -> Tuple[Any, ...]:
    u = env.unwrapped
    agent = u.agent_selection
    g = u.game
    return (agent, list(u.agents), dict(u.terminations), u.infos.get(agent), list(g.history), g.phase,
            g.deal_number, {a: u.observe(a) for a in u.agents[:1] + [agent]})


def _same_aec(a: Tuple[Any, ...], b: Tuple[Any, ...]) -> bool:
    return a[:7] == b[:7] and a[7].keys() == b[7].keys() and all(_same_obs(a[7][k], b[7][k]) for k in a[7])


def t_env_aec(data: bytes) -> None:
    from pettingzoo.utils.env_logger import EnvLogger

    from ddz.envs import pettingzoo_env
    from ddz.envs.aec_env import make_env
    EnvLogger.suppress_output()  # the wrappers' warnings on illegal moves: expected here
    d = Data(data)
    rules = d.choice(_RULES)
    wrapped = d.chance(3)
    reward = d.choice(_REWARDS)
    if d.chance(16):  # a fresh environment: a step before reset() is refused
        env = make_env(rules.variant, reward=reward) if wrapped else pettingzoo_env(rules, reward=reward)
        try:
            env.step(d.choice([0, None, True, 1.5]))
        except ddz.DdzError as e:
            if "reset()" not in str(e):
                raise Finding(f"a step before reset() says {e}") from None
        except AssertionError:
            if not wrapped:
                raise
        else:
            raise Finding("a step before reset() was taken")
        return
    key = ("aec", rules, wrapped, reward)
    if wrapped:
        env = _cached(key, lambda: make_env(rules.variant, rules=rules, reward=reward))
    else:
        env = _cached(key, lambda: pettingzoo_env(rules, reward=reward))
    env.reset(seed=d.int(0, 2**32))
    u = env.unwrapped
    for _ in range(d.int(1, 80)):
        if not u.agents:
            # raw: refused; wrapped: PettingZoo's OrderEnforcingWrapper warns and ignores it
            if not rejected(lambda: env.step(d.choice([None, 0]))) and not wrapped:
                raise Finding("a step after every agent was removed was taken")
            return
        agent = u.agent_selection
        if u.terminations[agent] or u.truncations[agent]:
            env.step(None)
            continue
        legal = list(u.infos[agent]["legal_action_ids"])
        if sorted(legal) != sorted(u.game.legal_action_ids()):
            raise Finding("info['legal_action_ids'] differ from the game's")
        action, is_id = _action(d, rules, legal)
        before = _aec_snapshot(env)
        try:
            env.step(action)
        except ddz.DdzError as e:
            if len(str(e)) > 1000:
                raise Finding(f"message of {len(str(e))} characters") from None
            if _is_id(action) and int(action) in legal:
                raise Finding(f"the legal id {action!r} was refused: {e}") from None
            if not _same_aec(before, _aec_snapshot(env)):
                raise Finding(f"a refused action {action!r} changed the environment")
            continue
        except AssertionError:  # PettingZoo's AssertOutOfBoundsWrapper refuses what is not in the space
            if not wrapped or u.action_space(agent).contains(action):
                raise
            if not _same_aec(before, _aec_snapshot(env)):
                raise Finding(f"a refused action {action!r} changed the environment")
            continue
        if not is_id and not _is_id(action):
            raise Finding(f"the non-id {action!r} was taken")
        if int(action) not in legal:
            if not wrapped:
                raise Finding(f"the illegal id {action!r} was taken")
            # TerminateIllegalWrapper: the hand ends, the agent penalised
            if not all(u.terminations.values()) or u.rewards[agent] >= 0:
                raise Finding("an illegal id did not end the hand with a penalty")
            continue
        g = u.game
        if g.is_over:
            if not all(u.terminations.values()):
                raise Finding("the hand ended but an agent is not terminated")
            if reward == "score" and [u.rewards[a] for a in u.possible_agents] != [float(s) for s in g.result.scores]:
                raise Finding("the rewards are not the scores")
        elif u.agent_selection != u.possible_agents[g.current_seat]:
            raise Finding("the selected agent is not the seat to act")


# ---- Gymnasium ------------------------------------------------------------------------------

def _first_legal(obs: Dict[str, Any]) -> int:
    return obs["legal_action_ids"][0]


def t_env_gym(data: bytes) -> None:
    from ddz.envs.gym_env import DdzGymEnv
    d = Data(data)
    rules = d.choice(_RULES)
    seat = d.int(0, rules.players - 1)
    illegal = d.choice(["raise", "penalize"])
    reward = d.choice(_REWARDS)
    max_steps = d.choice([None, 1, 2, 5, 1000])
    if d.chance(16):
        env = DdzGymEnv(rules, seat=seat, opponents=[_first_legal] * (rules.players - 1))
        if not rejected(lambda: env.step(d.choice([0, None, 1.5]))):
            raise Finding("a step before reset() was taken")
        return
    key = ("gym", rules, seat, illegal, reward, max_steps)
    env = _cached(key, lambda: DdzGymEnv(rules, seat=seat, opponents=[_first_legal] * (rules.players - 1),
                                         reward=reward, illegal_action=illegal, max_steps=max_steps))
    obs, _ = env.reset(seed=d.int(0, 2**32))
    steps = 0
    for _ in range(d.int(1, 60)):
        g = env.game
        legal = g.legal_action_ids()
        if not np.array_equal(np.flatnonzero(env.action_masks()), np.sort(legal)):
            raise Finding("action_masks() differs from the legal ids")
        action, is_id = _action(d, rules, legal)
        history, deal = list(g.history), g.deal_number
        try:
            obs2, r, term, trunc, info = env.step(action)
        except ddz.DdzError as e:
            if len(str(e)) > 1000:
                raise Finding(f"message of {len(str(e))} characters") from None
            if _is_id(action) and int(action) in legal:
                raise Finding(f"the legal id {action!r} was refused: {e}") from None
            if _is_id(action) and illegal == "penalize" and 0 <= int(action) < rules.num_actions:
                raise Finding(f"an illegal id raised under illegal_action='penalize': {e}")
            if g.history != history or g.deal_number != deal or not _same_obs(obs, ddz.envs._common.observe(g, seat)):
                raise Finding(f"a refused action {action!r} changed the environment")
            continue
        if not _is_id(action):
            raise Finding(f"the non-id {action!r} was taken")
        if int(action) not in legal:
            if illegal != "penalize" or not term or r >= 0 or "illegal_action" not in info:
                raise Finding("an illegal id was taken without the penalty")
            if g.history != history:
                raise Finding("a penalised illegal id changed the hand")
        else:
            steps += 1
            if term != g.is_over:
                raise Finding("terminated differs from the hand's end")
            if trunc != (not term and max_steps is not None and steps >= max_steps):
                raise Finding(f"truncated={trunc} after {steps} steps (max_steps={max_steps})")
            if not term and g.current_seat != seat:
                raise Finding("the agent is given a state where it is not to act")
            if not env.observation_space.contains(obs2):
                raise Finding("an observation outside the observation space")
        obs = obs2
        if term or trunc:
            if not rejected(lambda: env.step(d.choice(legal + [0]))):
                raise Finding("a step after the episode's end was taken")
            return


# ---- RLCard ---------------------------------------------------------------------------------

def t_env_rlcard(data: bytes) -> None:
    from ddz.envs import rlcard_env
    d = Data(data)
    rules = d.choice(_RULES)
    cls = {"classic": rlcard_env.ClassicEnv, "two_player": rlcard_env.TwoPlayerEnv,
           "bengbu": rlcard_env.BengbuEnv}[rules.variant]
    reward = d.choice(("rlcard",) + _REWARDS)
    env = _cached(("rlcard", rules, reward), lambda: cls({"seed": 0, "rules": rules, "reward": reward,
                                                          "allow_step_back": False}))
    env.seed(d.int(0, 2**32))
    state, player = env.reset()
    for _ in range(d.int(1, 80)):
        legal = list(state["legal_actions"])
        action, is_id = _action(d, rules, legal)
        raw = d.chance(8)
        if raw and legal:
            action = d.choice(state["raw_legal_actions"] + ["pass", "33", "x", None, 3])
        before = (list(env.game.trace), len(env.action_recorder), env.timestep, env.get_player_id())
        try:
            state, player = env.step(action, raw_action=raw)
        except ddz.DdzError as e:
            if len(str(e)) > 1000:
                raise Finding(f"message of {len(str(e))} characters") from None
            if not raw and _is_id(action) and int(action) in legal:
                raise Finding(f"the legal id {action!r} was refused: {e}") from None
            after = (list(env.game.trace), len(env.action_recorder), env.timestep, env.get_player_id())
            if after != before:
                raise Finding(f"a refused action {action!r} changed the environment")
            continue
        if not raw and (not _is_id(action) or int(action) not in legal):
            raise Finding(f"the action {action!r} was taken though not a legal id")
        if env.is_over():
            payoffs = env.get_payoffs()
            if len(payoffs) != rules.players:
                raise Finding("payoffs of the wrong length")
            if not rejected(lambda: env.step(d.choice(legal or [0]))):
                raise Finding("a step after the hand's end was taken")
            return


def _installed(*modules: str) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in modules)


# a target whose framework is not installed (they are optional extras) is left out
TARGETS: Dict[str, Callable[[bytes], None]] = {
    name: fn for name, fn, needs in (
        ("env_aec", t_env_aec, ("pettingzoo", "gymnasium")),
        ("env_gym", t_env_gym, ("gymnasium",)),
        ("env_rlcard", t_env_rlcard, ("rlcard",)),
    ) if _installed(*needs)
}
