"""The variant table: every fixed fact of each rule variant, in one place (docs/rules.md §1).

Each variant's spec row lives once, in the C++ core (``csrc/ddz/core.hpp``,
``kVariantSpecs``: the layout, the title, the decision tokens in their stable order and the
rules that are a yes or a no per variant), and is read from there, as is ``VariantId``, the
enum of the variants' numbers. The facts only Python uses (the rules section, the aliases the
command line accepts, the options that carry stakes and settlement terms) are added here.
Everything else in the package, and the tests, read variants from this module.

>>> from ddz.variants import VARIANT
>>> VARIANT["two_player"].hand, VARIANT["two_player"].aside
(20, 11)
>>> VARIANT["bengbu"].decisions
('NO_CALL', 'BID1', 'BID2', 'BID3', 'GRAB', 'OPEN', 'CLOSED')
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from types import MappingProxyType
from typing import Mapping, Optional, Tuple

from .. import _core

__all__ = ["Variant", "VariantId", "VARIANT", "VARIANTS", "by_alias"]

#: The variants' numbers (records, snapshots, ``Rules``), named by their titles, read from the core.
VariantId = IntEnum("VariantId", [(row["title"], vid) for vid, row in enumerate(_core.variant_specs())],  # type: ignore[misc]
                    module=__name__)


@dataclass(frozen=True)
class Variant:
    """One variant's fixed facts. ``id`` is the core's variant number (a ``VariantId``);
    ``title`` its name in docs/rules.md; ``hand`` the cards dealt to each seat; ``kitty`` the
    landlord's extra cards; ``aside`` the cards set out of play (TWOP); ``max_hand`` =
    ``hand + kitty``; ``decisions`` every bidding and doubling token of the variant, in the order
    that gives them stable action ids; ``escape_ends`` whether an escape ends the hand and is
    settled at once (else a bot plays the seat to the end); ``springs`` whether a spring doubles
    the score; ``deal_specials`` whether a deal may end the hand at once (天炸 / 天尊);
    ``stakes`` whether ``Game(base=, initial_multiplier=)`` stakes a hand (CLASSIC3's rooms);
    ``coin_toss`` whether a coin decides who decides first (TWOP's ``first_to_decide``);
    ``zero_sum`` whether the scores of every hand sum to zero (TWOP's need not, A21);
    ``matchmaking`` whether its rooms are tiers that ``ddz.Matchmaker`` fills (docs/rules.md §9,
    "Matchmaking"; the other variants' rooms seat players as they come);
    ``stake_option`` the option that is a stake every score is a multiple of (TWOP's initial
    multiplier), ``money_option`` the option that turns points into money (BENGBU4's point value),
    ``terms`` the settlement terms a result carries, as (term, option) pairs (option None: the
    landlord's share the core reports), ``bomb_limits`` whether the bids limit bombs (BENGBU4).

    The dealer, the auction and the score are the core's, one table and one function per concern
    (``csrc/ddz/hand.cpp``); ``ddz.hand.outcome`` turns the core's outcome into a ``GameResult``."""

    id: VariantId
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
    escape_ends: bool
    springs: bool
    deal_specials: bool
    stakes: bool
    coin_toss: bool
    zero_sum: bool
    matchmaking: bool


# The facts only Python needs, by variant name; the spec row comes from the core.
_PYTHON_FACTS = {
    "classic": dict(section="§6", aliases=("classic", "classic3"), stake_option=None, money_option=None,
                    terms=(("loss_factor", "classic_landlord_loss_factor"),), zero_sum=True, matchmaking=True),
    "two_player": dict(section="§7", aliases=("two-player", "two_player", "twop"), stake_option="twop_initial_multiplier",
                       money_option=None,
                       terms=(("initial_multiplier", "twop_initial_multiplier"), ("landlord_factor", None),
                              ("room_coefficient", "twop_room_coefficient"),
                              ("coin_win_factor", "twop_coin_win_factor"), ("max_win_factor", "twop_max_win_factor")),
                       zero_sum=False, matchmaking=False),
    "bengbu": dict(section="§8", aliases=("bengbu", "bengbu4"), stake_option=None, money_option="bengbu_point_value",
                   terms=(("point_value", "bengbu_point_value"),), zero_sum=True, matchmaking=False),
}


def _build() -> Mapping[str, Variant]:
    table = {}
    for vid, row in enumerate(_core.variant_specs()):
        name = row.pop("name")
        table[name] = Variant(id=VariantId(vid), name=name, **row, **_PYTHON_FACTS[name])  # type: ignore[arg-type]
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
