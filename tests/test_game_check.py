"""Game.check / can_apply / apply(action, seat=): the IllegalAction a server gets back, with a
stable .code, for every kind of bad action in every phase; check() agrees with apply()."""
from __future__ import annotations

import random

import pytest

import ddz
from ddz import IllegalCode as C


def reach(variant: str, phase: str, seed: int = 0) -> ddz.Game:
    """The first seeded random game of `variant` that reaches `phase` (and, for PLAY, a follow)."""
    for s in range(seed, seed + 500):
        g = ddz.Game(ddz.Rules(variant), s)
        rng = random.Random(s)
        while not g.is_over:
            if g.phase == phase and (phase != "PLAY" or g.play_state.top is not None):
                return g
            g.apply(rng.choice(g.legal_actions()))
    raise AssertionError(f"no game reaches {variant}/{phase}")


def same(e1, e2):
    return type(e1) is type(e2) and str(e1) == str(e2) and e1.code == e2.code


def expect(g: ddz.Game, action, code, seat=None):
    before = g.to_json()
    e = g.check(action, seat)
    assert e is not None and e.code == code, (action, e, e and e.code)
    assert isinstance(e, ddz.IllegalAction) and not g.can_apply(action, seat)
    with pytest.raises(ddz.IllegalAction) as info:
        g.apply(action, seat)
    assert same(info.value, e)
    assert g.to_json() == before


@pytest.mark.parametrize("variant, phase, decision, other_phase_token", [
    ("classic", "CALL", "CALL", "ROB"), ("classic", "ROB", "ROB", "SHOW"), ("classic", "SHOW", "SHOW", "CALL"),
    ("two_player", "PRE_DEAL", "SHOW_START", "FANSHEN"), ("two_player", "BID", "CALL", "YAPO"),
    ("bengbu", "BID", "BID3", "OPEN"), ("bengbu", "OPEN_CHOICE", "OPEN", "GRAB"),
])
def test_decision_phases(variant, phase, decision, other_phase_token):
    g = reach(variant, phase)
    seat = g.current_seat
    other = (seat + 1) % g.num_players
    assert g.check(decision) is None and g.check(decision, seat) is None and g.can_apply(decision.lower())
    expect(g, decision, C.NOT_YOUR_TURN, seat=other)
    expect(g, other_phase_token, C.NOT_OFFERED)
    expect(g, "PASS", C.WRONG_PHASE)
    expect(g, "PLAY 33", C.WRONG_PHASE)
    expect(g, ["3s"], C.WRONG_PHASE)
    expect(g, "HELLO", C.MALFORMED)
    expect(g, 17.0, C.MALFORMED)
    assert isinstance(g.check(17.0), TypeError)
    expect(g, 17, C.WRONG_PHASE)  # an int is an action id (ddz.action_space): play id 17 during the bidding
    with pytest.raises(ddz.ArgumentError):
        g.check(decision, seat=9)


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_play_phase_codes(variant):
    g = reach(variant, "PLAY")
    ps = g.play_state
    seat = g.current_seat
    top, owner = ps.top
    expect(g, "CALL" if variant != "bengbu" else "BID1", C.WRONG_PHASE)
    expect(g, "PLAY ZZ", C.MALFORMED)
    expect(g, "PLAY 3s 3s", C.MALFORMED)
    expect(g, object(), C.MALFORMED)
    expect(g, "PASS", C.NOT_YOUR_TURN, seat=(seat + 1) % g.num_players)
    held = str(ps.hand(seat))
    missing = next(r for r in "3456789TJQKA2BR" if r not in held)
    expect(g, missing, C.NOT_HELD)
    beaten = [m for m in ddz.legal_moves(ps.hand(seat), g.rules) if not m.beats(top) and not m.is_bomb]
    if beaten:
        expect(g, str(beaten[0]), C.DOES_NOT_BEAT)
    assert g.check("PASS") is None


def test_lead_pass_not_a_combination_and_hand_over():
    g = reach("classic", "PLAY")
    while g.play_state.top is not None:
        g.apply("PASS")
    expect(g, "PASS", C.LEAD_PASS)
    ps = ddz.PlayState(["35", "4", "6"], 0, ddz.Rules.classic())
    assert ps.check("35").code == C.NOT_A_COMBINATION and ps.check("PASS").code == C.LEAD_PASS
    ps.apply("3")
    assert ps.check("4", ) is None and ps.check("5").code == C.NOT_HELD
    rng = random.Random(1)
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
    expect(g, "PASS", C.HAND_OVER)


def test_bomb_limit_code():
    rules = ddz.Rules.bengbu()
    ps = ddz.PlayState(["33334444", "5", "6", "7"], 0, rules, bomb_limits=[1, None, None, None])
    ps.apply("3333")
    for _ in range(3):
        ps.apply("PASS")
    e = ps.check("4444")
    assert e is not None and e.code == C.BOMB_LIMIT


def test_check_agrees_with_apply_on_random_actions():
    """Over random games, for legal and for random actions: check() is None exactly when
    apply() succeeds, and otherwise equals what apply() raises."""
    rng = random.Random(3)
    junk = ["PASS", "CALL", "ROB", "BID2", "GRAB", "OPEN", "FANSHEN", "33", "PLAY 3s", "2", "BR", "Z", "", 5, None]
    for variant in ddz.VARIANTS:
        for seed in range(15):
            g = ddz.Game(ddz.Rules(variant), seed)
            while not g.is_over:
                legal = g.legal_actions()
                for a in legal:
                    assert g.check(a) is None and g.check(a, g.current_seat) is None
                a = rng.choice(junk + legal[:3])
                e = g.check(a)
                before = g.to_json()
                try:
                    g.apply(a)
                    assert e is None, (a, e)
                except ddz.IllegalAction as raised:
                    assert e is not None and same(raised, e) and g.to_json() == before
                if not g.is_over:
                    g.apply(rng.choice(g.legal_actions()))


def test_codes_are_stable_and_print_their_names():
    assert [c.name for c in C] == ["HAND_OVER", "LEAD_PASS", "NOT_HELD", "NOT_A_COMBINATION", "DOES_NOT_BEAT",
                                   "WRONG_READING", "BOMB_LIMIT", "NOT_YOUR_TURN", "WRONG_PHASE", "NOT_OFFERED",
                                   "MALFORMED", "NOTHING_TO_UNDO"]
    assert [int(c) for c in C] == list(range(1, 13))
    assert str(C.NOT_HELD) == "NOT_HELD"
    assert ddz.IllegalAction.code is None
