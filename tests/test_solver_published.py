"""Published two-player 残局 positions (tests/data/published_endgames.json, source cited there):
ddz.solve gives the published answer, and its principal variation is a legal line that the
named side wins (checked with a PlayState-free replay through ddz.legal_moves)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import ddz

DATA = json.loads((Path(__file__).parent / "data" / "published_endgames.json").read_text(encoding="utf-8"))
RULES = ddz.Rules.classic()


@pytest.mark.parametrize("pos", DATA["positions"], ids=lambda p: f"{p['first']}-vs-{p['second']}")
def test_published_answer(pos) -> None:
    sol = ddz.solve([pos["first"], pos["second"]], RULES)
    assert sol.complete and sol.win is pos["first_wins"]
    assert bool(sol.moves) is pos["first_wins"]
    # Replay the line: every action legal, the winner the side the answer names.
    hands = [ddz.Cards(pos["first"]), ddz.Cards(pos["second"])]
    top = None
    for i, (seat, m) in enumerate(sol.pv):
        assert seat == i % 2  # two seats alternate, a pass included
        if m.is_pass:
            assert top is not None
            top = None
            continue
        assert str(m) in {str(x) for x in ddz.legal_moves(hands[seat], RULES, prev=top)}
        hands[seat] = hands[seat] - m.cards
        top = m
        if not hands[seat]:
            assert (seat == 0) is pos["first_wins"]
            break
    else:
        pytest.fail("the line does not end the hand")
