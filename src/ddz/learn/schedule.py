"""The trainer's schedule: the learning rate and the actors' exploration as functions of the
frames trained (``TrainConfig.schedule_frames`` and the ``*_end`` fields).

Each value goes from its start to its end along half a cosine over ``schedule_frames`` frames
counted from the run's first frame (a run started from a model counts from the model's frames),
and stays at its end after that: ``end + (start - end) * (1 + cos(pi * t)) / 2``, t the share of
the schedule done. AlphaDou's schedule, for example, is a learning rate from 1e-3 down to almost
nothing, exploration from 0.1 to 0.01 in the play and from 0.3 to 0.03 in the bidding. With
``schedule_frames`` 0 every value keeps its start. No torch here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Tuple

__all__ = ["Schedule", "cosine"]


def cosine(start: float, end: float, t: float) -> float:
    """The value a share ``t`` (clipped to [0, 1]) of the way from ``start`` to ``end`` along half a
    cosine."""
    t = min(max(t, 0.0), 1.0)
    return end + (start - end) * 0.5 * (1.0 + math.cos(math.pi * t))


@dataclass(frozen=True)
class Schedule:
    """The learning rate, the play's exploration and the bidding's exploration at a frame count."""

    lr: float
    epsilon: float
    bid_epsilon: float
    lr_end: Optional[float] = None
    epsilon_end: Optional[float] = None
    bid_epsilon_end: Optional[float] = None
    frames: int = 0
    start: int = 0

    def at(self, frames: int) -> Tuple[float, float, float]:
        """(learning rate, exploration in the play, exploration in the decisions) after ``frames``."""
        if self.frames <= 0:
            return self.lr, self.epsilon, self.bid_epsilon
        t = (frames - self.start) / self.frames

        def value(start: float, end: Optional[float]) -> float:
            return start if end is None else cosine(start, end, t)
        return (value(self.lr, self.lr_end), value(self.epsilon, self.epsilon_end),
                value(self.bid_epsilon, self.bid_epsilon_end))
