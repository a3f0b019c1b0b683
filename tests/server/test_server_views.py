"""The table builds each seat's view from the public one (``ddz.server.table.seat_view``, so
that the public part costs once per event): it must be exactly ``Game.observation(seat)`` at
every step of hands of every variant, through the bidding, the play, timeouts, bots and
escapes (RULES.md §6: a seat sees its own cards and what is public, nothing else)."""
from __future__ import annotations

import random

import pytest

from ddz import Game, Rules
from ddz.bots import RuleBot
from ddz.server.table import seat_view

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
