"""Two ``ddz serve --cluster`` processes on loopback sharing one PostgreSQL database: one
queue, one matchmaker at a time (an advisory lock; the other takes over when it dies), a
table in one process and its players connected to the other redirected there, balances and
records shared; a hand of each variant (TWOP, CLASSIC3 through ddz.Matchmaker, BENGBU4) at
once, their players spread over both processes. One account waits or sits in one place in
the whole cluster (two joins at once through two processes: one is refused, neither
connection harmed), and a process that dies has its hands taken over by the survivor, which
resumes them and redirects their players within the cluster timeout."""
from __future__ import annotations

import asyncio
import json
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
from _util import free_port  # noqa: E402


def _status(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=5) as r:
        return json.loads(r.read())


def _start(db, port, log, *extra):
    out = open(log, "w")
    p = subprocess.Popen([sys.executable, "-m", "ddz.cli", "serve", "--db", db, "--cluster", "--port", str(port),
                          "--match-interval", "0.2", "--bot-delay", "0.5", *extra],
                         stdout=out, stderr=subprocess.STDOUT)
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


async def _first_of(c, kinds, timeout=10):
    while True:
        m = await c._recv(timeout)
        if m["type"] in kinds:
            return m


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
    ports = [free_port(), free_port()]
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


def test_one_account_one_place_and_a_dead_process_hands_taken_over(pg_url, tmp_path):
    timeout = 2.0  # --cluster-timeout: a process without a heartbeat this long is gone
    ports = [free_port(), free_port()]
    procs = [_start(pg_url, p, str(tmp_path / f"s{i}.log"), "--cluster-timeout", str(timeout), "--bot-delay", "30")
             for i, p in enumerate(ports)]
    p0, p1 = ports
    try:
        async def main():
            # the same account on both processes: two joins at once, one queued, one refused
            a0 = await _login(p0, "ann")
            a1 = await _login(p1, "ann", a0.token)
            await asyncio.gather(a0.send({"type": "join", "room": "score"}),
                                 a1.send({"type": "join", "room": "novice"}))
            replies = [await _first_of(c, ("queued", "error")) for c in (a0, a1)]
            kinds = sorted(m["type"] for m in replies)
            assert kinds == ["error", "queued"], replies
            assert next(m for m in replies if m["type"] == "error")["code"] == "queued"
            for c in (a0, a1):  # neither connection was harmed
                await c.send({"type": "ping"})
                await c.expect("pong")
            waiting = a0 if replies[0]["type"] == "queued" else a1
            await waiting.send({"type": "leave_queue"})
            await waiting.expect("left_queue")
            # seated with bots on process 0: no join anywhere else
            await a0.send({"type": "join", "room": "novice", "bots": True})
            bots_table = (await a0.expect("matched"))["table"]
            for msg in ({"type": "join", "room": "score"}, {"type": "join", "room": "score", "bots": True}):
                await a1.send(msg)
                assert (await a1.expect("error"))["code"] == "seated"
            # a table of process 0 with a player connected to process 1 (redirected, stays)
            cat = await _login(p0, "cat")
            await cat.send({"type": "join", "room": "score"})
            await cat.expect("queued")
            await asyncio.sleep(0.5)  # cat waits longest: the table goes to cat's process
            bob = await _login(p1, "bob")
            await bob.send({"type": "join", "room": "score"})
            table = (await cat.expect("matched"))["table"]
            assert (await bob.expect("redirect"))["table"] == table
            # process 0 dies: process 1 takes its hands over and resumes them (issue #41: it
            # used to void them); its players connected to 1 are sent a redirect there
            procs[0].kill()
            procs[0].wait(10)
            died = time.monotonic()
            url1 = f"ws://127.0.0.1:{p1}/ws"
            await bob.expect("redirect", timeout=timeout + 10, table=table, url=url1)
            assert time.monotonic() - died < timeout + 5
            await a1.expect("redirect", timeout=5, table=bots_table, url=url1)  # (its first was to process 0)
            s = open_storage(pg_url)
            await s.open()
            try:
                assert (await s.hand(table)).status == "live" and (await s.hand(bots_table)).status == "live"
                assert (await s.hand(table)).host == (await s.hand(bots_table)).host  # the survivor
                assert (await s.balances("bob"))["twop_score"] == 0
            finally:
                await s.close()
            # the players of the hand log in to the survivor: their welcome names the table;
            # resume and play it to its end
            cat2 = await _login(p1, "cat", cat.token)
            bob2 = await _login(p1, "bob", bob.token)
            ann2 = await _login(p1, "ann", a0.token)
            for c in (cat2, bob2, ann2):
                w = [m for m in c.seen if m["type"] == "welcome"][-1]
                assert w["void_hands"] == [] and not w["table"]["over"], w
                c.table, c.seat, c.seat_token = w["table"]["table"], w["table"]["seat"], w["table"]["seat_token"]
            assert cat2.table == bob2.table == table and ann2.table == bots_table
            for c in (cat2, bob2):
                await c.send({"type": "resume", "table": table, "seat_token": c.seat_token})
            results = await play_out([cat2, bob2], timeout=60)
            assert all(r["type"] == "result" and r["table"] == table for r in results)
            s = open_storage(pg_url)
            await s.open()
            try:
                row = await s.hand(table)
                assert row.status == "done" and replays(row.record, row.result)
                t = await s.totals("twop_score")
                assert t["balances"] - t["house"] == t["granted"]
            finally:
                await s.close()
            # they may play again: their places were freed
            for c in (cat2, bob2):
                await c.send({"type": "join", "room": "score"})
                await c.expect("queued")
            assert (await cat2.expect("matched", timeout=20))["table"] == (await bob2.expect("matched", timeout=20))["table"]
            for c in (a0, a1, cat, bob, cat2, bob2, ann2):
                await c.close()
        asyncio.run(asyncio.wait_for(main(), 120))
        survivor = open(tmp_path / "s1.log").read()
        assert "Traceback" not in survivor and "1011" not in survivor, survivor[-3000:]
    finally:
        for p in procs:
            p.kill()
            p.wait(10)
