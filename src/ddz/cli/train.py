"""``ddz train``: Deep Monte-Carlo training of the play phase (``ddz.learn.dmc``; needs torch,
imported only when the command runs)."""
from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from typing import Any, Iterator, List, Optional

from ..core.errors import DdzError

def _defaults() -> Any:
    """The TrainConfig defaults without importing torch (the dataclass lives in ddz.learn.dmc)."""
    return {"objective": "adp", "net": "small", "tables": 256, "batch_size": 1024, "optimizer": "adam",
            "lr": 1e-3, "epsilon": 0.01, "seed": 0, "mode": "single", "device": "cpu", "actors": 1,
            "checkpoint_every": 500_000, "eval_every": 0, "eval_games": 100, "rule_tables": 0.0,
            "passes": 1}


def _hidden(text: str) -> List[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--hidden takes comma-separated widths, e.g. 256,256, not {text!r}")


def add_parser(sub: Any) -> None:
    d = _defaults()
    tr = sub.add_parser("train", help="train an agent of whole hands by Deep Monte-Carlo (needs torch: ddz[learn])",
                        description="Train Q networks for whole hands, bidding included (or with --play-only the "
                                    "play phase alone) by Deep Monte-Carlo (DouZero's "
                                    "algorithm) on many tables at once. The run directory gets config.json, "
                                    "checkpoint.pt, model.npz (for NeuralBot), log.csv and curve.png "
                                    "(with matplotlib). --resume continues a run from its checkpoint. SIGTERM or "
                                    "Ctrl-C stops at the next step with the run saved (a second Ctrl-C "
                                    "stops without saving).")
    tr.add_argument("--variant", default="classic", metavar="NAME",
                    help="classic, twop, bengbu or a compat preset (classic_douzero, ...) (default classic)")
    tr.add_argument("--out", required=True, metavar="DIR", help="the run directory")
    budget = tr.add_mutually_exclusive_group(required=True)
    budget.add_argument("--frames", type=int, default=None,
                        help="train until the run has N frames in all (a resumed run continues to N)")
    budget.add_argument("--hours", type=float, default=None, help="train for H more hours of wall time")
    budget.add_argument("--cpu-hours", type=float, default=None, dest="cpu_hours",
                        help="train until the run has used H hours of CPU time in all (the trainer process's "
                             "threads, log.csv's cpu_seconds; not the actor processes of --mode processes or "
                             "ray's workers; a resumed run continues to H): runs compared at equal CPU")
    tr.add_argument("--play-only", action="store_true",
                    help="train the play phase alone (the landlord random, no auction; NeuralBot then bids as "
                         "RuleBot) (default: whole hands, the auction learned from the same returns)")
    tr.add_argument("--resume", action="store_true",
                    help="continue the run in --out from its checkpoint (its config.json is used)")
    tr.add_argument("--init", default=None, metavar="MODEL",
                    help="start a new run from a model file's weights (model.npz of an earlier run, of these rules "
                         "or other rules of the variant with the same feature widths, e.g. classic for "
                         "classic_rlcard; fresh optimiser state, its frame count) (default: random weights)")
    tr.add_argument("--grow", action="store_true",
                    help="with --init: grow the model's network to --hidden (wider layers, more layers), "
                         "computing the same function at the start (default: the widths must match)")
    tr.add_argument("--actor-int8", action="store_true",
                    help="the actors (--mode threads or processes) score actions with an int8 copy of the "
                         "networks (about 2.5x faster forward passes on a CPU; the learner trains in float32) "
                         "(default: float32 actors)")
    tr.add_argument("--learner-threads", type=int, default=1, metavar="N",
                    help="torch threads of the learner in --mode processes (its actors keep one each) "
                         "(default 1)")
    tr.add_argument("--rule-tables", type=float, default=d["rule_tables"], metavar="SHARE",
                    help="the share of hands in which the rule policy (RuleBot's bids, SearchBot's rollout play) "
                         "plays some seats, the networks the others (1..players-1 of them, at random); only the "
                         "networks' seats are trained on (default 0: self-play only)")
    tr.add_argument("--oracle-cards", type=int, default=0, metavar="N",
                    help="a perfect-information target: once N or fewer cards are left in all hands, the exact "
                         "solver's verdict (every hand seen) replaces the hand's outcome as the win the frames "
                         "learn; training only (default 0: the outcome)")
    tr.add_argument("--oracle-nodes", type=int, default=20000, metavar="NODES",
                    help="the solver's node limit a position under --oracle-cards (default 20000)")
    tr.add_argument("--oracle-play-only", action="store_true",
                    help="under --oracle-cards, only the play's frames learn the verdict; the decisions' frames "
                         "(bids, shows, ...) learn the hand's outcome (default: all frames the verdict)")
    tr.add_argument("--deal-filter", type=float, default=0.0, metavar="P",
                    help="a coach against lopsided deals (objective wp): a hand whose landlord's network puts "
                         "its own win at P or more, or 1-P or less, at its first play is finished by the rule "
                         "policy without frames of its play, but for --filter-keep of them (default 0: none)")
    tr.add_argument("--filter-keep", type=float, default=0.1, metavar="SHARE",
                    help="the share of lopsided hands played out by the networks all the same (default 0.1)")
    tr.add_argument("--filter-after", type=int, default=2_000_000, metavar="FRAMES",
                    help="the deal filter's warm-up: frames before it starts (default 2000000)")
    tr.add_argument("--objective", default=None, choices=("wp", "adp", "score", "wp+score"),
                    help="the return: wp (+1/-1), adp (DouZero's: ±2^bombs), score (whole hands: the "
                         "variant's score over its REWARD_SCALE; --play-only: the play phase's score) or "
                         "wp+score (both, one head each: --net res) "
                         f"(default {d['objective']}; wp+score with --net res)")
    tr.add_argument("--net", default=d["net"], choices=("small", "douzero", "res"),
                    help="network preset: small (an MLP), douzero (LSTM + MLP) or res (a residual MLP with a "
                         f"win head and a score head) (default {d['net']})")
    tr.add_argument("--hidden", type=_hidden, default=None, metavar="W,W,...",
                    help="hidden layer widths replacing the preset's (default: the preset's)")
    tr.add_argument("--tables", type=int, default=d["tables"], help=f"tables per actor (default {d['tables']})")
    tr.add_argument("--batch-size", type=int, default=d["batch_size"],
                    help=f"frames per gradient step (default {d['batch_size']})")
    tr.add_argument("--passes", type=int, default=d["passes"], metavar="N",
                    help="gradient steps on each batch: more than one learns more from each frame, at N times "
                         f"the learner's work a frame (frames are counted once) (default {d['passes']}, DouZero's)")
    tr.add_argument("--optimizer", default=d["optimizer"], choices=("adam", "rmsprop"),
                    help=f"optimiser (rmsprop with DouZero's settings) (default {d['optimizer']})")
    tr.add_argument("--lr", type=float, default=d["lr"], help=f"learning rate (default {d['lr']})")
    tr.add_argument("--epsilon", type=float, default=d["epsilon"],
                    help=f"exploration: the chance of a random legal action (default {d['epsilon']})")
    tr.add_argument("--bid-epsilon", type=float, default=None,
                    help="exploration in the decisions (bids, shows, ...) (default: --epsilon)")
    tr.add_argument("--schedule-frames", type=int, default=0, metavar="FRAMES",
                    help="the frames over which --lr, --epsilon and --bid-epsilon go to their --*-end values "
                         "along half a cosine (default 0: no schedule)")
    tr.add_argument("--lr-end", type=float, default=None, help="the learning rate at the schedule's end")
    tr.add_argument("--epsilon-end", type=float, default=None, help="--epsilon at the schedule's end")
    tr.add_argument("--bid-epsilon-end", type=float, default=None, help="--bid-epsilon at the schedule's end")
    tr.add_argument("--seed", type=int, default=d["seed"], help=f"run seed (default {d['seed']})")
    tr.add_argument("--mode", default=d["mode"], choices=("single", "threads", "processes", "ray"),
                    help="single: one thread, reproducible; threads: actor threads beside the learner; "
                         "processes: forked actor processes, every core; ray: Ray actors, on this machine or the "
                         f"cluster RAY_ADDRESS names (needs ray) (default {d['mode']})")
    tr.add_argument("--actors", type=int, default=d["actors"],
                    help=f"actor threads, processes or Ray actors in --mode threads / processes / ray "
                         f"(default {d['actors']})")
    tr.add_argument("--device", default=d["device"], metavar="DEV",
                    help="the learner's device: cpu, cuda, cuda:N or auto (a GPU where torch sees one) "
                         f"(default {d['device']})")
    tr.add_argument("--checkpoint-every", type=int, default=d["checkpoint_every"], metavar="FRAMES",
                    help=f"frames between checkpoints (default {d['checkpoint_every']})")
    tr.add_argument("--eval-every", type=int, default=d["eval_every"], metavar="FRAMES",
                    help="frames between evaluations against RuleBot, recorded in log.csv (default 0: only "
                         "at the end)")
    tr.add_argument("--eval-games", type=int, default=d["eval_games"],
                    help=f"duplicate deals per evaluation (default {d['eval_games']}; 0: no evaluation)")
    tr.add_argument("--quiet", action="store_true", help="no progress line")
    tr.set_defaults(func=_cmd_train)


@contextlib.contextmanager
def _graceful_stop(trainer: Any) -> Iterator[None]:
    """SIGTERM, and the first Ctrl-C, end the training at its next step with the run saved (a
    second Ctrl-C interrupts at once, without saving)."""
    def on_signal(signum: int, frame: Any) -> None:
        trainer.request_stop()
        if signum == signal.SIGINT:
            signal.signal(signal.SIGINT, signal.default_int_handler)

    old = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def _cmd_train(args: argparse.Namespace) -> int:
    try:
        import torch  # noqa: F401
    except ImportError:
        print("ddz train: torch is not installed (pip install 'ddz[learn]')", file=sys.stderr)
        return 2
    from ..learn.dmc import TrainConfig, Trainer
    if any(h is not None and not h > 0 for h in (args.hours, args.cpu_hours)):
        print("ddz train: --hours and --cpu-hours are a positive number of hours", file=sys.stderr)
        return 2
    try:
        if args.resume:
            trainer = Trainer(out=args.out, resume=True)
        else:
            if os.path.exists(os.path.join(args.out, "checkpoint.pt")):
                print(f"ddz train: {args.out} holds a run already: --resume continues it", file=sys.stderr)
                return 2
            objective = args.objective or ("wp+score" if args.net == "res" else _defaults()["objective"])
            cfg = TrainConfig(variant=args.variant, whole=not args.play_only, objective=objective,
                              net=args.net, hidden=args.hidden,
                              tables=args.tables, batch_size=args.batch_size, optimizer=args.optimizer,
                              lr=args.lr, epsilon=args.epsilon, seed=args.seed, mode=args.mode, device=args.device,
                              actors=args.actors, checkpoint_every=args.checkpoint_every,
                              eval_every=args.eval_every, eval_games=args.eval_games,
                              buffer_frames=max(32768, 4 * args.batch_size),
                              init=None if args.init is None else os.path.abspath(args.init), grow=args.grow,
                              actor_int8=args.actor_int8, learner_threads=args.learner_threads,
                              rule_tables=args.rule_tables, passes=args.passes, bid_epsilon=args.bid_epsilon,
                              schedule_frames=args.schedule_frames, lr_end=args.lr_end,
                              epsilon_end=args.epsilon_end, bid_epsilon_end=args.bid_epsilon_end,
                              oracle_cards=args.oracle_cards, oracle_nodes=args.oracle_nodes,
                              oracle_play_only=args.oracle_play_only,
                              deal_filter=args.deal_filter, filter_keep=args.filter_keep,
                              filter_after=args.filter_after)
            trainer = Trainer(cfg, out=args.out)
        seconds = None if args.hours is None else args.hours * 3600.0
        with _graceful_stop(trainer):
            summary = trainer.train(frames=args.frames, seconds=seconds, progress=None if args.quiet else sys.stderr,
                                    cpu_seconds=None if args.cpu_hours is None else args.cpu_hours * 3600.0)
        if trainer.stop_requested.is_set():
            print(f"\nddz train: stopped by a signal; the run is saved at {trainer.frames:,} frames "
                  f"(--resume continues)", file=sys.stderr)
        elif trainer.config.eval_games:
            summary.update(trainer.final_evaluation())
    except KeyboardInterrupt:  # a second Ctrl-C: no save
        print("\nddz train: interrupted; the last checkpoint stands (--resume continues)", file=sys.stderr)
        return 130
    except DdzError as e:
        print(f"ddz train: {e}", file=sys.stderr)
        return 2
    for line in trainer.summary_lines():
        print(line)
    print(f"model: {os.path.join(args.out, 'model.npz')}")
    return 0
