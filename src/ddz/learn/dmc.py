"""Deep Monte-Carlo training (DouZero's algorithm, on ddz's vector env) of whole hands, the
auction included (``whole=True``, the default), or of the play phase alone (``whole=False``).

Each decision of a hand is a *frame*: (the seat's compact observation, the action it took, the
recent plays). When the hand ends, every frame of it gets the Monte-Carlo return of its seat
(``wp``: +1 its side won / -1 lost, 0 in a hand without a winner; ``adp``: that times 2 to the
bomb-class plays of the hand; ``score``: the seat's score, ``VectorEnv``'s reward: whole hands'
scores as the variant scores them over its ``REWARD_SCALE``, or the play phase's score), and the
Q network of the frame's *position* is regressed on it (mean squared error): in the play phase
0 the landlord, 1 the seat after it, ... (CLASSIC3's landlord, landlord_down, landlord_up); in
whole hands one more network, ``players``, scores the decisions (the bids, grabs, shows, 明/暗打,
TWOP's 明牌开始 and 翻身 / 压迫) from the same returns, on features that include the auction and
the factors (``ddz.learn.features``, ``whole=True``). Actors choose ε-greedily by the current
networks.

The shape that makes it fast: an actor (``ddz.learn.actor``) steps ``tables`` tables of a
``ddz.VectorEnv`` at once,
builds the features of every table's state and every legal action in numpy from the compact
encoding and the action-id table (``ddz.learn.features``), and scores all of them in one batched
forward pass per position (the state's part of the first layer once per table, not once per
action); finished hands' frames go to fixed-shape per-position ring buffers which the learner
reads in batches of ``batch_size``.

The learner's loop (``Trainer._run``) is written once, over a *source* of frames
(``FrameSource``); each way of acting (``TrainConfig.mode``) is a short sibling module:
``act_single`` (one thread: act, then learn, in turn; with the same seed a run gives the same
weights bit for bit, and a run resumed from its checkpoint gives the weights of the uninterrupted
run), ``act_threads`` (``actors`` actor threads filling the learner's rings; torch and the env
release the GIL), ``act_processes`` (``actors`` forked processes reading the learner's networks
from shared memory and sending their frames through a queue; every core) and ``act_ray``
(``actors`` Ray actors, on this machine or a cluster). Only ``single`` is reproducible. ``device``
places the learner's networks (``"cpu"``, ``"cuda"``, ``"auto"``: a GPU where torch sees one);
actors act on the CPU except in ``single`` mode, which acts with the learner's networks. The
options are ``TrainConfig``'s (``ddz.learn.config``), the learning rate and exploration over the
run ``ddz.learn.schedule``'s.

A run directory holds ``config.json``, ``checkpoint.pt`` (the networks, the optimisers, the
counters, the buffers), ``model.npz`` (the latest networks for ``NeuralBot``, no torch needed)
and ``log.csv``; ``curve.png`` when matplotlib is installed.
"""
from __future__ import annotations

import csv
import json
import math
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Protocol, TextIO, Tuple, cast

import numpy as np
import numpy.typing as npt
import torch

from ..search import bots as _bots
from ..core.rules import Rules
from ..core.errors import ArgumentError, shown
from ..search.evaluate import evaluate
from .bot import NeuralBot
from .features import GROUP, HISTORY, features_for
from .model import NeuralModel, rules_record
from .nets import grow, heads_of, net_config, param_shapes
from .config import MODES, OBJECTIVES, TrainConfig, mix_seed
from .torch_nets import QModel, QNet
from .actor import Actor

__all__ = ["TrainConfig", "Trainer", "OBJECTIVES", "MODES"]

#: A two-headed network's loss: the win head's mean squared error plus this times the score
#: head's. Scores spread far wider than ±1 (robs, shows, bombs and springs multiply them; early
#: self-play robs at random), and unweighted their errors would drown the win head's in the
#: shared layers. Its targets are clipped to ±``actor.SCORE_CLIP`` (in REWARD_SCALE units, a plain
#: landlord win being 1), so a rare hand of huge multipliers moves the network no more than one
#: of 16.
SCORE_LOSS_WEIGHT = 0.1
CONFIG_FILE, CHECKPOINT_FILE, MODEL_FILE, LOG_FILE, CURVE_FILE = (
    "config.json", "checkpoint.pt", "model.npz", "log.csv", "curve.png")



class FrameBuffer:
    """Fixed-shape ring buffers of finished frames, one per position: the compact row (int8), the
    action id, the history ids (int16) and the return. ``put`` blocks (threads mode) while a
    position's ring is full; ``take`` returns the oldest ``n`` frames of a position."""

    def __init__(self, positions: int, capacity: int, width: int, heads: int = 1) -> None:
        self.capacity = capacity
        self.obs = np.zeros((positions, capacity, width), dtype=np.int8)
        self.act = np.zeros((positions, capacity), dtype=np.int32)
        self.hist = np.zeros((positions, capacity, HISTORY), dtype=np.int16)
        # one return a frame, or one a head (a two-headed network: the win, then the score)
        self.ret = np.zeros((positions, capacity) + ((heads,) if heads > 1 else ()), dtype=np.float32)
        self.head = [0] * positions   # the oldest frame
        self.size = [0] * positions
        self.cond = threading.Condition()
        self.closed = False

    def put(self, p: int, obs: npt.NDArray[np.int8], act: npt.NDArray[Any], hist: npt.NDArray[Any],
            ret: npt.NDArray[Any], block: bool = False) -> None:
        n, i = len(act), 0
        while i < n:
            with self.cond:
                while block and self.size[p] == self.capacity and not self.closed:
                    self.cond.wait(0.1)
                if self.closed:
                    return
                k = min(n - i, self.capacity - self.size[p])
                if k == 0:
                    raise ArgumentError("the frame buffer overflowed: raise buffer_frames")
                at = (self.head[p] + self.size[p] + np.arange(k)) % self.capacity
                self.obs[p, at] = obs[i:i + k]
                self.act[p, at] = act[i:i + k]
                self.hist[p, at] = hist[i:i + k]
                self.ret[p, at] = ret[i:i + k]
                self.size[p] += k
                self.cond.notify_all()
            i += k

    def take(self, p: int, n: int) -> Tuple[npt.NDArray[np.int8], npt.NDArray[np.int32], npt.NDArray[np.int16],
                                            npt.NDArray[np.float32]]:
        with self.cond:
            at = (self.head[p] + np.arange(n)) % self.capacity
            out = self.obs[p, at], self.act[p, at], self.hist[p, at], self.ret[p, at]
            self.head[p] = (self.head[p] + n) % self.capacity
            self.size[p] -= n
            self.cond.notify_all()
        return out

    def ready(self, n: int) -> List[int]:
        with self.cond:
            return [p for p, s in enumerate(self.size) if s >= n]

    def state(self) -> Dict[str, torch.Tensor]:
        """The held frames, oldest first, for a checkpoint."""
        out: Dict[str, torch.Tensor] = {}
        for p in range(len(self.size)):
            at = (self.head[p] + np.arange(self.size[p])) % self.capacity
            out[f"obs{p}"] = torch.from_numpy(self.obs[p, at])
            out[f"act{p}"] = torch.from_numpy(self.act[p, at])
            out[f"hist{p}"] = torch.from_numpy(self.hist[p, at])
            out[f"ret{p}"] = torch.from_numpy(self.ret[p, at])
        return out

    def load(self, state: Dict[str, torch.Tensor]) -> None:
        for p in range(len(self.size)):
            self.head[p] = self.size[p] = 0
            self.put(p, state[f"obs{p}"].numpy(), state[f"act{p}"].numpy(), state[f"hist{p}"].numpy(),
                     state[f"ret{p}"].numpy())


def _hms(seconds: float) -> str:
    """Seconds as H:MM:SS."""
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _device(name: str) -> "torch.device":
    """The learner's device: ``auto`` is the first GPU torch sees, else the CPU; asking for a GPU
    torch does not see is an ``ArgumentError``."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ArgumentError(f"device {name!r}: torch sees no CUDA device here (use cpu or auto)")
    return torch.device(name)


@dataclass
class _Stats:
    losses: Dict[int, List[float]] = field(default_factory=dict)

    def add(self, p: int, loss: float) -> None:
        self.losses.setdefault(p, []).append(loss)

    def means(self, positions: int) -> List[float]:
        return [float(np.mean(self.losses[p])) if self.losses.get(p) else float("nan") for p in range(positions)]


class Trainer:
    """A training run (see the module docstring). ``out``: the run directory (None: nothing is
    written). ``resume=True`` continues the run in ``out`` from its checkpoint (its config.json
    wins over ``config``)."""

    def __init__(self, config: Optional[TrainConfig] = None, out: Optional[str] = None, *,
                 resume: bool = False) -> None:
        self.out = out
        ckpt = None
        if resume:
            if out is None or not os.path.exists(os.path.join(out, CHECKPOINT_FILE)):
                raise ArgumentError(f"nothing to resume: no {CHECKPOINT_FILE} in {shown(out)}")
            with open(os.path.join(out, CONFIG_FILE)) as f:
                config = TrainConfig.from_dict(json.load(f))
            ckpt = torch.load(os.path.join(out, CHECKPOINT_FILE), weights_only=True, map_location="cpu")
        self.config = cfg = (config or TrainConfig()).check()
        # One intra-op thread: the order of every float sum is then fixed, and the CPU kernels used
        # here (linear, LSTM, Adam, RMSprop) are deterministic (the tests run a seed twice).
        # torch.use_deterministic_algorithms is not called: it imports torch's compiler (15 s).
        torch.set_num_threads(1)
        self.rules = Rules.named(cfg.variant)
        self.whole = cfg.whole
        self.feats = features_for(self.rules, self.whole)
        self.net = net_config(cfg.net, cfg.hidden)
        self.lstm = self.net["arch"] == "lstm"
        self.positions = self.rules.players + (1 if self.whole else 0)
        torch.manual_seed(mix_seed(cfg.seed, 1) % 2**63)
        self.device = _device(cfg.device)
        self.model = self.new_model().to(self.device)
        self.optims = [self._optimizer(net.parameters()) for net in self.model.nets]
        self.heads = heads_of(self.net)
        self.buffer = FrameBuffer(self.positions, cfg.buffer_frames, self.feats.width, self.heads)
        self.frames = 0
        self.updates = 0
        self.segment = 0
        self.train_seconds = 0.0
        self.cpu_seconds = 0.0  # this process's CPU time while training (other jobs inflate it least)
        self.last_eval: Dict[str, float] = {}
        self.recent_loss: Dict[int, float] = {}
        self.next_checkpoint = cfg.checkpoint_every
        self.next_eval = cfg.eval_every if cfg.eval_every and cfg.eval_games else math.inf
        self.last_eval_frames = -1
        self.init_rules: Optional[Dict[str, Any]] = None  # the rules of the --init model, when others
        self.init_frames = 0  # the frames of the --init model (trained before this run's seconds)
        self.stop_requested = threading.Event()  # request_stop: end train() at the next step, saved
        self._cpu_budget = math.inf              # train(cpu_seconds=...): the run's CPU time in all
        self._cpu_mark = 0.0                     # the process_time() up to which cpu_seconds counts
        if ckpt is not None:
            self._load(ckpt)
        elif cfg.init is not None:
            self._init_from(cfg.init)
        self._saved_frames = self.frames
        if out is not None:
            os.makedirs(out, exist_ok=True)
            with open(os.path.join(out, CONFIG_FILE), "w") as f:
                f.write(cfg.to_json() + "\n")

    def _init_from(self, path: str) -> None:
        """Starts from a model file's weights (fresh optimisers; the frame count the model records,
        so the run's log continues its curve).

        The model may have been trained under other rules of the same variant whose features have
        the same widths (e.g. ``classic`` for a ``classic_rlcard`` run: the features describe cards
        and kinds, not action ids, so they mean the same there): a transfer, which the new model
        records as ``init_rules``. With ``grow``, the model's network may be narrower or shallower
        than this run's: it is grown to this run's widths computing the same function
        (``ddz.learn.nets.grow``), a warm start for a larger network."""
        m = NeuralModel.load(path)
        mf = m.features
        same_shape = (m.rules.variant == self.rules.variant and mf.state_dim == self.feats.state_dim
                      and mf.action_dim == self.feats.action_dim and mf.move_dim == self.feats.move_dim)
        hidden_ok = m.net["hidden"] == self.net["hidden"] or self.config.grow
        if not same_shape or m.net["arch"] != self.net["arch"] or not hidden_ok \
                or m.net.get("lstm") != self.net.get("lstm") or m.whole != self.whole:
            # each side named by everything compared, so that the message shows what differs
            def what(preset: Any, hidden: Any, rules: Any, whole: bool, f: Any) -> str:
                phases = "whole hands" if whole else "the play phase only"
                return (f"a {preset} network {hidden} for {rules!r}, {phases}, features of widths "
                        f"{f.state_dim}/{f.action_dim}/{f.move_dim}")
            raise ArgumentError(f"{shown(path)} holds {what(m.net.get('preset'), m.net['hidden'], m.rules, m.whole, mf)}"
                                f"; this run trains {what(self.config.net, self.net['hidden'], self.rules, self.whole, self.feats)}"
                                + (" (grow=True widens a network)" if same_shape and not hidden_ok else ""))
        if m.rules != self.rules:
            self.init_rules = rules_record(m.rules)
        rng = np.random.default_rng(mix_seed(self.config.seed, 6) % 2**63)
        for p, net in enumerate(self.model.nets):
            arrays = {k: m.arrays[f"p{p}.{k}"] for k in param_shapes(m.net, mf.state_dim, mf.action_dim,
                                                                      GROUP * mf.move_dim)}
            if m.net["hidden"] != self.net["hidden"]:
                arrays = grow(arrays, m.net, self.net["hidden"], rng)
            net.load_state_dict({k: torch.from_numpy(np.array(arrays[k], dtype=np.float32)) for k in net.state_dict()})
        self.frames = self.init_frames = int(m.meta.get("frames", 0))
        cfg = self.config
        self.next_checkpoint = self.frames + cfg.checkpoint_every
        if self.next_eval != math.inf:
            self.next_eval = self.frames + cfg.eval_every

    def new_model(self) -> QModel:
        """A fresh set of this run's networks (on the CPU)."""
        return QModel(self.net, self.positions, self.feats.state_dim, self.feats.action_dim,
                      GROUP * self.feats.move_dim)

    def new_actor(self) -> Actor:
        """An actor of this run's tables, returns and exploration (``reset`` it before use)."""
        cfg = self.config
        actor = Actor(self.rules, self.feats, cfg.tables, cfg.objective, cfg.epsilon, self.lstm, cfg.rule_tables,
                      cfg.bid_epsilon, cfg.oracle_cards, cfg.oracle_nodes,
                      cfg.deal_filter, cfg.filter_keep, oracle_play_only=cfg.oracle_play_only)
        self.explore(actor)
        return actor

    def scheduled(self) -> Tuple[float, float, float]:
        """(learning rate, exploration in the play, in the decisions) now (``TrainConfig.schedule``)."""
        return self.config.schedule(self.init_frames).at(self.frames)

    def explore(self, actor: Actor) -> None:
        """Sets an actor's exploration to the schedule's now."""
        _, actor.epsilon, actor.bid_epsilon = self.scheduled()
        actor.filtering = self.frames >= self.config.filter_after  # the deal filter's warm-up is over

    def _optimizer(self, params: Any) -> torch.optim.Optimizer:
        cfg = self.config
        if cfg.optimizer == "rmsprop":  # DouZero's settings
            return torch.optim.RMSprop(params, lr=cfg.lr, alpha=0.99, eps=1e-5, momentum=0.0)
        return torch.optim.Adam(params, lr=cfg.lr)

    # ---- learning ----
    def learn(self, p: int, obs: npt.NDArray[np.int8], act: npt.NDArray[Any], hist: npt.NDArray[Any],
              ret: npt.NDArray[Any]) -> float:
        """``passes`` gradient steps of position ``p``'s network on a batch; the loss before the
        first. More than one pass learns more from each frame (the frames are counted once)."""
        net = cast(QNet, self.model.nets[p])
        f = self.feats
        dev = self.device
        state = torch.from_numpy(f.state(obs)).to(dev)
        actions = torch.from_numpy(f.actions(act)).to(dev)
        history = torch.from_numpy(f.history(hist)).to(dev) if self.lstm else None
        target = torch.from_numpy(np.asarray(ret, dtype=np.float32)).to(dev)
        opt = self.optims[p]
        lr = self.scheduled()[0]
        for group in opt.param_groups:
            group["lr"] = lr
        first = 0.0
        for k in range(self.config.passes):
            if self.heads > 1:  # each head's mean squared error, the score's weighted (SCORE_LOSS_WEIGHT)
                err = torch.mean((net.heads(state, actions, None, history) - target) ** 2, dim=0)
                loss = err[0] + SCORE_LOSS_WEIGHT * err[1]
            else:
                loss = torch.mean((net(state, actions, None, history) - target) ** 2)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), self.config.max_grad_norm)
            opt.step()
            if k == 0:
                first = float(loss.item())
        return first

    def _learn_ready(self, stats: _Stats) -> int:
        n = 0
        b = self.config.batch_size
        for p in self.buffer.ready(b):
            self._learn_batch(p, stats)
            n += 1
        return n

    def _learn_batch(self, p: int, stats: _Stats) -> None:
        """Learns from the oldest batch of position ``p``'s ring, and counts it."""
        b = self.config.batch_size
        loss = self.learn(p, *self.buffer.take(p, b))
        stats.add(p, loss)
        self.recent_loss[p] = loss
        self.frames += b
        self.updates += self.config.passes

    def _put_learning(self, p: int, obs: npt.NDArray[np.int8], act: npt.NDArray[Any], hist: npt.NDArray[Any],
                      ret: npt.NDArray[Any], stats: _Stats) -> int:
        """Puts frames into position ``p``'s ring, learning from it whenever it is full (one
        thread: many hands ending in one step never overflow it). Returns the steps learned."""
        buf = self.buffer
        i, n, learned = 0, len(act), 0
        while i < n:
            free = buf.capacity - buf.size[p]
            if free == 0:
                self._learn_batch(p, stats)
                learned += 1
                continue
            k = min(free, n - i)
            buf.put(p, obs[i:i + k], act[i:i + k], hist[i:i + k], ret[i:i + k])
            i += k
        return learned

    # ---- the model ----
    def neural_model(self) -> NeuralModel:
        """The current networks as a torch-free model."""
        cfg = self.config
        return NeuralModel(self.rules, self.net, self.model.arrays(),
                           meta={"frames": self.frames, "objective": cfg.objective, "variant": cfg.variant,
                                 "whole": self.whole, "cpu_seconds": round(self.cpu_seconds, 1),
                                 **({"init_rules": self.init_rules} if self.init_rules else {})})

    def evaluate(self, games: Optional[int] = None) -> Dict[str, float]:
        """The current model (NeuralBot: a whole-hand model bids by its network, a play-phase one
        as RuleBot) against RuleBot in every other seat, ``ddz.evaluate``'s duplicate deals
        (fixed: ``eval_seed``)."""
        bot = NeuralBot(self.neural_model())
        agents = [bot] + [_bots.RuleBot() for _ in range(self.rules.players - 1)]
        res = evaluate(agents, self.rules, games=games or self.config.eval_games, seed=self.config.eval_seed)
        s = res["NeuralBot"]
        return {"eval_wp": s.overall.win_rate, "eval_wp_landlord": s.landlord.win_rate,
                "eval_wp_farmer": s.farmer.win_rate, "eval_score": s.overall.mean_score,
                "eval_games": float(s.overall.hands),
                "eval_landlord_share": s.landlord.hands / max(1, s.landlord.hands + s.farmer.hands)}

    def final_evaluation(self) -> Dict[str, float]:
        """Evaluates the current model unless it was at this frame count, logs the row, redraws
        the curve and saves (the checkpoint records the latest evaluation)."""
        if self.last_eval_frames != self.frames:
            self.last_eval = self.evaluate()
            self.last_eval_frames = self.frames
            row: Dict[str, Any] = {"wall_time": f"{time.time():.1f}", "train_seconds": f"{self.train_seconds:.1f}",
                                   "frames": self.frames, "updates": self.updates}
            row.update({k: f"{v:.4f}" for k, v in self.last_eval.items()})
            self._log(row)
            self.save()
            self.plot()
        return dict(self.last_eval)

    # ---- files ----
    def save(self) -> None:
        """Writes checkpoint.pt and model.npz (atomically) into the run directory."""
        self._saved_frames = self.frames
        if self.out is None:
            return
        state = {"frames": self.frames, "updates": self.updates, "segment": self.segment,
                 "train_seconds": self.train_seconds, "cpu_seconds": self.cpu_seconds,
                 "next_checkpoint": self.next_checkpoint,
                 "next_eval": -1 if self.next_eval == math.inf else self.next_eval,
                 "last_eval": json.dumps(self.last_eval), "last_eval_frames": self.last_eval_frames,
                 "init_rules": json.dumps(self.init_rules), "init_frames": self.init_frames,
                 "model": self.model.state_dict(), "optims": [o.state_dict() for o in self.optims],
                 "buffer": self.buffer.state() if self.config.mode == "single" else {}}
        tmp = os.path.join(self.out, CHECKPOINT_FILE + ".tmp")
        torch.save(state, tmp)
        os.replace(tmp, os.path.join(self.out, CHECKPOINT_FILE))
        self.neural_model().save(os.path.join(self.out, MODEL_FILE))

    def _load(self, ckpt: Dict[str, Any]) -> None:
        self.frames, self.updates, self.segment = int(ckpt["frames"]), int(ckpt["updates"]), int(ckpt["segment"])
        self.train_seconds = float(ckpt["train_seconds"])
        self.cpu_seconds = float(ckpt.get("cpu_seconds", 0.0))
        self.next_checkpoint = int(ckpt["next_checkpoint"])
        self.next_eval = math.inf if int(ckpt["next_eval"]) < 0 else int(ckpt["next_eval"])
        self.last_eval = json.loads(ckpt["last_eval"])
        self.last_eval_frames = int(ckpt["last_eval_frames"])
        self.init_rules = json.loads(ckpt.get("init_rules", "null"))
        self.init_frames = int(ckpt.get("init_frames", 0))
        self.model.load_state_dict(ckpt["model"])
        for o, s in zip(self.optims, ckpt["optims"]):
            o.load_state_dict(s)
        if ckpt["buffer"]:
            self.buffer.load(ckpt["buffer"])

    def _log_header(self) -> List[str]:
        return (["wall_time", "train_seconds", "cpu_seconds", "frames", "updates", "frames_per_s"]
                + [f"loss_p{p}" for p in range(self.positions)]
                + ["eval_wp", "eval_wp_landlord", "eval_wp_farmer", "eval_score", "eval_games",
                   "eval_landlord_share"])

    def _log(self, row: Dict[str, Any]) -> None:
        if self.out is None:
            return
        path = os.path.join(self.out, LOG_FILE)
        new = not os.path.exists(path)
        header = self._log_header()
        if not new:  # a log begun by another version keeps its own columns
            with open(path, newline="") as f:
                header = next(csv.reader(f), header)
        with open(path, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=header, restval="", extrasaction="ignore")
            if new:
                w.writeheader()
            w.writerow(row)

    def plot(self) -> Optional[str]:
        """curve.png from log.csv: evaluation WP against RuleBot and the losses over frames (None
        without matplotlib or a log)."""
        if self.out is None or not os.path.exists(os.path.join(self.out, LOG_FILE)):
            return None
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            return None
        with open(os.path.join(self.out, LOG_FILE)) as f:
            rows = list(csv.DictReader(f))
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
        ev = [(float(r["frames"]), float(r["eval_wp"])) for r in rows if r.get("eval_wp")]
        if ev:
            ax1.plot([e[0] for e in ev], [e[1] for e in ev], marker="o")
        ax1.set_xlabel("frames")
        ax1.set_ylabel("win rate against RuleBot")
        ax1.set_title(f"{self.rules!r}, {self.config.net}, {self.config.objective}")
        ax1.grid(True, alpha=0.3)
        for p in range(self.positions):
            pts = [(float(r["frames"]), float(r[f"loss_p{p}"])) for r in rows
                   if r.get(f"loss_p{p}") not in (None, "", "nan")]
            if pts:
                ax2.plot([x for x, _ in pts], [y for _, y in pts],
                         label=f"position {p}" if p < self.rules.players else "decisions")
        ax2.set_xlabel("frames")
        ax2.set_ylabel("loss")
        ax2.legend()
        ax2.grid(True, alpha=0.3)
        fig.tight_layout()
        path = os.path.join(self.out, CURVE_FILE)
        fig.savefig(path, dpi=80)
        plt.close(fig)
        return path

    # ---- the loop ----
    def request_stop(self) -> None:
        """Asks a running ``train`` to return at its next step, with the run saved as at any
        end (safe from a signal handler or another thread; ``ddz train`` calls it on SIGTERM
        and on the first Ctrl-C). The request stands (``train`` returns at once) until
        ``stop_requested.clear()``."""
        self.stop_requested.set()

    def _going(self, target: float, deadline: float) -> bool:
        """Whether a training loop goes on: frames, time and CPU time left, and no stop requested."""
        if self._cpu_budget < math.inf and self.cpu_seconds + time.process_time() - self._cpu_mark >= self._cpu_budget:
            return False
        return self.frames < target and time.perf_counter() < deadline and not self.stop_requested.is_set()

    def train(self, frames: Optional[int] = None, seconds: Optional[float] = None,
              progress: Optional[TextIO] = None, cpu_seconds: Optional[float] = None) -> Dict[str, Any]:
        """Trains until the run has ``frames`` frames in all (a resumed run continues to it), for
        ``seconds`` more of wall time, or until the run has used ``cpu_seconds`` of CPU time in
        all (this process's threads, the log's ``cpu_seconds``: the actor processes of
        ``mode="processes"`` and ray's workers are not counted; a resumed run continues to it),
        whichever comes first; checkpoints every ``checkpoint_every`` frames and at the end.
        Returns a summary."""
        if frames is None and seconds is None and cpu_seconds is None:
            raise ArgumentError("give frames, seconds or cpu_seconds (a budget)")
        target = math.inf if frames is None else int(frames)
        deadline = math.inf if seconds is None else time.perf_counter() + float(seconds)
        self._cpu_budget = math.inf if cpu_seconds is None else float(cpu_seconds)
        self._cpu_mark = time.process_time()  # cpu_seconds counts up to here; _periodic moves both on
        self._budget = {"target": target, "deadline": deadline, "start": time.perf_counter(),
                        "frames": self.frames, "cpu": self.cpu_seconds}
        self._run(_source(self), target, deadline, progress)
        if self.frames != self._saved_frames:  # stopped between checkpoints: the next run starts new hands
            self.segment += 1
        self.save()
        self.plot()
        return {"frames": self.frames, "updates": self.updates, "train_seconds": self.train_seconds,
                "cpu_seconds": self.cpu_seconds,
                "frames_per_s": ((self.frames - self.init_frames) / self.train_seconds if self.train_seconds
                                 else float("nan")),
                **self.last_eval}

    def _periodic(self, stats: _Stats, clock: Dict[str, float], progress: Optional[TextIO],
                  on_segment: Callable[[], None], force: bool = False) -> None:
        """Evaluation, checkpoint, log row and progress line when they are due."""
        now = time.perf_counter()
        cpu = time.process_time()
        self._cpu_mark = cpu
        self.train_seconds += now - clock["t"]
        self.cpu_seconds += cpu - clock["cpu"]
        clock["t"], clock["cpu"] = now, cpu
        evaluated = False
        if self.frames >= self.next_eval:
            self.last_eval = self.evaluate()
            self.last_eval_frames = self.frames
            while self.next_eval <= self.frames:
                self.next_eval += self.config.eval_every
            evaluated = True
        if self.frames >= self.next_checkpoint:
            while self.next_checkpoint <= self.frames:
                self.next_checkpoint += self.config.checkpoint_every
            self.segment += 1
            on_segment()
            self.save()
            if evaluated:
                self.plot()
        if evaluated or force or now - clock["logged"] >= self.config.log_every:
            fps = (self.frames - clock["frames"]) / max(1e-9, self.train_seconds - clock["seconds"])
            losses = stats.means(self.positions)
            row: Dict[str, Any] = {"wall_time": f"{time.time():.1f}", "train_seconds": f"{self.train_seconds:.1f}",
                                   "cpu_seconds": f"{self.cpu_seconds:.1f}", "frames": self.frames,
                                   "updates": self.updates, "frames_per_s": f"{fps:.0f}"}
            # a position that got no batch in the interval (a starved or just-resumed learner) has
            # no loss to report: an empty field, as for the evaluation, rather than "nan"
            row.update({f"loss_p{p}": (f"{v:.5f}" if v == v else "") for p, v in enumerate(losses)})
            if evaluated:
                row.update({k: f"{v:.4f}" for k, v in self.last_eval.items()})
            self._log(row)
            stats.losses.clear()
            clock.update(logged=now, frames=self.frames, seconds=self.train_seconds)
        tty = progress is not None and getattr(progress, "isatty", lambda: False)()
        if progress is not None and (force or now - clock["shown"] >= (1.0 if tty else 30.0)):
            line = self.progress_line(now)
            # a terminal gets one line rewritten in place, a file a line every 30 s
            progress.write(f"\r{line}   " if tty else f"{time.strftime('%H:%M:%S')} {line}\n")
            progress.flush()
            clock["shown"] = now
        # time spent on evaluation and files is not training time
        clock["t"], clock["cpu"] = time.perf_counter(), time.process_time()

    def position_names(self) -> List[str]:
        """Each network's short name: the landlord, the seats after it, the decisions."""
        n = self.rules.players
        names = ["landlord"] + (["down", "up"] if n == 3 else ["farmer"] if n == 2 else
                                [f"seat+{k}" for k in range(1, n)])
        return names + (["bids"] if self.whole else [])

    def progress_line(self, now: Optional[float] = None) -> str:
        """The progress line: frames against the target (and the share done), the time spent in this
        session and the time left (by the frame budget or the deadline), this session's frames a
        second, each network's latest loss by name, the latest evaluation."""
        now = time.perf_counter() if now is None else now
        b = getattr(self, "_budget", None) or {"target": math.inf, "deadline": math.inf, "start": now,
                                               "frames": self.frames}
        elapsed = now - b["start"]
        done = self.frames - b["frames"]
        fps = done / elapsed if elapsed > 0 else 0.0
        parts = [f"{self.frames:,}"]
        left = []
        if b["target"] != math.inf:
            first = b["frames"]
            share = (self.frames - first) / max(1, b["target"] - first)
            parts[0] += f" / {int(b['target']):,} frames ({100 * min(share, 1.0):.1f} %)"
            if fps > 0:
                left.append(max(0.0, (b["target"] - self.frames) / fps))
        else:
            parts[0] += " frames"
        if b["deadline"] != math.inf:
            left.append(max(0.0, b["deadline"] - now))
        if self._cpu_budget != math.inf:  # the CPU budget's share used, its time left at this session's pace
            used = self.cpu_seconds + time.process_time() - self._cpu_mark
            parts.append(f"CPU {_hms(used)} / {_hms(self._cpu_budget)} ({100 * min(used / self._cpu_budget, 1.0):.1f} %)")
            spent = used - b.get("cpu", used)
            if spent > 0:
                left.append(max(0.0, (self._cpu_budget - used) * elapsed / spent))
        parts.append(f"elapsed {_hms(elapsed)}")
        if left:
            parts.append(f"ETA {_hms(min(left))}")
        parts.append(f"{fps:,.0f} frames/s")
        names = self.position_names()
        parts.append("loss " + " ".join(f"{names[p]} {self.recent_loss.get(p, float('nan')):.3f}"
                                        for p in range(self.positions)))
        if self.last_eval:
            parts.append(f"eval wp {self.last_eval['eval_wp']:.3f}")
        return "  ".join(parts)

    def summary_lines(self) -> List[str]:
        """The end of a run in words: frames, time, and the last evaluation against RuleBot by
        role, with the model's share of the landlord seats."""
        fps = (self.frames - self.init_frames) / self.train_seconds if self.train_seconds else float("nan")
        lines = [f"{self.frames:,} frames ({self.frames - self.init_frames:,} trained in this run) in "
                 f"{self.train_seconds:,.0f} s of training, {self.cpu_seconds:,.0f} CPU s ({fps:,.0f} frames/s)"]
        e = self.last_eval
        if e:
            share = e.get("eval_landlord_share")
            lines.append(f"against RuleBot ({int(e['eval_games'])} hands): win rate {e['eval_wp']:.3f}, as landlord "
                         f"{e['eval_wp_landlord']:.3f}, as farmer {e['eval_wp_farmer']:.3f}"
                         + (f", landlord in {100 * share:.0f} % of its hands" if share is not None else "")
                         + f"; mean score {e['eval_score']:+.3f}")
        return lines

    def _run(self, source: "FrameSource", target: float, deadline: float, progress: Optional[TextIO]) -> None:
        """The learner's loop, one for every way of acting: take the frames the source hands over
        into the rings, learn from every full batch, tell the source when the weights changed,
        and log, evaluate and checkpoint when due."""
        stats = _Stats()
        t = time.perf_counter()
        clock = {"t": t, "cpu": time.process_time(), "logged": t, "shown": 0.0, "frames": self.frames,
                 "seconds": self.train_seconds}
        try:
            while self._going(target, deadline):
                frames = source.frames()
                with source.learning():
                    learned = sum(self._put_learning(p, obs, act, hist, ret, stats)
                                  for p, obs, act, hist, ret in frames)
                    learned += self._learn_ready(stats)
                if learned:
                    source.updated()
                    self._periodic(stats, clock, progress, source.new_segment)
        finally:
            source.close()
        self._periodic(stats, clock, progress, source.new_segment, force=True)
        if progress is not None and getattr(progress, "isatty", lambda: False)():
            progress.write("\n")


class FrameSource(Protocol):
    """A way of acting (``TrainConfig.mode``), as the learner's loop (``Trainer._run``) sees it:
    ``ddz.learn.act_single``, ``act_threads``, ``act_processes`` and ``act_ray``."""

    def frames(self) -> List[Any]:
        """The finished frames ready now, ``(position, obs, act, hist, ret)`` each (possibly none;
        the source may wait briefly); raises when an actor failed."""

    def learning(self) -> Any:
        """A context held while the learner changes the weights."""

    def updated(self) -> None:
        """The learner changed the weights: the actors are to act with them."""

    def new_segment(self) -> None:
        """A checkpoint was written: the next hands are dealt from its number."""

    def close(self) -> None:
        """Stops the actors (raising an actor's error that was not raised yet)."""


def _source(trainer: Trainer) -> FrameSource:
    mode = trainer.config.mode
    if mode == "single":
        from .act_single import SingleSource
        return SingleSource(trainer)
    if mode == "threads":
        from .act_threads import ThreadSource
        return ThreadSource(trainer)
    if mode == "ray":
        from .act_ray import RaySource
        return RaySource(trainer)
    from .act_processes import ProcessSource
    return ProcessSource(trainer)
