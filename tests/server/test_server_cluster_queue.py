"""The shared queue of a cluster and its redirects (issue #41, item 0), on two ``Server``
instances in one event loop sharing one PostgreSQL database, with real WebSocket clients.

Their cluster rounds (heartbeat, reaper, matchmaker, opening tables, redirects) are run by
the test, one at a time (``rounds``), instead of every ``--match-interval``: each step
happens exactly when the test says, so the tests need no sleeps to wait for the
matchmaker, and a redirect that is not sent is not merely late. Process A's first round
runs first, so A is the matchmaker.

* A redirect is sent only for the player's current queue entry: its ``cluster_queue`` row
  names the table, the table's hand is ``live``, and the host running it is alive (its
  heartbeat within ``cluster_dead_s``). Never to a hand that has ended, never to a dead
  process's table.
* ``leave_queue`` answers by the shared queue: ``left_queue`` when the account's row was
  still waiting (it is deleted, so the matchmaker can never seat it); ``error`` ``not_queued``
  when the matchmaker has seated it (its ``matched`` or ``redirect`` follows).
* A disconnect deletes the waiting row the connection's process wrote.
"""
from __future__ import annotations

import asyncio
import contextlib

import pytest

websockets = pytest.importorskip("websockets")
pytest.importorskip("asyncpg")

from ddz.server import cluster as cluster_module  # noqa: E402

from _client import Client, play_out, running  # noqa: E402
from _util import run  # noqa: E402


async def _idle(cluster, interval):
    await asyncio.Event().wait()  # the test runs the rounds (cancelled by Server.stop)


@contextlib.asynccontextmanager
async def two_processes(pg_url, monkeypatch, **config):
    """Servers A and B of one cluster; A is the matchmaker."""
    monkeypatch.setattr(cluster_module, "run", _idle)
    async with running(pg_url, cluster=True, host_id="host-a", **config) as a, \
            running(pg_url, cluster=True, host_id="host-b", **config) as b:
        await rounds(a, b)
        assert a.cluster.leader and not b.cluster.leader
        yield a, b


async def rounds(*servers, n=1):
    for _ in range(n):
        for s in servers:
            await s.cluster.round()


async def login(srv, name, token=None):
    c = await Client.connect(srv.port)
    await c.hello(name, token)
    return c


async def join(c, room="score"):
    await c.send({"type": "join", "room": room})
    await c.expect("queued")


async def received(c, kind):
    """The messages of type ``kind`` ``c`` has received so far (a ping's pong first: all
    the server sent before it is in)."""
    await c.send({"type": "ping"})
    await c.expect("pong")
    return [m for m in c.seen if m["type"] == kind]


async def answer(c):
    """The answer to a ``leave_queue``: ``left_queue`` or an ``error``."""
    while True:
        m = await c._recv(10)
        if m["type"] in ("left_queue", "error"):
            return m
        c.inbox.append(m)


async def queue_row(srv, name):
    async with srv.storage.pool().acquire() as c:
        return await c.fetchrow("SELECT host, table_id FROM cluster_queue WHERE name = $1", name)


async def live_hands_of(srv, name):
    async with srv.storage.pool().acquire() as c:
        return [r["id"] for r in await c.fetch(
            "SELECT h.id FROM hands h JOIN hand_players p ON p.hand_id = h.id "
            "WHERE p.name = $1 AND h.status = 'live'", name)]


async def hand_on_a(a, b, names):
    """``names`` log in to A, join the score room (TWOP) and are seated together there."""
    cs = [await login(a, n) for n in names]
    for c in cs:
        await join(c)
    await rounds(a, b)
    for c in cs:
        await c.expect("matched")
    assert len({c.table for c in cs}) == 1 and c.table in a.tables
    return cs


def test_an_absent_player_is_never_seated_by_an_old_redirect(pg_url, monkeypatch):
    """The report's five steps: a player finishes a hand on A; it logs in on B and joins
    (``queued``), and is sent no redirect to the finished hand; its ``leave_queue`` is
    answered ``left_queue`` and its row goes; it disconnects; the next players to join on B
    are seated with each other, not with it, and its balance does not move."""
    async def main():
        async with two_processes(pg_url, monkeypatch) as (a, b):
            ann, bob = await hand_on_a(a, b, ["ann", "bob"])          # 1. a hand on A, played out
            done = ann.table
            await play_out([ann, bob])
            await ann.close()
            await bob.close()
            balance = (await b.storage.balances("ann"))["twop_score"]

            ann = await login(b, "ann", ann.token)                  # 2. on B: queued, and no redirect
            await join(ann)
            await rounds(a, b, n=2)
            assert await received(ann, "redirect") == [], f"redirected to {done} (finished)"
            await ann.send({"type": "leave_queue"})                 # 3. out of the shared queue
            assert (await answer(ann))["type"] == "left_queue"
            assert await queue_row(b, "ann") is None
            await ann.close()                                       # 4. gone
            await rounds(a, b)

            cat = await login(b, "cat")                             # 5. the next two players
            await join(cat)
            await rounds(a, b)
            assert await received(cat, "matched") == []             # nobody to play with
            dan = await login(b, "dan")
            await join(dan)
            await rounds(a, b)
            m = await cat.expect("matched")
            assert sorted(m["players"]) == ["cat", "dan"] and (await dan.expect("matched"))["table"] == m["table"]
            assert await live_hands_of(b, "ann") == []
            assert (await b.storage.balances("ann"))["twop_score"] == balance
            await cat.close()
            await dan.close()
    run(main(), 60)


def test_no_redirect_to_a_hand_that_has_ended(pg_url, monkeypatch):
    """A row its table's end did not free (``_claim`` frees such rows at the next join) still
    names the finished hand: a connection of the player on the other process is not sent there,
    neither before it joins again nor after."""
    async def main():
        async with two_processes(pg_url, monkeypatch) as (a, b):
            monkeypatch.setattr(a.cluster, "release_later", lambda table_id: None)
            ann, bob = await hand_on_a(a, b, ["ann", "bob"])
            await play_out([ann, bob])
            assert (await queue_row(a, "ann"))["table_id"] == ann.table  # not freed
            ann_b = await login(b, "ann", ann.token)
            await rounds(a, b, n=2)
            assert await received(ann_b, "redirect") == []
            await join(ann_b)
            await rounds(a, b, n=2)
            assert await received(ann_b, "redirect") == []
            assert (await queue_row(b, "ann"))["table_id"] is None
            for c in (ann, bob, ann_b):
                await c.close()
    run(main(), 60)


def test_no_redirect_to_a_dead_processs_table(pg_url, monkeypatch):
    """A's heartbeat stops while a hand it runs is live: a connection of one of its players
    to B is not sent to A (its rule on its own: the reaper that would take the hand over first
    in B's round may be another process, not yet committed), then B's round takes the hand
    over and resumes it, and tells the player connected to B to reconnect there (``redirect``
    to B; issue #41: the hand used to be void). A, its loop back, cannot store another event of
    the hand (its rows are refused: the hand is B's): its table stops, its player is sent to B."""
    async def main():
        async with two_processes(pg_url, monkeypatch, cluster_dead_s=0.3) as (a, b):
            ann, bob = await hand_on_a(a, b, ["ann", "bob"])
            table = ann.table
            ann_b = await login(b, "ann", ann.token)
            await asyncio.sleep(0.5)  # A runs no more rounds: its heartbeat is older than cluster_dead_s
            await b.cluster.heartbeat()
            assert await live_hands_of(b, "ann") == [table]
            assert (await queue_row(b, "ann"))["table_id"] == table
            await b.cluster._redirect()
            assert await received(ann_b, "redirect") == []
            await b.cluster.round()  # the reaper: the hand is B's now, resumed there
            await b._resume_task
            assert table in b.tables and (await b.storage.hand(table)).host == b.config.host_id
            assert (await ann_b.expect("redirect")) == {"type": "redirect", "table": table, "url": b.cluster.url}
            assert (await queue_row(b, "ann"))["table_id"] == table  # still seated: the hand goes on
            ta = a.tables[table]
            ta.escape(ta.game.current_seat)  # A's next event: refused by the database, A's table stops
            await a.journal.flush()
            assert table not in a.tables and ta.frozen
            assert (await ann.expect("redirect")) == {"type": "redirect", "table": table, "url": b.cluster.url}
            assert (await b.storage.hand(table)).status == "live"
            for c in (ann, bob, ann_b):
                await c.close()
    run(main(), 60)


def test_leave_queue_once_matched_is_refused_and_the_redirect_follows(pg_url, monkeypatch):
    """Matched into a table of A, not yet redirected by B: ``leave_queue`` is answered
    ``not_queued`` (the account is seated; it was never told ``left_queue`` and then seated),
    before A opens the table and after; B's next round redirects it, and it resumes there.
    A player queued through A leaves through its connection to B. A player who disconnects
    while waiting loses its row at once."""
    async def main():
        async with two_processes(pg_url, monkeypatch) as (a, b):
            bob = await login(a, "bob")
            await join(bob)  # the longest waiter: the table goes to A
            ann = await login(b, "ann")
            token = ann.token
            await join(ann)
            await a.cluster._match()  # matched, the table not yet opened
            table = (await queue_row(a, "ann"))["table_id"]
            assert table is not None and (await queue_row(a, "bob"))["table_id"] == table
            await ann.send({"type": "leave_queue"})
            assert (await answer(ann)).get("code") == "not_queued"
            await a.cluster.round()  # A opens it
            assert (await bob.expect("matched"))["table"] == table
            await ann.send({"type": "leave_queue"})
            assert (await answer(ann)).get("code") == "not_queued"
            assert await received(ann, "left_queue") == [] and await received(ann, "redirect") == []
            await b.cluster.round()
            m = await ann.expect("redirect")
            assert m["table"] == table and m["url"] == a.cluster.url
            await ann.close()
            ann = Client(await websockets.connect(m["url"], max_queue=None))  # where the redirect says
            w = await ann.hello("ann", token)
            assert w["table"]["table"] == table
            await ann.send({"type": "resume", "table": table, "seat_token": w["table"]["seat_token"]})
            await ann.expect("obs")
            await ann.close()
            await bob.close()

            # the shared queue answers, not the process the join went through
            eve = await login(a, "eve")
            await join(eve)
            eve_b = await login(b, "eve", eve.token)
            await eve_b.send({"type": "leave_queue"})
            assert (await answer(eve_b))["type"] == "left_queue"
            assert await queue_row(a, "eve") is None
            await eve.send({"type": "leave_queue"})
            assert (await answer(eve)).get("code") == "not_queued"
            await eve.close()
            await eve_b.close()

            # a waiting player who disconnects: its row goes, nobody is seated with it
            cat = await login(b, "cat")
            await join(cat)
            await cat.close()
            for _ in range(100):
                if await queue_row(b, "cat") is None:
                    break
                await asyncio.sleep(0.01)
            assert await queue_row(b, "cat") is None
            dan = await login(b, "dan")
            await join(dan)
            await rounds(a, b, n=2)
            assert await received(dan, "matched") == [] and await received(dan, "redirect") == []
            await dan.close()
    run(main(), 60)
