"""Drawings of cards, a hand, a move and a trick (``ddz.draw``)."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from .. import _core
from ..hand.tricks import Tricks
from .svg import CARD_H, CARD_W, INK, MUTED, SVG, STEP, Card, document, parse_cards, row, sort_cards, text
from .words import action_words

__all__ = ["cards", "hand", "move", "trick", "plaque", "play_cards", "seat_label"]

PAD = 12
MAX_WIDTH = 760


def _spoken(cs: Sequence[Card]) -> str:
    return ", ".join(c.spoken for c in cs) if cs else "no card"


def cards(cards: Any, *, decks: Optional[int] = None, title: Optional[str] = None) -> SVG:
    """Cards side by side, apart, in the order given: a ``Cards`` or a rank string (rank-only
    cards), suited names (``"3s 3h B"``, a second deck's copy ``"3s'"``) or ids with ``decks``."""
    cs, _ = parse_cards(cards, decks)
    parts, h = row(cs, PAD, PAD, MAX_WIDTH, step=CARD_W + 6)
    width = PAD * 2 + (min(len(cs), int((MAX_WIDTH - CARD_W) // (CARD_W + 6)) + 1) * (CARD_W + 6) - 6 if cs else 0)
    return document(max(width, 2 * PAD + CARD_W), max(h, 0) + 2 * PAD, title or f"{len(cs)} cards",
                    _spoken(cs), parts)


def hand(cards: Any, *, decks: Optional[int] = None, title: Optional[str] = None) -> SVG:
    """A hand as a player holds it: sorted by rank, overlapping, each card's index visible."""
    cs, d = parse_cards(cards, decks)
    cs = sort_cards(cs, d)
    parts, h = row(cs, PAD, PAD, MAX_WIDTH)
    per_line = int((MAX_WIDTH - CARD_W) // STEP) + 1
    width = 2 * PAD + CARD_W + (min(len(cs), per_line) - 1) * STEP if cs else 2 * PAD + CARD_W
    return document(width, max(h, CARD_H) + 2 * PAD, title or f"a hand of {len(cs)} cards", _spoken(cs), parts)


def plaque(x: float, y: float, words: str, *, fill: str = "#eef1f5", ink: str = INK) -> str:
    """A word in a small box (PASS, a decision) where a play's cards would be."""
    w = 12 + 8 * len(words)
    return (f'<g class="plaque"><rect x="{x:g}" y="{y:g}" width="{w}" height="26" rx="13" fill="{fill}" '
            f'stroke="#8a94a3"/>' + text(x + w / 2, y + 17.5, words, 12, weight="bold", fill=ink, anchor="middle")
            + "</g>")


def play_cards(token: str, decks: int) -> List[Card]:
    """The cards of a ``PLAY`` token, sorted."""
    cs, _ = parse_cards(token[5:], decks)
    return sort_cards(cs, decks)


def move(move: Any, rules: Any = None, *, title: Optional[str] = None) -> SVG:
    """A move: its cards (a ``Move``'s are rank-only; a ``'PLAY 3s 3h'`` token's are suited) with
    its kind below (``rules`` reads a token's kind), or a PASS."""
    if isinstance(move, _core.Move):
        if move.is_pass:
            cs: List[Card] = []
        else:
            cs, _ = parse_cards(move.cards)
        kind: Optional[str] = move.kind.name
    elif isinstance(move, str) and move.startswith("PLAY "):
        decks = rules.decks if rules is not None else (2 if "'" in move else 1)
        cs = play_cards(move, decks)
        found = _core.classify("".join(c.rank for c in cs), rules) if rules is not None else None
        kind = found.kind.name if found is not None else None
    elif move in ("PASS", None):
        cs, kind = [], "PASS"
    else:
        raise _core.MoveError(f"a move to draw is a Move, 'PLAY <cards>' or 'PASS', not {str(move)[:40]!r}")
    if not cs:
        body = [plaque(PAD, PAD, "PASS")]
        return document(2 * PAD + 60, 2 * PAD + 26, title or "a pass", "a pass", body)
    parts, h = row(cs, PAD, PAD, MAX_WIDTH)
    width = max(2 * PAD + CARD_W + (len(cs) - 1) * STEP, 160)
    caption = f"{kind or 'a play'} ({len(cs)} cards)" if len(cs) > 1 else (kind or "a play")
    parts.append(text(PAD, PAD + h + 18, caption, 12, weight="bold", fill=MUTED, cls="caption"))
    return document(width, h + 2 * PAD + 20, title or f"a move: {caption}", _spoken(cs), parts)


def seat_label(seat: int, landlord: Optional[int]) -> str:
    role = "" if landlord is None else (" (landlord)" if seat == landlord else " (farmer)")
    return f"seat {seat}{role}"


def trick(source: Any, *, decks: Optional[int] = None, landlord: Optional[int] = None,
          title: Optional[str] = None) -> SVG:
    """A trick, one line per action (``seat 1 (landlord)``, then the cards or PASS): the trick in
    progress of a ``Game`` (the last one while it stays on the table), or ``(seat, token)`` pairs
    (``decks`` 2 for a second deck's names; ``landlord`` names the roles)."""
    closed = False
    if hasattr(source, "history") and hasattr(source, "rules"):
        decks, landlord = source.rules.decks, source.landlord
        tricks = Tricks(source.num_players, source.history)
        actions: Sequence[Tuple[int, str]] = tricks.current
        closed = tricks.closed
    else:
        actions = [(int(s), str(t)) for s, t in source]
        decks = decks or (2 if any("'" in t for _, t in actions) else 1)
    parts: List[str] = []
    words: List[str] = []
    y, width = float(PAD), 0.0
    for seat, token in actions:
        parts.append(text(PAD, y + 22, seat_label(seat, landlord), 13, weight="bold", cls="seat"))
        if token.startswith("PLAY "):
            cs = play_cards(token, decks or 1)
            drawn, h = row(cs, PAD + 130, y, MAX_WIDTH - 130)
            parts += drawn
            width = max(width, PAD + 130 + CARD_W + (min(len(cs), 35) - 1) * STEP)
            words.append(f"seat {seat} plays {_spoken(cs)}")
        else:
            parts.append(plaque(PAD + 130, y + 4, action_words(token).upper()))
            h = 34.0
            words.append(f"seat {seat}: {action_words(token)}")
        y += h + 8
    if not actions:
        parts.append(text(PAD, PAD + 16, "no trick yet", 13, fill=MUTED))
        y += 24
    done = " (closed)" if closed else ""
    return document(max(width, 260) + PAD, y + PAD - 8 if actions else y + PAD,
                    title or f"a trick{done}: " + ("; ".join(words) if words else "no play yet"),
                    "; ".join(words) or "no play yet", parts)

