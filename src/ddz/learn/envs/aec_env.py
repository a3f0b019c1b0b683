"""A PettingZoo AEC environment of whole ddz hands: ``ddz.envs.pettingzoo_env(rules)`` (the
raw environment) or ``ddz.envs.classic_v0.env()`` (PettingZoo's module convention, wrapped as
PettingZoo's own classic games are).

Agents ``player_0`` … ``player_{n-1}`` are the seats. Each hand is a ``ddz.Game`` dealt
from the environment's seed, bidding and doubling included: an action is an id of
``rules.num_actions`` (``ddz.action_space``: plays by ``Move.id``, PASS, then the variant's
decisions), an int or a numpy integer (a bool, a float, a str or anything else raises
``ddz.IllegalActionTypeError``). An agent observes ``{"observation": ddz.encode.compact(game,
seat), "action_mask": int8 mask of its legal ids}`` (the mask is all zeros when another seat is
to act), and the agent to act finds the same ids as a list in
``infos[agent]["legal_action_ids"]`` (the other agents' infos are empty): picking from that
list is cheaper than scanning a mask ``rules.num_actions`` wide (24,656 in TWOP). An illegal id
raises ``ddz.IllegalAction`` and changes nothing; so does a step before ``reset()`` or after
the hand has ended (code ``HAND_OVER``, the message says to call ``reset()``). When the hand
ends every agent is terminated with its seat's reward: ``reward="score"`` (default, the seat's
``GameResult.scores``), ``"win"`` or ``"normalized"`` (``ddz.learn.rewards``). A BENGBU4 deal that
ends at the deal (天炸/天尊) is skipped. ``sample_worlds(agent, n, seed)`` gives an agent
``ddz.sample_deals`` worlds for search.

``render_mode="ansi"`` makes ``render()`` return the text of what the agent to act sees (its
own hand, never another's hidden one); ``render_view="spectator"`` shows only what is public;
``"human"`` prints the same text. The environment is not parallelizable: the seat to act
depends on the auction (robs, redeals), so agents do not act once each per cycle.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers import BaseWrapper

from .. import encode
from ...core.rules import Rules
from ...core.errors import ArgumentError, IllegalCode, illegal, shown
from ...hand.game import Game
from ..rewards import check_reward, reward_unit, seat_rewards
from ._common import action_id, check_render, new_game, no_hand, render_text, rules_from, sample_worlds, spaces_for

__all__ = ["DdzAECEnv", "make_env", "make_raw"]

RENDER_MODES = ["ansi", "human"]


class DdzAECEnv(AECEnv):
    """PettingZoo AEC environment of ``rules``' variant (see the module docstring). ``rules``:
    a ``ddz.Rules`` or a name (``"classic"``, ``"two_player"``, ``"bengbu"``, a compat preset)."""

    metadata = {"render_modes": RENDER_MODES, "name": "ddz_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(self, rules: Any, render_mode: Optional[str] = None, *, reward: str = "score",
                 render_view: str = "agent") -> None:
        super().__init__()
        rules = rules_from(rules)
        check_render(render_mode, render_view, RENDER_MODES)
        self.reward = check_reward(reward)
        self.rules: Rules = rules
        # the name follows PettingZoo's <game>_v<version>, one per variant
        self.metadata = {**DdzAECEnv.metadata, "name": f"ddz_{rules.variant}_v0"}
        self.render_mode = render_mode
        self.render_view = render_view
        self.possible_agents = [f"player_{s}" for s in range(rules.players)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        obs_space, act_space = spaces_for(rules)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._num_actions = rules.num_actions
        self._rng = np.random.default_rng()
        self.game: Optional[Game] = None
        self.agents: List[str] = []

    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.game = new_game(self.rules, self._rng)
        self.agents = list(self.possible_agents)
        self.rewards: Dict[str, float] = {a: 0.0 for a in self.agents}
        self._cumulative_rewards: Dict[str, float] = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: Dict[str, Dict[str, Any]] = {a: {} for a in self.agents}
        self._select(self._to_act())

    def _game(self) -> Game:
        if self.game is None:
            raise no_hand(False)
        return self.game

    def _to_act(self) -> int:
        seat = self._game().current_seat
        assert seat is not None  # new_game never returns a hand that is over
        return seat

    def _select(self, seat: int) -> None:
        """The seat to act becomes the selected agent, with its legal ids in its info."""
        agent = self.possible_agents[seat]
        self.agent_selection = agent
        self.infos[agent] = {"legal_action_ids": self._game().legal_action_ids()}

    def observe(self, agent: str) -> Dict[str, np.ndarray]:
        g = self.game if self.game is not None else self._game()
        return encode._observation(g, self._seat[agent])  # _common.observe, inlined: the hot path

    def step(self, action: Any) -> None:
        g = self.game
        if g is None:
            raise no_hand(False)
        if not self.agents:
            raise no_hand(True)
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:  # PettingZoo's rule for a terminated agent, as a ddz error
                raise illegal(IllegalCode.HAND_OVER, f"{agent} is terminated: its only action is None "
                                                     "(step(None) removes it)")
            self._was_dead_step(action)
            return
        seat = self._seat[agent]
        g.apply(action if type(action) is int else action_id(action, self._num_actions), seat)
        self._cumulative_rewards[agent] = 0
        result = g.result
        if result is None:
            # every reward of a hand in progress is 0 (reset sets them; only the end changes
            # them, and it ends the hand), so there is nothing to set or accumulate
            self.infos[agent] = {}
            self._select(g.current_seat)  # type: ignore[arg-type]  # a hand in progress has a seat to act
            return
        rewards = seat_rewards(result, self.rules.variant, self.reward)
        for a in self.agents:
            self.rewards[a] = rewards[self._seat[a]]
            self.terminations[a] = True
            self.infos[a] = {}
        self.agent_selection = self.possible_agents[(seat + 1) % self.rules.players]
        self._accumulate_rewards()

    def sample_worlds(self, agent: str, n: int, seed: int = 0) -> np.ndarray:
        """``ddz.sample_deals`` from ``agent``'s observation: ``n`` deals of the cards it
        cannot see (uint64 rank-count words, one column per seat)."""
        return sample_worlds(self._game(), self._seat[agent], n, seed)

    def render(self) -> Optional[str]:
        """``"ansi"``: the text of what the agent to act sees (``render_view="spectator"``:
        what everyone sees); ``"human"``: prints it; no mode: None."""
        if self.render_mode is None or self.game is None:
            return None
        g = self.game
        seat: Optional[int] = None
        if self.render_view == "agent":
            seat = g.current_seat
            if seat is None:  # the hand is over: the agent the environment selects next
                seat = self._seat.get(getattr(self, "agent_selection", ""), None)
        text = render_text(g, seat, self.possible_agents)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.game = None


# ---- PettingZoo's module convention (ddz.envs.classic_v0 & co.) --------------------------

_ENV_OPTIONS = ("reward", "render_view")


def _split(variant: str, options: Dict[str, Any]) -> Any:
    """(rules, environment options) from a module's keywords: ``rules`` (a Rules or a name of
    the module's variant) or the variant's rules options, and the environment's own."""
    env_options = {k: options.pop(k) for k in _ENV_OPTIONS if k in options}
    rules = options.pop("rules", None)
    if rules is not None:
        if options:
            raise ArgumentError(f"give rules or rules options, not both ({', '.join(sorted(options))})")
        return rules_from(rules, variant), env_options
    return Rules(variant, **options), env_options


def make_raw(variant: str, render_mode: Optional[str] = None, **options: Any) -> DdzAECEnv:
    """The module's ``raw_env``: ``DdzAECEnv`` of the variant (``options``: ``rules=`` or rules
    options, ``reward``, ``render_view``)."""
    rules, env_options = _split(variant, dict(options))
    return DdzAECEnv(rules, render_mode=render_mode, **env_options)


class _ActionIds(BaseWrapper):
    """Checks an action is an id (``Game.apply``'s check: an int or numpy integer, not a bool)
    before PettingZoo's TerminateIllegalWrapper indexes the mask with it."""

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if not (action is None and (self.terminations.get(agent) or self.truncations.get(agent))):
            action = action_id(action, self.env.unwrapped._num_actions)
        super().step(action)


def make_env(variant: str, render_mode: Optional[str] = None, illegal_reward: Optional[float] = None,
             **options: Any) -> Any:
    """The module's ``env``: ``make_raw`` wrapped as PettingZoo's classic games are. An illegal
    id ends the hand (``TerminateIllegalWrapper``): the agent that sent it gets
    ``illegal_reward`` (default ``-ddz.learn.rewards.reward_unit(variant, reward)``), the others 0;
    an id outside the action space fails PettingZoo's ``AssertOutOfBoundsWrapper``; ``step``
    or ``observe`` before ``reset()`` fail ``OrderEnforcingWrapper``."""
    raw = make_raw(variant, render_mode, **options)
    if illegal_reward is None:
        illegal_reward = -reward_unit(variant, raw.reward)
    elif isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float, np.integer, np.floating)) \
            or not np.isfinite(illegal_reward):
        raise ArgumentError(f"illegal_reward must be a finite number, not {shown(illegal_reward)}")
    env: Any = wrappers.TerminateIllegalWrapper(raw, illegal_reward=float(illegal_reward))
    env = _ActionIds(env)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)
