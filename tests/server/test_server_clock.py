"""The move clock (RULES.md §3.6, A8), disconnects and reconnects (a bot plays the seat for
the grace period), escapes (§4, A9) and a server dying mid-hand (the hand resumes at the restart), with real
WebSocket clients."""
from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

pytest.importorskip("websockets")

from ddz.record import read_game  # noqa: E402
from ddz.server.audit import check_messages, replays  # noqa: E402

from _client import Client, eager, play_out, running, seated  # noqa: E402
from _util import free_port, run  # noqa: E402

ROOMS = [("novice", 3), ("score", 2), ("bengbu", 4)]


def _actions(record):
    """The actions of a stored record, once ``read_game`` has checked it whole."""
    read_game(record)
    return json.loads(record)["actions"]


async def newest(c):
    return await c.latest_obs(0.05)


@pytest.mark.parametrize("room,n", ROOMS)
def test_timeout_in_every_phase(tmp_path, room, n):
    """The first time each phase asks a seat to act, the seat waits: at the deadline (sent as
    wall-clock time, move_timeout_s after the event) the server records TIMEOUT and applies
    the engine's default action; the record replays (read_game checks the default action)."""
    timeout = 0.5

    async def main():
        async with running(str(tmp_path / "db.sqlite3"), move_timeout_s=timeout) as srv:
            cs = await seated(srv.port, [f"p{i}" for i in range(n)], room)
            waited = {}

            async def one(c):
                acted = -1
                while True:
                    m = await c._recv(30)
                    if m["type"] == "result":
                        return m
                    if m["type"] != "obs":
                        continue
                    o = m["obs"]
                    if o["current_seat"] != c.seat or not o["legal_actions"] or len(o["history"]) <= acted:
                        continue
                    # the deadline is a wall-clock time move_timeout_s after the event; "now" is when
                    # this message left, which a loaded machine may delay: in the future, at most that far
                    assert 0 < m["deadline"] - m["now"] <= timeout + 1e-3
                    acted = len(o["history"])
                    if o["phase"] not in waited:
                        waited[o["phase"]] = (c.seat, len(o["history"]))
                        continue  # let the clock run out
                    await c.act(eager(o["legal_actions"]))

            results = await asyncio.gather(*(one(c) for c in cs))
            rec = (await srv.storage.hand(cs[0].table)).record
            g = read_game(rec)
            assert replays(rec, results[0]["result"])
            hist = g.history
            for phase, (seat, at) in waited.items():
                assert hist[at] == (seat, "TIMEOUT"), (phase, hist[at:at + 2])
            first = {"novice": "CALL", "score": "PRE_DEAL", "bengbu": "BID"}[room]
            assert {first, "PLAY"} <= set(waited), waited
            for c in cs:
                assert check_messages(rec, c.seat, c.raw, c.table) == []
                await c.close()
    run(main())


@pytest.mark.parametrize("room,n", ROOMS)
def test_disconnect_and_reconnect_in_every_phase(tmp_path, room, n):
    """Seat 0's connection drops the first time each phase shows; a bot plays the seat (the
    others see it in ``bots``); a new connection logs in with the account token, learns its
    table and seat token from ``welcome``, resumes and gets the seat back with its current
    view; the hand ends normally and nothing hidden reached seat 0 on any of its connections."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), grace_s=30, bot_delay_s=0.5) as srv:
            cs = await seated(srv.port, [f"p{i}" for i in range(n)], room)
            zero = next(c for c in cs if c.seat == 0)
            others = [c for c in cs if c is not zero]
            tid = zero.table
            all_zero = []
            drops = []

            async def seat_zero():
                nonlocal zero
                phases = set()
                acted = -1
                while True:
                    try:
                        m = await zero._recv(8)
                    except asyncio.TimeoutError:
                        raise AssertionError([[(y["type"], y.get("seq"), y.get("obs", {}).get("current_seat"), len(y.get("obs", {}).get("history", []))) for y in c.seen][-5:] for c in others] + [(x["type"], x.get("seq"), x.get("obs", {}).get("current_seat"), x.get("obs", {}).get("phase"), x.get("obs", {}).get("bots")) for x in zero.seen][-6:])
                    if m["type"] == "result":
                        return m
                    if m["type"] != "obs":
                        continue
                    o = m["obs"]
                    if o["phase"] not in phases and o["phase"] != "OVER":
                        phases.add(o["phase"])
                        all_zero.extend(zero.raw)
                        await zero.close()
                        await asyncio.sleep(0.05)
                        token = zero.token
                        zero = await Client.connect(srv.port)
                        w = await zero.hello("p0", token)
                        if "table" not in w:  # the hand ended while seat 0 was away
                            return None
                        assert w["table"]["table"] == tid and w["table"]["seat"] == 0
                        zero.table, zero.seat, zero.seat_token = tid, 0, w["table"]["seat_token"]
                        await zero.send({"type": "resume", "table": tid, "seat_token": zero.seat_token})
                        back = await zero.expect("obs")
                        drops.append(o["phase"])
                        assert back["seat"] == 0 and back["seq"] >= m["seq"]
                        assert 0 not in back["obs"]["bots"] or back["obs"]["phase"] == "OVER"
                        m, o = back, back["obs"]
                        phases.add(o["phase"])
                    if o["current_seat"] == 0 and o["legal_actions"] and len(o["history"]) > acted:
                        acted = len(o["history"])
                        await zero.act(eager(o["legal_actions"]))

            r0, rest = await asyncio.gather(seat_zero(), play_out(others, timeout=60))
            all_zero.extend(zero.raw)
            assert len(drops) >= 2
            assert any(0 in m["obs"]["bots"] for c in others for m in c.seen if m["type"] == "obs")
            assert rest[0]["result"]["kind"] in ("normal", "special")
            rec = (await srv.storage.hand(tid)).record
            assert "ESCAPE" not in [a["action"] for a in _actions(rec)]
            assert check_messages(rec, 0, all_zero, tid) == []
            for c in others + [zero]:
                await c.close()
    run(main())


def test_grace_expiry_is_an_escape_twop(tmp_path):
    """TWOP: a seat gone longer than the grace period has escaped: the hand ends at once with
    the §4.1 escape settlement, stored like any hand."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), grace_s=0.3, bot_delay_s=5) as srv:
            a, b = await seated(srv.port, ["ann", "bob"], "score")
            await a.close()
            r = await b.expect("result", timeout=10)
            assert r["result"]["kind"] == "escape"
            assert r["settlement"]["changes"][a.seat] < 0 and r["settlement"]["kind"] == "escape"
            assert (await srv.storage.balances("ann"))["twop_score"] == r["settlement"]["changes"][a.seat]
            rec = (await srv.storage.hand(b.table)).record
            assert {"seat": a.seat, "action": "ESCAPE"} in _actions(rec)
            await b.close()
    run(main())


def test_grace_expiry_classic_bot_plays_on(tmp_path):
    """CLASSIC3: after the grace period a bot plays the escaped seat to the end and the hand
    is settled normally (§3.6, A9); its player, back, may watch but not act."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), grace_s=0.2) as srv:
            cs = await seated(srv.port, ["ann", "bob", "cat"], "novice")
            gone = cs[0]
            await gone.close()
            await asyncio.sleep(0.4)
            back = await Client.connect(srv.port)
            w = await back.hello("ann", gone.token)
            back.table, back.seat, back.seat_token = w["table"]["table"], w["table"]["seat"], w["table"]["seat_token"]
            await back.send({"type": "resume", "table": back.table, "seat_token": back.seat_token})
            await back.expect("obs")
            await back.act("PASS")
            assert (await back.expect("illegal"))["code"] == "ESCAPED"
            results = await play_out(cs[1:], timeout=60)
            assert results[0]["result"]["kind"] == "normal"
            rec = (await srv.storage.hand(back.table)).record
            assert {"seat": gone.seat, "action": "ESCAPE"} in _actions(rec)
            for c in cs[1:] + [back]:
                await c.close()
    run(main())


@pytest.mark.parametrize("room,n,kind", [("score", 2, "escape"), ("bengbu_300", 4, "escape")])
def test_leaving_a_matched_table_is_an_escape(tmp_path, room, n, kind, ordinary_deals):
    """``leave`` right after the match (TWOP: before the game starts, §4.1) is an escape; in
    BENGBU4 the escapee pays 27 points × the room's point value (§4.2)."""

    async def main():
        async with running(str(tmp_path / "db.sqlite3")) as srv:
            cs = await seated(srv.port, [f"p{i}" for i in range(n)], room)
            c = cs[0]
            await c.send({"type": "leave", "table": c.table, "seat_token": c.seat_token})
            await c.expect("left")
            r = await cs[1].expect("result")
            assert r["result"]["kind"] == kind
            if room == "bengbu_300":
                assert r["settlement"]["changes"][c.seat] == -27 * 300
            assert r["settlement"]["changes"][c.seat] < 0
            for x in cs:
                await x.close()
    run(main())


def test_server_dying_mid_hand_resumes_it(tmp_path):
    """``ddz serve`` killed (SIGKILL) during a hand: after a restart on the same database the
    hand resumes (issue #41: it used to be void): the player's ``welcome`` names the table, no
    balance has moved, the record is not given while the hand is live; ``resume`` and play
    finish it, and its coins move once."""
    db = str(tmp_path / "db.sqlite3")
    port = free_port()
    cmd = [sys.executable, "-m", "ddz.cli", "serve", "--port", str(port), "--db", db, "--bot-delay", "0.05"]

    def start():
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for _ in range(20):
            line = p.stdout.readline()
            if "ddz serve:" in line:
                return p
        raise AssertionError(f"ddz serve did not start: {line}")

    proc = start()
    try:
        async def first():
            c = await Client.connect(port)
            w = await c.hello("ann")
            await c.send({"type": "join", "room": "novice", "bots": True})
            await c.expect("matched")
            await c.expect("obs")
            return c.token, c.table, w["balances"]
        token, tid, before = run(first())
        proc.kill()
        proc.wait(10)
        proc = start()

        async def second():
            c = await Client.connect(port)
            w = await c.hello("ann", token)
            assert w["void_hands"] == [] and w["balances"] == before and w["table"]["table"] == tid
            assert not w["table"]["over"]
            assert await asyncio.to_thread(_status, port, f"/records/{tid}", token) == 409
            c.table, c.seat, c.seat_token = tid, w["table"]["seat"], w["table"]["seat_token"]
            await c.send({"type": "resume", "table": tid, "seat_token": c.seat_token})
            r = (await play_out([c]))[0]
            assert r["type"] == "result"
            assert await asyncio.to_thread(_status, port, f"/records/{tid}", token) == 200
            c2 = await Client.connect(port)
            w2 = await c2.hello("ann", token)
            assert w2["balances"]["coins"] == before["coins"] + r["settlement"]["changes"][c.seat]
            await c.close()
            await c2.close()
        run(second())
    finally:
        proc.kill()
        proc.wait(10)


def _status(port, path, token):
    import urllib.error
    import urllib.request
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_the_clock_counts_from_the_latest_event(tmp_path):
    """The move clock is one timer per table, not re-armed per event (Table._on_clock): when
    it fires for a decision answered since, it waits for the current one. Seat A acts 0.6 of
    the timeout into its decision; the next seat's TIMEOUT comes a whole timeout after that
    action (not when A's deadline passes), and is the only TIMEOUT."""
    timeout = 1.0

    async def main():
        async with running(str(tmp_path / "db.sqlite3"), move_timeout_s=timeout) as srv:
            cs = await seated(srv.port, ["p0", "p1"], "score")
            t = srv.tables[cs[0].table]
            loop = asyncio.get_running_loop()
            first = await cs[0].latest_obs(0.05)
            a = next(c for c in cs if c.seat == first["obs"]["current_seat"])
            o = (await a.latest_obs(0.05))["obs"]
            await asyncio.sleep(0.6 * timeout)
            acted_at = loop.time()
            await a.act(eager(o["legal_actions"]))
            hist = len(o["history"])
            while len(t.game.history) <= hist + 1 and loop.time() < acted_at + 10:
                await asyncio.sleep(0.01)
            timed_out_at = loop.time()
            new = t.game.history[hist:]
            assert new[0] == (a.seat, eager(o["legal_actions"]))
            assert new[1] == (t.game.history[hist + 1][0], "TIMEOUT") and new[1][0] != a.seat
            assert timed_out_at - acted_at >= timeout - 0.05
            for c in cs:
                await c.close()
    run(main())


def test_an_action_answering_a_closed_decision_is_stale(tmp_path):
    """``act`` with ``seq`` (docs/protocol.md): seat Y's view at event k offers a decision; the
    clock answers it (§3.6, A8) and play comes back to Y with a new decision. Y's action of
    event k then arrives, and it is legal in the new decision too: without ``seq`` it would
    be applied to a decision its player never saw. With ``seq`` it is refused (``STALE``) and
    nothing changes; a ``seq`` ahead of the table is a ``bad_field`` error; the same action
    with the current ``seq`` is applied."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), move_timeout_s=0.5) as srv:
            cs = await seated(srv.port, ["ann", "bob"], "score")
            by_seat = {c.seat: c for c in cs}
            t = srv.tables[cs[0].table]
            y = t.game.current_seat
            k = t.seq
            for _ in range(200):  # the clock answers Y's decision of event k
                if t.decision_seq > k:
                    break
                await asyncio.sleep(0.02)
            assert t.decision_seq > k and (y, "TIMEOUT") in t.game.history
            while t.game.current_seat != y:  # the other seat acts at once, until Y decides again
                other = t.game.current_seat
                await by_seat[other].act(eager(t.game.legal_actions()), t.seq)
                seq = t.seq
                for _ in range(200):
                    if t.seq > seq:
                        break
                    await asyncio.sleep(0.01)
            cy = by_seat[y]
            action = t.game.legal_actions()[0]
            before, seq = t.game.to_json(), t.seq
            await cy.act(action, k)
            m = await cy.expect("illegal", code="STALE")
            assert m["action"] == action and str(k) in m["message"]
            assert (t.game.to_json(), t.seq) == (before, seq)
            await cy.act(action, seq + 5)
            m = await cy.expect("error", code="bad_field")
            assert "ahead" in m["message"]
            assert (t.game.to_json(), t.seq) == (before, seq)
            await cy.act(action, seq)
            for _ in range(200):
                if t.seq > seq:
                    break
                await asyncio.sleep(0.01)
            assert t.seq > seq and t.decision_seq == seq + 1
    run(main())
