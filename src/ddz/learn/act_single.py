"""Acting in ``single`` mode: one actor in the learner's own thread, with the learner's own
networks; each call plays one step of every table. With the same seed a run gives the same
weights bit for bit, and a run resumed from a checkpoint those of the uninterrupted run (each
checkpoint deals new hands from the run's seed and the checkpoint's number)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, List

from .config import mix_seed

if TYPE_CHECKING:
    from .dmc import Trainer

__all__ = ["SingleSource"]


class SingleSource:
    """The frames of one actor stepped in turn with the learning (see ``ddz.learn.dmc.FrameSource``)."""

    def __init__(self, trainer: "Trainer") -> None:
        self.trainer = trainer
        self.actor = trainer.new_actor()
        self.new_segment()

    def new_segment(self) -> None:
        self.actor.reset(mix_seed(self.trainer.config.seed, 2, self.trainer.segment))

    def frames(self) -> List[Any]:
        self.trainer.explore(self.actor)
        return self.actor.step(self.trainer.model)

    def learning(self) -> Any:
        return _nothing

    def updated(self) -> None:
        pass

    def close(self) -> None:
        pass


class _Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


_nothing = _Nothing()
