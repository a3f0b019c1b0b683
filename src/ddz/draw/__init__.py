"""Pictures of the game as SVG: cards, a hand, a move, a trick and the whole table.

>>> import ddz
>>> g = ddz.Game(ddz.Rules.classic(), seed=3)
>>> svg = ddz.draw.table(g, seat=1)       # what seat 1 sees; ddz.draw.table(g): the open table
>>> svg.startswith("<svg") and "<title>CLASSIC3 table, seat 1's view" in svg
True

Every function returns an ``SVG`` (a ``str`` that Jupyter displays; ``.save(path)`` writes it)
and ``save(obj, path)`` writes a drawing, or draws and writes a ``Cards``, ``Move`` or ``Game``.
In a notebook a ``Cards``, a ``Move`` and a ``Game`` show as their drawing (``_repr_svg_``: a
game as its open table). Every drawing has a ``<title>`` and a ``<desc>`` that say what it shows
in words, tells the suits apart by their shape as well as their colour, and writes its text in
ASCII, so that it needs no particular font. docs/game.md shows them.

It is a layer above ``ddz.hand`` (docs/architecture.md): it reads games, and nothing below it
imports it; the facade ``ddz`` gives the types their ``_repr_svg_``.
"""
from __future__ import annotations

from typing import Any

from .. import _core
from .pictures import cards, hand, move, trick
from .svg import SVG
from .table import OPEN, table

__all__ = ["SVG", "OPEN", "cards", "hand", "move", "trick", "table", "picture", "save"]


def picture(obj: Any) -> SVG:
    """The default drawing of ``obj``: a ``Cards`` as cards, a ``Move`` as a move, a ``Game``
    as its open table; an ``SVG`` as itself. ``TypeError`` for anything else."""
    if isinstance(obj, SVG):
        return obj
    if isinstance(obj, _core.Cards):
        return cards(obj)
    if isinstance(obj, _core.Move):
        return move(obj)
    if hasattr(obj, "observation") and hasattr(obj, "history"):
        return table(obj)
    raise TypeError(f"ddz.draw draws Cards, Move and Game, not {type(obj).__name__}")


def save(obj: Any, path: Any) -> SVG:
    """Writes ``obj``'s drawing (an ``SVG``, or a ``Cards``, ``Move`` or ``Game`` drawn by
    ``picture``) to the file ``path``; returns the drawing."""
    svg = picture(obj)
    svg.save(path)
    return svg
