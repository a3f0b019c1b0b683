"""The table server's protocol (docs/protocol.md) with real WebSocket clients on loopback:
accounts, queues, a whole hand of each variant, observations checked against the engine,
illegal and forged actions, malformed and oversized messages, spectators, records."""
from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

import pytest

pytest.importorskip("websockets")

from ddz.cli import main as cli_main  # noqa: E402
from ddz.record import read_game  # noqa: E402
from ddz.server.audit import check_messages, observations, replays  # noqa: E402

from _client import Client, play_out, running, seated  # noqa: E402


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 90))


def _get(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


async def get(port, path):
    """An HTTP GET from another thread (the server runs in this thread's event loop)."""
    return await asyncio.to_thread(_get, port, path)


@pytest.mark.parametrize("room,names", [("novice", ["ann", "bob", "cat"]), ("score", ["dan", "eve"]),
                                        ("coin_junior", ["fay", "gus"]),
                                        ("bengbu_300", ["hal", "ivy", "jon", "kim"])])
def test_whole_hand_matched_players(tmp_path, room, names):
    """Players queued for a room are matched (CLASSIC3 by ddz.Matchmaker, the others by their
    queue), play a hand to the result; every observation each seat received is the engine's
    observation for that seat at that step (RULES.md §6: nothing hidden is shown), sequence
    numbers rise by one per event, the settlement is stored with the record in one go and the
    record downloads for the hand's players only and replays to the stored result."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3")) as srv:
            cs = await seated(srv.port, names, room)
            assert sorted(c.seat for c in cs) == list(range(len(names)))
            assert len({c.table for c in cs}) == 1
            spec = await Client.connect(srv.port)
            await spec.send({"type": "spectate", "table": cs[0].table})
            results = await play_out(cs)
            r = results[0]
            assert all(x["settlement"] == r["settlement"] for x in results)
            s = r["settlement"]
            assert r["result"]["kind"] in ("normal", "special")
            # balances in the database moved by exactly the settlement
            ledger = r["ledger"]
            grant = 10_000 if ledger == "coins" else 0
            for c in cs:
                b = (await srv.storage.balances(c.name))[ledger]
                assert b == grant + s["changes"][c.seat] == s["coins_after"][c.seat]
            t = await srv.storage.totals(ledger)
            assert t["balances"] + t["rake"] - t["house"] == t["granted"]
            assert t["rake"] == sum(s["rake"]) and t["house"] == s["house"]
            # the record: only for its players, after the hand
            tid = cs[0].table
            assert (await get(srv.port, f"/records/{tid}"))[0] == 403
            outsider = await Client.connect(srv.port)
            await outsider.hello("zed")
            assert (await get(srv.port, f"/records/{tid}?name=zed&token={outsider.token}"))[0] == 404
            assert (await get(srv.port, f"/records/{tid}?name={cs[0].name}&token=wrong"))[0] == 403
            status, body = await get(srv.port, f"/records/{tid}?name={cs[0].name}&token={cs[0].token}")
            assert status == 200
            record = body.decode()
            assert replays(record, r["result"])
            path = tmp_path / "hand.json"
            path.write_text(record, encoding="utf-8")
            assert cli_main(["replay", str(path)]) == 0  # ddz replay plays the downloaded record
            assert read_game(record).result.to_dict()["scores"] == r["result"]["scores"]
            views = observations(record)
            for c in cs:
                obs = [m for m in c.seen if m["type"] == "obs"]
                assert [m["seq"] for m in obs] == sorted(m["seq"] for m in obs)
                assert obs[-1]["obs"]["phase"] == "OVER"
                assert check_messages(record, c.seat, c.seen, tid, views) == []
                assert all(m["obs"]["cards"] == [] or m["seat"] == c.seat for m in obs)
            await spec.expect("result", timeout=5)
            pub = [m for m in spec.seen if m["type"] == "obs"]
            assert pub and all(m["seat"] is None and m["obs"]["cards"] == [] and m["obs"]["legal_actions"] == []
                               for m in pub)
            assert check_messages(record, None, spec.seen, tid, views) == []
            seqs = sorted({m["seq"] for c in cs for m in c.seen if m["type"] == "obs"})
            assert seqs == list(range(seqs[0], seqs[-1] + 1))
            for c in cs + [spec, outsider]:
                await c.close()
    run(main())


def test_accounts_tokens_and_lobby_messages(tmp_path):
    """hello creates an account with a token and the starting grant; a taken name needs its
    token; rooms, tables, ping, join/queued, leave_queue answer; actions need an account."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), starting_coins=777) as srv:
            a = await Client.connect(srv.port)
            await a.send({"type": "join", "room": "novice"})
            assert (await a.expect("error"))["code"] == "no_account"
            w = await a.hello("ann")
            assert w["v"] == 1 and w["balances"] == {"coins": 777, "twop_score": 0, "bengbu": 0}
            assert {r["name"] for r in w["rooms"]} >= {"novice", "score", "bengbu"} and len(w["token"]) > 20
            b = await Client.connect(srv.port)
            await b.send({"type": "hello", "name": "ann"})
            assert (await b.expect("error"))["code"] == "name_taken"
            await b.send({"type": "hello", "name": "ann", "token": "forged"})
            assert (await b.expect("error"))["code"] == "bad_token"
            w2 = await b.hello("ann", a.token)
            assert "token" not in w2 and w2["balances"]["coins"] == 777
            assert (await a.expect("error"))["code"] == "replaced"
            await b.send({"type": "rooms"})
            rooms = (await b.expect("rooms"))["rooms"]
            assert [r["name"] for r in rooms if r["matchmaking"]] == ["novice", "intermediate", "advanced"]
            await b.send({"type": "join", "room": "nowhere"})
            assert (await b.expect("error"))["code"] == "no_room"
            await b.send({"type": "join", "room": "score"})
            await b.expect("queued", room="score")
            await b.send({"type": "join", "room": "novice"})
            assert (await b.expect("error"))["code"] == "queued"
            await b.send({"type": "leave_queue"})
            await b.expect("left_queue")
            assert "ann" not in srv.waiting and list(srv.queues["score"]) == []
            await b.send({"type": "ping"})
            assert (await b.expect("pong"))["now"] > 0
            await b.send({"type": "join", "room": "score", "bots": True})
            m = await b.expect("matched")
            assert m["players"][0] == "ann" and m["players"][1].startswith("~bot")
            await b.send({"type": "tables"})
            assert [t["table"] for t in (await b.expect("tables"))["tables"]] == [m["table"]]
            await b.send({"type": "join", "room": "score"})
            assert (await b.expect("error"))["code"] == "seated"
            assert (await get(srv.port, "/api/rooms"))[0] == 200
            assert json.loads((await get(srv.port, "/api/rooms"))[1])[0]["name"] == "novice"
            assert (await get(srv.port, "/nonexistent"))[0] == 404
            assert (await get(srv.port, "/../../etc/passwd"))[0] == 404
            for c in (a, b):
                await c.close()
    run(main())


def test_illegal_out_of_turn_and_forged_actions(tmp_path):
    """The engine judges every action: out of turn (NOT_YOUR_TURN), a decision not offered,
    a play in the bidding (WRONG_PHASE), cards not held (NOT_HELD), a non-combination; each gets an
    ``illegal`` reply with the engine's code and message and changes nothing; a forged or
    another player's seat token is refused; the table plays on to its result."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3")) as srv:
            cs = await seated(srv.port, ["ann", "bob"], "score")
            o = await cs[0].latest_obs()
            turn = o["obs"]["current_seat"]
            mover = next(c for c in cs if c.seat == turn)
            other = next(c for c in cs if c.seat != turn)
            await other.act(o["obs"]["legal_actions"][0] if o["obs"]["legal_actions"] else "NORMAL_START")
            r = await other.expect("illegal")
            assert r["code"] == "NOT_YOUR_TURN" and "turn" in r["message"]
            await mover.act("PLAY 3")
            assert (await mover.expect("illegal"))["code"] == "WRONG_PHASE"
            await mover.act("GRAB")
            assert (await mover.expect("illegal"))["code"] in ("NOT_OFFERED", "MALFORMED")
            await mover.act("hello there")
            assert (await mover.expect("illegal"))["code"] == "MALFORMED"
            # forged tokens
            await other.send({"type": "act", "table": other.table, "seat_token": "x" * 24, "action": "PASS"})
            assert (await other.expect("error"))["code"] == "bad_token"
            await other.send({"type": "act", "table": other.table, "seat_token": mover.seat_token, "action": "PASS"})
            assert (await other.expect("error"))["code"] == "bad_token"
            await other.send({"type": "act", "table": "nope", "seat_token": mover.seat_token, "action": "PASS"})
            assert (await other.expect("error"))["code"] == "no_table"
            after = await mover.latest_obs()
            assert after["seq"] == o["seq"]  # nothing changed
            # into the play phase, then plays the engine refuses
            async def to_play():
                while True:
                    for c in cs:
                        m = await c.latest_obs(0.15)
                        if m["obs"]["phase"] == "PLAY":
                            return m
                        if m["obs"]["current_seat"] == c.seat and m["obs"]["legal_actions"]:
                            await c.act(m["obs"]["legal_actions"][-1] if "CALL" in m["obs"]["legal_actions"]
                                        else m["obs"]["legal_actions"][0])
            m = await to_play()
            turn = m["obs"]["current_seat"]
            mover = next(c for c in cs if c.seat == turn)
            mine = await mover.latest_obs(0.1)
            held = set(mine["obs"]["cards"])
            missing = next(c for c in ("3s", "3h", "3c", "3d", "4s", "4h") if c not in held)
            await mover.act(f"PLAY {missing}")
            assert (await mover.expect("illegal"))["code"] == "NOT_HELD"
            await mover.act("PLAY 3579")
            assert (await mover.expect("illegal"))["code"] in ("NOT_A_COMBINATION", "NOT_HELD")
            results = await play_out(cs)
            assert results[0]["result"]["kind"] == "normal"
            for c in cs:
                await c.close()
    run(main())


def test_malformed_oversized_and_rate_limited_messages(tmp_path):
    """Not JSON, not an object, no type, an unknown type, a field of the wrong type, a binary
    frame, a message over the size limit: each gets an ``error`` with its code and the
    connection and its table survive; a flood is cut by the rate limit."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), max_message_bytes=512, rate=50, burst=40) as srv:
            c = await Client.connect(srv.port)
            await c.hello("ann")
            await c.send({"type": "join", "room": "score", "bots": True})
            await c.expect("matched")
            before = await c.latest_obs()
            cases = [("{not json", "malformed"), ("[1, 2]", "malformed"), ('{"x": 1}', "malformed"),
                     ('{"type": "fly"}', "unknown_type"), ('{"type": 5}', "malformed"),
                     ('{"type": "join", "room": 7}', "bad_field"), ('{"type": "join"}', "bad_field"),
                     ('{"type": "resume", "table": "t", "seat_token": "s", "since": "x"}', "bad_field"),
                     (json.dumps({"type": "ping", "pad": "x" * 600}), "too_large"),
                     (json.dumps({"type": "join", "room": "r" * 300}), "bad_field"),
                     ("[" * 200 + "]" * 200, "malformed"), (b"\x00\x01", "malformed")]
            for frame, code in cases:
                await c.send(frame)
                e = await c.expect("error")
                assert e["code"] == code, (frame, e)
                assert e["message"]
                await asyncio.sleep(0.06)
            await c.send({"type": "ping"})
            await c.expect("pong")
            # the table is still there and playable
            assert c.table in srv.tables
            r = await play_out([c])
            assert r[0]["result"]["kind"] == "normal" and before["seq"] >= 1
            await asyncio.sleep(0.5)  # the bucket refills to its burst
            for _ in range(60):
                await c.send({"type": "ping"})
            got = [await c._recv(5) for _ in range(60)]
            kinds = [m["type"] for m in got]
            assert kinds.count("pong") >= 40 and any(m.get("code") == "rate_limited" for m in got)
            await asyncio.sleep(0.5)
            await c.send({"type": "ping"})
            await c.expect("pong")
            await c.close()
    run(main())


def test_serve_command_line(capsys):
    """``ddz serve --help`` names its options; a bad database URL is refused with a message."""
    with pytest.raises(SystemExit) as e:
        cli_main(["serve", "--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0 and "usage: ddz serve" in out
    for opt in ("--db", "--grace", "--move-timeout", "--starting-coins", "--cluster", "--rate"):
        assert opt in out
    assert cli_main(["serve", "--db", "mysql://somewhere/db"]) == 2
    assert "unknown database URL scheme" in capsys.readouterr().err


def test_classic_matchmaking_stages(tmp_path):
    """CLASSIC3 新手场 through ddz.Matchmaker (RULES.md §3.2, §3.3): three newcomers (50 % each)
    whose coins differ by up to 8,000. The first criterion (rate 5 AND coins ≤ 2,000) fails; the
    second (rate 10 OR coins ≤ 5,000) holds through the equal rates; so the server seats them
    once the longest waiter reaches stage 2 (``stage2_after_s``), and not before."""
    async def main():
        cfg = dict(match_interval_s=0.05, stage2_after_s=0.6, stage3_after_s=1.2)
        async with running(str(tmp_path / "db.sqlite3"), **cfg) as srv:
            cs = []
            for n, coins in (("ann", 10_000), ("bob", 10_000), ("cat", 18_000)):
                c = await Client.connect(srv.port)
                await c.hello(n)
                async with srv.storage.tx() as tx:
                    await tx.execute("UPDATE balances SET amount = ? WHERE name = ? AND ledger = 'coins'", coins, n)
                cs.append(c)
            t0 = asyncio.get_running_loop().time()
            for c in cs:
                await c.send({"type": "join", "room": "novice"})
            for c in cs:
                await c.expect("matched", timeout=5)
            waited = asyncio.get_running_loop().time() - t0
            # stage 1 (rate 5 AND coins 2000) fails for cat; stage 2 (rate 10 OR coins 5000) holds
            # through the equal 50 % rates, so the table forms at stage 2, after 0.6 s
            assert 0.55 <= waited < 1.2, waited
            for c in cs:
                await c.close()
    run(main())
