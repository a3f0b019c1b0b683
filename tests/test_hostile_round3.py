"""Regression tests of the third hostile-input round (the whole hand in C++ under a fuzzing
campaign): one test per defect, each failing on the code before its fix. The fuzz targets that
would have found them are in tests/fuzz/targets_hand.py; the numeric ranges are docs/rules.md §11,
"Numeric ranges". .ci/sanitize runs this module under ASan + UBSan, where defects 2 and 3 were
reports."""
from __future__ import annotations

import json
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ddz
from ddz.learn import NeuralBot

MAX = 10**12


def _to_play(g: ddz.Game) -> ddz.Game:
    while g.phase != "PLAY":
        g.apply(g.legal_actions()[0])
    return g


def _finish(g: ddz.Game) -> ddz.Game:
    for s in range(g.num_players):
        g.set_bot(s, ddz.bots.RuleBot())
    g.step_bots()
    assert g.is_over
    return g


def _no_calls(g: ddz.Game, redeals: int) -> None:
    for _ in range(3 * redeals):
        g.apply("NO_CALL")


# ---- 1: a history of a million entries is freed without a recursion ----------------------------

def test_1_a_million_entry_history_is_freed_without_a_crash():
    # in a child process: without the fix, freeing the history overflowed the stack (SIGSEGV)
    code = textwrap.dedent("""
        import gc, ddz
        g = ddz.Game(ddz.Rules.classic(), seed=1)
        for _ in range(1_200_000):
            g.escape(0)
        c = g.clone()  # a clone shares the history: freeing one must leave the other whole
        assert len(g.history) == 1_200_000
        del g
        gc.collect()
        assert c.history[-1] == (0, "ESCAPE") and len(c.history) == 1_200_000
        del c
        gc.collect()
        print("freed")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    assert out.stdout.strip() == "freed"


# ---- 2: no signed overflow in the core's scores at the largest stakes --------------------------

@pytest.mark.parametrize("loss_factor", [2, 1])
def test_2_largest_stakes_score_exactly(loss_factor):
    rules = ddz.Rules.classic(classic_landlord_loss_factor=loss_factor)
    g = _finish(_to_play(ddz.Game(rules, seed=3, base=MAX, initial_multiplier=MAX)))
    small = _finish(_to_play(ddz.Game(rules, seed=3)))
    res = g.result
    assert res.unit == MAX * MAX * res.multiplier  # beyond int64: Python's integers form it
    x = res.unit
    want = [(2 * x if res.winner_side == "landlord" else -loss_factor * x) if s == res.landlord else
            (-x if res.winner_side == "landlord" else (x if loss_factor == 2 else x // 2)) for s in range(3)]
    assert res.scores == want
    assert [s // (MAX * MAX) for s in res.scores] == small.result.scores or loss_factor == 1
    assert pickle.loads(pickle.dumps(g)).result == res  # (under UBSan the core's own score ran here)


# ---- 3: no signed overflow in an action id's range check ---------------------------------------

@pytest.mark.parametrize("aid", [-(2**63), -(2**63) + 1, 2**63 - 1, -1])
def test_3_extreme_action_ids_in_the_auction(aid):
    g = ddz.Game(ddz.Rules.classic(), seed=1)
    before = g.to_json()
    with pytest.raises(ddz.IllegalAction, match="out of range"):
        g.apply(aid)
    assert g.to_json() == before


# ---- 4: reading a record is linear in its re-deals ---------------------------------------------

def _calls_to_read(record: str) -> int:
    """Every Python and C function call made to read a record (a count, not a time)."""
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        ddz.Game.from_json(record)
    finally:
        sys.setprofile(None)
    return calls


def test_4_reading_a_record_is_linear_in_its_redeals():
    records = []
    for n in (100, 400):
        g = ddz.Game(ddz.Rules.classic(), seed=2)
        _no_calls(g, n)
        records.append(g.to_json())
    small, large = (_calls_to_read(r) for r in records)
    # four times the re-deals: four times the work, not sixteen (it was quadratic: 8,000
    # re-deals took seconds, 65,535 minutes)
    assert large < 4.5 * small, (small, large)
    back = pickle.loads(pickle.dumps(ddz.Game.from_json(records[1])))
    assert back.redeals == 400


# ---- 5: the re-deal counter never wraps ------------------------------------------------------

def test_5_redeal_counter_does_not_wrap_at_65536():
    rules = ddz.Rules.classic()
    g = ddz.Game(rules, seed=11)
    _no_calls(g, 65_537)
    assert g.redeals == 65_537 and g.deal_number == 65_537
    # deal k of a game is game k of its seed's series: deal 65,537 is not deal 1 again
    now = sorted(g.observation(s)["cards"] for s in range(3))
    again = ddz.Game(rules, seed=11)
    _no_calls(again, 1)
    assert now != sorted(again.observation(s)["cards"] for s in range(3))
    assert g.history[-1] == (None, "REDEAL") and len(g.history) == 4 * 65_537


@pytest.mark.slow
def test_5_a_game_past_65536_redeals_replays_and_pickles():
    g = ddz.Game(ddz.Rules.classic(), seed=11)
    _no_calls(g, 65_537)
    g.apply("CALL")
    for other in (ddz.Game.from_json(g.to_json()), pickle.loads(pickle.dumps(g))):
        assert other.redeals == 65_537 and other.history == g.history
        assert other.observation(0) == g.observation(0)


# ---- 6: one range for every option, the same in Rules, Game and VectorEnv ---------------------

def test_6_max_redeals_beyond_32_bits_is_a_limit_not_a_void():
    rules = ddz.Rules.classic(max_redeals=2**32 + 1)
    g = ddz.Game(rules, seed=1)
    _no_calls(g, 1)
    assert not g.is_over and g.redeals == 1  # it was read as 1: the hand was void at once


@pytest.mark.parametrize("options", [dict(max_redeals=2**31), dict(max_redeals=MAX), dict(classic_rob_cap=2**39),
                                     dict(classic_rob_cap=MAX)])
def test_6_valid_rules_are_valid_everywhere(options):
    rules = ddz.Rules.classic(**options)
    g = _finish(_to_play(ddz.Game(rules, seed=5)))
    assert ddz.Game.from_json(g.to_json()).result == g.result
    env = ddz.VectorEnv(rules, 2, 0)
    env.reset()


@pytest.mark.parametrize("options", [dict(max_redeals=MAX + 1), dict(max_redeals=2**63), dict(classic_rob_cap=MAX + 1),
                                     dict(classic_rob_cap=2**63), dict(classic_rob_cap=0)])
def test_6_options_out_of_range_are_refused_with_the_range(options):
    with pytest.raises(ddz.ArgumentError, match=r"\.\.10\*\*12"):
        ddz.Rules.classic(**options)


@pytest.mark.parametrize("value", [0, -1, MAX * 1.5, float("inf"), float("nan")])
def test_6_positive_numbers_out_of_range_are_refused(value):
    with pytest.raises(ddz.ArgumentError, match=r"up to 10\*\*12"):
        ddz.Rules.two_player(twop_initial_multiplier=value)


def test_6_the_range_is_the_cores():
    assert ddz.core.rules.MAX_OPTION_VALUE == ddz._core.MAX_OPTION_VALUE == MAX


# ---- 7: the stakes a Game takes are the stakes its record takes -------------------------------

@pytest.mark.parametrize("stake", [MAX + 1, 2**40, 2**64 - 1, 0, -1])
def test_7_stakes_out_of_range_are_refused_where_they_enter(stake):
    rules = ddz.Rules.classic()
    for kw in (dict(base=stake), dict(initial_multiplier=stake)):
        with pytest.raises(ddz.ArgumentError, match="1..1,000,000,000,000"):
            ddz.Game(rules, seed=1, **kw)


def test_7_the_largest_stakes_round_trip():
    g = _to_play(ddz.Game(ddz.Rules.classic(), seed=1, base=MAX, initial_multiplier=MAX))
    for other in (pickle.loads(pickle.dumps(g)), ddz.Game.from_json(g.to_json())):
        assert other.history == g.history and other.observation(0) == g.observation(0)


# ---- 8: Game.play_state cannot change the game -------------------------------------------------

def test_8_the_games_play_state_is_read_only():
    g = _to_play(ddz.Game(ddz.Rules.classic(), seed=3))
    g.apply(g.legal_actions()[0])
    ps = g.play_state
    assert ps.readonly
    before = (g.to_json(), ps.legal_actions(), ps.current_seat)
    with pytest.raises(ddz.ArgumentError, match="read-only view"):
        ps.apply(ps.legal_actions()[0])
    with pytest.raises(ddz.ArgumentError, match="read-only view"):
        ps.undo()
    with pytest.raises(ddz.ArgumentError, match="read-only view"):
        g._hands.play(ps, g.legal_actions()[0])  # the suited cards' play path too
    assert (g.to_json(), ps.legal_actions(), ps.current_seat) == before
    # copies are free: search explores on them
    for c in (ps.clone(), pickle.loads(pickle.dumps(ps)), __import__("copy").copy(ps)):
        assert not c.readonly
        c.apply(c.legal_actions()[0])
        c.undo()
        assert c == ps
    g.apply(g.legal_actions()[0])  # the game plays on, and its view with it
    assert g.play_state.current_seat == g.current_seat
    assert ddz.Game.from_json(g.to_json()).history == g.history


# ---- 9: timeout() is atomic --------------------------------------------------------------------

class _IllegalBot:
    def act(self, game, seat):
        return "PLAY 33333"  # never legal


def test_9_a_bot_timeout_with_an_illegal_answer_changes_nothing():
    rules = ddz.Rules.classic(timeout_policy="bot")
    for phase in ("CALL", "PLAY"):
        g = ddz.Game(rules, seed=4)
        if phase == "PLAY":
            _to_play(g)
        g.set_bot(g.current_seat, _IllegalBot())
        before = (g.to_json(), g.history)
        with pytest.raises(ddz.IllegalAction):
            g.timeout()
        with pytest.raises(ddz.IllegalAction):
            g.elapsed(g.move_timeout_s)
        assert (g.to_json(), g.history) == before  # no TIMEOUT recorded
        g.set_bot(g.current_seat, ddz.bots.RuleBot())
        g.timeout()
        assert g.history[-2][1] == "TIMEOUT"
        assert ddz.Game.from_json(g.to_json()).history == g.history


# ---- 10: a seat is an int in every phase -------------------------------------------------------

@pytest.mark.parametrize("phase", ["CALL", "PLAY"])
def test_10_a_seat_of_another_type_is_refused_in_every_phase(phase):
    g = ddz.Game(ddz.Rules.classic(), seed=3)
    if phase == "PLAY":
        _to_play(g)
    s = g.current_seat
    action = g.legal_actions()[0]
    before = g.to_json()
    for seat in (bool(s) if s in (0, 1) else True, float(s), np.float64(s), np.array([s]), complex(s)):
        with pytest.raises(ddz.ArgumentTypeError, match="a seat is an int"):
            g.apply(action, seat)
        with pytest.raises(ddz.ArgumentTypeError, match="a seat is an int"):
            g.check(action, seat)
        assert g.to_json() == before
    g.apply(action, np.int64(s))  # numpy integers are seats


# ---- 11, 12, 13: the errors the docs promise ---------------------------------------------------

def test_11_view_json_takes_numpy_seats():
    g = ddz.Game(ddz.Rules.classic(), seed=3)
    for seat in (np.int8(0), np.int64(0), np.uint16(0)):
        assert g.view_json(seat) == g.view_json(0)
    assert json.loads(g.view_json(np.int8(2)))["seat"] == 2


@pytest.mark.parametrize("hands", [5, 1.5, int, None.__class__])
def test_12_hands_of_another_type_raise_the_type_twin(hands):
    with pytest.raises(ddz.ArgumentTypeError, match="hands must be a list"):
        ddz.Game(ddz.Rules.classic(), hands=hands)


@pytest.mark.parametrize("game_kind,seat", [("game", 1.5), ("game", None), ("game", "0"), ("game", True),
                                            ("none", 0), ("str", 0), ("rules", 0)])
def test_13_neural_bot_act_refuses_hostile_arguments(game_kind, seat):
    bot = NeuralBot.shipped("classic")
    g = ddz.Game(ddz.Rules.classic(), seed=3)
    game = {"game": g, "none": None, "str": "game", "rules": ddz.Rules.classic()}[game_kind]
    for fn in (bot.act, bot.scores):
        with pytest.raises(ddz.ArgumentTypeError):
            fn(game, seat)
    with pytest.raises(ddz.ArgumentError, match="no seat 7"):
        bot.act(g, 7)
    assert bot.act(g, g.current_seat) in g.legal_action_ids()
