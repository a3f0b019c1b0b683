"""Training frames per second of ``ddz.learn``'s Deep Monte-Carlo trainer (a frame: one decision of
one seat trained on, as DouZero counts), per network preset, in one thread.

    nice python benchmarks/bench_learn.py --seconds 90            # small and douzero, CLASSIC3
    nice python benchmarks/bench_learn.py --net douzero --variant classic_douzero

Reports frames per wall second and per CPU second of this process (the second is what other jobs
on a shared machine inflate least). Needs torch.
"""
from __future__ import annotations

import argparse
import json
import os
import time

from ddz.learn.dmc import TrainConfig, Trainer


def rate(net: str, variant: str, seconds: float, mode: str = "single", actors: int = 1) -> dict:
    tr = Trainer(TrainConfig(variant=variant, net=net, mode=mode, actors=actors, checkpoint_every=10**12))
    tr.train(frames=20_000)  # warm up: buffers filled, allocator settled
    f0, w0, c0 = tr.frames, time.perf_counter(), time.process_time()
    tr.train(seconds=seconds)
    frames, wall, cpu = tr.frames - f0, time.perf_counter() - w0, time.process_time() - c0
    if mode == "processes":  # the actors' CPU time is their own (reaped children's)
        cpu = float("nan")
    params = sum(p.numel() for p in tr.model.parameters())
    return {"net": net, "variant": variant, "mode": mode, "actors": actors, "params": params, "frames": frames,
            "wall_s": round(wall, 1), "cpu_s": round(cpu, 1) if cpu == cpu else None, "frames_per_wall_s": round(frames / wall),
            "frames_per_cpu_s": round(frames / cpu) if cpu == cpu else None, "load_avg_1min": os.getloadavg()[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--net", default=None, choices=("small", "douzero"), help="one preset (default: both)")
    ap.add_argument("--variant", default="classic", help="rules (default classic)")
    ap.add_argument("--seconds", type=float, default=60.0, help="timed seconds per preset (default 60)")
    ap.add_argument("--mode", default="single", choices=("single", "threads", "processes"), help="trainer mode (default single)")
    ap.add_argument("--actors", type=int, default=1, help="actor threads in threads mode (default 1)")
    ap.add_argument("--out", default=None, help="append the results as JSON lines to this file")
    args = ap.parse_args()
    for net in [args.net] if args.net else ["small", "douzero"]:
        r = rate(net, args.variant, args.seconds, args.mode, args.actors)
        print(json.dumps(r), flush=True)
        if args.out:
            with open(args.out, "a") as f:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
