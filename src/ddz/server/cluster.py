"""Several server processes on one PostgreSQL database (``ddz serve --cluster``).

Balances and records are shared through the storage already; this module shares the waiting
queue and the matchmaking:

* ``join`` puts the player in the ``cluster_queue`` table instead of a local queue.
* One process at a time is the matchmaker: the one holding PostgreSQL advisory lock
  ``_LEADER_LOCK`` on a connection of its own. Every process tries to take it each round, so
  when the matchmaker dies (its connection closes and the lock with it) another takes over.
  The matchmaker runs ``ddz.Matchmaker`` (CLASSIC3's tiers; join times are wall-clock times
  from the database) or the queue order (TWOP, BENGBU4) over the shared queue and writes
  each table it seats to ``cluster_tables`` with the host that will run it (the process of
  its longest waiter, if alive), deleting the seated players from the queue in the same
  transaction.
* Each process opens the tables assigned to it; a player connected to another process is
  told to go there (``redirect`` with the host's WebSocket URL), logs in there and resumes.
"""
from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from typing import TYPE_CHECKING, Any, Dict, List, Set, Tuple

from ..rooms.matchmaking import MATCH_TIERS, Matchmaker

if TYPE_CHECKING:  # pragma: no cover
    from .app import Server

__all__ = ["Cluster"]

log = logging.getLogger("ddz.server")

_LEADER_LOCK = 7215
_ALIVE_S = 10.0  # a host whose heartbeat is older is not given tables

_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS cluster_hosts (
        host TEXT PRIMARY KEY, url TEXT NOT NULL, seen DOUBLE PRECISION NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS cluster_queue (
        name TEXT PRIMARY KEY, room TEXT NOT NULL, host TEXT NOT NULL, joined DOUBLE PRECISION NOT NULL,
        coins BIGINT NOT NULL, won BIGINT NOT NULL, completed BIGINT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS cluster_tables (
        id TEXT PRIMARY KEY, room TEXT NOT NULL, players TEXT NOT NULL, host TEXT NOT NULL,
        opened INTEGER NOT NULL, created DOUBLE PRECISION NOT NULL)""",
]


class Cluster:
    def __init__(self, server: "Server", url: str) -> None:
        self.server = server
        self.url = url              # this process's WebSocket URL, for redirects
        self.host = server.config.host_id
        self.leader = False
        self._lock_conn: Any = None
        self._told: Set[Tuple[str, str]] = set()  # (table, player) redirects sent

    @property
    def _pool(self) -> Any:
        return self.server.storage.pool()  # type: ignore[attr-defined]

    async def open(self) -> None:
        async with self._pool.acquire() as c:
            async with c.transaction():
                await c.execute("SELECT pg_advisory_xact_lock(7214)")
                for stmt in _SCHEMA:
                    await c.execute(stmt)
                # hands of processes that stopped (no heartbeat) are void: no coin moved
                n = await c.fetchval(
                    "WITH v AS (UPDATE hands SET status = 'void', ended = $1 WHERE status = 'live' AND host NOT IN "
                    "(SELECT host FROM cluster_hosts WHERE seen > $2) RETURNING 1) SELECT count(*) FROM v",
                    time.time(), time.time() - _ALIVE_S)
                if n:
                    log.warning("%d hands of stopped servers are void (no coin moved)", n)
        await self.heartbeat()

    async def close(self) -> None:
        if self._lock_conn is not None:
            await self._pool.release(self._lock_conn)
            self._lock_conn = None
        async with self._pool.acquire() as c:
            await c.execute("DELETE FROM cluster_queue WHERE host = $1", self.host)
            await c.execute("DELETE FROM cluster_hosts WHERE host = $1", self.host)

    async def heartbeat(self) -> None:
        async with self._pool.acquire() as c:
            await c.execute("INSERT INTO cluster_hosts (host, url, seen) VALUES ($1, $2, $3) "
                            "ON CONFLICT (host) DO UPDATE SET url = $2, seen = $3", self.host, self.url, time.time())

    # ---- the queue ----
    async def join(self, name: str, room: str, coins: int, won: int, completed: int) -> None:
        async with self._pool.acquire() as c:
            await c.execute("INSERT INTO cluster_queue (name, room, host, joined, coins, won, completed) "
                            "VALUES ($1, $2, $3, $4, $5, $6, $7)", name, room, self.host, time.time(),
                            coins, won, completed)

    async def leave(self, name: str) -> None:
        async with self._pool.acquire() as c:
            await c.execute("DELETE FROM cluster_queue WHERE name = $1", name)

    # ---- one round ----
    async def round(self) -> None:
        await self.heartbeat()
        await self._lead()
        if self.leader:
            await self._match()
        await self._open_mine()
        await self._redirect()

    async def _lead(self) -> None:
        if self.leader:
            return
        if self._lock_conn is None:
            self._lock_conn = await self._pool.acquire()
        if await self._lock_conn.fetchval("SELECT pg_try_advisory_lock($1)", _LEADER_LOCK):
            self.leader = True
            log.info("%s runs the matchmaker", self.host)

    async def _match(self) -> None:
        srv = self.server
        now = time.time()
        async with self._pool.acquire() as c:
            async with c.transaction():
                rows = await c.fetch("SELECT name, room, host, joined, coins, won, completed FROM cluster_queue "
                                     "ORDER BY joined FOR UPDATE")
                alive = {r["host"]: r["url"] for r in await c.fetch(
                    "SELECT host, url FROM cluster_hosts WHERE seen > $1", now - _ALIVE_S)}
                by_room: Dict[str, List[Any]] = {}
                for r in rows:
                    by_room.setdefault(r["room"], []).append(r)
                for room_name, entries in by_room.items():
                    room = srv.rooms.get(room_name)
                    if room is None:
                        continue
                    groups: List[List[str]] = []
                    if room_name in MATCH_TIERS:
                        mm = Matchmaker(room_name, stage2_after_s=srv.config.stage2_after_s,
                                        stage3_after_s=srv.config.stage3_after_s)
                        for e in entries:
                            mm.join(e["name"], max(int(e["coins"]), 0), int(e["won"]), int(e["completed"]),
                                    now=min(e["joined"], now))
                        groups = [list(g) for g in mm.match(now)]
                    else:
                        names = [e["name"] for e in entries]
                        n = room.players
                        groups = [names[i:i + n] for i in range(0, len(names) - n + 1, n)]
                    host_of = {e["name"]: e["host"] for e in entries}
                    for g in groups:
                        host = host_of[g[0]] if host_of[g[0]] in alive else next(iter(alive), self.host)
                        await c.execute("INSERT INTO cluster_tables (id, room, players, host, opened, created) "
                                        "VALUES ($1, $2, $3, $4, 0, $5)", secrets.token_hex(8), room_name,
                                        json.dumps(g), host, now)
                        await c.execute("DELETE FROM cluster_queue WHERE name = ANY($1::text[])", g)

    async def _open_mine(self) -> None:
        srv = self.server
        async with self._pool.acquire() as c:
            async with c.transaction():
                rows = await c.fetch("SELECT id, room, players FROM cluster_tables WHERE host = $1 AND opened = 0 "
                                     "FOR UPDATE", self.host)
                await c.execute("UPDATE cluster_tables SET opened = 1 WHERE host = $1 AND opened = 0", self.host)
        for r in rows:
            players = json.loads(r["players"])
            for p in players:
                srv.waiting.pop(p, None)
            await srv._open_table(srv.rooms[r["room"]], players, set(), table_id=r["id"])

    async def _redirect(self) -> None:
        """Players connected here whose table opened in another process: tell them where."""
        srv = self.server
        local = set(srv.sessions)
        if not local:
            return
        async with self._pool.acquire() as c:
            rows = await c.fetch("SELECT t.id, t.players, h.url FROM cluster_tables t JOIN cluster_hosts h "
                                 "ON h.host = t.host WHERE t.opened = 1 AND t.host <> $1 AND t.created > $2",
                                 self.host, time.time() - 600)
        for r in rows:
            for p in json.loads(r["players"]):
                if p in local and (r["id"], p) not in self._told:
                    self._told.add((r["id"], p))
                    srv.waiting.pop(p, None)
                    srv.sessions[p].send({"type": "redirect", "table": r["id"], "url": r["url"]})


async def run(cluster: Cluster, interval: float) -> None:
    while True:
        try:
            await cluster.round()
        except asyncio.CancelledError:
            raise
        except Exception:  # pragma: no cover - logged; the next round retries
            log.exception("cluster round failed")
        await asyncio.sleep(interval)
