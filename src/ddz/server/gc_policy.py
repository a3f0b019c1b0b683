"""When ``ddz serve``'s garbage collector runs (docs/server.md, "The garbage collector").

Why not Python's own schedule: nearly all of the server's garbage is freed by reference
counting the moment it is dropped; the cycle collector only finds the few cycles. Yet it
stops the event loop, and so every table at once, for a time that grows with the objects it
walks:

* its young collections start when the tracked objects allocated *minus those freed* pass a
  threshold. The server's objects mostly live seconds (a waiting connection's receive
  chain, a table's last view, each lasting until the next action there), so what is freed
  in the old generations offsets what is allocated and that count hardly moves: at a
  thousand tables the youngest generation grew to 30,000 objects and the middle one to
  60,000 before they were collected (40–90 ms each).
* its full collections start when a quarter more objects reached the oldest generation
  than after the last one, and walk every connection and table (0.1–0.3 s at a thousand
  tables; six in a 2.5-minute run).

So here the young generations are collected on a clock, ``young_s`` apart (a pause bounded
by what survives that long), Python's threshold for the youngest one stays as a safety net
for a burst within one callback, and the full collection, which alone frees a cycle that
reached the oldest generation, runs every ``full_s`` seconds instead of whenever the
counts say: what it frees is about 12 objects a second at a thousand tables (docs/server.md), so what it holds back is bounded by ``full_s``.
Nothing is frozen after the start: a frozen cycle is never freed.
"""
from __future__ import annotations

import asyncio
import gc
from typing import Optional, Tuple

__all__ = ["GcPolicy", "GcPolicyError", "GcPolicyTypeError"]

_NEVER = 2 ** 31 - 1  # a threshold the count of middle-generation collections never passes


class GcPolicyError(ValueError):
    """A setting of ``GcPolicy`` out of its range."""


class GcPolicyTypeError(GcPolicyError, TypeError):
    """A setting of ``GcPolicy`` that is not a number."""


class GcPolicy:
    """``GcPolicy(young_s, full_s, threshold0)``; ``start()`` in the running event loop once
    the server is loaded, ``stop()`` gives the collector its previous settings back.

    ``young_s``: seconds between collections of the two young generations (0: Python's
    thresholds alone). ``full_s``: seconds between full collections (0: Python's own rule,
    when a quarter more objects reached the oldest generation). ``threshold0``: the youngest
    generation's threshold (None: Python's 700)."""

    def __init__(self, young_s: float = 0.25, full_s: float = 600.0, threshold0: Optional[int] = None) -> None:
        for name, v in (("young_s", young_s), ("full_s", full_s)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise GcPolicyTypeError(f"{name} must be a number of seconds, not {type(v).__name__}")
            if not v >= 0:
                raise GcPolicyError(f"{name} must be ≥ 0 seconds, not {v!r}")
        if threshold0 is not None:
            if isinstance(threshold0, bool) or not isinstance(threshold0, int):
                raise GcPolicyTypeError(f"threshold0 must be an int (objects), not {type(threshold0).__name__}")
            if threshold0 < 1:
                raise GcPolicyError(f"threshold0 must be a positive number of objects, not {threshold0}")
        self.young_s = young_s
        self.full_s = full_s
        self.threshold0 = threshold0
        self._saved: Optional[Tuple[int, int, int]] = None
        self._young: Optional[asyncio.TimerHandle] = None
        self._full: Optional[asyncio.TimerHandle] = None

    def start(self) -> None:
        # what is loaded by now (modules, rooms, the engine's tables) lives as long as the process:
        # out of the collector's sight, so that no full collection walks it again
        gc.collect()
        gc.freeze()
        self._saved = gc.get_threshold()
        t0, t1, t2 = self._saved
        gc.set_threshold(self.threshold0 or t0, t1, _NEVER if self.full_s else t2)
        loop = asyncio.get_running_loop()
        if self.young_s:
            self._young = loop.call_later(self.young_s, self._collect_young)
        if self.full_s:
            self._full = loop.call_later(self.full_s, self._collect_full)

    def _collect_young(self) -> None:
        gc.collect(1)
        self._young = asyncio.get_running_loop().call_later(self.young_s, self._collect_young)

    def _collect_full(self) -> None:
        gc.collect()
        self._full = asyncio.get_running_loop().call_later(self.full_s, self._collect_full)

    def stop(self) -> None:
        for h in (self._young, self._full):
            if h is not None:
                h.cancel()
        self._young = self._full = None
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None
