"""The Q networks' shapes and their forward pass in numpy (inference without torch).

A Q network scores (state, action) pairs. The first layer is split in parts that add up: the
state part ``s0`` (with the bias) and, for the LSTM preset, the history part ``h0`` over the
LSTM's last output are computed once per *state*; the action part ``a0`` once per legal
action; the sum goes through ReLU, the hidden layers ``l1 … lk`` and ``out``. This is the same
function as one dense layer over the concatenated (state, history, action) vector (DouZero's
shape), without repeating the state's work for each of its legal actions.

A network's arrays are named as in the torch modules of ``ddz.learn.torch_nets``; a model holds
one network per position (``p0.`` the landlord, ``p1.`` the seat after it, ...).
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

import numpy as np
import numpy.typing as npt

__all__ = ["PRESETS", "HEADS", "net_config", "param_shapes", "forward", "forward_heads", "acting_value",
           "heads_of", "count_params", "grow"]

#: Network presets: ``small`` the default (an MLP), ``douzero`` DouZero's shape (an LSTM of 128
#: over the last 15 plays, 3 to a step, and five 512-wide layers).
PRESETS: Mapping[str, Dict[str, Any]] = {
    "small": {"arch": "mlp", "hidden": [256, 256]},
    "douzero": {"arch": "lstm", "lstm": 128, "hidden": [512, 512, 512, 512, 512]},
    "res": {"arch": "res", "hidden": [384, 384, 384], "heads": ["wp", "score"], "score_weight": 0.25},
}

#: The returns a two-headed network (``res``) learns, in the order of its ``out`` rows.
HEADS = ("wp", "score")


def heads_of(cfg: Mapping[str, Any]) -> int:
    """How many outputs the network has (1, or 2 for the ``res`` preset's win and score heads)."""
    return len(cfg.get("heads", ["q"]))


def net_config(preset: str = "small", hidden: Optional[List[int]] = None) -> Dict[str, Any]:
    """A network configuration: a preset, its hidden widths optionally replaced."""
    from ..core.errors import ArgumentError
    if preset not in PRESETS:
        raise ArgumentError(f"unknown network preset {preset!r}: use one of {', '.join(PRESETS)}")
    cfg = {k: (list(v) if isinstance(v, list) else v) for k, v in PRESETS[preset].items()}
    cfg["preset"] = preset
    if hidden is not None:
        if not hidden or any(not isinstance(h, int) or h < 1 for h in hidden):
            raise ArgumentError(f"hidden must list positive layer widths, not {hidden!r}")
        cfg["hidden"] = list(hidden)
    if cfg["arch"] == "res" and len(set(cfg["hidden"])) != 1:
        raise ArgumentError(f"a residual network has one width throughout (its first layer, then two layers "
                            f"a block), not {cfg['hidden']!r}")
    return cfg


def param_shapes(cfg: Mapping[str, Any], state_dim: int, action_dim: int, group_dim: int) -> Dict[str, tuple]:
    """The arrays of one network, name -> shape (``group_dim``: one LSTM step's input)."""
    hidden = cfg["hidden"]
    shapes: Dict[str, tuple] = {"s0.weight": (hidden[0], state_dim), "s0.bias": (hidden[0],),
                                "a0.weight": (hidden[0], action_dim)}
    if cfg["arch"] == "lstm":
        h = cfg["lstm"]
        shapes.update({"lstm.weight_ih_l0": (4 * h, group_dim), "lstm.weight_hh_l0": (4 * h, h),
                       "lstm.bias_ih_l0": (4 * h,), "lstm.bias_hh_l0": (4 * h,), "h0.weight": (hidden[0], h)})
    if cfg["arch"] == "res":
        for k in range(1, len(hidden)):
            for j in "ab":
                shapes[f"b{k}{j}.weight"] = (hidden[k], hidden[k])
                shapes[f"b{k}{j}.bias"] = (hidden[k],)
    else:
        for k in range(1, len(hidden)):
            shapes[f"l{k}.weight"] = (hidden[k], hidden[k - 1])
            shapes[f"l{k}.bias"] = (hidden[k],)
    shapes["out.weight"] = (heads_of(cfg), hidden[-1])
    shapes["out.bias"] = (heads_of(cfg),)
    return shapes


def count_params(shapes: Mapping[str, tuple]) -> int:
    return int(sum(int(np.prod(s)) for s in shapes.values()))


def _sigmoid(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    return 0.5 * (np.tanh(0.5 * x) + 1.0)  # no overflow for large |x|


def _lstm_last(p: Mapping[str, npt.NDArray[np.float32]], x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The last output of a one-layer LSTM (torch's gate order i, f, g, o) over x (rows, steps, in)."""
    w_ih, w_hh = p["lstm.weight_ih_l0"], p["lstm.weight_hh_l0"]
    b = p["lstm.bias_ih_l0"] + p["lstm.bias_hh_l0"]
    n, steps, _ = x.shape
    hsz = w_hh.shape[1]
    h = np.zeros((n, hsz), dtype=np.float32)
    c = np.zeros((n, hsz), dtype=np.float32)
    for t in range(steps):
        g = x[:, t] @ w_ih.T + h @ w_hh.T + b
        i, f, gg, o = _sigmoid(g[:, :hsz]), _sigmoid(g[:, hsz:2 * hsz]), np.tanh(g[:, 2 * hsz:3 * hsz]), \
            _sigmoid(g[:, 3 * hsz:])
        c = f * c + i * gg
        h = o * np.tanh(c)
    return h


def forward_heads(p: Mapping[str, npt.NDArray[np.float32]], cfg: Mapping[str, Any], state: npt.NDArray[np.float32],
                  actions: npt.NDArray[np.float32], state_index: npt.NDArray[np.integer],
                  history: Optional[npt.NDArray[np.float32]] = None) -> npt.NDArray[np.float32]:
    """Every head's output (rows, heads) for action rows ``actions`` whose states are
    ``state[state_index]``."""
    hs = state @ p["s0.weight"].T + p["s0.bias"]
    if cfg["arch"] == "lstm":
        assert history is not None
        hs = hs + _lstm_last(p, history) @ p["h0.weight"].T
    x = np.maximum(hs[state_index] + actions @ p["a0.weight"].T, 0.0)
    for k in range(1, len(cfg["hidden"])):
        if cfg["arch"] == "res":
            h = np.maximum(x @ p[f"b{k}a.weight"].T + p[f"b{k}a.bias"], 0.0)
            x = np.maximum(x + h @ p[f"b{k}b.weight"].T + p[f"b{k}b.bias"], 0.0)
        else:
            x = np.maximum(x @ p[f"l{k}.weight"].T + p[f"l{k}.bias"], 0.0)
    return x @ p["out.weight"].T + p["out.bias"]


def acting_value(out: Any, cfg: Mapping[str, Any]) -> Any:
    """The value an action is chosen by, from every head's output (rows, heads; numpy or torch):
    the only head, or ``win + score_weight * score``."""
    if heads_of(cfg) == 1:
        return out[:, 0]
    return out[:, 0] + float(cfg["score_weight"]) * out[:, 1]


def forward(p: Mapping[str, npt.NDArray[np.float32]], cfg: Mapping[str, Any], state: npt.NDArray[np.float32],
            actions: npt.NDArray[np.float32], state_index: npt.NDArray[np.integer],
            history: Optional[npt.NDArray[np.float32]] = None) -> npt.NDArray[np.float32]:
    """Q values (rows,) of action rows ``actions`` whose states are ``state[state_index]``: the
    value each action is chosen by (``acting_value``)."""
    return acting_value(forward_heads(p, cfg, state, actions, state_index, history), cfg)


def grow(p: Mapping[str, npt.NDArray[np.float32]], cfg: Mapping[str, Any], hidden: List[int],
         rng: np.random.Generator) -> Dict[str, npt.NDArray[np.float32]]:
    """One network's arrays grown to the hidden widths ``hidden`` computing the same function
    (a warm start for a larger network from a trained smaller one).

    ``hidden`` must be as long as the network's or longer, and each of its first widths at least
    the old one. A widened layer's new units get small random incoming weights and zero outgoing
    weights (so they change nothing until trained); an added layer starts as the identity on the
    units before it (exact after a ReLU, whose outputs are non-negative), the out layer reading
    only those."""
    from ..core.errors import ArgumentError
    if cfg["arch"] == "res":
        raise ArgumentError("a residual network is not grown: train it from the start (or --init one of its size)")
    old: List[int] = list(cfg["hidden"])
    if len(hidden) < len(old) or any(n < o for n, o in zip(hidden, old)):
        raise ArgumentError(f"cannot grow hidden widths {old} to {hidden}: each old layer must keep its "
                            f"width or widen, and layers may only be added")
    q = {k: np.array(v, dtype=np.float32, copy=True) for k, v in p.items()}

    def rows(w: npt.NDArray[np.float32], n: int, fan_in: int) -> npt.NDArray[np.float32]:
        """``w`` with rows added up to ``n``, drawn as torch's default Linear init would draw them."""
        extra = n - w.shape[0]
        if extra <= 0:
            return w
        bound = 1.0 / np.sqrt(max(fan_in, 1))
        shape = (extra,) + w.shape[1:]
        return np.concatenate([w, rng.uniform(-bound, bound, shape).astype(np.float32)])

    def cols(w: npt.NDArray[np.float32], n: int) -> npt.NDArray[np.float32]:
        """``w`` with zero columns added up to ``n`` inputs."""
        return np.concatenate([w, np.zeros((w.shape[0], n - w.shape[1]), np.float32)], axis=1)

    fan0 = q["s0.weight"].shape[1] + q["a0.weight"].shape[1]
    q["s0.weight"] = rows(q["s0.weight"], hidden[0], fan0)
    q["s0.bias"] = rows(q["s0.bias"], hidden[0], fan0)
    q["a0.weight"] = rows(q["a0.weight"], hidden[0], fan0)
    if "h0.weight" in q:
        q["h0.weight"] = rows(q["h0.weight"], hidden[0], fan0)
    width = hidden[0]
    for k in range(1, len(hidden)):
        if k < len(old):
            w = cols(q[f"l{k}.weight"], width)
            q[f"l{k}.weight"] = rows(w, hidden[k], width)
            q[f"l{k}.bias"] = rows(q[f"l{k}.bias"], hidden[k], width)
        else:  # a new layer: the identity on the previous layer's units, new units zero
            w = np.zeros((hidden[k], width), np.float32)
            w[np.arange(min(width, hidden[k])), np.arange(min(width, hidden[k]))] = 1.0
            if hidden[k] < width:
                raise ArgumentError(f"an added layer must be at least as wide as the one before it ({width})")
            q[f"l{k}.weight"] = w
            q[f"l{k}.bias"] = np.zeros(hidden[k], np.float32)
        width = hidden[k]
    q["out.weight"] = cols(q["out.weight"], width)
    return q
