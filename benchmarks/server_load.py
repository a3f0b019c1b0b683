"""Load and soak test of ``ddz serve`` over real WebSocket connections on loopback.

The server runs in its own process (``python -m ddz.cli serve``, optionally pinned to one
core with --cpu); this process runs the clients: ``--tables`` tables' worth of players who
queue, take ``--think`` seconds per decision (as people do) and play random legal actions,
drop their connection now and then (``--disconnect``, back within the grace period) and
escape now and then (``--escape``). It stops by itself after ``--hands`` finished hands or
``--duration`` seconds, and reports (JSON on stdout):

* concurrent tables (peak), hands, actions, actions/s, and p50 / p99 latency from sending an
  action to its answer: the update that shows it applied, or its refusal (timed here, on the
  client side);
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
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Dict, List, Optional, Tuple

import websockets

from ddz.server.audit import check_messages, observations, replays
from ddz.server.gc_policy import GcPolicy
from ddz.server.health import GcPauses, LoopLag
from ddz.server.protocol import SeatView
from ddz.server.storage import LEDGERS, open_storage

ROOMS = [("novice", 3), ("score", 2), ("bengbu", 4)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Stats:
    def __init__(self) -> None:
        self.latencies: List[float] = []
        self.sent_wall: List[float] = []   # when each of those actions was sent (time.time())
        self.actions = 0
        self.hands: Dict[str, Dict[str, Any]] = {}   # table -> result message
        self.led = 0  # hands seen to their end from seat 0: each table counted in one client process only
        self.problems: List[str] = []
        self.active: Dict[str, int] = {}             # table -> players still in it
        self.disconnects = 0
        self.escapes = 0
        self.reconnects = 0  # --survive: connections the server closed or lost, made again
        self.voided: List[str] = []  # --survive: hands a welcome reported void
        self.checked = 0
        self.to_check: List[Any] = []   # (table, seat, messages, result message)
        self.stop = False    # no new hands
        self.abort = False   # leave the hand in progress too (the end of --drain)


class Player:
    def __init__(self, port: int, name: str, room: str, args: argparse.Namespace, st: Stats, rng: random.Random,
                 bots: bool = False) -> None:
        self.port, self.name, self.room, self.args, self.st, self.rng = port, name, room, args, st, rng
        self.join = json.dumps({"type": "join", "room": room, "bots": True} if bots else {"type": "join", "room": room})
        self.token: Optional[str] = None
        self.ws: Any = None
        self.queued = False       # waiting to be matched (the monitor takes it out of the queue at the end)
        self.table: Optional[str] = None
        self.last = time.monotonic()  # when the last message came (the monitor reports a long silence)

    async def reconnect(self) -> Dict[str, Any]:
        """``--survive``: the server went away (killed, stopped, or a ``redirect``): connects
        again, to the next of ``--ports`` when one refuses, until one answers (or
        ``--survive`` seconds pass); the ``welcome``."""
        self.st.reconnects += 1
        end = time.monotonic() + self.args.survive
        ports = self.args.ports or [self.port]
        while True:
            try:
                return await self.connect()
            except (OSError, websockets.InvalidHandshake, websockets.ConnectionClosed, asyncio.TimeoutError):
                if time.monotonic() > end or self.st.abort:
                    raise
                if self.port in ports and len(ports) > 1:
                    self.port = ports[(ports.index(self.port) + 1) % len(ports)]
                await asyncio.sleep(0.2)

    async def back(self, url: Optional[str] = None) -> Dict[str, Any]:
        """``--survive``: reconnects (to ``url``'s port for a ``redirect``); the ``welcome``."""
        if url is not None:
            self.port = int(url.rsplit(":", 1)[1].split("/")[0])
        try:
            await self.ws.close()
        except Exception:
            pass
        return await self.reconnect()

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

    async def _send(self, text: str) -> None:
        """Sends; with ``--survive`` a connection the server lost is not a fault here (the next
        receive finds it closed, and the player comes back)."""
        try:
            await self.ws.send(text)
        except websockets.ConnectionClosed:
            if not self.args.survive:
                raise

    async def hand(self) -> None:
        a, st, rng = self.args, self.st, self.rng
        self.queued, self.table = True, None
        await self._send(self.join)
        # every message as received (text: no object for the garbage collector to walk, in a
        # process that keeps a share of all hands' messages for the audit at the end)
        seen: List[str] = []
        table = seat = token = None
        v: Optional[SeatView] = None  # this seat's observation, rebuilt from the snapshot and deltas
        sent_at: Optional[float] = None
        sent_wall = 0.0

        async def come_back(url: Optional[str] = None) -> bool:
            """``--survive``: connects again and takes the seat back (``resume``; a seat the
            player was matched to meanwhile, named by ``welcome``, too), or queues again; False
            when its hand is no longer to be played (it ended, or was void)."""
            nonlocal table, seat, token, v, sent_at
            if sent_at is not None:  # answered by no one: the server went away with it
                sent_at = None
                if v is not None:
                    v.refused()
            w = await self.back(url)
            at = w.get("table")
            if table is not None and table in w.get("void_hands", ()):
                st.voided.append(table)
            if table is None and at is not None and not at["over"]:  # matched while it was away
                table, seat, token = at["table"], at["seat"], at["seat_token"]
                v = SeatView(seat)
                self.queued, self.table = False, table
                st.active[table] = st.active.get(table, 0) + 1
            if table is None:
                await self._send(self.join)
                return True
            if at is None or at["table"] != table:
                self.left(table)
                return False
            await self._send(json.dumps({"type": "resume", "table": table, "seat_token": at["seat_token"],
                                         "since": v.seq if v is not None else 0}))
            return True
        while not st.abort:
            # no timeout here (asyncio.wait_for costs a task per message, which made this process
            # the bottleneck): the monitor (main) watches for silence, and closes the connections
            # at the end
            try:
                frame = await self.ws.recv()
            except websockets.ConnectionClosed:
                if a.survive and not st.abort:
                    if not await come_back():
                        return
                    continue
                if not st.abort:
                    st.problems.append(f"{self.name}: connection lost at table {table}")
                    st.stop = True
                return
            self.last = time.monotonic()
            m = json.loads(frame)
            seen.append(frame)
            t = m["type"]
            if t == "left_queue" and table is None:  # the run ended while this player waited
                self.queued = False
                return
            if t == "error" and m["code"] == "not_queued":
                continue  # the monitor's leave_queue crossed this player's "matched": it plays the hand
            if a.survive and t == "error" and m["code"] == "queued" and table is None:
                continue  # its place in the shared queue was kept (or given back) across a kill: it waits
            if a.survive and t == "error" and m["code"] == "seated" and table is None:
                # matched (after a kill) into a table not opened yet, or opened elsewhere: the
                # welcome of a new connection names it; else the row is freed soon: join again
                await asyncio.sleep(1.0)
                if not await come_back():
                    return
                continue
            if a.survive and (t == "redirect" or (t == "error" and m["code"] == "draining")):
                # its hand goes on elsewhere, or the server stops seating: go where it says, or wait
                # for the server's restart (another process of the cluster, if there is one)
                if t == "error" and a.ports and len(a.ports) > 1:
                    self.port = a.ports[(a.ports.index(self.port) + 1) % len(a.ports)]
                elif t == "error":  # alone: its connection closes at the end of the drain
                    continue
                if not await come_back(m.get("url") if t == "redirect" else None):
                    return
                continue
            if t == "matched":
                self.queued = False
                table, seat, token = m["table"], m["seat"], m["seat_token"]
                v = SeatView(seat)
                self.table = table
                st.active[table] = st.active.get(table, 0) + 1
                continue
            if t == "result":
                st.hands[table] = m
                st.led += seat == 0
                self.left(table)
                await self.check(table, seat, seen, m)
                return
            if t == "error" and m["code"] == "no_table":
                if table is not None and table in m["message"]:
                    self.left(table)  # this hand ended between the reconnect and the resume
                    return
                if any(h in m["message"] for h in st.hands):
                    continue  # an action of an earlier hand that crossed its result on the wire
            # an action that crossed the clock or another seat's escape on the wire is refused with
            # STALE (it names the event it answers), NOT_YOUR_TURN or HAND_OVER: a race, not a fault
            if t in ("illegal", "error") and v is not None:
                v.refused()
                if sent_at is not None:  # answered by its refusal
                    st.latencies.append(time.perf_counter() - sent_at)
                    st.sent_wall.append(sent_wall)
                    sent_at = None
            if t == "error" or (t == "illegal" and m["code"] not in ("STALE", "NOT_YOUR_TURN", "HAND_OVER")):
                trail = [(x["type"], x.get("seq"), x.get("from"), len(x.get("events", ())), sorted(x.get("set", ())))
                         for x in map(json.loads, seen[-6:-1])]
                o = v and v.obs
                view = o and (o["phase"], o["current_seat"], len(o["history"]), v.seq)
                st.problems.append(f"{self.name}: {m}; view (phase, to act, history, seq) {view}; before it {trail}")
                continue
            if t not in ("obs", "delta"):
                continue
            if m["table"] != table or m["seat"] != seat:
                st.problems.append(f"{self.name}: an update of table {m['table']} seat {m['seat']} "
                                   f"while at table {table} seat {seat}")
                continue
            assert v is not None
            o = v.update(m)
            if sent_at is not None and not v.waiting:  # the update that shows the action applied
                st.latencies.append(time.perf_counter() - sent_at)
                st.sent_wall.append(sent_wall)
                sent_at = None
            if not v.to_decide():  # not its turn, a bot plays it (it left), or its action is on the wire
                continue
            await asyncio.sleep(rng.uniform(*a.think))
            if rng.random() < a.escape:
                st.escapes += 1
                v.acted()  # answered: it takes no decision of this hand again
                await self._send(json.dumps({"type": "leave", "table": table, "seat_token": token}))
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
                await self._send(json.dumps({"type": "resume", "table": table, "seat_token": token,
                                               "since": v.seq}))
                continue
            sent_at, sent_wall = time.perf_counter(), time.time()
            st.actions += 1
            v.acted()
            await self._send(json.dumps({"type": "act", "table": table, "seat_token": token, "seq": v.seq,
                                           "action": rng.choice(o["legal_actions"])}))

    def left(self, table: str) -> None:
        self.st.active[table] -= 1
        if not self.st.active[table]:
            del self.st.active[table]

    async def check(self, table: str, seat: int, seen: List[str], result: Dict[str, Any]) -> None:
        """Every ``check_every``-th hand: keep this seat's messages, checked against the stored
        record once the run is over (checking here would slow the clients and the figures)."""
        if int(table, 16) % self.args.check_every == 0:  # the same choice in every client process
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
            bad = check_messages(rec, seat, [json.loads(x) for x in seen], table, obs)
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


async def run_clients(port: int, a: argparse.Namespace, index: int = 0, procs: int = 1) -> Dict[str, Any]:
    """This process's share of the players (every ``procs``-th table from ``index``): connect,
    play until ``--duration`` or this share of ``--hands``, drain, close; what they saw."""
    st = Stats()
    rng = random.Random(a.seed)
    players = []
    for i in range(a.tables):
        room, n = ROOMS[i % len(ROOMS)]
        bots = i < a.bot_tables  # one player, who sits down with the server's bots
        for k in range(1 if bots else n):
            r = random.Random(rng.random())
            if i % procs == index:  # with --ports, each player starts on one of them in turn
                players.append(Player(a.ports[len(players) % len(a.ports)] if a.ports else port,
                                      f"t{i}p{k}", room, a, st, r, bots))
    hands = -(-a.hands // procs)  # counted at seat 0 (st.led), so that the shares add up to --hands
    # this process's own stops: a latency is timed here, so a stop of this loop (its collector
    # walking every player's objects, say) lengthens every latency in flight as a server's would
    gc_pauses, loop_lag = GcPauses(), LoopLag()
    gc_pauses.install()
    loop_lag.start()
    t0 = time.perf_counter()
    # connect in waves so the server's accept queue is not flooded
    for i in range(0, len(players), 200):
        await asyncio.gather(*(p.connect() for p in players[i:i + 200]))
    # the clients' collector as the server's (ddz.server.gc_policy): with Python's own schedule its full
    # collections, walking 3,000 connections, stopped this loop for 0.2–0.5 s during the play, and
    # every latency in flight then counted that stop (docs/server.md)
    collector = GcPolicy() if a.client_gc == "policy" else None
    if collector is not None:
        collector.start()
    tasks = [asyncio.ensure_future(_run(p)) for p in players]
    t_play, wall_play, cpu_play = time.perf_counter(), time.time(), time.process_time()
    print(f"clients {index}: connected {len(players)} players in {t_play - t0:.1f} s", file=sys.stderr, flush=True)
    monitor = asyncio.ensure_future(_monitor(players, st))
    while time.perf_counter() - t_play < a.duration and st.led < hands and not st.stop:
        await asyncio.sleep(0.2)
    st.stop = True
    elapsed = time.perf_counter() - t_play
    played = st.actions  # the actions of the play window (the drain's come after)
    wall_end, cpu_end = time.time(), time.process_time()
    print(f"clients {index}: played {elapsed:.1f} s, {len(st.hands)} hands; draining", file=sys.stderr, flush=True)
    # let the hands in progress finish (bounded), so that nothing stays live
    end = time.perf_counter() + a.drain
    quiet = 0
    while quiet < 3 and time.perf_counter() < end:  # no table for a while: none is about to start
        await asyncio.sleep(0.5)
        quiet = 0 if st.active or not all(t.done() for t in tasks) else quiet + 1
    print(f"clients {index}: drained, {len(st.active)} tables still running", file=sys.stderr, flush=True)
    st.abort = True  # every client's loop ends when its connection closes
    monitor.cancel()
    await asyncio.wait([asyncio.ensure_future(p.ws.close()) for p in players if p.ws is not None], timeout=30)
    await asyncio.wait(tasks, timeout=10)
    for t in tasks:
        t.cancel()
    gc_pauses.remove()
    loop_lag.stop()
    if collector is not None:
        collector.stop()
    return {"latencies": st.latencies, "sent_wall": st.sent_wall, "actions": st.actions, "played": played, "hands": st.hands, "problems": st.problems,
            "gc": gc_pauses.to_dict(), "loop_lag": loop_lag.to_dict(),
            "disconnects": st.disconnects, "escapes": st.escapes, "to_check": st.to_check,
            "reconnects": st.reconnects, "voided": st.voided,
            "connect_s": t_play - t0, "play": (wall_play, wall_end), "cpu_s": cpu_end - cpu_play}


def _client_process(port: int, a: argparse.Namespace, index: int, procs: int) -> Dict[str, Any]:
    return asyncio.run(run_clients(port, a, index, procs))


def _rss_mb(pid: int) -> float:
    """A process's resident memory (MB), from /proc/PID/statm."""
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def _sched_seconds(pid: int) -> Tuple[float, float]:
    """A process's time on a CPU and time runnable but waiting for one, so far (Linux
    /proc/PID/schedstat, main thread): on a shared machine the wait is what other jobs cost it."""
    with open(f"/proc/{pid}/schedstat") as f:
        run, wait = f.read().split()[:2]
    return int(run) / 1e9, int(wait) / 1e9


def _process_cpu_seconds(pid: int) -> float:
    """A process's CPU time so far, every thread's (its SQLite writer's, its bots' pool's: user
    plus system, /proc/PID/stat; schedstat counts the main thread only)."""
    return sum(_process_user_system(pid))


def _process_user_system(pid: int) -> Tuple[float, float]:
    """A process's CPU time so far in user mode and in the kernel (its system calls: the
    sockets, the disk), every thread's."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / os.sysconf("SC_CLK_TCK"), int(fields[12]) / os.sysconf("SC_CLK_TCK")


def _thread_cpu_seconds(pid: int) -> Dict[str, float]:
    """Each live thread's CPU time so far (/proc/PID/task/TID/stat): the main thread (the event
    loop) as "main", the others by the order they were started ("thread 1", ...: the server's
    SQLite connection's, then its hand log's, as it opens them)."""
    out: Dict[str, float] = {}
    tids = sorted(int(t) for t in os.listdir(f"/proc/{pid}/task"))
    for i, tid in enumerate(tids):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out["main" if tid == pid else f"thread {i}"] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def _log_batches(port: int) -> Optional[Tuple[float, float]]:
    """The hand log's rows stored and batches written so far (the server's /metrics), or None."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
            text = r.read().decode()
    except OSError:
        return None
    got = {}
    for line in text.splitlines():
        if line.startswith(("ddz_hand_log_rows_total ", "ddz_hand_log_batch_seconds_count ")):
            name, value = line.split()
            got[name] = float(value)
    if len(got) < 2:
        return None
    return got["ddz_hand_log_rows_total"], got["ddz_hand_log_batch_seconds_count"]


def _status(port: int) -> Dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=5) as r:
        return json.loads(r.read())


async def _watch_server(port: int, pid: int, samples: List[Any]) -> None:
    """Every second: (wall time, the server's main thread's CPU seconds, its seconds waiting for
    a CPU, its live tables, its /api/status, its resident memory in MB, the CPU seconds of all
    its threads, each thread's, the kernel's part of all)."""
    while True:
        try:
            status = await asyncio.to_thread(_status, port)
            samples.append((time.time(), *_sched_seconds(pid), int(status["tables"]), status, _rss_mb(pid),
                            _process_cpu_seconds(pid), _thread_cpu_seconds(pid),
                            _process_user_system(pid)[1]))
        except (OSError, ValueError):
            pass
        await asyncio.sleep(1.0)


def _between(samples: List[Any], t0: float, t1: float, k: int) -> Optional[float]:
    """Sample field ``k`` (1: the main thread's CPU seconds, 2: its wait seconds, 6: every
    thread's CPU seconds, 8: every thread's in the kernel) gained between wall times t0 and
    t1 (from the nearest samples inside)."""
    inside = [x for x in samples if t0 <= x[0] <= t1]
    if len(inside) < 2:
        return None
    return (inside[-1][k] - inside[0][k]) * (t1 - t0) / (inside[-1][0] - inside[0][0])


def _rss(samples: List[Any], t0: float, t1: float) -> Dict[str, Any]:
    inside = [x[5] for x in samples if t0 <= x[0] <= t1]
    if not inside:
        return {}
    return {"play_start": round(inside[0], 1), "play_end": round(inside[-1], 1),
            "max": round(max(x[5] for x in samples), 1)}


def _cpus(spec: str) -> set:
    """taskset's core list ("1", "0,2", "1-3") as a set."""
    out: set = set()
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def _by_window(lat: List[float], sent: List[float], t0: float, width: float) -> List[Any]:
    """[window start (s from t0), actions, p99 ms] for each ``width`` seconds of sending time."""
    win: Dict[int, List[float]] = {}
    for x, w in zip(lat, sent):
        win.setdefault(int((w - t0) // width), []).append(x)
    return [[k * width, len(v), round(1000 * sorted(v)[min(len(v) - 1, int(0.99 * len(v)))], 1)]
            for k, v in sorted(win.items())]


async def main(a: argparse.Namespace) -> Dict[str, Any]:
    port = a.port or _free_port()
    if a.client_cpus is not None:  # this process runs or spawns the clients; the server is pinned by taskset
        os.sched_setaffinity(0, _cpus(a.client_cpus))
    tmp = tempfile.mkdtemp(prefix="ddz-load-")
    db = a.db or os.path.join(tmp, "load.sqlite3")
    cmd = [sys.executable, "-m", "ddz.cli", "serve", "--port", str(port), "--db", db, "--grace", str(a.grace),
           "--bot-delay", str(a.bot_delay), *([] if a.bot_tables else ["--no-bot-tables"]),
           # the load clients may act far faster than people (--think 0): lift the per-connection limit,
           # and they make thousands of accounts from one address: lift the signup limit
           "--rate", "1000", "--burst", "1000", "--signup-limit", "0",
           # the end of a run: the hands the clients left (played by bots) need not finish
           "--drain-timeout", "10"]
    if a.gc_threshold is not None:
        cmd += ["--gc-threshold", str(a.gc_threshold)]
    if a.gc_young is not None:
        cmd += ["--gc-young", str(a.gc_young)]
    if a.gc_full is not None:
        cmd += ["--gc-full", str(a.gc_full)]
    cmd += a.server_args
    if a.cpu is not None:
        cmd = ["taskset", "-c", str(a.cpu)] + cmd
    log = open(os.path.join(tmp, "server.log"), "w")
    # in a session of its own, as a daemon runs: the kernel shares a core between sessions
    # (autogroups), so the server does not queue behind every process of this one
    env = None
    if a.server_src:  # the server runs that source tree's ddz (the clients and the audit run this one's)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(os.path.abspath(d) for d in a.server_src.split(os.pathsep)))
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
    samples: List[Any] = []
    try:
        for _ in range(200):
            try:
                with socket.create_connection(("127.0.0.1", port), 0.2):
                    break
            except OSError:
                await asyncio.sleep(0.1)
        watch = asyncio.ensure_future(_watch_server(port, proc.pid, samples))
        log_before = await asyncio.to_thread(_log_batches, port)
        if a.client_procs == 1:
            parts = [await run_clients(port, a)]
        else:  # the clients in several processes of their own (spawned: no event loop inherited)
            loop = asyncio.get_running_loop()
            with ProcessPoolExecutor(a.client_procs, mp_context=multiprocessing.get_context("spawn")) as pool:
                parts = list(await asyncio.gather(*(loop.run_in_executor(pool, _client_process, port, a, i,
                                                                         a.client_procs)
                                                    for i in range(a.client_procs))))
        watch.cancel()
        log_after = await asyncio.to_thread(_log_batches, port)
        print("clients closed", file=sys.stderr, flush=True)
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()
    st = Stats()
    played = 0
    for part in parts:
        st.latencies += part["latencies"]
        st.sent_wall += part["sent_wall"]
        st.actions += part["actions"]
        played += part["played"]
        st.hands.update(part["hands"])
        st.problems += part["problems"]
        st.disconnects += part["disconnects"]
        st.escapes += part["escapes"]
        st.to_check += part["to_check"]
    t0, t1 = max(p["play"][0] for p in parts), min(p["play"][1] for p in parts)
    elapsed = t1 - t0
    server_cpu, server_wait = _between(samples, t0, t1, 1), _between(samples, t0, t1, 2)
    process_cpu, process_system = _between(samples, t0, t1, 6), _between(samples, t0, t1, 8)
    inside = [x for x in samples if t0 <= x[0] <= t1]
    thread_cpu = ({k: round(1000 * (v - inside[0][7].get(k, 0.0)) / played, 3) for k, v in inside[-1][7].items()}
                  if len(inside) >= 2 and played else {})
    if a.timeline:  # every action's (send time, latency) and the server's samples, for a closer look
        with open(a.timeline, "w") as f:
            json.dump({"play": [t0, t1], "actions": list(zip(st.sent_wall, st.latencies)),
                       "server": [x[:4] + (x[5],) for x in samples]}, f)
    db_audit = await audit_db(db, st)
    lat = sorted(st.latencies)
    q = (lambda f: round(1000 * lat[min(len(lat) - 1, int(f * len(lat)))], 2)) if lat else (lambda f: None)
    # the same without the first --warmup seconds of play (every table's first decisions at once):
    # reported beside the whole run's figure, not instead of it
    warm = sorted(x for x, w in zip(st.latencies, st.sent_wall) if w >= t0 + a.warmup)
    qw = (lambda f: round(1000 * warm[min(len(warm) - 1, int(f * len(warm)))], 2)) if warm else (lambda f: None)
    return {
        "tables": a.tables, "think_s": a.think, "server_cpu": a.cpu, "client_cpus": a.client_cpus,
        "client_procs": a.client_procs,
        "seconds": round(elapsed, 1), "connect_seconds": round(max(p["connect_s"] for p in parts), 1),
        "peak_concurrent_tables": max((x[3] for x in samples), default=0),
        # actions/s and the server's CPU per action over the play window only (the drain's actions,
        # which come after it, are in "actions" and in the latencies)
        "hands": len(st.hands), "actions": st.actions, "actions_in_play": played,
        "actions_per_s": round(played / elapsed, 1),
        "latency_ms": {"p50": q(0.5), "p99": q(0.99), "max": round(1000 * lat[-1], 2) if lat else None,
                       "samples": len(lat)},
        # p99 of the actions sent in each 10 s of play (from its start): where the tail is
        "latency_p99_ms_by_10s": _by_window(st.latencies, st.sent_wall, t0, 10.0),
        "play_started": round(t0, 2),
        "latency_ms_after_warmup": {"warmup_s": a.warmup, "p50": qw(0.5), "p99": qw(0.99),
                                    "max": round(1000 * warm[-1], 2) if warm else None, "samples": len(warm)},
        # how much of a core each side had while playing: a server short of a core (a shared
        # machine) queues, and its latency shows that, not its own cost
        "server_cpu_share": round(server_cpu / elapsed, 2) if server_cpu is not None else None,
        "server_wait_share": round(server_wait / elapsed, 2) if server_wait is not None else None,
        # the server's garbage collections and its event loop's stops over the whole run
        # (connecting and matching included): what the tail of the latency is made of
        "server_gc": samples[-1][4].get("gc") if samples else None,
        "server_loop_lag": samples[-1][4].get("loop_lag") if samples else None,
        # resident memory when the play started, when it ended, and at most (a leak grows it run after run)
        "server_rss_mb": _rss(samples, t0, t1),
        # the server process's CPU time per action, all its threads (the hand log's writer too);
        # and its main thread's alone (the event loop)
        "server_cpu_ms_per_action": round(1000 * process_cpu / played, 3) if process_cpu and played else None,
        # of which in the kernel (system calls: the sockets' reads and writes, the disk's)
        "server_system_cpu_ms_per_action": round(1000 * process_system / played, 3)
        if process_system is not None and played else None,
        # each thread's (by name) CPU ms per action, between the first and last samples of the play
        "server_thread_cpu_ms_per_action": thread_cpu,
        "server_main_thread_cpu_ms_per_action": round(1000 * server_cpu / played, 3)
        if server_cpu and played else None,
        # the hand log's rows per batch (per transaction) over the run (the server's /metrics)
        "server_log_rows_per_batch": round((log_after[0] - log_before[0]) / (log_after[1] - log_before[1]), 2)
        if log_before and log_after and log_after[1] > log_before[1] else None,
        "client_cpu_share": round(sum(p["cpu_s"] for p in parts) / elapsed, 2),
        # the same for each client process: its stops lengthen the latencies it times
        "client_gc": [p["gc"] for p in parts], "client_loop_lag": [p["loop_lag"] for p in parts],
        "disconnects": st.disconnects, "escapes": st.escapes, "seats_checked_for_leaks": st.checked,
        "problems": st.problems[:20], "problem_count": len(st.problems), "db": db_audit,
        "ok": not st.problems and db_audit["records_not_replaying"] == 0
        and all(db_audit[ledger]["conserved"] for ledger in LEDGERS),
    }


async def _monitor(players: List[Player], st: Stats) -> None:
    """Once a second: players still queued when the run stops leave the queue; a player at
    a table that has heard nothing for 120 s is a fault (the server hangs or lost it)."""
    while True:
        await asyncio.sleep(1.0)
        now = time.monotonic()
        for p in players:
            if p.queued and st.stop:
                p.queued = False
                asyncio.ensure_future(p.ws.send(json.dumps({"type": "leave_queue"})))
            elif p.table is not None and p.table in st.active and now - p.last > 120 and not st.stop:
                st.problems.append(f"{p.name}: no message for 120 s at table {p.table}")
                st.stop = True


async def _run(p: Player) -> None:
    try:
        while not p.st.stop:
            await p.hand()
    except asyncio.CancelledError:
        raise
    except websockets.ConnectionClosed:
        if not p.st.abort:  # closed by the end of the run: not a fault
            p.st.problems.append(f"{p.name}: connection lost")
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
    ap.add_argument("--bot-tables", type=int, default=0, dest="bot_tables", metavar="N",
                    help="of the --tables, the first N seat one player each with the server's bots (join with "
                         "bots; which bot: --server-arg=--bot=search, say); the players' latencies include theirs")
    ap.add_argument("--check-every", type=int, default=1, help="check every k-th hand's messages for leaks")
    ap.add_argument("--warmup", type=float, default=15.0,
                    help="also report the latency of the actions sent after this many seconds of play")
    ap.add_argument("--drain", type=float, default=60, help="seconds to let running hands finish at the end")
    ap.add_argument("--cpu", type=int, default=None, help="pin the server process to this core (taskset)")
    ap.add_argument("--client-cpus", default=None, dest="client_cpus",
                    help="pin the client processes to these cores (taskset's list, e.g. 1): keeps them off the server's")
    ap.add_argument("--client-procs", type=int, default=1, dest="client_procs",
                    help="run the clients in this many processes (each its share of the tables)")
    ap.add_argument("--gc-threshold", type=int, default=None, dest="gc_threshold",
                    help="the server's --gc-threshold")
    ap.add_argument("--gc-young", type=float, default=None, dest="gc_young", help="the server's --gc-young")
    ap.add_argument("--gc-full", type=float, default=None, dest="gc_full", help="the server's --gc-full")
    ap.add_argument("--client-gc", choices=("policy", "python"), default="policy", dest="client_gc",
                    help="the client processes' collector: the server's policy (default) or Python's own")
    ap.add_argument("--timeline", default=None, metavar="FILE",
                    help="write every action's send time and latency and the server's per-second samples "
                         "(wall time, CPU s, wait s, tables, RSS MB) to FILE (JSON)")
    ap.add_argument("--db", default=None, help="database URL (default: a new SQLite file)")
    ap.add_argument("--port", type=int, default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--server-src", default=None, dest="server_src", metavar="DIR",
                    help="run the server from this source tree (its PYTHONPATH: e.g. another checkout's src)")
    ap.add_argument("--server-arg", action="append", default=[], dest="server_args", metavar="ARG",
                    help="one more argument for ddz serve (repeat; e.g. --server-arg=--no-hand-log)")
    ap.add_argument("--survive", type=float, default=0.0, metavar="SECONDS",
                    help="clients reconnect and resume when the server goes away (a kill, a stop, a redirect), "
                         "trying this many seconds (0: a lost connection is a fault; server_chaos.py sets it)")
    a = ap.parse_args(argv)
    a.ports = None  # server_chaos.py: the ports of a cluster's processes
    return a


if __name__ == "__main__":
    out = asyncio.run(main(parse_args()))
    print(json.dumps(out, indent=2, ensure_ascii=False))
    sys.exit(0 if out["ok"] else 1)
