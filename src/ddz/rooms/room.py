"""Rooms (场次 / 房间) as data, and the settlement of a finished hand in a room.

``Room`` describes one room of one variant; ``ROOMS`` holds the presets of docs/rules.md §9
("Rooms"; TWOP's with A28, BENGBU4's with A45). ``settle(result, room, coins_before)``
turns a ``ddz.GameResult`` into integer coin changes per seat (``Settlement``):

* CLASSIC3 (docs/rules.md §6 "Scoring", §9 "CLASSIC3 coin settlement", A16-A18):
  ``X = room.base × room.initial_multiplier × result.multiplier``; nominal landlord ``±2X``
  (loss ``−loss_factor·X``, the factor in ``result.terms``), farmers ``∓X``; then what a
  loser can pay, the winner's 2× limit, the room cap, the equal split, the odd-coin rules
  and the rake, exactly in the order of §9.
* TWOP (§7 "Scoring is not zero-sum", §9 "Escapes" and "TWOP coin rooms", A21, A27, A28):
  score rooms change by ``result.scores``; coin rooms deduct ``X·A·N`` from the loser down to
  zero (扣到零为止) and pay the winner ``floor(X·A·N·win_factor)`` capped at
  ``floor(max_win_factor × coins at hand start)``, independently of what the loser could
  pay; escapes pay ``A·E·I·N`` (down to zero) and compensate the other player as a normal
  win at ``X = I·m_esc`` (or not at all).
* BENGBU4 (§8 "Scoring, in points", §9 "Escapes", A44, A45): money = points ×
  ``room.point_value``, no caps, no rake; balances may go negative.

All amounts are Python ``int`` (exact, unbounded). Rounding: CLASSIC3 uses only integer
arithmetic (``floor(P/2)`` for the equal split, ``ceil``/``floor`` of ``W*/2`` when both
farmers' payments are lowered, rake ``floor(g·r/100)``); TWOP multiplies by
``win_factor`` / ``max_win_factor`` as exact fractions (a float such as ``0.9`` is read as
the decimal it prints as, 9/10) and floors the product once.

Conservation: ``sum(changes) + sum(rake) == house`` for every settlement. ``house`` is 0
in CLASSIC3 and BENGBU4 (coins only move between players and, by the rake, to the
system). TWOP is not zero-sum (A21): ``house == sum(changes)`` is what the system pays in
beyond the loser's payment (positive) or keeps of it (negative) — in score rooms in
score units, in coin rooms in coins; TWOP has no rake.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from numbers import Rational
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ..core.variants import VARIANT
from ..hand.scoring import GameResult
from ..core.errors import ArgumentError, ArgumentTypeError, shown
from ..core.args import is_int

__all__ = ["ROOMS", "Room", "Settlement", "settle"]

_VARIANTS = tuple(VARIANT)
_VARIANT_NAME = {name: v.title for name, v in VARIANT.items()}
_BY_SEATS = {v.players: name for name, v in VARIANT.items()}

# the fields each variant uses (``name`` and ``variant`` are common)
_FIELDS = {
    "classic": ("base", "initial_multiplier", "rake_percent", "cap"),
    "two_player": ("base", "kind", "coefficient", "initial_multiplier", "win_factor", "max_win_factor"),
    "bengbu": ("point_value",),
}
_COIN_ONLY = ("coefficient", "win_factor", "max_win_factor")
_ALL_OPTIONAL = ("base", "initial_multiplier", "rake_percent", "cap", "kind", "coefficient", "win_factor",
                 "max_win_factor", "point_value")

Number = Union[int, float, Fraction, Decimal]


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_int(field: str, v: Any, lo: int, hi: Optional[int] = None) -> int:
    if not _is_int(v) or v < lo or (hi is not None and v > hi):
        bound = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ArgumentError(f"{field} must be an integer {bound}, not {shown(v)}")
    return v


def _exact(field: str, v: Any) -> Fraction:
    """A number as an exact fraction; a float is read as the decimal it prints as (0.9 -> 9/10)."""
    if isinstance(v, bool) or not isinstance(v, (int, float, Fraction, Decimal, Rational)):
        raise ArgumentError(f"{field} must be a number, not {shown(v)}")
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ArgumentError(f"{field} must be finite, not {shown(v)}")
        return Fraction(repr(v))
    if isinstance(v, Decimal) and not v.is_finite():
        raise ArgumentError(f"{field} must be finite, not {shown(v)}")
    return Fraction(v)


# ---- each variant's rooms: their fields' checks and defaults, how they settle ------------

def _put(room: "Room", f: str, v: Any) -> None:
    object.__setattr__(room, f, v)  # a frozen dataclass's default, set once in __post_init__


def _check_classic_room(room: "Room") -> None:
    if room.base is None:
        raise ArgumentError("base (初始底注) is required for a 'classic' room")
    _check_int("base", room.base, 1)
    if room.initial_multiplier is None:
        _put(room, "initial_multiplier", 1)
    _check_int("initial_multiplier", room.initial_multiplier, 1)
    if room.rake_percent is None:
        _put(room, "rake_percent", 0)
    _check_int("rake_percent", room.rake_percent, 0, 100)
    if room.cap is not None:
        _check_int("cap", room.cap, 1)


def _check_twop_room(room: "Room") -> None:
    if room.kind not in ("score", "coin"):
        raise ArgumentError(f"kind must be 'score' or 'coin' for a 'two_player' room, not {shown(room.kind)}")
    if room.base is None:
        _put(room, "base", 1)
    if not _is_int(room.base) or room.base != 1:
        raise ArgumentError(f"base must be 1 in a 'two_player' room (底分 = 1, docs/rules.md §7), "
                            f"not {shown(room.base)}")
    if room.initial_multiplier is None:
        _put(room, "initial_multiplier", 1)
    _check_int("initial_multiplier", room.initial_multiplier, 1)
    if room.kind == "score":
        for f in _COIN_ONLY:
            if getattr(room, f) is not None:
                raise ArgumentError(f"{shown(f)} applies only to a coin room (kind='coin'), not to a score room")
        return
    if room.coefficient is None:
        raise ArgumentError("coefficient (房间系数 N) is required for a coin room")
    _check_int("coefficient", room.coefficient, 1)
    if room.win_factor is None:
        _put(room, "win_factor", 0.9)
    wf = _exact("win_factor", room.win_factor)
    if not 0 < wf <= 1:
        raise ArgumentError(f"win_factor must be in (0, 1], not {shown(room.win_factor)}")
    if room.max_win_factor is None:
        _put(room, "max_win_factor", 1)
    mwf = _exact("max_win_factor", room.max_win_factor)
    if not mwf > 0:
        raise ArgumentError(f"max_win_factor must be > 0, not {shown(room.max_win_factor)}")
    _put(room, "_wf", wf)
    _put(room, "_mwf", mwf)


def _twop_room_options(room: "Room") -> Dict[str, Any]:
    opts: Dict[str, Any] = {"twop_initial_multiplier": room.initial_multiplier}
    if room.kind == "coin":
        opts["twop_room_coefficient"] = room.coefficient
        if room.max_win_factor != 1:
            opts["twop_max_win_factor"] = room.max_win_factor
        if room.win_factor != 0.9:
            opts["twop_coin_win_factor"] = room.win_factor
    return opts


def _check_bengbu_room(room: "Room") -> None:
    if room.point_value is None:
        _put(room, "point_value", 1)
    _check_int("point_value", room.point_value, 1)



@dataclass(frozen=True, repr=False)
class Room:
    """One room (场次 / 房间) of one variant, as plain data.

    One class for all variants: ``name`` and ``variant`` are common, the other fields
    belong to one variant each and MUST be left unset (``None``) in a room of another
    variant. Unset fields of the room's own variant get the defaults below;
    ``__post_init__`` validates everything and raises ``ValueError`` naming the bad field.

    Common:
        ``name``: a non-empty str. ``variant``: ``"classic"``, ``"two_player"`` or ``"bengbu"``.

    CLASSIC3 (docs/rules.md §9, "Rooms" and "CLASSIC3 coin settlement"):
        ``base`` (初始底注, int ≥ 1, required), ``initial_multiplier`` (初始倍数 x, int ≥ 1,
        default 1), ``rake_percent`` (抽成率 r, integer percent 0..100, default 0),
        ``cap`` (输赢上限 C, int ≥ 1, or ``None`` = no cap; default ``None``).

    TWOP (docs/rules.md §7, §9 "Escapes" and "TWOP coin rooms", A21, A28):
        ``kind``: ``"score"`` (普通计分) or ``"coin"`` (游戏币场), required.
        ``base``: the bid's 底分, always 1 (docs/rules.md §7 "Bidding"; default 1, any other
        value is rejected).
        ``initial_multiplier``: I (初始倍数, int ≥ 1, default 1); the hand must have been
        played with ``Rules.two_player(twop_initial_multiplier=I)`` (``settle`` checks it).
        Coin rooms only (unset in score rooms): ``coefficient`` N (房间系数, int ≥ 1,
        required), ``win_factor`` (default 0.9; a number in (0, 1], used exactly),
        ``max_win_factor`` (default 1; a number > 0: a win is at most this × the coins
        held at hand start).

    BENGBU4 (docs/rules.md §8, A45):
        ``point_value`` (每底分多少积分 / 两银子: money per point, int ≥ 1, default 1).

    ``players`` is the number of seats (3, 2, 4).
    """

    name: str
    variant: str
    base: Optional[int] = None
    initial_multiplier: Optional[int] = None
    rake_percent: Optional[int] = None
    cap: Optional[int] = None
    kind: Optional[str] = None
    coefficient: Optional[int] = None
    win_factor: Optional[Number] = None
    max_win_factor: Optional[Number] = None
    point_value: Optional[int] = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ArgumentError(f"name must be a non-empty str, not {shown(self.name)}")
        if self.variant not in _VARIANTS:
            raise ArgumentError(f"variant must be one of {', '.join(map(repr, _VARIANTS))}, not {shown(self.variant)}")
        own = _FIELDS[self.variant]
        for f in _ALL_OPTIONAL:
            if f not in own and getattr(self, f) is not None:
                raise ArgumentError(f"{shown(f)} does not apply to a {shown(self.variant)} room (leave it unset)")
        _ROOM_KINDS[self.variant].check(self)

    @property
    def players(self) -> int:
        """The number of seats of the room's variant."""
        return VARIANT[self.variant].players

    def rules_options(self) -> Dict[str, Any]:
        """The rules options this room's hands are played with: the room's stakes and terms as the
        variant's options (TWOP's initial multiplier and coin-room terms, BENGBU4's point value),
        so that ``settle`` finds a hand's result consistent with the room; CLASSIC3's stakes are
        the ``Game``'s ``base`` and ``initial_multiplier``, not options (``{}``). Options left at
        their defaults are left out.

        >>> ROOMS["coin_junior"].rules_options()
        {'twop_initial_multiplier': 1, 'twop_room_coefficient': 100}
        >>> from ddz import Rules
        >>> Rules.named("bengbu", **ROOMS["bengbu_300"].rules_options()).options["bengbu_point_value"]
        300
        """
        return _ROOM_KINDS[self.variant].options(self)

    def __repr__(self) -> str:
        fields = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.__dataclass_fields__
                           if getattr(self, f) is not None)
        return f"Room({fields})"


@dataclass(frozen=True)
class Settlement:
    """The settlement of one hand in one room; every per-seat field is a tuple indexed by seat.

    * ``nominal``: what the rules give before any limit (CLASSIC3 ``+2X/−X`` etc., TWOP
      coin rooms ``−X·A·N`` for the loser and ``floor(X·A·N·win_factor)`` for the winner,
      escapes the penalty and the uncapped compensation; score rooms and BENGBU4: the
      amounts themselves).
    * ``gross``: after the coin limits and caps, before rake.
    * ``rake``: what each seat pays the system (CLASSIC3 only; ≥ 0).
    * ``changes``: ``gross − rake``, the net change of each seat's balance.
    * ``coins_before`` / ``coins_after``: ``coins_after[i] == coins_before[i] + changes[i]``.
    * ``house``: what the system pays in beyond the losers' payments (TWOP; negative when it
      keeps part of them); 0 in CLASSIC3 and BENGBU4.
      ``sum(changes) + sum(rake) == house`` always.
    * ``unit``: CLASSIC3 ``X``, TWOP ``X = I·m_act`` (``I·m_esc`` for an escape), BENGBU4
      ``point_value``; 0 for a void hand.
    """

    room: str
    variant: str
    kind: str
    unit: int
    coins_before: Tuple[int, ...]
    nominal: Tuple[int, ...]
    gross: Tuple[int, ...]
    rake: Tuple[int, ...]
    changes: Tuple[int, ...]
    coins_after: Tuple[int, ...]
    house: int

    def to_dict(self) -> Dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in
                ((f, getattr(self, f)) for f in self.__dataclass_fields__)}


def settle(result: GameResult, room: Room, coins_before: Sequence[int]) -> Settlement:
    """Settle ``result`` (a finished hand) in ``room`` for players holding ``coins_before``.

    ``coins_before``: one int per seat, the balances at hand start (CLASSIC3: coins;
    TWOP coin rooms: coins; TWOP score rooms: score balances; BENGBU4: money). Negative
    values are rejected except in TWOP score rooms and BENGBU4, where balances may be
    negative (no floor applies there, A45).

    ``result.terms`` says what the rules of the hand give settlement (``ddz.hand.scoring``):
    CLASSIC3 the landlord's loss factor (``classic_landlord_loss_factor``), TWOP the
    landlord's role factor, ``twop_initial_multiplier``, ``twop_room_coefficient``,
    ``twop_coin_win_factor`` and ``twop_max_win_factor``, BENGBU4 ``bengbu_point_value``.
    A room whose value differs from the hand's raises ``ValueError`` naming both (play the
    hand with the room's values); a term a hand-built result leaves out takes the rules'
    default. The scores must agree with the terms.

    Results: ``kind="void"`` settles to all zeros in every variant; ``"special"`` (天炸 /
    天尊) exists only in BENGBU4 and settles as money; ``"escape"`` exists in TWOP and
    BENGBU4 (CLASSIC3 has none: docs/rules.md §9, "Escapes"). The TWOP hand must have been
    played with ``twop_initial_multiplier`` equal to ``room.initial_multiplier`` (checked
    through ``result.unit``, or ``factors["I"]`` for an escape).

    Raises ``ValueError`` naming the bad input (number of seats, a negative balance, a
    room of another variant, a result kind that does not apply, inconsistent result
    fields); ``TypeError`` if ``result`` is not a ``GameResult`` or ``room`` not a ``Room``.
    See the module docstring for the arithmetic, rounding and conservation.
    """
    if not isinstance(result, GameResult):
        raise ArgumentTypeError(f"result must be a ddz.GameResult, not {type(result).__name__}")
    if not isinstance(room, Room):
        raise ArgumentTypeError(f"room must be a ddz.rooms.Room, not {type(room).__name__}")
    v = room.variant
    n = room.players
    scores = result.scores
    if not isinstance(scores, (list, tuple)) or len(scores) not in _BY_SEATS:
        raise ArgumentError(f"result.scores must list one score per seat, not {shown(scores)}")
    if len(scores) != n:
        other = _BY_SEATS[len(scores)]
        raise ArgumentError(f"result has {len(scores)} seats (a {_VARIANT_NAME[other]} result) but room "
                         f"{shown(room.name)} is a {_VARIANT_NAME[v]} ({shown(v)}) room with {n} seats")
    coins = _coins(coins_before, room)
    terms = result.terms
    if not isinstance(terms, dict):
        raise ArgumentError(f"result.terms must be a dict, not {shown(terms)}")
    kind = result.kind
    if kind == "void":
        if any(s != 0 for s in scores):
            raise ArgumentError(f"a void result must have zero scores, not {shown(list(scores))}")
        zero = (0,) * n
        return Settlement(room.name, v, kind, 0, coins, zero, zero, zero, zero, coins, 0)
    if kind not in ("normal", "special", "escape"):
        raise ArgumentError(f"result.kind must be 'normal', 'special', 'escape' or 'void', not {shown(kind)}")
    spec = VARIANT[v]
    if (kind == "escape" and not spec.escape_ends) or (kind == "special" and not spec.deal_specials):
        why = (f"{spec.title} has no escape settlement: a bot plays the seat and the hand is settled normally "
               "(docs/rules.md §9)" if kind == "escape" else "special hands at the deal (天炸/天尊) exist only in BENGBU4")
        raise ArgumentError(f"result.kind {shown(kind)} does not apply to {spec.title}: {why}")
    return _ROOM_KINDS[v].settle(result, room, coins, terms)


# room field -> (the result term, the rules option that sets it, binds only in coin rooms):
# a score room pays the scores themselves, so the coin-room terms do not bind there
_ROOM_TERMS = {
    "two_player": (("coefficient", "room_coefficient", "twop_room_coefficient", True),
                   ("win_factor", "coin_win_factor", "twop_coin_win_factor", True),
                   ("max_win_factor", "max_win_factor", "twop_max_win_factor", True)),
    "bengbu": (("point_value", "point_value", "bengbu_point_value", False),),
}


def _same_terms(room: Room, terms: Dict[str, Any]) -> None:
    """A hand settles only in a room whose values are the ones it was played with."""
    for field_name, term, option, coin_only in _ROOM_TERMS[room.variant]:
        if term not in terms or (coin_only and room.kind != "coin"):
            continue
        want = getattr(room, field_name)
        if _exact(option, terms[term]) != _exact(field_name, want):
            raise ArgumentError(f"the hand was played with {option}={shown(terms[term])} but room "
                                f"{shown(room.name)} has {field_name}={shown(want)}: play it with "
                                f"Rules.{room.variant}({option}={want!r}) to settle it there")


# ---- helpers -----------------------------------------------------------------------

def _coins(coins_before: Any, room: Room) -> Tuple[int, ...]:
    n = room.players
    if isinstance(coins_before, (str, bytes, dict, set, frozenset)) or not hasattr(coins_before, "__len__"):
        raise ArgumentTypeError(f"coins_before must be a sequence of {n} ints, not {shown(coins_before)}")
    if len(coins_before) != n:
        raise ArgumentError(f"coins_before has {len(coins_before)} entries but room {shown(room.name)} "
                         f"({_VARIANT_NAME[room.variant]}) has {n} seats")
    out = []
    may_be_negative = _ROOM_KINDS[room.variant].points or room.kind == "score"
    for i, c in enumerate(coins_before):
        if not is_int(c):  # Python or numpy integers, never bools
            raise ArgumentTypeError(f"coins_before[{i}] must be an int, not {shown(c)}")
        c = int(c)
        if c < 0 and not may_be_negative:
            raise ArgumentError(f"coins_before[{i}] is negative ({c}); balances cannot be negative in room "
                             f"{shown(room.name)}")
        out.append(c)
    return tuple(out)


def _seat(v: Any, n: int, field: str) -> int:
    if not _is_int(v) or not 0 <= v < n:
        raise ArgumentError(f"{field} must be a seat 0..{n - 1}, not {shown(v)}")
    return v


def _winner(result: GameResult) -> bool:
    """True if the landlord won."""
    if result.winner_side not in ("landlord", "farmers"):
        raise ArgumentError(f"result.winner_side must be 'landlord' or 'farmers' for a normal hand, "
                         f"not {shown(result.winner_side)}")
    return result.winner_side == "landlord"


def _int_scores(result: GameResult) -> List[int]:
    for i, s in enumerate(result.scores):
        if not _is_int(s):
            raise ArgumentError(f"result.scores[{i}] must be an int, not {shown(s)}")
    return list(result.scores)


# ---- CLASSIC3 (docs/rules.md §6 "Scoring", §9 "CLASSIC3 coin settlement") ------------

def _classic(result: GameResult, room: Room, coins: Tuple[int, ...], lf: int) -> Settlement:
    L = _seat(result.landlord, 3, "result.landlord")
    won = _winner(result)
    D = _check_int("result.multiplier", result.multiplier, 1)
    sc = _int_scores(result)
    u = result.unit
    f1, f2 = (L + 1) % 3, (L + 2) % 3  # farmer 1 = the farmer after the landlord in turn order
    if not _is_int(u) or u < 0:
        raise ArgumentError(f"result.unit must be a non-negative int, not {shown(u)}")
    want = [0, 0, 0]
    if won:
        want[L], want[f1], want[f2] = 2 * u, -u, -u
    else:
        fu = u if lf == 2 else u // 2
        want[L], want[f1], want[f2] = -lf * u, fu, fu
    if sc != want:
        hint = ""
        if not won and sc[L] == -(3 - lf) * u and u:
            hint = f" (the scores follow classic_landlord_loss_factor={3 - lf}, but result.terms says {lf})"
        raise ArgumentError(f"result.scores {shown(sc)} do not match a CLASSIC3 {shown(result.winner_side)} win with unit "
                         f"{shown(u)}, landlord seat {L} and loss_factor={lf}: expected {shown(want)}{hint}")

    X = _need(room.base) * _need(room.initial_multiplier) * D
    C = room.cap
    cL, c1, c2 = coins[L], coins[f1], coins[f2]
    nominal = [0, 0, 0]
    gross = [0, 0, 0]
    if won:
        nominal[L], nominal[f1], nominal[f2] = 2 * X, -X, -X
        # 1. a farmer never loses more than X, the cap, or what he holds
        d1, d2 = min(X, c1), min(X, c2)
        if C is not None:
            d1, d2 = min(d1, C), min(d2, C)
        # 2. the landlord never wins more than the cap or twice his starting coins
        W = d1 + d2
        Ws = min(W, 2 * cL) if C is None else min(W, C, 2 * cL)
        # 3. lower the payments to total W*
        if Ws < W:
            if 2 * min(d1, d2) >= Ws:
                p1, p2 = (Ws + 1) // 2, Ws // 2  # farmer 1 pays the odd coin
            elif d1 < d2:
                p1, p2 = d1, Ws - d1             # the smaller d pays in full
            else:
                p1, p2 = Ws - d2, d2
        else:
            p1, p2 = d1, d2
        gross[L], gross[f1], gross[f2] = Ws, -p1, -p2
    else:
        fu = X if lf == 2 else X // 2
        nominal[L], nominal[f1], nominal[f2] = -lf * X, fu, fu
        # 1. what the landlord can lose
        P = min(lf * X, cL) if C is None else min(lf * X, C, cL)
        # 2. equal split (the odd coin stays with the landlord)
        s = P // 2
        # 3. a farmer never wins more than twice his starting coins; the rest stays with the landlord
        w1, w2 = min(s, 2 * c1), min(s, 2 * c2)
        gross[L], gross[f1], gross[f2] = -(w1 + w2), w1, w2
    r = _need(room.rake_percent)
    rake = [g * r // 100 if g > 0 else 0 for g in gross]
    changes = [g - k for g, k in zip(gross, rake)]
    return Settlement(room.name, "classic", "normal", X, coins, tuple(nominal), tuple(gross), tuple(rake),
                      tuple(changes), tuple(c + d for c, d in zip(coins, changes)), 0)


# ---- TWOP (docs/rules.md §7, §9 "Escapes" and "TWOP coin rooms") ----------------------

def _need(value: Optional[int]) -> int:
    """A room field that validation guarantees for this variant."""
    assert value is not None, "room field missing for its variant"
    return value


def _twop_win(room: Room, amount_units: int, coins_start: int) -> Tuple[int, int]:
    """Coin-room win: (nominal floor(amount·N·win_factor), capped at floor(max_win_factor·coins))."""
    wf: Fraction = room._wf  # type: ignore[attr-defined]
    mwf: Fraction = room._mwf  # type: ignore[attr-defined]
    nominal = amount_units * _need(room.coefficient) * wf.numerator // wf.denominator
    cap = coins_start * mwf.numerator // mwf.denominator
    return nominal, min(nominal, cap)


def _twop(result: GameResult, room: Room, coins: Tuple[int, ...]) -> Settlement:
    L = _seat(result.landlord, 2, "result.landlord")
    F = 1 - L
    won = _winner(result)
    m = _check_int("result.multiplier", result.multiplier, 1)
    sc = _int_scores(result)
    X = _need(room.initial_multiplier) * m
    if result.unit != X:
        raise ArgumentError(f"result.unit {shown(result.unit)} != room.initial_multiplier × result.multiplier = "
                         f"{room.initial_multiplier} × {shown(m)}: play the hand with "
                         f"Rules.two_player(twop_initial_multiplier={room.initial_multiplier}) "
                         f"for room {room.name!r}")
    # role factors A: landlord 2 (1 under twop_zero_sum, as result.terms says), farmer 1
    sign = 1 if won else -1
    A_L = result.terms.get("landlord_factor", 2)
    if A_L not in (1, 2) or isinstance(A_L, bool):
        raise ArgumentError(f"result.terms['landlord_factor'] must be 2 or 1 (twop_zero_sum), not {shown(A_L)}")
    if sc[L] != sign * A_L * X or sc[F] != -sign * X:
        raise ArgumentError(f"result.scores {shown(sc)} do not match a TWOP {shown(result.winner_side)} win at X = {X} with "
                         f"landlord seat {L} and landlord factor {A_L} (landlord ±{A_L}X, farmer ∓X)")
    if room.kind == "score":
        score_gross = tuple(sc)
        return Settlement(room.name, "two_player", "normal", X, coins, score_gross, score_gross, (0, 0),
                          score_gross, tuple(c + d for c, d in zip(coins, score_gross)), sum(score_gross))
    A = {L: A_L, F: 1}
    w, l = (L, F) if won else (F, L)
    nominal = [0, 0]
    gross = [0, 0]
    nominal[l] = -X * A[l] * _need(room.coefficient)
    gross[l] = -min(X * A[l] * _need(room.coefficient), coins[l])  # 扣到零为止
    nominal[w], gross[w] = _twop_win(room, X * A[w], coins[w])
    return Settlement(room.name, "two_player", "normal", X, coins, tuple(nominal), tuple(gross), (0, 0),
                      tuple(gross), tuple(c + d for c, d in zip(coins, gross)), sum(gross))


def _twop_escape(result: GameResult, room: Room, coins: Tuple[int, ...]) -> Settlement:
    f = result.factors
    if not isinstance(f, dict):
        raise ArgumentError(f"result.factors of a TWOP escape must be a dict, not {shown(f)}")
    missing = [k for k in ("escapee", "m_esc", "E", "role_escapee", "role_remaining", "I", "compensation")
               if k not in f]
    if missing:
        raise ArgumentError(f"result.factors of a TWOP escape lacks {', '.join(missing)}")
    esc = _seat(f["escapee"], 2, "result.factors['escapee']")
    rem = 1 - esc
    m = _check_int("result.factors['m_esc']", f["m_esc"], 1)
    E = _check_int("result.factors['E']", f["E"], 1)
    allowed_E = (10,) if m < 10 else (2 * m,) if m > 10 else (20, 10)  # m_esc = 10: either threshold option
    if E not in allowed_E:
        raise ArgumentError(f"result.factors['E'] = {E} must be {' or '.join(map(str, allowed_E))} for m_esc = {shown(m)} "
                         "(docs/rules.md §9: 10 if m_esc < 10, 2·m_esc if m_esc > 10)")
    a_esc, a_rem = f["role_escapee"], f["role_remaining"]
    if (a_esc, a_rem) not in ((2, 1), (1, 2), (1, 1)) or isinstance(a_esc, bool) or isinstance(a_rem, bool):
        raise ArgumentError(f"result.factors role_escapee/role_remaining = {shown(a_esc)}/{shown(a_rem)} must be 2/1, 1/2 "
                         "or 1/1 (no landlord yet)")
    if result.landlord is not None:
        L = _seat(result.landlord, 2, "result.landlord")
        if (a_esc == 2) != (esc == L) or (a_rem == 2) != (rem == L):
            raise ArgumentError(f"result.factors roles {a_esc}/{a_rem} do not match landlord seat {L} "
                             f"(escapee seat {esc})")
    I = f["I"]
    if I != room.initial_multiplier:
        raise ArgumentError(f"result.factors['I'] = {shown(I)} != room.initial_multiplier = {room.initial_multiplier}: "
                         f"play the hand with Rules.two_player(twop_initial_multiplier={room.initial_multiplier}) "
                         f"for room {shown(room.name)}")
    comp = f["compensation"]
    if comp not in ("normal_win", "none"):
        raise ArgumentError(f"result.factors['compensation'] must be 'normal_win' or 'none', not {shown(comp)}")
    sc = _int_scores(result)
    want = [0, 0]
    want[esc] = -a_esc * E * I
    want[rem] = a_rem * I * m if comp == "normal_win" else 0
    if sc != want:
        raise ArgumentError(f"result.scores {shown(sc)} do not match the escape factors (expected {shown(want)}: escapee "
                         f"−A·E·I, remaining A_rem·I·m_esc or 0)")
    X = I * m
    if room.kind == "score":
        score_gross = tuple(sc)
        return Settlement(room.name, "two_player", "escape", X, coins, score_gross, score_gross, (0, 0),
                          score_gross, tuple(c + d for c, d in zip(coins, score_gross)), sum(score_gross))
    nominal = [0, 0]
    gross = [0, 0]
    penalty = a_esc * E * I * _need(room.coefficient)
    nominal[esc], gross[esc] = -penalty, -min(penalty, coins[esc])  # 扣到零为止
    if comp == "normal_win":
        nominal[rem], gross[rem] = _twop_win(room, X * a_rem, coins[rem])
    return Settlement(room.name, "two_player", "escape", X, coins, tuple(nominal), tuple(gross), (0, 0),
                      tuple(gross), tuple(c + d for c, d in zip(coins, gross)), sum(gross))


# ---- BENGBU4 (docs/rules.md §8 "Scoring, in points", §9 "Escapes") ---------------------

def _bengbu(result: GameResult, room: Room, coins: Tuple[int, ...]) -> Settlement:
    sc = _int_scores(result)
    if sum(sc) != 0:
        raise ArgumentError(f"result.scores {shown(sc)} of a BENGBU4 hand must sum to zero")
    if result.kind == "normal":
        _seat(result.landlord, 4, "result.landlord")
        _winner(result)
    elif result.kind == "escape":
        f = result.factors
        esc = _seat(f.get("escapee") if isinstance(f, dict) else None, 4, "result.factors['escapee']")
        if sc[esc] >= 0 or any(s < 0 for i, s in enumerate(sc) if i != esc):
            raise ArgumentError(f"result.scores {shown(sc)} of a BENGBU4 escape: only the escapee (seat {esc}) pays")
    money = tuple(s * _need(room.point_value) for s in sc)
    return Settlement(room.name, "bengbu", result.kind, _need(room.point_value), coins, money, money, (0,) * 4, money,
                      tuple(c + d for c, d in zip(coins, money)), 0)


def _settle_classic(result: GameResult, room: Room, coins: Tuple[int, ...], terms: Dict[str, Any]) -> Settlement:
    loss_factor = terms.get("loss_factor", 2)
    if not _is_int(loss_factor) or loss_factor not in (1, 2):
        raise ArgumentError(f"result.terms['loss_factor'] must be 2 or 1 (classic_landlord_loss_factor), "
                            f"not {shown(loss_factor)}")
    return _classic(result, room, coins, loss_factor)


def _settle_twop(result: GameResult, room: Room, coins: Tuple[int, ...], terms: Dict[str, Any]) -> Settlement:
    _same_terms(room, terms)
    return _twop_escape(result, room, coins) if result.kind == "escape" else _twop(result, room, coins)


def _settle_bengbu(result: GameResult, room: Room, coins: Tuple[int, ...], terms: Dict[str, Any]) -> Settlement:
    _same_terms(room, terms)
    return _bengbu(result, room, coins)


@dataclass(frozen=True)
class _RoomKind:
    """What a variant's rooms are (docs/rules.md §9): ``check`` validates a room's fields and
    sets their defaults, ``options`` gives the rules options its hands are played with,
    ``settle`` turns a result (of a kind the variant has) into coins, ``points``: its balances
    are points, which may go below zero (else coins, except in a score room)."""
    check: Callable[[Room], None]
    options: Callable[[Room], Dict[str, Any]]
    settle: Callable[[GameResult, Room, Tuple[int, ...], Dict[str, Any]], Settlement]
    points: bool


_ROOM_KINDS: Dict[str, _RoomKind] = {
    "classic": _RoomKind(_check_classic_room, lambda room: {}, _settle_classic, points=False),
    "two_player": _RoomKind(_check_twop_room, _twop_room_options, _settle_twop, points=False),
    "bengbu": _RoomKind(_check_bengbu_room, lambda room: {"bengbu_point_value": room.point_value}, _settle_bengbu,
                        points=True),
}
assert set(_ROOM_KINDS) == set(VARIANT), "every variant has its rooms"


ROOMS: Dict[str, Room] = {}
for _room in (
    # CLASSIC3 (docs/rules.md §9, "Rooms")
    Room("novice", "classic", base=25, initial_multiplier=10, rake_percent=1, cap=3000),
    Room("intermediate", "classic", base=50, initial_multiplier=20, rake_percent=3, cap=50000),
    Room("advanced", "classic", base=100, initial_multiplier=30, rake_percent=9, cap=80000),
    # TWOP (docs/rules.md §9, "Rooms"; A28)
    Room("score", "two_player", kind="score", initial_multiplier=1),
    Room("coin_junior", "two_player", kind="coin", coefficient=100, initial_multiplier=1),
    # BENGBU4 A45 (the document's example: 1 point = 300 两)
    Room("bengbu", "bengbu", point_value=1),
    Room("bengbu_300", "bengbu", point_value=300),
):
    ROOMS[_room.name] = _room
# the tiers' Chinese names are aliases of the same Room objects
ROOMS["新手场"] = ROOMS["novice"]
ROOMS["中级场"] = ROOMS["intermediate"]
ROOMS["高级场"] = ROOMS["advanced"]
ROOMS["初级"] = ROOMS["coin_junior"]
del _room
