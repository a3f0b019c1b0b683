"""Physical (suited) cards: ids, names, and their rank multisets (docs/rules.md §1, §1.3).

Suits never matter for a rule; they exist for dealing, display and "does this seat hold
these exact cards". One deck: ids 0..53, ``id = 4*v + suit`` for ranks ``v`` 0..12 (3..2)
and suits 0..3 (``s h c d``), 52 = ``B``, 53 = ``R``. Two decks: ids 0..107, the second
copy is ``id + 54`` and its name carries a trailing ``'`` (``3s'``, ``B'``).
"""
from __future__ import annotations

from typing import Iterable, List, Sequence

from ._core import CardError, CardTypeError
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
    if isinstance(cid, bool) or not isinstance(cid, int) or not 0 <= cid < 54 * decks:
        raise CardError(f"card id {shown(cid)} is not in 0..{54 * decks - 1}")
    x = cid % 54
    name = RANKS[x // 4] + SUITS[x % 4] if x < 52 else "BR"[x - 52]
    return name + ("'" if cid >= 54 else "")


def card_id(name: str, decks: int = 1) -> int:
    """The id of a card name such as '3s', 'Th', 'B', "3s'"."""
    _check_decks(decks)
    if not isinstance(name, str):
        raise CardTypeError(f"a card name is a str such as '3s', not {shown(name)}")
    raw = name.strip()
    second = raw.endswith("'")
    core = raw[:-1] if second else raw
    if second and decks == 1:
        raise CardError(f"card {shown(name)} names a second deck, but these rules use one deck")
    if core in ("B", "R"):
        x = 52 if core == "B" else 53
    elif len(core) == 2 and core[0].upper() in RANKS[:13] and core[1].lower() in SUITS:
        x = 4 * RANKS.index(core[0].upper()) + SUITS.index(core[1].lower())
    else:
        raise CardError(f"unknown card {shown(name)}: write a rank and a suit (3s, Th, 2d) or B / R for the jokers")
    return x + (54 if second else 0)


def parse_card_names(text: str | Sequence, decks: int = 1) -> List[int]:
    """Card ids from 'PLAY'-style names ("3s 3h 3d", "3s,3h") or a sequence of names/ids;
    duplicates are an error, and so is naming more cards than the decks hold."""
    _check_decks(decks)
    items: Iterable = text.replace(",", " ").split() if isinstance(text, str) else text
    ids: List[int] = []
    seen = set()
    for it in items:
        if len(ids) == 54 * decks:
            raise CardError(f"more than {54 * decks} cards named: {'two decks hold' if decks == 2 else 'a deck holds'} "
                            f"{54 * decks}")
        if isinstance(it, bool) or not isinstance(it, (int, str)):
            raise CardTypeError(f"a card is a name such as '3s' or an id, not {shown(it)}")
        cid = it if isinstance(it, int) else card_id(it, decks)
        if not 0 <= cid < 54 * decks:
            raise CardError(f"card id {shown(cid)} is not in 0..{54 * decks - 1}")
        if cid in seen:
            raise CardError(f"card {card_name(cid, decks)} named twice")
        seen.add(cid)
        ids.append(cid)
    return ids


def deck_ids(decks: int = 1) -> List[int]:
    _check_decks(decks)
    return list(range(54 * decks))


def ranks_of(ids: Iterable[int]) -> str:
    """The canonical rank string of some card ids."""
    return "".join(sorted((RANKS[card_rank(c)] for c in ids), key=RANKS.index))
