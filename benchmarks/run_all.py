"""Every named speed workload of benchmarks/workloads.py, as one table of rates and ratios.

    python benchmarks/run_all.py                 # all workloads
    python benchmarks/run_all.py --only count.   # names starting with 'count.'
    python benchmarks/run_all.py --scale 0.1     # fewer hands (a quick look)
    python benchmarks/run_all.py --dispatch 0    # the portable scalar build
    python benchmarks/run_all.py --cpu           # CPU time instead of wall time (a shared machine)
    python benchmarks/run_all.py --long          # with the long ones (training: 10 min a trainer)
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W  # noqa: E402

import ddz  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="", help="comma-separated name prefixes")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per workload, best taken (default 3)")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every workload's hand count")
    ap.add_argument("--dispatch", type=int, choices=(0, 1), default=None,
                    help="0: the portable scalar build, 1: the AVX2/BMI2 build (default: the fastest available)")
    ap.add_argument("--cpu", action="store_true", help="time by this process's CPU time, not wall time")
    ap.add_argument("--long", action="store_true",
                    help="include the long workloads (minutes each: train.*); --only takes them by name anyway")
    args = ap.parse_args(argv)
    if args.cpu:
        W.use_cpu_clock()
    if args.dispatch is not None:
        ddz.set_dispatch_level(args.dispatch)
    prefixes = [p for p in args.only.split(",") if p]
    chosen = [w for w in W.WORKLOADS if (any(w.name.startswith(p) for p in prefixes) if prefixes
                                         else args.long or not w.long)]
    # a ratio needs its reference workload in the same run
    names = {w.name for w in chosen}
    chosen = [w for w in W.WORKLOADS if w.name in names or any(c.vs == w.name for c in chosen)]
    print(f"ddz {ddz.__version__}, dispatch level {ddz.dispatch_level()}, best of {args.repeat}, scale {args.scale}, "
          f"{'CPU' if args.cpu else 'wall'} time")
    results = W.measure(chosen, args.repeat, args.scale)
    head = f"{'workload':38s} {'rules':18s} {'cards':>6s} {'rate':>14s} {'unit':8s} {'plays':>6s} {'ns/move':>8s} {'ratio':>7s}  target / what"
    print(head)
    print("-" * len(head))
    for r in results:
        w = r.workload
        ns = f"{r.ns_per_move:8.2f}" if r.ns_per_move else f"{'':8s}"
        ratio = f"{r.ratio:6.1f}x" if r.ratio else f"{'':7s}"
        print(f"{w.name:38s} {w.rules:18s} {w.hand_size:>6d} {r.rate:>14,.0f} {r.unit:8s} {r.moves_per_hand:>6.1f} "
              f"{ns} {ratio}  {w.target} · {W.WHAT[w.kind]}" + (f" vs {w.vs}" if w.vs else ""))


if __name__ == "__main__":
    main()
