"""Training frames per second: DouZero's own trainer, then ddz's, one after the other, on DouZero's
network and rules (#25's throughput row).

    python benchmarks/bench_train_vs_douzero.py --minutes 10 --out benchmarks/results/train-throughput.json

Each trainer runs as a child process (its own process group, stopped by SIGTERM / SIGKILL at the
end) for ``--minutes`` of wall time; the rate is the frames it trained between the end of the
``--warmup`` seconds and its last log line, over that time. A frame is what DouZero counts: one
(state, action) pair of one seat, trained on (DouZero adds ``batch_size * unroll_length`` per
learner step; ddz adds its batch size per step).

* **DouZero**: ``douzero.dmc.train`` (the PyPI package, installed with ``--no-deps``; it needs
  torch) as its README runs it on a machine without a GPU: ``--actor_device_cpu
  --training_device cpu``, ``--num_actors 2`` (this machine's cores), every other flag its default
  (RMSprop, lr 1e-4, 32 x 100 frames a step, 4 learner threads, ``adp``); no checkpoints. Its
  processes run with ``OMP_NUM_THREADS=1`` (``--douzero-threads``): torch's default gives each
  actor process as many threads as there are cores, so two actors on two cores would fight over
  them (DouZero trained 181 frames/s so here, and 791 with one thread an actor), while ddz's
  actors set one thread each themselves. Frames are read from its ``logs.csv``.
* **ddz**: ``ddz train --variant classic_douzero --play-only --net douzero`` (DouZero's network:
  an LSTM of 128 over the last 15 plays and five 512-wide layers), DouZero's optimiser and batch
  (``--optimizer rmsprop --lr 1e-4 --batch-size 3200``, ``adp``), ``--mode processes --actors
  2``. Frames are read from its ``log.csv``.

The machine should be idle: the script prints the load average before each run. Report the ratio.
"""
from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import List, Optional, Tuple

DOUZERO_CODE = (
    "import sys\n"
    "from douzero.dmc import parser, train\n"
    "flags = parser.parse_args(sys.argv[1:])\n"
    "train(flags)\n"
)


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM to the child's process group (its actor processes too), SIGKILL after 20 s."""
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
        if proc.poll() is not None:
            break
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue


def torch_threads_env(threads: int) -> dict:
    """The environment for a child whose torch (and its OpenMP / MKL pools) should use ``threads``
    threads a process; 0 leaves torch's default (one a core)."""
    env = dict(os.environ)
    if threads > 0:
        env["OMP_NUM_THREADS"] = env["MKL_NUM_THREADS"] = str(threads)
    return env


def torch_threads_prefix(threads: int) -> str:
    """How a logged command line shows :func:`torch_threads_env`'s setting ("" for torch's default)."""
    return f"OMP_NUM_THREADS={threads} " if threads > 0 else ""


class Stopped(Exception):
    """SIGTERM reached this script: unwinding stops its child trainer (``finally: _stop``)."""


def stop_on_sigterm() -> None:
    """Turn SIGTERM into :class:`Stopped`, so that a script killed by it stops its trainer's
    process group on the way out instead of leaving it running (it runs in its own session)."""
    def _raise(signum, frame):
        raise Stopped(f"signal {signum}")
    signal.signal(signal.SIGTERM, _raise)


def _run(cmd: List[str], seconds: float, log: str, env: Optional[dict] = None) -> None:
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        try:
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                if proc.poll() is not None:
                    raise SystemExit(f"{cmd[0]} ended early (exit {proc.returncode}); see {log}")
                time.sleep(1.0)
        finally:
            _stop(proc)


def _rate(points: List[Tuple[float, int]], warmup: float) -> dict:
    """Frames per second over the log points after the warm-up (first point at or after it)."""
    if len(points) < 2:
        raise SystemExit("too few log points to measure a rate")
    t0 = points[0][0]
    after = [p for p in points if p[0] - t0 >= warmup] or points[-2:]
    (ta, fa), (tb, fb) = after[0], points[-1]
    if tb <= ta:
        (ta, fa) = points[0]
    return {"frames": fb - fa, "seconds": round(tb - ta, 1), "frames_per_s": round((fb - fa) / (tb - ta), 1),
            "frames_total": fb}


def douzero(minutes: float, warmup: float, work: str, actors: int, threads: int = 1) -> dict:
    savedir = os.path.join(work, "douzero")
    cmd = [sys.executable, "-c", DOUZERO_CODE, "--actor_device_cpu", "--training_device", "cpu",
           "--num_actors", str(actors), "--savedir", savedir, "--xpid", "bench", "--disable_checkpoint"]
    log = os.path.join(work, "douzero.log")
    _run(cmd, minutes * 60, log, torch_threads_env(threads))
    # its main loop logs "[INFO:pid dmc:NNN YYYY-MM-DD HH:MM:SS,mmm] After N (...) frames" every 5 s
    points: List[Tuple[float, int]] = []
    line_re = re.compile(r"^\[INFO:\d+ dmc:\d+ (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+)\] After (\d+) ")
    with open(log, errors="replace") as f:
        for line in f:
            m = line_re.match(line)
            if m:
                when = datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()
                points.append((when, int(m.group(2))))
    return {"trainer": "douzero", "command": torch_threads_prefix(threads) + " ".join(["python -c <douzero.dmc.train>"] + cmd[3:]),
            **_rate(points, warmup)}


def ddz(minutes: float, warmup: float, work: str, actors: int, int8: bool = False, learner_threads: int = 1) -> dict:
    out = os.path.join(work, "ddz")
    exe = shutil.which("ddz") or "ddz"
    cmd = [exe, "train", "--variant", "classic_douzero", "--play-only", "--net", "douzero", "--objective", "adp",
           "--optimizer", "rmsprop", "--lr", "1e-4", "--batch-size", "3200", "--mode", "processes",
           "--actors", str(actors), "--checkpoint-every", str(10**12), "--out", out, "--hours", "100", "--quiet"]
    if int8:
        cmd.append("--actor-int8")
    if learner_threads != 1:
        cmd += ["--learner-threads", str(learner_threads)]
    _run(cmd, minutes * 60, os.path.join(work, "ddz.log"))
    points = []
    with open(os.path.join(out, "log.csv")) as f:
        for row in csv.DictReader(f):
            points.append((float(row["wall_time"]), int(row["frames"])))
    return {"trainer": "ddz", "command": " ".join(["ddz"] + cmd[1:]), **_rate(points, warmup)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0, help="wall minutes per trainer (default 10)")
    ap.add_argument("--warmup", type=float, default=60.0, help="seconds left out at each start (default 60)")
    ap.add_argument("--actors", type=int, default=2, help="actor processes of each trainer (default 2)")
    ap.add_argument("--only", choices=("douzero", "ddz"), default=None, help="run one trainer (default both)")
    ap.add_argument("--ddz-int8", action="store_true", help="ddz's actors in int8 (ddz train --actor-int8)")
    ap.add_argument("--ddz-learner-threads", type=int, default=1, help="ddz train --learner-threads (default 1)")
    ap.add_argument("--douzero-threads", type=int, default=1,
                    help="torch threads a DouZero process (OMP_NUM_THREADS; default 1, 0 for torch's default)")
    ap.add_argument("--out", default=None, help="write the results as JSON here")
    args = ap.parse_args()
    stop_on_sigterm()
    results = []
    with tempfile.TemporaryDirectory(prefix="ddz-train-bench-") as work:
        for name in ("douzero", "ddz"):
            if args.only not in (None, name):
                continue
            load = os.getloadavg()
            print(f"{name}: {args.minutes} min (load average before: {load[0]:.2f} {load[1]:.2f})", flush=True)
            r = (ddz(args.minutes, args.warmup, work, args.actors, args.ddz_int8, args.ddz_learner_threads)
                 if name == "ddz"
                 else douzero(args.minutes, args.warmup, work, args.actors, args.douzero_threads))
            r["load_avg_before"] = [round(x, 2) for x in load]
            r["load_avg_after"] = [round(x, 2) for x in os.getloadavg()]
            print(json.dumps(r), flush=True)
            results.append(r)
    summary = {"results": results, "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
               "minutes": args.minutes, "warmup_s": args.warmup}
    rates = {r["trainer"]: r["frames_per_s"] for r in results}
    if "douzero" in rates and "ddz" in rates and rates["douzero"] > 0:
        summary["ratio_ddz_over_douzero"] = round(rates["ddz"] / rates["douzero"], 2)
        print(f"ddz / DouZero: {summary['ratio_ddz_over_douzero']}x "
              f"({rates['ddz']:.0f} against {rates['douzero']:.0f} frames/s)")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(summary, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
