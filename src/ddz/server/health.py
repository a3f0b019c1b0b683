"""What stops the server's event loop, measured while it runs (``/api/status``): the garbage
collector's pauses and the loop's lag.

Why: every table and connection of the process shares one event loop, so anything that holds
the loop (a full garbage collection of a heap of thousands of connections, a slow callback)
delays every table's next message at once; the tail of the latency is these stops, not the
cost of an action.
"""
from __future__ import annotations

import asyncio
import gc
import time
from typing import Any, Dict, List, Optional

__all__ = ["GcPauses", "LoopLag"]


class GcPauses:
    """Counts and times the collections of each generation (``gc.callbacks``): their wall
    time (the pause; on a shared machine it includes time the process waited for a CPU) and
    their CPU time."""

    def __init__(self) -> None:
        self.count = [0, 0, 0]
        self.total_s = [0.0, 0.0, 0.0]
        self.cpu_s = [0.0, 0.0, 0.0]
        self.max_s = [0.0, 0.0, 0.0]
        self.full: List[Any] = []  # (wall time, seconds, objects freed) of the last full collections
        self._t0 = self._c0 = 0.0

    def _callback(self, phase: str, info: Dict[str, Any]) -> None:
        if phase == "start":
            self._t0, self._c0 = time.perf_counter(), time.thread_time()
            return
        gen = info["generation"]
        d = time.perf_counter() - self._t0
        self.count[gen] += 1
        self.total_s[gen] += d
        self.cpu_s[gen] += time.thread_time() - self._c0
        if d > self.max_s[gen]:
            self.max_s[gen] = d
        if gen == 2:
            self.full = self.full[-19:] + [(round(time.time(), 2), round(d, 4), info["collected"])]

    def install(self) -> None:
        if self._callback not in gc.callbacks:
            gc.callbacks.append(self._callback)

    def remove(self) -> None:
        if self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)

    def to_dict(self) -> Dict[str, Any]:
        return {"collections": list(self.count), "total_ms": [round(1e3 * x, 1) for x in self.total_s],
                "cpu_ms": [round(1e3 * x, 1) for x in self.cpu_s], "max_ms": [round(1e3 * x, 1) for x in self.max_s],
                "full": self.full}


class LoopLag:
    """How late a timer set every ``interval`` seconds fires: the time the loop was held by
    something else. Keeps the maximum and the number of stops longer than each of ``BOUNDS``."""

    BOUNDS = (0.01, 0.05, 0.2, 1.0)

    def __init__(self, interval: float = 0.05) -> None:
        self.interval = interval
        self.max_s = 0.0
        self.over: List[int] = [0] * len(self.BOUNDS)
        self.stops: List[Any] = []  # (wall time, seconds) of the last stops longer than BOUNDS[2]
        self._handle: Optional[asyncio.TimerHandle] = None
        self._due = 0.0

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._due = loop.time() + self.interval
        self._handle = loop.call_at(self._due, self._tick)

    def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        late = now - self._due
        if late > self.max_s:
            self.max_s = late
        for i, b in enumerate(self.BOUNDS):
            if late > b:
                self.over[i] += 1
        if late > self.BOUNDS[2]:
            self.stops = self.stops[-19:] + [(round(time.time(), 2), round(late, 4))]
        self._due = now + self.interval
        self._handle = loop.call_at(self._due, self._tick)

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def to_dict(self) -> Dict[str, Any]:
        return {"max_ms": round(1e3 * self.max_s, 1),
                "over_ms": {f"{1e3 * b:g}": n for b, n in zip(self.BOUNDS, self.over)}, "stops": self.stops}
