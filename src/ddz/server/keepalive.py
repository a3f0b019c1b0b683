"""Which connections ``ddz serve`` pings, and which it closes for not answering.

Why not the websockets library's own keepalive: it pings every connection every
``ping_interval`` seconds, each from a coroutine of its own, whether or not the peer has just
spoken. A player who acts every few seconds is plainly alive; at a thousand tables (three
thousand connections) that was 150 pings a second, whose tasks held 4 % of the event loop's
samples, and whose pongs are read and parsed as messages are (docs/server.md, "Keepalive").

Here one sweep, every quarter of ``interval_s``, pings only the connections silent for
``interval_s`` (no frame read from them, no pong), and closes (1011, "keepalive ping timeout")
one whose ping has gone ``timeout_s`` without its pong. A dead peer is found as soon as before:
a connection that stops speaking is pinged after ``interval_s`` and closed ``timeout_s`` later;
what is saved is the pings of the peers that speak anyway.
"""
from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any, Callable, Coroutine, Iterable, Optional, Set

from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode

if TYPE_CHECKING:  # pragma: no cover
    from .app import Session

__all__ = ["Keepalive"]

log = logging.getLogger("ddz.server")


class Keepalive:
    """``Keepalive(connections, interval_s, timeout_s)``: ``start()`` in the running loop,
    ``stop()``. ``connections()`` gives the open sessions; each has ``heard`` (the
    ``time.monotonic()`` of the last frame read from it) and ``pinged`` (when its unanswered
    ping went out, or None). ``interval_s`` 0: no pings at all."""

    def __init__(self, connections: Callable[[], Iterable["Session"]], interval_s: float = 20.0,
                 timeout_s: float = 20.0) -> None:
        self.connections = connections
        self.interval_s = interval_s
        self.timeout_s = timeout_s
        self.pings = 0            # pings sent
        self.timeouts = 0         # connections closed for want of a pong
        self._timer: Optional[asyncio.TimerHandle] = None
        self._tasks: Set["asyncio.Task[None]"] = set()

    def start(self) -> None:
        if self.interval_s > 0 and self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.interval_s / 4, self._sweep)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for t in list(self._tasks):
            t.cancel()

    def _sweep(self) -> None:
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(self.interval_s / 4, self._sweep)
        now = time.monotonic()
        for sess in list(self.connections()):
            if sess.closed:
                continue
            if sess.pinged is not None:
                if self.timeout_s and now - sess.pinged > self.timeout_s:
                    sess.pinged = None
                    self.timeouts += 1
                    self._spawn(loop, sess.ws.close(CloseCode.INTERNAL_ERROR, "keepalive ping timeout"))
            elif now - sess.heard >= self.interval_s:
                sess.pinged = now
                self.pings += 1
                self._spawn(loop, self._ping(sess))

    def _spawn(self, loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, None]) -> None:
        task = loop.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _ping(self, sess: "Session") -> None:
        try:
            pong = await sess.ws.ping()
            await pong
        except (ConnectionClosed, asyncio.CancelledError):
            return
        except Exception:  # noqa: BLE001 - a ping that fails leaves the connection to its own fate
            log.debug("a keepalive ping failed", exc_info=True)
            return
        sess.heard = time.monotonic()
        sess.pinged = None
