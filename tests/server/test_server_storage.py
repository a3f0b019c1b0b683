"""The storage interface, the same tests on SQLite and on PostgreSQL: accounts and tokens,
a hand's settlement and record in one transaction (all or nothing), void hands after a
crash, reported once, the system ledger (rake, TWOP house) and coin conservation; and a whole
hand through the server on each backend."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("websockets")

import ddz  # noqa: E402
from ddz.server import storage  # noqa: E402
from ddz.server.storage import LEDGERS, StorageError, open_storage  # noqa: E402

from _client import eager, play_out, running, seated  # noqa: E402
from _util import run  # noqa: E402


def _finished(room_name):
    room = ddz.ROOMS[room_name]
    from ddz.server.table import room_rules
    g = ddz.Game(room_rules(room), seed=11)
    while not g.is_over:
        g.apply(eager(g.legal_actions()))
    return g, room


def test_accounts_and_tokens(db_url):
    async def main():
        s = open_storage(db_url)
        await s.open()
        try:
            tok = await s.create_account("ann", {"coins": 500})
            assert await s.check_token("ann", tok) and not await s.check_token("ann", tok + "x")
            assert not await s.check_token("nobody", tok)
            with pytest.raises(StorageError, match="taken"):
                await s.create_account("ann", {"coins": 1})
            assert await s.balances("ann") == {"coins": 500, "twop_score": 0, "bengbu": 0}
            assert await s.stats("ann") == (0, 0) and await s.account_exists("ann")
            assert not await s.account_exists("bob")
        finally:
            await s.close()
    run(main())


@pytest.mark.parametrize("room_name", ["novice", "coin_junior", "score", "bengbu_300"])
def test_settlement_and_record_in_one_transaction(db_url, room_name):
    """finish_hand moves the balances by the settlement, stores the record and the system's
    part (rake, house) together; conservation holds per ledger; a failure half way leaves no
    trace (the hand stays live, no balance moved); a hand cannot be finished twice."""
    async def main():
        s = open_storage(db_url)
        await s.open()
        try:
            g, room = _finished(room_name)
            from ddz.server.table import ledger_of
            ledger = ledger_of(room)
            names = [f"p{i}" for i in range(room.players)]
            for n in names:
                await s.create_account(n, {"coins": 100_000})
            before = [(await s.balances(n))[ledger] for n in names]
            st = ddz.settle(g.result, room, before)
            # a broken settlement fails inside the transaction: nothing is kept
            await s.start_hand("h1", room.name, room.variant, names, "test")
            bad = dict(st.to_dict(), rake=["not a number"] * room.players)
            with pytest.raises(Exception):
                await s.finish_hand("h1", ledger, g.to_json(), g.result.to_dict(), bad)
            assert [(await s.balances(n))[ledger] for n in names] == before
            assert (await s.hand("h1")).status == "live"
            won = [x > 0 for x in g.result.scores] if room.variant == "classic" else None
            await s.finish_hand("h1", ledger, g.to_json(), g.result.to_dict(), st.to_dict(), won)
            assert [(await s.balances(n))[ledger] for n in names] == list(st.coins_after)
            row = await s.hand("h1")
            assert row.status == "done" and row.players == names and row.settlement == json.loads(
                json.dumps(st.to_dict()))
            assert ddz.Game.from_json(row.record).result == g.result
            t = await s.totals(ledger)
            assert t["balances"] + t["rake"] - t["house"] == t["granted"]
            assert t["rake"] == sum(st.rake) and t["house"] == st.house
            for other in LEDGERS:
                if other != ledger:
                    o = await s.totals(other)
                    assert o["balances"] == o["granted"] and o["rake"] == o["house"] == 0
            if won is not None:
                assert [await s.stats(n) for n in names] == [(int(w), 1) for w in won]
            with pytest.raises(StorageError, match="not live"):
                await s.finish_hand("h1", ledger, g.to_json(), g.result.to_dict(), st.to_dict())
            assert await s.hands("done") == ["h1"]
        finally:
            await s.close()
    run(main())


def test_void_hands_are_reported_once(db_url):
    async def main():
        s = open_storage(db_url)
        await s.open()
        try:
            for n in ("ann", "bob"):
                await s.create_account(n, {"coins": 10})
            await s.start_hand("a", "score", "two_player", ["ann", "bob"], "host-1")
            await s.start_hand("b", "score", "two_player", ["ann", "bob"], "host-2")
            assert await s.void_live_hands("host-1") == 1
            assert (await s.hand("a")).status == "void" and (await s.hand("b")).status == "live"
            assert await s.take_voids("ann") == ["a"]
            assert await s.take_voids("ann") == []
            assert await s.take_voids("bob") == ["a"]
            assert await s.void_live_hands(None) == 1
            assert await s.take_voids("bob") == ["b"]
            assert await s.balances("ann") == {"coins": 10, "twop_score": 0, "bengbu": 0}
        finally:
            await s.close()
    run(main())


@pytest.mark.parametrize("one_statement", [True, False], ids=["two-statements", "statement-per-row"])
def test_sqlite_hand_log_batch_stores_refuses_and_keeps_rows_once(tmp_path, monkeypatch, one_statement):
    """The hand log's batch on SQLite, in two statements whatever its size (the check of the
    batch, the insert of its rows) and as a check and an insert per row (an SQLite without its
    JSON functions): the rows of hands live with the host are
    stored, in order, their ops as written (non-ASCII too); a row already stored is not stored
    again and its hand is reported; so are the hands not live with the host (another host's, a
    void one, an unknown one), whose rows are not stored."""
    if one_statement and not storage._ONE_STATEMENT:
        pytest.skip("this SQLite has no JSON functions")
    monkeypatch.setattr(storage, "_ONE_STATEMENT", one_statement)

    async def main():
        s = open_storage(str(tmp_path / "db.sqlite3"))
        await s.open()
        try:
            for h, host in (("a", "me"), ("b", "me"), ("c", "other"), ("d", "me")):
                await s.start_hand(h, "score", "two_player", ["ann", "bob"], host, "{}")
            assert await s.append_actions([("a", 1, '[0, "SHOW_START"]'), ("b", 1, '[1, "名\\u00e9"]'),
                                           ("a", 2, '[null, "RESUMED"]'), ("d", 1, '[0, "PASS"]')], "me") == []
            assert await s.void_hand("d")
            assert await s.append_actions([("a", 2, '[1, "PASS"]'), ("b", 2, '[0, "NO_SHOW"]'), ("c", 1, '[0, "X"]'),
                                           ("d", 2, '[0, "X"]'), ("zz", 1, '[0, "X"]')], "me") == ["a", "c", "d", "zz"]
            assert await s.append_actions([], "me") == []
            hands = {h.id: h.ops for h in await s.live_hands("me")}
            assert hands == {"a": [(1, '[0, "SHOW_START"]'), (2, '[null, "RESUMED"]')],
                             "b": [(1, '[1, "名\\u00e9"]'), (2, '[0, "NO_SHOW"]')]}
            assert [h.ops for h in await s.live_hands("other")] == [[]]
        finally:
            await s.close()
    run(main())


def test_whole_hand_through_the_server(db_url):
    """A CLASSIC3 hand of three matched players on each backend: settled and stored."""
    async def main():
        async with running(db_url) as srv:
            cs = await seated(srv.port, ["ann", "bob", "cat"], "intermediate")
            r = (await play_out(cs))[0]
            for c in cs:
                assert (await srv.storage.balances(c.name))["coins"] == r["settlement"]["coins_after"][c.seat]
            assert (await srv.storage.hand(cs[0].table)).status == "done"
            for c in cs:
                await c.close()
    run(main())


def test_unknown_url_scheme():
    with pytest.raises(StorageError, match="scheme"):
        open_storage("mysql://x/y")
