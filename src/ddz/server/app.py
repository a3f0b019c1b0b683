"""The server: WebSocket connections (``/ws``), accounts, the rooms' queues and matchmaking,
the tables, and a few HTTP routes (the browser client, rooms, finished hands' records).

Built on the ``websockets`` library directly (docs/protocol.md says why): one asyncio event
loop per process holds every connection and table; a table's clock and bots are loop timers.
"""
from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import mimetypes
import os
import re
import secrets
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.protocol import State

from ..rooms.room import ROOMS, Room
from ..search.bots import Bot
from .bots import BotChoice, bot_kinds, room_bots
from .health import GcPauses, LoopLag
from .house import Lobby, Tables
from .journal import Journal, NoJournal
from .keepalive import Keepalive
from .metrics import Metrics
from .names import name_problem
from .protocol import CLIENT_TYPES, PROTOCOL_VERSION, VERSIONS, ProtocolError, RateLimiter, dumps, error, parse, refusal
from .storage import TOKEN_LIFETIME_S, PostgresStorage, Storage, StorageError, open_storage
from .table import ResumeError, Table, ledger_of, room_rules

__all__ = ["Server", "ServerConfig", "Session", "BOT_NAMES", "CLOSE_REPLACED", "STATUS_MODES"]

log = logging.getLogger("ddz.server")
STATIC = Path(__file__).with_name("static")
_MAX_BUFFERED = 1 << 20  # bytes written to a connection and not yet taken by its peer
# the server bots' seats: system accounts (no token, a grant of 0), the same few at every table
BOT_NAMES = ("~bot-1", "~bot-2", "~bot-3")
CLOSE_REPLACED = 4001  # the close code of a connection whose account logged in on another one
STATUS_MODES = ("off", "local", "public")  # who is answered GET /api/status
# Sent with every HTTP response. The page is its own files only: no inline script or style, no
# string-to-HTML sinks (Trusted Types: an innerHTML assignment throws), no <base>, no plugins,
# not framed; its WebSocket and record downloads go to this server only.
SECURITY_HEADERS = (
    ("Content-Security-Policy",
     "default-src 'none'; script-src 'self'; style-src 'self'; font-src 'self'; img-src 'self'; "
     "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'; "
     "require-trusted-types-for 'script'; trusted-types 'none'"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
)


@dataclass
class ServerConfig:
    """What the host chooses. Times in seconds.

    ``move_timeout_s``: None = the rules' ``move_timeout_s`` (30 s, docs/rules.md §9). ``grace_s``: how long
    a disconnected seat is played by a bot and kept for its player before it is an escape.
    ``starting_coins``: the grant of a new account in the ``coins`` ledger. ``bot_tables``:
    whether ``join`` with ``"bots": true`` seats a player at once with server bots.
    ``max_message_bytes`` / ``rate`` / ``burst``: per-connection limits (an over-limit message
    gets an error and is dropped). ``match_interval_s``: how often the matchmaker runs.
    ``cluster``: several processes share one PostgreSQL database (ddz.server.cluster);
    ``public_url`` is where clients reach this process (default ``ws://host:port/ws``);
    ``cluster_dead_s``: a process whose heartbeat (one per ``match_interval_s``) is older is
    gone: the first of the others to see it takes its live hands over and resumes them
    from their logs (docs/server.md, "Durable hands"); a hand that cannot be resumed is void.
    ``signup_limit`` / ``signup_window_s``: new accounts per client address: ``signup_limit``
    at once, then one more every ``signup_window_s / signup_limit`` seconds (either 0: no limit).
    ``status``: who gets ``GET /api/status``: ``"off"`` (nobody), ``"local"`` (clients on a
    loopback address) or ``"public"``.
    ``origins``: the browser origins (``https://ddz.example``) whose pages may open a WebSocket;
    empty: only the server's own, the origin whose host is the request's ``Host``. A handshake
    without ``Origin`` (programs, not browsers) is always allowed. ``token_lifetime_s``: how long
    a token works; a connection's token is renewed (a ``token`` message) once a quarter of its
    lifetime has passed.
    ``bot``: what plays the bot seats and the seats of absent players: ``"rules"`` (``RuleBot``),
    ``"neural"`` (``NeuralBot``), ``"search"`` (``SearchBot``) or ``"nsearch"``
    (``NeuralSearchBot``, the model searched) for every variant, or a kind per
    variant (``{"classic": "neural"}``; a variant left out: rules). ``models``: model files (or
    ``NeuralModel`` values), each played by the neural or nsearch bots of its own variant instead of the
    model shipped with ddz (``ddz.server.bots``). Checked and loaded once, by ``Server(config)``.
    ``resume_grace_s``: after a restart (or a takeover) a resumed hand's seats are kept this
    long for their players before the room's bot plays them, and the open decision's clock
    gets this much more. ``drain_timeout_s``: how long ``drain`` (SIGTERM, SIGINT) lets the
    live hands play on before it stops (docs/server.md, "Starting and stopping").
    ``sqlite_synchronous``: ``"full"`` (a commit is on the disk before anyone is told of it) or
    ``"normal"`` (in the OS's cache: safe from a process crash, not from a power loss).
    ``hand_log``: False only to measure what the log costs: no hand is logged, and a hand left
    live by a stop or a crash cannot be resumed (it is void). ``metrics``: who gets
    ``GET /metrics`` (Prometheus's format), as ``status`` for ``/api/status``.
    ``search_nodes``: the ``"search"`` and ``"nsearch"`` bots' node limit for the exact search of
    each sampled deal (``SearchBot(time_per_move=None, node_limit=search_nodes)``,
    ``NeuralSearchBot(model, node_limit=search_nodes)``: a decision depends on no clock).
    ``bot_threads``: the threads on which the bots other than ``"rules"`` think,
    off the event loop (``Table._bot_move``): a table waits for its own bot, no other table does.
    A bot's thinking is bounded by the move clock (past it the seat times out); a bot that
    raises or answers an illegal action has that decision played by ``RuleBot``.
    ``ping_interval_s``: a connection silent this long (no frame from it) is pinged; one whose
    ping goes ``ping_timeout_s`` unanswered is closed (ddz.server.keepalive; 0: no pings).
    """
    db: str = field(default_factory=lambda: default_db())
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
    origins: Tuple[str, ...] = ()      # browser origins allowed to open /ws; empty: the server's own
    token_lifetime_s: float = TOKEN_LIFETIME_S
    rooms: Tuple[str, ...] = ("novice", "intermediate", "advanced", "score", "coin_junior", "bengbu", "bengbu_300")
    cluster_dead_s: float = 10.0
    signup_limit: int = 20
    signup_window_s: float = 3600.0
    status: str = "local"
    bot: BotChoice = "rules"
    models: Tuple[Any, ...] = ()
    resume_grace_s: float = 15.0
    drain_timeout_s: float = 60.0
    sqlite_synchronous: str = "full"
    hand_log: bool = True
    log_gather_s: float = 0.02         # the hand log writes a batch once its first row is this old
    metrics: str = "local"
    search_nodes: int = 4000
    ping_interval_s: float = 20.0
    ping_timeout_s: float = 20.0
    bot_threads: int = 1


def default_db(make: bool = False) -> str:
    """The SQLite file a server uses when none is named: ``DATA/ddz-server.sqlite3``, DATA
    being ``$DDZ_DATA_DIR``, else ``$XDG_DATA_HOME/ddz``, else ``~/.local/share/ddz``
    (``make``: created if missing, readable by its owner only), not the working directory."""
    data = os.environ.get("DDZ_DATA_DIR") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share"), "ddz")
    if make:
        os.makedirs(data, mode=0o700, exist_ok=True)
    return os.path.join(data, "ddz-server.sqlite3")


class SignupLimit:
    """New accounts per client address: a token bucket per address holding ``limit``, which
    refills at ``limit`` per ``window_s``. An address whose bucket is full again is forgotten,
    so the table holds only the addresses that made accounts lately."""

    def __init__(self, limit: int, window_s: float) -> None:
        self.limit = limit if window_s > 0 else 0  # 0: no limit
        self.rate = limit / window_s if window_s > 0 else 0.0
        self._buckets: Dict[str, Tuple[float, float]] = {}  # address -> (tokens, when)

    def _tokens(self, addr: str, now: float) -> float:
        tokens, then = self._buckets.get(addr, (float(self.limit), now))
        return min(float(self.limit), tokens + (now - then) * self.rate)

    def wait(self, addr: str, now: float) -> float:
        """Seconds until ``addr`` may make an account (0: now)."""
        if self.limit <= 0:
            return 0.0
        tokens = self._tokens(addr, now)
        return 0.0 if tokens >= 1 else (1 - tokens) / self.rate

    def take(self, addr: str, now: float) -> None:
        """``addr`` made an account."""
        if self.limit <= 0:
            return
        self._buckets[addr] = (self._tokens(addr, now) - 1, now)
        if len(self._buckets) > 4096:
            for a in [a for a in self._buckets if self._tokens(a, now) >= self.limit]:
                del self._buckets[a]


def text_frame(payload: bytes) -> bytes:
    """A whole WebSocket text frame from the server (RFC 6455 §5.2: FIN, opcode 1, unmasked, the
    payload's length in 7, 7+16 or 7+64 bits) holding ``payload`` (UTF-8)."""
    n = len(payload)
    if n < 126:
        return bytes((0x81, n)) + payload
    if n < 1 << 16:
        return bytes((0x81, 126)) + n.to_bytes(2, "big") + payload
    return bytes((0x81, 127)) + n.to_bytes(8, "big") + payload


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
        self.closed = False                      # nothing more is sent to it, nothing more read from it
        self.token: Optional[str] = None          # the token it logged in with (or was renewed to)
        self.token_expires = 0.0
        self.renewal: Optional[asyncio.TimerHandle] = None
        self.heard = time.monotonic()             # when a frame was last read from it (ddz.server.keepalive)
        self.pinged: Optional[float] = None       # when its unanswered keepalive ping went out

    def send(self, msg: Dict[str, Any]) -> None:
        """Writes ``msg`` to the connection now, in order, as one text frame on the transport
        (``text_frame``): without the coroutine and task per message that ``ws.send`` costs (a
        tenth of the server's time, once) nor the library's frame object and checks per message
        that ``websockets.broadcast`` costs (half the time of a message's write, measured). Safe
        because the server's frames are whole (never fragmented, no extension: compression is
        off) and written only while the connection is open, as ``broadcast`` checks. The price is
        no backpressure, so a peer that leaves too much unread is let go."""
        if self.closed:
            return
        ws = self.ws
        transport = ws.transport
        if transport is None or ws.protocol.state is not State.OPEN:
            return  # closing: nothing more is sent (its close handshake is the library's)
        if transport.get_write_buffer_size() > _MAX_BUFFERED:
            self.closed = True
            asyncio.get_running_loop().create_task(ws.close(1008, "not reading its messages"))
            return
        transport.write(text_frame(dumps(msg).encode()))


class Server:
    """``Server(config)``; ``await start(host, port)``, ``await stop()``. See docs/protocol.md."""

    def __init__(self, config: Optional[ServerConfig] = None, storage: Optional[Storage] = None) -> None:
        self.config = config or ServerConfig()
        for what in ("status", "metrics"):
            if getattr(self.config, what) not in STATUS_MODES:
                raise ValueError(f"{what} must be one of {', '.join(STATUS_MODES)}, not {getattr(self.config, what)!r}")
        if storage is None and self.config.db == default_db():
            default_db(make=True)
        self.storage = storage or open_storage(self.config.db, self.config.sqlite_synchronous)
        self.signups = SignupLimit(self.config.signup_limit, self.config.signup_window_s)
        self.rooms: Dict[str, Room] = {name: ROOMS[name] for name in self.config.rooms}
        # the bot of each room's bot seats, every model loaded and checked here, once (ModelError)
        self.bots: Dict[str, Bot] = room_bots(self.rooms, self.config.bot, self.config.models,
                                              search_nodes=self.config.search_nodes)
        # where the bots that take more than microseconds think (SearchBot, NeuralBot): not on the loop
        self.bot_pool = ThreadPoolExecutor(max(1, self.config.bot_threads), thread_name_prefix="ddz-bot")
        self.bot_kinds: Dict[str, str] = bot_kinds(self.rooms, self.config.bot)
        # the handler of each client message type (protocol.CLIENT_TYPES: every one, no other)
        self._handlers: Dict[str, Any] = {kind: getattr(self, "_on_" + kind) for kind in CLIENT_TYPES}
        # what it keeps, by owner (ddz.server.house): the people (connections, queues) and the hands
        self.lobby = Lobby(self.rooms, self.config.stage2_after_s, self.config.stage3_after_s)
        self.tables = Tables()
        self._ws_server: Any = None
        self._match_task: Optional["asyncio.Task[None]"] = None
        self.port: Optional[int] = None
        self.cluster: Any = None
        self.gc_pauses = GcPauses()
        self.loop_lag = LoopLag()
        self.keepalive = Keepalive(lambda: self.lobby.connections, self.config.ping_interval_s,
                                   self.config.ping_timeout_s)
        self.metrics = Metrics(self)
        self.journal: Any = NoJournal()
        if self.config.hand_log:
            journal = self.journal = Journal(self.storage, self.config.host_id, self.config.log_gather_s)
            journal.on_batch, journal.on_error = self.metrics.batch, self.metrics.storage_error
        self.draining = False
        self.stopped = False
        self._cut = False                # drain: stop waiting now (a second signal)
        self._resume_task: Optional["asyncio.Task[None]"] = None
        self.resumed = 0                 # hands resumed since the start
        self.voided = 0                  # hands void since the start (resumes that could not be)

    # ---- life cycle ----
    async def start(self, host: str = "127.0.0.1", port: int = 8000) -> None:
        """Binds the port first (``OSError`` if it cannot: nothing else was touched), then claims
        and opens the database (``StorageError`` if another server holds it or it cannot be
        opened), and only then serves. Alone on its database (the claim proves every earlier
        server of it has stopped) it resumes the hands they left live, serving meanwhile."""
        if self.config.cluster and not isinstance(self.storage, PostgresStorage):
            raise StorageError("cluster mode needs a PostgreSQL database (--db postgresql://…)")
        self._ws_server = await serve(self._handle, host, port, process_request=self._http,
                                      max_size=self.config.hard_max_bytes,
                                      ping_interval=None,  # ddz.server.keepalive pings the silent ones
                                      process_response=_secure_headers,
                                      compression=None,  # deflate costs more CPU than the small frames save (and Session.send writes plain frames)
                                      start_serving=False)  # bound, not yet accepting: the database comes first
        self.port = self._ws_server.sockets[0].getsockname()[1]
        try:
            await self.storage.claim(shared=self.config.cluster)
            await self.storage.open()
            if not self.config.cluster:  # every hand left live is this server's to resume
                await self.storage.adopt_live_hands(self.config.host_id)
                await self.load_resumes()
            for bot in BOT_NAMES:
                await self.storage.ensure_system_account(bot)
        except BaseException:
            self._ws_server.close()
            await self._ws_server.wait_closed()
            self._ws_server = None
            await self.storage.close()
            raise
        self.journal.start()
        await self._ws_server.server.start_serving()
        self.gc_pauses.install()
        self.loop_lag.start()
        self.keepalive.start()
        loop = asyncio.get_running_loop()
        if self.config.cluster:
            from . import cluster
            self.cluster = cluster.Cluster(self, self.config.public_url or f"ws://{host}:{self.port}/ws")
            await self.cluster.open()
            self._match_task = loop.create_task(cluster.run(self.cluster, self.config.match_interval_s))
        else:
            self._match_task = loop.create_task(self._match_loop())
        self.start_resuming()

    async def drain(self, timeout: Optional[float] = None) -> None:
        """A planned stop (``ddz serve`` on SIGTERM or SIGINT): no new table is seated (``join``
        gets ``error`` ``draining``), the live hands play on until they end or ``timeout``
        (``drain_timeout_s``) passes, then ``stop``."""
        self.draining = True
        if self.cluster is not None:
            await self.cluster.drain()
        limit = self.config.drain_timeout_s if timeout is None else timeout
        loop = asyncio.get_running_loop()
        end = loop.time() + limit
        n = self.live_tables()
        if n:
            log.info("draining: %d hands in play, waiting up to %g s", n, limit)
        while (self.live_tables() or self.tables.to_resume) and loop.time() < end and not self._cut:
            await asyncio.sleep(0.1)
        left = self.live_tables() + len(self.tables.to_resume)
        if left:
            log.warning("drain timeout: %d hands still in play %s", left,
                        "go to another process" if self.cluster is not None else "stay stored for the next start")
        await self.stop()

    def cut_drain(self) -> None:
        """``drain`` stops waiting for the hands in play: the server stops now."""
        self._cut = True

    def live_tables(self) -> int:
        return self.tables.playing()

    async def stop(self) -> None:
        """Stops now: every table stops where it is (its log stored: the next start on the
        database resumes it; in a cluster another process takes it over), then every
        connection is closed with 1001 (going away). No hand is void and no coin moves."""
        if self.stopped:
            return
        self.stopped = True
        self.draining = True
        self.gc_pauses.remove()
        self.loop_lag.stop()
        self.keepalive.stop()
        for task in (self._match_task, self._resume_task):
            if task is not None:
                task.cancel()
        for t in list(self.tables.values()):
            t.freeze()
        # no frozen table asks a bot again: decisions not begun are cancelled, one under way is
        # not waited for (its answer, if it comes, is dropped with its table)
        self.bot_pool.shutdown(wait=False, cancel_futures=True)
        finishing = [t._finishing for t in self.tables.values() if t._finishing is not None]
        if finishing:  # a hand being settled is settled (or not) whole; not longer than the journal's wait
            await asyncio.wait(finishing, timeout=10.0)
        if not await self.journal.flush(timeout=10.0):
            log.error("the hand log could not be written at the stop: those hands resume from their last stored event")
        if self.cluster is not None:
            await self.cluster.hand_over()
        if self._ws_server is not None:
            self._ws_server.close()
            await self._ws_server.wait_closed()
        await self.journal.stop()
        if self.cluster is not None:
            await self.cluster.close()
        await self.storage.close()

    # ---- resuming stored hands ----
    async def load_resumes(self, ids: Optional[List[str]] = None) -> int:
        """Reads this process's live hands (or those of ``ids``) to resume: each is resumed by
        ``start_resuming``'s task, or at once when one of its players says hello."""
        got = 0
        for hand in await self.storage.live_hands(self.config.host_id, ids):
            if self.tables.plan_resume(hand, [p for p in hand.players if p not in BOT_NAMES]):
                got += 1
        return got

    def start_resuming(self) -> None:
        if self.tables.to_resume and (self._resume_task is None or self._resume_task.done()):
            self._resume_task = asyncio.get_running_loop().create_task(self._resume_all())

    async def _resume_all(self) -> None:
        """Resumes the hands read by ``load_resumes``, yielding to the loop between tables (the
        server seats and answers meanwhile)."""
        t0 = time.perf_counter()
        n = 0
        while self.tables.to_resume:
            await self.resume(next(iter(self.tables.to_resume)))
            n += 1
            await asyncio.sleep(0)
        if n:
            log.info("resumed %d hands in %.2f s", n, time.perf_counter() - t0)

    async def resume(self, hand_id: str) -> Optional[Table]:
        """One stored live hand, read by ``load_resumes``: its table again, or (it cannot be
        resumed: a broken log, rules this server does not have) void, with a one-line reason in
        the log, its players told."""
        hand = self.tables.take_resume(hand_id)
        if hand is None:
            return self.tables.get(hand_id)
        try:
            t = Table.restore(hand, self.config.resume_grace_s, self.rooms, self._table_args)
        except ResumeError as e:
            log.error("hand %s cannot be resumed and is void: %s", hand_id, e)
            self.voided += 1
            self.metrics.hand("void")
            told = [p for p in hand.players if p in self.lobby.sessions]
            try:
                await self.storage.void_hand(hand_id, told)
                if self.cluster is not None:
                    await self.cluster.note_void(hand_id, hand.players)
            except Exception:
                log.exception("hand %s: storing it void failed", hand_id)
            for p in told:
                self.lobby.sessions[p].send({"type": "void", "table": hand_id,
                                       "message": "the hand could not be resumed after its server stopped: "
                                                  "it is void, no coin moved"})
            return None
        except Exception:  # pragma: no cover - a bug: that hand alone is left for the next start
            log.exception("hand %s: resuming it failed", hand_id)
            return None
        self.tables.add(t, [p for seat, p in enumerate(t.players) if seat not in t.robots])
        self.resumed += 1
        self.metrics.hand("resumed")
        self._watch(t)
        t.resumed(self.config.resume_grace_s)
        if self.cluster is not None:  # taken over: its players connected here reconnect to take their seats
            for p in t.players:
                sess = self.lobby.sessions.get(p)
                if sess is not None:
                    sess.send({"type": "redirect", "table": t.id, "url": self.cluster.url})
        return t

    def table_lost(self, t: Table) -> None:
        """``t``'s hand went to another process (``Table.lost``): it is forgotten here, its
        connections told where it went (cluster)."""
        self._forget(t)
        for sess in t.sessions:
            if sess is not None:
                sess.seats.pop(t.id, None)
        if self.cluster is not None:
            self.cluster.tell_owner_later(t)

    # ---- HTTP ----
    async def _http(self, connection: ServerConnection, request: Request) -> Optional[Response]:
        url = urllib.parse.urlsplit(request.path)
        path = url.path
        if path == "/ws":
            return self._check_origin(request)
        if path == "/healthz":  # the process answers
            return _response(200, "ok\n", "text/plain")
        if path == "/readyz":  # it seats new tables: not while it drains nor while it resumes stored hands
            why = ("draining" if self.draining else f"resuming {len(self.tables.to_resume)} hands" if self.tables.to_resume
                   else "the hand log cannot be written" if self.journal.pending and self.journal.failing else None)
            return _response(503 if why else 200, f"{why or 'ready'}\n", "text/plain")
        if path == "/metrics" and self._allowed(self.config.metrics, connection):
            body = self.metrics.exposition()
            if body is None:
                return _response(501, "/metrics needs prometheus_client (pip install \".[server]\")\n", "text/plain")
            return _response(200, body, "text/plain; version=0.0.4")
        if path == "/api/status" and self._allowed(self.config.status, connection):
            status = {"host": self.config.host_id, "tables": len(self.tables), "connections": len(self.lobby.sessions),
                      "matchmaker": self.cluster.leader if self.cluster is not None else True,
                      "gc": self.gc_pauses.to_dict(), "loop_lag": self.loop_lag.to_dict()}
            return _response(200, json.dumps(status), "application/json")
        if path == "/api/rooms":
            return _response(200, json.dumps(self.room_list(), ensure_ascii=False), "application/json")
        if path.startswith("/records/"):
            return await self._record(path[len("/records/"):], urllib.parse.parse_qs(url.query), request.headers)
        if path == "/":
            path = "/index.html"
        f = (STATIC / path.lstrip("/")).resolve()
        if STATIC.resolve() in f.parents and f.is_file():
            ctype = mimetypes.guess_type(f.name)[0] or "application/octet-stream"
            return _response(200, f.read_bytes(), ctype)
        return _response(404, "not found\n", "text/plain")

    def _allowed(self, mode: str, connection: ServerConnection) -> bool:
        """``/api/status`` and ``/metrics`` (``ServerConfig.status``, ``.metrics``): off, for
        loopback clients, or for all; to whom it is not given it does not exist (404)."""
        if mode == "public":
            return True
        return mode == "local" and _is_loopback(connection.remote_address)

    def _check_origin(self, request: Request) -> Optional[Response]:
        """A browser's handshake (it sends ``Origin``) is accepted only from an allowed origin,
        so that another site's page cannot use the server in its visitors' name; programs send
        no ``Origin`` and are served."""
        origin = request.headers.get("Origin")
        if origin is None:
            return None
        allowed = self.config.origins
        if allowed:
            ok = _origin_key(origin) in {_origin_key(o) for o in allowed}
        else:  # the server's own: the page came from the host the browser asks for
            host = request.headers.get("Host", "")
            ok = _origin_key(origin) in (f"http://{host.lower()}", f"https://{host.lower()}")
        if ok:
            return None
        log.warning("WebSocket handshake from origin %.80r refused", origin)
        return _response(403, "this server does not accept WebSocket connections from that origin\n", "text/plain")

    async def _record(self, hand_id: str, query: Dict[str, List[str]], headers: Headers) -> Response:
        """``GET /records/<hand>`` with ``Authorization: Bearer <token>``: the hand's ``ddz-game``
        record, for its players only and only once it has ended (it holds every hidden card).
        A token in the URL (which lands in logs and histories) is refused."""
        if "token" in query or "name" in query:
            return _response(400, "credentials go in the Authorization header (Bearer token), not the URL\n",
                             "text/plain")
        scheme, _, token = headers.get("Authorization", "").partition(" ")
        name = await self.storage.token_owner(token.strip()) if scheme.lower() == "bearer" and token.strip() else None
        if name is None:
            return _response(403, "send your token: Authorization: Bearer <token>\n", "text/plain")
        row = await self.storage.hand(hand_id)
        if row is None or name not in row.players:
            return _response(404, "no such hand of yours\n", "text/plain")
        if row.status != "done" or row.record is None:
            return _response(409, f"the hand is {row.status}: no record to give\n", "text/plain")
        return _response(200, row.record, "application/json")

    def bot_for(self, room: Room) -> Bot:
        """The bot that plays a room's bot seats and its absent players' seats (shared by its
        tables: the bots are stateless between calls)."""
        return self.bots[room.name]

    def room_list(self) -> List[Dict[str, Any]]:
        out = []
        for name, room in self.rooms.items():
            d = {k: (str(v) if k in ("win_factor", "max_win_factor") and v is not None else v)
                 for k, v in vars(room).items() if not k.startswith("_") and v is not None}
            d["ledger"] = ledger_of(room)
            d["seats"] = room.players
            d["players"] = room.players  # the older name of seats, kept for the clients that read it
            d["matchmaking"] = name in self.lobby.matchmakers
            d["bot"] = self.bot_kinds[name]
            out.append(d)
        return out

    # ---- connections ----
    async def _handle(self, ws: ServerConnection) -> None:
        sess = Session(self, ws)
        self.lobby.opened(sess)
        try:
            async for frame in ws:
                if sess.closed:  # replaced, logged out or let go: nothing more it sends counts
                    break
                await self.on_frame(sess, frame)
        except ConnectionClosed:
            pass
        finally:
            sess.closed = True
            if sess.renewal is not None:
                sess.renewal.cancel()
            self._gone(sess)

    async def on_frame(self, sess: Session, frame: Any) -> None:
        """One frame from a connection: its answer, or one ``error`` (docs/protocol.md). Nothing
        a client sends closes the connection: a failure of the server's own (a bug, a database
        that is down) is logged and answered with ``internal``."""
        sess.heard = time.monotonic()
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
        if self.lobby.closed(sess):
            assert sess.name is not None
            self._unqueue(sess.name)

    async def _dispatch(self, sess: Session, msg: Dict[str, Any]) -> None:
        """A client message to its handler (``self._handlers``: one per type of
        ``protocol.CLIENT_TYPES``). A stranger (no ``hello`` yet) is served only ``_OPEN``'s: the
        rooms, nothing of who plays where (docs/server.md)."""
        kind = msg["type"]
        if sess.name is None and kind not in _OPEN:
            raise ProtocolError("no_account", f"{kind}: say hello (name and token) first")
        await self._handlers[kind](sess, msg)

    async def _on_ping(self, sess: Session, msg: Dict[str, Any]) -> None:
        sess.send({"type": "pong", "now": time.time()})

    async def _on_rooms(self, sess: Session, msg: Dict[str, Any]) -> None:
        sess.send({"type": "rooms", "rooms": self.room_list()})

    async def _on_tables(self, sess: Session, msg: Dict[str, Any]) -> None:
        sess.send({"type": "tables", "tables": [t.info() for t in self.tables.values() if not t.ended]})

    async def _on_spectate(self, sess: Session, msg: Dict[str, Any]) -> None:
        t = self.tables.get(msg["table"])
        if t is None:
            raise ProtocolError("no_table", f"no live table {msg['table'][:40]!r}")
        sess.watching.add(t.id)
        t.watch(sess)

    async def _on_unspectate(self, sess: Session, msg: Dict[str, Any]) -> None:
        if msg["table"] not in sess.watching:
            raise ProtocolError("not_watching", f"this connection does not watch table {msg['table'][:40]!r}")
        t = self.tables.get(msg["table"])
        if t is not None:
            t.forget(sess, None)
        sess.watching.discard(msg["table"])
        sess.send({"type": "unspectated", "table": msg["table"]})

    async def _on_logout(self, sess: Session, msg: Dict[str, Any]) -> None:
        assert sess.name is not None
        await self._logout(sess.name)

    async def _on_balances(self, sess: Session, msg: Dict[str, Any]) -> None:
        assert sess.name is not None
        sess.send({"type": "balances", "balances": await self.storage.balances(sess.name)})

    async def _on_join(self, sess: Session, msg: Dict[str, Any]) -> None:
        await self._join(sess, msg["room"], bool(msg.get("bots", False)))

    async def _on_leave_queue(self, sess: Session, msg: Dict[str, Any]) -> None:
        name = sess.name
        assert name is not None
        if self.cluster is not None:  # the shared queue decides, whichever process the join went through
            self.lobby.waiting.pop(name, None)
            if not await self.cluster.leave(name):  # seated by the matchmaker first, or never queued
                raise ProtocolError("not_queued", "you are not waiting for a table (matched: your table "
                                    "follows, here or by a redirect; or never queued)")
        elif name in self.lobby.waiting:
            self._unqueue(name)
        else:  # matched meanwhile (its "matched" is on the way), or never queued
            raise ProtocolError("not_queued", "you are not waiting for a table (matched, or never queued)")
        sess.send({"type": "left_queue"})

    async def _on_act(self, sess: Session, msg: Dict[str, Any]) -> None:
        t, seat = self._seat_for(sess, msg)
        reply = t.act(seat, msg["action"], msg.get("seq"))
        if reply is not None:
            self.metrics.action(False)
            sess.send(reply)

    async def _on_resume(self, sess: Session, msg: Dict[str, Any]) -> None:
        t, seat = self._seat_for(sess, msg)
        if sess.name is not None:
            self.tables.result_seen(sess.name, t)
        t.attach(seat, sess, msg.get("since"))

    async def _on_leave(self, sess: Session, msg: Dict[str, Any]) -> None:
        t, seat = self._seat_for(sess, msg)
        if t.ended or t.game.is_over:
            raise ProtocolError("not_playing", "the hand is over: there is nothing to leave")
        if seat in t.escaped:
            raise ProtocolError("not_playing", f"seat {seat} has left this hand already")
        t.escape(seat)
        sess.send({"type": "left", "table": t.id, "seat": seat})

    def _seat_for(self, sess: Session, msg: Dict[str, Any]) -> Tuple[Table, int]:
        t = self.tables.find(msg["table"])
        if t is None:
            raise ProtocolError("no_table", f"no live table {msg['table'][:40]!r}")
        seat = t.seat_of(msg["seat_token"])
        if seat is None or t.players[seat] != sess.name:
            raise ProtocolError("bad_token", "that seat token is not yours at this table")
        if t.sessions[seat] is not sess and msg["type"] != "resume" and not t.ended:  # an ended hand answers HAND_OVER
            raise ProtocolError("not_seated", "this connection does not hold the seat: send resume first")
        return t, seat

    async def _on_hello(self, sess: Session, msg: Dict[str, Any]) -> None:
        name = msg["name"]
        if sess.name is not None:
            raise ProtocolError("already", f"this connection is already {sess.name!r}")
        version = msg.get("v", PROTOCOL_VERSION)
        if version not in VERSIONS:
            raise ProtocolError("bad_version", f"protocol version {version} is not served: ask for one of "
                                + ", ".join(map(str, VERSIONS)))
        token = msg.get("token")
        fresh = None
        lifetime = self.config.token_lifetime_s
        if token is None:
            problem = name_problem(name)
            if problem is not None:
                raise ProtocolError("bad_name", problem)
            fresh = token = await self._sign_up(sess, name, lifetime)
            expires = time.time() + lifetime
        else:
            expiry = await self.storage.token_expiry(name, token)
            if expiry is None:
                # an account keeps the name it was made with, even one the rule for new names now refuses
                problem = name_problem(name) if not await self.storage.account_exists(name) else None
                if problem is not None:
                    raise ProtocolError("bad_name", f"no account has this name, and none can: {problem}")
                raise ProtocolError("bad_token", f"wrong or revoked token for {name!r} (a lost token: the "
                                    "server's operator issues a new one)")
            if expiry <= time.time():
                raise ProtocolError("token_expired", f"the token of {name!r} has expired; the name stays its "
                                    "owner's: the server's operator issues a new token")
            expires = expiry
            if expires - time.time() < 0.75 * lifetime:  # a quarter of its life gone: a fresh one
                fresh, expires = await self.storage.issue_token(name, lifetime)
                token = fresh
        sess.token, sess.token_expires = token, expires
        if name in self.tables.resuming:  # its hand is stored and not yet resumed: now
            await self.resume(self.tables.resuming[name])
        elif self.cluster is not None and name not in self.tables.by_player:
            await self.cluster.adopt_for(name)  # a hand of its taken over by this process, not yet resumed
        sess.name = name
        sess.version = version
        old = self.lobby.login(name, sess)
        if old is not None:
            self._replace(old)
        voids = await self.storage.take_voids(name)
        out: Dict[str, Any] = {"type": "welcome", "v": version, "name": name,
                               "balances": await self.storage.balances(name), "rooms": self.room_list(),
                               "void_hands": voids, "now": time.time(), "token_expires": expires}
        if fresh is not None:
            out["token"] = fresh
        t = self.tables.of_player(name)
        if t is not None:
            seat = t.players.index(name)
            out["table"] = {"table": t.id, "seat": seat, "seat_token": t.tokens[seat], "seq": t.seq,
                            "over": t.ended}
        sess.send(out)
        self._plan_renewal(sess)

    # ---- tokens ----
    def _plan_renewal(self, sess: Session) -> None:
        """Renews the connection's token when a quarter of its lifetime has passed (so that an
        account in use never expires): a ``token`` message with the new one."""
        due = sess.token_expires - 0.75 * self.config.token_lifetime_s - time.time()
        loop = asyncio.get_running_loop()
        sess.renewal = loop.call_later(max(due, 0.0), lambda: loop.create_task(self._renew(sess)))

    async def _renew(self, sess: Session) -> None:
        name, token = sess.name, sess.token
        if sess.closed or name is None or token is None:
            return
        try:
            if not await self.storage.check_token(name, token):  # revoked meanwhile (another process, the operator)
                self._close_logged_out(sess, "this account's token was revoked")
                return
            fresh, expires = await self.storage.issue_token(name, self.config.token_lifetime_s)
        except Exception:  # pragma: no cover - the database is away: try again later
            log.exception("renewing the token of %r failed", name)
            sess.renewal = asyncio.get_running_loop().call_later(
                60.0, lambda: asyncio.get_running_loop().create_task(self._renew(sess)))
            return
        if sess.closed:
            return
        sess.token, sess.token_expires = fresh, expires
        sess.send({"type": "token", "token": fresh, "expires": expires})
        self._plan_renewal(sess)

    async def _logout(self, name: str) -> None:
        """Every token of ``name`` stops working; each of its connections is told and closed."""
        await self.storage.revoke_tokens(name)
        for other in self.lobby.of(name):
            self._close_logged_out(other, "logged out: this account's tokens no longer work")

    def _close_logged_out(self, sess: Session, why: str) -> None:
        sess.send({"type": "logged_out", "message": why})
        sess.closed = True
        if sess.renewal is not None:
            sess.renewal.cancel()
        asyncio.get_running_loop().create_task(sess.ws.close(1000, "logged out"))

    async def _sign_up(self, sess: Session, name: str, lifetime: float) -> str:
        """A new account with the grant (``starting_coins``), within the address's signup limit;
        its first token works for ``lifetime`` seconds."""
        addr = (sess.ws.remote_address or ("?",))[0]
        now = time.monotonic()
        wait = self.signups.wait(addr, now)
        if wait > 0:
            raise ProtocolError("signup_limited", f"too many new accounts from your address: the next in "
                                f"{max(1, round(wait))} s (log in to an account you have with its token)")
        try:
            token = await self.storage.create_account(name, {"coins": self.config.starting_coins}, lifetime)
        except StorageError as e:
            raise ProtocolError("name_taken", f"{e}; to log in, send the account's name and its token") from None
        self.signups.take(addr, now)
        return token

    def _replace(self, old: Session) -> None:
        """``old`` held the account another connection has just logged in to: it is told
        ``replaced`` and closed (``CLOSE_REPLACED``); nothing it sends from now on is read, and
        its seats pass to a bot until the new connection resumes them."""
        old.send(error("replaced", "another connection logged in as this account; this one is closed"))
        old.closed = True
        asyncio.get_running_loop().create_task(old.ws.close(CLOSE_REPLACED, "replaced by another login"))

    # ---- queues and matchmaking ----
    async def _join(self, sess: Session, room_name: str, bots: bool) -> None:
        name = sess.name
        assert name is not None
        room = self.rooms.get(room_name)
        if room is None:
            raise ProtocolError("no_room", f"no room {room_name[:40]!r}: rooms are {', '.join(self.rooms)}")
        if self.draining:
            raise ProtocolError("draining", "this server is stopping: join again after its restart "
                                "(or through another server of its cluster)")
        if self.tables.seated(name):
            raise ProtocolError("seated", "you are seated at a table; finish or leave it first")
        if name in self.lobby.waiting and self.cluster is None:  # in a cluster the shared queue answers
            raise ProtocolError("queued", f"you already wait for room {self.lobby.waiting[name]!r}")
        if bots:
            if not self.config.bot_tables:
                raise ProtocolError("no_bots", "this server does not seat bots")
            tid = secrets.token_hex(8)
            if self.cluster is not None:  # seated in no other process, and from now on in none
                busy = await self.cluster.seat(name, room_name, tid)
                if busy is not None:
                    raise ProtocolError(busy, _BUSY[busy])
            try:
                await self._open_table(room, [name, *BOT_NAMES[:room.players - 1]], set(range(1, room.players)), tid)
            except BaseException:
                if self.cluster is not None:  # the account is not seated after all
                    await self.cluster.release(tid)
                raise
            return
        if self.cluster is not None:
            won, completed = await self.storage.stats(name)
            coins = (await self.storage.balances(name))["coins"]
            busy = await self.cluster.join(name, room_name, coins, won, completed)
            if busy is not None:  # waiting or seated, through this process or another
                raise ProtocolError(busy, _BUSY[busy])
            self.lobby.waiting[name] = room_name
            sess.send({"type": "queued", "room": room_name})
            return
        won = completed = coins = 0
        if room_name in self.lobby.matchmakers:  # CLASSIC3's tiers seat by coins and record
            won, completed = await self.storage.stats(name)
            coins = (await self.storage.balances(name))["coins"]
        if sess.closed:  # gone while its record was read: it waits for nothing
            return
        self.lobby.wait(name, room_name, coins, won, completed, now=time.monotonic())
        sess.send({"type": "queued", "room": room_name})
        await self._match_once()

    def _unqueue(self, name: str) -> None:
        """``name`` waits no more (``leave_queue``, or its connection closed). In a cluster the
        waiting row this process wrote for it is deleted (soon: a task), whatever ``waiting``
        says; a row the matchmaker seated stays."""
        if self.cluster is not None:
            self.lobby.waiting.pop(name, None)
            self.cluster.leave_later(name)
            return
        self.lobby.unqueue(name)

    async def _match_loop(self) -> None:
        while True:
            await asyncio.sleep(self.config.match_interval_s)
            try:
                await self._match_once()
            except Exception:  # pragma: no cover - logged, the loop must live on
                log.exception("matchmaking round failed")

    async def _match_once(self) -> None:
        if self.draining:
            return
        # every matched player stops waiting at once (Lobby.match), before the first table opens
        for room_name, group in self.lobby.match(time.monotonic(), {r: room.players for r, room in self.rooms.items()}):
            await self._open_table(self.rooms[room_name], group, set())

    async def _open_table(self, room: Room, players: List[str], bot_seats: Set[int],
                          table_id: Optional[str] = None) -> Table:
        ledger = ledger_of(room)
        coins = [self.bot_stake(ledger) if seat in bot_seats else (await self.storage.balances(p))[ledger]
                 for seat, p in enumerate(players)]
        tid = table_id or secrets.token_hex(8)
        t = Table(tid, room, players, bot_seats, coins, **self._table_args(room))
        await self.storage.start_hand(tid, room.name, room.variant, players, self.config.host_id,
                                      t.start_record() if self.config.hand_log else None)
        self.tables.add(t, [p for seat, p in enumerate(players) if seat not in bot_seats])
        self._watch(t)
        for seat, p in enumerate(players):
            if seat in bot_seats:
                continue
            sess = self.lobby.sessions.get(p)
            if sess is not None:
                t.sessions[seat] = sess
                sess.seats[tid] = seat
                sess.send({"type": "matched", "table": tid, "room": room.name, "variant": room.variant,
                           "seat": seat, "seat_token": t.tokens[seat], "players": players})
            else:  # gone while it was matched: a bot plays it for the grace period
                t.go_absent(seat)
        t.start()
        return t

    def _table_args(self, room: Room) -> Dict[str, Any]:
        """What a table of ``room`` is made with (``Table``: it knows no server)."""
        return {"config": self.config, "bot": self.bot_for(room), "journal": self.journal, "store": self.storage,
                "pool": self.bot_pool}

    def _watch(self, t: Table) -> None:
        """The server hears a table's events: the end of its hand, its loss, its answers' times,
        what became of its bots' answers."""
        t.on_end, t.on_lost, t.on_answered = self.table_done, self.table_lost, self._answered
        t.on_bot = self.metrics.bot

    def _answered(self, seconds: float) -> None:
        """A table sent the update of a player's action, ``seconds`` after it was read."""
        self.metrics.action(True, seconds)

    def bot_stake(self, ledger: str) -> int:
        """What a server bot's seat holds for ``settle``, whatever its account's balance: a new
        account's grant (``starting_coins`` in ``coins``, 0 in the other ledgers)."""
        return self.config.starting_coins if ledger == "coins" else 0

    def _forget(self, t: Table) -> None:
        """``t`` is no longer played here: out of the tables, its players' and spectators'."""
        self.tables.forget(t)
        for watcher in list(t.spectators):
            watcher.watching.discard(t.id)

    def table_done(self, t: Table) -> None:
        for watcher in list(t.spectators):
            watcher.watching.discard(t.id)
        if t.result_msg is not None and t.result_msg["type"] == "result":
            self.metrics.hand("finished")
        else:  # its settlement could not be stored
            self.metrics.hand("void")
            self.metrics.storage_error()
        away = []  # not connected at the end: the result waits for their resume
        for seat, seated in enumerate(t.sessions):
            if seated is not None:
                seated.seats.pop(t.id, None)
            elif seat not in t.robots:
                away.append(t.players[seat])
        self.tables.ended(t, away)
        if self.cluster is not None:  # its players may join again, in any process
            self.cluster.release_later(t.id)
        asyncio.get_running_loop().call_later(self.config.grace_s, self.tables.drop_finished, t)


# what a connection may send before its hello
_OPEN = frozenset({"ping", "hello", "rooms"})

_BUSY = {"queued": "you already wait for a table (on this server or another of its cluster)",
         "seated": "you are seated at a table (on this server or another of its cluster); finish or leave it first"}


def _is_loopback(address: Any) -> bool:
    try:
        ip = ipaddress.ip_address(address[0])
    except (TypeError, ValueError, IndexError):
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return (mapped or ip).is_loopback


def _origin_key(origin: str) -> str:
    """An origin compared as browsers send it: scheme and host lower case, no trailing slash."""
    return origin.strip().rstrip("/").lower()


_HOST = re.compile(r"[A-Za-z0-9.\-]+(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?")


def _secure_headers(connection: ServerConnection, request: Request, response: Response) -> None:
    """Adds ``SECURITY_HEADERS`` to every HTTP response: files, errors and the handshake's.
    ``connect-src`` also names this host's ``ws:``/``wss:`` origin, which CSP level 3 counts as
    'self' but older browsers do not (only for a plain host name: nothing else enters a header)."""
    host = request.headers.get("Host", "")
    for key, value in SECURITY_HEADERS:
        if key == "Content-Security-Policy" and _HOST.fullmatch(host):
            value = value.replace("connect-src 'self'", f"connect-src 'self' ws://{host} wss://{host}")
        if key not in response.headers:
            response.headers[key] = value


def _response(status: int, body: Any, ctype: str) -> Response:
    data = body.encode() if isinstance(body, str) else body
    reason = {200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found", 409: "Conflict"}.get(status, "")
    headers = Headers([("Content-Type", ctype + ("; charset=utf-8" if ctype.startswith(("text/", "application/json"))
                                                   or ctype.endswith("javascript") else "")),
                       ("Content-Length", str(len(data))), ("Cache-Control", "no-store")])
    return Response(status, reason, headers, data)
