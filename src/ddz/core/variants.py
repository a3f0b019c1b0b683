"""The variant table: every fixed fact of each rule variant, in one place (docs/rules.md §1).

The table layout (players, decks, cards per hand, kitty, set-aside cards, the largest
hand) lives once, in the C++ core (``csrc/ddz/core.hpp``, ``kLayouts``), and is read
from there; the facts only Python uses (the title, the rules section, the decision
tokens in their stable order, the aliases the command line accepts) are added here.
Everything else in the package, and the tests, read variants from this module.

>>> from ddz.variants import VARIANT
>>> VARIANT["two_player"].hand, VARIANT["two_player"].aside
(20, 11)
>>> VARIANT["bengbu"].decisions
('NO_CALL', 'BID1', 'BID2', 'BID3', 'GRAB', 'OPEN', 'CLOSED')
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping, Optional, Tuple

from .. import _core

__all__ = ["Variant", "VARIANT", "VARIANTS", "by_alias"]


@dataclass(frozen=True)
class Variant:
    """One variant's fixed facts. ``id`` is the core's variant number; ``hand`` the cards
    dealt to each seat; ``kitty`` the landlord's extra cards; ``aside`` the cards set out
    of play (TWOP); ``max_hand`` = ``hand + kitty``; ``decisions`` every bidding and
    doubling token of the variant, in the order that gives them stable action ids;
    ``stake_option`` the option that is a stake every score is a multiple of (TWOP's initial
    multiplier), ``money_option`` the option that turns points into money (BENGBU4's point value),
    ``terms`` the settlement terms a result carries, as (term, option) pairs (option None: the
    landlord's share the core reports), ``bomb_limits`` whether the bids limit bombs (BENGBU4).

    The dealer, the auction and the score are the core's, one table and one function per concern
    (``csrc/ddz/hand.cpp``); ``ddz.hand.outcome`` turns the core's outcome into a ``GameResult``."""

    id: int
    name: str
    title: str
    section: str
    players: int
    decks: int
    hand: int
    kitty: int
    aside: int
    max_hand: int
    decisions: Tuple[str, ...]
    aliases: Tuple[str, ...]
    stake_option: Optional[str]
    money_option: Optional[str]
    terms: Tuple[Tuple[str, Optional[str]], ...]
    bomb_limits: bool


# The facts only Python needs, by variant name; the layout comes from the core.
_PYTHON_FACTS = {
    "classic": dict(title="CLASSIC3", section="§6",
                    decisions=("CALL", "NO_CALL", "ROB", "NO_ROB", "SHOW", "NO_SHOW"),
                    aliases=("classic", "classic3"), stake_option=None, money_option=None,
                    terms=(("loss_factor", "classic_landlord_loss_factor"),), bomb_limits=False),
    "two_player": dict(title="TWOP", section="§7",
                       decisions=("SHOW_START", "NORMAL_START", "CALL", "NO_CALL", "FANSHEN", "NO_FANSHEN",
                                  "YAPO", "NO_YAPO"),
                       aliases=("two-player", "two_player", "twop"), stake_option="twop_initial_multiplier",
                       money_option=None,
                       terms=(("initial_multiplier", "twop_initial_multiplier"), ("landlord_factor", None),
                              ("room_coefficient", "twop_room_coefficient"),
                              ("coin_win_factor", "twop_coin_win_factor"), ("max_win_factor", "twop_max_win_factor")),
                       bomb_limits=False),
    "bengbu": dict(title="BENGBU4", section="§8",
                   decisions=("NO_CALL", "BID1", "BID2", "BID3", "GRAB", "OPEN", "CLOSED"),
                   aliases=("bengbu", "bengbu4"), stake_option=None, money_option="bengbu_point_value",
                   terms=(("point_value", "bengbu_point_value"),), bomb_limits=True),
}


def _build() -> Mapping[str, Variant]:
    table = {}
    for vid, layout in enumerate(_core.variant_layouts()):
        name = layout.pop("name")
        table[name] = Variant(id=vid, name=name, **layout, **_PYTHON_FACTS[name])  # type: ignore[arg-type]
    if set(table) != set(_PYTHON_FACTS):
        raise ImportError(f"the core's variants {sorted(table)} differ from ddz.variants' {sorted(_PYTHON_FACTS)}")
    return MappingProxyType(table)


VARIANT: Mapping[str, Variant] = _build()
VARIANTS: Tuple[str, ...] = tuple(VARIANT)


def by_alias(name: str) -> Variant:
    """The variant a command-line name stands for (``classic3``, ``twop``, ``bengbu4``, …);
    ``KeyError`` for an unknown name."""
    key = name.strip().lower()
    for v in VARIANT.values():
        if key in v.aliases:
            return v
    raise KeyError(name)
