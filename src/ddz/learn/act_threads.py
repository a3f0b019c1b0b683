"""Acting in ``threads`` mode: ``actors`` threads, each with its own tables and a copy of the
networks it refreshes every ``sync_every`` of its steps, put their finished frames straight into
the learner's ring (waiting while a ring is full); torch and the vector env release the GIL. Not
reproducible."""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, List

from .actor import int8_copy
from .config import mix_seed

if TYPE_CHECKING:
    from .dmc import Trainer

__all__ = ["ThreadSource"]


class ThreadSource:
    """Actor threads filling the learner's ring (see ``ddz.learn.dmc.FrameSource``)."""

    def __init__(self, trainer: "Trainer") -> None:
        self.trainer = trainer
        self.stop = threading.Event()
        self.lock = threading.Lock()  # held while the learner changes the weights or an actor copies them
        self.version = 0
        self.errors: List[BaseException] = []
        trainer.buffer.closed = False
        self.threads = [threading.Thread(target=self._run, args=(k,), daemon=True, name=f"ddz-actor-{k}")
                        for k in range(trainer.config.actors)]
        for th in self.threads:
            th.start()

    def _run(self, k: int) -> None:
        tr, cfg = self.trainer, self.trainer.config
        try:
            local = tr.new_model()
            seen = -1
            actor = tr.new_actor()
            actor.reset(mix_seed(cfg.seed, 3, k, tr.segment, tr.updates))
            steps = 0
            acting = local
            while not self.stop.is_set():
                if steps % cfg.sync_every == 0 and seen != self.version:
                    with self.lock:
                        local.load_state_dict(tr.model.state_dict())
                        seen = self.version
                        tr.explore(actor)
                    acting = int8_copy(local) if cfg.actor_int8 else local
                for p, obs, act, hist, ret in actor.step(acting):
                    tr.buffer.put(p, obs, act, hist, ret, block=True)
                steps += 1
        except BaseException as e:  # reported by the learner
            self.errors.append(e)
            self.stop.set()

    def new_segment(self) -> None:
        pass

    def frames(self) -> List[Any]:
        """None to hand over (the actors fill the ring themselves): waits a little for a batch."""
        buf = self.trainer.buffer
        if self.errors:
            raise self.errors[0]
        if not buf.ready(self.trainer.config.batch_size):
            with buf.cond:
                buf.cond.wait(0.05)
        return []

    def learning(self) -> Any:
        return self.lock

    def updated(self) -> None:
        self.version += 1

    def close(self) -> None:
        self.stop.set()
        buf = self.trainer.buffer
        with buf.cond:
            buf.closed = True
            buf.cond.notify_all()
        for th in self.threads:
            th.join()
        buf.closed = False
        if self.errors:
            raise self.errors[0]
