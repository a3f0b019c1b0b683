"""The learning features, built in numpy from ddz's own encodings (no torch here).

* **State**: the compact encoding (``ddz.encode.compact_layout``) of the seat to act, expanded
  column by column into 0/1 "thermometer" entries (``x >= 1``, ``x >= 2``, ... up to the
  column's largest useful value; a count of 3 of a rank becomes ``1 1 1 0``, DouZero's card
  matrix for a one-deck rank). One gather and one comparison per batch.
* **Action**: per action id, the thermometer of its cards' 15 rank counts and its ``Kind``
  one-hot (PASS included), precomputed once per rules value as a table indexed by id.
* **History** (the LSTM preset): the last ``HISTORY`` play-phase actions of the hand, oldest
  first, each as the thermometer of its cards (a pass is zeros), grouped ``GROUP`` to a step.

Two feature sets. **Play** (``whole=False``, ``ENCODER_VERSION``): the blocks the play-phase
``VectorEnv`` never fills (``factors``, ``auction``) are left out, so a model trained there sees a
``Game``'s play decisions as it saw its training states. **Whole hands** (``whole=True``,
``HAND_ENCODER_VERSION``): every block, the factors as thermometers of their codes and the
auction's one-hots included, and the action table extended by one row per decision token (a
one-hot after the kind columns), so one network can score bids (and TWOP's 翻身 / 压迫) beside
the plays. A model records its feature set's name with the layout's fingerprint.
"""
from __future__ import annotations

import hashlib
import json
from typing import Dict, List, Tuple

import numpy as np
import numpy.typing as npt

from ..core.rules import Rules
from .encode import compact_layout
from ..core.variants import VARIANT

__all__ = ["ENCODER_VERSION", "HAND_ENCODER_VERSION", "HISTORY", "GROUP", "Features", "features_for",
           "action_space_fingerprint", "encoder_fingerprint"]

#: The names of the two feature sets (bumped whenever a feature's meaning changes).
ENCODER_VERSION = "ddz-play-features-1"
HAND_ENCODER_VERSION = "ddz-hand-features-1"
#: Play-phase actions the history keeps, and how many go into one LSTM step.
HISTORY = 15
GROUP = 3

_KINDS = 21  # the Kind values 0..19 and PASS (20)
_SKIPPED = ("factors", "auction")
# the largest code of each FACTORS slot the whole-hand features tell apart (ddz.encode.FACTOR_SLOTS:
# log2 codes and flags; larger bomb counts read as the largest)
_FACTOR_MAX = {"classic": [3, 1, 3, 6, 1], "two_player": [1, 2, 6, 1], "bengbu": [3, 1]}
_BOMB_KINDS = {12, 13, 14, 15, 16, 17, 18, 19}  # BOMB, ROCKET, BOMB4..BOMB8, JOKER_BOMB


def _rank_max(decks: int) -> List[int]:
    return [4 * decks] * 13 + [decks, decks]


def _thermometer(maxima: List[int]) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int8]]:
    """(column, threshold) pairs: column c gets thresholds 1..maxima[c]."""
    cols, thr = [], []
    for c, m in enumerate(maxima):
        for k in range(1, m + 1):
            cols.append(c)
            thr.append(k)
    return np.array(cols, dtype=np.int64), np.array(thr, dtype=np.int8)


def encoder_fingerprint(rules: Rules, whole: bool = False) -> str:
    """The feature set's name (``ENCODER_VERSION`` or ``HAND_ENCODER_VERSION``) and a hash of the
    compact layout it reads (a layout change in the core changes it)."""
    version = HAND_ENCODER_VERSION if whole else ENCODER_VERSION
    layout = compact_layout(rules)
    text = json.dumps([version, [(k, s.start, s.stop) for k, s in layout.items()]])
    return f"{version}:{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def action_space_fingerprint(rules: Rules) -> str:
    """A hash of the rules' action space (every play's encoded move in id order)."""
    return hashlib.sha256(rules.action_space_array().tobytes()).hexdigest()[:16]


class Features:
    """The feature builders of one rules value (see the module docstring), for the play phase or
    (``whole=True``) whole hands. ``state_dim``, ``action_dim`` and ``move_dim`` (one history
    entry) are the widths; ``decision_position`` the network index of the decisions (whole hands)."""

    def __init__(self, rules: Rules, whole: bool = False) -> None:
        self.rules = rules
        self.whole = whole
        v = VARIANT[rules.variant]
        self.players = n = v.players
        layout = compact_layout(rules)
        self.layout = layout
        self.width = layout["auction"].stop
        rank = _rank_max(rules.decks)
        maxima = [0] * self.width
        negative: List[int] = []
        for name, sl in layout.items():
            cols = range(sl.start, sl.stop)
            if name in _SKIPPED and not whole:
                continue
            if name == "factors":
                for c, m in zip(cols, _FACTOR_MAX[rules.variant]):
                    maxima[c] = m
                continue
            if name in ("hand", "unseen", "top", "kitty", "played", "last_action", "shown"):
                for j, c in enumerate(cols):
                    maxima[c] = rank[j % 15]
            elif name == "cards_left":
                for c in cols:
                    maxima[c] = v.max_hand
            elif name == "bombs":
                for c in cols:
                    maxima[c] = 4
            elif name == "bombs_left":
                for c in cols:
                    maxima[c] = 4
                    negative.append(c)  # -1: unlimited
            else:  # one-hots and flags
                for c in cols:
                    maxima[c] = 1
        self._cols, self._thr = _thermometer(maxima)
        self._neg = np.array(negative, dtype=np.int64)
        self.state_dim = len(self._cols) + len(self._neg)
        # the action table: rank thermometer of the cards, then the kind one-hot
        self._rank_cols, self._rank_thr = _thermometer(rank)
        self.move_dim = len(self._rank_cols)
        decisions = len(v.decisions) if whole else 0
        self.action_dim = self.move_dim + _KINDS + decisions
        moves = rules.action_space_array()
        counts = self._counts_of(moves)
        kinds = (moves >> np.uint64(56)).astype(np.int64)
        self.pass_id = len(moves)
        self.num_ids = len(moves) + 1 + decisions  # plays, PASS, the decisions (whole hands)
        self.decision_position = n if whole else -1
        table = np.zeros((self.num_ids, self.action_dim), dtype=np.float32)
        table[:self.pass_id, :self.move_dim] = counts[:, self._rank_cols] >= self._rank_thr
        table[np.arange(len(moves)), self.move_dim + kinds] = 1.0
        table[self.pass_id, self.move_dim + 20] = 1.0
        for k in range(decisions):
            table[self.pass_id + 1 + k, self.move_dim + _KINDS + k] = 1.0
        self.action_table = table
        self.move_table = np.ascontiguousarray(table[:, :self.move_dim])  # for the history (PASS: zeros)
        self.is_bomb = np.zeros(self.num_ids, dtype=bool)
        self.is_bomb[:self.pass_id] = np.isin(kinds, list(_BOMB_KINDS))
        self._landlord = layout["landlord"]

    @staticmethod
    def _counts_of(moves: npt.NDArray[np.uint64]) -> npt.NDArray[np.int8]:
        """15 rank counts of encoded moves (ranks 3..2 four bits each, then B and R two bits)."""
        m = moves.astype(np.uint64)
        out = np.empty((len(m), 15), dtype=np.int8)
        for r in range(13):
            out[:, r] = ((m >> np.uint64(4 * r)) & np.uint64(15)).astype(np.int8)
        out[:, 13] = ((m >> np.uint64(52)) & np.uint64(3)).astype(np.int8)
        out[:, 14] = ((m >> np.uint64(54)) & np.uint64(3)).astype(np.int8)
        return out

    def state(self, obs: npt.NDArray[np.int8]) -> npt.NDArray[np.float32]:
        """(rows, state_dim) float32 features of compact rows (rows, width)."""
        out = np.empty((len(obs), self.state_dim), dtype=np.float32)
        k = len(self._cols)
        np.greater_equal(obs[:, self._cols], self._thr, out=out[:, :k], casting="unsafe")
        if len(self._neg):
            np.less(obs[:, self._neg], 0, out=out[:, k:], casting="unsafe")
        return out

    def actions(self, ids: npt.NDArray[np.integer]) -> npt.NDArray[np.float32]:
        """(rows, action_dim) features of action ids (PASS = ``rules.pass_id``)."""
        return self.action_table[ids]

    def history(self, hist: npt.NDArray[np.integer]) -> npt.NDArray[np.float32]:
        """(rows, HISTORY // GROUP, GROUP * move_dim) features of histories (rows, HISTORY) of
        action ids, oldest first, -1 for none."""
        ids = np.where(hist < 0, self.pass_id, hist)  # none and PASS alike: zeros
        x = self.move_table[ids]
        return x.reshape(len(hist), HISTORY // GROUP, GROUP * self.move_dim)

    def position(self, obs: npt.NDArray[np.int8]) -> npt.NDArray[np.int64]:
        """Each row's observer's seat counted from the landlord (0 landlord, 1 the seat after it,
        ...): the index of the model that decides for it."""
        rel = np.argmax(obs[:, self._landlord], axis=1)  # landlord = observer + rel
        return (self.players - rel) % self.players


    def positions(self, obs: npt.NDArray[np.int8], decides: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
        """``position`` of each row, or ``decision_position`` where ``decides`` (the row's seat
        chooses among decision tokens: the auction, TWOP's 翻身 / 压迫). Whole hands only."""
        return np.where(decides, self.decision_position, self.position(obs))


_cache: Dict[Tuple[Rules, bool], Features] = {}


def features_for(rules: Rules, whole: bool = False) -> Features:
    """The (cached) ``Features`` of a rules value (``whole``: the whole-hand feature set)."""
    f = _cache.get((rules, whole))
    if f is None:
        f = _cache[(rules, whole)] = Features(rules, whole)
    return f
