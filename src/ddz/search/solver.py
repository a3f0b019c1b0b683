"""The exact open-hand solver (残局): ``ddz.solve`` and its ``Solution``.

Every hand is visible. Two sides play (seat 0 against the others by default, or any
partition given by ``sides``); the seats of a side cooperate and the side wins when any
of its seats goes out (docs/rules.md §3). The search runs in C++ with the GIL
released; see ``solve`` for the limits.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple, Union

import math

from .. import _core
from ..core.args import int_arg, is_int, number_arg
from .._core import Cards, CardError, Move, MoveError, PlayState, classify
from ..core.errors import ArgumentError, shown

__all__ = ["Solution", "SolveError", "SolveTypeError", "solve"]

_Hand = Union[str, Cards]


class SolveError(ArgumentError):
    """A position or an option ``ddz.solve`` cannot take; the message names it."""


class SolveTypeError(SolveError, TypeError):
    """An argument of ``ddz.solve`` of the wrong Python type."""


@dataclass(frozen=True)
class Solution:
    """The result of ``ddz.solve``.

    ``win``: True when the side of the seat to move wins with best play (None when a
    limit stopped the search, then ``complete`` is False). ``moves``: winning first
    actions (PASS included when passing wins); all of them with ``all_moves=True``,
    otherwise the first one found. ``pv``: a principal variation, ``(seat, Move)`` pairs
    to the end of the hand. ``nodes``: positions searched; ``seconds``: wall time."""

    win: Optional[bool]
    moves: List[Move] = field(default_factory=list)
    pv: List[Tuple[int, Move]] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    complete: bool = True

    def __str__(self) -> str:
        if not self.complete:
            return f"unsolved (a limit stopped the search after {self.nodes:,} nodes)"
        verdict = "wins" if self.win else "loses"
        line = " ".join(f"{s}:{m}" for s, m in self.pv)
        return (f"the side to move {verdict}; winning moves: {', '.join(map(str, self.moves)) or '-'}; "
                f"line: {line}")


MAX_TABLE_MB = 4096
"""The largest ``table_mb`` ``solve`` and ``SearchBot`` take (MiB)."""


def _limits(time_limit: object, node_limit: object, table_mb: object) -> Tuple[float, int, float]:
    """(seconds, nodes, MiB) for the core: 0 = no limit; an infinite time limit is none."""
    t = 0.0
    if time_limit is not None:
        t = number_arg(time_limit, "time_limit", 0, error=SolveError, type_error=SolveTypeError)
        if t == math.inf:
            t = 0.0
    nl = 0 if node_limit is None else int_arg(node_limit, "node_limit", 1, 2**64 - 1, error=SolveError,
                                              type_error=SolveTypeError)
    mb = number_arg(table_mb, "table_mb", 0, MAX_TABLE_MB, error=SolveError, type_error=SolveTypeError)
    return t, nl, mb


def solve(hands: Union[Sequence[_Hand], PlayState], rules: Optional[_core.RulesCore] = None, *, to_move: int = 0,
          prev: Union[None, str, Move] = None, sides: Optional[Sequence[int]] = None,
          bomb_limits: Optional[Sequence[Optional[int]]] = None, all_moves: bool = False,
          time_limit: Optional[float] = None, node_limit: Optional[int] = None, table_mb: float = 64) -> Solution:
    """Solve an open-hand position exactly.

    ``hands`` is a list of 2–4 hands (str or Cards; the number of seats is its length)
    with ``rules`` supplying only the combination options, so two hands under
    ``Rules.classic()`` form a 残局 puzzle; or a ``PlayState`` reached in play (its rules,
    trick, bomb limits and seat to move; ``rules`` may be omitted; sides default to the
    landlord against the farmers). For hands: ``to_move`` is the seat to act, ``prev`` a
    play it must answer (owned by the seat before it; None for a free lead), ``sides`` a
    side id (0 or 1) per seat (default: seat 0 against the others), ``bomb_limits`` the
    bomb plays each seat may still make (None = unlimited; docs/rules.md §8).

    ``all_moves=True`` searches every first action and reports every winning one.
    ``time_limit`` (seconds, positive; ``math.inf`` or None = no limit) and ``node_limit``
    (a positive int below 2**64) stop the search (then ``complete`` is False and ``win``
    None). ``table_mb`` (MiB, in (0, 4096]) bounds the transposition table of the calling
    thread (reused by its next solves). Ints may be numpy integers. The GIL is released while
    searching.

    >>> import ddz
    >>> ddz.solve(["KK5543", "225543"], ddz.Rules.classic()).win
    True
    """
    if not isinstance(all_moves, bool):
        raise SolveTypeError(f"all_moves must be True or False, not {type(all_moves).__name__}")
    t, nl, mb = _limits(time_limit, node_limit, table_mb)
    if isinstance(hands, PlayState):
        return _solve_state(hands, rules, sides, all_moves, t, nl, mb)
    if rules is None:
        raise SolveError("solve(hands, rules): the rules are missing")
    if not isinstance(rules, _core.RulesCore):
        raise SolveTypeError(f"rules must be a ddz.Rules, not {type(rules).__name__}")
    if isinstance(hands, (str, Cards)) or not isinstance(hands, Sequence):
        raise SolveTypeError("hands must be a list of 2 to 4 hands or a PlayState")
    n = len(hands)
    if not 2 <= n <= 4:
        raise SolveError(f"a position has 2 to 4 hands, not {n}")
    words = []
    total: Optional[Cards] = None
    for i, h in enumerate(hands):
        if not isinstance(h, (str, Cards)):
            raise SolveTypeError(f"hand {i} must be a str or ddz.Cards, not {type(h).__name__}")
        c = Cards(h if isinstance(h, str) else str(h), decks=rules.decks)
        if not c:
            raise SolveError(f"hand {i} is empty: the hand is already over")
        total = c if total is None else total + c  # raises CardError when the deck has too few of a rank
        words.append(c.word)
    to_move = int_arg(to_move, "to_move", 0, n - 1, error=SolveError, type_error=SolveTypeError)
    top = _prev_move(prev, rules)
    if top is not None and total is not None:
        try:  # prev's cards were played from the same deck: they are in no hand
            total + top.cards
        except CardError as e:
            raise CardError(f"the hands and prev together: {e}") from None
    side_ids = _sides(sides, n, default=[0] + [1] * (n - 1))
    left = _bomb_limits(bomb_limits, n)
    res = _core._solve(rules, words, to_move, top, (to_move - 1) % n, 0, left, side_ids, all_moves, t, nl, mb)
    return _solution(res)


def _solve_state(ps: PlayState, rules: Optional[_core.RulesCore], sides: Optional[Sequence[int]], all_moves: bool,
                 t: float, nl: int, mb: float) -> Solution:
    if rules is not None:
        raise SolveError("solve(play_state): the rules come from the state; pass none")
    if ps.is_over:
        raise SolveError(f"the hand is over: seat {ps.winner_seat} went out")
    n = ps.num_players
    default = [0 if s == ps.landlord else 1 for s in range(n)]
    side_ids = _sides(sides, n, default=default)
    top = ps.top
    left = [-1 if lim is None else max(lim - ps.bombs_played(s), 0) for s, lim in enumerate(ps.bomb_limits)]
    words = [h.word for h in ps.hands]
    move, owner = (top if top is not None else (None, ps.current_seat))
    res = _core._solve(ps.rules, words, ps.current_seat, move, owner, ps.passes, left, side_ids, all_moves, t, nl, mb)
    return _solution(res)


def _prev_move(prev: Union[None, str, Move], rules: _core.RulesCore) -> Optional[Move]:
    if prev is None or isinstance(prev, Move):
        if isinstance(prev, Move) and prev.is_pass:
            raise MoveError("prev is PASS: pass prev=None to lead")
        return prev
    if not isinstance(prev, (str, Cards)):
        raise SolveTypeError(f"prev must be a str, a Move or None, not {type(prev).__name__}")
    m = classify(prev, rules)
    if m is None:
        raise MoveError(f"prev '{prev}' is not a legal combination under these rules")
    return m


def _sides(sides: Optional[Sequence[int]], n: int, default: List[int]) -> List[int]:
    if sides is None:
        return default
    if isinstance(sides, (str, bytes)) or not isinstance(sides, Sequence):
        raise SolveTypeError(f"sides must be a list of side ids, not {type(sides).__name__}")
    if len(sides) != n:
        raise SolveError(f"sides needs one entry per seat ({n}), got {len(sides)}")
    for s in sides:
        if not is_int(s):
            raise SolveTypeError(f"a side id must be an int, not {type(s).__name__}")
    ids = [int(s) for s in sides]
    if set(ids) != {0, 1}:
        raise SolveError(f"sides must name two sides 0 and 1, each with a seat, not {shown(ids)}")
    return ids


def _bomb_limits(limits: Optional[Sequence[Optional[int]]], n: int) -> List[int]:
    if limits is None:
        return [-1] * n
    if isinstance(limits, (str, bytes)) or not isinstance(limits, Sequence):
        raise SolveTypeError(f"bomb_limits must be a list (None = unlimited), not {type(limits).__name__}")
    if len(limits) != n:
        raise SolveError(f"bomb_limits needs one entry per seat ({n}), got {len(limits)}")
    out = []
    for i, v in enumerate(limits):
        if v is None:
            out.append(-1)
        else:
            out.append(int_arg(v, f"bomb limit of seat {i}", 0, 254, error=SolveError, type_error=SolveTypeError))
    return out


def _solution(res: tuple) -> Solution:
    complete, win, moves, pv, nodes, seconds = res
    return Solution(win=win if complete else None, moves=list(moves), pv=list(pv), nodes=nodes, seconds=seconds,
                    complete=complete)
