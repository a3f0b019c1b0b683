"""Players that outlive their server, for the tests of issue #41 (durable hands): ``ddz serve``
in a child process that the test kills (SIGKILL) or stops (SIGTERM) and starts again on the
same database and port, and players who reconnect whenever their connection drops, take
their seat back from ``welcome`` and ``resume``, and keep every message they were told about
their tables, to be checked against the stored records at the end (``check_hands``)."""
from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import time
from typing import Any, Dict, List, Optional, Tuple

from websockets.exceptions import ConnectionClosed, InvalidHandshake

from ddz import Game
from ddz.server.audit import check_messages, replays
from ddz.server.protocol import SeatView
from ddz.server.schema import message_problems
from ddz.server.storage import LEDGERS, Storage

from _client import Client, eager
from _util import SERVE

STARTING = {"coins": 10_000}  # a new account's grant (ddz serve's default --starting-coins)


class Serve:
    """``ddz serve`` on ``db`` and ``port``, started again as often as the test likes; its
    output goes to ``log`` (appended across starts)."""

    def __init__(self, db: str, port: int, log: str, *extra: str) -> None:
        self.db, self.port, self.log, self.extra = db, port, log, extra
        self.proc: Optional[subprocess.Popen] = None
        self.starts = 0

    def start(self, timeout: float = 60) -> None:
        with open(self.log, "a") as out:
            out.write(f"---- start {self.starts}\n")
        self.starts += 1
        size = os.path.getsize(self.log)
        out = open(self.log, "a")
        self.proc = subprocess.Popen([*SERVE, "--db", self.db, "--port", str(self.port), *self.extra],
                                     stdout=out, stderr=subprocess.STDOUT)
        out.close()
        end = time.time() + timeout
        while time.time() < end:
            with open(self.log) as f:
                f.seek(size)
                if "ddz serve: http" in f.read():
                    return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"ddz serve did not start: {self.tail()}")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def term(self, timeout: float = 60) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def tail(self, n: int = 3000) -> str:
        with open(self.log) as f:
            return f.read()[-n:]


class _Again(Exception):
    """The server said it is stopping: reconnect (after its restart)."""


class Player:
    """One account playing ``hands`` hands in ``room`` (``bots``: at a table with the
    server's bots), acting by ``SeatView`` after ``think`` seconds, reconnecting whenever its
    connection drops. Keeps, per table: every message about it (``msgs``), the longest history
    it was told (``told``), its seat, and the result."""

    def __init__(self, port: int, name: str, room: str, bots: bool, rng: random.Random,
                 hands: int = 1, think: Tuple[float, float] = (0.0, 0.05)) -> None:
        self.port, self.name, self.room, self.bots, self.rng = port, name, room, bots, rng
        self.hands, self.think = hands, think
        self.token: Optional[str] = None
        self.table: Optional[str] = None
        self.seat_token: Optional[str] = None
        self.seats: Dict[str, int] = {}
        self.msgs: Dict[str, List[Dict[str, Any]]] = {}
        self.told: Dict[str, List[Any]] = {}
        self.results: Dict[str, Dict[str, Any]] = {}
        self.welcomes: List[Dict[str, Any]] = []
        self.reconnects = 0
        self.problems: List[str] = []

    @property
    def done(self) -> bool:
        return len(self.results) >= self.hands

    async def run(self, limit: float) -> None:
        end = time.monotonic() + limit
        while not self.done and time.monotonic() < end:
            try:
                await self._connection(end)
            except (ConnectionClosed, OSError, InvalidHandshake, asyncio.TimeoutError, _Again):
                self.reconnects += 1
                await asyncio.sleep(0.1)

    async def _connection(self, end: float) -> None:
        c = await Client.connect(self.port)
        try:
            await self._play(c, end)
        finally:
            await c.ws.close()

    async def _play(self, c: Client, end: float) -> None:
        w = await c.hello(self.name, self.token)
        self.token = c.token
        self.welcomes.append(w)
        view: Optional[SeatView] = None
        seq = 0  # the event of the newest view
        if w["void_hands"]:
            self.problems.append(f"{self.name}: void hands {w['void_hands']}")
        t = w.get("table")
        if t is not None and t["table"] not in self.results:
            self.table, self.seat_token = t["table"], t["seat_token"]
            self.seats[self.table] = t["seat"]
            view = SeatView(t["seat"])
            await c.send({"type": "resume", "table": self.table, "seat_token": self.seat_token})
        elif self.table is not None and self.table not in self.results:
            self.problems.append(f"{self.name}: table {self.table} is not in its welcome {w}")
            self.results[self.table] = {"type": "lost"}
            return
        else:
            await c.send({"type": "join", "room": self.room, "bots": self.bots})
        while not self.done:
            m = json.loads(await asyncio.wait_for(c.ws.recv(), max(0.1, end - time.monotonic())))
            kind = m["type"]
            if kind == "matched":
                self.table, self.seat_token = m["table"], m["seat_token"]
                self.seats[self.table] = m["seat"]
                view = SeatView(m["seat"])
            tid = m.get("table")
            if tid is not None:
                self.msgs.setdefault(tid, []).append(m)
            if kind in ("obs", "delta") and view is not None and tid == self.table:
                seq = m["seq"]
                view.update(m)
                assert view.obs is not None
                old, new = self.told.get(tid, []), [list(x) for x in view.obs["history"]]
                if new[:len(old)] != old:  # what it was told before is gone or changed: an action lost
                    self.problems.append(f"{self.name} at {tid}: told {old}, then {new}")
                self.told[tid] = new
            elif kind == "illegal" and view is not None:
                view.refused()
            elif kind == "result":
                self.results[m["table"]] = m
                self.table = None
                view = None
                if not self.done:
                    await c.send({"type": "join", "room": self.room, "bots": self.bots})
                continue
            elif kind in ("void", "error"):
                if kind == "error" and m["code"] == "draining":
                    raise _Again()  # the server stops: come back after its restart
                self.problems.append(f"{self.name}: {m}")
            if view is not None and view.to_decide():
                assert view.obs is not None
                await asyncio.sleep(self.rng.uniform(*self.think))
                view.acted()
                legal = view.obs["legal_actions"]
                await c.send({"type": "act", "table": self.table, "seat_token": self.seat_token,
                              "action": eager(legal) if self.rng.random() < 0.5 else self.rng.choice(legal),
                              "seq": seq})


async def check_hands(store: Storage, players: List[Player]) -> Dict[str, Any]:
    """Every hand the players were told a result of is stored ``done``, its record replays to
    that result, every history a player was told is the start of the record's (no acknowledged
    action lost), every message each seat got agrees with the engine's view of that seat and
    names no hidden card, no ``ESCAPE`` is in any record (a server fault is never an escape);
    no hand is left live or void; every ledger is conserved. Returns counts; raises on a fault."""
    problems = [p for x in players for p in x.problems]
    hands: Dict[str, str] = {}
    for x in players:
        for tid, r in x.results.items():
            if tid not in hands:
                row = await store.hand(tid)
                assert row is not None and row.status == "done", (tid, row and row.status)
                assert row.record is not None and row.result is not None
                assert replays(row.record, row.result), tid
                assert r["result"] == row.result, tid
                hands[tid] = row.record
            record = hands[tid]
            history = [list(h) for h in Game.from_json(record).history]
            told = x.told.get(tid, [])
            if history[:len(told)] != told:
                problems.append(f"{x.name} at {tid} was told {told} but the record has {history}")
            if any(a == "ESCAPE" for _, a in history):
                problems.append(f"{tid}: an escape in {history}")
            problems += [f"{x.name}: {p}" for p in check_messages(record, x.seats[tid], x.msgs[tid], table=tid)]
        problems += [f"{x.name}: {p}" for m in x.welcomes + [m for ms in x.msgs.values() for m in ms]
                     for p in [message_problems("server", m)] if p]
        if hands:  # no card named in a welcome (the one that gives the seat back after a restart too)
            problems += [f"{x.name}: {p}" for p in check_messages(next(iter(hands.values())), None,
                                                                   [dict(w, table=None) for w in x.welcomes])]
    for x in players:  # each balance moved by its hands' settlements, once each
        got = await store.balances(x.name)
        want = {ledger: STARTING.get(ledger, 0) for ledger in LEDGERS}
        for tid, r in x.results.items():
            want[r["ledger"]] += r["settlement"]["changes"][x.seats[tid]]
        if got != want:
            problems.append(f"{x.name}: balances {got}, its results say {want}")
    assert await store.hands("live") == [], "hands left live"
    assert await store.hands("void") == [], "hands void"
    for ledger in LEDGERS:
        t = await store.totals(ledger)
        assert t["balances"] + t["rake"] - t["house"] == t["granted"], (ledger, t)
    assert not problems, problems[:5]
    return {"hands": len(hands), "reconnects": sum(x.reconnects for x in players)}
