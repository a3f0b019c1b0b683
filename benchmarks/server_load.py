"""Load and soak test of ``ddz serve`` over real WebSocket connections on loopback.

The server runs in its own process (``python -m ddz.cli serve``, optionally pinned to one
core with --cpu); this process runs the clients: ``--tables`` tables' worth of players who
queue, take ``--think`` seconds per decision (as people do) and play random legal actions,
drop their connection now and then (``--disconnect``, back within the grace period) and
escape now and then (``--escape``). It stops by itself after ``--hands`` finished hands or
``--duration`` seconds, and reports (JSON on stdout):

* concurrent tables (peak), hands, actions, actions/s, and p50 / p99 latency from sending an
  action to the next observation (timed here, on the client side);
* the invariants: for every ledger ``sum(balances) + rake - house == grants`` over all finished
  hands (no coin created or lost), no hand left live; every observation a seat received equals
  the engine's ``Game.observation(seat)`` at that step of the stored record and no other
  message names a card (no hidden card leaked); every stored record replays to its result.

Examples::

    python benchmarks/server_load.py --tables 50 --hands 200 --think 0.2 0.5
    python benchmarks/server_load.py --tables 1000 --think 1 3 --duration 120 --cpu 0 --check-every 20
    python benchmarks/server_load.py --tables 200 --think 0 0 --duration 30 --cpu 0    # saturation
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional

import websockets

from ddz.server.audit import check_messages, observations, replays
from ddz.server.protocol import apply_update
from ddz.server.storage import LEDGERS, open_storage

ROOMS = [("novice", 3), ("score", 2), ("bengbu", 4)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Stats:
    def __init__(self) -> None:
        self.latencies: List[float] = []
        self.actions = 0
        self.hands: Dict[str, Dict[str, Any]] = {}   # table -> result message
        self.problems: List[str] = []
        self.active: Dict[str, int] = {}             # table -> players still in it
        self.peak = 0
        self.disconnects = 0
        self.escapes = 0
        self.checked = 0
        self.to_check: List[Any] = []   # (table, seat, messages, result message)
        self.stop = False    # no new hands
        self.abort = False   # leave the hand in progress too (the end of --drain)


class Player:
    def __init__(self, port: int, name: str, room: str, args: argparse.Namespace, st: Stats, rng: random.Random) -> None:
        self.port, self.name, self.room, self.args, self.st, self.rng = port, name, room, args, st, rng
        self.token: Optional[str] = None
        self.ws: Any = None

    async def connect(self) -> Dict[str, Any]:
        self.ws = await websockets.connect(f"ws://127.0.0.1:{self.port}/ws", max_size=1 << 20, open_timeout=60,
                                         max_queue=None)
        hello: Dict[str, Any] = {"type": "hello", "name": self.name}
        if self.token:
            hello["token"] = self.token
        await self.ws.send(json.dumps(hello))
        while True:
            m = json.loads(await self.ws.recv())
            if m["type"] == "welcome":
                self.token = m.get("token", self.token)
                return m
            if m["type"] == "error":
                raise RuntimeError(f"{self.name}: {m}")

    async def hand(self) -> None:
        a, st, rng = self.args, self.st, self.rng
        await self.ws.send(json.dumps({"type": "join", "room": self.room}))
        seen: List[Dict[str, Any]] = []
        table = seat = token = None
        o: Optional[Dict[str, Any]] = None  # this seat's observation, rebuilt from the snapshot and deltas
        last_seq = 0
        sent_at: Optional[float] = None
        sent_len = -1
        acted = -1
        silent = 0.0
        while not st.abort:
            try:
                m = json.loads(await asyncio.wait_for(self.ws.recv(), 1.0))
            except asyncio.TimeoutError:
                silent += 1.0
                if table is None and st.stop:  # still queued when the run ends: leave the queue
                    await self.ws.send(json.dumps({"type": "leave_queue"}))
                    return
                if silent < 120:
                    continue
                st.problems.append(f"{self.name}: no message for 120 s at table {table}")
                st.stop = True
                return
            except websockets.ConnectionClosed:
                st.problems.append(f"{self.name}: connection lost at table {table}")
                st.stop = True
                return
            silent = 0.0
            seen.append(m)
            t = m["type"]
            if t == "matched":
                table, seat, token = m["table"], m["seat"], m["seat_token"]
                st.active[table] = st.active.get(table, 0) + 1
                st.peak = max(st.peak, len(st.active))
                continue
            if t == "result":
                st.hands[table] = m
                self.left(table)
                await self.check(table, seat, seen, m)
                return
            if t == "error" and m["code"] == "no_table":
                if table is not None and table in m["message"]:
                    self.left(table)  # this hand ended between the reconnect and the resume
                    return
                if any(h in m["message"] for h in st.hands):
                    continue  # an action of an earlier hand that crossed its result on the wire
            # an action that crossed a bot's move, the clock or another seat's escape on the wire is
            # refused with NOT_YOUR_TURN or HAND_OVER: a race, not a fault
            if t == "error" or (t == "illegal" and m["code"] not in ("NOT_YOUR_TURN", "HAND_OVER")):
                st.problems.append(f"{self.name}: {m}")
                continue
            if t not in ("obs", "delta"):
                continue
            o = apply_update(o, m)
            last_seq = m["seq"]
            if sent_at is not None and len(o["history"]) > sent_len:
                st.latencies.append(time.perf_counter() - sent_at)
                sent_at = None
            if (o["current_seat"] != seat or not o["legal_actions"] or len(o["history"]) <= acted
                    or seat in o["bots"]):  # a bot plays a seat that has left
                continue
            acted = len(o["history"])
            await asyncio.sleep(rng.uniform(*a.think))
            if rng.random() < a.escape:
                st.escapes += 1
                await self.ws.send(json.dumps({"type": "leave", "table": table, "seat_token": token}))
                continue
            if rng.random() < a.disconnect:
                st.disconnects += 1
                await self.ws.close()
                await asyncio.sleep(rng.uniform(0.05, a.grace * 0.5))
                w = await self.connect()
                if "table" not in w:  # the hand ended and its result was given back longer than --grace ago
                    self.left(table)
                    return
                # the hand may have ended meanwhile: resume gives the result then
                await self.ws.send(json.dumps({"type": "resume", "table": table, "seat_token": token,
                                               "since": last_seq}))
                acted = -1
                continue
            sent_at, sent_len = time.perf_counter(), len(o["history"])
            st.actions += 1
            await self.ws.send(json.dumps({"type": "act", "table": table, "seat_token": token,
                                           "action": rng.choice(o["legal_actions"])}))

    def left(self, table: str) -> None:
        self.st.active[table] -= 1
        if not self.st.active[table]:
            del self.st.active[table]

    async def check(self, table: str, seat: int, seen: List[Dict[str, Any]], result: Dict[str, Any]) -> None:
        """Every ``check_every``-th hand: keep this seat's messages, checked against the stored
        record once the run is over (checking here would slow the clients and the figures)."""
        if hash(table) % self.args.check_every == 0:
            self.st.to_check.append((table, seat, seen, result))


async def audit_db(db: str, st: Stats) -> Dict[str, Any]:
    s = open_storage(db)
    await s.open()
    try:
        out: Dict[str, Any] = {}
        views: Dict[str, Any] = {}
        for table, seat, seen, result in st.to_check:  # no hidden card in any message to that seat
            if table not in views:
                row = await s.hand(table)
                if not replays(row.record, result["result"]):
                    st.problems.append(f"table {table}: the record does not replay to the result sent")
                views[table] = (row.record, observations(row.record))
            rec, obs = views[table]
            bad = check_messages(rec, seat, seen, table, obs)
            st.checked += 1
            if bad:
                st.problems.append(f"table {table} seat {seat}: {bad[:3]}")
        for ledger in LEDGERS:
            t = await s.totals(ledger)
            out[ledger] = dict(t, conserved=t["balances"] + t["rake"] - t["house"] == t["granted"])
        # hands still running when the server was stopped (only when --drain ran out) are void,
        # as after any server stop: they must have moved no coin
        out["live_hands"] = len(await s.hands("live"))
        await s.void_live_hands(None)
        for ledger in LEDGERS:
            t = await s.totals(ledger)
            out[ledger]["conserved"] &= t["balances"] + t["rake"] - t["house"] == t["granted"]
        done = await s.hands("done")
        out["done_hands"] = len(done)
        bad = 0
        for hid in done[:: max(1, len(done) // 200)]:  # a sample of every stored record replays
            row = await s.hand(hid)
            bad += not replays(row.record, row.result)
        out["records_checked"] = len(done[:: max(1, len(done) // 200)])
        out["records_not_replaying"] = bad
        return out
    finally:
        await s.close()


async def main(a: argparse.Namespace) -> Dict[str, Any]:
    port = a.port or _free_port()
    tmp = tempfile.mkdtemp(prefix="ddz-load-")
    db = a.db or os.path.join(tmp, "load.sqlite3")
    cmd = [sys.executable, "-m", "ddz.cli", "serve", "--port", str(port), "--db", db, "--grace", str(a.grace),
           "--bot-delay", str(a.bot_delay), "--no-bot-tables",
           # the load clients may act far faster than people (--think 0): lift the per-connection limit
           "--rate", "1000", "--burst", "1000"]
    if a.cpu is not None:
        cmd = ["taskset", "-c", str(a.cpu)] + cmd
    log = open(os.path.join(tmp, "server.log"), "w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(200):
            try:
                with socket.create_connection(("127.0.0.1", port), 0.2):
                    break
            except OSError:
                await asyncio.sleep(0.1)
        st = Stats()
        rng = random.Random(a.seed)
        players = []
        for i in range(a.tables):
            room, n = ROOMS[i % len(ROOMS)]
            for k in range(n):
                players.append(Player(port, f"t{i}p{k}", room, a, st, random.Random(rng.random())))
        t0 = time.perf_counter()
        # connect in waves so the server's accept queue is not flooded
        for i in range(0, len(players), 200):
            await asyncio.gather(*(p.connect() for p in players[i:i + 200]))
        tasks = [asyncio.ensure_future(_run(p)) for p in players]
        t_play = time.perf_counter()
        print(f"connected {len(players)} players in {t_play - t0:.1f} s", file=sys.stderr, flush=True)
        while time.perf_counter() - t_play < a.duration and len(st.hands) < a.hands and not st.stop:
            await asyncio.sleep(0.2)
        st.stop = True
        elapsed = time.perf_counter() - t_play
        print(f"played {elapsed:.1f} s, {len(st.hands)} hands; draining", file=sys.stderr, flush=True)
        # let the hands in progress finish (bounded), so that nothing stays live
        end = time.perf_counter() + a.drain
        quiet = 0
        while quiet < 3 and time.perf_counter() < end:  # no table for a while: none is about to start
            await asyncio.sleep(0.5)
            quiet = 0 if st.active or not all(t.done() for t in tasks) else quiet + 1
        print(f"drained: {len(st.active)} tables still running", file=sys.stderr, flush=True)
        st.abort = True  # every client leaves its loop within a second (a cancel can be lost in wait_for)
        await asyncio.wait(tasks, timeout=10)
        for t in tasks:
            t.cancel()
        await asyncio.wait([asyncio.ensure_future(p.ws.close()) for p in players if p.ws is not None], timeout=30)
        print("clients closed", file=sys.stderr, flush=True)
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()
    db_audit = await audit_db(db, st)
    lat = sorted(st.latencies)
    q = (lambda f: round(1000 * lat[min(len(lat) - 1, int(f * len(lat)))], 2)) if lat else (lambda f: None)
    return {
        "tables": a.tables, "think_s": a.think, "server_cpu": a.cpu, "seconds": round(elapsed, 1),
        "connect_seconds": round(t_play - t0, 1), "peak_concurrent_tables": st.peak,
        "hands": len(st.hands), "actions": st.actions, "actions_per_s": round(st.actions / elapsed, 1),
        "latency_ms": {"p50": q(0.5), "p99": q(0.99), "max": round(1000 * lat[-1], 2) if lat else None,
                       "samples": len(lat)},
        "disconnects": st.disconnects, "escapes": st.escapes, "seats_checked_for_leaks": st.checked,
        "problems": st.problems[:20], "problem_count": len(st.problems), "db": db_audit,
        "ok": not st.problems and db_audit["records_not_replaying"] == 0
        and all(db_audit[ledger]["conserved"] for ledger in LEDGERS),
    }


async def _run(p: Player) -> None:
    try:
        while not p.st.stop:
            await p.hand()
    except asyncio.CancelledError:
        raise
    except Exception as e:  # a client crash is a finding, not a reason to hang
        p.st.problems.append(f"{p.name}: {type(e).__name__}: {e}")


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=20, help="tables' worth of players (rooms cycle over variants)")
    ap.add_argument("--hands", type=int, default=100, help="stop after this many finished hands")
    ap.add_argument("--duration", type=float, default=60, help="stop after this many seconds")
    ap.add_argument("--think", type=float, nargs=2, default=[1.0, 3.0], metavar=("MIN", "MAX"))
    ap.add_argument("--disconnect", type=float, default=0.01, help="chance per decision to drop and reconnect")
    ap.add_argument("--escape", type=float, default=0.002, help="chance per decision to leave the hand")
    ap.add_argument("--grace", type=float, default=5.0)
    ap.add_argument("--bot-delay", type=float, default=0.2)
    ap.add_argument("--check-every", type=int, default=1, help="check every k-th hand's messages for leaks")
    ap.add_argument("--drain", type=float, default=60, help="seconds to let running hands finish at the end")
    ap.add_argument("--cpu", type=int, default=None, help="pin the server process to this core (taskset)")
    ap.add_argument("--db", default=None, help="database URL (default: a new SQLite file)")
    ap.add_argument("--port", type=int, default=None)
    ap.add_argument("--seed", type=int, default=1)
    return ap.parse_args(argv)


if __name__ == "__main__":
    out = asyncio.run(main(parse_args()))
    print(json.dumps(out, indent=2, ensure_ascii=False))
    sys.exit(0 if out["ok"] else 1)
