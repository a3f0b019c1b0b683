"""The SVG pieces every drawing is made of: the document (``SVG``, a str that notebooks show),
text, card faces, card backs and rows of cards.

Every drawing is self-contained (no ``id``, no ``<use>``, no external font or image: two of them
can sit in one page) and deterministic (the same input gives the same bytes). Its text is ASCII
only, so any font draws it; the suits are shapes drawn here, told apart by their form as well as
by their colour (hearts and diamonds red, spades and clubs black).
"""
from __future__ import annotations

from typing import List, NamedTuple, Optional, Sequence, Tuple

from .. import _core
from ..core.cards import RANKS, card_id, parse_card_names
from ..core.cards import card_name as _card_name

__all__ = ["SVG", "Card", "CARD_W", "CARD_H", "STEP", "esc", "document", "text", "face", "back", "row",
           "parse_cards", "sort_cards", "RANK_LABEL", "SUIT_NAME"]

CARD_W, CARD_H = 44, 62
STEP = 18                      # the part of a card left visible when the next one covers it
FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
RED, BLACK, INK, MUTED = "#c0182c", "#1b1b1b", "#222222", "#5b5b5b"
# the index a card shows in its corner (T is drawn 10; the jokers keep the engine's B and R)
RANK_LABEL = {**{r: r for r in RANKS}, "T": "10"}
RANK_NAME = {**{r: r for r in "3456789"}, "T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace",
             "2": "2", "B": "small joker (B)", "R": "big joker (R)"}
SUIT_NAME = {"s": "spades", "h": "hearts", "c": "clubs", "d": "diamonds"}
# the suits in a 10 x 10 box, each its own shape
_SUIT_PATH = {
    "s": "M5 0.4C6.3 2.3 9.6 4 9.6 6.4C9.6 8.2 7.6 8.9 6.1 7.7L6.7 9.8H3.3L3.9 7.7C2.4 8.9 0.4 8.2 0.4 6.4"
         "C0.4 4 3.7 2.3 5 0.4Z",
    "h": "M5 9.6L1.2 5.3C-0.3 3.6 0.7 0.8 3 0.8C4 0.8 4.6 1.4 5 2.2C5.4 1.4 6 0.8 7 0.8C9.3 0.8 10.3 3.6 8.8 5.3Z",
    "c": "M5 0.3A2.3 2.3 0 0 1 6.9 4A2.3 2.3 0 1 1 6.2 7.9L6.8 9.8H3.2L3.8 7.9A2.3 2.3 0 1 1 3.1 4"
         "A2.3 2.3 0 0 1 5 0.3Z",
    "d": "M5 0.2L9 5L5 9.8L1 5Z",
}
_STAR = "M5 0.3L6.2 3.6L9.7 3.7L6.9 5.9L7.9 9.4L5 7.4L2.1 9.4L3.1 5.9L0.3 3.7L3.8 3.6Z"


class SVG(str):
    """An SVG drawing: a ``str`` holding the document, which Jupyter and IPython display
    (``_repr_svg_``); ``save(path)`` writes it to a file."""

    def _repr_svg_(self) -> str:
        return str(self)

    def save(self, path: object) -> None:
        """Writes the drawing to ``path`` (UTF-8; it is ASCII)."""
        with open(path, "w", encoding="utf-8") as f:  # type: ignore[call-overload]
            f.write(str(self))


class Card(NamedTuple):
    """One card to draw: its rank (a character of ``RANKS``), its suit (``s h c d``; None for a
    rank-only card and for the jokers), whether it is a second deck's copy, and its name."""

    rank: str
    suit: Optional[str]
    second: bool
    name: str

    @property
    def spoken(self) -> str:
        """The card in words, for its ``<title>``: '10 of hearts', 'small joker (B)'."""
        words = RANK_NAME[self.rank] if self.suit is None else f"{RANK_NAME[self.rank]} of {SUIT_NAME[self.suit]}"
        return words + (", second deck" if self.second else "")


def esc(value: object) -> str:
    """``value`` as XML text (also inside an attribute)."""
    return (str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def document(width: float, height: float, title: str, desc: str, body: Sequence[str]) -> SVG:
    """A whole drawing: ``<title>`` and ``<desc>`` first (what a screen reader says), a white
    background, then ``body``."""
    w, h = int(round(width)), int(round(height))
    return SVG(f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
               f'viewBox="0 0 {w} {h}" role="img" font-family="{FONT}">'
               f"<title>{esc(title)}</title><desc>{esc(desc)}</desc>"
               f'<rect width="{w}" height="{h}" fill="#ffffff"/>' + "".join(body) + "</svg>\n")


def text(x: float, y: float, words: str, size: int = 13, *, weight: str = "normal", fill: str = INK,
         anchor: str = "start", cls: str = "") -> str:
    klass = f' class="{cls}"' if cls else ""
    return (f'<text{klass} x="{x:g}" y="{y:g}" font-size="{size}" font-weight="{weight}" fill="{fill}" '
            f'text-anchor="{anchor}">{esc(words)}</text>')


def _suit(suit: str, x: float, y: float, size: float) -> str:
    colour = RED if suit in "hd" else BLACK
    return f'<path transform="translate({x:g} {y:g}) scale({size / 10:g})" fill="{colour}" d="{_SUIT_PATH[suit]}"/>'


def face(card: Card, x: float, y: float) -> str:
    """A face-up card at (x, y): its index (rank and suit) in the left strip that stays visible
    when cards overlap, a large mark in the middle, a second deck's copy marked by a dashed edge
    and a disc with two bars under its index. A ``<g class="card" data-card=NAME>`` with the card's ``<title>``."""
    red = card.rank == "R" or card.suit in ("h", "d")
    colour = RED if red else BLACK
    edge = ' stroke-dasharray="4 2"' if card.second else ""
    parts = [f'<g class="card" data-card="{esc(card.name)}" transform="translate({x:g} {y:g})">',
             f"<title>{esc(card.spoken)}</title>",
             f'<rect x="0.5" y="0.5" width="{CARD_W - 1}" height="{CARD_H - 1}" rx="5" fill="#fffdf7" '
             f'stroke="#555555"{edge}/>']
    if card.rank in "BR":  # a joker: its letter, JOKER down the strip, a star (hollow: small, filled: big)
        parts.append(text(STEP / 2, 15, card.rank, 13, weight="bold", fill=colour, anchor="middle", cls="index"))
        for i, ch in enumerate("JOKER"):
            parts.append(text(STEP / 2, 24 + 6.2 * i, ch, 7, weight="bold", fill=colour, anchor="middle"))
        fill = colour if card.rank == "R" else "none"
        parts.append(f'<path transform="translate(19 19) scale(2.2)" fill="{fill}" stroke="{colour}" '
                     f'stroke-width="0.5" d="{_STAR}"/>')
    else:
        label = RANK_LABEL[card.rank]
        parts.append(text(STEP / 2, 15, label, 12 if len(label) > 1 else 13, weight="bold", fill=colour,
                          anchor="middle", cls="index"))
        if card.suit is not None:
            parts.append(_suit(card.suit, STEP / 2 - 5, 19, 10))
            parts.append(_suit(card.suit, 23, 29, 16))
        else:  # a rank-only card (Cards, Move): the rank again, large
            parts.append(text(31, 43, label, 18, weight="bold", fill=colour, anchor="middle"))
    if card.second:
        # a disc with two bars: the second copy (no letter could be taken for it)
        cx, cy = STEP / 2, CARD_H - 8
        parts.append(f'<g class="second-deck"><circle cx="{cx:g}" cy="{cy:g}" r="4.2" fill="{colour}"/>'
                     f'<rect x="{cx - 2.2:g}" y="{cy - 2.4:g}" width="1.3" height="4.8" fill="#ffffff"/>'
                     f'<rect x="{cx + 0.9:g}" y="{cy - 2.4:g}" width="1.3" height="4.8" fill="#ffffff"/></g>')
    parts.append("</g>")
    return "".join(parts)


def back(x: float, y: float) -> str:
    """A face-down card: a back with no name and no title of its own."""
    return (f'<g class="back" transform="translate({x:g} {y:g})">'
            f'<rect x="0.5" y="0.5" width="{CARD_W - 1}" height="{CARD_H - 1}" rx="5" fill="#2d4f86" stroke="#1c3258"/>'
            f'<rect x="4.5" y="4.5" width="{CARD_W - 9}" height="{CARD_H - 9}" rx="3" fill="none" stroke="#9fb4d8"/>'
            f'<path d="M{CARD_W / 2:g} 14L{CARD_W - 10:g} {CARD_H / 2:g}L{CARD_W / 2:g} {CARD_H - 14:g}'
            f'L10 {CARD_H / 2:g}Z" fill="#9fb4d8"/></g>')


def row(cards: Sequence[Optional[Card]], x: float, y: float, width: float, step: float = STEP) -> Tuple[List[str], float]:
    """Cards side by side from (x, y), each ``step`` right of the last, wrapped into lines that
    fit ``width``; None draws a back. Returns the parts and the height used."""
    per_line = max(1, int((width - CARD_W) // step) + 1)
    parts: List[str] = []
    for i, card in enumerate(cards):
        cx, cy = x + (i % per_line) * step, y + (i // per_line) * (CARD_H + 6)
        parts.append(back(cx, cy) if card is None else face(card, cx, cy))
    lines = (len(cards) + per_line - 1) // per_line
    return parts, lines * (CARD_H + 6) - 6 if lines else 0


def _card(name: str) -> Card:
    base = name.rstrip("'")
    if base in ("B", "R"):
        return Card(base, None, name.endswith("'"), name)
    return Card(base[0], base[1], name.endswith("'"), name)


def parse_cards(cards: object, decks: Optional[int] = None) -> Tuple[List[Card], int]:
    """The cards of ``cards`` and their decks: a ``Cards`` or a rank string (``"33344"``: rank-only
    cards), suited names (``"3s 3h"``, ``["3s", "B"]``, a second deck's copy ``"3s'"``) or card
    ids (with ``decks``). Checked as the engine checks them (``CardError`` for bad cards)."""
    if isinstance(cards, _core.Cards):
        return [Card(ch, None, False, ch) for ch in str(cards)], cards.decks
    if isinstance(cards, str) and not any(ch in cards for ch in "shcd'") and "," not in cards:
        parsed = _core.Cards(cards.replace(" ", ""), decks or 1)
        return [Card(ch, None, False, ch) for ch in str(parsed)], parsed.decks
    if decks is None:  # a second deck's name says two decks
        names = cards if isinstance(cards, (str, list, tuple)) else ()
        decks = 2 if any(isinstance(n, str) and "'" in n for n in names) else 1
    ids = parse_card_names(cards, decks)  # type: ignore[arg-type]  # CardTypeError for what names no cards
    return [_card(_card_name(i, decks)) for i in ids], decks


def sort_cards(cards: Sequence[Card], decks: int) -> List[Card]:
    """By rank (3 … 2, then the jokers), then suit, the second deck's copy after the first."""
    def key(c: Card) -> Tuple[int, int, int]:
        if c.suit is None and c.rank not in "BR":
            return RANKS.index(c.rank), 0, 0
        return RANKS.index(c.rank), card_id(c.name, decks), 0
    return sorted(cards, key=key)
