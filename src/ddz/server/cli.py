"""``ddz serve``: the command line of the table server (registered by ddz.cli)."""
from __future__ import annotations

import argparse
import asyncio
import logging
import sys


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    sv = sub.add_parser("serve", help="run the table server and its browser client (docs/protocol.md)",
                        description="Serve tables of every variant over WebSocket (/ws) with the browser "
                                    "client at / ; needs the server extra (pip install ddz[server]).")
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=int, default=8000)
    sv.add_argument("--db", default="ddz-server.sqlite3",
                    help="SQLite file (created on first start) or postgresql://user@host/db")
    sv.add_argument("--grace", type=float, default=30.0, dest="grace_s",
                    help="seconds a disconnected seat is kept (a bot plays it) before it is an escape")
    sv.add_argument("--move-timeout", type=float, default=None, dest="move_timeout_s",
                    help="seconds per decision (default: the rules' move_timeout_s, 30)")
    sv.add_argument("--starting-coins", type=int, default=10_000, dest="starting_coins")
    sv.add_argument("--bot-delay", type=float, default=0.6, dest="bot_delay_s", help="seconds a bot waits")
    sv.add_argument("--no-bot-tables", action="store_false", dest="bot_tables",
                    help="refuse join with bots (players wait for people)")
    sv.add_argument("--rate", type=float, default=20.0, help="messages a second a connection may send on average")
    sv.add_argument("--burst", type=int, default=40, help="messages a connection may send at once")
    sv.add_argument("--cluster", action="store_true",
                    help="share the queue and matchmaking with other processes on the same PostgreSQL --db")
    sv.add_argument("--public-url", default=None, dest="public_url",
                    help="this process's WebSocket URL for redirects (default ws://HOST:PORT/ws)")
    sv.add_argument("--match-interval", type=float, default=0.5, dest="match_interval_s")
    sv.add_argument("--origin", action="append", default=[], dest="origins", metavar="URL",
                    help="a browser origin (https://ddz.example) whose pages may open the WebSocket; repeat for "
                         "more (default: the server's own, the request's Host); clients that send no Origin "
                         "(programs) are always served")
    sv.add_argument("--token-days", type=float, default=90.0, dest="token_days",
                    help="days a token works (default 90); a connection's token is renewed once a quarter of "
                         "that has passed")
    sv.add_argument("--reset-token", default=None, dest="reset_token", metavar="NAME",
                    help="do not serve: revoke every token of the account NAME in --db, print a new one and exit "
                         "(for an owner whose token was lost, expired or logged out)")
    sv.add_argument("--gc-threshold", type=int, default=None, dest="gc_threshold",
                    help="the garbage collector's first threshold (Python's default 700): larger means "
                         "fewer, longer young collections and fewer objects promoted to the full ones")
    sv.add_argument("--gc-young", type=float, default=0.25, dest="gc_young_s", metavar="SECONDS",
                    help="collect the young generations this often (default 0.25; 0: by Python's thresholds "
                         "only); see docs/server.md")
    sv.add_argument("--gc-full", type=float, default=600.0, dest="gc_full_s", metavar="SECONDS",
                    help="run a full collection this often (default 600; 0: when Python's rule says)")
    sv.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        from .app import Server, ServerConfig
        from .gc_policy import GcPolicy
    except ImportError as e:  # the optional extra is missing
        print(f"ddz serve: {e}; install the server extra: pip install 'ddz[server]'", file=sys.stderr)
        return 2
    if args.gc_threshold is not None and args.gc_threshold < 1:
        print(f"ddz serve: --gc-threshold must be a positive number of objects, not {args.gc_threshold}",
              file=sys.stderr)
        return 2
    if args.gc_young_s < 0 or args.gc_full_s < 0:
        print("ddz serve: --gc-young and --gc-full are seconds ≥ 0", file=sys.stderr)
        return 2
    if not args.token_days > 0:
        print(f"ddz serve: --token-days must be a positive number of days, not {args.token_days}", file=sys.stderr)
        return 2
    if args.reset_token is not None:
        return _reset_token(args.db, args.reset_token, args.token_days * 86400.0)
    for o in args.origins:
        if not o.startswith(("http://", "https://")) or o.rstrip("/").count("/") != 2:
            print(f"ddz serve: --origin takes an origin such as https://ddz.example:8443, not {o!r}", file=sys.stderr)
            return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    cfg = ServerConfig(db=args.db, grace_s=args.grace_s, move_timeout_s=args.move_timeout_s,
                       starting_coins=args.starting_coins, bot_delay_s=args.bot_delay_s, bot_tables=args.bot_tables,
                       rate=args.rate, burst=args.burst, cluster=args.cluster, public_url=args.public_url, match_interval_s=args.match_interval_s)
    cfg.origins = tuple(args.origins)
    cfg.token_lifetime_s = args.token_days * 86400.0

    collector = GcPolicy(args.gc_young_s, args.gc_full_s, args.gc_threshold)
    try:
        srv = Server(cfg)
    except ValueError as e:  # a database URL it cannot use
        print(f"ddz serve: {e}", file=sys.stderr)
        return 2

    async def main() -> None:
        await srv.start(args.host, args.port)
        collector.start()
        print(f"ddz serve: http://{args.host}:{srv.port}/ (WebSocket /ws), database {srv.storage.url}", flush=True)
        try:
            await asyncio.Event().wait()
        finally:
            collector.stop()
            await srv.stop()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
    return 0


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
