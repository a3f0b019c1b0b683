"""``NeuralBot``: plays a trained model's decisions, in numpy (no torch)."""
from __future__ import annotations

import os
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import encode
from ..search.bots import Bot, RuleBot
from ..core.args import is_int
from ..core.errors import ArgumentError, ArgumentTypeError, shown
from ..core.rules import Rules
from ..hand.game import Game
from .features import HISTORY
from .model import NeuralModel

__all__ = ["NeuralBot"]


class NeuralBot(Bot):
    """A bot that plays by a trained model's Q values (the highest; the first in
    ``game.legal_action_ids()`` order among equal values). A whole-hand model (``model.whole``)
    decides every phase, bids included; a play-phase model plays the play phase and **bids as
    ``RuleBot`` does** (``bidder``, another bot if given; it also makes TWOP's 翻身 / 压迫).

    ``model`` is a model file (``.npz``, written by ``ddz train`` as ``model.npz``) or a loaded
    ``NeuralModel``. The forward pass is numpy; torch is not needed. A game under other rules than
    the model's (up to the ``STAKE_OPTIONS``: a room's stakes and clock) raises ``ModelError``.
    ``NeuralBot.shipped("classic")`` plays the model shipped with ddz for a variant. Stateless between calls (one instance may sit at every
    seat; ``ddz.evaluate``'s per-hand copies share the weights). ``bids="rule"`` makes a whole-hand
    model's auction decisions the bidder's too (its play stays the model's)."""

    def __init__(self, model: Union[str, "os.PathLike[str]", NeuralModel], *, bidder: Optional[Bot] = None,
                 name: Optional[str] = None, bids: str = "model") -> None:
        if isinstance(model, NeuralModel):
            self.model = model
        elif isinstance(model, (str, os.PathLike)):
            self.model = NeuralModel.load(model)
        else:
            raise ArgumentTypeError(f"model must be a path or a NeuralModel, not {shown(model)}")
        self.rules = self.model.rules
        self.bidder = bidder if bidder is not None else RuleBot()
        if bids not in ("model", "rule"):
            raise ArgumentError(f"bids must be 'model' or 'rule', not {shown(bids)}")
        self.bids = bids
        self.name = name or "NeuralBot"
        self._checked: Optional[Rules] = self.rules  # the last rules value found playable
        moves = self.rules.action_space_array()
        self._id_of: Dict[int, int] = {int(m): i for i, m in enumerate(moves)}

    def __deepcopy__(self, memo: Dict[int, Any]) -> "NeuralBot":
        return self  # no state changes between calls; copying the weights per hand buys nothing

    @classmethod
    def shipped(cls, variant_or_rules: Union[str, Rules], *, bidder: Optional[Bot] = None,
                name: Optional[str] = None) -> "NeuralBot":
        """The bot of the model shipped with ddz for a variant (``"classic"``, ``"twop"``,
        ``"bengbu"``, any alias) or a ``Rules`` value (``ddz.learn.shipped_model``; ``ModelError``
        when none is shipped for it or it does not play those rules). The model is read once
        per process and shared."""
        from .shipped import shipped_model
        return cls(shipped_model(variant_or_rules), bidder=bidder, name=name)

    def _check(self, game: Any) -> None:
        rules = game.rules
        if rules is self._checked:
            return
        self.model.check_rules(rules)
        self._checked = rules

    def history(self, game: Any) -> npt.NDArray[np.int32]:
        """The last ``HISTORY`` play-phase action ids of the hand, oldest first, -1 for none."""
        out = np.full(HISTORY, -1, dtype=np.int32)
        ps = game.play_state
        if ps is None:
            return out
        actions = encode.play_log(ps)[3][-HISTORY:]
        pass_id = self.rules.pass_id
        ids = [self._id_of.get(a, pass_id) for a in actions]
        if ids:
            out[-len(ids):] = ids
        return out

    def scores(self, game: Any, seat: int, *, heads: bool = False) -> Tuple[npt.NDArray[np.int64],
                                                                            npt.NDArray[np.float32]]:
        """The legal action ids of ``seat`` (to act: in the play phase, or in any phase for a
        whole-hand model) and their Q values (the values actions are chosen by); with
        ``heads=True`` every head's output instead, (actions, heads): a ``res`` model's win value
        and expected score."""
        seat = _seat_of(game, seat)
        self._check(game)
        whole = self.model.whole
        if game.current_seat != seat or game.is_over or (game.phase != "PLAY" and not whole):
            raise ArgumentError(f"seat {seat} has no {'' if whole else 'play '}decision to make now")
        ids = np.asarray(game.legal_action_ids(), dtype=np.int64)
        obs = encode.compact(game, seat)
        f = self.model.features
        position = f.decision_position if game.phase != "PLAY" else int(f.position(obs[None])[0])
        hist = self.history(game) if self.model.net["arch"] == "lstm" else None
        if heads:
            return ids, self.model.head_values(position, obs, ids, hist)
        return ids, self.model.q_values(position, obs, ids, hist)

    def act(self, game: Any, seat: int) -> Any:
        """The action of ``seat`` (the seat to act) in ``game``: the legal action id of highest
        Q value, or the bidder's decision in an auction phase of a play-phase model (of any model
        with ``bids="rule"``)."""
        seat = _seat_of(game, seat)
        if game.phase != "PLAY" and (not self.model.whole or self.bids == "rule"):
            return self.bidder.act(game, seat)
        ids, q = self.scores(game, seat)
        return int(ids[int(np.argmax(q))])


def _seat_of(game: Any, seat: Any) -> int:
    """``seat`` as a seat of ``game`` (a ``ddz.Game``): the TypeError twin for another type of game
    or seat (a bool, a float, a str, None), ``ArgumentError`` for a seat out of range."""
    if not isinstance(game, Game):
        raise ArgumentTypeError(f"a bot acts in a ddz.Game, not {shown(game)}")
    if not is_int(seat):
        raise ArgumentTypeError(f"no seat {shown(seat)}: a seat is an int 0..{game.rules.players - 1}")
    if not 0 <= seat < game.rules.players:
        raise ArgumentError(f"no seat {shown(seat)}: seats are 0..{game.rules.players - 1}")
    return int(seat)
