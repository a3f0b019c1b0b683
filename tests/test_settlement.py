"""Room settlement (``ddz.rooms``): RULES.md §2.1.9, §2.2.8, §3.4, §3.5, §4.1, §4.2 and
the vectors of §6.5 (S1-S17), §6.7 (W1-W8), §6.8 (E1-E10), §6.11 (X1-X4) as data-driven
tests on hand-built ``GameResult`` objects; then properties over 100,000 seeded random
settlements per room preset and hypothesis searches over arbitrary rooms:

* conservation: ``sum(changes) + sum(rake) == house``; ``house == 0`` except in TWOP;
* no negative balance after the hand (except BENGBU4 and TWOP score rooms, which have no floor);
* no win above the room cap / the 2× rule (CLASSIC3) / ``max_win_factor ×`` coins (TWOP);
* rake never negative, and exactly ``floor(g·r/100)`` on a positive gross result;
* no seat pays more than it held; limits only shrink the nominal amounts.
"""
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ddz import Game, GameResult, Rules
from ddz.rooms import ROOMS, Room, Settlement, settle

AMPLE = 10**6  # §6.5: "ample" = at least 10^6 coins
L_, F_ = "landlord", "farmers"


# ---- result builders (the fields ddz.Game fills) -----------------------------------

def classic_result(landlord, winner_side, D, unit, loss_factor=2):
    f1, f2 = (landlord + 1) % 3, (landlord + 2) % 3
    scores = [0, 0, 0]
    if winner_side == L_:
        scores[landlord], scores[f1], scores[f2] = 2 * unit, -unit, -unit
    else:
        fu = unit if loss_factor == 2 else unit // 2
        scores[landlord], scores[f1], scores[f2] = -loss_factor * unit, fu, fu
    winner_seat = landlord if winner_side == L_ else f1
    return GameResult(kind="normal", winner_side=winner_side, landlord=landlord, winner_seat=winner_seat,
                      multiplier=D, factors={}, unit=unit, scores=scores, terms={"loss_factor": loss_factor})


def twop_result(landlord, winner_side, m_act, I=1, landlord_role=2, factors=None):
    X = I * m_act
    sign = 1 if winner_side == L_ else -1
    scores = [0, 0]
    scores[landlord] = sign * landlord_role * X
    scores[1 - landlord] = -sign * X
    winner_seat = landlord if winner_side == L_ else 1 - landlord
    return GameResult(kind="normal", winner_side=winner_side, landlord=landlord, winner_seat=winner_seat,
                      multiplier=m_act, factors=factors or {}, unit=X, scores=scores,
                      terms={"landlord_factor": landlord_role})


def twop_escape(escapee, m_esc, role_escapee, role_remaining, landlord, I=1, compensation="normal_win",
                escapee_score=None, inclusive=True):
    """A TWOP escape result as the lead's engine builds it (brief / RULES.md §4.1). The
    escapee's score may be given (from a vector table) instead of computed."""
    E = 10 if (m_esc < 10 or (m_esc == 10 and not inclusive)) else 2 * m_esc
    scores = [0, 0]
    scores[escapee] = -role_escapee * E * I if escapee_score is None else escapee_score
    scores[1 - escapee] = role_remaining * I * m_esc if compensation == "normal_win" else 0
    factors = {"escapee": escapee, "m_esc": m_esc, "E": E, "role_escapee": role_escapee,
               "role_remaining": role_remaining, "I": I, "compensation": compensation}
    return GameResult(kind="escape", winner_side=None, landlord=landlord, winner_seat=None, multiplier=m_esc,
                      factors=factors, unit=I * m_esc, scores=scores)


def bengbu_result(kind, scores, landlord=None, winner_side=None, factors=None):
    return GameResult(kind=kind, winner_side=winner_side, landlord=landlord, winner_seat=None, multiplier=1,
                      factors=factors or {}, unit=0, scores=list(scores))


def void_result(n):
    return GameResult(kind="void", winner_side=None, landlord=None, winner_seat=None, multiplier=1, factors={},
                      unit=0, scores=[0] * n)


def classic_room(X=None, cap=None, rake=0, base=None):
    """A test room whose per-farmer unit is X at D = 1 ("no cap, r=0" rows of §6.5)."""
    return Room("test", "classic", base=base if base is not None else X, initial_multiplier=1,
                rake_percent=rake, cap=cap)


def by_seat(landlord, lf1f2, n=3):
    """(L, F1, F2) -> per-seat list, F1 = the farmer after the landlord (§3.4)."""
    out = [0] * n
    for k, v in enumerate(lf1f2):
        out[(landlord + k) % n] = v
    return out


# ---- the presets ----------------------------------------------------------------------

def test_presets_match_rules():
    # §3.1
    for names, x, base, rake, cap, unit in ((("novice", "新手场"), 10, 25, 1, 3000, 250),
                                            (("intermediate", "中级场"), 20, 50, 3, 50000, 1000),
                                            (("advanced", "高级场"), 30, 100, 9, 80000, 3000)):
        rooms = [ROOMS[n] for n in names]
        assert rooms[0] is rooms[1]
        r = rooms[0]
        assert (r.variant, r.initial_multiplier, r.base, r.rake_percent, r.cap) == ("classic", x, base, rake, cap)
        assert r.base * r.initial_multiplier == unit  # "minimum per-farmer unit per tier"
        assert r.players == 3
    s = ROOMS["score"]
    assert (s.variant, s.kind, s.base, s.initial_multiplier, s.coefficient) == ("two_player", "score", 1, 1, None)
    c = ROOMS["coin_junior"]
    assert ROOMS["初级"] is c
    assert (c.variant, c.kind, c.coefficient, c.initial_multiplier, c.win_factor, c.max_win_factor) == \
        ("two_player", "coin", 100, 1, 0.9, 1)
    assert ROOMS["bengbu"].point_value == 1 and ROOMS["bengbu_300"].point_value == 300
    assert ROOMS["bengbu"].players == 4 and c.players == 2
    for key, room in ROOMS.items():
        assert isinstance(room, Room)
        assert room.name == key or key in ("新手场", "中级场", "高级场", "初级")
    hash(ROOMS["novice"])
    with pytest.raises(Exception):
        ROOMS["novice"].cap = 1  # frozen


def test_room_defaults_and_repr():
    r = Room("mine", "classic", base=10)
    assert (r.initial_multiplier, r.rake_percent, r.cap) == (1, 0, None)
    t = Room("coin", "two_player", kind="coin", coefficient=500, initial_multiplier=3)
    assert (t.base, t.win_factor, t.max_win_factor) == (1, 0.9, 1)
    assert Room("b", "bengbu").point_value == 1
    assert "coefficient=500" in repr(t) and "point_value" not in repr(t)


@pytest.mark.parametrize("kwargs, field", [
    (dict(name="", variant="classic", base=1), "name"),
    (dict(name=3, variant="classic", base=1), "name"),
    (dict(name="r", variant="poker", base=1), "variant"),
    (dict(name="r", variant="classic"), "base"),
    (dict(name="r", variant="classic", base=0), "base"),
    (dict(name="r", variant="classic", base=2.5), "base"),
    (dict(name="r", variant="classic", base=True), "base"),
    (dict(name="r", variant="classic", base=1, initial_multiplier=0), "initial_multiplier"),
    (dict(name="r", variant="classic", base=1, rake_percent=-1), "rake_percent"),
    (dict(name="r", variant="classic", base=1, rake_percent=101), "rake_percent"),
    (dict(name="r", variant="classic", base=1, rake_percent=1.5), "rake_percent"),
    (dict(name="r", variant="classic", base=1, cap=0), "cap"),
    (dict(name="r", variant="classic", base=1, cap=-5), "cap"),
    (dict(name="r", variant="classic", base=1, kind="coin"), "kind"),
    (dict(name="r", variant="classic", base=1, coefficient=100), "coefficient"),
    (dict(name="r", variant="classic", base=1, point_value=3), "point_value"),
    (dict(name="r", variant="two_player"), "kind"),
    (dict(name="r", variant="two_player", kind="chips"), "kind"),
    (dict(name="r", variant="two_player", kind="coin"), "coefficient"),
    (dict(name="r", variant="two_player", kind="coin", coefficient=0), "coefficient"),
    (dict(name="r", variant="two_player", kind="coin", coefficient=100, win_factor=0), "win_factor"),
    (dict(name="r", variant="two_player", kind="coin", coefficient=100, win_factor=1.5), "win_factor"),
    (dict(name="r", variant="two_player", kind="coin", coefficient=100, win_factor="0.9"), "win_factor"),
    (dict(name="r", variant="two_player", kind="coin", coefficient=100, win_factor=float("nan")), "win_factor"),
    (dict(name="r", variant="two_player", kind="coin", coefficient=100, max_win_factor=0), "max_win_factor"),
    (dict(name="r", variant="two_player", kind="coin", coefficient=100, max_win_factor=-1), "max_win_factor"),
    (dict(name="r", variant="two_player", kind="score", coefficient=100), "coefficient"),
    (dict(name="r", variant="two_player", kind="score", win_factor=0.9), "win_factor"),
    (dict(name="r", variant="two_player", kind="score", base=2), "base"),
    (dict(name="r", variant="two_player", kind="score", initial_multiplier=0), "initial_multiplier"),
    (dict(name="r", variant="two_player", kind="score", rake_percent=1), "rake_percent"),
    (dict(name="r", variant="two_player", kind="score", cap=100), "cap"),
    (dict(name="r", variant="bengbu", point_value=0), "point_value"),
    (dict(name="r", variant="bengbu", point_value=2.5), "point_value"),
    (dict(name="r", variant="bengbu", base=1), "base"),
    (dict(name="r", variant="bengbu", rake_percent=0), "rake_percent"),
])
def test_room_validation_names_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        Room(**kwargs)


# ---- §6.5 S1-S17 (CLASSIC3 coin settlement, §3.4) -------------------------------------

NOCAP = None
# id -> (room, D, winner, coins L/F1/F2, gross L/F1/F2, net L/F1/F2 (None = same), X, loss_factor)
S_VECTORS = {
    "S1": (classic_room(3000), 1, L_, (5000, 1000, 2000), (3000, -1000, -2000), None, 3000, 2),
    "S2": (classic_room(3000), 1, F_, (5000, 1000, 2000), (-4500, 2000, 2500), None, 3000, 2),
    "S3": (classic_room(6000), 1, L_, (5000, 9000, 9000), (10000, -5000, -5000), None, 6000, 2),
    "S4": (ROOMS["advanced"], 1, L_, (5000, 1000, 2000), (3000, -1000, -2000), (2730, -1000, -2000), 3000, 2),
    "S5": (ROOMS["advanced"], 1, F_, (5000, 1000, 2000), (-4500, 2000, 2500), (-4500, 1820, 2275), 3000, 2),
    "S6": (ROOMS["novice"], 1, L_, (AMPLE,) * 3, (500, -250, -250), (495, -250, -250), 250, 2),
    "S7": (ROOMS["novice"], 1, F_, (AMPLE,) * 3, (-500, 250, 250), (-500, 248, 248), 250, 2),
    "S8": (ROOMS["novice"], 16, L_, (AMPLE,) * 3, (3000, -1500, -1500), (2970, -1500, -1500), 4000, 2),
    "S9": (ROOMS["novice"], 16, F_, (AMPLE,) * 3, (-3000, 1500, 1500), (-3000, 1485, 1485), 4000, 2),
    "S10": (ROOMS["intermediate"], 4, L_, (AMPLE,) * 3, (8000, -4000, -4000), (7760, -4000, -4000), 4000, 2),
    "S11": (ROOMS["advanced"], 8, F_, (AMPLE,) * 3, (-48000, 24000, 24000), (-48000, 21840, 21840), 24000, 2),
    "S12": (ROOMS["advanced"], 32, L_, (AMPLE,) * 3, (80000, -40000, -40000), (72800, -40000, -40000), 96000, 2),
    "S13": (ROOMS["novice"], 128, L_, (AMPLE,) * 3, (3000, -1500, -1500), (2970, -1500, -1500), 32000, 2),
    "S14": (classic_room(3000), 1, F_, (AMPLE,) * 3, (-3000, 1500, 1500), None, 3000, 1),
    "S15": (classic_room(2000, cap=3001), 1, L_, (AMPLE,) * 3, (3001, -1501, -1500), None, 2000, 2),
    "S16": (classic_room(3000), 1, L_, (1000, 300, AMPLE), (2000, -300, -1700), None, 3000, 2),
    "S17": (classic_room(3000), 1, F_, (5001, AMPLE, AMPLE), (-5000, 2500, 2500), None, 3000, 2),
}


def test_m1_multiplier_behind_s13():
    # S13 uses D = 128 from M1: robs 2 (×4), show (×2), kitty B79 (×2), 1 BOMB + 1 ROCKET (×4), spring (×2)
    from ddz import kitty_factor
    assert 4 * 2 * kitty_factor("B79") * 2 ** 2 * 2 == 128


@pytest.mark.parametrize("vid", list(S_VECTORS))
@pytest.mark.parametrize("landlord", [0, 1, 2])
def test_s_vectors(vid, landlord):
    room, D, winner, coins, gross, net, X, lf = S_VECTORS[vid]
    net = net or gross
    result = classic_result(landlord, winner, D, unit=X, loss_factor=lf)
    s = settle(result, room, by_seat(landlord, coins))
    assert isinstance(s, Settlement)
    assert s.unit == X, "X = base × x × D (§2.1.9)"
    assert list(s.gross) == by_seat(landlord, gross)
    assert list(s.changes) == by_seat(landlord, net)
    assert list(s.rake) == [g - c for g, c in zip(s.gross, s.changes)]
    assert list(s.coins_after) == [c + d for c, d in zip(by_seat(landlord, coins), s.changes)]
    assert s.house == 0 and sum(s.changes) + sum(s.rake) == 0


# ---- §3.5 worked examples (甲 landlord 5000, 乙 farmer 1 1000, 丙 farmer 2 2000, X = 3000) ----

JIA = (5000, 1000, 2000)


def test_35_jia_wins_gets_only_3000():
    s = settle(classic_result(0, L_, 1, 3000), classic_room(3000), JIA)
    assert s.nominal == (6000, -3000, -3000)     # "若甲胜6000"
    assert s.changes == (3000, -1000, -2000)     # "实际只能得到3000"
    assert s.coins_after == (8000, 0, 0)


def test_35_jia_loses_4500():
    s = settle(classic_result(0, F_, 1, 3000), classic_room(3000), JIA)
    assert s.nominal == (-6000, 3000, 3000)      # "若甲输6000"
    assert s.changes == (-4500, 2000, 2500)      # 乙 2000 (2× his 1000), 丙 2500; 500 stays with 甲 (A18)


def test_35_jia_max_win_is_10000():
    room = classic_room(1)
    best = 0
    for D in (1, 100, 2999, 3000, 5000, 5001, 6000, 10**6):
        for farmers in ((AMPLE, AMPLE), (5000, 5000), (4999, 5001), (0, AMPLE), (1000, 2000)):
            s = settle(classic_result(0, L_, D, D), room, (5000,) + farmers)
            assert s.gross[0] <= 10000
            best = max(best, s.gross[0])
    assert best == 10000
    assert settle(classic_result(0, L_, 6000, 6000), room, (5000, AMPLE, AMPLE)).changes == (10000, -5000, -5000)


def test_35_advanced_room_rake_figures():
    adv = ROOMS["高级场"]
    win = settle(classic_result(0, L_, 1, 3000), adv, JIA)     # X = 100 × 30 × 1 = 3000
    assert win.unit == 3000
    assert win.changes == (2730, -1000, -2000) and win.rake == (270, 0, 0)
    loss = settle(classic_result(0, F_, 1, 3000), adv, JIA)
    assert loss.changes == (-4500, 1820, 2275) and loss.rake == (0, 180, 225)
    assert loss.gross == (-4500, 2000, 2500)


def test_classic_unit_ignores_result_unit_but_checks_score_shape():
    # X comes from the room (§2.1.9, A17): a hand played with Game's default base 1, x 1 (unit = D)
    s = settle(classic_result(2, L_, 4, 4), ROOMS["intermediate"], (AMPLE,) * 3)
    assert s.unit == 50 * 20 * 4 and s.changes == (-4000, -4000, 7760)


# ---- §6.7 TWOP scoring ----------------------------------------------------------------

COIN, SCORE = ROOMS["coin_junior"], ROOMS["score"]
# id -> (room, m_act, winner, coins (L, F), expected change (L, F), house)
W_VECTORS = {
    "W1": (COIN, 90, L_, (AMPLE, AMPLE), (16200, -9000), 7200),
    "W2": (COIN, 90, F_, (AMPLE, AMPLE), (-18000, 8100), -9900),
    "W3": (SCORE, 5 * 4 * 2, L_, (0, 0), (80, -40), 40),
    "W4": (COIN, 5 * 4 * 2, L_, (AMPLE, AMPLE), (7200, -4000), 3200),
    "W5": (SCORE, 2, L_, (0, 0), (4, -2), 2),
    "W6": (SCORE, 2, F_, (0, 0), (-4, 2), -2),
    "W7": (COIN, 90, L_, (10000, AMPLE), (10000, -9000), 1000),
    "W8": (COIN, 90, L_, (AMPLE, 5000), (16200, -5000), 11200),
}


@pytest.mark.parametrize("vid", list(W_VECTORS))
@pytest.mark.parametrize("landlord", [0, 1])
def test_w_vectors(vid, landlord):
    room, m, winner, (cL, cF), (dL, dF), house = W_VECTORS[vid]
    coins = [0, 0]
    coins[landlord], coins[1 - landlord] = cL, cF
    s = settle(twop_result(landlord, winner, m), room, coins)
    assert s.unit == m                       # X = I × m_act, I = 1
    assert s.changes[landlord] == dL and s.changes[1 - landlord] == dF
    assert s.house == house == sum(s.changes)
    assert s.rake == (0, 0) and s.gross == s.changes
    assert list(s.coins_after) == [c + d for c, d in zip(coins, s.changes)]


def test_twop_document_coin_example():
    # §2.2.8: X = 90, N = 100, landlord wins -> farmer pays 9000, landlord receives 16200
    s = settle(twop_result(0, L_, 90), COIN, (20000, 20000))
    assert s.changes == (16200, -9000) and s.nominal == (16200, -9000)
    assert s.coins_after == (36200, 11000)


def test_twop_loser_payment_is_independent_of_winner_reward():
    # the winner's reward does not depend on what the loser could pay (§2.2.8)
    for farmer_coins in (0, 1, 5000, 8999, 9000, AMPLE):
        s = settle(twop_result(1, L_, 90), COIN, (farmer_coins, AMPLE))
        assert s.changes == (-min(9000, farmer_coins), 16200)
        assert s.house == 16200 - min(9000, farmer_coins)


def test_twop_room_initial_multiplier_and_coefficient():
    room = Room("mid", "two_player", kind="coin", coefficient=1000, initial_multiplier=3)
    s = settle(twop_result(0, F_, 10, I=3), room, (AMPLE * 100, AMPLE * 100))
    assert s.unit == 30
    assert s.changes == (-30 * 2 * 1000, 30 * 1000 * 9 // 10)
    with pytest.raises(ValueError, match="initial_multiplier"):
        settle(twop_result(0, F_, 10, I=1), room, (AMPLE, AMPLE))  # played with I = 1, room says 3


def test_twop_max_win_factor_and_exact_win_factor():
    room = Room("x2", "two_player", kind="coin", coefficient=100, max_win_factor=2)
    s = settle(twop_result(0, L_, 90), room, (5000, AMPLE))
    assert s.changes == (10000, -9000)                # 2 × 5000 carried
    room = Room("x1.5", "two_player", kind="coin", coefficient=1, max_win_factor=1.5)
    assert settle(twop_result(0, L_, 7), room, (3, AMPLE)).changes == (4, -7)   # floor(1.5 × 3)
    # 0.9 used as 9/10 exactly: 7·2·1·0.9 = 12.6 -> 12; a farmer's win is floor(9·m/10) for every m
    n1 = Room("n1", "two_player", kind="coin", coefficient=1)
    assert settle(twop_result(0, L_, 7), n1, (AMPLE, AMPLE)).changes == (12, -7)
    for m in range(1, 400):
        s = settle(twop_result(0, F_, m), n1, (AMPLE, AMPLE))
        assert s.changes == (-2 * m, (9 * m) // 10)
    # a float win factor is used as the decimal it prints as: 90 × 0.7 = 63 (float arithmetic gives 62.99…)
    f07 = Room("f07", "two_player", kind="coin", coefficient=1, win_factor=0.7)
    assert settle(twop_result(0, L_, 45), f07, (AMPLE, AMPLE)).changes == (63, -45)
    wf = Room("f", "two_player", kind="coin", coefficient=3, win_factor=Fraction(2, 3))
    assert settle(twop_result(0, L_, 1), wf, (AMPLE, AMPLE)).changes == (4, -3)  # floor(1·2·3·2/3)


def test_twop_zero_sum_scored_hand():
    # twop_zero_sum = true scores the landlord ±X: the coin room then uses A = 1 for him
    s = settle(twop_result(0, L_, 10, landlord_role=1), COIN, (AMPLE, AMPLE))
    assert s.changes == (900, -1000)
    s = settle(twop_result(0, F_, 10, landlord_role=1), COIN, (AMPLE, AMPLE))
    assert s.changes == (-1000, 900)


def test_twop_zero_coins():
    # a player carrying nothing can win nothing (max win = 1 × coins carried) and pays nothing
    s = settle(twop_result(0, L_, 90), COIN, (0, 0))
    assert s.changes == (0, 0) and s.house == 0


# ---- §6.8 TWOP escape ----------------------------------------------------------------

# id -> (escapee role, m_esc, penalty in score units)
E_VECTORS = {
    "E1": ("landlord", 1, 20),
    "E2": ("landlord", 5, 20),
    "E3": ("landlord", 10, 40),
    "E4": ("landlord", 16, 64),
    "E5": ("farmer", 8, 10),
    "E6": ("farmer", 10, 20),
    "E7": ("farmer", 20, 40),
    "E8": ("none", 1, 10),
    "E10-landlord": ("landlord", 40, 160),
    "E10-farmer": ("farmer", 40, 80),
}
ROLES = {"landlord": (2, 1), "farmer": (1, 2), "none": (1, 1)}


def _escape_from_vector(vid, escapee, compensation="normal_win"):
    who, m, penalty = E_VECTORS[vid]
    a_esc, a_rem = ROLES[who]
    landlord = None if who == "none" else (escapee if who == "landlord" else 1 - escapee)
    return twop_escape(escapee, m, a_esc, a_rem, landlord, compensation=compensation,
                       escapee_score=-penalty), a_rem, m, penalty


@pytest.mark.parametrize("vid", list(E_VECTORS))
@pytest.mark.parametrize("escapee", [0, 1])
def test_e_vectors_score_room(vid, escapee):
    result, a_rem, m, penalty = _escape_from_vector(vid, escapee)
    s = settle(result, SCORE, (0, 0))
    assert s.changes[escapee] == -penalty
    assert s.changes[1 - escapee] == a_rem * m          # A28 compensation: a normal win at X = I·m_esc
    assert s.house == sum(s.changes) and s.kind == "escape"
    result, *_ = _escape_from_vector(vid, escapee, compensation="none")
    assert settle(result, SCORE, (0, 0)).changes[1 - escapee] == 0


@pytest.mark.parametrize("vid", list(E_VECTORS))
@pytest.mark.parametrize("escapee", [0, 1])
def test_e_vectors_coin_room(vid, escapee):
    # U = N = 100; deducted down to zero; compensation floor(I·m_esc·A_rem·N·0.9) capped at 1× coins
    result, a_rem, m, penalty = _escape_from_vector(vid, escapee)
    coins = [AMPLE, AMPLE]
    s = settle(result, COIN, coins)
    assert s.changes[escapee] == -penalty * 100
    assert s.changes[1 - escapee] == m * a_rem * 100 * 9 // 10
    coins[escapee] = penalty * 100 - 1
    coins[1 - escapee] = 7
    s = settle(result, COIN, coins)
    assert s.changes[escapee] == -(penalty * 100 - 1) and s.coins_after[escapee] == 0
    assert s.changes[1 - escapee] == 7


def test_e9_coin_room_6400():
    # E9: landlord escapes at m = 16 in a coin room with N = 100: 2 · (2·16) · 1 · 100 = 6400
    for escapee in (0, 1):
        result = twop_escape(escapee, 16, 2, 1, landlord=escapee)
        assert result.factors["E"] == 32
        s = settle(result, COIN, (AMPLE, AMPLE))
        assert s.changes[escapee] == -6400 and s.nominal[escapee] == -6400
        assert s.changes[1 - escapee] == 1440          # floor(1·16·1·100·0.9)
        assert s.house == 1440 - 6400
        poor = [AMPLE, AMPLE]
        poor[escapee] = 5000
        assert settle(result, COIN, poor).changes[escapee] == -5000   # 扣到零为止


def test_escape_threshold_option_at_exactly_10():
    # twop_escape_threshold_inclusive = false puts m_esc = 10 on the fixed branch (E = 10)
    r = twop_escape(0, 10, 2, 1, landlord=0, inclusive=False)
    assert settle(r, SCORE, (0, 0)).changes == (-20, 10)
    r = twop_escape(0, 10, 2, 1, landlord=0, inclusive=True)
    assert settle(r, SCORE, (0, 0)).changes == (-40, 10)


def test_escape_factors_are_checked():
    good = twop_escape(0, 16, 2, 1, landlord=0)
    bad_E = GameResult(**{**good.to_dict(), "factors": {**good.factors, "E": 10}})
    with pytest.raises(ValueError, match="E"):
        settle(bad_E, SCORE, (0, 0))
    bad_I = GameResult(**{**good.to_dict(), "factors": {**good.factors, "I": 2}})
    with pytest.raises(ValueError, match="initial_multiplier"):
        settle(bad_I, SCORE, (0, 0))
    bad_roles = GameResult(**{**good.to_dict(), "factors": {**good.factors, "role_remaining": 2}})
    with pytest.raises(ValueError, match="role"):
        settle(bad_roles, SCORE, (0, 0))
    wrong_landlord = GameResult(**{**good.to_dict(), "landlord": 1})
    with pytest.raises(ValueError, match="landlord"):
        settle(wrong_landlord, SCORE, (0, 0))
    bad_scores = GameResult(**{**good.to_dict(), "scores": [-64, 0]})
    with pytest.raises(ValueError, match="scores"):
        settle(bad_scores, SCORE, (0, 0))
    missing = GameResult(**{**good.to_dict(), "factors": {"escapee": 0}})
    with pytest.raises(ValueError, match="m_esc"):
        settle(missing, COIN, (0, 0))


# ---- §6.11 BENGBU4 escape, §2.3.9 money ----------------------------------------------------

# id -> (escapee, landlord or None, expected points per seat)
X_VECTORS = {
    "X1": (0, 0, (-27, 9, 9, 9)),          # landlord (bid 3) escapes
    "X2": (2, 2, (9, 9, -27, 9)),          # landlord (bid 1) escapes (A44: not scaled)
    "X3": (1, 3, (6, -27, 6, 15)),         # a farmer escapes: landlord +15, other farmers +6
    "X4": (3, None, (9, 9, 9, -27)),       # during bidding
}


@pytest.mark.parametrize("vid", list(X_VECTORS))
@pytest.mark.parametrize("room_name, pv", [("bengbu", 1), ("bengbu_300", 300)])
def test_x_vectors(vid, room_name, pv):
    escapee, landlord, points = X_VECTORS[vid]
    result = bengbu_result("escape", points, landlord=landlord, factors={"escapee": escapee})
    s = settle(result, ROOMS[room_name], (0, 0, 0, 0))
    assert s.changes == tuple(p * pv for p in points)
    assert s.changes[escapee] == -27 * pv              # 逃跑者扣的分为27分
    assert sum(s.changes) == 0 and s.house == 0 and s.rake == (0,) * 4
    assert s.coins_after == s.changes                  # balances may go negative (A45)


def test_x1_document_money_example():
    # 1 point = 300 两, landlord escapes: each farmer receives 9 × 300 = 2700
    result = bengbu_result("escape", (9, -27, 9, 9), landlord=1, factors={"escapee": 1})
    s = settle(result, ROOMS["bengbu_300"], (10000, 10000, 10000, 10000))
    assert s.changes == (2700, -8100, 2700, 2700)
    assert s.coins_after == (12700, 1900, 12700, 12700)


def test_bengbu_normal_and_special_money():
    # G8 (抢牌, mL = 1, landlord wins): +36 / −12 ×3; at 300 per point, balances may go negative
    g8 = bengbu_result("normal", (-12, 36, -12, -12), landlord=1, winner_side=L_)
    s = settle(g8, ROOMS["bengbu_300"], (0, 0, 100, -50))
    assert s.changes == (-3600, 10800, -3600, -3600)
    assert s.coins_after == (-3600, 10800, -3500, -3650)
    # G23 special at the deal: P0 天尊, P1 天炸 -> +12 / +60 / −36 / −36
    g23 = bengbu_result("special", (12, 60, -36, -36))
    assert settle(g23, ROOMS["bengbu"], (0,) * 4).changes == (12, 60, -36, -36)
    assert settle(g23, ROOMS["bengbu_300"], (0,) * 4).changes == (3600, 18000, -10800, -10800)
    custom = Room("bb10k", "bengbu", point_value=10000)
    assert settle(g23, custom, (0,) * 4).changes == (120000, 600000, -360000, -360000)


# ---- void results and bad input --------------------------------------------------------------

@pytest.mark.parametrize("room_name", ["novice", "score", "coin_junior", "bengbu_300"])
def test_void_settles_to_zero(room_name):
    room = ROOMS[room_name]
    coins = tuple(range(5, 5 + room.players))
    s = settle(void_result(room.players), room, coins)
    assert s.changes == s.gross == s.rake == s.nominal == (0,) * room.players
    assert s.coins_after == coins and s.house == 0 and s.kind == "void"


def test_bad_input():
    cl = classic_result(0, L_, 1, 250)
    with pytest.raises(ValueError, match="3 seats"):
        settle(cl, ROOMS["coin_junior"], (AMPLE, AMPLE))               # room of another variant
    with pytest.raises(ValueError, match="2 seats"):
        settle(twop_result(0, L_, 2), ROOMS["novice"], (AMPLE,) * 3)
    with pytest.raises(ValueError, match="4 seats"):
        settle(bengbu_result("normal", (3, -1, -1, -1), 0, L_), ROOMS["score"], (0, 0))
    with pytest.raises(ValueError, match="coins_before"):
        settle(cl, ROOMS["novice"], (AMPLE, AMPLE))                     # wrong number of seats
    with pytest.raises(ValueError, match="coins_before"):
        settle(cl, ROOMS["novice"], (AMPLE, AMPLE, AMPLE, AMPLE))
    with pytest.raises(ValueError, match=r"coins_before\[1\]"):
        settle(cl, ROOMS["novice"], (AMPLE, -1, AMPLE))                 # negative coins
    with pytest.raises(ValueError, match=r"coins_before\[0\]"):
        settle(twop_result(0, L_, 2), COIN, (-5, 0))
    with pytest.raises(ValueError, match=r"coins_before\[2\]"):
        settle(cl, ROOMS["novice"], (1, 2, 3.5))
    with pytest.raises(ValueError, match="coins_before"):
        settle(cl, ROOMS["novice"], "123")
    # score rooms and BENGBU4 have no floor: negative balances are accepted
    assert settle(twop_result(0, F_, 2), SCORE, (-3, 0)).coins_after == (-7, 2)
    with pytest.raises(ValueError, match="special"):
        settle(GameResult(**{**cl.to_dict(), "kind": "special"}), ROOMS["novice"], (AMPLE,) * 3)
    with pytest.raises(ValueError, match="escape"):
        settle(GameResult(**{**cl.to_dict(), "kind": "escape"}), ROOMS["novice"], (AMPLE,) * 3)
    with pytest.raises(ValueError, match="special"):
        settle(GameResult(**{**twop_result(0, L_, 2).to_dict(), "kind": "special"}), SCORE, (0, 0))
    with pytest.raises(ValueError, match="kind"):
        settle(GameResult(**{**cl.to_dict(), "kind": "draw"}), ROOMS["novice"], (AMPLE,) * 3)
    with pytest.raises(ValueError, match="winner_side"):
        settle(GameResult(**{**cl.to_dict(), "winner_side": None}), ROOMS["novice"], (AMPLE,) * 3)
    with pytest.raises(ValueError, match="landlord"):
        settle(GameResult(**{**cl.to_dict(), "landlord": 3}), ROOMS["novice"], (AMPLE,) * 3)
    with pytest.raises(ValueError, match="multiplier"):
        settle(GameResult(**{**cl.to_dict(), "multiplier": 0}), ROOMS["novice"], (AMPLE,) * 3)
    with pytest.raises(ValueError, match="void"):
        settle(GameResult(**{**void_result(3).to_dict(), "scores": [1, -1, 0]}), ROOMS["novice"], (0,) * 3)
    with pytest.raises(ValueError, match="sum to zero"):
        settle(bengbu_result("special", (90, -30, -30, -29)), ROOMS["bengbu"], (0,) * 4)
    with pytest.raises(ValueError, match="escapee"):
        settle(bengbu_result("escape", (-27, 9, 9, 9), factors={}), ROOMS["bengbu"], (0,) * 4)
    with pytest.raises(ValueError, match="only the escapee"):
        settle(bengbu_result("escape", (-27, 9, 9, 9), factors={"escapee": 1}), ROOMS["bengbu"], (0,) * 4)
    with pytest.raises(ValueError, match="scores"):  # TWOP scores inconsistent with the unit
        settle(GameResult(**{**twop_result(0, L_, 2).to_dict(), "scores": [4, -3]}), SCORE, (0, 0))
    with pytest.raises(TypeError):
        settle(cl.to_dict(), ROOMS["novice"], (AMPLE,) * 3)
    with pytest.raises(TypeError):
        settle(cl, "novice", (AMPLE,) * 3)


def test_loss_factor_comes_with_the_result():
    """settle takes the landlord's loss factor from result.terms (issue #10: no loss_factor=)."""
    lf1 = classic_result(0, F_, 1, 3000, loss_factor=1)
    with pytest.raises(TypeError):
        settle(lf1, classic_room(3000), (AMPLE,) * 3, loss_factor=1)  # the keyword is gone
    forged = GameResult(**{**lf1.to_dict(), "terms": {"loss_factor": 2}})
    with pytest.raises(ValueError, match="classic_landlord_loss_factor=1"):
        settle(forged, classic_room(3000), (AMPLE,) * 3)              # scored with 1, terms say 2
    with pytest.raises(ValueError, match="loss_factor"):
        settle(GameResult(**{**lf1.to_dict(), "terms": {"loss_factor": 3}}), classic_room(3000), (AMPLE,) * 3)
    # S14 with an odd X: the farmers' nominal is floor(X/2) each (A16), the split floor(P/2)
    s = settle(classic_result(0, F_, 1, 3001, loss_factor=1), classic_room(3001), (AMPLE,) * 3)
    assert s.nominal == (-3001, 1500, 1500) and s.changes == (-3000, 1500, 1500)
    # a landlord win does not depend on the loss factor
    s = settle(classic_result(1, L_, 1, 3000, loss_factor=1), classic_room(3000), (AMPLE,) * 3)
    assert s.changes == (-3000, 6000, -3000)
    # and a real hand under the option settles without being told (docs/rules.md §6, A16)
    rules = Rules.classic(classic_landlord_loss_factor=1)
    for seed in range(200):
        g = Game(rules, seed)
        rng = random.Random(seed)
        while not g.is_over:
            g.apply(rng.choice(g.legal_actions()))
        if g.result.kind == "normal" and g.result.winner_side == F_:
            assert g.result.terms == {"loss_factor": 1}
            s = settle(g.result, ROOMS["novice"], (AMPLE,) * 3)
            assert s.nominal[g.result.landlord] == -25 * 10 * g.result.multiplier
            return
    pytest.fail("no farmer win in 200 hands")


def test_settlement_to_dict_and_numpy_coins():
    np = pytest.importorskip("numpy")
    s = settle(classic_result(0, L_, 1, 3000), classic_room(3000), np.array(JIA, dtype=np.int64))
    assert s.changes == (3000, -1000, -2000) and all(type(c) is int for c in s.coins_after)
    d = s.to_dict()
    assert d["changes"] == [3000, -1000, -2000] and d["house"] == 0 and d["room"] == "test"


# ---- real hands from ddz.Game ---------------------------------------------------------------

def _play_out(game, rng):
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    return game.result


@pytest.mark.parametrize("room_name", ["novice", "advanced", "score", "coin_junior", "bengbu_300"])
def test_settles_real_hands(room_name):
    room = ROOMS[room_name]
    rng = random.Random(room_name)
    rules = {"classic": Rules.classic(), "two_player": Rules.two_player(twop_initial_multiplier=1),
             "bengbu": Rules.bengbu(bengbu_point_value=room.point_value or 1)}[room.variant]  # the room's stakes
    for seed in range(12):
        kw = dict(base=room.base, initial_multiplier=room.initial_multiplier) if room.variant == "classic" else {}
        result = _play_out(Game(rules, seed, **kw), rng)
        coins = [rng.choice((0, 100, 5000, AMPLE)) for _ in range(room.players)]
        s = settle(result, room, coins)
        check(result, room, tuple(coins), s)
        if room.variant == "classic" and result.kind == "normal":
            assert s.unit == result.unit and list(s.nominal) == result.scores
        if room.variant != "classic" and room.kind != "coin" and result.kind != "void":
            scale = room.point_value if room.variant == "bengbu" else 1
            assert list(s.changes) == [x * scale for x in result.scores]


@pytest.mark.skipif(not hasattr(Game, "escape"), reason="needs Game.escape (RULES.md §4)")
@pytest.mark.parametrize("room_name", ["score", "coin_junior", "bengbu", "bengbu_300"])
def test_settles_real_escapes(room_name):
    room = ROOMS[room_name]
    rng = random.Random("escape-" + room_name)
    rules = Rules.two_player() if room.variant == "two_player" else Rules.bengbu(bengbu_point_value=room.point_value)
    for seed in range(40):
        game = Game(rules, seed)
        for _ in range(rng.randrange(0, 30)):
            if game.is_over:
                break
            game.apply(rng.choice(game.legal_actions()))
        if game.is_over:
            continue
        escapee = rng.randrange(room.players)
        result = game.escape(escapee)
        assert result is not None and result.kind == "escape"
        coins = [rng.choice((0, 50, 2000, AMPLE)) for _ in range(room.players)]
        s = settle(result, room, coins)
        check(result, room, tuple(coins), s)
        if room.variant == "bengbu":
            assert s.changes[escapee] == -27 * room.point_value
        elif room.kind == "score":
            assert s.changes[escapee] == -result.factors["role_escapee"] * result.factors["E"]
        else:
            penalty = result.factors["role_escapee"] * result.factors["E"] * 100
            assert s.changes[escapee] == -min(penalty, coins[escapee])


# ---- properties ---------------------------------------------------------------------------------

_FACTORS = {}


def _exact_factors(room):
    """win_factor, max_win_factor as exact fractions (a float as the decimal it prints as)."""
    if room not in _FACTORS:
        _FACTORS[room] = (Fraction(str(room.win_factor)), Fraction(str(room.max_win_factor)))
    return _FACTORS[room]


def check(result, room, coins, s, lf=2):
    """Every invariant a settlement must satisfy, from RULES.md's text (not from the code)."""
    n = room.players
    for f in ("coins_before", "nominal", "gross", "rake", "changes", "coins_after"):
        vals = getattr(s, f)
        assert len(vals) == n and all(type(v) is int for v in vals), f
    assert type(s.house) is int
    assert s.coins_before == coins
    assert all(a == c + d for a, c, d in zip(s.coins_after, coins, s.changes))
    assert all(d == g - k for d, g, k in zip(s.changes, s.gross, s.rake))
    assert all(k >= 0 for k in s.rake)                                          # rake never negative
    assert sum(s.changes) + sum(s.rake) == s.house                              # conservation
    # limits only shrink: gross between 0 and the nominal amount
    assert all((0 <= g <= m) or (m <= g <= 0) for g, m in zip(s.gross, s.nominal))
    if result.kind == "void":
        assert s.changes == (0,) * n
        return
    if room.variant == "classic":
        X = room.base * room.initial_multiplier * result.multiplier
        C = room.cap
        L = result.landlord
        F = [(L + 1) % 3, (L + 2) % 3]
        assert s.house == 0 and sum(s.gross) == 0                              # zero-sum before rake
        assert all(a >= 0 for a in s.coins_after)                               # no negative balance
        for i in range(3):
            assert -s.gross[i] <= coins[i]                                      # pays at most what he held
            assert s.gross[i] <= 2 * coins[i]                                   # wins at most 2× his coins
            if C is not None:
                assert abs(s.gross[i]) <= C                                     # 输赢上限
            assert s.rake[i] == (s.gross[i] * room.rake_percent // 100 if s.gross[i] > 0 else 0)
        if result.winner_side == "landlord":
            d = [min(X, coins[f], C if C is not None else X) for f in F]
            W = sum(d)
            Ws = min(W, 2 * coins[L], C if C is not None else W)
            assert s.gross[L] == Ws
            pay = [-s.gross[f] for f in F]                                      # farmer 1, farmer 2
            assert all(0 <= p <= di for p, di in zip(pay, d)) and sum(pay) == Ws
            if Ws == W:
                assert pay == d
            elif 2 * min(d) >= Ws:
                assert pay == [(Ws + 1) // 2, Ws // 2]                          # farmer 1 pays the odd coin
            else:
                assert pay[d.index(min(d))] == min(d)                           # the smaller d pays in full
        else:
            P = min(lf * X, coins[L], C if C is not None else lf * X)
            for f in F:
                assert s.gross[f] == min(P // 2, 2 * coins[f])
            assert -s.gross[L] <= P
    elif room.variant == "two_player":
        assert s.rake == (0,) * 2 and s.house == sum(s.changes)
        if room.kind == "score":
            assert list(s.changes) == list(result.scores)
            return
        assert all(a >= 0 for a in s.coins_after)
        N = room.coefficient
        wf, mwf = _exact_factors(room)
        if result.kind == "escape":
            f = result.factors
            e, r = f["escapee"], 1 - f["escapee"]
            penalty = f["role_escapee"] * f["E"] * f["I"] * N
            assert s.gross[e] == -min(penalty, coins[e])                        # 扣到零为止
            if f["compensation"] == "none":
                assert s.gross[r] == 0
            else:
                full = Fraction(f["I"] * f["m_esc"] * f["role_remaining"] * N) * wf
                assert s.gross[r] == min(int(full), int(mwf * coins[r]))
            loser, winner = e, r
        else:
            L = result.landlord
            A = [1, 1]
            A[L] = abs(result.scores[L]) // result.unit
            winner = L if result.winner_side == "landlord" else 1 - L
            loser = 1 - winner
            X = room.initial_multiplier * result.multiplier
            assert s.gross[loser] == -min(X * A[loser] * N, coins[loser])
            assert s.gross[winner] == min(int(X * A[winner] * N * wf), int(mwf * coins[winner]))
        assert -s.gross[loser] <= coins[loser]                                 # pays at most what he held
        assert 0 <= s.gross[winner] <= mwf * coins[winner]                     # max win by coins carried
        assert s.house == s.gross[winner] + s.gross[loser]
    else:
        pv = room.point_value
        assert s.changes == tuple(p * pv for p in result.scores)
        assert s.rake == (0,) * 4 and s.house == 0 and sum(s.changes) == 0


def _coins(rng, X, n):
    """Balances biased to the edges of the limits: 0, 1, around X and 2X, half of X, ample."""
    out = []
    for _ in range(n):
        k = rng.random()
        if k < 0.12:
            out.append(0)
        elif k < 0.2:
            out.append(rng.randint(1, 3))
        elif k < 0.45:
            out.append(max(0, rng.choice((X, 2 * X, X // 2, (X + 1) // 2, 3 * X)) + rng.randint(-2, 2)))
        elif k < 0.75:
            out.append(rng.randint(0, 4 * X + 10))
        elif k < 0.9:
            out.append(rng.randint(0, 200000))
        else:
            out.append(rng.randint(AMPLE, 10**9))
    return out


def _classic_case(rng, room):
    L = rng.randrange(3)
    winner = rng.choice((L_, F_))
    D = (min(2 ** rng.choice((0, 0, 1, 2, 3)), 8) * rng.choice((1, 2)) * rng.choice((1, 1, 2, 4))
         * 2 ** min(rng.choice((0, 0, 0, 1, 1, 2, 3, 5, 8)), 12) * rng.choice((1, 1, 1, 2)))
    lf = 2 if rng.random() < 0.85 else 1
    X = room.base * room.initial_multiplier * D
    coins = _coins(rng, X, 3)
    return classic_result(L, winner, D, unit=X, loss_factor=lf), coins, lf


def _twop_case(rng, room):
    I = room.initial_multiplier
    m = rng.choice((1, 5)) * rng.choice((1, 2, 4)) * 2 ** rng.choice((0, 0, 1, 1, 2, 3, 4, 6)) * rng.choice((1, 2))
    scale = I * m * (room.coefficient or 1)
    if rng.random() < 0.25:
        esc = rng.randrange(2)
        who = rng.choice(("landlord", "farmer", "none"))
        a_esc, a_rem = ROLES[who]
        landlord = None if who == "none" else (esc if who == "landlord" else 1 - esc)
        result = twop_escape(esc, m, a_esc, a_rem, landlord, I=I,
                             compensation=rng.choice(("normal_win", "normal_win", "none")),
                             inclusive=rng.random() < 0.8)
    else:
        L = rng.randrange(2)
        result = twop_result(L, rng.choice((L_, F_)), m, I=I, landlord_role=2 if rng.random() < 0.9 else 1)
    return result, _coins(rng, scale, 2)


def _bengbu_case(rng):
    k = rng.random()
    if k < 0.7:   # §2.3.9-A from random bids, open/closed play and missiles
        L = rng.randrange(4)
        base = rng.choice((1, 2, 3))
        kw, kl = (3, 2) if rng.random() < 0.5 else (1, 1)
        m = [rng.choice((0, 0, 0, 1, 2, 3)) for _ in range(4)]
        won = rng.random() < 0.5
        scores = [0] * 4
        for s in range(4):
            if s != L:
                t = (kw * base if won else -kl * base) + base * (m[L] - m[s])
                t = max(t, 0) if won else min(t, 0)
                scores[L] += t
                scores[s] = -t
        result = bengbu_result("normal", scores, landlord=L, winner_side=L_ if won else F_)
    elif k < 0.85:  # §2.3.9-C
        holders = rng.sample(range(4), rng.choice((1, 1, 2)))
        scores = [0] * 4
        for h in holders:
            amount = rng.choice((30, 6, 36))
            for s in range(4):
                if s not in holders:
                    scores[s] -= amount
                    scores[h] += amount
        result = bengbu_result("special", scores)
    else:           # §4.2
        esc = rng.randrange(4)
        L = rng.choice((None, esc, (esc + rng.randint(1, 3)) % 4))
        scores = [9] * 4 if L is None or L == esc else [6] * 4
        if L is not None and L != esc:
            scores[L] = 15
        scores[esc] = -27
        result = bengbu_result("escape", scores, landlord=L, factors={"escapee": esc})
    coins = [rng.randint(-10**6, 10**6) for _ in range(4)]
    return result, coins


PRESETS = ["novice", "intermediate", "advanced", "score", "coin_junior", "bengbu", "bengbu_300"]
N_RANDOM = 100_000
N_POOL = 4000


def _np_coins(nprng, X, n):
    """``_coins`` vectorised: one row of n balances per entry of the int64 array X."""
    K = len(X)
    Xc = np.repeat(X[:, None], n, axis=1)
    cat = nprng.random((K, n))
    edges = np.stack([Xc, 2 * Xc, Xc // 2, (Xc + 1) // 2, 3 * Xc])
    edge = np.take_along_axis(edges, nprng.integers(0, 5, (1, K, n)), 0)[0]
    edge = np.maximum(0, edge + nprng.integers(-2, 3, (K, n)))
    out = np.where(cat < 0.12, 0,
                   np.where(cat < 0.2, nprng.integers(1, 4, (K, n)),
                            np.where(cat < 0.45, edge,
                                     np.where(cat < 0.75, (nprng.random((K, n)) * (4 * Xc + 11)).astype(np.int64),
                                              np.where(cat < 0.9, nprng.integers(0, 200001, (K, n)),
                                                       nprng.integers(AMPLE, 10**9 + 1, (K, n)))))))
    return out.tolist()


@pytest.mark.parametrize("room_name", PRESETS)
def test_random_settlements_per_preset(room_name):
    """100,000 seeded random settlements per preset room (a pool of random results, each
    drawn with fresh random balances); every invariant of ``check``."""
    room = ROOMS[room_name]
    rng = random.Random(f"settle-{room_name}")
    nprng = np.random.default_rng(sum(map(ord, room_name)))
    pool = []  # (result, loss_factor, coin scale)
    for _ in range(N_POOL):
        if room.variant == "classic":
            result, _, lf = _classic_case(rng, room)
            pool.append((result, lf, room.base * room.initial_multiplier * result.multiplier))
        elif room.variant == "two_player":
            result, _ = _twop_case(rng, room)
            pool.append((result, 2, room.initial_multiplier * result.multiplier * (room.coefficient or 1)))
        else:
            pool.append((_bengbu_case(rng)[0], 2, 0))
    pool.append((void_result(room.players), 2, 1))
    idx = nprng.integers(0, len(pool), N_RANDOM)
    if room.variant == "bengbu":  # balances may be negative (A45)
        coins = nprng.integers(-10**6, 10**6 + 1, (N_RANDOM, 4)).tolist()
    else:
        coins = _np_coins(nprng, np.array([pool[i][2] for i in idx], dtype=np.int64), room.players)
    seen = set()
    for i, c in zip(idx.tolist(), coins):
        result, lf, _ = pool[i]
        c = tuple(c)
        check(result, room, c, settle(result, room, c), lf)
        seen.add(result.kind)
    assert "normal" in seen and "void" in seen


HYP = settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
small = st.one_of(st.integers(0, 5), st.integers(0, 10**4), st.integers(0, 10**12))


@HYP
@given(base=st.integers(1, 500), x=st.integers(1, 50), rake=st.integers(0, 100),
       cap=st.one_of(st.none(), st.integers(1, 10**6)), D=st.integers(1, 2**14), landlord=st.integers(0, 2),
       landlord_wins=st.booleans(), lf=st.sampled_from((2, 1)), coins=st.tuples(small, small, small))
def test_hypothesis_classic_any_room(base, x, rake, cap, D, landlord, landlord_wins, lf, coins):
    room = Room("h", "classic", base=base, initial_multiplier=x, rake_percent=rake, cap=cap)
    result = classic_result(landlord, L_ if landlord_wins else F_, D, base * x * D, loss_factor=lf)
    check(result, room, coins, settle(result, room, coins), lf)


@HYP
@given(N=st.integers(1, 10**4), I=st.integers(1, 20), m=st.integers(1, 10**4), landlord=st.integers(0, 1),
       landlord_wins=st.booleans(), zero_sum=st.booleans(),
       wf=st.sampled_from((0.9, 1, 0.5, Fraction(2, 3), 0.95, 0.7, 0.29)), mwf=st.sampled_from((1, 2, 0.5, 1.5, 3)),
       escape=st.booleans(), who=st.sampled_from(sorted(ROLES)), comp=st.sampled_from(("normal_win", "none")),
       kind=st.sampled_from(("coin", "score")), coins=st.tuples(small, small))
def test_hypothesis_twop_any_room(N, I, m, landlord, landlord_wins, zero_sum, wf, mwf, escape, who, comp, kind,
                                  coins):
    if kind == "coin":
        room = Room("h", "two_player", kind="coin", coefficient=N, initial_multiplier=I, win_factor=wf,
                    max_win_factor=mwf)
    else:
        room = Room("h", "two_player", kind="score", initial_multiplier=I)
    if escape:
        a_esc, a_rem = ROLES[who]
        esc = landlord
        ll = None if who == "none" else (esc if who == "landlord" else 1 - esc)
        result = twop_escape(esc, m, a_esc, a_rem, ll, I=I, compensation=comp)
    else:
        result = twop_result(landlord, L_ if landlord_wins else F_, m, I=I, landlord_role=1 if zero_sum else 2)
    check(result, room, coins, settle(result, room, coins))


@HYP
@given(pv=st.integers(1, 10**6), data=st.randoms(use_true_random=False))
def test_hypothesis_bengbu_any_point_value(pv, data):
    room = Room("h", "bengbu", point_value=pv)
    result, coins = _bengbu_case(data)
    check(result, room, tuple(coins), settle(result, room, coins))
