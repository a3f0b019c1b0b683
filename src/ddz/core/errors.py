"""The errors ddz raises on bad input, one hierarchy for the whole package.

Every error is a ``DdzError``, which is a ``ValueError``; the message names what was wrong
(long inputs are cut), and the object the call was made on is left exactly as it was. A
value of the wrong Python type raises the ``…TypeError`` twin of the error, which derives
from that error and from ``TypeError``, so either ``except`` catches it::

    DdzError (ValueError)
    ├── CardError            malformed cards, too many copies, the wrong deck count
    │   └── CardTypeError    (+ TypeError)
    ├── MoveError            no legal combination, an unknown move or action id
    │   └── MoveTypeError
    ├── IllegalAction        an action not legal in the state (out of turn, not held, ...);
    │   │                    its .code, an IllegalCode, says why
    │   └── IllegalActionTypeError
    ├── ArgumentError        an argument or option out of range or invalid
    │   └── ArgumentTypeError
    └── RecordError          a game record that cannot be read or does not replay
        └── RecordTypeError
"""
from __future__ import annotations

from .._core import (
    ArgumentError,
    ArgumentTypeError,
    CardError,
    CardTypeError,
    DdzError,
    IllegalAction,
    IllegalActionTypeError,
    IllegalCode,
    MoveError,
    MoveTypeError,
)

__all__ = ["ArgumentError", "ArgumentTypeError", "CardError", "CardTypeError", "DdzError", "IllegalAction", "shown",
           "IllegalActionTypeError", "IllegalCode", "MoveError", "MoveTypeError", "RecordError", "RecordTypeError",
           "illegal"]


def illegal(code: IllegalCode, message: str, type_error: bool = False) -> IllegalAction:
    """An IllegalAction (not raised) carrying its ``code``."""
    e = (IllegalActionTypeError if type_error else IllegalAction)(message)
    e.code = code
    return e


class RecordError(DdzError):
    """A ``ddz-game`` or ``ddz-view`` record that is malformed, inconsistent, or whose stored
    result differs from its replay."""


class RecordTypeError(RecordError, TypeError):
    """A record of the wrong Python type (not a str)."""


def shown(value: object, limit: int = 60) -> str:
    """``repr(value)`` for an error message, cut to ``limit`` characters (an input quoted in a
    message never makes the message long; an int too large to print is named by its size)."""
    try:
        text = repr(value)
    except ValueError:  # an int past the interpreter's digit limit
        return f"an integer of {value.bit_length()} bits" if isinstance(value, int) else "an unprintable value"
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


# Tracebacks and reprs name the errors where users import them from (ddz.CardError, not
# ddz._core.CardError).
for _cls in (ArgumentError, ArgumentTypeError, CardError, CardTypeError, DdzError, IllegalAction,
             IllegalActionTypeError, MoveError, MoveTypeError, RecordError, RecordTypeError):
    _cls.__module__ = "ddz"
del _cls
IllegalCode.__module__ = "ddz"
IllegalCode.__str__ = lambda self: self.name  # type: ignore[method-assign,attr-defined]  # 'NOT_HELD', not '3'

