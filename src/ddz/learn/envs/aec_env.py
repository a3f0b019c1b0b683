"""A PettingZoo AEC environment of whole ddz hands: ``ddz.envs.pettingzoo_env(rules)``.

Agents ``player_0`` … ``player_{n-1}`` are the seats. Each hand is a ``ddz.Game`` dealt
from the environment's seed, bidding and doubling included: an action is an id of
``rules.num_actions`` (``ddz.action_space``: plays by ``Move.id``, PASS, then the variant's
decisions). An agent observes ``{"observation": ddz.encode.compact(game, seat),
"action_mask": int8 mask of its legal ids}`` (the mask is all zeros when another seat is to
act), and the agent to act finds the same ids as a list in ``infos[agent]["legal_action_ids"]``
(the other agents' infos are empty): picking from that list is cheaper than scanning a mask
``rules.num_actions`` wide (24,656 in TWOP). An illegal id raises ``ddz.IllegalAction`` and
changes nothing. When the hand ends
every agent is terminated with its seat's score (``GameResult.scores``) as reward. A
BENGBU4 deal that ends at the deal (天炸/天尊) is skipped. ``sample_worlds(agent, n, seed)``
gives an agent ``ddz.sample_deals`` worlds for search.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np
from pettingzoo import AECEnv

from .. import encode
from ...core.rules import Rules
from ...hand.game import Game
from ._common import check_rules, new_game, sample_worlds, spaces_for

__all__ = ["DdzAECEnv"]


class DdzAECEnv(AECEnv):
    """PettingZoo AEC environment of ``rules``' variant (see the module docstring)."""

    metadata = {"render_modes": ["ansi"], "name": "ddz_v0", "is_parallelizable": False}

    def __init__(self, rules: Rules, render_mode: Optional[str] = None) -> None:
        super().__init__()
        self.rules = check_rules(rules)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{s}" for s in range(rules.players)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        obs_space, act_space = spaces_for(rules)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self.game: Optional[Game] = None

    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.game = new_game(self.rules, self._rng)
        self.agents: List[str] = list(self.possible_agents)
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: Dict[str, Dict[str, Any]] = {a: {} for a in self.agents}
        self._select(self._to_act())

    def _game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() first")
        return self.game

    def _to_act(self) -> int:
        seat = self._game().current_seat
        assert seat is not None  # new_game never returns a hand that is over
        return seat

    def _select(self, seat: int) -> None:
        """The seat to act becomes the selected agent, with its legal ids in its info."""
        agent = self.possible_agents[seat]
        self.agent_selection = agent
        g = self._game()
        ps = g._ps  # in the play phase the play state's ids (Game.legal_action_ids, inlined)
        ids = ps.legal_actions() if ps is not None and g._phase == "PLAY" else g.legal_action_ids()
        self.infos[agent] = {"legal_action_ids": ids}

    def observe(self, agent: str) -> Dict[str, np.ndarray]:
        g = self.game if self.game is not None else self._game()
        return encode._observation(g, self._seat[agent])  # _common.observe, inlined: the hot path

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        g = self.game if self.game is not None else self._game()
        seat = self._seat[agent]
        g.apply(action if type(action) is int else int(action), seat)
        self._cumulative_rewards[agent] = 0
        result = g._result
        if result is None:
            # every reward of a hand in progress is 0 (reset sets them; only the end changes
            # them, and it ends the hand), so there is nothing to set or accumulate
            self.infos[agent] = {}
            self._select(g.current_seat)  # type: ignore[arg-type]  # a hand in progress has a seat to act
            return
        for a in self.agents:
            self.rewards[a] = result.scores[self._seat[a]]
            self.terminations[a] = True
            self.infos[a] = {}
        self.agent_selection = self.possible_agents[(seat + 1) % self.rules.players]
        self._accumulate_rewards()

    def sample_worlds(self, agent: str, n: int, seed: int = 0) -> np.ndarray:
        """``ddz.sample_deals`` from ``agent``'s observation: ``n`` deals of the cards it
        cannot see (uint64 rank-count words, one column per seat)."""
        return sample_worlds(self._game(), self._seat[agent], n, seed)

    def render(self) -> Optional[str]:
        if self.render_mode != "ansi" or self.game is None:
            return None
        g = self.game
        seats = [f"{a}: {g.hand(s)}" for s, a in enumerate(self.possible_agents)]
        return f"{g!r}\n" + "\n".join(seats)

    def close(self) -> None:
        self.game = None
