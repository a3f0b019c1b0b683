"""How long ``ddz serve`` takes to resume the hands a server left live, and whether it answers
meanwhile (issue #41: goal ≤ 5 s for 1,000 tables).

Writes ``--tables`` live hands into a new database as a server would have left them (each a
start and ``--events`` logged events, the room's bots playing every seat; rooms cycle over
CLASSIC3, TWOP and BENGBU4), then starts ``ddz serve`` on it and, from its first accepted
connection on, pings it every 10 ms and asks for a table with bots: reports (JSON) the time
to the first accepted connection, the resume time the server logs, the pings' round trips
while it resumed, and how long the ``join`` took to be seated.

    python benchmarks/server_resume.py --tables 1000 --events 30
    python benchmarks/server_resume.py --tables 1000 --events 30 --db pg      # a throwaway PostgreSQL
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional

import websockets

from ddz.rooms.room import ROOMS
from ddz.server import Server, ServerConfig
from ddz.server.app import BOT_NAMES
from ddz.server.storage import open_storage
from ddz.server.journal import MemoryJournal
from ddz.server.table import Table

ROOM_CYCLE = ("novice", "score", "bengbu")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def write_hands(db: str, tables: int, events: int, seed: int) -> int:
    """``tables`` live hands, each its start and up to ``events`` events of bots' play (a hand
    that would end sooner stops one event before its end). Returns the events written."""
    srv = Server(ServerConfig(db=db, bot_delay_s=0.0))  # for its rooms and bots; not started
    store = srv.storage
    await store.open()
    rng = random.Random(seed)
    written = 0
    try:
        for i in range(tables):
            room = ROOMS[ROOM_CYCLE[i % len(ROOM_CYCLE)]]
            players = [f"r{i}p0", *BOT_NAMES[:room.players - 1]]
            t = Table(f"{i:016x}", room, players, set(range(1, room.players)), [10_000] * room.players,
                      seed=rng.randrange(1 << 62), config=srv.config, bot=srv.bot_for(room), journal=MemoryJournal())
            g, rows = t.game, []
            while len(rows) < events and not g.is_over:
                seat = g.current_seat
                assert seat is not None
                action = t.bot.act(g, seat)
                probe = g.clone()
                probe.apply(action, seat=seat)
                if probe.is_over:
                    break
                g.apply(action, seat=seat)
                rows.append((t.id, len(rows) + 1, json.dumps([seat, action])))
            await store.start_hand(t.id, room.name, room.variant, players, "gone", t.start_record())
            await store.append_actions(rows, "gone")
            written += len(rows)
    finally:
        await store.close()
    return written


async def probe(port: int, out: Dict[str, Any], stop: asyncio.Event) -> None:
    """From the first accepted connection: a ping every 10 ms (round trips kept), and one
    account that asks for a table with bots (the time to its ``matched``)."""
    t0 = time.perf_counter()
    while True:
        try:
            ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws")
            break
        except OSError:
            await asyncio.sleep(0.01)
    out["first_connection_s"] = round(time.perf_counter() - t0, 3)
    joiner = await websockets.connect(f"ws://127.0.0.1:{port}/ws")
    await joiner.send(json.dumps({"type": "hello", "name": "newcomer"}))
    tj = time.perf_counter()
    await joiner.send(json.dumps({"type": "join", "room": "novice", "bots": True}))
    rtts: List[float] = []

    async def seated() -> None:
        while json.loads(await joiner.recv())["type"] != "matched":
            pass
        out["join_to_matched_ms"] = round(1000 * (time.perf_counter() - tj), 1)
    waiter = asyncio.ensure_future(seated())
    while not stop.is_set():
        t = time.perf_counter()
        await ws.send(json.dumps({"type": "ping"}))
        while json.loads(await ws.recv())["type"] != "pong":
            pass
        rtts.append(time.perf_counter() - t)
        await asyncio.sleep(0.01)
    await asyncio.wait_for(waiter, 30)
    rtts.sort()
    out["pings"] = len(rtts)
    out["ping_ms"] = {"p50": round(1000 * rtts[len(rtts) // 2], 2), "p99": round(1000 * rtts[int(0.99 * len(rtts))], 2),
                      "max": round(1000 * rtts[-1], 2)}
    await ws.close()
    await joiner.close()


async def main(a: argparse.Namespace) -> Dict[str, Any]:
    if a.db == "pg":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from server_chaos import throwaway_pg
        with throwaway_pg() as url:
            return await run(a, url)
    return await run(a, a.db)


async def run(a: argparse.Namespace, db: Optional[str]) -> Dict[str, Any]:
    tmp = tempfile.mkdtemp(prefix="ddz-resume-")
    db = db or os.path.join(tmp, "resume.sqlite3")
    t0 = time.perf_counter()
    events = await write_hands(db, a.tables, a.events, a.seed)
    out: Dict[str, Any] = {"tables": a.tables, "events_per_hand": a.events, "events_written": events,
                           "db": "postgresql" if db.startswith("postgres") else "sqlite",
                           "write_s": round(time.perf_counter() - t0, 1)}
    port = _free_port()
    log_path = os.path.join(tmp, "server.log")
    log = open(log_path, "w")
    cmd = [sys.executable, "-m", "ddz.cli", "serve", "--port", str(port), "--db", db, "--bot-delay", "1000",
           "--signup-limit", "0"]
    t_spawn = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    stop = asyncio.Event()
    try:
        task = asyncio.ensure_future(probe(port, out, stop))
        resumed: Optional[re.Match] = None
        while resumed is None and time.perf_counter() - t_spawn < 120:
            await asyncio.sleep(0.05)
            resumed = re.search(r"resumed (\d+) hands in ([0-9.]+) s", open(log_path).read())
        out["spawn_to_resumed_s"] = round(time.perf_counter() - t_spawn, 2)
        stop.set()
        await asyncio.wait_for(task, 60)
        if resumed is not None:
            out["resumed"] = int(resumed.group(1))
            out["resume_s_logged"] = float(resumed.group(2))
        text = open(log_path).read()
        out["ok"] = resumed is not None and int(resumed.group(1)) == a.tables and "Traceback" not in text
    finally:
        proc.terminate()
        try:
            proc.wait(120)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
    return out


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=1000, help="live hands to resume")
    ap.add_argument("--events", type=int, default=30, help="logged events per hand (fewer if the hand ends)")
    ap.add_argument("--db", default=None, help="an empty database: postgresql://…, or pg for a throwaway "
                    "PostgreSQL (default: a new SQLite file)")
    ap.add_argument("--seed", type=int, default=1)
    return ap.parse_args(argv)


if __name__ == "__main__":
    result = asyncio.run(main(parse_args()))
    print(json.dumps(result, indent=2))
    sys.exit(0 if result["ok"] else 1)
