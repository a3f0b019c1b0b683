"""One action space per variant, the decisions included (for learning agents).

The ids of a variant's rules run: the plays ``0 .. pass_id - 1`` (``Move.id``, the order of
``Rules.action_space()``), PASS at ``pass_id``, then the bidding and doubling decisions:
decision ``k`` of ``ddz.variants.VARIANT[variant].decisions`` has id ``pass_id + 1 + k``.
``Rules.num_actions`` counts them all (``action_space_size`` still counts the plays only).
The decision ids never move when the play space changes size, since they are numbered from
``pass_id``, and their order is the variant table's stable token order.

``Rules.action_id`` / ``Rules.action_token`` convert ids and tokens, ``Game.legal_action_ids``
/ ``Game.legal_action_mask`` give the legal ids of the seat to act, and ``Game.apply`` (and
``check``, ``can_apply``) take an id as a Python ``int``. A play id names a rank multiset and
its reading (kind), so an id is exact where a token may have two readings
(``Rules.ambiguous``); the token of a play id is ``'PLAY <ranks>'``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Union

import numpy as np
import numpy.typing as npt

from .._core import Cards, CardError, Move, MoveError, classify
from .cards import parse_card_names, ranks_of
from .errors import ArgumentTypeError, IllegalCode, illegal, shown
from .variants import VARIANT

if TYPE_CHECKING:  # pragma: no cover
    from .rules import Rules
    from ..hand.game import Game

__all__ = ["num_actions", "action_id", "action_token", "legal_ids", "legal_mask", "resolve"]

_DECISION_INDEX: Dict[str, Dict[str, int]] = {
    name: {token: k for k, token in enumerate(v.decisions)} for name, v in VARIANT.items()}


def num_actions(rules: "Rules") -> int:
    """Plays, PASS and the variant's decisions."""
    return rules.pass_id + 1 + len(VARIANT[rules.variant].decisions)


def _describe(rules: "Rules") -> str:
    p = rules.pass_id
    return (f"plays 0..{p - 1}, PASS {p}, decisions {p + 1}..{num_actions(rules) - 1} under {rules!r}")


def _check_id(rules: "Rules", aid: Any) -> int:
    if isinstance(aid, bool) or not isinstance(aid, (int, np.integer)):
        raise ArgumentTypeError(f"an action id is an int, not {shown(aid)}")
    aid = int(aid)
    if not 0 <= aid < num_actions(rules):
        raise MoveError(f"action id {shown(aid)} is out of range 0..{num_actions(rules) - 1} ({_describe(rules)})")
    return aid


def action_token(rules: "Rules", aid: int) -> str:
    """The token of an action id: ``'PLAY <ranks>'``, ``'PASS'`` or a decision token."""
    aid = _check_id(rules, aid)
    p = rules.pass_id
    if aid < p:
        return f"PLAY {rules.move_from_id(aid)}"
    if aid == p:
        return "PASS"
    return VARIANT[rules.variant].decisions[aid - p - 1]


def action_id(rules: "Rules", token: Union[str, Move]) -> int:
    """The id of a token: a decision (``'CALL'``), ``'PASS'``, a play by ranks
    (``'PLAY 33344'``, ``'33344'``) or by physical cards (``'PLAY 3s 3h'``), or a Move.
    A play's id is that of its lead reading (``ddz.classify``); where a multiset has two
    readings (``Rules.ambiguous``), use the ``Move`` or ``Game.legal_action_ids()``."""
    if isinstance(token, Move):
        return token.id
    if not isinstance(token, str):
        raise ArgumentTypeError(f"a token is a str (or a Move), not {shown(token)}")
    text = token.strip()
    upper = text.upper()
    decisions = _DECISION_INDEX[rules.variant]
    if upper in decisions:
        return rules.pass_id + 1 + decisions[upper]
    if upper == "PASS":
        return rules.pass_id
    if upper.startswith("PLAY"):
        text = text[4:].strip()
    if not text:
        raise MoveError(f"token {shown(token, 40)} names no action: a decision of {rules.variant} "
                        f"({', '.join(VARIANT[rules.variant].decisions)}), PASS or PLAY <cards>")
    try:
        if any(ch in "shcd'," for ch in text) or " " in text:
            text = ranks_of(parse_card_names(text, rules.decks))
        move = classify(Cards(text, decks=rules.decks), rules)
    except CardError as e:
        raise MoveError(f"token {shown(token, 40)}: {e}") from None
    if move is None:
        raise MoveError(f"token {shown(token, 40)} is not a combination under {rules!r}")
    return move.id


def legal_ids(game: "Game") -> List[int]:
    """The ids of ``game.legal_actions()``, in the same order."""
    if game.is_over:
        return []
    rules = game.rules
    if game.phase == "PLAY":
        ps = game.play_state
        assert ps is not None
        return ps.legal_actions()
    base = rules.pass_id + 1
    index = _DECISION_INDEX[rules.variant]
    return [base + index[t] for t in game.legal_actions()]


def legal_mask(game: "Game") -> npt.NDArray[np.bool_]:
    """A bool mask over ``num_actions(game.rules)``, True at the legal ids."""
    mask = np.zeros(num_actions(game.rules), dtype=bool)
    mask[legal_ids(game)] = True
    return mask


def resolve(game: "Game", aid: Union[int, np.integer]) -> Union[Move, str]:
    """The action an id stands for in ``game``: the ``Move`` of a play id or of PASS, the
    token of a decision id. An id out of range raises ``IllegalAction`` (MALFORMED); a play
    id whose reading differs from the one the state gives its cards raises WRONG_READING."""
    rules = game.rules
    if isinstance(aid, bool):
        raise illegal(IllegalCode.MALFORMED, f"{aid} is a bool, not an action id (an int) nor a token",
                      type_error=True)
    aid = int(aid)
    if not 0 <= aid < num_actions(rules):
        raise illegal(IllegalCode.MALFORMED, f"action id {shown(aid)} is out of range 0..{num_actions(rules) - 1} "
                                             f"({_describe(rules)})")
    p = rules.pass_id
    if aid > p:
        return VARIANT[rules.variant].decisions[aid - p - 1]
    move = rules.move_from_id(aid)
    ps = game.play_state
    if game.phase == "PLAY" and ps is not None and not move.is_pass:
        why = ps.check(move)
        if why is not None and why.code == IllegalCode.WRONG_READING:
            raise why
    return move
