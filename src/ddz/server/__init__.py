"""``ddz serve``: a table server for all three variants over a versioned JSON protocol on
WebSocket (docs/protocol.md), with a plain browser client, SQLite or PostgreSQL storage.

``Server(ServerConfig(...))`` is the whole server; ``await server.start(host, port)``.
Needs the ``server`` extra (``pip install ".[server]"`` in the source tree: websockets, asyncpg); the names
below load on first use, so ``ddz`` works without it.
"""
from __future__ import annotations

from typing import Any

__all__ = ["PROTOCOL_VERSION", "Server", "ServerConfig", "Storage", "open_storage"]

_WHERE = {"Server": "app", "ServerConfig": "app", "PROTOCOL_VERSION": "protocol", "Storage": "storage",
          "open_storage": "storage"}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        import importlib
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(name)
