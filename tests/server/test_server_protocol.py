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
from ddz.server import table as table_module  # noqa: E402
from ddz.server.audit import check_messages, observations, replays  # noqa: E402
from ddz.server.protocol import ProtocolError, apply_update  # noqa: E402

from _client import Client, play_out, running, seated  # noqa: E402
from _util import run  # noqa: E402


def _get(port, path, token=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}",
                                 headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


async def get(port, path, token=None):
    """An HTTP GET from another thread (the server runs in this thread's event loop); ``token``
    goes in the Authorization header."""
    return await asyncio.to_thread(_get, port, path, token)


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
            await spec.hello("spec")  # watching needs an account (docs/server.md, "What a stranger sees")
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
            assert (await get(srv.port, f"/records/{tid}", outsider.token))[0] == 404
            assert (await get(srv.port, f"/records/{tid}", "wrong"))[0] == 403
            # a token in the URL is refused, even a good one
            assert (await get(srv.port, f"/records/{tid}?name={cs[0].name}&token={cs[0].token}"))[0] == 400
            status, body = await get(srv.port, f"/records/{tid}", cs[0].token)
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
                assert check_messages(record, c.seat, c.raw, tid, views) == []
                assert all(m["obs"]["cards"] == [] or m["seat"] == c.seat for m in obs)
            await spec.expect("result", timeout=5)
            pub = [m for m in spec.seen if m["type"] == "obs"]
            assert pub and all(m["seat"] is None and m["obs"]["cards"] == [] and m["obs"]["legal_actions"] == []
                               for m in pub)
            assert check_messages(record, None, spec.raw, tid, views) == []
            seqs = sorted({m["seq"] for c in cs for m in c.seen if m["type"] == "obs"})
            assert seqs == list(range(seqs[0], seqs[-1] + 1))
            # protocol v2: one snapshot, then deltas that never resend a history entry
            for c in cs + [spec]:
                ups = [m for m in c.raw if m["type"] in ("obs", "delta")]
                assert ups[0]["type"] == "obs" and all(m["type"] == "delta" for m in ups[1:])
                assert len(ups[0]["obs"]["history"]) + sum(len(m["events"]) for m in ups[1:]) \
                    == len(read_game(record).history)
                assert all("history" not in m["set"] for m in ups[1:])
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
            assert w["v"] == 2 and w["balances"] == {"coins": 777, "twop_score": 0, "bengbu": 0}
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
            assert "ann" not in srv.lobby.waiting and list(srv.lobby.queues["score"]) == []
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
            await asyncio.sleep(40 / 50 + 0.3)  # the bucket refills to its burst (40 at 50/s), even from empty
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
    assert cli_main(["serve", "--gc-threshold", "0"]) == 2
    assert "--gc-threshold must be a positive number of objects, not 0" in capsys.readouterr().err


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


def test_version_1_clients_get_whole_observations(tmp_path):
    """A client that says ``"v": 1`` in hello gets what version 1 promised: a whole
    observation (``obs``) after every event, never a delta; an unknown version is refused."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3")) as srv:
            c = await Client.connect(srv.port)
            await c.send({"type": "hello", "name": "ann", "v": 9})
            e = await c.expect("error")
            assert e["code"] == "bad_version" and "1, 2" in e["message"]
            old = Client(c.ws, version=1)
            await old.hello("ann")
            await old.send({"type": "join", "room": "score", "bots": True})
            await old.expect("matched")
            r = await play_out([old])
            ups = [m for m in old.raw if m["type"] in ("obs", "delta")]
            assert len(ups) > 5 and all(m["type"] == "obs" for m in ups)
            rec = (await srv.storage.hand(old.table)).record
            assert check_messages(rec, old.seat, old.raw, old.table) == []
            assert replays(rec, r[0]["result"])
            await old.close()
    run(main())


def test_apply_update_refuses_a_delta_that_does_not_fit():
    """``apply_update`` (the clients' and the audit's) needs a snapshot first and a delta
    that starts within the history held."""
    snap = {"type": "obs", "table": "t", "seq": 1, "seat": 0, "obs": {"history": [[0, "CALL"]], "phase": "CALL"}}
    view = apply_update(None, snap)
    delta = {"type": "delta", "table": "t", "seq": 2, "seat": 0, "from": 1, "events": [[1, "NO_ROB"]],
             "set": {"phase": "PLAY"}}
    assert apply_update(view, delta) == {"history": [[0, "CALL"], [1, "NO_ROB"]], "phase": "PLAY"}
    assert snap["obs"]["history"] == [[0, "CALL"]]  # the snapshot message is not changed
    with pytest.raises(ProtocolError, match="no snapshot") as e:
        apply_update(None, delta)
    assert e.value.code == "bad_delta"
    with pytest.raises(ProtocolError, match="from history entry 5"):
        apply_update(view, dict(delta, **{"from": 5}))


def test_resume_honors_since(tmp_path, monkeypatch):
    """``resume`` with ``since`` (the last seq the client saw) gets a delta with the history
    entries after that event and every other field; without ``since``, with one the table
    never had, or with one older than the table keeps (SINCE_WINDOW events), a snapshot. Each
    rebuilt view equals the engine's observation at that step."""
    monkeypatch.setattr(table_module, "SINCE_WINDOW", 6)

    async def main():
        async with running(str(tmp_path / "db.sqlite3"), bot_delay_s=30) as srv:
            a, b = await seated(srv.port, ["ann", "bob"], "score")
            for _ in range(8):  # some events
                o = await a.latest_obs(0.1)
                mover = next(c for c in (a, b) if c.seat == o["obs"]["current_seat"])
                mine = await mover.latest_obs(0.05)
                await mover.act(mine["obs"]["legal_actions"][0])
            now = await a.latest_obs(0.2)
            ups = [m for m in a.raw if m["type"] in ("obs", "delta")]
            old = ups[-3]  # two events back
            tid, seat = a.table, a.seat
            hist_then = len(next(m for m in a.seen if m["type"] == "obs" and m["seq"] == old["seq"])["obs"]["history"])

            async def resume(since=None):
                c = Client(a.ws)
                c.views = {(tid, seat): dict(v, history=list(v["history"])) for (t, s), v in a.views.items()
                           if (t, s) == (tid, seat) and since is not None}
                c.infos = dict(a.infos)
                msg = {"type": "resume", "table": tid, "seat_token": a.seat_token}
                if since is not None:
                    msg["since"] = since
                await c.send(msg)
                await c._recv(5)
                return c

            c = await resume(old["seq"])
            d = c.raw[-1]
            assert d["type"] == "delta" and d["seq"] == now["seq"] and d["from"] == hist_then
            assert len(d["events"]) == len(now["obs"]["history"]) - hist_then > 0
            assert set(d["set"]) == set(now["obs"]) - {"history"} and "table_info" in d
            assert c.seen[-1]["obs"] == now["obs"]
            for since in (None, 0, now["seq"] + 5, now["seq"] - 6):
                c = await resume(since)
                assert c.raw[-1]["type"] == "obs" and c.raw[-1]["obs"] == now["obs"], since
            c = await resume(now["seq"])  # up to date: a delta with no event
            assert c.raw[-1]["type"] == "delta" and c.raw[-1]["events"] == []
            # the seat plays on with deltas on that base
            results = await play_out([a, b], timeout=60)
            rec = (await srv.storage.hand(tid)).record
            assert check_messages(rec, seat, a.raw, tid) == []
            assert replays(rec, results[0]["result"])
            for x in (a, b):
                await x.close()
    run(main())


def test_resume_after_the_end_gives_the_result(tmp_path):
    """A player away when the hand ended (a bot played the seat to the end) is offered the
    table again in ``welcome`` (``over``), and ``resume`` gives the final view and the
    ``result`` with the settlement that moved the coins, as a seat present at the end got it;
    with ``since``, the final view comes as a delta."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), grace_s=30, bot_delay_s=0.0) as srv:
            for since in (False, True):
                name = f"ann{int(since)}"
                c = await Client.connect(srv.port)
                await c.hello(name)
                await c.send({"type": "join", "room": "novice", "bots": True})
                await c.expect("matched")
                first = await c.expect("obs")
                tid = c.table
                await c.close()
                for _ in range(200):  # the bots finish the hand
                    await asyncio.sleep(0.05)
                    if tid in srv.tables.finished:
                        break
                assert tid in srv.tables.finished and tid not in srv.tables
                back = await Client.connect(srv.port)
                w = await back.hello(name, c.token)
                assert w["table"]["table"] == tid and w["table"]["over"] is True
                back.views = {k: dict(v, history=list(v["history"])) for k, v in c.views.items()} if since else {}
                back.infos = dict(c.infos)
                back.table, back.seat, back.seat_token = tid, w["table"]["seat"], w["table"]["seat_token"]
                msg = {"type": "resume", "table": tid, "seat_token": back.seat_token}
                if since:
                    msg["since"] = first["seq"]
                await back.send(msg)
                r = await back.expect("result", timeout=10)
                ups = [m for m in back.raw if m["type"] in ("obs", "delta")]
                assert [m["type"] for m in ups] == ["delta" if since else "obs"]
                final = next(m for m in back.seen if m["type"] == "obs")
                assert final["obs"]["phase"] == "OVER" and ups[0]["seq"] == r["seq"]
                assert r["settlement"]["coins_after"][back.seat] == (await srv.storage.balances(name))["coins"]
                rec = (await srv.storage.hand(tid)).record
                assert replays(rec, r["result"])
                assert check_messages(rec, back.seat, c.raw + back.raw, tid) == []
                await back.act("PASS")
                assert (await back.expect("illegal"))["code"] == "HAND_OVER"
                # told once: the next login does not offer the table again
                again = await Client.connect(srv.port)
                assert "table" not in await again.hello(name, c.token)
                for x in (back, again):
                    await x.close()
    run(main())
