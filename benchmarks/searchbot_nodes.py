"""The node count SearchBot's exact search reaches within a time budget: what ``search:NODES`` in
``benchmarks/match.py`` stands for (#25: SearchBot is limited by the nodes it reaches in 20 ms on
an idle machine, not by a clock, so background load changes no match).

    python benchmarks/searchbot_nodes.py --budget 0.02 --deals 20

A timed SearchBot (``time_per_move=budget``) plays CLASSIC3 hands against two RuleBots; every
call of the solver is recorded. A decision first probes one sampled deal with a quarter of the
budget: the probes that ran out of time (the decisive case: they send the decision to rollouts)
give the node count the budget reaches. Also printed: the solver's rate (nodes per second of
solver time, over calls longer than 2 ms). Run it on an idle core (at normal priority beside
``nice 19`` jobs the figure is the same within a few per cent).
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

import ddz
from ddz import _core
from ddz.bots import RuleBot, SearchBot
from ddz.search import search_bot


def measure(budget: float, deals: int, seed: int, variant: str) -> dict:
    calls = []
    solve = _core._solve

    def recorded(*args):  # (complete, value, moves, wins, nodes, seconds), args[9] the time limit
        res = solve(*args)
        calls.append((bool(res[0]), int(res[4]), float(res[5]), float(args[9])))
        return res

    search_bot._core._solve = recorded  # type: ignore[attr-defined]
    try:
        rules = ddz.Rules.named(variant)
        agents = [SearchBot(time_per_move=budget)] + [RuleBot() for _ in range(rules.players - 1)]
        t = time.perf_counter()
        ddz.evaluate(agents, rules, games=deals, seed=seed)
        wall = time.perf_counter() - t
    finally:
        search_bot._core._solve = solve  # type: ignore[attr-defined]
    done = np.array([c[0] for c in calls])
    nodes = np.array([c[1] for c in calls], dtype=float)
    secs = np.array([c[2] for c in calls])
    limit = np.array([c[3] for c in calls])
    long_ = secs > 0.002
    probe_out = (limit >= budget / 4 * 0.9) & ~done  # probes (a quarter of what was left) that ran out
    out = {"variant": variant, "budget_s": budget, "deals": deals, "seed": seed, "solver_calls": len(calls),
           "complete_share": round(float(done.mean()), 3) if len(calls) else None,
           "nodes_per_s": round(float(np.median(nodes[long_] / secs[long_]))) if long_.any() else None,
           "probes_out_of_time": int(probe_out.sum()), "wall_s": round(wall, 1)}
    if probe_out.any():
        p = np.percentile(nodes[probe_out], [10, 50, 90])
        out.update({"probe_nodes_p10": int(p[0]), "probe_nodes_median": int(p[1]), "probe_nodes_p90": int(p[2])})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=float, default=0.02, help="SearchBot's time_per_move (default 0.02)")
    ap.add_argument("--deals", type=int, default=20, help="duplicate deals (default 20)")
    ap.add_argument("--seed", type=int, default=7, help="deal seed (default 7)")
    ap.add_argument("--variant", default="classic", help="rules (default classic)")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args()
    res = measure(args.budget, args.deals, args.seed, args.variant)
    print(json.dumps(res))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(res, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
