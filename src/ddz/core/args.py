"""Checks of plain arguments shared by the public API: an int argument (a Python or numpy
integer, never a bool) and a number argument (int or float, NaN refused), each in a range,
raising the caller's error class (or its ``…TypeError`` twin for a wrong type)."""
from __future__ import annotations

import math
from typing import Any, Optional, Type

import numpy as np

from .errors import ArgumentError, ArgumentTypeError, DdzError, shown

__all__ = ["int_arg", "is_int", "number_arg"]


def is_int(value: Any) -> bool:
    """A Python int or a numpy integer scalar; a bool is not an int here."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def int_arg(value: Any, name: str, lo: Optional[int] = None, hi: Optional[int] = None, *,
            error: Type[DdzError] = ArgumentError, type_error: Type[DdzError] = ArgumentTypeError) -> int:
    """``value`` as an int in ``lo..hi`` (either bound may be None)."""
    if not is_int(value):
        raise type_error(f"{name} must be an int, not {type(value).__name__}")
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        lo_s = "" if lo is None else f"{lo}"
        hi_s = "" if hi is None else f"{hi:,}" if hi >= 10**6 else f"{hi}"
        span = f">= {lo_s}" if hi is None else f"<= {hi_s}" if lo is None else f"in {lo_s}..{hi_s}"
        raise error(f"{name} must be {span}, not {shown(v)}")
    return v


def number_arg(value: Any, name: str, lo: float, hi: float = math.inf, *, lo_open: bool = True,
               error: Type[DdzError] = ArgumentError, type_error: Type[DdzError] = ArgumentTypeError) -> float:
    """``value`` (an int or a float, numpy scalars included) as a float in ``(lo, hi]`` (``[lo, hi]``
    when ``lo_open`` is False); NaN is refused, infinity is taken when ``hi`` is infinite."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise type_error(f"{name} must be a number, not {type(value).__name__}")
    try:
        v = float(value)
    except OverflowError:  # an int past the float range
        v = math.inf if value > 0 else -math.inf
    if math.isnan(v) or (v <= lo if lo_open else v < lo) or v > hi:
        span = f"{'>' if lo_open else '>='} {lo:g}" if hi == math.inf else \
            f"in {'(' if lo_open else '['}{lo:g}, {hi:g}]"
        raise error(f"{name} must be {span}, not {shown(value)}")
    return v
