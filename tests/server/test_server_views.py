"""The table builds each seat's view from the public one (``ddz.server.table.seat_view``, so
that the public part costs once per event): it must be exactly ``Game.observation(seat)`` at
every step of hands of every variant, through the bidding, the play, timeouts, bots and
escapes (RULES.md §6: a seat sees its own cards and what is public, nothing else)."""
from __future__ import annotations

import asyncio
import json
import random

import pytest

from ddz import ROOMS, Game, Rules
from ddz.bots import RuleBot
from ddz.server.journal import MemoryJournal
from ddz.server.storage import LiveHand
from ddz.server.protocol import apply_update, dumps
from ddz.server.table import Table, seat_view

RULES = {"classic": Rules.classic, "two_player": Rules.two_player, "bengbu": Rules.bengbu}


def _check(g: Game) -> None:
    pub = g.observation(None)
    assert seat_view(g, pub, None) == pub
    for s in range(g.num_players):
        assert seat_view(g, pub, s) == g.observation(s), (s, g.history[-3:])


@pytest.mark.parametrize("variant", sorted(RULES))
@pytest.mark.parametrize("seed", range(8))
def test_seat_view_is_the_engines_observation(variant, seed):
    rng = random.Random(seed)
    g = Game(RULES[variant](), seed)
    escaped = set()
    _check(g)
    while not g.is_over:
        seat = g.current_seat
        r = rng.random()
        if r < 0.05:
            g.timeout()
        elif r < 0.07 and seat not in escaped:
            escaped.add(seat)
            g.escape(seat)  # CLASSIC3: a bot plays on; TWOP / BENGBU4: the hand ends
        elif r < 0.12 and seat not in g.bot_seats:
            g.set_bot(seat, RuleBot())
            g.apply(RuleBot().act(g, seat), seat=seat)
            g.clear_bot(seat)
        elif seat in g.bot_seats:
            g.apply(RuleBot().act(g, seat), seat=seat)
        else:
            g.apply(rng.choice(g.legal_actions()), seat=seat)
        _check(g)


class _Config:
    bot_delay_s = 0.0
    move_timeout_s = None
    grace_s = 1e9


class _Receiver:
    """A session that only keeps what it is sent (protocol version 2)."""
    version = 2

    def __init__(self) -> None:
        self.seats = {}
        self.msgs = []

    def send(self, msg) -> None:
        text = dumps(msg)  # what goes on the wire: the standard library's text, whichever encoder runs
        assert text == json.dumps(msg, ensure_ascii=False, separators=(",", ":"))
        self.msgs.append(json.loads(text))


def _wire(obs):
    return json.loads(json.dumps(obs))


@pytest.mark.parametrize("room", ["novice", "score", "bengbu"])
@pytest.mark.parametrize("seed", range(4))
def test_every_delta_rebuilds_the_engines_observation(room, seed):
    """The table's deltas (the public fields an event changed, found once per event, and each
    seat's own fields) rebuild, after every event, exactly ``Game.observation(seat)`` for each
    seat and the public view for a spectator, through actions, the clock, seats going away and
    coming back with and without ``since``, and escapes. The table is built and played without
    a server (its log in memory, no database): its end is an event with the result, and its
    log, replayed on its start (``Table.restore``), gives the same hand."""
    async def main():
        rng = random.Random(seed)
        r = ROOMS[room]
        journal = MemoryJournal()  # the hand log, stored at once
        kw = {"config": _Config(), "bot": RuleBot(), "journal": journal}
        t = Table(f"{seed:016x}", r, [f"p{i}" for i in range(r.players)], set(), [10_000] * r.players,
                  seed=seed, **kw)
        ended = []
        t.on_end = ended.append
        recv = [_Receiver() for _ in range(r.players)]
        for s, x in enumerate(recv):
            t.sessions[s] = x
        spec = _Receiver()
        t.start()
        t.watch(spec)
        views = {}
        away = {}  # seat -> (the view its client kept, the last seq it saw)

        def check():
            for s, x in [(s, x) for s, x in enumerate(recv) if s not in away] + [(None, spec)]:
                for m in x.msgs:
                    views[s] = apply_update(views.get(s), m)
                x.msgs.clear()
                assert views[s] == _wire(t.game.observation(s)), (s, t.seq)

        check()
        while not t.game.is_over:
            g = t.game
            seat = g.current_seat
            u = rng.random()
            if u < 0.04:
                t.time_out()
            elif u < 0.08 and len(away) < r.players - 1:
                s = rng.choice([s for s in range(r.players) if s not in away])
                t.detach(s, recv[s])
                away[s] = (views.pop(s), t.seq)
            elif u < 0.14 and away:
                s = rng.choice(sorted(away))
                kept, since = away.pop(s)
                recv[s] = _Receiver()
                if rng.random() < 0.7:  # resume with since: a delta on the view it kept
                    views[s] = kept
                    t.attach(s, recv[s], since)
                else:
                    t.attach(s, recv[s])
            elif u < 0.15:
                t.escape(seat)
            elif seat in g.bot_seats:
                t._bot_move(t.seq)
            else:
                assert t.act(seat, rng.choice(g.legal_actions())) is None
            check()
        await t._finishing
        assert ended == [t] and t.result_msg["type"] == "result"
        assert t.result_msg["result"] == t.game.result.to_dict()
        again = Table.restore(LiveHand(t.id, r.name, t.players, "here", t.start_record(),
                                       list(enumerate(journal.ops[t.id], 1))), 0.0, {r.name: r}, lambda room: kw)
        assert again.game.history == t.game.history and again.game.result.to_dict() == t.game.result.to_dict()
    asyncio.run(main())
