"""Acting in ``processes`` mode: ``actors`` forked processes, each with its own tables, reading
the learner's networks (and the schedule's exploration) from shared memory every ``sync_every``
of its steps and sending its finished frames through a queue; every core is used. Not
reproducible; Linux and macOS (it forks)."""
from __future__ import annotations

import queue as _queue
from typing import TYPE_CHECKING, Any, List

import torch

from ..core.errors import ArgumentError
from .actor import int8_copy
from .config import mix_seed
from .torch_nets import QModel

if TYPE_CHECKING:
    from .dmc import Trainer

__all__ = ["ProcessSource"]


def _actor_process(trainer: "Trainer", k: int, shared: QModel, lock: Any, frames_q: Any, stop: Any,
                   eps: Any) -> None:
    """An actor process (forked from the learner): plays with a copy of the shared networks,
    refreshed every ``sync_every`` steps (its exploration from ``eps``, the schedule's), and queues
    its finished frames."""
    frames_q.cancel_join_thread()  # at the stop, exit without flushing frames nobody reads
    try:
        torch.set_num_threads(1)
        cfg = trainer.config
        local = trainer.new_model()
        actor = trainer.new_actor()
        actor.reset(mix_seed(cfg.seed, 4, k, trainer.segment, trainer.updates))
        steps = 0
        acting = local
        while not stop.is_set():
            if steps % cfg.sync_every == 0:
                with lock:
                    local.load_state_dict(shared.state_dict())
                    actor.epsilon, actor.bid_epsilon = eps[0], eps[1]
                acting = int8_copy(local) if cfg.actor_int8 else local
            for item in actor.step(acting):
                while not stop.is_set():
                    try:
                        frames_q.put(item, timeout=0.1)
                        break
                    except _queue.Full:
                        continue
            steps += 1
    except BaseException as e:  # reported by the learner
        import traceback
        try:
            frames_q.put(("error", f"actor {k}: {type(e).__name__}: {e}\n{traceback.format_exc()}"), timeout=5)
        except Exception:
            pass


class ProcessSource:
    """Forked actor processes and their queue (see ``ddz.learn.dmc.FrameSource``)."""

    def __init__(self, trainer: "Trainer") -> None:
        import multiprocessing as mp
        if "fork" not in mp.get_all_start_methods():
            raise ArgumentError("mode 'processes' forks its actors: use 'threads' on this platform")
        self.trainer = trainer
        cfg = trainer.config
        ctx = mp.get_context("fork")
        self.shared = trainer.new_model()
        self.shared.load_state_dict(trainer.model.state_dict())
        self.shared.share_memory()
        self.lock = ctx.Lock()
        self.eps = ctx.Array("d", list(trainer.scheduled()[1:]), lock=False)  # read and written under lock
        self.queue = ctx.Queue(maxsize=16 * cfg.actors * trainer.positions)
        self.stop = ctx.Event()
        self.procs = [ctx.Process(target=_actor_process, args=(trainer, k, self.shared, self.lock, self.queue,
                                                                self.stop, self.eps),
                                  daemon=True, name=f"ddz-actor-{k}") for k in range(cfg.actors)]
        for pr in self.procs:
            pr.start()
        torch.set_num_threads(cfg.learner_threads)  # after the fork: the actors keep one each

    def new_segment(self) -> None:
        pass

    def frames(self) -> List[Any]:
        try:
            item = self.queue.get(timeout=0.5)
        except _queue.Empty:
            if not any(pr.is_alive() for pr in self.procs):
                raise ArgumentError("training stopped: every actor process ended")
            return []
        if item[0] == "error":
            raise ArgumentError(f"training stopped: {item[1]}")
        return [item]

    def learning(self) -> Any:
        from .act_single import _nothing
        return _nothing

    def updated(self) -> None:
        with self.lock:
            self.shared.load_state_dict(self.trainer.model.state_dict())
            self.eps[0], self.eps[1] = self.trainer.scheduled()[1:]

    def close(self) -> None:
        self.stop.set()
        # The queue is not read again: an actor exits without flushing (cancel_join_thread), so its
        # feeder thread may stop in the middle of a message, and a read would then wait for the
        # rest of it for ever (the learner holds the pipe's write end too, so no EOF comes). Actors
        # never wait on a full queue for longer than one put's 0.1 s timeout before they look at
        # the stop, so nothing needs draining for them to see it.
        for pr in self.procs:
            pr.join(timeout=10)
            if pr.is_alive():
                pr.terminate()
                pr.join()
        self.queue.close()
        torch.set_num_threads(1)
