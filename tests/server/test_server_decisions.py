"""When a client has a decision to answer (``ddz.server.protocol.SeatView``, the rule the
load client and the tests' clients act by): the history growing is not a new decision.

The soak of issue #14 saw 13 actions in 582,000 refused as illegal (DOES_NOT_BEAT, NOT_HELD,
NOT_OFFERED, WRONG_PHASE): an event adds a history entry and leaves the same seat to act on
the same decision (another seat's ESCAPE in CLASSIC3, RULES.md §4 / A9: a bot plays on) while
the seat's action is already on the wire; a client that answers every view showing its turn
with a longer history answers that decision twice, the second time on a view behind the
table, and the server judges that second action against a later decision.

Also the other fault the load runs showed at their end: a player told ``left_queue`` while
its matchmaking round was opening tables, and seated anyway."""
from __future__ import annotations

import asyncio
import time
from typing import Any, Dict, List

import pytest

pytest.importorskip("websockets")

from ddz.server.protocol import SeatView  # noqa: E402

from _client import Client, eager, running, seated  # noqa: E402


async def _drain(c: Client, v: SeatView, timeout: float = 0.2) -> List[Dict[str, Any]]:
    """What arrives for ``c`` within ``timeout``, its updates applied to ``v``."""
    got = []
    while True:
        try:
            await c._recv(timeout)
        except asyncio.TimeoutError:
            return got
        m = c.raw[-1]
        got.append(m)
        if m["type"] in ("obs", "delta"):
            v.update(m)


async def _play(c: Client, v: SeatView, log: List[Any], timeout: float = 30.0) -> Dict[str, Any]:
    """Acts (``eager``) whenever ``v.to_decide()`` until the result; every message goes to
    ``log`` with whether the view then offered a decision."""
    while True:
        await c._recv(timeout)
        m = c.raw[-1]
        if m["type"] == "result":
            return m
        if m["type"] == "illegal":
            v.refused()
        if m["type"] in ("obs", "delta"):
            v.update(m)
        log.append((c.seat, m, v.to_decide()))
        if v.to_decide():
            assert v.obs is not None
            v.acted()
            await c.act(eager(v.obs["legal_actions"]))


def test_an_escape_while_the_action_is_on_the_wire_is_not_a_new_decision(tmp_path):
    """CLASSIC3, seat X away (its bot plays it), seat Y to act. Y sends its action; before the
    server reads it, X's grace runs out (``Table.escape``, what the grace timer calls): Y gets
    the escape's delta (history one longer, Y still to act, the same legal actions), then the
    delta of its own action. The escape's view must offer no decision, and Y and the third
    seat, acting whenever their view offers one, play the hand to its end with no action
    refused."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), grace_s=60, bot_delay_s=0.0) as srv:
            cs = await seated(srv.port, ["ann", "bob", "cat"], "novice")
            views = {c.seat: SeatView(c.seat) for c in cs}
            for c in cs:
                await _drain(c, views[c.seat])
            t = srv.tables[cs[0].table]
            y = t.game.current_seat
            x = (y + 1) % 3
            by_seat = {c.seat: c for c in cs}
            await by_seat[x].close()
            for _ in range(200):
                if x in t.absent:
                    break
                await asyncio.sleep(0.01)
            assert x in t.absent and t.game.current_seat == y
            cy, vy = by_seat[y], views[y]
            others = [c for c in cs if c.seat not in (x, y)]
            await _drain(cy, vy)
            for c in others:
                await _drain(c, views[c.seat])
            assert vy.to_decide()
            assert vy.obs is not None
            action = eager(vy.obs["legal_actions"])
            t.escape(x)  # the grace timer's call: the escape's delta is written to Y once stored
            await t.durable()
            vy.acted()
            await cy.act(action)  # read by the server after the escape
            log: List[Any] = []
            results = await asyncio.wait_for(asyncio.gather(_play(cy, vy, log),
                                                            *(_play(c, views[c.seat], log) for c in others)), 60)
            esc = next(m for s, m, _ in log if s == y and m["type"] == "delta" and [x, "ESCAPE"] in m["events"])
            assert esc["set"].get("current_seat", y) == y  # the escape left Y to act ...
            assert not next(d for s, m, d in log if m is esc)  # ... on the decision it has answered
            refused = [m for _, m, _ in log if m["type"] in ("illegal", "error")]
            assert refused == []
            assert all(r["result"] == results[0]["result"] for r in results)
            for c in cs:
                await c.close()
    asyncio.run(asyncio.wait_for(main(), 90))


def test_a_player_matched_in_a_round_is_no_longer_waiting_before_any_table_opens(tmp_path):
    """One matchmaking round seats two CLASSIC3 trios; opening a table yields (its storage
    calls), so a ``leave_queue`` can come between the first table and the second. Every
    player of the round must stop waiting before the first table opens, and ``leave_queue``
    from one of them is refused (``not_queued``: its ``matched`` follows), never answered
    ``left_queue`` before the player is seated anyway. (The load runs' ends showed it: players
    told to leave the queue were seated, never played, and their hands were still live when
    the run stopped.)"""
    async def main():
        # no connection holds these players' seats: bots play them, slowly, so the tables stay open
        async with running(str(tmp_path / "db.sqlite3"), bot_delay_s=30) as srv:
            names = [f"n{i}" for i in range(6)]
            for n in names:
                await srv.storage.create_account(n, {"coins": 10_000})
            mm = srv.lobby.matchmakers["novice"]
            now = time.monotonic()
            for n in names:
                srv.lobby.waiting[n] = "novice"
                mm.join(n, 10_000, 0, 0, now=now)
            still_waiting = []
            real_open = srv._open_table

            async def open_table(room, players, bots, table_id=None):
                still_waiting.append(sorted(p for p in names if p in srv.lobby.waiting))
                return await real_open(room, players, bots, table_id)
            srv._open_table = open_table
            await srv._match_once()
            assert len(still_waiting) == 2 and still_waiting[0] == []
            assert all(n in srv.tables.by_player for n in names)
            c = await Client.connect(srv.port)  # not waiting: leave_queue is refused, not "left"
            await c.hello("zed")
            await c.send({"type": "leave_queue"})
            assert (await c.expect("error"))["code"] == "not_queued"
            await c.send({"type": "join", "room": "score"})
            await c.expect("queued")
            await c.send({"type": "leave_queue"})
            await c.expect("left_queue")
            await c.close()
    asyncio.run(asyncio.wait_for(main(), 60))
