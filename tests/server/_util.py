"""Small helpers the server tests share and that need no WebSocket client (``_client`` has
those): a free loopback port, a coroutine run with a time limit, and the command that starts
``ddz serve`` in a child process."""
from __future__ import annotations

import asyncio
import socket
import sys
from typing import Any, Awaitable

#: ``ddz serve`` as a child process runs it: this interpreter, the CLI module
SERVE = [sys.executable, "-m", "ddz.cli", "serve"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listened on a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(coro: Awaitable[Any], limit: float = 120) -> Any:
    """Runs ``coro`` in a new event loop; a test that hangs fails after ``limit`` seconds
    instead of holding up the suite."""
    return asyncio.run(asyncio.wait_for(coro, limit))
