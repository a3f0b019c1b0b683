"""What a hand's score is made of, for users and settlement: ``GameResult`` (the outcome of one
hand, which ``ddz.settle`` consumes as it is), ``PlaySummary`` (what a play phase adds up to),
and two factors of docs/rules.md as functions: ``kitty_factor`` (CLASSIC3's kitty, A15) and
``play_multiplier`` (the play's doublings). The scores themselves are the core's
(``csrc/ddz/hand.cpp``; ``ddz.hand.outcome`` forms them with the room's stake); a plain-Python
reference of every score, written from the rules, checks them in ``tests/reference_scoring.py``.

A result carries in ``terms`` what settlement needs of the rules the hand was played with
(CLASSIC3: the landlord's loss factor; TWOP: the role factors, the initial multiplier, the
coin-room coefficient and win limits; BENGBU4: the point value), so ``settle`` derives
nothing from the scores and can refuse a room whose terms differ from the hand's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Tuple, Union

from .. import _core
from .._core import Cards, Kind, PlayState
from ..core.rules import Rules

__all__ = ["GameResult", "PlaySummary", "kitty_factor", "play_multiplier"]


@dataclass(frozen=True)
class GameResult:
    """The outcome of one hand. ``scores`` are per seat; see docs/game.md for each variant's unit.
    ``terms`` holds the rule options settlement needs (see the module docstring)."""

    kind: str                      # "normal", "special" (BENGBU4 天炸/天尊 at the deal), "escape" (TWOP, BENGBU4), "void"
    winner_side: Optional[str]     # "landlord" / "farmers"; None for special and void hands
    landlord: Optional[int]
    winner_seat: Optional[int]     # the seat that went out
    multiplier: int                # CLASSIC3 D, TWOP m_act, BENGBU4 1
    factors: Dict[str, Any]
    unit: Any                      # CLASSIC3 X = base*x*D, TWOP X = I*m_act, BENGBU4 base
    scores: List[Any]
    spring: bool = False
    anti_spring: bool = False
    robs: int = 0                  # CLASSIC3
    bombs: int = 0                 # bomb-class plays counted by the multiplier (CLASSIC3/TWOP); all bombs (BENGBU4)
    missiles: List[int] = field(default_factory=list)            # BENGBU4 missile units per seat
    bomb_limits: List[Optional[int]] = field(default_factory=list)  # BENGBU4, None = unlimited
    money: List[Any] = field(default_factory=list)               # BENGBU4 points * bengbu_point_value
    special_holders: Dict[int, List[str]] = field(default_factory=dict)  # BENGBU4 seat -> ["天炸", "天尊"]
    terms: Dict[str, Any] = field(default_factory=dict)          # what settlement needs of the rules

    def to_dict(self) -> Dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


class PlaySummary(NamedTuple):
    """What a finished (or running) play phase adds up to (a named tuple: one is made fastest)."""

    winner_side: Optional[str]
    winner_seat: Optional[int]
    spring: bool
    anti_spring: bool
    bombs_by_kind: Mapping[Kind, int]
    missiles: Tuple[int, ...]
    bombs_total: int

    @classmethod
    def of(cls, ps: PlayState) -> "PlaySummary":
        return cls(*ps._summary())  # the core reads every field in one call


def kitty_factor(kitty: Union[str, Cards], combine: str = "product") -> int:
    """CLASSIC3 kitty factor (docs/rules.md §6, A15) of the three kitty cards (a str or
    Cards): joker part × rank part (or the larger, ``combine="max"``), as the core counts it."""
    word = (kitty if isinstance(kitty, Cards) else Cards(kitty)).word
    return int(_core._kitty_factor(word, combine != "product"))


def play_multiplier(variant: str, options: Mapping[str, Any], bombs: int, rockets: int, spring: bool) -> int:
    """The play's part of the multiplier, as the core counts it: 2 per doubling bomb-class play
    (``bombs`` counts them with the rockets among them, as ``simulate`` does; TWOP's rocket
    doubles under ``twop_rocket_doubles``), ×2 for a spring or anti-spring; 1 in BENGBU4."""
    return int(_core._play_multiplier(Rules(variant, **options), dict(options), bombs, rockets, spring))
