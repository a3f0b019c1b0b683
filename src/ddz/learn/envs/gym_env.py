"""A Gymnasium single-agent environment: one seat of whole ddz hands, the other seats
played by bots. ``ddz.envs.gymnasium_env(rules, seat=0, opponents=None)``, or
``gymnasium.make("ddz/Classic-v0")`` (the ids of ``ddz.envs.GYM_IDS``).

Each episode is a ``ddz.Game`` dealt from the environment's seed, bidding included. The
agent's actions are ids of ``rules.num_actions`` (``ddz.action_space``), ints or numpy
integers (anything else, a bool included, raises ``ddz.IllegalActionTypeError``); its
observation is ``{"observation": ddz.encode.compact(game, seat), "action_mask": int8 mask of
its legal ids}``, and ``action_masks()`` gives the mask as bools for maskable-policy
libraries. The other seats are ``opponents`` (one per other seat, in seat order; default
``ddz.bots.RuleBot``): bots (``act(game, seat)``) or callables given the seat's
``game.observation`` with ``legal_action_ids``; an opponent with a ``reseed(seed)`` method is
reseeded at every ``reset(seed=...)``. The reward is 0 until the hand ends, then the agent's
reward in the ``reward`` convention (``"score"`` by default: ``GameResult.scores[seat]``;
``"win"``, ``"normalized"``: ``ddz.learn.rewards``).

An illegal id, with ``illegal_action="raise"`` (the default), raises ``ddz.IllegalAction``
and changes nothing. With ``"penalize"`` it ends the episode instead: ``terminated=True``,
the reward ``-ddz.learn.rewards.reward_unit(variant, reward)`` (−1 under ``"win"`` and
``"normalized"``, minus the variant's ``REWARD_SCALE`` under ``"score"``) and
``info["illegal_action"]`` saying why. An episode is truncated after ``max_steps`` of the
agent's steps (default 1,000; ``None``: no limit) — a hand can be redealt without end. A step
before ``reset()`` or after the episode has ended (terminated or truncated) raises
``ddz.IllegalAction`` (code ``HAND_OVER``) saying to call ``reset()``. A BENGBU4 deal that
ends at the deal (天炸/天尊) is skipped. ``sample_worlds(n, seed)`` gives the agent
``ddz.sample_deals`` worlds for search.

``render_mode="ansi"`` makes ``render()`` return the text of the agent's view (its hand and
what is public), ``render_view="spectator"`` only what is public, ``"human"`` prints it.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import gymnasium
import numpy as np

from ...core.rules import Rules
from ...search.bots import RuleBot
from ...core.errors import ArgumentError, ArgumentTypeError, shown
from ...hand.game import Game
from ..rewards import check_reward, reward_unit, seat_rewards
from ._common import (action_id, bot_action, check_render, new_game, no_hand, observe, render_text, rules_from,
                      sample_worlds, spaces_for)

__all__ = ["DdzGymEnv", "ILLEGAL_ACTIONS", "MAX_STEPS"]

#: ``illegal_action`` values.
ILLEGAL_ACTIONS = ("raise", "penalize")
#: The default step limit (the agent's steps in one episode).
MAX_STEPS = 1000


class DdzGymEnv(gymnasium.Env):
    """Gymnasium environment of one seat (see the module docstring). ``rules``: a ``ddz.Rules``
    or a name (``"classic"``, ``"two_player"``, ``"bengbu"``, a compat preset)."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(self, rules: Any = "classic", seat: int = 0, opponents: Optional[Sequence[Any]] = None,
                 render_mode: Optional[str] = None, *, reward: str = "score", illegal_action: str = "raise",
                 max_steps: Optional[int] = MAX_STEPS, render_view: str = "agent") -> None:
        rules = rules_from(rules)
        self.rules: Rules = rules
        n = rules.players
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
            raise ArgumentError(f"seat must be 0..{n - 1}, not {shown(seat)}")
        self.seat = int(seat)
        others = [s for s in range(n) if s != seat]
        if opponents is None:
            opponents = [RuleBot() for _ in others]
        opponents = list(opponents)
        if len(opponents) != len(others):
            raise ArgumentError(f"give {len(others)} opponents (seats {others}), not {len(opponents)}")
        for i, b in enumerate(opponents):
            if not (callable(getattr(b, "act", None)) or callable(b)):
                raise ArgumentTypeError(f"opponent {i} is neither a bot (act(game, seat)) nor a callable: {shown(b)}")
        self.reward = check_reward(reward)
        if not isinstance(illegal_action, str) or illegal_action not in ILLEGAL_ACTIONS:
            raise ArgumentError(f"illegal_action must be one of {', '.join(map(repr, ILLEGAL_ACTIONS))}, "
                                f"not {shown(illegal_action)}")
        self.illegal_action = illegal_action
        if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer))
                                      or max_steps < 1):
            raise ArgumentError(f"max_steps must be a positive int or None, not {shown(max_steps)}")
        self.max_steps = None if max_steps is None else int(max_steps)
        check_render(render_mode, render_view, self.metadata["render_modes"])
        self.render_mode = render_mode
        self.render_view = render_view
        self.opponents: Dict[int, Any] = dict(zip(others, opponents))
        self.observation_space, self.action_space = spaces_for(rules)
        self._num_actions = rules.num_actions
        self._rng = np.random.default_rng()
        self.game: Optional[Game] = None
        self._done = False  # the episode has ended (terminated or truncated)
        self._steps = 0

    def _game(self) -> Game:
        if self.game is None:
            raise no_hand(False)
        return self.game

    def _run_opponents(self) -> None:
        g = self._game()
        while not g.is_over and g.current_seat != self.seat:
            s = g.current_seat
            assert s is not None  # a hand not over has a seat to act
            g.apply(bot_action(self.opponents[s], g, s), s)

    def _reward(self) -> float:
        g = self._game()
        if not g.is_over or g.result is None:
            return 0.0
        return seat_rewards(g.result, self.rules.variant, self.reward)[self.seat]

    def reset(self, *, seed: Optional[int] = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[Dict[str, np.ndarray], Dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            for s, bot in self.opponents.items():
                if callable(getattr(bot, "reseed", None)):
                    bot.reseed(int(self._rng.integers(2**63)))
        # the opponents may end a hand before the agent's first decision: deal again then
        while True:
            self.game = new_game(self.rules, self._rng)
            self._run_opponents()
            if not self.game.is_over:
                break
        self._done = False
        self._steps = 0
        return observe(self.game, self.seat), {}

    def step(self, action: Any) -> Tuple[Dict[str, np.ndarray], float, bool, bool, Dict[str, Any]]:
        g = self.game
        if g is None or self._done:
            raise no_hand(g is not None)
        aid = action_id(action, self._num_actions)
        why = g.check(aid, self.seat)
        if why is not None:
            if self.illegal_action == "raise":
                raise why
            self._done = True
            penalty = -reward_unit(self.rules.variant, self.reward)
            return observe(g, self.seat), penalty, True, False, {"illegal_action": str(why)}
        g.apply(aid, self.seat)
        self._run_opponents()
        self._steps += 1
        terminated = g.is_over
        truncated = not terminated and self.max_steps is not None and self._steps >= self.max_steps
        self._done = terminated or truncated
        return observe(g, self.seat), self._reward(), terminated, truncated, {}

    def action_masks(self) -> np.ndarray:
        """The agent's legal ids as a bool mask over the action space (sb3-contrib's
        ``MaskablePPO`` and other maskable policies call this); all False once the episode
        has ended."""
        g = self._game()
        if self._done or g.is_over:
            return np.zeros(self._num_actions, dtype=bool)
        return g.legal_action_mask()

    def sample_worlds(self, n: int, seed: int = 0) -> np.ndarray:
        """``ddz.sample_deals`` from the agent's observation: ``n`` deals of the cards it
        cannot see (uint64 rank-count words, one column per seat)."""
        return sample_worlds(self._game(), self.seat, n, seed)

    def render(self) -> Optional[str]:
        """``"ansi"``: the text of the agent's view (``render_view="spectator"``: what is
        public); ``"human"``: prints it; no mode: None."""
        if self.render_mode is None or self.game is None:
            return None
        seat = self.seat if self.render_view == "agent" else None
        text = render_text(self.game, seat, [f"seat {s}" for s in range(self.rules.players)])
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def legal_action_ids(self) -> List[int]:
        """The agent's legal ids now (``Game.legal_action_ids``)."""
        return self._game().legal_action_ids()
