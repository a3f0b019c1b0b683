"""A ``gymnasium.vector.VectorEnv`` over ``ddz.VectorEnv``: many tables of whole hands, one
policy acting for whichever seat is to act at each table (self-play), for users of
Gymnasium's vector API. ``gymnasium.make_vec("ddz/Classic-v0", num_envs=8)`` makes one (the ids
of ``ddz.envs.GYM_IDS`` name this class as their ``vector_entry_point``), or
``ddz.envs.gymnasium_vector_env(rules, num_envs)``.

* Observations: ``ddz.encode.compact`` rows (int8, ``(num_envs, width)``) of the seat to act at
  each table; actions: one action id per table (``rules.num_actions``; ``MultiDiscrete``).
* The mask is in ``info``: ``info["action_mask"]`` (bool, ``(num_envs, num_actions)``) unless the
  environment is made with ``mask=False``; ``info["legal_ids"]`` / ``info["legal_offsets"]``
  always (table i may play ``legal_ids[legal_offsets[i]:legal_offsets[i+1]]``);
  ``action_masks()`` returns the current mask for maskable-policy libraries.
* **Reward**: ``rewards[i]`` is the reward of **the seat that acted** at table i on this step
  (0 until a hand ends). In a 3- or 4-seat game the other seats' rewards of a finished hand are
  in ``info["rewards"]`` (``(num_envs, seats)``, by absolute seat), and ``info["seat"]`` says who
  is to act next; a learner that keeps a trajectory per seat credits each seat from there.
  ``reward=`` picks the convention (``"score"``, ``"win"``, ``"normalized"``: ``ddz.learn.rewards``).
* **Autoreset**: ``SAME_STEP`` (``metadata["autoreset_mode"]``): a table whose hand ended
  deals itself the next one in the same step; the returned observation is the new hand's, the
  ended hand's last row (of the seat that acted) is ``info["final_obs"][i]`` and its details
  ``info["final_info"][i]`` (``scores``, ``landlord``, ``winner``, ``kind``, ``obs`` of every
  seat), with ``info["_final_obs"]`` / ``info["_final_info"]`` marking those tables.
  ``terminations`` mark them; ``truncations`` are always False (whole hands end).
"""
from __future__ import annotations

import random
from typing import Any, Dict, Optional, Tuple

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ...core.args import int_arg
from ...core.errors import ArgumentError, ArgumentTypeError, shown
from ..vector_env import RESULT_KINDS, VectorEnv, VectorStep
from ._common import observation_bounds, rules_from

__all__ = ["DdzVectorEnv"]


class DdzVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` tables of ``rules``' whole hands (see the module docstring). ``rules``: a
    ``ddz.Rules`` or a name; ``threads``: the C++ environment's threads; ``reward``: the reward
    convention; ``mask``: put the dense action mask in ``info``."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, rules: Any = "classic", num_envs: int = 1, *, threads: int = 1, reward: str = "score",
                 mask: bool = True) -> None:
        self.rules = rules_from(rules)
        self.num_envs = int_arg(num_envs, "num_envs", 1)
        if not isinstance(mask, bool):
            raise ArgumentTypeError(f"mask must be True or False, not {shown(mask)}")
        self.mask = mask
        self._env = VectorEnv(self.rules, self.num_envs, 0, threads=threads, reward=reward)
        low, high = observation_bounds(self.rules)
        self.single_observation_space = spaces.Box(low=low, high=high, dtype=np.int8)
        self.single_action_space = spaces.Discrete(self.rules.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        self._last: Optional[VectorStep] = None

    @property
    def vector_env(self) -> VectorEnv:
        """The ``ddz.VectorEnv`` underneath (its ``hand_seeds()``, ``games()``, ``layout``)."""
        return self._env

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
              ) -> Tuple[npt.NDArray[np.int8], Dict[str, Any]]:
        """Deals a new hand on every table. ``seed``: the tables' hands are those of
        ``ddz.VectorEnv(rules, num_envs, seed)``; without one, a random seed on the first reset
        and the next hands after that."""
        if seed is None and self._last is None:
            seed = random.SystemRandom().randrange(2**63)
        if seed is not None:
            self._np_random, _ = gymnasium.utils.seeding.np_random(int(seed) % 2**63)
            self.action_space.seed(int(seed) % 2**63)
        st = self._env.reset(seed)
        self._last = st
        return st.obs, self._info(st)

    def step(self, actions: Any) -> Tuple[npt.NDArray[np.int8], npt.NDArray[np.float32], npt.NDArray[np.bool_],
                                          npt.NDArray[np.bool_], Dict[str, Any]]:
        """One action id per table. An illegal id raises ``ddz.IllegalAction`` naming the table
        and changes nothing; a step before ``reset()`` raises ``ddz.ArgumentError``."""
        last = self._last
        if last is None:
            raise ArgumentError("call reset() before step()")
        st = self._env.step(actions)
        self._last = st
        acted = last.seat.astype(np.int64)
        rewards = st.reward[np.arange(self.num_envs), acted].astype(np.float32)
        info = self._info(st)
        info["rewards"] = st.reward
        t = st.terminal
        if len(t.tables):
            final_obs = np.empty(self.num_envs, dtype=object)
            final_info = np.empty(self.num_envs, dtype=object)
            have = np.zeros(self.num_envs, dtype=bool)
            for k, i in enumerate(t.tables.tolist()):
                final_obs[i] = t.obs[k, acted[i]]
                final_info[i] = {"scores": t.scores[k], "landlord": int(t.landlord[k]), "winner": int(t.winner[k]),
                                 "kind": RESULT_KINDS[int(t.kind[k])], "obs": t.obs[k]}
                have[i] = True
            info.update({"final_obs": final_obs, "_final_obs": have, "final_info": final_info,
                         "_final_info": have.copy()})
        if st.deal_ends.any():
            info.update({"deal_ends": st.deal_ends, "deal_scores": st.deal_scores})
        truncations = np.zeros(self.num_envs, dtype=bool)
        return st.obs, rewards, st.done.copy(), truncations, info

    def _info(self, st: VectorStep) -> Dict[str, Any]:
        every = np.ones(self.num_envs, dtype=bool)
        info: Dict[str, Any] = {"seat": st.seat, "_seat": every, "role": st.role, "_role": every,
                                "legal_ids": st.legal_ids, "legal_offsets": st.legal_offsets}
        if self.mask:
            info["action_mask"] = self._mask(st)
            info["_action_mask"] = every
        return info

    def _mask(self, st: VectorStep) -> npt.NDArray[np.bool_]:
        m = np.zeros((self.num_envs, self.rules.num_actions), dtype=bool)
        m[np.repeat(np.arange(self.num_envs), np.diff(st.legal_offsets)), st.legal_ids] = True
        return m

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal ids of every table as a bool mask ``(num_envs, num_actions)``."""
        if self._last is None:
            raise ArgumentError("call reset() before action_masks()")
        return self._mask(self._last)
