"""``ddz.VectorEnv``: many tables in the play phase stepped by one call in C++ (the GIL released,
the tables split over ``threads``), for learning agents (docs/encodings.md, "VectorEnv")."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import numpy.typing as npt

from .. import _core
from ..core.rules import Rules
from .encode import compact_layout
from ..core.errors import ArgumentError, ArgumentTypeError
from ..core.variants import VARIANT

__all__ = ["VectorEnv", "VectorStep"]

# The options that change how the play phase scores; the core's rewards follow their defaults
# (the rocket doubles in TWOP, every missile unit counts, the symmetric CLASSIC3 ±2X / ∓X).
_REWARD_OPTIONS = {"twop_rocket_doubles": True, "bengbu_missiles_once_per_player": False,
                   "classic_landlord_loss_factor": 2}


@dataclass(frozen=True)
class VectorStep:
    """What ``reset`` and ``step`` return, one row per table (fresh arrays every call).

    * ``obs`` int8 (tables, width): the compact encoding (``ddz.encode.compact_layout``) of the
      seat to act; after a table finished, that of its new hand.
    * ``legal_offsets`` int64 (tables + 1,) and ``legal_ids`` int32: table i may play
      ``legal_ids[legal_offsets[i]:legal_offsets[i+1]]`` (``Move.id``; PASS is ``rules.pass_id``).
    * ``reward`` float32 (tables, seats): zero except on the step that ends a table's hand, where
      it is that hand's zero-sum play-phase score by absolute seat (see ``VectorEnv``).
    * ``done`` bool (tables,): the table's hand ended on this step (it has been dealt a new one).
    * ``seat`` int8 (tables,): the absolute seat to act; ``role`` int8: 0 landlord, 1 farmer.
    * ``mask`` bool (tables, pass_id + 1) when asked for (``mask=True``), else None.
    """

    obs: npt.NDArray[np.int8]
    legal_offsets: npt.NDArray[np.int64]
    legal_ids: npt.NDArray[np.int32]
    reward: npt.NDArray[np.float32]
    done: npt.NDArray[np.bool_]
    seat: npt.NDArray[np.int8]
    role: npt.NDArray[np.int8]
    mask: Optional[npt.NDArray[np.bool_]] = None


class VectorEnv:
    """``num_envs`` tables of ``rules`` in the play phase, stepped together.

    Deals: by default table i's k-th hand is ``ddz.deal(rules, seed, k * num_envs + i)`` (a random
    landlord, the kitty in its hand and revealed, as in every variant's play phase). Or pass
    ``deals`` (games, seats) rank-count words with
    ``landlords`` (games,) and optionally ``bomb_limits`` (games, seats) (BENGBU4, 255 = unlimited)
    and ``kitty`` (games,) words (each within the landlord's hand, which holds the kitty in the
    play phase): table i's k-th hand is entry ``(k * num_envs + i) % games``. A
    Python auction can produce them; there is no bidding here. Results depend only on these and
    on each table's game counter, never on ``threads``.

    Rewards (units): CLASSIC3, the landlord wins or loses ``2u`` and each farmer ``u``; TWOP, ``u``
    each (the zero-sum reading, ``twop_zero_sum``), with ``u = 2 ** (bomb-class plays, ROCKET
    included)``, doubled by a spring or anti-spring (RULES.md §2.0.6, §2.1.7, §2.2.7): the play
    phase's part of the score, without the auction's factors and stakes. BENGBU4: §2.3.9-A with
    base 1 in closed play, missile units shifting each transfer. Every row sums to zero.
    """

    def __init__(self, rules: Rules, num_envs: int, seed: int = 0, *, threads: int = 1,
                 deals: Optional[npt.NDArray[Any]] = None, landlords: Optional[npt.NDArray[Any]] = None,
                 bomb_limits: Optional[npt.NDArray[Any]] = None, kitty: Optional[npt.NDArray[Any]] = None) -> None:
        if not isinstance(rules, Rules):
            raise ArgumentTypeError(f"rules must be a ddz.Rules, not {type(rules).__name__}")
        for option, supported in _REWARD_OPTIONS.items():
            if option in rules.options and rules.options[option] != supported:
                raise ArgumentError(f"VectorEnv's rewards need {option}={supported!r} (the core scores the play "
                                    f"phase that way), not {rules.options[option]!r}")
        self.rules = rules
        self._core = _core._VectorEnv(rules, len(VARIANT[rules.variant].decisions), num_envs, seed, threads,
                                      deals, landlords, bomb_limits, kitty)
        self.layout = compact_layout(rules)

    @property
    def num_envs(self) -> int:
        return int(self._core.num_envs)

    @property
    def num_actions(self) -> int:
        """Play ids and PASS: ``rules.pass_id + 1``."""
        return int(self.rules.pass_id) + 1

    def games(self) -> npt.NDArray[np.uint64]:
        """The game number each table plays now (its deal: ``ddz.deal(rules, seed, game)``)."""
        return self._core.games()

    def _wrap(self, res: Any, mask: bool) -> VectorStep:
        step = VectorStep(*res)
        if not mask:
            return step
        m = np.zeros((self.num_envs, self.num_actions), dtype=bool)
        counts = np.diff(step.legal_offsets)
        m[np.repeat(np.arange(self.num_envs), counts), step.legal_ids] = True
        return dataclasses.replace(step, mask=m)

    def reset(self, seed: Optional[int] = None, *, mask: bool = False) -> VectorStep:
        """Deals a new hand on every table (``seed``: re-seeds and restarts the game counters)."""
        return self._wrap(self._core.reset(seed), mask)

    def step(self, actions: npt.NDArray[Any], *, mask: bool = False) -> VectorStep:
        """Plays one action id per table (an integer array of shape (num_envs,)). An id that is not
        legal for its table raises ``ddz.IllegalAction`` naming the table, and no table moves."""
        return self._wrap(self._core.step(actions), mask)
