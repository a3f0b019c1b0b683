"""Each variant's ``Game`` class, looked up where the variant table names it.

``ddz.core.variants.VARIANT[v].auction`` names (``module:class``) the class that holds the
variant's auction (its transition table) and scoring hooks. ``Game(rules)`` and the record
reader construct hands through this lookup, so no auction module registers itself anywhere:
the auction modules import ``Game`` (their base class), and nothing below imports them.
"""
from __future__ import annotations

import importlib
from typing import Dict

from ..core.variants import VARIANT

__all__ = ["game_class"]

_CLASSES: Dict[str, type] = {}


def game_class(variant: str) -> type:
    """The ``Game`` subclass of ``variant`` (imported on first use, then kept)."""
    cls = _CLASSES.get(variant)
    if cls is None:
        module, name = VARIANT[variant].auction.split(":")
        cls = _CLASSES[variant] = getattr(importlib.import_module(module), name)
    return cls
