"""How ``ddz serve`` starts and stops: one process owns its database (a second server on the
same SQLite file, or a lone server and a cluster on one PostgreSQL database, is refused
before it touches a hand), the port is bound before the database is opened, a start that
cannot happen says why in one line, SIGTERM drains the server as SIGINT does (no new table,
the hands in play finish, then the connections are closed with 1001; past --drain-timeout the
hands left stay stored and the next start resumes them), and every option's help gives its
default."""
from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket

import pytest

pytest.importorskip("websockets")

from websockets.exceptions import ConnectionClosed  # noqa: E402

from ddz.cli import build_parser  # noqa: E402
from ddz.server import Server, ServerConfig  # noqa: E402
from ddz.server.audit import replays  # noqa: E402
from ddz.server.storage import StorageError, open_storage  # noqa: E402

from _client import Client, play_out, running  # noqa: E402
from _util import SERVE, free_port, run  # noqa: E402


async def _serve_fails(*args):
    """``ddz serve ARGS`` run to its end (it must not start): (exit code, stdout, stderr)."""
    p = await asyncio.create_subprocess_exec(*SERVE, *args, stdout=asyncio.subprocess.PIPE,
                                             stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(p.communicate(), 60)
    except asyncio.TimeoutError:
        p.kill()
        await p.wait()
        raise AssertionError("the second ddz serve started instead of refusing")
    return p.returncode, out.decode(), err.decode()


def _one_line(err):
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


async def _live_hand(port):
    """A client at a table with bots, its seat to act (the hand waits for it)."""
    c = await Client.connect(port)
    c.welcome = await c.hello("ann")
    await c.send({"type": "join", "room": "novice", "bots": True})
    await c.expect("matched")
    for _ in range(100):
        o = (await c.latest_obs(0.2))["obs"]
        if o["current_seat"] == c.seat and o["legal_actions"]:
            return c
    raise AssertionError("seat 0 was never to act")


def test_a_second_server_on_the_same_sqlite_file_is_refused_and_voids_nothing(tmp_path):
    """Server A plays a hand; ``ddz serve`` on A's file fails in one line, on A's (busy) port
    and on a free one, and A's hand stays live and is played to its result. (Before, the
    second server voided A's live hands before it even tried its port.)"""
    db = str(tmp_path / "db.sqlite3")

    async def main():
        async with running(db, bot_delay_s=0.0) as srv:
            c = await _live_hand(srv.port)
            code, _, err = await _serve_fails("--db", db, "--port", str(srv.port))
            line = _one_line(err)
            assert code == 2 and "cannot listen on" in line and "in use" in line, line
            assert (await srv.storage.hand(c.table)).status == "live"
            code, _, err = await _serve_fails("--db", db, "--port", str(free_port()))
            line = _one_line(err)
            assert code == 2 and "is in use by another server" in line and f"pid {os.getpid()}" in line, line
            # in the same process too: the lock is on the file, not on the process
            with pytest.raises(StorageError, match="in use by another server"):
                await Server(ServerConfig(db="sqlite:///" + db)).start("127.0.0.1", 0)
            assert (await srv.storage.hand(c.table)).status == "live"
            r = await play_out([c])
            assert r[0]["type"] == "result" and (await srv.storage.hand(c.table)).status == "done"
            await c.close()
        # A stopped: its file is free again
        async with running(db) as again:
            assert again.port
    run(main())


def test_one_postgresql_database_has_one_lone_server_or_one_cluster(pg_url):
    """A second lone server, or a cluster process, on the database of a running lone server
    is refused and voids none of its hands."""
    async def main():
        async with running(pg_url, bot_delay_s=0.0) as srv:
            c = await _live_hand(srv.port)
            for cluster in (False, True):
                with pytest.raises(StorageError, match="in use by another server"):
                    await Server(ServerConfig(db=pg_url, cluster=cluster)).start("127.0.0.1", 0)
            assert (await srv.storage.hand(c.table)).status == "live"
            await play_out([c])
            await c.close()
    run(main())


def test_a_start_that_cannot_happen_is_one_line(tmp_path):
    """A port in use, a SQLite file in a directory that does not exist or that is not a
    database, a PostgreSQL server that is not there: one line on stderr, exit 2, no
    traceback; a busy port leaves the database untouched (never created)."""
    async def main():
        with socket.socket() as busy:
            busy.bind(("127.0.0.1", 0))
            busy.listen()
            port = busy.getsockname()[1]
            db = tmp_path / "never.sqlite3"
            code, _, err = await _serve_fails("--db", str(db), "--port", str(port))
            assert code == 2 and "cannot listen on 127.0.0.1:" in _one_line(err)
            assert not db.exists() and not (tmp_path / "never.sqlite3.lock").exists()
        free = str(free_port())
        code, _, err = await _serve_fails("--db", str(tmp_path / "no" / "such" / "dir.sqlite3"), "--port", free)
        assert code == 2 and "cannot open the SQLite database" in _one_line(err)
        junk = tmp_path / "junk.sqlite3"
        junk.write_bytes(b"this is not a database" * 100)
        code, _, err = await _serve_fails("--db", str(junk), "--port", free)
        assert code == 2 and "cannot open the SQLite database" in _one_line(err)
        code, _, err = await _serve_fails("--db", f"postgresql://ddz:secret@127.0.0.1:{free_port()}/ddz",
                                          "--port", free)
        line = _one_line(err)
        assert code == 2 and "cannot open the PostgreSQL database" in line and "secret" not in line, line
    run(main())


@contextlib.asynccontextmanager
async def _serve(db, port, *extra):
    """``ddz serve`` in a child process, once it says it serves; killed at the end if it runs."""
    p = await asyncio.create_subprocess_exec(*SERVE, "--db", db, "--port", str(port), "--bot-delay", "0", *extra,
                                             stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        line = await asyncio.wait_for(p.stdout.readline(), 60)
        while b"ddz serve:" not in line:
            line = await asyncio.wait_for(p.stdout.readline(), 60)
        yield p
    finally:
        if p.returncode is None:
            p.kill()
            await p.wait()


@contextlib.asynccontextmanager
async def _stored(db):
    """The database, opened (no server runs on it)."""
    s = open_storage(db)
    await s.open()
    try:
        yield s
    finally:
        await s.close()


async def _closed(x):
    """Reads ``x`` until its connection closes; the messages read."""
    got = []
    with pytest.raises(ConnectionClosed):
        while True:
            got.append(await x._recv(20))
    return got


@pytest.mark.parametrize("sig, loop", [(signal.SIGTERM, "auto"), (signal.SIGINT, "auto"),
                                       (signal.SIGTERM, "asyncio")])
def test_sigterm_drains_as_sigint_does(tmp_path, sig, loop):
    """``ddz serve`` receiving SIGTERM (as SIGINT) drains: a ``join`` is refused
    (``draining``), the hand in play goes on and ends with its result and its coins, then the
    seat and a spectator get a close frame 1001 (not an abrupt 1006), and the process exits 0
    with nothing void; on uvloop's loop (``auto`` where it is installed) and on asyncio's."""
    db = str(tmp_path / "db.sqlite3")
    port = free_port()

    async def main():
        async with _serve(db, port, "--loop", loop) as p:
            c = await _live_hand(port)
            w = await Client.connect(port)
            await w.hello("bob")
            await w.send({"type": "spectate", "table": c.table})
            await w.expect("obs")
            p.send_signal(sig)
            await asyncio.sleep(0.3)
            await w.send({"type": "join", "room": "novice", "bots": True})
            assert (await w.expect("error"))["code"] == "draining"
            r = (await play_out([c]))[0]
            assert r["type"] == "result"
            for x in (c, w):
                assert all(m["type"] != "void" for m in await _closed(x))
                assert x.ws.close_code == 1001, x.ws.close_code
            assert await asyncio.wait_for(p.wait(), 30) == 0
            out = (await p.stdout.read()).decode()
            assert "Traceback" not in out and "ddz serve: draining" in out and "ddz serve: stopped" in out
        async with _stored(db) as s:
            row = await s.hand(c.table)
            assert row.status == "done" and row.settlement == r["settlement"]
            assert await s.take_voids("ann") == []
    run(main())


def test_a_drain_that_times_out_leaves_the_hand_to_the_next_start(tmp_path):
    """``--drain-timeout`` runs out with a hand in play: the server exits 0 without voiding
    it (no ``void``, close 1001), the hand stays live with its log; the next start resumes it:
    the player's ``welcome`` names it, ``resume`` gives its view with every event it was
    told of, no escape is charged for the stop, and the hand ends with its result."""
    db = str(tmp_path / "db.sqlite3")
    port = free_port()

    async def main():
        async with _serve(db, port, "--drain-timeout", "1") as p:
            c = await _live_hand(port)
            seen = (await c.latest_obs(0.2))["obs"]["history"]
            p.send_signal(signal.SIGTERM)
            assert all(m["type"] != "void" for m in await _closed(c))
            assert c.ws.close_code == 1001
            assert await asyncio.wait_for(p.wait(), 30) == 0
        async with _serve(db, port) as p:
            d = await Client.connect(port)
            wel = await d.hello("ann", c.token)
            assert wel["void_hands"] == [] and wel["table"]["table"] == c.table and not wel["table"]["over"]
            d.table, d.seat, d.seat_token = c.table, wel["table"]["seat"], wel["table"]["seat_token"]
            await d.send({"type": "resume", "table": d.table, "seat_token": d.seat_token})
            o = (await d.expect("obs"))["obs"]
            assert o["history"][:len(seen)] == seen
            r = (await play_out([d]))[0]
            assert r["type"] == "result" and r["result"]["kind"] != "escape"
            assert not any(a == "ESCAPE" for _, a in o["history"])
            await d.close()
            p.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(p.wait(), 30) == 0
        async with _stored(db) as s:
            row = await s.hand(c.table)
            assert row.status == "done" and replays(row.record, row.result)
            assert "ESCAPE" not in row.record
    run(main())


def test_every_serve_option_has_help_with_its_default():
    """``ddz serve --help``: every option says what it does and what it is when not given."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    serve = sub.choices["serve"]
    options = [a for a in serve._actions if a.option_strings and a.dest != "help"]
    assert len(options) >= 20
    for a in options:
        assert a.help and len(a.help) > 15, a.option_strings
        assert "%(default)s" in a.help or "default" in a.help, a.option_strings
    text = " ".join(serve.format_help().split())  # the lines as wrapped joined again
    for default in ("127.0.0.1", "8000", "DATA/ddz-server.sqlite3", "10000", "0.6", "20.0", "40", "local", "0.5",
                    "10.0", "600.0"):
        assert f"default {default}" in text, default
