"""Who may do what: a connection replaced by a second login of its account is closed and
does nothing more; new accounts are limited per client address; server bots are a fixed
pool of system seats (no account made per table, the stake they settle with stated); a
stranger (no account) sees the rooms and nothing of who plays where; ``/api/status`` is an
operator's option."""
from __future__ import annotations

import asyncio
import contextlib
import types
import urllib.error
import urllib.request

import pytest

pytest.importorskip("websockets")

from websockets.exceptions import ConnectionClosed  # noqa: E402

from ddz.server import Server, ServerConfig  # noqa: E402
from ddz.server.app import BOT_NAMES, CLOSE_REPLACED, SignupLimit  # noqa: E402

from _client import Client, play_out, running  # noqa: E402
from _util import run  # noqa: E402


def _get(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


async def get(port, path):
    return await asyncio.to_thread(_get, port, path)


async def _count(srv, sql):
    async with srv.storage.tx() as tx:
        return (await tx.fetch(sql))[0][0]


# ---- a replaced connection ------------------------------------------------------------------

def test_a_replaced_connection_is_closed_and_can_no_longer_join(tmp_path):
    """After a second login of the same account the old connection gets ``replaced`` and is
    closed (code 4001); what it sends after that is not done: no queue, no table with bots,
    no ``matched`` for the new connection, no bot account's coins moved."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3")) as srv:
            old = await Client.connect(srv.port)
            await old.hello("ann")
            new = await Client.connect(srv.port)
            await new.hello("ann", old.token)
            assert (await old.expect("error"))["code"] == "replaced"
            with contextlib.suppress(ConnectionClosed):  # the close may already be on its way
                await old.send({"type": "join", "room": "novice", "bots": True})
                await old.send({"type": "join", "room": "score"})
                await old.send({"type": "tables"})
            with pytest.raises(ConnectionClosed):
                while True:
                    m = await old._recv(10)
                    assert m["type"] not in ("matched", "queued", "tables", "obs"), m
            assert old.ws.close_code == CLOSE_REPLACED
            await new.send({"type": "ping"})
            await new.expect("pong")
            assert "ann" not in srv.lobby.waiting and "ann" not in srv.tables.by_player and not srv.tables
            assert not [m for m in new.seen if m["type"] in ("matched", "queued")]
            assert srv.lobby.sessions["ann"].ws is not old.ws
            await new.close()
    run(main())


def test_a_replaced_connection_cannot_act_for_its_seat(tmp_path):
    """A seated connection replaced by a second login: its ``act`` is not applied; the new
    connection resumes the seat (its ``welcome`` names it) and acts."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), bot_delay_s=0.0) as srv:
            old = await Client.connect(srv.port)
            await old.hello("ann")
            await old.send({"type": "join", "room": "score", "bots": True})
            await old.expect("matched")
            t = srv.tables[old.table]
            while True:
                o = (await old.latest_obs(0.2))["obs"]
                if o["current_seat"] == old.seat:
                    break
            legal, seq = o["legal_actions"], t.seq
            srv.config.bot_delay_s = 30  # from now on a bot that plays ann's seat would not act within the test
            new = await Client.connect(srv.port)
            w = await new.hello("ann", old.token)
            assert w["table"]["table"] == old.table
            assert (await old.expect("error"))["code"] == "replaced"
            with contextlib.suppress(ConnectionClosed):
                await old.act(legal[0], seq)
            with pytest.raises(ConnectionClosed):
                while True:
                    await old._recv(10)
            assert not [a for s, a in t.game.history[len(o["history"]):] if s == old.seat], t.game.history
            new.table, new.seat, new.seat_token = old.table, old.seat, w["table"]["seat_token"]
            await new.send({"type": "resume", "table": new.table, "seat_token": new.seat_token})
            o2 = (await new.latest_obs(0.3))["obs"]
            assert o2["current_seat"] == new.seat and o2["legal_actions"]
            await new.act(o2["legal_actions"][0], (await new.latest_obs(0.1))["seq"])
            for _ in range(50):
                if any(s == new.seat for s, _a in t.game.history[len(o["history"]):]):
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("the new connection's action was not applied")
            await new.close()
    run(main())


# ---- free coins -----------------------------------------------------------------------------

def test_new_accounts_are_limited_per_address(tmp_path):
    """``signup_limit`` accounts from one address at once, then ``signup_limited`` (an account
    that exists still logs in), one more once its share of the window has passed."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), signup_limit=3, signup_window_s=6.0) as srv:
            cs = []
            for n in ("a1", "a2", "a3"):
                c = await Client.connect(srv.port)
                await c.hello(n)
                cs.append(c)
            extra = await Client.connect(srv.port)
            await extra.send({"type": "hello", "name": "a4"})
            e = await extra.expect("error")
            assert e["code"] == "signup_limited" and "new accounts" in e["message"]
            assert not await srv.storage.account_exists("a4")
            again = await Client.connect(srv.port)
            await again.hello("a1", cs[0].token)  # logging in is not limited
            await asyncio.sleep(2.2)  # a third of the window: one account's worth
            await extra.hello("a4")
            late = await Client.connect(srv.port)
            await late.send({"type": "hello", "name": "a5"})
            assert (await late.expect("error"))["code"] == "signup_limited"
            for c in cs + [extra, again, late]:
                await c.close()
    run(main())


def test_signup_limit_forgets_addresses_whose_bucket_is_full():
    lim = SignupLimit(2, 10.0)
    assert lim.wait("x", 0.0) == 0
    lim.take("x", 0.0)
    lim.take("x", 0.0)
    assert lim.wait("x", 0.0) == pytest.approx(5.0)  # one account every 10 / 2 s
    assert lim.wait("x", 5.0) == 0 and lim.wait("y", 0.0) == 0
    for i in range(5000):
        lim.take(f"a{i}", float(i) * 0.01)
    assert len(lim._buckets) <= 4097  # the full ones went
    assert SignupLimit(0, 1.0).wait("x", 0.0) == 0  # 0: no limit


def test_bots_are_a_fixed_pool_of_system_seats(tmp_path):
    """Tables with bots make no account: every bot seat is one of ``BOT_NAMES`` (system
    accounts: no token, a grant of 0), which settle with a new account's stake; after hands of
    three variants the accounts are the players and the pool, and every ledger balances."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), starting_coins=5000, rate=1000, burst=1000) as srv:
            c = await Client.connect(srv.port)
            await c.hello("ann")
            for room, ledger in (("novice", "coins"), ("novice", "coins"), ("score", "twop_score"),
                                 ("bengbu", "bengbu")):
                await c.send({"type": "join", "room": room, "bots": True})
                m = await c.expect("matched")
                assert m["players"][1:] == list(BOT_NAMES[:len(m["players"]) - 1])
                c.table, c.seat, c.seat_token = m["table"], m["seat"], m["seat_token"]
                r = (await play_out([c]))[0]
                assert r["ledger"] == ledger
                stake = 5000 if ledger == "coins" else 0
                assert r["settlement"]["coins_before"][1:] == [stake] * (len(m["players"]) - 1)
            assert await _count(srv, "SELECT count(*) FROM accounts") == 1 + len(BOT_NAMES)
            assert await _count(srv, "SELECT count(*) FROM accounts WHERE name LIKE '~bot-%' AND token_hash = ''") \
                == len(BOT_NAMES)
            assert await _count(srv, "SELECT COALESCE(SUM(granted), 0) FROM balances WHERE name LIKE '~bot-%'") == 0
            for ledger in ("coins", "twop_score", "bengbu"):
                t = await srv.storage.totals(ledger)
                assert t["balances"] + t["rake"] - t["house"] == t["granted"]
            # nobody logs in as a bot
            b = await Client.connect(srv.port)
            await b.send({"type": "hello", "name": BOT_NAMES[0], "token": "x"})  # a bot has no token
            assert (await b.expect("error"))["code"] == "bad_token"
            await b.send({"type": "hello", "name": BOT_NAMES[0]})  # nor can its name be taken
            assert (await b.expect("error"))["code"] in ("bad_name", "name_taken")
            await c.close()
            await b.close()
    run(main())


# ---- what a stranger sees -------------------------------------------------------------------

def test_a_stranger_sees_the_rooms_not_who_plays(tmp_path):
    """Without an account: ``rooms`` and ``ping`` answer; ``tables`` and ``spectate`` are
    ``no_account`` (they name the players)."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3")) as srv:
            p = await Client.connect(srv.port)
            await p.hello("ann")
            await p.send({"type": "join", "room": "novice", "bots": True})
            m = await p.expect("matched")
            s = await Client.connect(srv.port)
            await s.send({"type": "rooms"})
            await s.expect("rooms")
            await s.send({"type": "ping"})
            await s.expect("pong")
            for msg in ({"type": "tables"}, {"type": "spectate", "table": m["table"]}):
                await s.send(msg)
                assert (await s.expect("error"))["code"] == "no_account"
            assert s not in srv.tables[m["table"]].spectators
            await s.hello("bob")
            await s.send({"type": "tables"})
            assert [t["players"] for t in (await s.expect("tables"))["tables"]] == [m["players"]]
            await s.send({"type": "spectate", "table": m["table"]})
            assert (await s.expect("obs"))["seat"] is None
            await p.close()
            await s.close()
    run(main())


@pytest.mark.parametrize("mode,loopback,remote", [("off", 404, False), ("local", 200, False),
                                                  ("public", 200, True)])
def test_status_is_an_operator_option(tmp_path, mode, loopback, remote):
    """``/api/status``: ``off`` answers nobody, ``local`` (the default) loopback clients only,
    ``public`` everyone; where it is not given it does not exist (404)."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), status=mode) as srv:
            assert await get(srv.port, "/api/status") == loopback
            far = types.SimpleNamespace(remote_address=("203.0.113.7", 5000))
            assert srv._allowed(srv.config.status, far) is remote
            mapped = types.SimpleNamespace(remote_address=("::ffff:127.0.0.1", 5000, 0, 0))
            assert srv._allowed(srv.config.status, mapped) is (mode != "off")
    run(main())
    assert ServerConfig().status == "local"
    with pytest.raises(ValueError, match="status"):
        Server(ServerConfig(db=str(tmp_path / "x.sqlite3"), status="everyone"))
