"""``ddz serve``: the command line of the table server (registered by ddz.cli).

It starts, or says in one line why it cannot (a port in use, a database it cannot open or
that another server holds) and exits 2; SIGINT and SIGTERM stop it the same way
(``Server.drain``: no new table, the hands in play finish within ``--drain-timeout``, then
every connection is closed with 1001; a second signal stops it at once). A hand left in play
stays stored: the next start (or another process of its cluster) resumes it.
"""
from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import signal
import sys
from typing import Any, Callable, Optional


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    sv = sub.add_parser("serve", help="run the table server and its browser client (docs/protocol.md)",
                        description="Serve tables of every variant over WebSocket (/ws) with the browser "
                                    "client at / ; needs the server extra (pip install \".[server]\"). "
                                    "SIGINT and SIGTERM stop it: no new table is seated, the hands in play "
                                    "finish (up to --drain-timeout; the rest resume at the next start), then "
                                    "the connections are closed (docs/server.md).")
    sv.add_argument("--host", default="127.0.0.1", help="the address to listen on (default %(default)s)")
    sv.add_argument("--port", type=int, default=8000, help="the port to listen on (default %(default)s; 0: any free)")
    sv.add_argument("--db", default=None,
                    help="SQLite file (created on first start; one server process owns it) or "
                         "postgresql://user@host/db (default DATA/ddz-server.sqlite3, DATA being $DDZ_DATA_DIR, "
                         "else $XDG_DATA_HOME/ddz, else ~/.local/share/ddz; made if missing)")
    sv.add_argument("--grace", type=float, default=30.0, dest="grace_s", metavar="SECONDS",
                    help="seconds a disconnected seat is kept (a bot plays it) before it is an escape "
                         "(default %(default)s)")
    sv.add_argument("--move-timeout", type=float, default=None, dest="move_timeout_s", metavar="SECONDS",
                    help="seconds per decision (default: the rules' move_timeout_s, 30)")
    sv.add_argument("--starting-coins", type=int, default=10_000, dest="starting_coins", metavar="N",
                    help="the coins a new account is granted (the other ledgers start at 0; accounts made "
                         "before keep theirs) (default %(default)s)")
    sv.add_argument("--signup-limit", type=int, default=20, dest="signup_limit", metavar="N",
                    help="new accounts one client address may make at once, then one every "
                         "--signup-window / N seconds (0: no limit) (default %(default)s)")
    sv.add_argument("--signup-window", type=float, default=3600.0, dest="signup_window_s", metavar="SECONDS",
                    help="the time in which an address's --signup-limit comes back whole (default %(default)s)")
    sv.add_argument("--bot-delay", type=float, default=0.6, dest="bot_delay_s", metavar="SECONDS",
                    help="seconds a bot waits before it acts (default %(default)s)")
    sv.add_argument("--bot", action="append", default=[], dest="bots", metavar="[VARIANT=]KIND",
                    help="what plays the bot seats and absent players' seats: rules (RuleBot), neural (NeuralBot "
                         "playing the model shipped with ddz for the variant, or --model), search (SearchBot, "
                         "--search-nodes) or nsearch (NeuralSearchBot: the model searched over sampled deals, "
                         "--search-nodes); VARIANT=KIND for one "
                         "variant (classic, twop, bengbu), a later --bot overriding an earlier one, e.g. --bot "
                         "classic=neural (default rules everywhere)")
    sv.add_argument("--model", action="append", default=[], dest="models", metavar="PATH",
                    help="a model file (.npz, from ddz train) for the neural or nsearch bots of its own variant, instead of the "
                         "shipped one; repeat for more variants (default: the shipped models)")
    sv.add_argument("--search-nodes", type=int, default=4000, dest="search_nodes", metavar="N",
                    help="the search and nsearch bots' node limit for the exact search of each sampled deal (default "
                         "%(default)s)")
    sv.add_argument("--bot-threads", type=int, default=1, dest="bot_threads", metavar="N",
                    help="threads on which the neural, search and nsearch bots think, off the event loop: a table waits "
                         "for its own bot, no other table does (1 to 64, default %(default)s)")
    sv.add_argument("--no-bot-tables", action="store_false", dest="bot_tables",
                    help="refuse join with bots, players wait for people (default: join with bots is served)")
    sv.add_argument("--rate", type=float, default=20.0,
                    help="messages a second a connection may send on average (default %(default)s)")
    sv.add_argument("--burst", type=int, default=40,
                    help="messages a connection may send at once (default %(default)s)")
    sv.add_argument("--status", default="local", choices=("off", "local", "public"),
                    help="who gets GET /api/status: nobody, clients on a loopback address, or anyone "
                         "(default %(default)s)")
    sv.add_argument("--metrics", default="local", choices=("off", "local", "public"),
                    help="who gets GET /metrics (Prometheus's text format): nobody, clients on a loopback address, "
                         "or anyone (default %(default)s)")
    sv.add_argument("--log-format", default="text", choices=("text", "json"), dest="log_format",
                    help="the log on stderr: lines of text, or one JSON object a line (time, level, logger, "
                         "message) (default %(default)s)")
    sv.add_argument("--access-log", action="store_true", dest="access_log",
                    help="log every WebSocket connection's opening and closing (default: off)")
    sv.add_argument("--cluster", action="store_true",
                    help="share the queue and matchmaking with other processes on the same PostgreSQL --db "
                         "(default: alone on the database)")
    sv.add_argument("--public-url", default=None, dest="public_url",
                    help="this process's WebSocket URL for redirects (default ws://HOST:PORT/ws)")
    sv.add_argument("--match-interval", type=float, default=0.5, dest="match_interval_s", metavar="SECONDS",
                    help="seconds between matchmaking rounds; in cluster mode also between heartbeats "
                         "(default %(default)s)")
    sv.add_argument("--cluster-timeout", type=float, default=10.0, dest="cluster_dead_s", metavar="SECONDS",
                    help="cluster mode: a process without a heartbeat for this long is gone, and another "
                         "takes its live hands over and resumes them (default %(default)s)")
    sv.add_argument("--drain-timeout", type=float, default=60.0, dest="drain_timeout_s", metavar="SECONDS",
                    help="on SIGTERM / SIGINT, how long the hands in play may go on before the server stops "
                         "anyway (they stay stored and resume at the next start; in a cluster another process "
                         "takes them); within systemd's default TimeoutStopSec of 90 s (default %(default)s)")
    sv.add_argument("--resume-grace", type=float, default=15.0, dest="resume_grace_s", metavar="SECONDS",
                    help="after a restart or a takeover, how long a resumed hand's seats wait for their "
                         "players before the room's bot plays them; the open decision's clock gets as much "
                         "more (default %(default)s)")
    sv.add_argument("--sqlite-sync", default="full", choices=("full", "normal"), dest="sqlite_synchronous",
                    help="SQLite's PRAGMA synchronous: full (every action is on the disk before anyone is told "
                         "of it) or normal (in the OS's cache: a crash of the server loses none, a power loss "
                         "may lose the last ones; docs/server.md gives the cost) (default %(default)s)")
    sv.add_argument("--no-hand-log", action="store_false", dest="hand_log",
                    help="for measurements only: do not log the hands' actions (a hand left live by a stop or "
                         "a crash is then void, not resumed) (default: every action is logged)")
    sv.add_argument("--log-gather", type=float, default=0.02, dest="log_gather_s", metavar="SECONDS",
                    help="the hand log writes its rows in one transaction once the first of them is this old: "
                         "under load one commit stores many actions, at the price of that wait before each "
                         "action's answer (0: at once; default %(default)s)")
    sv.add_argument("--ping-interval", type=float, default=20.0, dest="ping_interval_s", metavar="SECONDS",
                    help="ping a connection once it has sent nothing for this long (0: never ping) "
                         "(default %(default)s)")
    sv.add_argument("--ping-timeout", type=float, default=20.0, dest="ping_timeout_s", metavar="SECONDS",
                    help="close a connection whose ping has gone this long without its pong (default %(default)s)")
    sv.add_argument("--loop", default="auto", choices=("auto", "uvloop", "asyncio"),
                    help="the event loop: uvloop's when installed (auto), or asyncio's (default %(default)s)")
    sv.add_argument("--origin", action="append", default=[], dest="origins", metavar="URL",
                    help="a browser origin (https://ddz.example) whose pages may open the WebSocket; repeat for "
                         "more (default: the server's own, the request's Host); clients that send no Origin "
                         "(programs) are always served")
    sv.add_argument("--token-days", type=float, default=90.0, dest="token_days", metavar="DAYS",
                    help="days a token works (default %(default)s); a connection's token is renewed once a "
                         "quarter of that has passed")
    sv.add_argument("--reset-token", default=None, dest="reset_token", metavar="NAME",
                    help="do not serve: revoke every token of the account NAME in --db, print a new one and exit "
                         "(for an owner whose token was lost, expired or logged out; default: serve)")
    sv.add_argument("--gc-threshold", type=int, default=None, dest="gc_threshold", metavar="N",
                    help="the garbage collector's first threshold (default: Python's, 700): larger means "
                         "fewer, longer young collections and fewer objects promoted to the full ones")
    sv.add_argument("--gc-young", type=float, default=0.25, dest="gc_young_s", metavar="SECONDS",
                    help="collect the young generations this often (0: by Python's thresholds only; "
                         "docs/server.md) (default %(default)s)")
    sv.add_argument("--gc-full", type=float, default=600.0, dest="gc_full_s", metavar="SECONDS",
                    help="run a full collection this often (0: when Python's rule says) (default %(default)s)")
    sv.set_defaults(func=run)


class _JsonLines(logging.Formatter):
    """One JSON object a line: ``time`` (ISO 8601, UTC), ``level``, ``logger``, ``message``,
    and ``error`` (the traceback) when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        import datetime
        import json
        out = {"time": datetime.datetime.fromtimestamp(record.created, datetime.timezone.utc).isoformat(
                   timespec="milliseconds"),
               "level": record.levelname.lower(), "logger": record.name, "message": record.getMessage()}
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def _log_setup(fmt: str, access: bool) -> None:
    """The log on stderr, as text lines or JSON lines; the WebSocket library's line per
    connection opened and closed (an access log) only with ``--access-log``."""
    handler = logging.StreamHandler()
    handler.setFormatter(_JsonLines() if fmt == "json" else
                         logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
    logging.getLogger("websockets.server").setLevel(logging.INFO if access else logging.WARNING)


def _fail(message: str) -> int:
    print(f"ddz serve: {message}", file=sys.stderr)
    return 2


def _bind_error(host: str, port: int, e: OSError) -> str:
    """One line for a port the server cannot listen on."""
    if e.errno == errno.EADDRINUSE:
        why = "the address is in use (another server listens there: stop it or choose another --port)"
    elif e.errno == errno.EACCES:
        why = "permission denied (ports below 1024 need privileges: choose another --port)"
    elif e.errno == errno.EADDRNOTAVAIL:
        why = "no such address on this machine (check --host)"
    else:
        why = (e.strerror or str(e)).strip().splitlines()[0]
    return f"cannot listen on {host}:{port}: {why}"


def run(args: argparse.Namespace) -> int:
    try:
        from .app import Server, ServerConfig
        from .gc_policy import GcPolicy
        from .storage import StorageError, _safe_url
    except ImportError as e:  # the optional extra is missing
        return _fail(f"{e}; install the server extra: pip install \".[server]\"")
    if args.gc_threshold is not None and args.gc_threshold < 1:
        return _fail(f"--gc-threshold must be a positive number of objects, not {args.gc_threshold}")
    if args.gc_young_s < 0 or args.gc_full_s < 0:
        return _fail("--gc-young and --gc-full are seconds ≥ 0")
    if not (args.ping_interval_s >= 0 and args.ping_timeout_s > 0):
        return _fail("--ping-interval is seconds ≥ 0 and --ping-timeout seconds > 0")
    if args.drain_timeout_s < 0 or args.resume_grace_s < 0:
        return _fail("--drain-timeout and --resume-grace are seconds ≥ 0")
    if args.starting_coins < 0 or args.signup_limit < 0 or args.signup_window_s <= 0:
        return _fail("--starting-coins and --signup-limit are ≥ 0 and --signup-window is seconds > 0")
    if args.cluster and args.cluster_dead_s < 2 * args.match_interval_s:
        return _fail(f"--cluster-timeout ({args.cluster_dead_s:g} s) must be at least two heartbeats "
                     f"(--match-interval {args.match_interval_s:g} s)")
    try:
        from .bots import parse_bot
        bot_choice = parse_bot(args.bots)
    except ValueError as e:
        return _fail(f"--bot: {e}")
    if not 1 <= args.search_nodes < 2**63:
        return _fail(f"--search-nodes must be a positive count of nodes, not {args.search_nodes}")
    if not 1 <= args.bot_threads <= 64:
        return _fail(f"--bot-threads must be a count of 1 to 64 threads, not {args.bot_threads}")
    if not args.token_days > 0:
        return _fail(f"--token-days must be a positive number of days, not {args.token_days}")
    if args.reset_token is not None:
        if args.db is None:
            from .app import default_db
            args.db = default_db()
        return _reset_token(args.db, args.reset_token, args.token_days * 86400.0)
    for o in args.origins:
        if not o.startswith(("http://", "https://")) or o.rstrip("/").count("/") != 2:
            return _fail(f"--origin takes an origin such as https://ddz.example:8443, not {o!r}")
    _log_setup(args.log_format, args.access_log)
    from .app import default_db
    if args.db is None:
        args.db = default_db(make=True)
    cfg = ServerConfig(db=args.db, grace_s=args.grace_s, move_timeout_s=args.move_timeout_s,
                       starting_coins=args.starting_coins, bot_delay_s=args.bot_delay_s, bot_tables=args.bot_tables,
                       rate=args.rate, burst=args.burst, cluster=args.cluster, public_url=args.public_url,
                       match_interval_s=args.match_interval_s, cluster_dead_s=args.cluster_dead_s,
                       signup_limit=args.signup_limit, signup_window_s=args.signup_window_s, status=args.status,
                       bot=bot_choice, models=tuple(args.models), drain_timeout_s=args.drain_timeout_s,
                       resume_grace_s=args.resume_grace_s, sqlite_synchronous=args.sqlite_synchronous,
                       hand_log=args.hand_log, log_gather_s=args.log_gather_s, metrics=args.metrics,
                       search_nodes=args.search_nodes, bot_threads=args.bot_threads,
                       ping_interval_s=args.ping_interval_s, ping_timeout_s=args.ping_timeout_s)
    cfg.origins = tuple(args.origins)
    cfg.token_lifetime_s = args.token_days * 86400.0

    collector = GcPolicy(args.gc_young_s, args.gc_full_s, args.gc_threshold)
    try:
        srv = Server(cfg)
    except ValueError as e:  # a database URL it cannot use, a model it cannot play (ModelError)
        return _fail(str(e))

    async def main() -> None:
        # a start that fails is one line: not the library's lines of closing what it had bound
        ws_log = logging.getLogger("websockets.server")
        level = ws_log.level
        ws_log.setLevel(logging.WARNING)
        await srv.start(args.host, args.port)
        ws_log.setLevel(level)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()

        def on_signal() -> None:  # the first: drain; a second: stop now
            if stop.is_set():
                srv.cut_drain()
            stop.set()
        for sig in (signal.SIGINT, signal.SIGTERM):  # one way to stop, whichever signal asks
            try:
                loop.add_signal_handler(sig, on_signal)
            except (NotImplementedError, RuntimeError):  # pragma: no cover - no signal handlers (Windows)
                pass
        collector.start()
        print(f"ddz serve: http://{args.host}:{srv.port}/ (WebSocket /ws), database {_safe_url(srv.storage.url)}",
              flush=True)
        try:
            await stop.wait()
            print(f"ddz serve: draining ({srv.live_tables()} hands in play, up to {cfg.drain_timeout_s:g} s; "
                  "a second signal stops now)", flush=True)
            await srv.drain()
        finally:
            collector.stop()
            if not srv.stopped:
                await srv.stop()
        print("ddz serve: stopped", flush=True)

    try:
        _run_on(_loop_factory(args.loop), main())
    except KeyboardInterrupt:  # pragma: no cover - where signal handlers cannot be set
        pass
    except StorageError as e:  # held by another server, or it cannot be opened
        return _fail(str(e))
    except OSError as e:  # binding the port: nothing else was touched
        return _fail(_bind_error(args.host, args.port, e))
    return 0


def _run_on(factory: Optional[Callable[[], asyncio.AbstractEventLoop]], coro: Any) -> None:
    """``asyncio.run(coro)`` on a loop made by ``factory`` (None: asyncio's own), on every
    Python the package supports (``asyncio.Runner``, which takes a factory, is 3.11's)."""
    if factory is None:
        asyncio.run(coro)
        return
    loop = factory()
    try:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(coro)
    finally:
        try:
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for t in pending:
                t.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            asyncio.set_event_loop(None)
            loop.close()


def _loop_factory(kind: str) -> Optional[Callable[[], asyncio.AbstractEventLoop]]:
    """The event loop ``ddz serve`` runs on: uvloop's (libuv: the same protocol, less of the
    server's CPU per message) when installed (the server extra) or asked for, else asyncio's."""
    if kind == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        if kind == "uvloop":
            raise SystemExit("ddz serve: --loop uvloop needs uvloop (pip install \".[server]\")")
        return None
    return uvloop.new_event_loop


def _reset_token(db: str, name: str, lifetime_s: float) -> int:
    """``ddz serve --reset-token NAME``: a new token for NAME, every old one revoked. The server
    may be running: its connections logged in with a revoked token are closed at their next
    renewal; the owner logs in with the new token (the page: its login form's token field)."""
    from .storage import StorageError, open_storage

    async def reset() -> str:
        store = open_storage(db)
        await store.open()
        try:
            token, _ = await store.issue_token(name, lifetime_s, revoke_others=True)
            return token
        finally:
            await store.close()
    try:
        token = asyncio.run(reset())
    except StorageError as e:
        print(f"ddz serve: {e}", file=sys.stderr)
        return 2
    print(token)
    return 0
