"""A Gymnasium single-agent environment: one seat of whole ddz hands, the other seats
played by bots. ``ddz.envs.gymnasium_env(rules, seat=0, opponents=None)``.

Each episode is a ``ddz.Game`` dealt from the environment's seed, bidding included. The
agent's actions are ids of ``rules.num_actions`` (``ddz.action_space``); its observation
is ``{"observation": ddz.encode.compact(game, seat), "action_mask": int8 mask of its legal
ids}``. The other seats are ``opponents`` (one per other seat, in seat order; default
``ddz.bots.RuleBot``): bots (``act(game, seat)``) or callables given the seat's
``game.observation`` with ``legal_action_ids``; an opponent with a ``reseed(seed)`` method
is reseeded at every ``reset(seed=...)``. The reward is 0 until the hand ends, then the
agent's score (``GameResult.scores[seat]``). Any id of the action space may be sent: an
illegal one changes nothing, gives reward 0 and names why in ``info["illegal_action"]``. A
BENGBU4 deal that ends at the deal (天炸/天尊) is skipped.
``sample_worlds(n, seed)`` gives the agent ``ddz.sample_deals`` worlds for search.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import gymnasium
import numpy as np

from ...core.rules import Rules
from ...search.bots import RuleBot
from ...core.errors import ArgumentError, ArgumentTypeError, shown
from ...hand.game import Game
from ._common import bot_action, check_rules, new_game, observe, sample_worlds, spaces_for

__all__ = ["DdzGymEnv"]


class DdzGymEnv(gymnasium.Env):
    """Gymnasium environment of one seat (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, rules: Rules, seat: int = 0, opponents: Optional[Sequence[Any]] = None,
                 render_mode: Optional[str] = None) -> None:
        self.rules = check_rules(rules)
        n = rules.players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ArgumentError(f"seat must be 0..{n - 1}, not {shown(seat)}")
        self.seat = seat
        others = [s for s in range(n) if s != seat]
        if opponents is None:
            opponents = [RuleBot() for _ in others]
        opponents = list(opponents)
        if len(opponents) != len(others):
            raise ArgumentError(f"give {len(others)} opponents (seats {others}), not {len(opponents)}")
        for i, b in enumerate(opponents):
            if not (callable(getattr(b, "act", None)) or callable(b)):
                raise ArgumentTypeError(f"opponent {i} is neither a bot (act(game, seat)) nor a callable: {shown(b)}")
        self.opponents: Dict[int, Any] = dict(zip(others, opponents))
        self.observation_space, self.action_space = spaces_for(rules)
        self.render_mode = render_mode
        self._rng = np.random.default_rng()
        self.game: Optional[Game] = None

    def _game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() first")
        return self.game

    def _run_opponents(self) -> None:
        g = self._game()
        while not g.is_over and g.current_seat != self.seat:
            s = g.current_seat
            assert s is not None  # a hand not over has a seat to act
            g.apply(bot_action(self.opponents[s], g, s), s)

    def _reward(self) -> float:
        g = self._game()
        return float(g.result.scores[self.seat]) if g.is_over and g.result is not None else 0.0

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
        return observe(self.game, self.seat), {}

    def step(self, action: Any) -> Tuple[Dict[str, np.ndarray], float, bool, bool, Dict[str, Any]]:
        g = self._game()
        why = g.check(int(action), self.seat)
        if why is not None:  # any id of the action space may be sent: an illegal one changes nothing
            return observe(g, self.seat), 0.0, False, False, {"illegal_action": str(why)}
        g.apply(int(action), self.seat)
        self._run_opponents()
        return observe(g, self.seat), self._reward(), g.is_over, False, {}

    def sample_worlds(self, n: int, seed: int = 0) -> np.ndarray:
        """``ddz.sample_deals`` from the agent's observation: ``n`` deals of the cards it
        cannot see (uint64 rank-count words, one column per seat)."""
        return sample_worlds(self._game(), self.seat, n, seed)

    def render(self) -> Optional[str]:
        if self.render_mode != "ansi" or self.game is None:
            return None
        return f"{self.game!r}\nseat {self.seat}: {self.game.hand(self.seat)}"

    def legal_action_ids(self) -> List[int]:
        """The agent's legal ids now (``Game.legal_action_ids``)."""
        return self._game().legal_action_ids()
