"""The hand log's writer: every event of a live table is stored before anyone is told of it.

A table appends one row per event (``Journal.append``: the hand, the event's number, the
op) and holds back what it would send until the row is stored (``Table._stored``). The rows
of every table wait in one queue; one task writes what has gathered in one transaction
(``Storage.append_actions``), so that a thousand tables cost one commit per batch, not one
per action (group commit), and while a batch is being written the next one gathers. A batch
is written once its first row is ``gather_s`` old (``ServerConfig.log_gather_s``): a commit's
cost hardly depends on its rows, so under load a few milliseconds' wait makes a batch of many
rows instead of one or two (docs/server.md, "The hand log's cost").

A batch the database refuses (it is down, the disk is full) is not lost: it is written again,
first, after a pause, and the tables wait (their players see no answer meanwhile: nothing they
were told is lost). Rows refused one by one (the hand is no longer this process's: a cluster
survivor took it over) are reported to their table (``Table.lost``), which stops.
"""
from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Tuple

if TYPE_CHECKING:  # pragma: no cover
    from .storage import Storage

__all__ = ["Journal", "NoJournal", "MemoryJournal"]

log = logging.getLogger("ddz.server")
_RETRY_S = 0.5  # the pause before a refused batch is written again


class Journal:
    """``append(hand, n, op, done)``: ``done(n)`` is called once row ``n`` and every row
    before it are stored; ``lost(hand)`` when the hand's rows are refused. ``flush()`` waits
    until everything appended so far is stored."""

    def __init__(self, storage: "Storage", host: str, gather_s: float = 0.0) -> None:
        self.storage = storage
        self.host = host
        self.gather_s = gather_s  # a batch is written once its first row is this old
        self._first = 0.0         # when the first row of the batch gathering now came (time.monotonic)
        self._rows: List[Tuple[str, int, str]] = []
        self._done: Dict[str, Tuple[int, Callable[[int], None], Callable[[], None]]] = {}
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: Optional["asyncio.Task[None]"] = None
        self.batches = 0          # transactions written
        self.rows = 0             # rows written
        self.errors = 0           # batches the database refused (written again)
        self.write_s = 0.0        # time spent in those transactions
        self.on_batch: Optional[Callable[[int, float], None]] = None  # (rows, seconds) of each batch
        self.on_error: Optional[Callable[[], None]] = None            # a batch refused
        self.failing = False      # the last batch was refused

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Writes what is queued, then stops (a database that refuses it: given up after a few
        tries, logged; those hands resume from their last stored row)."""
        await self.flush(timeout=10.0)
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None

    def append(self, hand: str, n: int, op: str, done: Callable[[int], None], lost: Callable[[], None]) -> None:
        if not self._rows:
            self._first = time.monotonic()
            self._idle.clear()
            self._wake.set()
        self._rows.append((hand, n, op))
        self._done[hand] = (n, done, lost)

    @property
    def pending(self) -> int:
        return len(self._rows)

    async def flush(self, timeout: Optional[float] = None) -> bool:
        """Waits until every row appended so far is stored (or ``timeout`` passes: False)."""
        if self._task is None and self._rows:
            self.start()
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except asyncio.TimeoutError:
            return False
        return True

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._rows:
                if self.gather_s > 0:
                    wait = self._first + self.gather_s - time.monotonic()
                    if wait > 0:
                        await asyncio.sleep(wait)
                rows, self._rows = self._rows, []
                done, self._done = self._done, {}
                t0 = time.perf_counter()
                try:
                    lost = await self.storage.append_actions(rows, self.host)
                except asyncio.CancelledError:
                    raise
                except Exception as e:
                    self.errors += 1
                    self.failing = True
                    if self.on_error is not None:
                        self.on_error()
                    log.error("storing %d log rows failed (%s: %s); trying again in %g s", len(rows),
                              type(e).__name__, str(e).splitlines()[0] if str(e) else "", _RETRY_S)
                    self._rows = rows + self._rows  # first, in order
                    for h, v in done.items():
                        self._done.setdefault(h, v)
                    await asyncio.sleep(_RETRY_S)
                    continue
                dt = time.perf_counter() - t0
                self.failing = False
                self.batches += 1
                self.rows += len(rows)
                self.write_s += dt
                if self.on_batch is not None:
                    self.on_batch(len(rows), dt)
                gone = set(lost)
                for h, (n, ok, lose) in done.items():
                    try:
                        if h in gone:
                            lose()
                        else:
                            ok(n)
                    except Exception:  # pragma: no cover - a table's fault must not stop the log
                        log.exception("table %s: after its log rows were stored", h)
            self._idle.set()


class NoJournal:
    """A journal that stores nothing and calls ``done`` at once: a server run without the hand
    log (``--no-hand-log``, to measure what the log costs)."""

    pending = 0
    batches = rows = errors = 0
    failing = False

    def start(self) -> None:
        pass

    async def stop(self) -> None:
        pass

    async def flush(self, timeout: Optional[float] = None) -> bool:
        return True

    def append(self, hand: str, n: int, op: str, done: Callable[[int], None], lost: Callable[[], None]) -> None:
        done(n)


class MemoryJournal(NoJournal):
    """A journal that keeps the rows in memory and calls ``done`` at once: for a ``Table``
    played without a database (tests, tools). ``ops``: hand -> its ops in order."""

    def __init__(self) -> None:
        self.ops: Dict[str, List[str]] = {}

    def append(self, hand: str, n: int, op: str, done: Callable[[int], None], lost: Callable[[], None]) -> None:
        self.ops.setdefault(hand, []).append(op)
        done(n)
