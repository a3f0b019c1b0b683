"""ddz: a fast, faithful Dou Dizhu (斗地主) rules engine.

The rules contract is RULES.md; the C++ core (``ddz._core``) does cards, classification
and legal-move generation; this package adds the typed facade.
"""
from __future__ import annotations

from ._core import (
    CardError,
    Cards,
    Kind,
    Move,
    MoveError,
    classify,
    count_moves,
    cpu_has_fast_isa,
    decode,
    dispatch_level,
    hand_words,
    legal_moves,
    legal_moves_array,
    legal_moves_batch,
    set_dispatch_level,
)
from ._rules import VARIANTS, Rules

__version__ = "0.1.0"

__all__ = [
    "CardError", "Cards", "Kind", "Move", "MoveError", "Rules", "VARIANTS", "classify", "count_moves",
    "cpu_has_fast_isa", "decode", "dispatch_level", "hand_words", "legal_moves", "legal_moves_array",
    "legal_moves_batch", "set_dispatch_level", "__version__",
]
