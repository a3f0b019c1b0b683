"""Observation tensors for learning agents, written in C++ (docs/encodings.md, "Observation
tensors").

* ``compact(game_or_play_state, seat)``: the compact int8 encoding of what ``seat`` may see, in
  every variant; ``compact_batch`` for many states, ``compact_arrays`` for play logs given as
  arrays; ``compact_layout(rules)`` names its blocks (offset, width).
* ``douzero(play_state)``: DouZero's features for the CLASSIC3 play phase (the dict
  ``douzero.env.env.get_obs`` returns); ``douzero_batch`` / ``douzero_arrays`` write the
  factored int8 layout (the state once, the history once, 54 columns per legal action) and
  ``DouZeroBatch.expand`` / ``.obs(i)`` give DouZero's float32 arrays on request.

A state is read from its play log (the hands at the start of play, the landlord, the bomb
limits and the actions), replayed and checked in C++ with the GIL released; an encoding never
reads a card the seat may not see.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

from .. import _core
from .._core import Cards, PlayState
from ..core.rules import Rules
from ..core.args import int_arg, is_int
from ..core.errors import ArgumentError, ArgumentTypeError, shown
from ..core.variants import VARIANT
from ..hand.game import Game

__all__ = ["compact", "compact_batch", "compact_arrays", "compact_layout", "FACTOR_SLOTS", "AUCTION_STEPS",
           "douzero", "douzero_batch", "douzero_arrays", "DouZeroBatch", "DOUZERO_POSITIONS", "play_log"]

#: The FACTORS block, per variant: (name in Game.factors, how the value is coded). ``log2``: the
#: exponent of a doubling factor; ``flag``: 1 when the factor applies (TWOP show-start ×5, BENGBU4
#: open play); ``int``: the value (the BENGBU4 base bid). Unused slots stay 0.
FACTOR_SLOTS: Mapping[str, Tuple[Tuple[str, str], ...]] = {
    "classic": (("rob", "log2"), ("show", "log2"), ("kitty", "log2"), ("bomb", "log2"), ("spring", "log2")),
    "two_player": (("show_start", "flag"), ("fanshen", "log2"), ("bomb", "log2"), ("spring", "log2")),
    "bengbu": (("base", "int"), ("open", "flag")),
}
#: The AUCTION block keeps the last this many decisions of the current deal.
AUCTION_STEPS = 8

_Layout = Dict[str, slice]
_layouts: Dict[str, _Layout] = {}


def _rules_of(obj: Any) -> Any:
    """A state's rules: its ddz.Rules, or the core rules value of a PlayState that outlived them."""
    return obj.rules


def _variant_of(obj: Any) -> str:
    """The variant of a Game or a PlayState (the number of seats tells it)."""
    if isinstance(obj, PlayState):
        return next(v.name for v in VARIANT.values() if v.players == obj.num_players)
    return obj.rules.variant


def _same_rules(a: Any, b: Any) -> bool:
    return a is b or (isinstance(a, Rules) and a == b)


def compact_layout(rules: Rules) -> Dict[str, slice]:
    """The compact encoding's blocks for ``rules``' variant: name -> slice of an encoded row
    (``row[layout["hand"]]`` is the observer's hand as 15 rank counts). Per-seat blocks hold one
    row per seat relative to the observer (the observer, the next seat, ...)."""
    if not isinstance(rules, Rules):
        raise ArgumentTypeError(f"rules must be a ddz.Rules, not {type(rules).__name__}")
    return dict(_layout(rules.variant))


def _layout(variant: str) -> _Layout:
    if variant not in _layouts:
        blocks = _core._compact_layout(Rules(variant), len(VARIANT[variant].decisions))
        _layouts[variant] = {name: slice(off, off + width) for name, off, width in blocks}
    return _layouts[variant]


def play_log(state: PlayState) -> Tuple[List[int], int, List[int], List[int]]:
    """A play state's log: (start words per seat, landlord, bomb limits with 255 = unlimited,
    encoded actions), the arrays ``compact_arrays`` and ``douzero_arrays`` replay."""
    if not isinstance(state, PlayState):
        raise ArgumentTypeError(f"expected a ddz.PlayState, not {type(state).__name__}")
    starts, landlords, limits, actions, _ = _core._play_logs([state])
    return [int(w) for w in starts[0]], int(landlords[0]), [int(v) for v in limits[0]], [int(a) for a in actions]


def _is_game(obj: Any) -> bool:
    return isinstance(obj, Game)


class _Rows:
    """Column arrays of many states for the core (one row per state)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.starts: List[int] = []
        self.landlords: List[int] = []
        self.limits: List[int] = []
        self.actions: List[int] = []
        self.offsets: List[int] = [0]
        self.seats: List[int] = []
        self.shown: List[int] = []
        self.kitty: List[int] = []

    def add_play(self, ps: PlayState, seat: int, shown_mask: int = 0, kitty: int = 0) -> None:
        words, landlord, limits, actions = play_log(ps)
        self.starts += words
        self.landlords.append(landlord)
        self.limits += limits
        self.actions += actions
        self.offsets.append(len(self.actions))
        self.seats.append(seat)
        self.shown.append(shown_mask)
        self.kitty.append(kitty)

    def run(self, rules: Any, variant: str, out: Optional[npt.NDArray[np.int8]]) -> npt.NDArray[np.int8]:
        n = self.n
        return _core._compact(
            rules, len(VARIANT[variant].decisions),
            np.array(self.starts, dtype=np.uint64).reshape(-1, n), np.array(self.landlords, dtype=np.int64),
            np.array(self.limits, dtype=np.int64).reshape(-1, n) if VARIANT[variant].bomb_limits else None,
            np.array(self.actions, dtype=np.uint64), np.array(self.offsets, dtype=np.int64),
            np.array(self.seats, dtype=np.int64), np.array(self.shown, dtype=np.int64),
            np.array(self.kitty, dtype=np.uint64), out)


def _game_row(g: Any, seat: int, out: Optional[npt.NDArray[np.int8]]) -> npt.NDArray[np.int8]:
    """One Game's row, written by the core from the whole hand (``Game.encode``)."""
    return g.encode(seat, out)


def _observation(g: Any, seat: int) -> Dict[str, npt.NDArray[np.int8]]:
    """``{"observation": compact(g, seat), "action_mask": int8 mask of the seat's legal action
    ids}`` in one core call (``Game.observation_arrays``): the environments' hot path. The mask is
    all zeros when another seat is to act."""
    return g.observation_arrays(seat)


def _seat(seat: Any, n: int) -> int:
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)):
        raise ArgumentTypeError(f"a seat is an int, not {type(seat).__name__}")
    if not 0 <= int(seat) < n:
        raise ArgumentError(f"no seat {shown(seat)}: seats are 0..{n - 1}")
    return int(seat)


def compact(state: Any, seat: int) -> npt.NDArray[np.int8]:
    """The compact encoding (int8, ``compact_layout(rules)``) of what ``seat`` may see of a
    ``ddz.Game`` (any phase: the auction of the current deal, the factors, shown hands and the
    kitty once revealed, as in ``observation(seat)``) or of a ``ddz.PlayState`` (the play phase
    only: nothing shown, kitty unknown, the Game blocks zero)."""
    if _is_game(state):  # one row straight from the core: the hot path of the environments
        return _game_row(state, _seat(seat, state.rules.players), None)
    return compact_batch([state], [seat])[0]


def compact_batch(states: Sequence[Any], seats: Sequence[int],
                  out: Optional[npt.NDArray[np.int8]] = None) -> npt.NDArray[np.int8]:
    """``compact`` of many states of one rules value, one row each, into ``out`` (an int8 array
    of shape (len(states), width), reused across calls) or a new array."""
    if isinstance(states, (str, bytes)) or not isinstance(states, Sequence):
        raise ArgumentTypeError(f"states must be a sequence of ddz.Game or ddz.PlayState, not {type(states).__name__}")
    if isinstance(seats, (str, bytes)) or not isinstance(seats, (Sequence, np.ndarray)) or \
            (isinstance(seats, np.ndarray) and seats.ndim != 1):
        raise ArgumentTypeError(f"seats must be a sequence of ints, one per state, not {shown(seats)}")
    if len(seats) != len(states):
        raise ArgumentError(f"give one seat per state: {len(states)} states, {len(seats)} seats")
    if not states:
        raise ArgumentError("states is empty")
    for i, st in enumerate(states):
        if not isinstance(st, PlayState) and not _is_game(st):
            raise ArgumentTypeError(f"states[{i}] is a {type(st).__name__}, not a ddz.Game or ddz.PlayState")
    rules, variant = _rules_of(states[0]), _variant_of(states[0])
    n = VARIANT[variant].players
    for i, st in enumerate(states):
        if not _same_rules(_rules_of(st), rules):
            raise ArgumentError(f"states[{i}] has rules {st.rules!r}, states[0] {rules!r}: "
                                "encode one rules value at once")
    if all(isinstance(st, PlayState) for st in states):  # the logs straight from the core
        starts, landlords, limits, actions, offsets = _core._play_logs(states)
        return _core._compact(rules, len(VARIANT[variant].decisions), starts, landlords,
                              limits if VARIANT[variant].bomb_limits else None, actions, offsets,
                              np.array([_seat(s, n) for s in seats], dtype=np.int64), None, None, out)
    width = _layout(variant)["auction"].stop
    if out is None:
        out = np.empty((len(states), width), dtype=np.int8)
    elif not isinstance(out, np.ndarray) or out.dtype != np.int8:
        raise ArgumentTypeError(f"out must be a numpy int8 array, not {shown(out)}")
    elif out.shape != (len(states), width) or not out.flags.c_contiguous or not out.flags.writeable:
        raise ArgumentError(f"out must be a C-contiguous writeable array of shape ({len(states)}, {width}), "
                            f"not {out.shape}")
    for i, (st, seat) in enumerate(zip(states, seats)):
        seat = _seat(seat, n)
        if _is_game(st):
            _game_row(st, seat, out[i])
        else:
            rows = _Rows(n)
            rows.add_play(st, seat)
            rows.run(rules, variant, out[i:i + 1])
    return out


def compact_arrays(rules: Rules, starts: npt.NDArray[Any], landlords: npt.NDArray[Any], actions: npt.NDArray[Any],
                   offsets: npt.NDArray[Any], seats: npt.NDArray[Any], *,
                   bomb_limits: Optional[npt.NDArray[Any]] = None,
                   shown: Optional[npt.NDArray[Any]] = None, kitty: Optional[npt.NDArray[Any]] = None,
                   out: Optional[npt.NDArray[np.int8]] = None) -> npt.NDArray[np.int8]:
    """The compact encoding of play logs given as arrays (no Python object per state):
    ``starts`` (states, seats) rank-count words at the start of play (the landlord's with the
    kitty), ``landlords`` (states,), ``actions`` every log's encoded moves end to end with
    ``offsets`` (states + 1,) (state i replays ``actions[offsets[i]:offsets[i+1]]``), ``seats``
    (states,) the observers; optional ``bomb_limits`` (states, seats) (BENGBU4; 255 = unlimited),
    ``shown`` (states,) bit masks of face-up hands, ``kitty`` (states,) words (0 = not revealed).
    Each log is replayed and checked (an action that does not replay raises IllegalAction naming
    the state)."""
    return _core._compact(rules, len(VARIANT[rules.variant].decisions), starts, landlords, bomb_limits, actions,
                          offsets, seats, shown, kitty, out)


# ---- DouZero ------------------------------------------------------------------------------

#: DouZero's position names by the ``position`` codes of a DouZeroBatch.
DOUZERO_POSITIONS = ("landlord", "landlord_down", "landlord_up")
_DZ_CARD = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30]  # DouZero's card ints by rank value
_DZ_RANK = {c: r for r, c in enumerate(_DZ_CARD)}
_STATE_WIDTH = (319, 430, 430)


def _dz_list(word: int) -> List[int]:
    out: List[int] = []
    for r in range(15):
        out += [_DZ_CARD[r]] * ((word >> (4 * r)) & 15)
    return out


def _enc_word(m: int) -> int:
    """The rank-count word of an encoded move's cards (docs/encodings.md, "Encoded moves")."""
    return (m & ((1 << 52) - 1)) | (((m >> 52) & 3) << 52) | (((m >> 54) & 3) << 56)


def _dz_word(cards: Sequence[int]) -> int:
    if isinstance(cards, (str, bytes)) or not isinstance(cards, Sequence):
        raise ArgumentTypeError(f"a DouZero action must be a list of card ints, not {shown(cards)}")
    w = 0
    for c in cards:
        if not is_int(c):
            raise ArgumentTypeError(f"a DouZero card must be an int (3..14, 17, 20, 30), not {shown(c)}")
        c = int(c)
        if c not in _DZ_RANK:
            raise ArgumentError(f"{shown(c)} is not a DouZero card (3..14, 17, 20, 30)")
        w += 1 << (4 * _DZ_RANK[c])
    return w


@dataclass
class DouZeroBatch:
    """DouZero's features of many states in the factored int8 layout. State i's position is
    ``position[i]`` (0 landlord, 1 landlord_down, 2 landlord_up); its ``x_no_action`` is
    ``x_no_action[i, :319]`` (landlord) or ``[i, :430]`` (farmers); its history ``z[i]``
    (5 × 162); its legal actions are rows ``action_offsets[i]:action_offsets[i+1]`` of
    ``actions`` (54 columns each) and, in ddz's order, of ``moves`` (encoded) and ``legal_ids``
    (action ids; both empty when DouZero's own legal lists were given)."""

    position: npt.NDArray[np.int8]
    x_no_action: npt.NDArray[np.int8]
    z: npt.NDArray[np.int8]
    action_offsets: npt.NDArray[np.int64]
    actions: npt.NDArray[np.int8]
    moves: npt.NDArray[np.uint64]
    legal_ids: npt.NDArray[np.int32]

    def __len__(self) -> int:
        return len(self.position)

    def expand(self, position: int, out_x: Optional[npt.NDArray[np.float32]] = None,
               out_z: Optional[npt.NDArray[np.float32]] = None
               ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """DouZero's ``x_batch`` and ``z_batch`` (float32) of every legal action of every state of
        one position (0, 1, 2), stacked in state order: shapes (rows, 373 or 484) and (rows, 5, 162);
        written into ``out_x`` / ``out_z`` when given (exact shapes)."""
        position = int_arg(position, "position", 0, 2)
        return _core._douzero_expand(self.x_no_action, self.z, self.position, self.action_offsets, self.actions,
                                     position, out_x, out_z)

    def obs(self, i: int, legal_actions: Optional[List[List[int]]] = None) -> Dict[str, Any]:
        """State i as the dict ``douzero.env.env.get_obs`` returns (``legal_actions`` in DouZero's
        card lists: those given, or built from ``moves``)."""
        p = int(self.position[i])
        a, b = int(self.action_offsets[i]), int(self.action_offsets[i + 1])
        x = self.x_no_action[i, :_STATE_WIDTH[p]]
        acts = self.actions[a:b]
        x_batch = np.hstack([np.repeat(x[None, :], b - a, axis=0), acts]).astype(np.float32)
        z = self.z[i]
        if legal_actions is None:
            legal_actions = [[] if int(m) >> 56 == _core.Kind.PASS else _dz_list(_enc_word(int(m)))
                             for m in self.moves[a:b]]
        return {"position": DOUZERO_POSITIONS[p], "x_batch": x_batch,
                "z_batch": np.repeat(z[None], b - a, axis=0).astype(np.float32),
                "legal_actions": legal_actions, "x_no_action": x.copy(), "z": z.copy()}


def douzero_arrays(rules: Rules, starts: npt.NDArray[Any], landlords: npt.NDArray[Any], actions: npt.NDArray[Any],
                   offsets: npt.NDArray[Any], legal: Optional[npt.NDArray[Any]] = None,
                   legal_offsets: Optional[npt.NDArray[Any]] = None, *,
                   out_x: Optional[npt.NDArray[np.int8]] = None, out_z: Optional[npt.NDArray[np.int8]] = None,
                   out_actions: Optional[npt.NDArray[np.int8]] = None) -> DouZeroBatch:
    """DouZero's features of play logs given as arrays (as ``compact_arrays``; CLASSIC3, the
    seat to act observes). ``legal`` (rank-count words, 0 = pass) with ``legal_offsets`` gives
    each state's legal actions in another order (DouZero's); otherwise ddz's legal moves.
    Caller-owned int8 buffers, reused across calls: ``out_x`` (states, 430), ``out_z``
    (states, 5, 162) and ``out_actions`` (rows, 54), of which a view is used when it has rows
    enough (else a fresh array)."""
    d = _core._douzero(rules, starts, landlords, actions, offsets, legal, legal_offsets, out_x, out_z, out_actions)
    empty_m, empty_i = np.zeros(0, np.uint64), np.zeros(0, np.int32)
    return DouZeroBatch(d["position"], d["x_no_action"], d["z"], d["action_offsets"], d["actions"],
                        d.get("moves", empty_m), d.get("legal_ids", empty_i))


def douzero_batch(states: Sequence[PlayState],
                  legal_actions: Optional[Sequence[Sequence[Sequence[int]]]] = None) -> DouZeroBatch:
    """DouZero's features of many CLASSIC3 play states (the seat to act observes each);
    ``legal_actions``: per state DouZero's legal list (lists of DouZero card ints) to encode in
    that order instead of ddz's legal moves."""
    if isinstance(states, (str, bytes)) or not isinstance(states, Sequence) or not states:
        raise ArgumentTypeError("states must be a non-empty sequence of ddz.PlayState")
    if not all(isinstance(st, PlayState) for st in states):
        raise ArgumentTypeError("states must be a non-empty sequence of ddz.PlayState")
    rules = _rules_of(states[0])
    for i, st in enumerate(states):
        if not _same_rules(_rules_of(st), rules):
            raise ArgumentError(f"states[{i}] has rules {st.rules!r}, states[0] {rules!r}")
    starts, landlords, _, actions, offsets = _core._play_logs(states)
    legal = legal_off = None
    if legal_actions is not None:
        if isinstance(legal_actions, (str, bytes)) or not isinstance(legal_actions, Sequence) or \
                not all(isinstance(x, Sequence) and not isinstance(x, (str, bytes)) for x in legal_actions):
            raise ArgumentTypeError("legal_actions must hold one list of DouZero actions (card-int lists) per state")
        if len(legal_actions) != len(states):
            raise ArgumentError(f"give one legal list per state: {len(states)} states, {len(legal_actions)} lists")
        for i, lst in enumerate(legal_actions):
            if not lst:  # a state to act in has at least one action (PASS, [], when nothing else)
                raise ArgumentError(f"legal_actions[{i}] is empty: a state to act in has at least one action")
        words_l = [_dz_word(m) for lst in legal_actions for m in lst]
        legal = np.array(words_l, dtype=np.uint64)
        legal_off = np.cumsum([0] + [len(lst) for lst in legal_actions]).astype(np.int64)
    return douzero_arrays(rules, starts, landlords, actions, offsets, legal, legal_off)


def douzero(state: PlayState, legal_actions: Optional[List[List[int]]] = None) -> Dict[str, Any]:
    """DouZero's observation of the seat to act of a CLASSIC3 play state: the dict
    ``douzero.env.env.get_obs`` returns (``position``, ``x_batch`` float32 (k, 373 | 484),
    ``z_batch`` float32 (k, 5, 162), ``legal_actions`` as DouZero card lists, ``x_no_action`` int8,
    ``z`` int8 (5, 162)). The rows follow ``legal_actions`` when given (DouZero's own list, e.g.
    an infoset's), else ddz's legal moves (PASS last, as ``[]``)."""
    b = douzero_batch([state], None if legal_actions is None else [legal_actions])
    return b.obs(0, legal_actions)
