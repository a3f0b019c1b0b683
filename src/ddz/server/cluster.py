"""Several server processes on one PostgreSQL database (``ddz serve --cluster``).

Balances and records are shared through the storage already; this module shares the waiting
queue and the matchmaking:

* ``join`` puts the player in the ``cluster_queue`` table instead of a local queue. The table
  has one row per account, kept from the join to the end of the hand it is seated at
  (``table_id`` set when seated; a ``join`` with bots writes it seated at once): an account
  waits or sits in one place in the whole cluster, and a second ``join`` through any process
  is refused (``queued`` / ``seated``) by the row's primary key.
* One process at a time is the matchmaker: the one holding PostgreSQL advisory lock
  ``_LEADER_LOCK`` on a connection of its own. Every process tries to take it each round, so
  when the matchmaker dies (its connection closes and the lock with it) another takes over.
  The matchmaker runs ``ddz.Matchmaker`` (CLASSIC3's tiers; join times are wall-clock times
  from the database) or the queue order (TWOP, BENGBU4) over the shared queue and writes
  each table it seats to ``cluster_tables`` with the host that will run it (the process of
  its longest waiter, if alive), setting the seated players' rows' ``table_id`` in the same
  transaction.
* The shared queue decides whether a player waits: ``leave_queue`` deletes the account's row
  only while it waits (``table_id`` NULL), in one statement that the matchmaker's row locks
  order before or after its match, so a player told ``left_queue`` is never seated, and one
  whose row was seated is told ``not_queued`` (its ``matched`` or ``redirect`` follows). A
  disconnect deletes the waiting row its process wrote for it.
* Each process opens the tables assigned to it; a player connected to another process is
  told to go there (``redirect`` with the host's WebSocket URL), logs in there and resumes:
  only when its row names the table (the entry the matchmaker seated there), the table's hand
  is ``live`` and its process is alive (a heartbeat within ``cluster_dead_s``); once per
  connection.
* Every process writes a heartbeat each round (``cluster_hosts.seen``). One whose heartbeat
  is older than ``ServerConfig.cluster_dead_s`` is gone: the first process to see it takes
  its live hands over (``hands.host``) and resumes them from their logs (docs/server.md,
  "Durable hands"); their players are redirected there. A process that stops hands its live
  hands to another (``hand_over``), which adopts them in its next round. A process that finds
  its own heartbeat row gone (it was given up while its loop stood still) stops the tables
  whose hands were taken over meanwhile: it can no longer log their events.
* A hand that cannot be resumed is void; it is noted in ``cluster_voids`` so that every
  process sends ``void`` to its players connected there (the others are told in their next
  ``welcome``).
"""
from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Set, Tuple

from ..rooms.matchmaking import MATCH_TIERS, Matchmaker
from .storage import schema_statements

if TYPE_CHECKING:  # pragma: no cover
    from .app import Server

__all__ = ["Cluster"]

log = logging.getLogger("ddz.server")

_LEADER_LOCK = 7215
_VOIDS_KEPT_S = 600.0  # how long a dead process's void hands stay in cluster_voids for the others to tell

_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS cluster_hosts (
        host TEXT PRIMARY KEY, url TEXT NOT NULL, seen DOUBLE PRECISION NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS cluster_queue (
        name TEXT PRIMARY KEY, room TEXT NOT NULL, host TEXT NOT NULL, joined DOUBLE PRECISION NOT NULL,
        coins BIGINT NOT NULL, won BIGINT NOT NULL, completed BIGINT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS cluster_tables (
        id TEXT PRIMARY KEY, room TEXT NOT NULL, players TEXT NOT NULL, host TEXT NOT NULL,
        opened INTEGER NOT NULL, created DOUBLE PRECISION NOT NULL)""",
    "ALTER TABLE cluster_queue ADD COLUMN IF NOT EXISTS table_id TEXT",  # NULL: waiting; else seated there
    "CREATE INDEX IF NOT EXISTS cluster_queue_table ON cluster_queue (table_id)",
    "CREATE INDEX IF NOT EXISTS hands_live_host ON hands (host) WHERE status = 'live'",
    """CREATE TABLE IF NOT EXISTS cluster_voids (
        hand_id TEXT PRIMARY KEY, players TEXT NOT NULL, at DOUBLE PRECISION NOT NULL)""",
    # 1: the process drains (SIGTERM): it is given no new table
    "ALTER TABLE cluster_hosts ADD COLUMN IF NOT EXISTS draining INTEGER NOT NULL DEFAULT 0",
]


class Cluster:
    def __init__(self, server: "Server", url: str) -> None:
        self.server = server
        self.url = url              # this process's WebSocket URL, for redirects
        self.host = server.config.host_id
        self.leader = False
        self.dead_s = server.config.cluster_dead_s
        self._lock_conn: Any = None
        self._told: Dict[str, Tuple[str, Any]] = {}  # player -> (table, connection) of the redirect sent
        self._voids_seen = 0.0                      # the newest cluster_voids entry read here
        self._voids_read: Dict[str, float] = {}     # its recent entries read (hand -> at)
        self._pending: Set["asyncio.Task[Any]"] = set()  # releases and leaves not yet written
        self.draining = False
        self.taken_over = 0                          # hands of stopped processes resumed here
        self._leaving: Dict[str, "asyncio.Task[Any]"] = {}  # player -> the delete of its row (a disconnect)

    @property
    def _pool(self) -> Any:
        return self.server.storage.pool()  # type: ignore[attr-defined]

    async def open(self) -> None:
        async with self._pool.acquire() as c:
            await schema_statements(c, _SCHEMA)
            async with c.transaction():
                await c.execute("SELECT pg_advisory_xact_lock(7214)")
                # alive before it adopts, so that a process starting next does not adopt them again
                now = time.time()
                await c.execute("INSERT INTO cluster_hosts (host, url, seen) VALUES ($1, $2, $3) "
                                "ON CONFLICT (host) DO UPDATE SET url = $2, seen = $3", self.host, self.url, now)
                # hands of processes that stopped (no heartbeat, or none at all: a server that ran
                # alone before) are this one's to resume
                ids = [r["id"] for r in await c.fetch(
                    "UPDATE hands SET host = $1 WHERE status = 'live' AND host NOT IN "
                    "(SELECT host FROM cluster_hosts WHERE seen > $2) RETURNING id", self.host, now - self.dead_s)]
                self._voids_seen = now
        if ids:
            log.warning("%d hands of stopped servers are resumed here", len(ids))
            self.taken_over += await self.server.load_resumes(ids)
        await self.heartbeat()

    async def drain(self) -> None:
        """This process stops seating: the matchmaker gives it no new table (and it lets the
        matchmaker's lock go, if it held it)."""
        self.draining = True
        async with self._pool.acquire() as c:
            await c.execute("UPDATE cluster_hosts SET draining = 1 WHERE host = $1", self.host)
        if self.leader and self._lock_conn is not None:
            await self._lock_conn.execute("SELECT pg_advisory_unlock($1)", _LEADER_LOCK)
            self.leader = False

    async def hand_over(self) -> None:
        """At the stop: this process's live hands (their tables stopped, their logs stored) go
        to a live process that does not drain, which resumes them in its next round; their
        players connected here are sent a ``redirect`` there. With no such process they stay
        this one's, and the next process to start (or to see this one dead) takes them."""
        srv = self.server
        async with self._pool.acquire() as c:
            row = await c.fetchrow("SELECT host, url FROM cluster_hosts WHERE seen > $1 AND host <> $2 "
                                   "AND draining = 0 ORDER BY seen DESC LIMIT 1", time.time() - self.dead_s, self.host)
            if row is None:
                return
            ids = [r["id"] for r in await c.fetch("UPDATE hands SET host = $1 WHERE status = 'live' AND host = $2 "
                                                  "RETURNING id", row["host"], self.host)]
        log.info("%d hands handed over to %s", len(ids), row["host"])
        srv.metrics.hand("handed_over", len(ids))
        for tid in ids:
            t = srv.tables.get(tid)
            if t is None:
                continue
            for sess in t.sessions:
                if sess is not None:
                    sess.send({"type": "redirect", "table": tid, "url": row["url"]})
            srv.tables.forget(t)  # not this process's: nothing of it is kept in the queue's rows

    async def adopt(self) -> None:
        """Hands that are this process's in the database and not here (handed over by a
        process that stopped): read to be resumed."""
        srv = self.server
        async with self._pool.acquire() as c:
            ids = [r["id"] for r in await c.fetch("SELECT id FROM hands WHERE status = 'live' AND host = $1",
                                                  self.host)]
        new = [h for h in ids if h not in srv.tables and h not in srv.tables.to_resume]
        if new:
            self.taken_over += await srv.load_resumes(new)
            srv.start_resuming()

    async def adopt_for(self, name: str) -> None:
        """``name`` says hello: a hand of its that is this process's and not yet resumed is
        resumed now, so that its ``welcome`` names it."""
        srv = self.server
        async with self._pool.acquire() as c:
            ids = [r["id"] for r in await c.fetch(
                "SELECT h.id FROM hand_players p JOIN hands h ON h.id = p.hand_id WHERE p.name = $1 "
                "AND h.status = 'live' AND h.host = $2", name, self.host)]
        for hid in ids:
            if hid not in srv.tables:
                await srv.load_resumes([hid])
                await srv.resume(hid)

    def tell_owner_later(self, t: Any) -> None:
        """``t`` went to another process (``Table.lost``): its players connected here are sent a
        ``redirect`` to the process that has its hand now."""
        async def tell() -> None:
            async with self._pool.acquire() as c:
                url = await c.fetchval("SELECT c.url FROM hands h JOIN cluster_hosts c ON c.host = h.host "
                                       "WHERE h.id = $1 AND h.status = 'live'", t.id)
            if url is None:
                return
            for sess in t.sessions:
                if sess is not None:
                    sess.send({"type": "redirect", "table": t.id, "url": url})
        self._later(tell())

    async def close(self) -> None:
        """A planned stop (after ``hand_over``): its waiting players and its heartbeat go; the
        players of its ended tables may join again (those of live hands stay seated: their
        hands go on elsewhere, or at the next start)."""
        if self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)
        if self._lock_conn is not None:
            await self._pool.release(self._lock_conn)
            self._lock_conn = None
        async with self._pool.acquire() as c:
            async with c.transaction():
                ids = [r["id"] for r in await c.fetch(
                    "DELETE FROM cluster_tables WHERE host = $1 AND opened = 0 RETURNING id", self.host)]
                ids += list(self.server.tables.finished)
                await c.execute("DELETE FROM cluster_queue WHERE table_id = ANY($1::text[])", ids)
                await c.execute("DELETE FROM cluster_queue WHERE host = $1 AND table_id IS NULL", self.host)
                await c.execute("DELETE FROM cluster_hosts WHERE host = $1", self.host)

    async def heartbeat(self, conn: Any = None) -> bool:
        """This process is alive. True if its row was not there (first beat, or it was given
        up for dead). ``conn``: a connection of its own (``beat``), else one of the pool."""
        sql = ("INSERT INTO cluster_hosts (host, url, seen, draining) VALUES ($1, $2, $3, $4) "
               "ON CONFLICT (host) DO UPDATE SET url = $2, seen = $3 RETURNING (xmax = 0)")
        args = (self.host, self.url, time.time(), int(self.draining))
        if conn is not None:
            return bool(await conn.fetchval(sql, *args))
        async with self._pool.acquire() as c:
            return bool(await c.fetchval(sql, *args))

    async def beat(self, interval: float) -> None:
        """The heartbeat, and the reaper (``_reap``), on a task and a connection of their own,
        every ``interval`` seconds, whatever a round takes: a round that opens hundreds of tables
        (their storage calls one after another) took longer than ``cluster_dead_s`` at 1,000
        tables, the others gave the process up for dead while it played on, and a takeover
        waited for the survivor's round."""
        import asyncpg
        conn = await asyncpg.connect(self.server.storage.url)

        async def one() -> None:  # alive, then the others: the takeover waits for no round either
            if await self.heartbeat(conn):
                log.warning("%s was given up for dead by the cluster (no heartbeat for %g s): its hands "
                            "taken over by another process stop here", self.host, self.dead_s)
                await self._recheck()
            await self._reap(conn)
        try:
            await _every(interval, one, "heartbeat")
        finally:
            await conn.close()

    # ---- the queue ----
    async def join(self, name: str, room: str, coins: int, won: int, completed: int) -> Optional[str]:
        """Queues ``name`` for ``room``: None, or where the account already is in the cluster
        (``"queued"``, ``"seated"``); two joins at once through two processes get one of each."""
        return await self._claim(name, room, None, coins, won, completed)

    async def seat(self, name: str, room: str, table_id: str) -> Optional[str]:
        """``name`` sits at a table of this process at once (a table with bots): None, or where
        the account already is (as ``join``)."""
        return await self._claim(name, room, table_id, 0, 0, 0)

    async def _claim(self, name: str, room: str, table_id: Optional[str], coins: int, won: int,
                     completed: int) -> Optional[str]:
        leaving = self._leaving.get(name)
        if leaving is not None:  # its disconnect's delete first, lest it delete this new row
            await asyncio.gather(leaving, return_exceptions=True)
        async with self._pool.acquire() as c:
            for _ in range(2):
                if await c.fetchval(
                        "INSERT INTO cluster_queue (name, room, host, joined, coins, won, completed, table_id) "
                        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (name) DO NOTHING RETURNING 1",
                        name, room, self.host, time.time(), coins, won, completed, table_id):
                    return None
                row = await c.fetchrow("SELECT q.table_id, h.status FROM cluster_queue q LEFT JOIN hands h "
                                       "ON h.id = q.table_id WHERE q.name = $1", name)
                if row is None:  # gone meanwhile: try once more
                    continue
                if row["table_id"] is None:
                    return "queued"
                if row["status"] in ("done", "void"):  # a row its table's end did not free: free it now
                    await c.execute("DELETE FROM cluster_queue WHERE name = $1 AND table_id = $2", name,
                                    row["table_id"])
                    continue
                return "seated"
        return "queued"

    async def leave(self, name: str, host: Optional[str] = None) -> bool:
        """``name`` stops waiting (``leave_queue``; a disconnect, ``host`` this process: the row
        its connection wrote). True if its row was waiting and is gone: the matchmaker, which
        holds the rows it reads locked until its tables are written, can no longer seat it.
        False if there was none, or the matchmaker seated it first (its row stays with the
        table until the hand's end)."""
        async with self._pool.acquire() as c:
            return await c.fetchval(
                "DELETE FROM cluster_queue WHERE name = $1 AND table_id IS NULL AND ($2::text IS NULL OR host = $2) "
                "RETURNING true", name, host) is not None

    def leave_later(self, name: str) -> None:
        """``name``'s connection to this process closed: its waiting row goes (a ``join`` of the
        same account through this process waits for it)."""
        task = self._later(self.leave(name, self.host))
        self._leaving[name] = task
        task.add_done_callback(lambda t: self._leaving.pop(name, None) if self._leaving.get(name) is t else None)

    async def release(self, table_id: str) -> None:
        """The table's hand has ended: its players may join again."""
        async with self._pool.acquire() as c:
            await c.execute("DELETE FROM cluster_queue WHERE table_id = $1", table_id)

    def release_later(self, table_id: str) -> None:
        self._later(self.release(table_id))

    def _later(self, coro: Any) -> "asyncio.Task[Any]":
        task = asyncio.get_running_loop().create_task(coro)
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)
        task.add_done_callback(_log_failure)
        return task

    # ---- one round ----
    async def round(self) -> None:
        if await self.heartbeat():  # its row was there since open: it was reaped
            log.warning("%s was given up for dead by the cluster (no heartbeat for %g s): its hands taken "
                        "over by another process stop here", self.host, self.dead_s)
            await self._recheck()
        await self._reap()
        await self._tell_voids()
        await self.adopt()
        if not self.draining:
            await self._lead()
            if self.leader:
                await self._match()
        await self._open_mine()
        await self._redirect()

    async def _recheck(self) -> None:
        """After this process was given up for dead: its tables whose hands another process
        took over stop here (their players are redirected there)."""
        srv = self.server
        local = list(srv.tables)
        async with self._pool.acquire() as c:
            mine = {r["id"] for r in await c.fetch("SELECT id FROM hands WHERE id = ANY($1::text[]) AND host = $2 "
                                                   "AND status = 'live'", local, self.host)}
        for tid in local:
            t = srv.tables.get(tid)
            if t is not None and tid not in mine and not t.ended:
                t.lost()

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
                                     "WHERE table_id IS NULL ORDER BY joined FOR UPDATE")
                hosts = await c.fetch("SELECT host, url, draining FROM cluster_hosts WHERE seen > $1", now - self.dead_s)
                alive = {r["host"]: r["url"] for r in hosts}
                open_to = [r["host"] for r in hosts if not r["draining"]]  # a draining process gets no table
                if not open_to:
                    return
                by_room: Dict[str, List[Any]] = {}
                for r in rows:
                    if r["host"] in alive:  # a dead process's players are gone (the reaper drops their rows)
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
                        host = host_of[g[0]] if host_of[g[0]] in open_to else open_to[len(groups) % len(open_to)]
                        tid = secrets.token_hex(8)
                        await c.execute("INSERT INTO cluster_tables (id, room, players, host, opened, created) "
                                        "VALUES ($1, $2, $3, $4, 0, $5)", tid, room_name, json.dumps(g), host, now)
                        await c.execute("UPDATE cluster_queue SET table_id = $1 WHERE name = ANY($2::text[]) "
                                        "AND table_id IS NULL", tid, g)

    async def _reap(self, conn: Any = None) -> None:
        """Processes whose heartbeat stopped: this process takes their live hands over (one
        statement: of two reapers each hand goes to one) and resumes them; their players' rows
        stay (they name the table, which is here now: ``_redirect`` sends its players here);
        its tables not yet opened are dropped, their players waiting again, and the players who
        joined through it are dropped. ``conn``: the heartbeat's connection (``beat``), else
        one of the pool."""
        if conn is None:
            async with self._pool.acquire() as c:
                return await self._reap(c)
        c = conn
        now = time.time()
        dead = [r["host"] for r in await c.fetch("SELECT host FROM cluster_hosts WHERE seen <= $1",
                                                 now - self.dead_s)]
        if not dead:
            return
        async with c.transaction():
            hands = [r["id"] for r in await c.fetch(
                "UPDATE hands SET host = $1 WHERE status = 'live' AND host = ANY($2::text[]) RETURNING id",
                self.host, dead)]
            unopened = [r["id"] for r in await c.fetch(
                "DELETE FROM cluster_tables WHERE host = ANY($1::text[]) AND opened = 0 RETURNING id", dead)]
            # the players of its tables not yet opened wait again (the matchmaker seats them anew),
            # but those who joined through it, which are gone with it
            await c.execute("UPDATE cluster_queue SET table_id = NULL WHERE table_id = ANY($1::text[])", unopened)
            await c.execute("DELETE FROM cluster_queue WHERE host = ANY($1::text[]) AND table_id IS NULL", dead)
            await c.execute("DELETE FROM cluster_hosts WHERE host = ANY($1::text[]) AND seen <= $2",
                            dead, now - self.dead_s)
            await c.execute("DELETE FROM cluster_voids WHERE at < $1", now - _VOIDS_KEPT_S)
        if hands:
            log.warning("hosts %s stopped: %d of their hands are taken over here", ", ".join(dead), len(hands))
            self.taken_over += await self.server.load_resumes(hands)
            self.server.start_resuming()

    async def note_void(self, hand_id: str, players: List[str]) -> None:
        """A hand this process could not resume is void: every process tells its players
        connected there (``_tell_voids``)."""
        async with self._pool.acquire() as c:
            await c.execute("INSERT INTO cluster_voids (hand_id, players, at) VALUES ($1, $2, $3) "
                            "ON CONFLICT (hand_id) DO NOTHING", hand_id, json.dumps(players), time.time())

    async def _tell_voids(self) -> None:
        """``void`` to the players connected here of hands a process could not resume (once each:
        their ``hand_players.notified`` is set, so no ``welcome`` reports them again)."""
        srv = self.server
        async with self._pool.acquire() as c:
            # a reaper's entries may commit after a later one's: read a few seconds back
            rows = await c.fetch("SELECT hand_id, players, at FROM cluster_voids WHERE at > $1 ORDER BY at",
                                 self._voids_seen - 5.0)
            self._voids_read = {h: at for h, at in self._voids_read.items() if at > self._voids_seen - 10.0}
            for r in rows:
                if r["hand_id"] in self._voids_read:
                    continue
                self._voids_read[r["hand_id"]] = r["at"]
                self._voids_seen = max(self._voids_seen, r["at"])
                here = [p for p in json.loads(r["players"]) if p in srv.lobby.sessions]
                if not here:
                    continue
                told = await c.fetch("UPDATE hand_players SET notified = 1 WHERE hand_id = $1 AND notified = 0 "
                                     "AND name = ANY($2::text[]) RETURNING name", r["hand_id"], here)
                for t in told:
                    sess = srv.lobby.sessions.get(t["name"])
                    if sess is not None:
                        sess.send({"type": "void", "table": r["hand_id"],
                                   "message": "the server running this hand stopped: the hand is void, no coin moved"})

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
                srv.lobby.waiting.pop(p, None)
            await srv._open_table(srv.rooms[r["room"]], players, set(), table_id=r["id"])

    async def _redirect(self) -> None:
        """Players connected here whose queue row the matchmaker seated at a table another
        process runs: each connection is told where, once. Only the table the row names (the
        player's current entry, not a table it sat at before), only while its hand is ``live``
        and only if that process is alive (its heartbeat within ``cluster_dead_s``)."""
        srv = self.server
        names = [p for p in srv.lobby.sessions if p not in srv.tables.by_player]  # a player seated here sits nowhere else
        if not names:
            self._told = {}
            return
        async with self._pool.acquire() as c:
            rows = await c.fetch("SELECT q.name, q.table_id, c.url FROM cluster_queue q "
                                 "JOIN hands h ON h.id = q.table_id JOIN cluster_hosts c ON c.host = h.host "
                                 "WHERE q.name = ANY($1::text[]) AND h.status = 'live' AND h.host <> $2 "
                                 "AND c.seen > $3", names, self.host, time.time() - self.dead_s)
        told, self._told = self._told, {}
        for r in rows:
            p, tid = r["name"], r["table_id"]
            sess = srv.lobby.sessions.get(p)
            if sess is None:
                continue
            self._told[p] = (tid, sess)
            if told.get(p) != (tid, sess):
                srv.lobby.waiting.pop(p, None)
                sess.send({"type": "redirect", "table": tid, "url": r["url"]})


def _log_failure(task: "asyncio.Task[Any]") -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("a cluster queue update failed", exc_info=task.exception())


async def run(cluster: Cluster, interval: float) -> None:
    beat = asyncio.get_running_loop().create_task(cluster.beat(interval))
    try:
        await _every(interval, cluster.round, "round")
    finally:
        beat.cancel()


async def _every(interval: float, step: Any, what: str) -> None:
    """``await step()`` every ``interval`` seconds, for ever; a failure is logged and the next
    one tries again."""
    while True:
        try:
            await step()
        except asyncio.CancelledError:
            raise
        except Exception:  # pragma: no cover - logged; the next one retries
            log.exception("cluster %s failed", what)
        await asyncio.sleep(interval)
