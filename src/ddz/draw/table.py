"""The whole table of a ``Game``: the seats around it (roles, cards, each seat's last action),
the kitty once revealed, the set-aside cards, the multiplier and where the hand stands.

What it shows is one view of the game, built from ``Game.observation`` only (plus, for the open
table, every hand and the kitty): a seat's view never holds a card that its observation hides.
The layout is read from the variant's data (``ddz.variants.VARIANT``: its players, decks, kitty
and set-aside cards), so every variant is drawn by the same code.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..core.errors import ArgumentTypeError
from ..core.variants import VARIANT
from ..hand.game import Game
from ..hand.tricks import Tricks
from .pictures import plaque, play_cards, seat_label
from .svg import CARD_H, MUTED, SVG, Card, document, parse_cards, row, sort_cards, text
from .words import action_words, format_factors

__all__ = ["OPEN", "table"]

#: ``table(game)``'s default view: the open table, every hand face up (in a notebook the user
#: owns the game). A seat's number draws that seat's view; None a spectator's.
OPEN = "open"

WIDTH = 960
SIDE_W = 290          # the left and right seats' panels
CENTRE_W = 320
BACK_STEP = 9         # hidden cards overlap more: only their number matters
GOLD, AMBER = "#f3d36b", "#d9860b"
# where the seats sit, counted from the viewer's seat (the bottom) in playing order: the next
# seat to the right, and so on around the table
_SLOTS = ("bottom", "right", "top", "left")


@dataclass
class _Seat:
    seat: int
    cards: Optional[List[Card]]   # face up, or None: hidden
    count: int
    last: Optional[str]           # the seat's latest action in this trick (or this deal's auction)
    shows: bool                   # the hand is face up to everyone (SHOW, 明打, show-start)


@dataclass
class _View:
    title: str
    who: str
    players: int
    decks: int
    base_seat: int
    phase: str
    dealt: bool
    current: Optional[int]
    landlord: Optional[int]
    seats: List[_Seat]
    kitty: Optional[List[Card]]   # face up, or None: face down
    kitty_size: int
    kitty_note: str
    aside: int
    stake: str
    top: Optional[Tuple[int, str]]
    closed_to: Optional[int]      # the trick closed: the seat that leads next
    result: Any


def _last_actions(players: int, history: Sequence[Sequence[Any]]) -> Tuple[List[Optional[str]], Tricks]:
    """Each seat's latest action of the trick in progress (or, before the first lead, of this
    deal's auction), and the tricks read from the history."""
    tricks = Tricks(players)
    last: List[Optional[str]] = [None] * players
    for seat, token in history:
        tricks.follow(seat, token)
        if seat is None or token == "REDEAL":
            last = [None] * players
            continue
        if token.startswith("PLAY ") and tricks.current == [(seat, token)]:  # a lead: a new trick
            last = [None] * players
        last[seat] = token
    return last, tricks


def _view(game: Any, seat: Any) -> _View:
    if not isinstance(game, Game):
        raise ArgumentTypeError(f"ddz.draw.table draws a ddz.Game, not {type(game).__name__}")
    variant = VARIANT[game.rules.variant]
    n, decks = variant.players, variant.decks
    open_table = isinstance(seat, str) and seat == OPEN
    obs = game.observation(None if open_table else seat)  # checks the seat
    if not open_table:
        seat = obs["seat"]  # an int (a numpy integer seat comes back as one)
    dealt = obs["first_bidder"] is not None
    faces: Dict[int, List[str]] = {int(s): list(c) for s, c in obs["shown"].items()}
    kitty_names = obs["kitty"]
    kitty_note = "revealed" if kitty_names is not None else "face down"
    if open_table and dealt:
        faces = {s: game.cards(s) for s in range(n)}
        if kitty_names is None:
            kitty_names = json.loads(game.to_json())["deals"][-1]["kitty"]
            kitty_note = "not revealed to the seats yet"
    elif seat is not None and dealt:
        faces[seat] = list(obs["cards"])
    last, tricks = _last_actions(n, obs["history"])
    seats = []
    for s in range(n):
        names = faces.get(s)
        cards = sort_cards(parse_cards(names, decks)[0], decks) if names is not None and names else (
            [] if names is not None else None)
        seats.append(_Seat(s, cards, obs["cards_left"][s], last[s], s in obs["shown"]))
    kitty = sort_cards(parse_cards(kitty_names, decks)[0], decks) if kitty_names else None
    top = obs["top"]
    who = "open table" if open_table else ("a spectator's view" if seat is None else f"seat {seat}'s view")
    return _View(title=variant.title, who=who, players=n, decks=decks, base_seat=seat if isinstance(seat, int) else 0,
                 phase=obs["phase"], dealt=dealt, current=obs["current_seat"], landlord=obs["landlord"], seats=seats,
                 kitty=kitty, kitty_size=variant.kitty, kitty_note=kitty_note, aside=variant.aside,
                 stake=format_factors(obs["factors"], obs["multiplier"], obs["phase"], ascii=True),
                 top=(int(top[0]), str(top[1])) if top else None,
                 closed_to=tricks.current[0][0] if tricks.closed and tricks.current else None,
                 result=game.result)


def _slot(v: _View, seat: int) -> str:
    k = (seat - v.base_seat) % v.players
    return _SLOTS[round(k * 4 / v.players) % 4]


def _panel(v: _View, st: _Seat, x: float, y: float, w: float) -> Tuple[List[str], float]:
    """One seat: its name and role, its cards (or their backs), its last action."""
    acting = st.seat == v.current
    inner = w - 20
    body: List[str] = []
    cy = y + 10
    label = seat_label(st.seat, None) + f", {st.count} card{'s' if st.count != 1 else ''}"
    body.append(text(x + 10, cy + 15, label, 14, weight="bold", cls="seat-name"))
    bx = x + 10 + 8.6 * len(label) + 12
    if v.landlord is not None:
        role = "LANDLORD" if st.seat == v.landlord else "FARMER"
        body.append(plaque(bx, cy - 1, role, fill=GOLD if role == "LANDLORD" else "#dfe9f5"))
        bx += 12 + 8 * len(role) + 8
    if acting:
        body.append(plaque(bx, cy - 1, "TO ACT", fill=AMBER, ink="#ffffff"))
        bx += 72
    if st.shows:
        body.append(text(min(bx, x + w - 120), cy + 15, "hand face up", 11, fill=MUTED))
    cy += 32
    if not v.dealt:
        body.append(text(x + 10, cy + 16, "not dealt yet", 12, fill=MUTED))
        cy += 24
    elif st.cards is not None:
        drawn, h = row(st.cards, x + 10, cy, inner)
        body += drawn
        cy += max(h, CARD_H if st.cards else 20) + 8
    else:
        drawn, h = row([None] * st.count, x + 10, cy, inner, step=BACK_STEP)
        body += drawn
        cy += h + 8
    body.append(text(x + 10, cy + 17, "last:", 12, fill=MUTED))
    if st.last is None:
        body.append(text(x + 52, cy + 17, "-", 12, fill=MUTED))
        cy += 26
    elif st.last.startswith("PLAY "):
        drawn, h = row(play_cards(st.last, v.decks), x + 52, cy, inner - 42)
        body += drawn
        cy += h
    else:
        body.append(plaque(x + 52, cy, action_words(st.last).upper()))
        cy += 26
    height = cy + 10 - y
    stroke = f'stroke="{AMBER}" stroke-width="3"' if acting else 'stroke="#c3cad4" stroke-width="1"'
    frame = (f'<rect class="seat" x="{x:g}" y="{y:g}" width="{w:g}" height="{height:g}" rx="10" '
             f'fill="{"#fff8ea" if acting else "#f5f7fa"}" {stroke}/>')
    return [f'<g class="seat" data-seat="{st.seat}">', frame] + body + ["</g>"], height


def _centre(v: _View, x: float, y: float, w: float) -> Tuple[List[str], float]:
    """The kitty, the set-aside cards, the stake and where the hand stands."""
    out: List[str] = []
    cy = y
    if v.kitty_size:
        out.append(text(x, cy + 14, f"KITTY ({v.kitty_note})", 12, weight="bold", fill=MUTED))
        cy += 22
        if not v.dealt:
            out.append(text(x, cy + 14, "not dealt yet", 12, fill=MUTED))
            cy += 22
        else:
            drawn, h = row(v.kitty if v.kitty is not None else [None] * v.kitty_size, x, cy, w)
            out += drawn
            cy += h + 10
    if v.aside:
        out.append(text(x, cy + 14, f"{v.aside} cards set aside, unseen", 12, fill=MUTED))
        cy += 24
    out.append(text(x, cy + 14, "STAKE", 12, weight="bold", fill=MUTED))
    out.append(text(x, cy + 36, v.stake, 17, weight="bold", cls="stake"))
    cy += 48
    lines: List[Tuple[str, str]] = []
    if v.result is not None:
        r = v.result
        lines.append(("HAND OVER: " + (f"{r.winner_side} win" if r.winner_side else r.kind), "bold"))
        lines.append(("scores: " + ", ".join(f"seat {s} {x:+d}" for s, x in enumerate(r.scores)), "normal"))
    else:
        lines.append((f"phase {v.phase}" + (f", seat {v.current} to act" if v.current is not None else ""), "bold"))
        if v.closed_to is not None:
            lines.append((f"the trick is closed: seat {v.closed_to} leads", "normal"))
        elif v.top is not None:
            lines.append((f"to beat: {v.top[1]} (seat {v.top[0]})", "normal"))
        elif v.phase == "PLAY":
            lines.append((f"seat {v.current} leads", "normal"))
    for words, weight in lines:
        out.append(text(x, cy + 14, words, 13, weight=weight, cls="status"))
        cy += 20
    return out, cy - y


def _describe(v: _View) -> str:
    parts = []
    for st in v.seats:
        held = (", ".join(c.spoken for c in st.cards) or "no card") if st.cards is not None else "hidden"
        last = "" if st.last is None else (f"; last: plays {', '.join(c.spoken for c in play_cards(st.last, v.decks))}"
                                           if st.last.startswith("PLAY ") else f"; last: {action_words(st.last)}")
        parts.append(f"{seat_label(st.seat, v.landlord)}, {st.count} cards: {held}{last}")
    if v.kitty_size and v.dealt:
        parts.append("kitty: " + (", ".join(c.spoken for c in v.kitty) if v.kitty else "face down"))
    parts.append(f"stake: {v.stake}")
    return ". ".join(parts) + "."


def _title(v: _View) -> str:
    if v.result is not None:
        where = f"hand over, {v.result.winner_side} win" if v.result.winner_side else f"hand over ({v.result.kind})"
    else:
        where = f"phase {v.phase}" + (f", seat {v.current} to act" if v.current is not None else "")
    return f"{v.title} table, {v.who}: {where}"


def table(game: Any, seat: Any = OPEN) -> SVG:
    """The table of ``game``: by default the open table (every hand face up); ``seat=N`` draws
    what seat N sees (``Game.observation(N)``: its own hand, the hands shown face up, the kitty
    once revealed, the others' hands as backs); ``seat=None`` a spectator's view. The same
    game, or one replayed from its record, draws the same bytes."""
    v = _view(game, seat)
    by_slot: Dict[str, _Seat] = {_slot(v, st.seat): st for st in v.seats}
    body = [text(20, 30, f"{v.title}  {v.who}", 18, weight="bold", cls="heading")]
    y = 48.0
    if "top" in by_slot:
        parts, h = _panel(v, by_slot["top"], 20, y, WIDTH - 40)
        body += parts
        y += h + 14
    mid: List[float] = []
    for slot, x in (("left", 20.0), ("right", WIDTH - 20 - SIDE_W)):
        if slot in by_slot:
            parts, h = _panel(v, by_slot[slot], x, y, SIDE_W)
            body += parts
            mid.append(h)
    parts, h = _centre(v, (WIDTH - CENTRE_W) / 2 + 10, y + 4, CENTRE_W - 20)
    body += parts
    mid.append(h + 8)
    y += max(mid) + 14
    parts, h = _panel(v, by_slot["bottom"], 20, y, WIDTH - 40)
    body += parts
    y += h + 16
    return document(WIDTH, int(y), _title(v), _describe(v), body)

