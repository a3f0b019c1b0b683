"""Hands that outlive their server (issue #41): every event of a table is stored before anyone
is told of it, so a server killed (SIGKILL) and started again on its database resumes every
hand left live; players take their seats back, the hands finish, every coin moves once.

Each test compares what every client was told with the stored records (``_chaos.check_hands``):
no acknowledged action lost, every message a seat got agrees with the engine's view of that
seat and names no hidden card (the ``welcome`` that gives the seat back after a restart too),
no escape charged for the server's fault, nothing void, the ledgers conserved."""
from __future__ import annotations

import asyncio
import json
import logging
import random
import sqlite3

import pytest

pytest.importorskip("websockets")

from ddz.server.storage import SCHEMA_VERSION, open_storage  # noqa: E402

from _chaos import Player, Serve, check_hands  # noqa: E402
from _client import Client, play_out, running  # noqa: E402
from _util import free_port, run  # noqa: E402


async def _until(cond, limit, step=0.05):
    loop = asyncio.get_running_loop()
    end = loop.time() + limit
    while not cond():
        if loop.time() > end:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(step)


def _served(srv, main, limit):
    """Runs ``main`` (which starts ``srv``), kills what it leaves running; the server's log,
    which shows no traceback and no hand it could not resume."""
    try:
        run(main, limit)
    finally:
        srv.stop()
    log = srv.tail(1_000_000)
    assert "Traceback" not in log and "cannot be resumed" not in log, log[-3000:]
    return log


async def _checked(db, players):
    store = open_storage(db)
    await store.open()
    try:
        return await check_hands(store, players)
    finally:
        await store.close()


def test_sigkill_then_restart_resumes_every_hand(db_url, tmp_path):
    """A real ``ddz serve`` (SQLite, then PostgreSQL) with four tables in play (CLASSIC3 of three
    people through the matchmaker, TWOP of two, BENGBU4 and CLASSIC3 with bots) is killed with
    SIGKILL mid-hand and started again: each player reconnects, finds its table in ``welcome``,
    resumes, and every hand plays to its end (it used to be void)."""
    port = free_port()
    srv = Serve(db_url, port, str(tmp_path / "serve.log"), "--bot-delay", "0.05", "--resume-grace", "3",
                "--match-interval", "0.1")
    rng = random.Random(41)
    players = ([Player(port, n, "novice", False, rng, think=(0.05, 0.15)) for n in ("ann", "bob", "cat")]
               + [Player(port, n, "score", False, rng, think=(0.05, 0.15)) for n in ("dan", "eve")]
               + [Player(port, "fay", "bengbu", True, rng, think=(0.05, 0.15)),
                  Player(port, "gus", "novice", True, rng, think=(0.05, 0.15))])

    async def main():
        srv.start()
        tasks = [asyncio.create_task(p.run(90)) for p in players]
        # every table has had a few events told to its players
        await _until(lambda: all(len(p.told.get(p.table or "", [])) >= 4 for p in players), 30)
        srv.kill()
        assert not any(p.results for p in players)
        await asyncio.sleep(0.5)  # the players find the server gone
        srv.start()
        await asyncio.wait_for(asyncio.gather(*tasks), 90)
        assert all(p.done for p in players), [p.name for p in players if not p.done]
        assert sum(p.reconnects for p in players) >= len(players)
        counts = await _checked(db_url, players)
        assert counts["hands"] == 4
        assert srv.term() == 0

    assert "resumed 4 hands" in _served(srv, main(), 200)


def test_a_hand_that_cannot_be_resumed_is_void_alone(tmp_path, caplog):
    """Stored live hands whose start or log is broken (an action the engine refuses, an event
    missing, a room this server does not serve, a start record cut short, a hand begun before
    the log) do not stop the start: each of those is void with a one-line reason in the log,
    its player told in ``welcome``; the sound hand resumes and is played to its end."""
    db = str(tmp_path / "db.sqlite3")
    names = ["ann", "bob", "cat", "dan", "eve", "fay"]

    async def first():
        async with running(db, bot_delay_s=0.0) as srv:
            cs = []
            for n in names:
                c = await Client.connect(srv.port)
                await c.hello(n)
                await c.send({"type": "join", "room": "score", "bots": True})
                await c.expect("matched")
                cs.append(c)
            await asyncio.sleep(0.3)
            for c in cs:
                await c.ws.close()
            return {c.name: (c.token, c.table) for c in cs}
    seats = run(first())
    con = sqlite3.connect(db)
    tid = {n: seats[n][1] for n in names}
    n_of = {h: con.execute("SELECT count(*) FROM hand_actions WHERE hand_id = ?", (h,)).fetchone()[0]
            for h in tid.values()}
    # five 2s: no seat of a one-deck hand holds them, so the event fails in any state of the hand
    # (four 2s replayed when seat 0 held them and was to lead)
    con.execute("INSERT INTO hand_actions VALUES (?, ?, ?)", (tid["bob"], n_of[tid["bob"]] + 1, '[0, "PLAY 22222"]'))
    con.execute("INSERT INTO hand_actions VALUES (?, ?, ?)", (tid["cat"], n_of[tid["cat"]] + 2, '[0, "AWAY"]'))
    con.execute("UPDATE hands SET start = replace(start, '\"room\": \"score\"', '\"room\": \"gone\"') WHERE id = ?",
                (tid["dan"],))
    con.execute("UPDATE hands SET start = substr(start, 1, 30) WHERE id = ?", (tid["eve"],))
    con.execute("UPDATE hands SET start = NULL WHERE id = ?", (tid["fay"],))
    con.commit()
    con.close()

    async def second():
        with caplog.at_level(logging.ERROR, logger="ddz.server"):
            async with running(db, bot_delay_s=0.0) as srv:
                await srv._resume_task
                lines = [r.getMessage() for r in caplog.records if "cannot be resumed" in r.getMessage()]
                assert len(lines) == 5 and all("\n" not in x for x in lines), lines
                for n, why in (("bob", "does not replay"), ("cat", "lacks event"), ("dan", "is not served"),
                               ("eve", "start record is broken"), ("fay", "before hands were logged")):
                    assert any(tid[n] in x and why in x for x in lines), (n, lines)
                    c = await Client.connect(srv.port)
                    w = await c.hello(n, seats[n][0])
                    assert w["void_hands"] == [tid[n]] and "table" not in w, w
                    await c.close()
                    assert (await srv.storage.hand(tid[n])).status == "void"
                c = await Client.connect(srv.port)
                w = await c.hello("ann", seats["ann"][0])
                assert w["table"]["table"] == tid["ann"] and w["void_hands"] == []
                c.table, c.seat, c.seat_token = tid["ann"], w["table"]["seat"], w["table"]["seat_token"]
                await c.send({"type": "resume", "table": c.table, "seat_token": c.seat_token})
                assert (await play_out([c]))[0]["type"] == "result"
                await c.close()
    run(second())


def test_an_older_database_migrates_on_start(tmp_path):
    """A database of schema version 1 (no hand log: made before issue #41) gets the log's
    column and table and its version on the first start; a hand it left live cannot be
    resumed (nothing to resume it from) and is void; a database of a newer version is refused."""
    db = str(tmp_path / "old.sqlite3")
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE hands (id TEXT PRIMARY KEY, room TEXT NOT NULL, variant TEXT NOT NULL, players TEXT "
                "NOT NULL, status TEXT NOT NULL, host TEXT NOT NULL, started DOUBLE PRECISION NOT NULL, ended DOUBLE "
                "PRECISION, record TEXT, result TEXT, settlement TEXT)")
    con.execute("INSERT INTO hands VALUES ('h1', 'score', 'two_player', ?, 'live', 'x', 1, NULL, NULL, NULL, NULL)",
                (json.dumps(["ann", "~bot-1"]),))
    con.commit()
    con.close()

    async def main():
        async with running(db) as srv:
            await srv._resume_task
            assert (await srv.storage.hand("h1")).status == "void"
        con = sqlite3.connect(db)
        assert con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == str(SCHEMA_VERSION)
        con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
        con.commit()
        con.close()
        s = open_storage(db)
        with pytest.raises(ValueError, match="newer than this ddz"):
            await s.open()
        await s.close()
    run(main())


def test_chaos_seeded_kills_and_a_drain(tmp_path):
    """Seeded chaos, on SQLite: players at seven tables of every variant, two hands each, the
    server killed (SIGKILL) three times at seeded moments and once stopped (SIGTERM, a drain of
    1 s), started again each time; every hand ends, as ``check_hands`` wants."""
    rng = random.Random(20261206)
    port = free_port()
    db = str(tmp_path / "db.sqlite3")
    srv = Serve(db, port, str(tmp_path / "serve.log"), "--bot-delay", "0.05", "--resume-grace", "2",
                "--match-interval", "0.1", "--drain-timeout", "1")
    think = (0.02, 0.3)
    players = ([Player(port, f"c{i}", "novice", False, rng, hands=2, think=think) for i in range(3)]
               + [Player(port, f"t{i}", "score", False, rng, hands=2, think=think) for i in range(2)]
               + [Player(port, f"b{i}", room, True, rng, hands=2, think=think)
                  for i, room in enumerate(["novice", "score", "bengbu", "coin_junior", "bengbu_300"])])

    async def main():
        srv.start()
        tasks = [asyncio.create_task(p.run(80)) for p in players]
        for i in range(4):
            await asyncio.sleep(rng.uniform(1.0, 4.0))
            if i < 3:
                srv.kill()
            else:
                assert await asyncio.to_thread(srv.term) == 0
            await asyncio.sleep(rng.uniform(0.0, 1.0))
            srv.start()
        await asyncio.wait_for(asyncio.gather(*tasks), 85)
        assert all(p.done for p in players), [p.name for p in players if not p.done]
        counts = await _checked(db, players)
        assert counts["hands"] >= 10
        assert srv.term() == 0

    _served(srv, main(), 120)


def test_two_processes_adopting_at_once_split_the_hands_and_the_old_owner_is_fenced(pg_url):
    """Two survivors taking a dead process's hands over at once (``adopt_live_hands``, one
    statement each) split them: no hand goes to both, none is left. The dead process's log rows
    are refused from then on (``append_actions`` reports those hands lost), the new owner's
    are stored, and a row already stored is not stored twice."""
    async def main():
        stores = [open_storage(pg_url) for _ in range(3)]
        for s in stores:
            await s.open()
        try:
            old, a, b = stores
            ids = [f"h{i:03d}" for i in range(60)]
            for h in ids:
                await old.start_hand(h, "score", "two_player", ["ann", "~bot-1"], "dead", "{}")
            assert await old.append_actions([(h, 1, '[0, "SHOW_START"]') for h in ids], "dead") == []
            got_a, got_b = await asyncio.gather(a.adopt_live_hands("a", ["dead"]), b.adopt_live_hands("b", ["dead"]))
            assert not set(got_a) & set(got_b) and sorted(got_a + got_b) == ids
            assert sorted(await old.append_actions([(h, 2, '[1, "NO_SHOW"]') for h in ids], "dead")) == ids
            mine = got_a[:1] or got_b[:1]
            owner = "a" if got_a else "b"
            assert await a.append_actions([(mine[0], 2, '[1, "NO_SHOW"]')], owner) == []
            assert await a.append_actions([(mine[0], 2, '[1, "PASS"]')], owner) == mine  # n 2 is stored already
            (hand,) = await a.live_hands(owner, mine)
            assert hand.ops == [(1, '[0, "SHOW_START"]'), (2, '[1, "NO_SHOW"]')]
        finally:
            for s in stores:
                await s.close()
    run(main())
