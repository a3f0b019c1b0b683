"""The words a table shows beside its cards, shared by the drawings and ``ddz play``: the
multiplier as its factors, an action in words."""
from __future__ import annotations

from typing import Any, Dict

__all__ = ["format_factors", "action_words"]

_FACTOR_NAMES = {"rob": "rob", "show": "show", "kitty": "kitty", "bomb": "bomb", "spring": "spring",
                 "show_start": "show-start", "fanshen": ("fanshen/yapo", "翻身/压迫")}


def format_factors(factors: Dict[str, Any], multiplier: int, phase: str = "", ascii: bool = False) -> str:
    """The multiplier as its factors: ``'×2 rob · ×2 bomb = ×4'``. A score of points (BENGBU4's
    factors: the bid, ``base``, and the open or closed play) shows those instead. ``ascii``
    writes it in ASCII only (``'x2 rob, x2 bomb = x4'``), for drawings that must not depend on
    a font."""
    times, sep = ("x", ", ") if ascii else ("×", " · ")
    if "base" in factors:
        if "escapee" in factors:
            return f"escape by seat {factors['escapee']}{sep}unit {factors.get('unit')}"
        base = factors.get("base")
        parts = [f"bid {base}" if base else "no bid yet"]
        if factors.get("open"):
            parts.append("open play" if ascii else "open play (明打)")
        elif phase not in ("BID", "OPEN_CHOICE"):  # closed only once the landlord has chosen
            parts.append("closed play")
        return sep.join(parts)
    parts = []
    for k, v in factors.items():
        if k in _FACTOR_NAMES and isinstance(v, int) and not isinstance(v, bool) and v != 1:
            name = _FACTOR_NAMES[k]
            parts.append(f"{times}{v} {name if isinstance(name, str) else name[not ascii]}")
    return (sep.join(parts) + f" = {times}{multiplier}") if parts else f"{times}{multiplier}"


def action_words(token: str) -> str:
    """A decision or a pass in words, lower case: ``'no call'``, ``'pass'``."""
    return token.lower().replace("_", " ")
