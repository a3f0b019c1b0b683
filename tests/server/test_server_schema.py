"""The protocol's JSON Schema (src/ddz/server/protocol.schema.json) and the server's strict
reading of client messages, on both storage backends: valid JSON that used to close the
connection (lone surrogates, NUL), the rule for names and their case-insensitive
uniqueness (with the migration of a database made before it), the exact rules of
docs/protocol.md (``ref``, ``welcome.v``, ``seats``, ``seq``/``since`` bounds, ``leave`` and
``unspectate`` of what is not held, NaN / Infinity / duplicate keys / BOM)."""
from __future__ import annotations

import asyncio
import hashlib
import json
import random
import sqlite3

import pytest

pytest.importorskip("websockets")
jsonschema = pytest.importorskip("jsonschema")

from ddz.server import schema as schema_module  # noqa: E402
from ddz.server.names import name_key, name_problem  # noqa: E402
from ddz.server.protocol import CLIENT_TYPES, ProtocolError, parse  # noqa: E402
from ddz.server.storage import StorageError, open_storage  # noqa: E402

from _client import Client, play_out, running  # noqa: E402
from _util import run  # noqa: E402


async def answer(c, frame):
    """The error the frame gets, after which a ping is still answered (the connection lives)."""
    await c.send(frame)
    e = await c.expect("error", timeout=5)
    await c.send({"type": "ping"})
    await c.expect("pong", timeout=5)
    return e


# ---- the schema and the compiled validator --------------------------------------------------

def test_schema_is_valid_and_every_client_message_compiles():
    jsonschema.Draft202012Validator.check_schema(schema_module.SCHEMA)
    assert set(CLIENT_TYPES) == {"hello", "rooms", "balances", "join", "leave_queue", "act", "resume", "leave",
                                 "spectate", "unspectate", "tables", "ping", "logout"}
    assert set(schema_module.client_validators()) == set(CLIENT_TYPES)
    # a keyword the compiled validator does not implement is refused, not ignored
    bad = {"$defs": {"client": {"$defs": {"x": {"type": "object", "properties": {"a": {"type": "string",
                                                                                       "format": "email"}},
                                                "additionalProperties": False}}}}}
    with pytest.raises(schema_module.SchemaError, match="format"):
        schema_module.client_validators(bad)
    open_ = {"$defs": {"client": {"$defs": {"x": {"type": "object", "properties": {}}}}}}
    with pytest.raises(schema_module.SchemaError, match="closed object"):
        schema_module.client_validators(open_)


_VALUES = [None, True, False, 0, 1, -1, 2, 12.0, 1.5, -0.0, 2**53 - 1, 2**53, 10**30, "", "x", "PASS", "a b",
           "\ud800", "x\udfff", "\x00", "a\x00b", "tab\t", "line\n", "\u202eevil", "ü", "\U0001F600",
           "x" * 200, "x" * 201, "~" * 5, " ", "!", [], {}, [1], {"a": 1}]


def _random_message(rng):
    kind = rng.choice(sorted(CLIENT_TYPES))
    props = CLIENT_TYPES[kind]["properties"]
    msg = {"type": kind}
    for f in props:
        if f != "type" and rng.random() < 0.8:
            msg[f] = rng.choice(_VALUES)
    if rng.random() < 0.1:
        msg[rng.choice(["extra", "Type", "\ud800", ""])] = 1
    if rng.random() < 0.1 and len(msg) > 1:
        del msg[rng.choice(sorted(msg))]
    return msg


def test_the_compiled_validator_agrees_with_jsonschema():
    """On thousands of messages of every type with every kind of value, the server's validator
    accepts exactly what the reference implementation accepts on the same schema file."""
    rng = random.Random(5)
    accepted = refused = 0
    for _ in range(4000):
        msg = _random_message(rng)
        if "type" not in msg:
            continue
        frame = json.dumps(msg)
        expect = schema_module.message_problems("client", json.loads(frame))
        try:
            got = parse(frame, 4096)
        except ProtocolError as e:
            assert expect is not None, (msg, e)
            assert e.code == "bad_field" and e.ref == msg["type"] and str(e).startswith(msg["type"]), (msg, e)
            refused += 1
        else:
            assert expect is None, (msg, expect)
            assert not any(isinstance(v, float) for v in got.values())  # integers come back as int
            accepted += 1
    assert accepted > 300 and refused > 1000


def test_strict_json():
    """NaN, Infinity, duplicate keys and a leading byte order mark are malformed; an integer
    may be written with a zero fraction (JSON Schema's integer) and comes back an int."""
    for frame in ('{"type": "act", "table": "t", "seat_token": "s", "action": "PASS", "seq": NaN}',
                  '{"type": "ping", "x": Infinity}', '{"type": "ping", "x": -Infinity}',
                  '{"type": "ping", "type": "ping"}', '\ufeff{"type": "ping"}',
                  '{"type": "hello", "name": "a", "name": "b"}'):
        with pytest.raises(ProtocolError) as e:
            parse(frame, 4096)
        assert e.value.code == "malformed" and e.value.ref is None, frame
    m = parse('{"type": "act", "table": "t", "seat_token": "s", "action": "PASS", "seq": 1.2e1}', 4096)
    assert m["seq"] == 12 and type(m["seq"]) is int
    with pytest.raises(ProtocolError, match="seq.*1.5"):
        parse('{"type": "act", "table": "t", "seat_token": "s", "action": "PASS", "seq": 1.5}', 4096)
    with pytest.raises(ProtocolError, match="since.*null"):
        parse('{"type": "resume", "table": "t", "seat_token": "s", "since": null}', 4096)
    with pytest.raises(ProtocolError, match="unknown field 'x'") as e:
        parse('{"type": "ping", "x": 1}', 4096)
    assert e.value.code == "bad_field" and e.value.ref == "ping"


# ---- names ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name,why", [
    ("", "empty"), ("a\x00b", "control"), ("a\nb", "control"), ("a\tb", "control"),
    ("\u202eevil", "format"), ("zero\u200bwidth", "format"), ("a\u2028b", "line separator"),
    ("\ue000x", "private-use"), ("x\u0378", "unassigned"), ("ＡＮＮ", "NFKC"), ("ﬁx", "NFKC"),
    (" ann", "space"), ("ann ", "space"), ("a  b", "space"), ("a\u00a0b", "U+0020"), ("\u3164", "invisible"),
    ("x" * 25, "has 25"), ("~bot", "bots"),
])
def test_name_rule_refuses_with_the_reason(name, why):
    problem = name_problem(name)
    assert problem is not None and why in problem, (name, problem)


def test_name_rule_accepts_ordinary_names():
    for name in ("ann", "Ann Lee", "张伟", "Zoë", "x" * 24, "a-b_c.d", "<b>bold</b>", "😀"):
        assert name_problem(name) is None, name
    assert name_key("ANN") == name_key("ann") == name_key("Ann")
    assert name_key("Straße") == name_key("STRASSE")


def test_hostile_names_and_strings_on_both_backends(db_url):
    """Every case answers with an error and leaves the connection usable, on SQLite and on
    PostgreSQL alike: a lone surrogate or a NUL in any string field (they closed the
    connection with 1011), control, format and invisible characters in a new name, a name
    that is not NFKC, a case variant of a taken name."""
    async def main():
        async with running(db_url, rate=1000, burst=1000) as srv:
            c = await Client.connect(srv.port)
            for frame, code in [
                ('{"type": "hello", "name": "\\ud800x"}', "bad_field"),
                ('{"type": "hello", "name": "a\\u0000b"}', "bad_field"),
                ('{"type": "hello", "name": "ann", "token": "\\udfff"}', "bad_field"),
                ('{"type": "join", "room": "\\ud800"}', "bad_field"),
                ('{"type": "spectate", "table": "t\\u0000"}', "bad_field"),
                ('{"type": "hello", "name": "a\\nb"}', "bad_name"), ('{"type": "hello", "name": "\\u202eann"}', "bad_name"),
                ('{"type": "hello", "name": "zero\\u200bwidth"}', "bad_name"),
                ('{"type": "hello", "name": " ann "}', "bad_name"),
                ('{"type": "hello", "name": "\\uff21\\uff2e\\uff2e"}', "bad_name"),
                ('{"type": "\\ud800"}', "unknown_type"), ('{"type": "ping", "\\ud800": 1}', "bad_field"),
            ]:
                e = await answer(c, frame)
                assert e["code"] == code, (frame, e)
                assert e["message"] and "ref" in e
            e = await answer(c, '{"type": "hello", "name": "\\uff21\\uff2e\\uff2e"}')
            assert "'ANN'" in e["message"]  # says what to send instead
            await c.hello("ann")
            await c.send({"type": "join", "room": "score", "bots": True})
            await c.expect("matched")
            await c.latest_obs()
            # a lone surrogate or a NUL in an action: refused as a field, the table lives on
            for action in ("\\ud800", "PLAY 3\\u0000"):
                frame = ('{"type": "act", "table": "%s", "seat_token": "%s", "action": "%s"}'
                         % (c.table, c.seat_token, action))
                e = await answer(c, frame)
                assert e["code"] == "bad_field" and e["ref"] == "act" and "action" in e["message"]
            assert c.table in srv.tables
            # names are unique regardless of case and width
            d = await Client.connect(srv.port)
            for variant in ("ANN", "Ann", "ａｎｎ"):
                e = await answer(d, {"type": "hello", "name": variant})
                assert e["code"] in ("name_taken", "bad_name"), (variant, e)
            e = await answer(d, {"type": "hello", "name": "ANN"})
            assert e["code"] == "name_taken" and "'ann'" in e["message"]
            # logging in needs the exact name: a variant with the right token is refused
            e = await answer(d, {"type": "hello", "name": "ANN", "token": c.token})
            assert e["code"] == "bad_token"
            assert "ann" in srv.lobby.sessions and srv.lobby.sessions["ann"] is not None
            await play_out([c])
            for x in (c, d):
                await x.close()
            async with srv.storage.tx() as tx:
                rows = await tx.fetch("SELECT name, name_key FROM accounts WHERE name NOT LIKE '~%'")
            assert [tuple(r) for r in rows] == [("ann", "ann")]
    run(main())


def test_unique_key_holds_under_a_race(db_url):
    """Two accounts whose names differ only in case, created at once: one is refused with
    StorageError (the unique index, not only the check before the insert)."""
    async def main():
        st = open_storage(db_url)
        await st.open()
        try:
            got = await asyncio.gather(*(st.create_account(n, {"coins": 5}) for n in ("Bob", "BOB", "bob")),
                                       return_exceptions=True)
            assert sum(isinstance(g, str) for g in got) == 1
            assert all(isinstance(g, StorageError) for g in got if not isinstance(g, str))
        finally:
            await st.close()
    run(main())


_OLD_ACCOUNTS = """CREATE TABLE accounts (
    name TEXT PRIMARY KEY, token_hash TEXT NOT NULL, created DOUBLE PRECISION NOT NULL)"""


def _sha(token):
    return hashlib.sha256(token.encode()).hexdigest()


def _tok(name):
    """A legacy account's token (tokens are printable ASCII)."""
    return "tok-" + hashlib.md5(name.encode("utf-8", "surrogatepass")).hexdigest()


def test_a_database_made_before_the_name_rule_keeps_every_account(tmp_path):
    """A SQLite database written when names were unique by exact spelling only, with names the
    rule refuses now: each account still logs in with its name (and the token its owner gets
    anew: tokens of before the tokens table stop working), keeps its coins and
    its hands; of two names differing only in case the older keeps the key, so no third can
    join them; a name holding NUL (which no message can carry now) is renamed with U+FFFD."""
    path = str(tmp_path / "old.sqlite3")
    con = sqlite3.connect(path)
    con.execute(_OLD_ACCOUNTS)
    con.execute("CREATE TABLE balances (name TEXT NOT NULL, ledger TEXT NOT NULL, amount BIGINT NOT NULL, "
                "granted BIGINT NOT NULL, PRIMARY KEY (name, ledger))")
    con.execute("CREATE TABLE stats (name TEXT PRIMARY KEY, won BIGINT NOT NULL, completed BIGINT NOT NULL)")
    con.execute("CREATE TABLE hands (id TEXT PRIMARY KEY, room TEXT NOT NULL, variant TEXT NOT NULL, players TEXT "
                "NOT NULL, status TEXT NOT NULL, host TEXT NOT NULL, started DOUBLE PRECISION NOT NULL, ended DOUBLE "
                "PRECISION, record TEXT, result TEXT, settlement TEXT)")
    con.execute("CREATE TABLE hand_players (hand_id TEXT NOT NULL, name TEXT NOT NULL, seat INTEGER NOT NULL, "
                "notified INTEGER NOT NULL, PRIMARY KEY (hand_id, seat))")
    legacy = {"ann": 1.0, "ANN": 2.0, "tab\tname": 3.0, "nul\x00name": 4.0, "\u202eevil": 5.0}
    for name, created in legacy.items():
        con.execute("INSERT INTO accounts VALUES (?, ?, ?)", (name, _sha(_tok(name)), created))
        for ledger in ("coins", "twop_score", "bengbu"):
            con.execute("INSERT INTO balances VALUES (?, ?, ?, ?)", (name, ledger, 123, 10_000))
        con.execute("INSERT INTO stats VALUES (?, 0, 0)", (name,))
    con.execute("INSERT INTO hands VALUES ('h1', 'score', 'two_player', ?, 'void', 'x', 1, 2, NULL, NULL, NULL)",
                (json.dumps(["nul\x00name", "ann"]),))
    con.execute("INSERT INTO hand_players VALUES ('h1', ?, 0, 0)", ("nul\x00name",))
    con.execute("INSERT INTO hand_players VALUES ('h1', ?, 1, 0)", ("ann",))
    con.commit()
    con.close()

    issued = {}

    async def main():
        async with running(path) as srv:
            # the tokens of before the tokens table stop working (docs/protocol.md, "Accounts and
            # tokens"); each owner logs in with the one the operator issues (ddz serve --reset-token)
            for name in ("ann", "ANN", "tab\tname", "\u202eevil"):
                c = await Client.connect(srv.port)
                e = await answer(c, {"type": "hello", "name": name, "token": _tok(name)})
                assert e["code"] == "bad_token"
                token, _ = issued[name] = await srv.storage.issue_token(name, revoke_others=True)
                w = await c.hello(name, token)
                assert w["name"] == name and w["balances"]["coins"] == 123
                await c.close()
            c = await Client.connect(srv.port)
            token, _ = issued["nul\ufffdname"] = await srv.storage.issue_token("nul\ufffdname", revoke_others=True)
            w = await c.hello("nul\ufffdname", token)
            assert w["balances"]["coins"] == 123 and w["void_hands"] == ["h1"]
            assert (await srv.storage.hand("h1")).players == ["nul\ufffdname", "ann"]
            e = await answer(c, {"type": "hello", "name": "Ann"})
            assert e["code"] == "already"
            d = await Client.connect(srv.port)
            e = await answer(d, {"type": "hello", "name": "Ann"})
            assert e["code"] == "name_taken"
            for x in (c, d):
                await x.close()
            async with srv.storage.tx() as tx:
                keys = dict(await tx.fetch("SELECT name, name_key FROM accounts"))
            assert keys["ann"] == "ann" and keys["ANN"] is None
    run(main())
    # opening again changes nothing more
    async def again():
        st = open_storage(path)
        await st.open()
        try:
            assert await st.check_token("nul\ufffdname", issued["nul\ufffdname"][0])
            assert await st.check_token("ANN", issued["ANN"][0])
            assert await st.account_exists("tab\tname") and not await st.account_exists("nul\x00name")
        finally:
            await st.close()
    run(again())


def test_a_postgresql_database_made_before_the_name_rule(pg_url):
    """The same migration on PostgreSQL (which never stored a NUL): the column and the unique
    index are added, the older of two case variants holds the key, both still log in (with
    tokens issued anew)."""
    import asyncpg

    async def main():
        c = await asyncpg.connect(pg_url)
        await c.execute(_OLD_ACCOUNTS)
        for name, created in (("ann", 1.0), ("ANN", 2.0)):
            await c.execute("INSERT INTO accounts VALUES ($1, $2, $3)", name, _sha(_tok(name)), created)
        await c.close()
        st = open_storage(pg_url)
        await st.open()
        try:
            assert not await st.check_token("ann", _tok("ann"))  # tokens of before the tokens table end
            for name in ("ann", "ANN"):
                token, _ = await st.issue_token(name, revoke_others=True)
                assert await st.check_token(name, token)
            with pytest.raises(StorageError, match="taken by 'ann'"):
                await st.create_account("aNN", {})
            async with st.tx() as tx:
                assert dict(await tx.fetch("SELECT name, name_key FROM accounts")) == {"ann": "ann", "ANN": None}
        finally:
            await st.close()
    run(main())


# ---- the exact rules of docs/protocol.md ----------------------------------------------------

def test_ref_version_seats_bounds_and_what_is_not_held(tmp_path):
    """``ref`` is on every error that answers a frame (null when the frame was not read as a
    client message) and on no other (``replaced``); ``welcome.v`` is the version asked for;
    rooms say ``seats``; a negative ``seq`` or a null ``since`` is ``bad_field``; ``since``
    ahead of the table gets a snapshot; ``leave`` of a seat already left or a hand that is
    over, and ``unspectate`` of a table not watched, are refused."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), rate=1000, burst=1000) as srv:
            c = await Client.connect(srv.port)
            for frame, code, ref in [("{nope", "malformed", None), ('{"type": "fly"}', "unknown_type", None),
                                     ('{"type": "join"}', "bad_field", "join"),
                                     ('{"type": "join", "room": "x"}', "no_account", "join"),
                                     ('{"type": "unspectate", "table": "abc"}', "no_account", "unspectate")]:
                e = await answer(c, frame)
                assert (e["code"], e["ref"]) == (code, ref), (frame, e)
            watcher = await Client.connect(srv.port)
            await watcher.hello("watcher")
            for frame, code, ref in [('{"type": "unspectate", "table": "abc"}', "not_watching", "unspectate"),
                                     ('{"type": "spectate", "table": "abc"}', "no_table", "spectate")]:
                e = await answer(watcher, frame)
                assert (e["code"], e["ref"]) == (code, ref), (frame, e)
            await watcher.close()
            old = Client(c.ws, version=1)
            w = await old.hello("ann")
            assert w["v"] == 1
            assert all(r["seats"] == r["players"] == {"classic": 3, "two_player": 2, "bengbu": 4}[r["variant"]]
                       for r in w["rooms"])
            b = await Client.connect(srv.port)
            w2 = await b.hello("ann", old.token)
            assert w2["v"] == 2
            rep = await old.expect("error")
            assert rep["code"] == "replaced" and "ref" not in rep
            await b.send({"type": "join", "room": "novice", "bots": True})
            await b.expect("matched")
            o = await b.latest_obs()
            base = {"table": b.table, "seat_token": b.seat_token}
            e = await answer(b, dict(base, type="act", action="PASS", seq=-1))
            assert e["code"] == "bad_field" and e["ref"] == "act" and "seq" in e["message"]
            e = await answer(b, dict(base, type="resume", since=None))
            assert e["code"] == "bad_field" and "null" in e["message"]
            await b.send(dict(base, type="resume", since=o["seq"] + 1000))
            assert (await b.expect("obs"))["seq"] == o["seq"]
            await b.send({"type": "spectate", "table": b.table})
            await b.latest_obs()
            await b.send({"type": "unspectate", "table": b.table})
            await b.expect("unspectated")
            e = await answer(b, {"type": "unspectate", "table": b.table})
            assert e["code"] == "not_watching"
            await b.send(dict(base, type="leave"))
            await b.expect("left")
            e = await answer(b, dict(base, type="leave"))  # CLASSIC3: a bot plays on; left already
            assert e["code"] == "not_playing" and "already" in e["message"]
            await b.expect("result", timeout=30)
            e = await answer(b, dict(base, type="leave"))
            assert e["code"] == "not_playing" and "over" in e["message"]
            for x in (old, b):
                await x.close()
    run(main())


def test_a_failure_of_the_server_is_answered_not_fatal(tmp_path, caplog):
    """A message the server fails on (here the database raises) gets ``error`` ``internal``
    with its ``ref``, is logged, and the connection carries on (it used to close with 1011)."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3")) as srv:
            c = await Client.connect(srv.port)
            await c.hello("ann")
            real = srv.storage.balances

            async def down(name):
                raise OSError("the disk is gone")
            srv.storage.balances = down
            e = await answer(c, {"type": "balances"})
            assert (e["code"], e["ref"]) == ("internal", "balances")
            srv.storage.balances = real
            await c.send({"type": "balances"})
            assert (await c.expect("balances"))["balances"]["coins"] == 10_000
            await c.close()
    with caplog.at_level("ERROR", logger="ddz.server"):
        run(main())
    assert any("balances message failed" in r.getMessage() for r in caplog.records)
