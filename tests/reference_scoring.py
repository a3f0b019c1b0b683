"""A plain-Python reference of every score of docs/rules.md §6–§8 and the escapes of §4, written
from the rules, for the tests: pure functions of an auction's outcome and a play summary, each
giving a ``GameResult``-shaped value. ddz computes every score in its core
(``csrc/ddz/hand.cpp``); ``tests/test_outcome_reference.py`` checks the core against these on
the frozen records, the rules' scoring vectors and random hands of every variant and option set.

A result carries in ``terms`` what settlement needs of the rules the hand was played with
(CLASSIC3: the landlord's loss factor; TWOP: the role factors, the initial multiplier, the
coin-room coefficient and win limits; BENGBU4: the point value).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from ddz._core import Cards, Kind
from ddz.hand.scoring import GameResult, PlaySummary

__all__ = ["GameResult", "PlaySummary", "ClassicAuction", "TwopAuction", "BengbuAuction", "kitty_factor",
           "doubling_kinds", "play_multiplier", "classic_factors", "classic_score", "twop_factors", "twop_score",
           "twop_escape", "bengbu_factors", "bengbu_score", "bengbu_escape", "bengbu_special"]


# the result and play-summary types are ddz's (data, not rules): the arithmetic below is the reference
NO_PLAY = PlaySummary(None, None, False, False, {}, (), 0)


def kitty_factor(kitty: Union[str, Cards], combine: str = "product") -> int:
    """CLASSIC3 kitty factor (docs/rules.md §6, A15) of the three kitty cards (a str or
    Cards): joker part × rank part (or the larger)."""
    word = (kitty if isinstance(kitty, Cards) else Cards(kitty)).word  # 4 bits a rank: 3 .. 2, B, R
    jokers = ((word >> 52) & 15) + ((word >> 56) & 15)
    joker_part = 4 if jokers == 2 else 2 if jokers == 1 else 1
    # a rank held three times: a nibble 0b0011 among ranks 3 .. 2 (bits 0 and 1 set, 2 and 3 clear)
    trio = word & (word >> 1) & ~(word >> 2) & ~(word >> 3) & 0x1111111111111
    rank_part = 2 if trio or (word >> 48) & 15 == 2 else 1
    return joker_part * rank_part if combine == "product" else max(joker_part, rank_part)


def doubling_kinds(variant: str, options: Mapping[str, Any]) -> Tuple[Kind, ...]:
    """The plays that double the multiplier: bombs and the rocket (TWOP: the rocket only
    under ``twop_rocket_doubles``); none in BENGBU4."""
    if variant == "bengbu":
        return ()
    if variant == "two_player" and not options["twop_rocket_doubles"]:
        return (Kind.BOMB,)
    return (Kind.BOMB, Kind.ROCKET)


def play_multiplier(variant: str, options: Mapping[str, Any], bombs: int, rockets: int, spring: bool) -> int:
    """The play's part of the multiplier: 2 per doubling bomb, ×2 for a spring or anti-spring.
    ``bombs`` counts bomb-class plays with the rockets among them (as ``simulate`` does)."""
    kinds = doubling_kinds(variant, options)
    if not kinds:
        return 1
    doubling = bombs if Kind.ROCKET in kinds else bombs - rockets
    return 2 ** doubling * (2 if spring else 1)


def _doubling(variant: str, options: Mapping[str, Any], play: PlaySummary) -> int:
    if not play.bombs_by_kind:
        return 0
    kinds = doubling_kinds(variant, options)
    return sum(n for k, n in play.bombs_by_kind.items() if k in kinds)


# ---- CLASSIC3 (docs/rules.md §6) ---------------------------------------------------------

class ClassicAuction(NamedTuple):
    landlord: Optional[int]
    robs: int
    showed: bool
    kitty_factor: int
    base: int
    initial_multiplier: int


def classic_factors(a: ClassicAuction, play: PlaySummary, options: Mapping[str, Any]) -> Dict[str, int]:
    return {"rob": min(2 ** a.robs, options["classic_rob_cap"]), "show": 2 if a.showed else 1,
            "kitty": a.kitty_factor, "bomb": 2 ** _doubling("classic", options, play),
            "spring": 2 if play.spring or play.anti_spring else 1}


def classic_multiplier(f: Mapping[str, int]) -> int:
    return f["rob"] * f["show"] * f["kitty"] * f["bomb"] * f["spring"]


def classic_score(a: ClassicAuction, play: PlaySummary, options: Mapping[str, Any]) -> GameResult:
    """§6: X = base × x × D; the landlord wins 2X or loses 2X (X under A16's literal
    reading, the farmers then gaining ⌊X/2⌋ each); each farmer ∓X."""
    f = classic_factors(a, play, options)
    d = classic_multiplier(f)
    x = a.base * a.initial_multiplier * d
    won = play.winner_side == "landlord"
    lf = options["classic_landlord_loss_factor"]
    scores = [(2 * x if won else -lf * x) if s == a.landlord else (-x if won else (x if lf == 2 else x // 2))
              for s in range(3)]
    return GameResult(kind="normal", winner_side=play.winner_side, landlord=a.landlord, winner_seat=play.winner_seat,
                      multiplier=d, factors=f, unit=x, scores=scores, spring=play.spring,
                      anti_spring=play.anti_spring, robs=a.robs, bombs=_doubling("classic", options, play),
                      terms={"loss_factor": lf})


# ---- TWOP (docs/rules.md §7) --------------------------------------------------------------

class TwopAuction(NamedTuple):
    landlord: Optional[int]
    shows: int          # SHOW_START decisions made
    fanshen: bool
    yapo: bool


def _twop_terms(options: Mapping[str, Any]) -> Dict[str, Any]:
    return {"initial_multiplier": options["twop_initial_multiplier"],
            "landlord_factor": 1 if options["twop_zero_sum"] else 2,
            "room_coefficient": options["twop_room_coefficient"], "coin_win_factor": options["twop_coin_win_factor"],
            "max_win_factor": options["twop_max_win_factor"]}


def _show_factor(a: TwopAuction, options: Mapping[str, Any]) -> int:
    return (5 ** a.shows if options["twop_show_start_stacks"] else 5) if a.shows else 1


def _fanshen_factor(a: TwopAuction) -> int:
    return 4 if a.fanshen and a.yapo else 2 if a.fanshen else 1


def twop_factors(a: TwopAuction, play: PlaySummary, options: Mapping[str, Any]) -> Dict[str, int]:
    return {"show_start": _show_factor(a, options), "fanshen": _fanshen_factor(a),
            "bomb": 2 ** _doubling("two_player", options, play),
            "spring": 2 if play.spring or play.anti_spring else 1}


def twop_multiplier(f: Mapping[str, int]) -> int:
    return f["show_start"] * f["fanshen"] * f["bomb"] * f["spring"]


def twop_score(a: TwopAuction, play: PlaySummary, options: Mapping[str, Any]) -> GameResult:
    """§7: X = I × m_act; the landlord ±2X (±X under twop_zero_sum), the farmer ∓X."""
    f = twop_factors(a, play, options)
    m_act = twop_multiplier(f)
    terms = _twop_terms(options)
    x = terms["initial_multiplier"] * m_act
    won = play.winner_side == "landlord"
    role = terms["landlord_factor"]
    assert a.landlord is not None, "a played hand has a landlord"
    scores = [0, 0]
    scores[a.landlord] = role * x if won else -role * x
    scores[1 - a.landlord] = -x if won else x
    return GameResult(kind="normal", winner_side=play.winner_side, landlord=a.landlord, winner_seat=play.winner_seat,
                      multiplier=m_act, factors=f, unit=x, scores=scores, spring=play.spring,
                      anti_spring=play.anti_spring, bombs=_doubling("two_player", options, play), terms=terms)


def twop_escape(a: TwopAuction, play: PlaySummary, escapee: int, held: Optional[Sequence[Cards]],
                options: Mapping[str, Any]) -> GameResult:
    """§4.1: penalty A·E·I for the escapee (U = 1 here; coin rooms scale by N in
    ``ddz.settle``), compensation for the remaining player as a normal win at I·m_esc.
    ``held``: both hands when dealt (bombs held count too, 无论是否炸出), else None."""
    rocket = options["twop_rocket_doubles"]
    bombs = _doubling("two_player", options, play)
    for hand in held or ():
        c = Counter(str(hand))
        bombs += sum(1 for r, k in c.items() if k == 4) + (1 if rocket and c["B"] and c["R"] else 0)
    m_esc = _show_factor(a, options) * _fanshen_factor(a) * 2 ** bombs
    proportional = m_esc >= 10 if options["twop_escape_threshold_inclusive"] else m_esc > 10
    e = 2 * m_esc if proportional else 10
    other = 1 - escapee
    role = 2 if escapee == a.landlord else 1
    role_rem = 2 if other == a.landlord else 1
    i_mult = options["twop_initial_multiplier"]
    comp = options["twop_escape_compensation"]
    scores = [0, 0]
    scores[escapee] = -role * e * i_mult
    scores[other] = role_rem * i_mult * m_esc if comp == "normal_win" else 0
    factors = {"escapee": escapee, "m_esc": m_esc, "E": e, "role_escapee": role, "role_remaining": role_rem,
               "I": i_mult, "compensation": comp, "bombs_counted": bombs}
    return GameResult(kind="escape", winner_side=None, landlord=a.landlord, winner_seat=None, multiplier=m_esc,
                      factors=factors, unit=i_mult * m_esc, scores=scores, bombs=bombs, terms=_twop_terms(options))


# ---- BENGBU4 (docs/rules.md §8) -----------------------------------------------------------

class BengbuAuction(NamedTuple):
    landlord: Optional[int]
    base: Optional[int]          # the bid that made the landlord (3 for a grab); None before
    high_bid: int                # the highest bid so far
    open: bool
    bomb_limits: Tuple[Optional[int], ...]


def bengbu_factors(a: BengbuAuction) -> Dict[str, Any]:
    return {"base": a.base if a.base is not None else a.high_bid, "open": a.open}


def _money(scores: Sequence[int], options: Mapping[str, Any]) -> List[Any]:
    return [s * options["bengbu_point_value"] for s in scores]


def _bengbu_terms(options: Mapping[str, Any]) -> Dict[str, Any]:
    return {"point_value": options["bengbu_point_value"]}


def bengbu_score(a: BengbuAuction, play: PlaySummary, options: Mapping[str, Any]) -> GameResult:
    """§8: per farmer, the bid times 3/2 (open) or 1/1 (closed), plus missile differences;
    the losing side never receives (A40)."""
    assert a.landlord is not None and a.base is not None, "a played hand has a landlord and a bid"
    kw, kl = (3, 2) if a.open else (1, 1)
    once = options["bengbu_missiles_once_per_player"]
    m = [min(x, 1) if once else x for x in play.missiles]
    won = play.winner_side == "landlord"
    L = a.landlord
    scores = [0] * 4
    for s in range(4):
        if s == L:
            continue
        t = (kw * a.base if won else -kl * a.base) + a.base * (m[L] - m[s])
        t = max(t, 0) if won else min(t, 0)
        scores[L] += t
        scores[s] = -t
    return GameResult(kind="normal", winner_side=play.winner_side, landlord=L, winner_seat=play.winner_seat,
                      multiplier=1, factors=bengbu_factors(a), unit=a.base, scores=scores, bombs=play.bombs_total,
                      missiles=list(play.missiles), bomb_limits=list(a.bomb_limits), money=_money(scores, options),
                      terms=_bengbu_terms(options))


def bengbu_escape(a: BengbuAuction, escapee: int, options: Mapping[str, Any]) -> GameResult:
    """§4.2: the escapee pays 27 in all (9 units of 3; A44), shared 9/9/9, or 15/6/6 when a
    farmer leaves a landlord's hand."""
    unit = a.base if (options["bengbu_escape_scaled"] and a.landlord is not None and a.base is not None) else 3
    scores = [0] * 4
    scores[escapee] = -9 * unit
    for s in range(4):
        if s != escapee:
            farmer_left = a.landlord is not None and escapee != a.landlord
            scores[s] = (5 * unit if s == a.landlord else 2 * unit) if farmer_left else 3 * unit
    return GameResult(kind="escape", winner_side=None, landlord=a.landlord, winner_seat=None, multiplier=1,
                      factors={"escapee": escapee, "unit": unit}, unit=unit, scores=scores,
                      bomb_limits=list(a.bomb_limits), money=_money(scores, options), terms=_bengbu_terms(options))


def bengbu_special(holders: Mapping[int, List[str]], options: Mapping[str, Any]) -> GameResult:
    """§2.3.2: 天炸 (30 a seat) and 天尊 (6 a seat), paid by every seat that holds neither."""
    per_instance = options["bengbu_special_per_instance"]
    scores = [0] * 4
    for h, marks in holders.items():
        n_tz = marks.count("天炸")
        amount = 30 * (n_tz if per_instance else min(n_tz, 1)) + (6 if "天尊" in marks else 0)
        for s in range(4):
            if s not in holders:
                scores[s] -= amount
                scores[h] += amount
    return GameResult(kind="special", winner_side=None, landlord=None, winner_seat=None, multiplier=1, factors={},
                      unit=0, scores=scores, money=_money(scores, options), special_holders=dict(holders),
                      terms=_bengbu_terms(options))
