"""#25's equal-frames comparison: DouZero's trainer and ddz's, each to the same frame counts, then
their agents in DouZero's own protocol (``benchmarks/douzero_protocol.py``).

The runs outlast a session (DouZero's trainer reaches about 950 frames/s on this machine: 25M
frames take some 7 hours), so each step is resumable and the steps are separate commands:

    # DouZero's trainer (the PyPI package, its defaults: adp, RMSprop 1e-4, batch 32 x 100), two
    # actors of one torch thread each, resumed from DIR/douzero/equal/model.tar; saves every 10
    # minutes and at the target
    python benchmarks/equal_frames.py douzero --dir runs/equal --frames 25000000 --minutes 150
    # ddz's trainer to the same counts (--play-only under classic_douzero, adp), a snapshot of
    # model.npz at each listed frame count
    python benchmarks/equal_frames.py ddz --dir runs/equal --frames 1000000,2000000,5000000,25000000
    # the two agents at (about) the same frames in DouZero's protocol
    python benchmarks/equal_frames.py compare --dir runs/equal --frames 2000000 --deals 10000

DouZero's checkpoint lives in the run directory, outside the repository, and a session may start
on a new machine: ``archive`` copies it (``model.tar``: weights, optimiser state, frames; and its
log) into ``benchmarks/results/equal-frames/douzero/`` to be committed, and ``restore`` puts it
back in a run directory, weights included, for the next ``douzero`` or ``compare`` step:

    python benchmarks/equal_frames.py archive --dir runs/equal     # at the end of a session
    python benchmarks/equal_frames.py restore --dir runs/equal     # on a new machine

DouZero saves its weights as ``<position>_weights_<frames>.ckpt`` at each save; ``compare``
takes, for ``--frames F``, DouZero's save with the fewest frames at or above F and ddz's snapshot
with the most frames not above that save's (ddz never has the more frames; within 10 % of
DouZero's, else it says which count to train ddz to), and reports both counts. A run directory keeps only what these
steps need; what is committed is the comparison's JSON and the archived checkpoint.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_train_vs_douzero import (DOUZERO_CODE, Stopped, _stop, stop_on_sigterm,  # noqa: E402  (DouZero's entry point;
                                    torch_threads_env, torch_threads_prefix)  # stopping its process group; its torch threads)

POSITIONS = ("landlord", "landlord_up", "landlord_down")
_WEIGHTS = re.compile(r"^(landlord|landlord_up|landlord_down)_weights_(\d+)\.ckpt$")
_AFTER = re.compile(r"\] After (\d+) ")
#: where ``archive`` keeps DouZero's checkpoint and log in the repository
ARCHIVE = HERE / "results" / "equal-frames" / "douzero"
#: DouZero's files a resumed run needs: its checkpoint, and its log with the log's field names
#: (DouZero appends to an existing logs.csv only beside its fields.csv)
_KEPT = ("model.tar", "logs.csv", "fields.csv")

#: ddz's side: DouZero's rules and objective, ddz's default network and optimiser (the trainer's
#: own choices are what is compared), two actor processes as on this machine's two cores.
DDZ_ARGS = ["--variant", "classic_douzero", "--play-only", "--objective", "adp", "--mode", "processes",
            "--actors", "2", "--actor-int8", "--seed", "1", "--checkpoint-every", "1000000"]


def _frames_arg(text: str) -> List[int]:
    try:
        out = sorted({int(float(x)) for x in text.split(",") if x.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"--frames takes counts separated by commas, not {text!r}")
    if not out or out[0] <= 0:
        raise argparse.ArgumentTypeError("--frames takes positive counts")
    return out


def douzero_saves(folder: Path) -> Dict[int, Dict[str, Path]]:
    """DouZero's saved weights in ``folder``: frames -> {position: file}, complete sets only."""
    saves: Dict[int, Dict[str, Path]] = {}
    if folder.is_dir():
        for f in folder.iterdir():
            m = _WEIGHTS.match(f.name)
            if m:
                saves.setdefault(int(m.group(2)), {})[m.group(1)] = f
    return {k: v for k, v in saves.items() if len(v) == len(POSITIONS)}


def _autogroup_nice(pid: int, nice: int) -> None:
    """Give the new session's scheduling group the niceness too. On Linux with autogroup
    scheduling (``/proc/sys/kernel/sched_autogroup_enabled``), each session is its own group and
    the groups share the CPU by the group's niceness, not their processes': DouZero's trainer,
    started in its own session, would otherwise take its even share beside other sessions' work
    whatever ``nice`` says (seen here: a ``nice 19`` job in another session halved its rate until
    that job's group was given niceness 19). Elsewhere there is no such file and nothing to do."""
    try:
        Path(f"/proc/{pid}/autogroup").write_text(f"{nice}\n")
    except OSError:
        pass


def run_douzero(run: Path, frames: int, minutes: float, nice: int, actors: int = 2, threads: int = 1) -> int:
    """Start or resume DouZero's trainer; stop at ``frames`` (it saves there) or after ``minutes``
    (SIGTERM; what it trained since its last save, at most 10 minutes', is lost). Returns the frames
    of its newest save.

    ``actors`` actor processes of ``threads`` torch threads each (``OMP_NUM_THREADS``; 0 leaves
    torch's default of one a core). On two cores two one-thread actors train about 950 frames/s,
    one actor with torch's default threads about 500: DouZero's learner waits on its actors, and
    one actor's forward passes use two threads poorly."""
    savedir = run / "douzero"
    savedir.mkdir(parents=True, exist_ok=True)
    cmd = ["nice", "-n", str(nice), sys.executable, "-c", DOUZERO_CODE, "--actor_device_cpu",
           "--training_device", "cpu", "--num_actors", str(actors), "--savedir", str(savedir), "--xpid", "equal",
           "--save_interval", "10", "--total_frames", str(frames), "--load_model"]
    log = run / "douzero.log"
    with open(log, "a") as out:
        env = torch_threads_prefix(threads)
        out.write(f"# {time.strftime('%Y-%m-%d %H:%M:%S')} {env}{' '.join(cmd[:3])} <douzero.dmc.train> {' '.join(cmd[6:])}\n")
        out.flush()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                env=torch_threads_env(threads))
        _autogroup_nice(proc.pid, nice)
        end = time.monotonic() + minutes * 60
        try:
            while time.monotonic() < end and proc.poll() is None:
                time.sleep(5.0)
        except Stopped:  # SIGTERM (stop_on_sigterm): stop the trainer and report its newest save
            pass
        finally:
            _stop(proc)  # SIGTERM to its process group, then SIGKILL
    saves = douzero_saves(savedir / "equal")
    return max(saves) if saves else 0


def _batch_size(out: Path, extra: List[str]) -> int:
    """The learner's batch of ddz's run in ``out`` (its config.json once started; before, a
    ``--batch-size`` among the extra arguments, else the trainer's default)."""
    cfg = out / "config.json"
    if cfg.exists():
        return int(json.loads(cfg.read_text())["batch_size"])
    for i, a in enumerate(extra):
        if a == "--batch-size" and i + 1 < len(extra):
            return int(extra[i + 1])
        if a.startswith("--batch-size="):
            return int(a.split("=", 1)[1])
    from ddz.learn.dmc import TrainConfig
    return int(TrainConfig().batch_size)


def run_ddz(run: Path, milestones: List[int], extra: List[str]) -> List[Tuple[int, Path]]:
    """ddz's trainer resumed to each milestone in turn, ``model.npz`` copied to a snapshot at each."""
    out = run / "ddz"
    snaps = run / "ddz-snapshots"
    snaps.mkdir(parents=True, exist_ok=True)
    exe = shutil.which("ddz") or "ddz"
    made = []
    for f in milestones:
        snap = snaps / f"model-{f}.npz"
        if snap.exists():
            made.append((f, snap))
            continue
        # the trainer counts frames by learner batches and stops at the first count at or past its
        # target: a target rounded down to whole batches keeps the snapshot at or below f, as
        # compare needs (ddz never has the more frames)
        batch = _batch_size(out, extra)
        cmd = [exe, "train", "--out", str(out), "--frames", str(f // batch * batch), "--quiet"]
        cmd += ["--resume"] if (out / "checkpoint.pt").exists() else DDZ_ARGS + extra
        print(" ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)
        shutil.copyfile(out / "model.npz", snap)
        made.append((f, snap))
    return made


def _frames_of(model: Path) -> int:
    """The frames a ddz model file records it was trained on."""
    from ddz.learn.model import NeuralModel
    return int(NeuralModel.load(model).meta["frames"])


def _checkpoint(tar: Path) -> dict:
    """DouZero's ``model.tar`` read without executing code (it holds tensors, numbers, strings)."""
    import torch
    return torch.load(tar, map_location="cpu", weights_only=True)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def archive(run: Path, dest: Path = ARCHIVE) -> int:
    """Copy DouZero's checkpoint and log from ``run`` into ``dest`` (each file written beside and
    renamed over the old, so an interrupted copy leaves the previous archive whole), with
    ``checkpoint.json`` naming its frames and SHA-256; returns its frames. Refuses to replace an
    archive of more frames."""
    src = run / "douzero" / "equal"
    if not (src / "model.tar").exists():
        raise SystemExit(f"no DouZero checkpoint in {src}: nothing to archive")
    frames = int(_checkpoint(src / "model.tar")["frames"])
    record = dest / "checkpoint.json"
    kept = json.loads(record.read_text())["frames"] if record.exists() else 0
    if kept > frames:
        raise SystemExit(f"{dest} holds a checkpoint of {kept:,} frames, more than {src}'s {frames:,}: not replaced")
    dest.mkdir(parents=True, exist_ok=True)
    for name in _KEPT:
        if (src / name).exists():
            tmp = dest / (name + ".part")
            shutil.copyfile(src / name, tmp)
            os.replace(tmp, dest / name)
    record.write_text(json.dumps({"frames": frames, "sha256": _sha256(dest / "model.tar"),
                               "archived": time.strftime("%Y-%m-%d %H:%M:%S")}, indent=1) + "\n")
    return frames


def restore(run: Path, src: Path = ARCHIVE) -> int:
    """Put the archived checkpoint in ``run`` for the ``douzero`` step to resume from, with its
    weights as DouZero's save of that frame count (``<position>_weights_<frames>.ckpt``) for
    ``compare``; returns its frames. Checks the archive's SHA-256 and refuses to replace a
    checkpoint of more frames."""
    import torch
    info = src / "checkpoint.json"
    if not info.exists():
        raise SystemExit(f"no archived DouZero checkpoint in {src}")
    meta = json.loads(info.read_text())
    if _sha256(src / "model.tar") != meta["sha256"]:
        raise SystemExit(f"{src / 'model.tar'} does not match its SHA-256 in {info}: damaged, not restored")
    dst = run / "douzero" / "equal"
    if (dst / "model.tar").exists():
        have = int(_checkpoint(dst / "model.tar")["frames"])
        if have > meta["frames"]:
            raise SystemExit(f"{dst} already holds {have:,} frames, more than the archive's {meta['frames']:,}")
    dst.mkdir(parents=True, exist_ok=True)
    for name in _KEPT:
        if (src / name).exists():
            shutil.copyfile(src / name, dst / name)
    ckpt = _checkpoint(dst / "model.tar")
    frames = int(ckpt["frames"])
    for pos in POSITIONS:
        torch.save(ckpt["model_state_dict"][pos], dst / f"{pos}_weights_{frames}.ckpt")
    return frames


def compare(run: Path, frames: int, deals: int, seed: int, out: Optional[Path]) -> dict:
    saves = douzero_saves(run / "douzero" / "equal")
    above = sorted(k for k in saves if k >= frames)
    if not above:
        raise SystemExit(f"DouZero's run has no save at or above {frames} frames yet "
                         f"(newest: {max(saves) if saves else 0}); run the douzero step further")
    dz_frames = above[0]
    # ddz's side: its snapshot with the most frames trained (as the model records them) not above
    # DouZero's, so that ddz never has the more frames; within 10 % of DouZero's count
    snaps = {_frames_of(p): p for p in (run / "ddz-snapshots").glob("model-*.npz")}
    mine = sorted((k for k in snaps if k <= dz_frames), reverse=True)
    if not mine or mine[0] < 0.9 * dz_frames:
        raise SystemExit(f"ddz has no snapshot between {int(0.9 * dz_frames):,} and {dz_frames:,} frames "
                         f"(DouZero's save): run the ddz step in a new --dir with --frames {dz_frames}")
    ddz_model = snaps[mine[0]]
    import douzero_protocol as dp
    with tempfile.TemporaryDirectory() as tmp:
        for p, f in saves[dz_frames].items():
            os.symlink(f.resolve(), os.path.join(tmp, f.name))
        a = dp.make_agents(f"neural:{ddz_model}")
        b = dp.make_agents(f"douzero:{tmp}")
        data = dp.deals(deals, seed)
        t = time.perf_counter()
        res = dp.summarise(dp.play(a, b, data), dp.play(b, a, data))  # ddz the landlord, then DouZero
    res.update({"frames": frames, "ddz_frames": mine[0], "douzero_frames": dz_frames, "deals": deals, "seed": seed,
                "ddz_model": str(ddz_model), "douzero_weights": sorted(str(p) for p in saves[dz_frames].values()),
                "seconds": round(time.perf_counter() - t, 1)})
    if out:
        out.write_text(json.dumps(res, indent=1))
    return res


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="step", required=True)
    d = sub.add_parser("douzero", help="start or resume DouZero's trainer")
    d.add_argument("--dir", type=Path, required=True, help="the comparison's run directory")
    d.add_argument("--frames", type=int, default=25_000_000, help="stop at this many frames (default 25M)")
    d.add_argument("--minutes", type=float, default=60.0, help="stop after this many minutes (default 60)")
    d.add_argument("--nice", type=int, default=19, help="its niceness (default 19)")
    d.add_argument("--actors", type=int, default=2, help="DouZero's actor processes (default 2)")
    d.add_argument("--torch-threads", type=int, default=1,
                   help="torch threads a DouZero process (default 1; 0 for torch's default, one a core)")
    z = sub.add_parser("ddz", help="ddz's trainer to the listed frame counts, a snapshot at each")
    z.add_argument("--dir", type=Path, required=True)
    z.add_argument("--frames", type=_frames_arg, required=True, help="counts separated by commas")
    z.add_argument("--train-arg", action="append", default=[], help="one more `ddz train` argument (repeatable)")
    c = sub.add_parser("compare", help="the two agents at about the same frames, DouZero's protocol")
    c.add_argument("--dir", type=Path, required=True)
    c.add_argument("--frames", type=int, required=True)
    c.add_argument("--deals", type=int, default=10_000, help="deals (default 10,000, DouZero's)")
    c.add_argument("--seed", type=int, default=2026)
    c.add_argument("--out", type=Path, default=None, help="write the result as JSON here")
    for name, text in (("archive", "copy DouZero's checkpoint and log into the repository"),
                       ("restore", "put the archived checkpoint back in a run directory")):
        a = sub.add_parser(name, help=text)
        a.add_argument("--dir", type=Path, required=True, help="the comparison's run directory")
        a.add_argument("--archive", type=Path, default=ARCHIVE, help=f"the archive (default {ARCHIVE})")
    args = ap.parse_args(argv)
    if args.step == "douzero":
        stop_on_sigterm()  # a SIGTERM here stops DouZero's trainer too (it runs in its own session)
        got = run_douzero(args.dir, args.frames, args.minutes, args.nice, args.actors, args.torch_threads)
        print(f"DouZero's run: newest save at {got:,} frames (target {args.frames:,})")
    elif args.step == "ddz":
        for f, snap in run_ddz(args.dir, args.frames, args.train_arg):
            print(f"{f:>12,} frames: {snap}")
    elif args.step == "archive":
        print(f"archived DouZero's checkpoint at {archive(args.dir, args.archive):,} frames in {args.archive}")
    elif args.step == "restore":
        print(f"restored DouZero's checkpoint at {restore(args.dir, args.archive):,} frames in {args.dir}")
    else:
        res = compare(args.dir, args.frames, args.deals, args.seed, args.out)
        print(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
