"""Two ``ddz serve --cluster`` processes on loopback sharing one PostgreSQL database: one
queue, one matchmaker at a time (an advisory lock; the other takes over when it dies), a
table in one process and its players connected to the other redirected there, balances and
records shared; a hand of each variant (TWOP, CLASSIC3 through ddz.Matchmaker, BENGBU4) at
once, their players spread over both processes."""
from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

pytest.importorskip("websockets")
pytest.importorskip("asyncpg")

from ddz.server.audit import replays  # noqa: E402
from ddz.server.storage import open_storage  # noqa: E402

from _client import Client, play_out  # noqa: E402


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _status(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=5) as r:
        return json.loads(r.read())


def _start(db, port, log):
    out = open(log, "w")
    p = subprocess.Popen([sys.executable, "-m", "ddz.cli", "serve", "--db", db, "--cluster", "--port", str(port),
                          "--match-interval", "0.2", "--bot-delay", "0.5"], stdout=out, stderr=subprocess.STDOUT)
    end = time.time() + 30
    while time.time() < end:
        if "ddz serve:" in open(log).read():
            return p
        if p.poll() is not None:
            break
        time.sleep(0.1)
    raise AssertionError(f"ddz serve --cluster did not start: {open(log).read()[-2000:]}")


async def _login(port, name, token=None):
    c = await Client.connect(port)
    await c.hello(name, token)
    return c


async def _seat(c, port_of_url):
    """The client's next table: ``matched`` here, or ``redirect`` to the process hosting it."""
    while True:
        m = await c._recv(20)
        if m["type"] == "matched":
            c.redirected = False
            return c
        if m["type"] == "redirect":
            port = int(m["url"].rsplit(":", 1)[1].split("/")[0])
            assert port in port_of_url
            await c.close()
            c2 = Client(await __import__("websockets").connect(m["url"], max_queue=None))
            w = await c2.hello(c.name, c.token)
            assert w["table"]["table"] == m["table"]
            c2.table, c2.seat, c2.seat_token = m["table"], w["table"]["seat"], w["table"]["seat_token"]
            await c2.send({"type": "resume", "table": c2.table, "seat_token": c2.seat_token})
            await c2.expect("obs")
            c2.redirected = True
            return c2


def test_two_processes_share_queue_matchmaker_and_coins(pg_url, tmp_path):
    ports = [_free_port(), _free_port()]
    procs = [_start(pg_url, p, str(tmp_path / f"s{i}.log")) for i, p in enumerate(ports)]
    try:
        end = time.time() + 20
        while time.time() < end:
            leaders = [_status(p)["matchmaker"] for p in ports]
            if sum(leaders) == 1:
                break
            time.sleep(0.2)
        assert sum(leaders) == 1, leaders  # exactly one matchmaker

        async def hand(names_ports, room):
            cs = [await _login(port, name) for name, port in names_ports]
            for c in cs:
                await c.send({"type": "join", "room": room})
                await c.expect("queued")
            cs = [await _seat(c, ports) for c in cs]
            # the table lives in one process; the players connected to the other were redirected there
            host = {c.ws.remote_address[1] for c in cs}
            assert len(host) == 1
            assert [c.redirected for c in cs] == [port not in host for _, port in names_ports]
            assert len({c.table for c in cs}) == 1 and sorted(c.seat for c in cs) == list(range(len(cs)))
            results = await play_out(cs, timeout=60)
            for c in cs:
                await c.close()
            return cs, results[0]

        async def first():
            p0, p1 = ports
            games = await asyncio.gather(
                hand([("ann", p0), ("bob", p1)], "score"),
                hand([("cat", p0), ("dan", p1), ("eve", p1)], "novice"),
                hand([("fay", p1), ("gus", p0), ("hal", p1), ("ivy", p0)], "bengbu"))
            s = open_storage(pg_url)
            await s.open()
            try:
                for (cs, r), variant in zip(games, ("two_player", "classic", "bengbu")):
                    row = await s.hand(cs[0].table)
                    assert row.status == "done" and sorted(row.players) == sorted(c.name for c in cs)
                    assert row.variant == variant and replays(row.record, r["result"])
                    grant = 10_000 if r["ledger"] == "coins" else 0
                    for c in cs:
                        assert (await s.balances(c.name))[r["ledger"]] == grant + r["settlement"]["changes"][c.seat]
                for ledger in ("coins", "twop_score", "bengbu"):
                    t = await s.totals(ledger)
                    assert t["balances"] + t["rake"] - t["house"] == t["granted"]
            finally:
                await s.close()
        asyncio.run(asyncio.wait_for(first(), 120))

        # the matchmaker dies: the other process takes the lock over and matches
        lead = leaders.index(True)
        procs[lead].kill()
        procs[lead].wait(10)
        other = ports[1 - lead]
        end = time.time() + 20
        while time.time() < end and not _status(other)["matchmaker"]:
            time.sleep(0.2)
        assert _status(other)["matchmaker"]

        async def second():
            _, r = await hand([("jon", other), ("kim", other)], "score")
            assert r["result"]["kind"] == "normal"
        asyncio.run(asyncio.wait_for(second(), 90))
    finally:
        for p in procs:
            p.kill()
            p.wait(10)
