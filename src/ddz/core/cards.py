"""Physical (suited) cards: ids, names, and their rank multisets (docs/rules.md §1, "Cards and
notation").

Suits never matter for a rule; they exist for dealing, display and "does this seat hold
these exact cards". One deck: ids 0..53, ``id = 4*v + suit`` for ranks ``v`` 0..12 (3..2)
and suits 0..3 (``s h c d``), 52 = ``B``, 53 = ``R``. Two decks: ids 0..107, the second
copy is ``id + 54`` and its name carries a trailing ``'`` (``3s'``, ``B'``).
"""
from __future__ import annotations

from typing import Iterable, List, Sequence

from .. import _core
from .errors import ArgumentError, shown

__all__ = ["RANKS", "SUITS", "card_name", "card_id", "card_rank", "deck_ids", "ranks_of", "parse_card_names"]

RANKS = "3456789TJQKA2BR"
SUITS = "shcd"


def _check_decks(decks: int) -> None:
    if isinstance(decks, bool) or decks not in (1, 2):
        raise ArgumentError(f"decks must be 1 or 2, not {shown(decks)}")


def card_rank(cid: int) -> int:
    """The rank value v (3=0 … R=14) of a card id."""
    x = cid % 54
    return x // 4 if x < 52 else 13 + (x - 52)


def card_name(cid: int, decks: int = 1) -> str:
    """'3s', 'Th', 'B'; the second deck's copy ends with "'"."""
    _check_decks(decks)
    return _core.card_name(cid, decks)


def card_id(name: str, decks: int = 1) -> int:
    """The id of a card name such as '3s', 'Th', 'B', "3s'"."""
    _check_decks(decks)
    return _core.card_id(name, decks)


def parse_card_names(text: str | Sequence, decks: int = 1) -> List[int]:
    """Card ids from 'PLAY'-style names ("3s 3h 3d", "3s,3h") or a sequence of names/ids;
    duplicates are an error, and so is naming more cards than the decks hold."""
    _check_decks(decks)
    return _core.parse_card_names(text, decks)


def deck_ids(decks: int = 1) -> List[int]:
    _check_decks(decks)
    return list(range(54 * decks))


def ranks_of(ids: Iterable[int]) -> str:
    """The canonical rank string of some card ids."""
    return "".join(sorted((RANKS[card_rank(c)] for c in ids), key=RANKS.index))
