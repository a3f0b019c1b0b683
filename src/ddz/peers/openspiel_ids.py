"""OpenSpiel ``dou_dizhu``'s own action ids under ``Rules.classic_openspiel()`` (docs/peers.md,
"OpenSpiel").

OpenSpiel numbers every body reading of a play: pass is 0, the bids 1-3, and 26,053 play
ids (4 .. 26,056) over ddz's 25,670 plays; 383 of them are lower-key readings of a plane
that ddz reads at its highest key (docs/rules.md §4.4 "One reading per play").
``openspiel_id`` gives the id of ddz's reading of a play, ``from_openspiel_id`` the ddz play
of any OpenSpiel play id (the table is generated from OpenSpiel's action strings by
tools/gen_openspiel_ids.py)::

    r = ddz.Rules.classic_openspiel()
    a = openspiel_id(ddz.classify("33344455", r), r)    # 516: OpenSpiel's "333444-55"
    from_openspiel_id(a, r)                            # Move('33344455', PLANE_SOLO, key=1, length=2)
"""
from __future__ import annotations

import base64
import zlib
from typing import List

import numpy as np

from .._core import Move, MoveError, decode
from ..core.rules import Rules

__all__ = ["OPENSPIEL_PASS", "OPENSPIEL_NUM_ACTIONS", "openspiel_id", "from_openspiel_id"]

OPENSPIEL_PASS = 0
OPENSPIEL_FIRST_PLAY = 4           # 1-3 are the bids
OPENSPIEL_NUM_ACTIONS = 26_057     # game.num_distinct_actions()
_TABLES: List[np.ndarray] = []
_RULES: List[Rules] = []


def _tables() -> List[np.ndarray]:
    if not _TABLES:
        from . import openspiel_table as T

        for blob in (T.FROM_OPENSPIEL, T.TO_OPENSPIEL):
            deltas = np.frombuffer(zlib.decompress(base64.b64decode("".join(blob))), dtype="<i4")
            _TABLES.append(np.cumsum(deltas.astype(np.int64)))
    return _TABLES


def _check_rules(rules: Rules) -> None:
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a ddz.Rules, not {type(rules).__name__}")
    if not _RULES:
        _RULES.append(Rules.classic_openspiel())
    if rules != _RULES[0]:
        raise ValueError(f"OpenSpiel action ids exist under Rules.classic_openspiel() only, not {rules!r}")


def openspiel_id(move: Move, rules: Rules) -> int:
    """OpenSpiel's action id of ``move`` (a play or PASS of these rules): the id of the
    reading ddz gives it."""
    _check_rules(rules)
    if not isinstance(move, Move):
        raise TypeError(f"move must be a ddz.Move, not {type(move).__name__}")
    if move.is_pass:
        return OPENSPIEL_PASS
    return int(_tables()[1][decode(move.encoded, rules).id])


def from_openspiel_id(action: int, rules: Rules) -> Move:
    """The ddz Move of an OpenSpiel play id (or PASS for 0); a bid id is no play."""
    _check_rules(rules)
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"action must be an int, not {type(action).__name__}")
    a = int(action)
    if a == OPENSPIEL_PASS:
        return rules.move_from_id(rules.pass_id)
    if not OPENSPIEL_FIRST_PLAY <= a < OPENSPIEL_NUM_ACTIONS:
        what = "a bid" if 0 < a < OPENSPIEL_FIRST_PLAY else "out of range"
        raise MoveError(f"OpenSpiel action {a} is {what}, not a play (plays are {OPENSPIEL_FIRST_PLAY}.."
                        f"{OPENSPIEL_NUM_ACTIONS - 1}, pass is 0)")
    return rules.move_from_id(int(_tables()[0][a - OPENSPIEL_FIRST_PLAY]))

