"""The options of a training run (``TrainConfig``, the run's ``config.json``) and the names they
take. No torch here: ``ddz train --help`` and the config's checks need none."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from typing import Any, Dict, List, Optional

from ..core.errors import ArgumentError, shown
from ..core.rules import Rules
from .nets import heads_of, net_config
from .schedule import Schedule

__all__ = ["TrainConfig", "OBJECTIVES", "MODES", "DEVICES", "mix_seed"]

OBJECTIVES = ("wp", "adp", "score", "wp+score")
MODES = ("single", "threads", "processes", "ray")
DEVICES = ("cpu", "cuda", "auto")


@dataclass
class TrainConfig:
    """Everything a run depends on (saved as the run's ``config.json``; ``ddz train``'s options)."""

    variant: str = "classic"
    """The rules: a variant (``classic``, ``twop``, ``bengbu``) or a compat preset (``classic_douzero``, ...)."""
    whole: bool = True
    """Whole hands, the auction learned by a decision network (True), or the play phase alone (False)."""
    objective: str = "adp"
    """The return a frame learns: ``wp`` (+1 / -1), ``adp`` (DouZero's: that times 2 to the bomb-class
    plays), ``score`` (the variant's score over its ``REWARD_SCALE``) or ``wp+score`` (both, one head each:
    the ``res`` network)."""
    net: str = "small"
    """The network preset (``ddz.learn.nets.PRESETS``): ``small``, ``douzero`` or ``res``."""
    hidden: Optional[List[int]] = None
    """Hidden widths replacing the preset's (None: the preset's)."""
    tables: int = 256
    """Tables of the vector environment an actor plays at once."""
    batch_size: int = 1024
    """Frames a gradient step learns from (per position)."""
    optimizer: str = "adam"
    """``adam``, or ``rmsprop`` with DouZero's settings."""
    lr: float = 1e-3
    """The learning rate (the schedule's start)."""
    epsilon: float = 0.01
    """The actors' exploration in the play: the chance of a random legal action (the schedule's start)."""
    max_grad_norm: float = 40.0
    """Gradients are clipped to this norm."""
    seed: int = 0
    """The run's seed: weights, hands and exploration (``single`` mode reproduces a run bit for bit)."""
    mode: str = "single"
    """How the actors run: ``single`` (one thread, reproducible), ``threads``, ``processes`` or ``ray``."""
    device: str = "cpu"
    """The learner's device: ``cpu``, ``cuda``, ``cuda:N`` or ``auto``."""
    actors: int = 1
    """Actor threads, processes or Ray actors (modes other than ``single``)."""
    sync_every: int = 8
    """An actor takes the learner's weights every this many of its steps."""
    buffer_frames: int = 32768
    """The ring of finished frames each position's network learns from holds this many."""
    checkpoint_every: int = 500_000
    """Frames between checkpoints (each also deals the tables new hands)."""
    eval_every: int = 0
    """Frames between evaluations against RuleBot (0: only at the end)."""
    eval_games: int = 100
    """Duplicate deals of an evaluation (0: none)."""
    eval_seed: int = 12345
    """The evaluations' deal seed (fixed, so their rows compare)."""
    log_every: float = 10.0
    """Seconds of training between rows of ``log.csv``."""
    init: Optional[str] = None
    """A model file whose weights start the run (None: random weights)."""
    grow: bool = False
    """With ``init``: widen and deepen the model's network to ``hidden``, computing the same function."""
    actor_int8: bool = False
    """Actor threads or processes score actions with an int8 copy of the networks."""
    learner_threads: int = 1
    """Torch threads of the learner in mode ``processes``."""
    rule_tables: float = 0.0
    """The share of hands in which the rule policy plays some seats (only the networks' seats learn)."""
    passes: int = 1
    """Gradient steps on each batch (frames are counted once)."""
    lr_end: Optional[float] = None
    """The learning rate at the schedule's end (None: ``lr`` throughout)."""
    epsilon_end: Optional[float] = None
    """``epsilon`` at the schedule's end (None: ``epsilon`` throughout)."""
    bid_epsilon: Optional[float] = None
    """The exploration in the decisions (bids, shows, ...; None: ``epsilon``)."""
    bid_epsilon_end: Optional[float] = None
    """``bid_epsilon`` at the schedule's end (None: no change)."""
    schedule_frames: int = 0
    """Frames over which the scheduled values go to their ends, from the run's first frame (0: none)."""
    oracle_cards: int = 0
    """A perfect-information target (0: none): once no more than this many cards are left in all hands,
    the exact solver's verdict on the position after each action (every hand seen) replaces the
    hand's outcome as the win that frame and every earlier one learn (``ddz.learn.actor``). Training
    only: the networks never see hidden cards. The score parts of ``adp``, ``score`` and
    ``wp+score`` stay the hand's."""
    oracle_nodes: int = 20000
    """The solver's node limit a position (a position it does not solve within it keeps the outcome)."""
    oracle_play_only: bool = False
    """With ``oracle_cards``: only the play's frames learn the verdict; the decisions' frames (the
    auction, shows, 翻身 / 压迫, 明打 / 暗打, the grab) learn the hand's outcome. Why: a verdict that
    sees every hand plays the farmers as one, so it can value the landlord's seat below what real
    play makes of it, and the bids learn not to take it (a BENGBU4 run's bids collapsed so;
    benchmarks/results/bengbu-oracle/). Whole hands only."""
    deal_filter: float = 0.0
    """A coach against lopsided deals (0: none; in (0.5, 1), objective ``wp``): a hand whose landlord's
    network puts its own win at or beyond this (or at or below one minus it) at its first play is,
    but for ``filter_keep`` of them, finished by the rule policy without frames of its play
    (``ddz.learn.actor``)."""
    filter_keep: float = 0.1
    """The share of lopsided hands the deal filter lets the networks play out all the same."""
    filter_after: int = 2_000_000
    """The deal filter's warm-up: the run's frames before it starts. An untrained landlord's network
    is sure of every hand (early self-play farmers lose them all), and a filter trusting it then
    would drop nearly every hand's play, the few it keeps all won by the landlord."""

    def schedule(self, start: int = 0) -> Schedule:
        """The learning rate and exploration over the run (``ddz.learn.schedule``), from frame ``start``."""
        bid = self.epsilon if self.bid_epsilon is None else self.bid_epsilon
        return Schedule(self.lr, self.epsilon, bid, self.lr_end, self.epsilon_end, self.bid_epsilon_end,
                        self.schedule_frames, start)

    def check(self) -> "TrainConfig":
        """The config itself when every option is in range, else an ``ArgumentError`` naming it."""
        Rules.named(self.variant)
        if not isinstance(self.whole, bool):
            raise ArgumentError(f"whole must be true or false, not {shown(self.whole)}")
        if not isinstance(self.grow, bool):
            raise ArgumentError(f"grow must be true or false, not {shown(self.grow)}")
        if not isinstance(self.actor_int8, bool):
            raise ArgumentError(f"actor_int8 must be true or false, not {shown(self.actor_int8)}")
        if not isinstance(self.learner_threads, int) or self.learner_threads < 1 or \
                (self.learner_threads > 1 and self.mode != "processes"):
            raise ArgumentError(f"learner_threads must be 1, or more in mode 'processes' (the learner's own "
                                f"process), not {self.learner_threads!r} in mode {self.mode!r}")
        if self.actor_int8 and (self.mode not in ("threads", "processes") or self.device != "cpu"):
            raise ArgumentError("actor_int8 is for actor threads or processes on the CPU (mode threads or "
                                f"processes, device cpu), not mode {self.mode!r} on {self.device!r}")
        net = net_config(self.net, self.hidden)
        if self.objective not in OBJECTIVES:
            raise ArgumentError(f"objective must be one of {', '.join(OBJECTIVES)}, not {shown(self.objective)}")
        if (heads_of(net) == 2) != (self.objective == "wp+score"):
            raise ArgumentError(f"the two-headed network (net 'res') learns the objective 'wp+score', and only it: "
                                f"not net {self.net!r} with objective {self.objective!r}")
        for name in ("epsilon_end", "bid_epsilon", "bid_epsilon_end"):
            v = getattr(self, name)
            if v is not None and not 0.0 <= v <= 1.0:
                raise ArgumentError(f"{name} must be in [0, 1], not {v!r}")
        if self.lr_end is not None and not 0.0 <= self.lr_end <= self.lr:
            raise ArgumentError(f"lr_end must be in [0, lr], not {self.lr_end!r}")
        if not isinstance(self.schedule_frames, int) or self.schedule_frames < 0:
            raise ArgumentError(f"schedule_frames must be >= 0 (0: no schedule), not {shown(self.schedule_frames)}")
        ends = [n for n in ("lr_end", "epsilon_end", "bid_epsilon_end") if getattr(self, n) is not None]
        if ends and not self.schedule_frames:
            raise ArgumentError(f"{ends[0]} needs schedule_frames (the frames the schedule runs over)")
        if self.mode not in MODES:
            raise ArgumentError(f"mode must be one of {', '.join(MODES)}, not {shown(self.mode)}")
        if self.device not in DEVICES and not str(self.device).startswith("cuda:"):
            raise ArgumentError(f"device must be one of {', '.join(DEVICES)} or cuda:N, not {shown(self.device)}")
        if self.optimizer not in ("adam", "rmsprop"):
            raise ArgumentError(f"optimizer must be adam or rmsprop, not {shown(self.optimizer)}")
        if self.eval_games < 0:
            raise ArgumentError(f"eval_games must be >= 0 (0: no evaluation), not {self.eval_games!r}")
        for name in ("tables", "batch_size", "actors", "sync_every", "checkpoint_every", "passes"):
            if int(getattr(self, name)) < 1:
                raise ArgumentError(f"{name} must be >= 1, not {getattr(self, name)!r}")
        if self.buffer_frames < 2 * self.batch_size:
            raise ArgumentError(f"buffer_frames ({self.buffer_frames}) must hold two batches ({2 * self.batch_size})")
        if isinstance(self.rule_tables, bool) or not isinstance(self.rule_tables, (int, float)) or \
                not 0.0 <= self.rule_tables <= 1.0:
            raise ArgumentError(f"rule_tables must be a share in [0, 1], not {shown(self.rule_tables)}")
        if not 0.0 <= self.epsilon <= 1.0:
            raise ArgumentError(f"epsilon must be in [0, 1], not {self.epsilon!r}")
        if isinstance(self.oracle_cards, bool) or not isinstance(self.oracle_cards, int) or \
                not 0 <= self.oracle_cards <= 216:
            raise ArgumentError(f"oracle_cards must be an int in 0..216 (0: no oracle), not {shown(self.oracle_cards)}")
        if self.oracle_cards and self.objective == "score":
            raise ArgumentError("oracle_cards replaces the win a frame learns; the objective 'score' has none "
                                "(use wp, adp or wp+score)")
        if isinstance(self.oracle_nodes, bool) or not isinstance(self.oracle_nodes, int) or self.oracle_nodes < 1:
            raise ArgumentError(f"oracle_nodes must be an int >= 1, not {shown(self.oracle_nodes)}")
        if not isinstance(self.oracle_play_only, bool):
            raise ArgumentError(f"oracle_play_only must be a bool, not {shown(self.oracle_play_only)}")
        if self.oracle_play_only and not self.oracle_cards:
            raise ArgumentError("oracle_play_only keeps the verdict to the play's frames; it needs oracle_cards > 0")
        if self.oracle_play_only and not self.whole:
            raise ArgumentError("oracle_play_only: a play-phase run (whole=False) has no decisions' frames")
        for name, lo in (("deal_filter", 0.0), ("filter_keep", 0.0)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= 1.0:
                raise ArgumentError(f"{name} must be a number in [0, 1], not {shown(v)}")
        if self.deal_filter and not 0.5 < self.deal_filter < 1.0:
            raise ArgumentError(f"deal_filter must be 0 (none) or a win probability in (0.5, 1), not {self.deal_filter!r}")
        if isinstance(self.filter_after, bool) or not isinstance(self.filter_after, int) or self.filter_after < 0:
            raise ArgumentError(f"filter_after must be an int >= 0, not {shown(self.filter_after)}")
        if self.deal_filter and self.mode not in ("single", "threads"):
            raise ArgumentError(f"deal_filter runs in modes single and threads (its warm-up follows the learner's "
                                f"frames), not {self.mode!r}")
        if self.deal_filter and self.objective != "wp":
            raise ArgumentError("deal_filter reads the landlord's network as a win estimate: the objective 'wp' only, "
                                f"not {self.objective!r}")
        if self.eval_every < 0:
            raise ArgumentError(f"eval_every must be >= 0 (0: never), not {self.eval_every!r}")
        return self

    def to_json(self) -> str:
        """The options as the run's ``config.json``."""
        return json.dumps(asdict(self), indent=2, sort_keys=True)

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "TrainConfig":
        """A config from a run's ``config.json`` (checked; unknown options refused)."""
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ArgumentError(f"unknown training options {sorted(unknown)}")
        d = {"whole": False, **d}  # a run recorded before whole hands trained the play phase
        return cls(**d).check()


def mix_seed(*xs: int) -> int:
    """A 63-bit seed from several integers (SplitMix64 steps)."""
    z = 0x9E3779B97F4A7C15
    for x in xs:
        z = (z ^ (int(x) + 0x9E3779B97F4A7C15)) * 0xBF58476D1CE4E5B9 % 2**64
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB % 2**64
        z ^= z >> 31
    return z >> 1
