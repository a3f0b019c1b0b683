"""A trained model as a file of plain arrays (numpy ``.npz``, read with ``allow_pickle=False``:
loading runs no code) and its record: the rules, the action space's and the encoder's
fingerprints, the network's shape. No torch here."""
from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Union

import numpy as np
import numpy.typing as npt

from ..core.rules import Rules
from ..core.errors import ArgumentTypeError, DdzError, shown
from .features import Features, action_space_fingerprint, encoder_fingerprint, features_for
from .nets import count_params, forward, forward_heads, heads_of, param_shapes

_controller: Any = None


def _one_blas_thread() -> Any:
    """A context in which numpy's BLAS runs on one thread (threadpoolctl, when installed): a
    decision's products are small, and spreading them over threads costs far more than it saves
    on a busy machine (measured 0.5 ms against 12 ms a decision)."""
    global _controller
    if _controller is None:
        try:
            from threadpoolctl import ThreadpoolController
            _controller = ThreadpoolController()
        except ImportError:
            _controller = False
    if _controller is False:
        return contextlib.nullcontext()
    return _controller.limit(limits=1, user_api="blas")


__all__ = ["ModelError", "NeuralModel", "MODEL_FORMAT", "STAKE_OPTIONS", "rules_record", "rules_from_record"]

MODEL_FORMAT = "ddz-neural-model"
MODEL_FORMAT_VERSION = 1
_META = "__meta__"


class ModelError(DdzError):
    """A model file that cannot be read, or that was trained for other rules, another action
    space or another encoder than this build of ddz has."""


#: Rule options a model need not share with a game to play it: they scale a hand's score or settle
#: coins (a room's stakes: TWOP's initial multiplier and coin-room factors, BENGBU4's point value),
#: or set the clock and matchmaking. The deal, the auction and the plays are the same under any of
#: their values, and so are the observation and the action space.
STAKE_OPTIONS = frozenset({
    "move_timeout_s", "timeout_policy", "match_stage2_after_s", "match_stage3_after_s",
    "twop_initial_multiplier", "twop_room_coefficient", "twop_coin_win_factor", "twop_max_win_factor",
    "bengbu_point_value",
})


def rules_record(rules: Rules) -> Dict[str, Any]:
    """A rules value as JSON-able data (rebuilt by ``rules_from_record``)."""
    return {"variant": rules.variant, "preset": rules.preset, "options": dict(rules.options)}


def rules_from_record(rec: Mapping[str, Any]) -> Rules:
    preset = rec["preset"]
    return Rules(rec["variant"], _preset=preset if preset != rec["variant"] else "", **rec["options"])


@dataclass
class NeuralModel:
    """The weights (``p{position}.{name}`` float32 arrays) and the record of a model. ``whole``
    (the record's ``"whole"``): a whole-hand model, whose last network (``p{players}``) scores
    the decisions (bids, TWOP's 翻身 / 压迫) on the whole-hand features; else a play-phase model."""

    rules: Rules
    net: Dict[str, Any]
    arrays: Dict[str, npt.NDArray[np.float32]] = field(repr=False)
    meta: Dict[str, Any] = field(default_factory=dict)

    @property
    def whole(self) -> bool:
        return bool(self.meta.get("whole", False))

    def __post_init__(self) -> None:
        self.features: Features = features_for(self.rules, self.whole)
        self.positions = self.rules.players + (1 if self.whole else 0)
        f = self.features
        shapes = param_shapes(self.net, f.state_dim, f.action_dim, 3 * f.move_dim)
        self._params = []
        for p in range(self.positions):
            params = {}
            for name, shape in shapes.items():
                a = self.arrays.get(f"p{p}.{name}")
                if a is None or tuple(a.shape) != tuple(shape):
                    raise ModelError(f"model array p{p}.{name} is {None if a is None else a.shape}, the network "
                                     f"{self.net.get('preset')} needs {shape}")
                params[name] = np.ascontiguousarray(a, dtype=np.float32)
            self._params.append(params)

    def plays(self, rules: Rules) -> bool:
        """Whether this model plays a game under ``rules``: the model's own rules, up to the
        ``STAKE_OPTIONS`` (a room's stakes and clock: the same hands, bids and plays)."""
        if rules is self.rules or rules == self.rules:
            return True
        if not isinstance(rules, Rules) or rules.variant != self.rules.variant:
            return False
        mine, theirs = dict(self.rules.options), dict(rules.options)
        return all(mine.get(k) == theirs.get(k) for k in set(mine) | set(theirs) if k not in STAKE_OPTIONS)

    def check_rules(self, rules: Rules) -> None:
        """Raises ``ModelError`` unless this model plays ``rules`` (``plays``)."""
        if not self.plays(rules):
            raise ModelError(f"this model plays {self.rules!r}, not {rules!r}")

    @property
    def num_params(self) -> int:
        f = self.features
        return self.positions * count_params(param_shapes(self.net, f.state_dim, f.action_dim, 3 * f.move_dim))

    @property
    def heads(self) -> int:
        """The network's outputs: 1, or 2 for a ``res`` network (the win value, then the score)."""
        return heads_of(self.net)

    def head_values(self, position: int, obs: npt.NDArray[np.int8], ids: npt.NDArray[np.integer],
                    history: Optional[npt.NDArray[np.integer]] = None) -> npt.NDArray[np.float32]:
        """Every head's output (actions, heads) for the action ids ``ids`` in one compact row."""
        f = self.features
        hist = f.history(history[None]) if self.net["arch"] == "lstm" and history is not None else None
        with _one_blas_thread():
            return forward_heads(self._params[position], self.net, f.state(obs[None]), f.actions(ids),
                                 np.zeros(len(ids), dtype=np.int64), hist)

    def q_values(self, position: int, obs: npt.NDArray[np.int8], ids: npt.NDArray[np.integer],
                 history: Optional[npt.NDArray[np.integer]] = None) -> npt.NDArray[np.float32]:
        """Q of each action id ``ids`` in one compact row ``obs`` (``history``: the last play ids,
        oldest first, -1 for none; the LSTM preset)."""
        f = self.features
        hist = f.history(history[None]) if self.net["arch"] == "lstm" and history is not None else None
        with _one_blas_thread():
            return forward(self._params[position], self.net, f.state(obs[None]), f.actions(ids),
                           np.zeros(len(ids), dtype=np.int64), hist)

    # ---- files ----
    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the model as ``.npz`` (plain arrays; the record as a JSON byte array)."""
        meta = dict(self.meta)
        meta.update({"format": MODEL_FORMAT, "format_version": MODEL_FORMAT_VERSION,
                     "rules": rules_record(self.rules), "net": self.net,
                     "action_space": action_space_fingerprint(self.rules),
                     "encoder": encoder_fingerprint(self.rules, self.whole), "whole": self.whole})
        blob = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)
        tmp = f"{os.fspath(path)}.tmp.npz"
        files: Dict[str, Any] = {_META: blob, **self.arrays}
        np.savez(tmp, **files)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Union[str, "os.PathLike[str]"]) -> "NeuralModel":
        """Reads a model file, checking its record against this build (``ModelError`` on a
        mismatch: other rules' action space or another encoder)."""
        if not isinstance(path, (str, os.PathLike)):
            raise ArgumentTypeError(f"a model path is a str or a path, not {shown(path)}")
        try:
            with np.load(path, allow_pickle=False) as z:
                files = {k: z[k] for k in z.files}
        except (OSError, ValueError) as e:
            raise ModelError(f"cannot read model {shown(os.fspath(path))}: {e}") from None
        if _META not in files:
            raise ModelError(f"{shown(os.fspath(path))} is not a ddz model (no record)")
        try:
            meta = json.loads(files.pop(_META).tobytes().decode())
        except (UnicodeDecodeError, ValueError) as e:
            raise ModelError(f"{shown(os.fspath(path))}: unreadable record ({e})") from None
        if meta.get("format") != MODEL_FORMAT or meta.get("format_version") != MODEL_FORMAT_VERSION:
            raise ModelError(f"{shown(os.fspath(path))} is format {meta.get('format')!r} version "
                             f"{meta.get('format_version')!r}; this ddz reads {MODEL_FORMAT!r} version "
                             f"{MODEL_FORMAT_VERSION}")
        try:
            rules = rules_from_record(meta["rules"])
        except (KeyError, TypeError, DdzError) as e:
            raise ModelError(f"{shown(os.fspath(path))}: its rules cannot be rebuilt ({e})") from None
        whole = bool(meta.get("whole", False))
        for what, now in (("action_space", action_space_fingerprint(rules)),
                          ("encoder", encoder_fingerprint(rules, whole))):
            if meta.get(what) != now:
                raise ModelError(f"{shown(os.fspath(path))} was trained with {what} {meta.get(what)!r} for "
                                 f"{rules!r}; this ddz has {now!r}: retrain the model for this build")
        return cls(rules=rules, net=meta["net"], arrays={k: v.astype(np.float32) for k, v in files.items()},
                   meta=meta)
