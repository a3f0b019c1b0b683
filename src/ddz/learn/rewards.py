"""Reward conventions shared by the learning environments (PettingZoo, Gymnasium, RLCard and,
when it scores whole hands, ``ddz.VectorEnv``): one option, one meaning everywhere.

* ``"score"``: the seat's score as the variant scores the hand (``GameResult.scores``).
* ``"win"``: +1 for each seat of the winning side, −1 for every other seat; 0 for everybody
  when a hand has no winning side (a void hand).
* ``"normalized"``: the score divided by the variant's ``REWARD_SCALE``.

``REWARD_SCALE`` is the landlord's score of the smallest hand it can win under the variant's
default options, every factor at 1: CLASSIC3 2 (``2X`` with ``X = 1``), TWOP 2 (``2X``), BENGBU4 3
(a bid of 1 in closed play). A normalized reward of 1 is therefore "the landlord won a plain
hand"; multipliers (robs, shows, bombs, springs, bids) scale it from there.

This module imports no framework, so the vector environment can use it too.
"""
from __future__ import annotations

from typing import Any, List, Mapping, Optional, Sequence

from ..core.errors import ArgumentError, ArgumentTypeError, shown

__all__ = ["REWARDS", "REWARD_SCALE", "check_reward", "seat_rewards", "reward_unit"]

#: The reward conventions every environment accepts.
REWARDS = ("score", "win", "normalized")

#: Per variant: the score that ``"normalized"`` divides by (see the module docstring).
REWARD_SCALE: Mapping[str, int] = {"classic": 2, "two_player": 2, "bengbu": 3}


def check_reward(reward: Any, extra: Sequence[str] = ()) -> str:
    """``reward`` if it names a convention (``REWARDS``, or one of ``extra``), else an
    ``ArgumentError`` (``ArgumentTypeError`` for a non-str)."""
    allowed = tuple(REWARDS) + tuple(extra)
    if not isinstance(reward, str):
        raise ArgumentTypeError(f"reward must be one of {', '.join(map(repr, allowed))}, not {shown(reward)}")
    if reward not in allowed:
        raise ArgumentError(f"reward must be one of {', '.join(map(repr, allowed))}, not {shown(reward)}")
    return reward


def seat_rewards(result: Any, variant: str, reward: str) -> List[float]:
    """Each seat's reward for a finished hand's ``GameResult`` under the ``reward`` convention."""
    scores: Sequence[Any] = result.scores
    if reward == "score":
        return [float(s) for s in scores]
    if reward == "normalized":
        scale = REWARD_SCALE[variant]
        return [float(s) / scale for s in scores]
    side: Optional[str] = result.winner_side
    if side is None or result.landlord is None:
        return [0.0] * len(scores)
    return [1.0 if (s == result.landlord) == (side == "landlord") else -1.0 for s in range(len(scores))]


def reward_unit(variant: str, reward: str) -> float:
    """One unit of reward in the ``reward`` convention: 1 for ``"win"`` and ``"normalized"``,
    the variant's ``REWARD_SCALE`` for ``"score"`` (what a penalty for an illegal action costs)."""
    return float(REWARD_SCALE[variant]) if reward == "score" else 1.0
