"""``ddz serve``: a table server for all three variants over a versioned JSON protocol on
WebSocket (docs/protocol.md), with a plain browser client, SQLite or PostgreSQL storage.

``Server(ServerConfig(...))`` is the whole server; ``await server.start(host, port)``.
Needs the ``server`` extra (``pip install ddz[server]``: websockets, asyncpg).
"""
from .app import Server, ServerConfig
from .protocol import PROTOCOL_VERSION
from .storage import Storage, open_storage

__all__ = ["PROTOCOL_VERSION", "Server", "ServerConfig", "Storage", "open_storage"]
