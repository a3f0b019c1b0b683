"""The server: WebSocket connections (``/ws``), accounts, the rooms' queues and matchmaking,
the tables, and a few HTTP routes (the browser client, rooms, finished hands' records).

Built on the ``websockets`` library directly (docs/protocol.md says why): one asyncio event
loop per process holds every connection and table; a table's clock and bots are loop timers.
"""
from __future__ import annotations

import asyncio
import json
import logging
import mimetypes
import secrets
import time
import urllib.parse
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Deque, Dict, List, Optional, Set, Tuple

from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from .. import MATCH_TIERS, ROOMS, Matchmaker, Room
from .health import GcPauses, LoopLag
from .names import name_problem
from .protocol import PROTOCOL_VERSION, VERSIONS, ProtocolError, RateLimiter, dumps, error, parse, refusal
from .storage import Storage, StorageError, open_storage
from .table import Table, ledger_of, rules_for

__all__ = ["Server", "ServerConfig", "Session"]

log = logging.getLogger("ddz.server")
STATIC = Path(__file__).with_name("static")
_MAX_BUFFERED = 1 << 20  # bytes written to a connection and not yet taken by its peer


@dataclass
class ServerConfig:
    """What the host chooses. Times in seconds.

    ``move_timeout_s``: None = the rules' ``move_timeout_s`` (30 s, §3.6). ``grace_s``: how long
    a disconnected seat is played by a bot and kept for its player before it is an escape.
    ``starting_coins``: the grant of a new account in the ``coins`` ledger. ``bot_tables``:
    whether ``join`` with ``"bots": true`` seats a player at once with server bots.
    ``max_message_bytes`` / ``rate`` / ``burst``: per-connection limits (an over-limit message
    gets an error and is dropped). ``match_interval_s``: how often the matchmaker runs.
    ``cluster``: several processes share one PostgreSQL database (ddz.server.cluster);
    ``public_url`` is where clients reach this process (default ``ws://host:port/ws``).
    """
    db: str = "ddz-server.sqlite3"
    move_timeout_s: Optional[float] = None
    grace_s: float = 30.0
    bot_delay_s: float = 0.6
    starting_coins: int = 10_000
    bot_tables: bool = True
    max_message_bytes: int = 4096
    hard_max_bytes: int = 1 << 16
    rate: float = 20.0
    burst: int = 40
    match_interval_s: float = 0.5
    stage2_after_s: float = 10.0
    stage3_after_s: float = 20.0
    host_id: str = field(default_factory=lambda: "host-" + secrets.token_hex(4))
    cluster: bool = False              # share the queue with other processes on one PostgreSQL
    public_url: Optional[str] = None   # this process's WebSocket URL for redirects (cluster mode)
    rooms: Tuple[str, ...] = ("novice", "intermediate", "advanced", "score", "coin_junior", "bengbu", "bengbu_300")


class Session:
    """One WebSocket connection: its account (after ``hello``), its seats, its limits."""

    def __init__(self, server: "Server", ws: ServerConnection) -> None:
        self.server = server
        self.ws = ws
        self.name: Optional[str] = None
        self.seats: Dict[str, int] = {}          # table id -> seat
        self.watching: Set[str] = set()
        self.version = PROTOCOL_VERSION          # what hello asked for (1: whole observations, no deltas)
        self.limiter = RateLimiter(server.config.rate, server.config.burst)
        self.closed = False

    def send(self, msg: Dict[str, Any]) -> None:
        """Writes ``msg`` to the connection now, in order. Through ``broadcast`` (to this one
        connection): it writes without a coroutine or a task per message, which ``ws.send``
        costs and which was a tenth of the server's time; the price is no backpressure, so a
        peer that leaves too much unread is let go."""
        if self.closed:
            return
        transport = self.ws.transport
        if transport is not None and transport.get_write_buffer_size() > _MAX_BUFFERED:
            self.closed = True
            asyncio.get_running_loop().create_task(self.ws.close(1008, "not reading its messages"))
            return
        broadcast((self.ws,), dumps(msg))


class Server:
    """``Server(config)``; ``await start(host, port)``, ``await stop()``. See docs/protocol.md."""

    def __init__(self, config: Optional[ServerConfig] = None, storage: Optional[Storage] = None) -> None:
        self.config = config or ServerConfig()
        self.storage = storage or open_storage(self.config.db)
        self.rooms: Dict[str, Room] = {name: ROOMS[name] for name in self.config.rooms}
        self.tables: Dict[str, Table] = {}
        self.by_player: Dict[str, Table] = {}     # a player sits at one table at a time
        # tables that have ended, kept for the grace period so that a player away at the end
        # can resume and get the result; ``missed``: such players -> their table
        self.finished: Dict[str, Table] = {}
        self.missed: Dict[str, Table] = {}
        self.queues: Dict[str, Deque[str]] = {r: deque() for r, room in self.rooms.items() if room.variant != "classic"}
        self.matchmakers: Dict[str, Matchmaker] = {
            r: Matchmaker(r, stage2_after_s=self.config.stage2_after_s, stage3_after_s=self.config.stage3_after_s)
            for r, room in self.rooms.items() if room.variant == "classic" and r in MATCH_TIERS}
        self.waiting: Dict[str, str] = {}          # player -> room it waits for
        self.sessions: Dict[str, Session] = {}     # player -> its latest connection
        self._ws_server: Any = None
        self._match_task: Optional["asyncio.Task[None]"] = None
        self._bot_seq = 0
        self.port: Optional[int] = None
        self.cluster: Any = None
        self.gc_pauses = GcPauses()
        self.loop_lag = LoopLag()

    # ---- life cycle ----
    async def start(self, host: str = "127.0.0.1", port: int = 8000) -> None:
        await self.storage.open()
        if not self.config.cluster:  # alone on its database: every live hand was this server's
            voided = await self.storage.void_live_hands(None)
            if voided:
                log.warning("%d hands left live by a server that stopped are void (no coin moved)", voided)
        self._ws_server = await serve(self._handle, host, port, process_request=self._http,
                                      max_size=self.config.hard_max_bytes, ping_interval=20, ping_timeout=20,
                                      compression=None)  # deflate costs more CPU than the small frames save
        self.port = self._ws_server.sockets[0].getsockname()[1]
        self.gc_pauses.install()
        self.loop_lag.start()
        loop = asyncio.get_running_loop()
        if self.config.cluster:
            from . import cluster
            from .storage import PostgresStorage
            if not isinstance(self.storage, PostgresStorage):
                raise ValueError("cluster mode needs a PostgreSQL database (--db postgresql://…)")
            self.cluster = cluster.Cluster(self, self.config.public_url or f"ws://{host}:{self.port}/ws")
            await self.cluster.open()
            self._match_task = loop.create_task(cluster.run(self.cluster, self.config.match_interval_s))
        else:
            self._match_task = loop.create_task(self._match_loop())

    async def stop(self) -> None:
        self.gc_pauses.remove()
        self.loop_lag.stop()
        if self._match_task is not None:
            self._match_task.cancel()
        if self._ws_server is not None:
            self._ws_server.close()
            await self._ws_server.wait_closed()
        for t in list(self.tables.values()):
            t._cancel_timers()
            if t._finishing is not None:
                await t._finishing
        if self.cluster is not None:
            await self.cluster.close()
        await self.storage.close()

    # ---- HTTP ----
    async def _http(self, connection: ServerConnection, request: Request) -> Optional[Response]:
        url = urllib.parse.urlsplit(request.path)
        path = url.path
        if path == "/ws":
            return None
        if path == "/api/status":
            status = {"host": self.config.host_id, "tables": len(self.tables), "connections": len(self.sessions),
                      "matchmaker": self.cluster.leader if self.cluster is not None else True,
                      "gc": self.gc_pauses.to_dict(), "loop_lag": self.loop_lag.to_dict()}
            return _response(200, json.dumps(status), "application/json")
        if path == "/api/rooms":
            return _response(200, json.dumps(self.room_list(), ensure_ascii=False), "application/json")
        if path.startswith("/records/"):
            return await self._record(path[len("/records/"):], urllib.parse.parse_qs(url.query))
        if path == "/":
            path = "/index.html"
        f = (STATIC / path.lstrip("/")).resolve()
        if STATIC.resolve() in f.parents and f.is_file():
            ctype = mimetypes.guess_type(f.name)[0] or "application/octet-stream"
            return _response(200, f.read_bytes(), ctype)
        return _response(404, "not found\n", "text/plain")

    async def _record(self, hand_id: str, query: Dict[str, List[str]]) -> Response:
        """``GET /records/<hand>?name=…&token=…``: the hand's ``ddz-game`` record, for its
        players only and only once it has ended (it holds every hidden card)."""
        name, token = (query.get("name") or [""])[0], (query.get("token") or [""])[0]
        if not name or not token or not await self.storage.check_token(name, token):
            return _response(403, "give your name and token\n", "text/plain")
        row = await self.storage.hand(hand_id)
        if row is None or name not in row.players:
            return _response(404, "no such hand of yours\n", "text/plain")
        if row.status != "done" or row.record is None:
            return _response(409, f"the hand is {row.status}: no record to give\n", "text/plain")
        return _response(200, row.record, "application/json")

    def room_list(self) -> List[Dict[str, Any]]:
        out = []
        for name, room in self.rooms.items():
            d = {k: (str(v) if k in ("win_factor", "max_win_factor") and v is not None else v)
                 for k, v in vars(room).items() if not k.startswith("_") and v is not None}
            d["ledger"] = ledger_of(room)
            d["seats"] = room.players
            d["players"] = room.players  # the older name of seats, kept for the clients that read it
            d["matchmaking"] = name in self.matchmakers
            out.append(d)
        return out

    # ---- connections ----
    async def _handle(self, ws: ServerConnection) -> None:
        sess = Session(self, ws)
        try:
            async for frame in ws:
                await self.on_frame(sess, frame)
        except ConnectionClosed:
            pass
        finally:
            sess.closed = True
            self._gone(sess)

    async def on_frame(self, sess: Session, frame: Any) -> None:
        """One frame from a connection: its answer, or one ``error`` (docs/protocol.md). Nothing
        a client sends closes the connection: a failure of the server's own (a bug, a database
        that is down) is logged and answered with ``internal``."""
        if not sess.limiter.allow():
            sess.send(refusal(ProtocolError("rate_limited", f"more than {self.config.rate:g} messages a second; "
                                            "this one was dropped")))
            return
        kind = None
        try:
            msg = parse(frame, self.config.max_message_bytes)
            kind = msg["type"]
            await self._dispatch(sess, msg)
        except ProtocolError as e:
            if e.ref is None:
                e.ref = kind
            sess.send(refusal(e))
        except ConnectionClosed:
            raise
        except Exception:
            log.exception("a %s message failed", kind)
            sess.send(refusal(ProtocolError("internal", "the server failed to handle this message", kind)))

    def _gone(self, sess: Session) -> None:
        for tid, seat in list(sess.seats.items()):
            t = self.tables.get(tid)
            if t is not None:
                t.detach(seat, sess)
        for tid in sess.watching:
            t = self.tables.get(tid)
            if t is not None:
                t.forget(sess, None)
        if sess.name is not None and self.sessions.get(sess.name) is sess:
            del self.sessions[sess.name]
            self._unqueue(sess.name)

    async def _dispatch(self, sess: Session, msg: Dict[str, Any]) -> None:
        kind = msg["type"]
        if kind == "ping":
            sess.send({"type": "pong", "now": time.time()})
            return
        if kind == "hello":
            await self._hello(sess, msg)
            return
        if kind == "rooms":
            sess.send({"type": "rooms", "rooms": self.room_list()})
            return
        if kind == "tables":
            sess.send({"type": "tables", "tables": [t.info() for t in self.tables.values() if not t.ended]})
            return
        if kind == "spectate":
            t = self.tables.get(msg["table"])
            if t is None:
                raise ProtocolError("no_table", f"no live table {msg['table'][:40]!r}")
            sess.watching.add(t.id)
            t.watch(sess)
            return
        if kind == "unspectate":
            if msg["table"] not in sess.watching:
                raise ProtocolError("not_watching", f"this connection does not watch table {msg['table'][:40]!r}")
            t = self.tables.get(msg["table"])
            if t is not None:
                t.forget(sess, None)
            sess.watching.discard(msg["table"])
            sess.send({"type": "unspectated", "table": msg["table"]})
            return
        if sess.name is None:
            raise ProtocolError("no_account", f"{kind}: say hello (name and token) first")
        if kind == "balances":
            sess.send({"type": "balances", "balances": await self.storage.balances(sess.name)})
        elif kind == "join":
            await self._join(sess, msg["room"], bool(msg.get("bots", False)))
        elif kind == "leave_queue":
            if sess.name not in self.waiting:  # matched meanwhile (its "matched" is on the way), or never queued
                raise ProtocolError("not_queued", "you are not waiting for a table (matched, or never queued)")
            self._unqueue(sess.name)
            sess.send({"type": "left_queue"})
        elif kind in ("act", "resume", "leave"):
            t, seat = self._seat_for(sess, msg)
            if kind == "act":
                reply = t.act(seat, msg["action"], msg.get("seq"))
                if reply is not None:
                    sess.send(reply)
            elif kind == "resume":
                if self.missed.get(sess.name) is t:
                    del self.missed[sess.name]
                t.attach(seat, sess, msg.get("since"))
            else:
                if t.ended or t.game.is_over:
                    raise ProtocolError("not_playing", "the hand is over: there is nothing to leave")
                if seat in t.escaped:
                    raise ProtocolError("not_playing", f"seat {seat} has left this hand already")
                t.escape(seat)
                sess.send({"type": "left", "table": t.id, "seat": seat})

    def _seat_for(self, sess: Session, msg: Dict[str, Any]) -> Tuple[Table, int]:
        t = self.tables.get(msg["table"]) or self.finished.get(msg["table"])
        if t is None:
            raise ProtocolError("no_table", f"no live table {msg['table'][:40]!r}")
        seat = t.seat_of(msg["seat_token"])
        if seat is None or t.players[seat] != sess.name:
            raise ProtocolError("bad_token", "that seat token is not yours at this table")
        if t.sessions[seat] is not sess and msg["type"] != "resume" and not t.ended:  # an ended hand answers HAND_OVER
            raise ProtocolError("not_seated", "this connection does not hold the seat: send resume first")
        return t, seat

    async def _hello(self, sess: Session, msg: Dict[str, Any]) -> None:
        name = msg["name"]
        if sess.name is not None:
            raise ProtocolError("already", f"this connection is already {sess.name!r}")
        version = msg.get("v", PROTOCOL_VERSION)
        if version not in VERSIONS:
            raise ProtocolError("bad_version", f"protocol version {version} is not served: ask for one of "
                                + ", ".join(map(str, VERSIONS)))
        token = msg.get("token")
        fresh = None
        if token is None:
            problem = name_problem(name)
            if problem is not None:
                raise ProtocolError("bad_name", problem)
            try:
                fresh = await self.storage.create_account(name, {"coins": self.config.starting_coins})
            except StorageError as e:
                raise ProtocolError("name_taken", f"{e}; to log in, send the account's name and its token") from None
        elif not await self.storage.check_token(name, token):
            # an account keeps the name it was made with, even one the rule for new names now refuses
            problem = name_problem(name) if not await self.storage.account_exists(name) else None
            if problem is not None:
                raise ProtocolError("bad_name", f"no account has this name, and none can: {problem}")
            raise ProtocolError("bad_token", f"wrong token for {name!r}")
        old = self.sessions.get(name)
        sess.name = name
        sess.version = version
        self.sessions[name] = sess
        if old is not None and old is not sess:
            old.send(error("replaced", "another connection logged in as this account"))
        voids = await self.storage.take_voids(name)
        out: Dict[str, Any] = {"type": "welcome", "v": version, "name": name,
                               "balances": await self.storage.balances(name), "rooms": self.room_list(),
                               "void_hands": voids, "now": time.time()}
        if fresh is not None:
            out["token"] = fresh
        t = self.by_player.get(name)
        if t is None or t.ended:
            t = self.missed.get(name)
        if t is not None:
            seat = t.players.index(name)
            out["table"] = {"table": t.id, "seat": seat, "seat_token": t.tokens[seat], "seq": t.seq,
                            "over": t.ended}
        sess.send(out)

    # ---- queues and matchmaking ----
    async def _join(self, sess: Session, room_name: str, bots: bool) -> None:
        name = sess.name
        assert name is not None
        room = self.rooms.get(room_name)
        if room is None:
            raise ProtocolError("no_room", f"no room {room_name[:40]!r}: rooms are {', '.join(self.rooms)}")
        if name in self.by_player:
            raise ProtocolError("seated", "you are seated at a table; finish or leave it first")
        if name in self.waiting:
            raise ProtocolError("queued", f"you already wait for room {self.waiting[name]!r}")
        if bots:
            if not self.config.bot_tables:
                raise ProtocolError("no_bots", "this server does not seat bots")
            await self._open_table(room, [name] + [await self._bot_account() for _ in range(room.players - 1)],
                                   set(range(1, room.players)))
            return
        self.waiting[name] = room_name
        if self.cluster is not None:
            won, completed = await self.storage.stats(name)
            coins = (await self.storage.balances(name))["coins"]
            await self.cluster.join(name, room_name, coins, won, completed)
            sess.send({"type": "queued", "room": room_name})
            return
        if room_name in self.matchmakers:
            won, completed = await self.storage.stats(name)
            coins = (await self.storage.balances(name))["coins"]
            self.matchmakers[room_name].join(name, max(coins, 0), won, completed, now=time.monotonic())
        else:
            self.queues[room_name].append(name)
        sess.send({"type": "queued", "room": room_name})
        await self._match_once()

    def _unqueue(self, name: str) -> None:
        room = self.waiting.pop(name, None)
        if room is None:
            return
        if self.cluster is not None:
            asyncio.get_running_loop().create_task(self.cluster.leave(name))
        elif room in self.matchmakers:
            if name in self.matchmakers[room]:
                self.matchmakers[room].leave(name)
        else:
            try:
                self.queues[room].remove(name)
            except ValueError:
                pass

    async def _bot_account(self) -> str:
        self._bot_seq += 1
        name = f"~bot-{self.config.host_id}-{self._bot_seq}"
        await self.storage.create_account(name, {"coins": self.config.starting_coins})
        return name

    async def _match_loop(self) -> None:
        while True:
            await asyncio.sleep(self.config.match_interval_s)
            try:
                await self._match_once()
            except Exception:  # pragma: no cover - logged, the loop must live on
                log.exception("matchmaking round failed")

    async def _match_once(self) -> None:
        now = time.monotonic()
        for room_name, mm in self.matchmakers.items():
            trios = mm.match(now)
            # every matched player stops waiting now, before the first table opens (its storage
            # calls yield): a leave_queue meanwhile must not be told left_queue and then be seated
            for trio in trios:
                for p in trio:
                    self.waiting.pop(p, None)
            for trio in trios:
                await self._open_table(self.rooms[room_name], list(trio), set())
        for room_name, q in self.queues.items():
            n = self.rooms[room_name].players
            while len(q) >= n:
                group = [q.popleft() for _ in range(n)]
                for p in group:
                    self.waiting.pop(p, None)
                await self._open_table(self.rooms[room_name], group, set())

    async def _open_table(self, room: Room, players: List[str], bot_seats: Set[int],
                          table_id: Optional[str] = None) -> Table:
        ledger = ledger_of(room)
        coins = [(await self.storage.balances(p))[ledger] for p in players]
        tid = table_id or secrets.token_hex(8)
        await self.storage.start_hand(tid, room.name, room.variant, players, self.config.host_id)
        t = Table(self, tid, room, players, bot_seats, coins)
        self.tables[tid] = t
        for seat, p in enumerate(players):
            if seat in bot_seats:
                continue
            self.by_player[p] = t
            sess = self.sessions.get(p)
            if sess is not None:
                t.sessions[seat] = sess
                sess.seats[tid] = seat
                sess.send({"type": "matched", "table": tid, "room": room.name, "variant": room.variant,
                           "seat": seat, "seat_token": t.tokens[seat], "players": players})
            else:  # gone while it was matched: a bot plays it for the grace period
                t.go_absent(seat)
        t.start()
        return t

    def table_done(self, t: Table) -> None:
        for p in t.players:
            if self.by_player.get(p) is t:
                del self.by_player[p]
        self.tables.pop(t.id, None)
        for watcher in list(t.spectators):
            watcher.watching.discard(t.id)
        for seat, seated in enumerate(t.sessions):
            if seated is not None:
                seated.seats.pop(t.id, None)
            elif seat not in t.robots:  # away at the end: the result waits for a resume
                self.missed[t.players[seat]] = t
        self.finished[t.id] = t
        asyncio.get_running_loop().call_later(self.config.grace_s, self._drop_finished, t)

    def _drop_finished(self, t: Table) -> None:
        self.finished.pop(t.id, None)
        for p in t.players:
            if self.missed.get(p) is t:
                del self.missed[p]


def _response(status: int, body: Any, ctype: str) -> Response:
    data = body.encode() if isinstance(body, str) else body
    reason = {200: "OK", 403: "Forbidden", 404: "Not Found", 409: "Conflict"}.get(status, "")
    headers = Headers([("Content-Type", ctype + ("; charset=utf-8" if ctype.startswith(("text/", "application/json"))
                                                   or ctype.endswith("javascript") else "")),
                       ("Content-Length", str(len(data))), ("Cache-Control", "no-store")])
    return Response(status, reason, headers, data)
