"""A round robin of bots: every pair head to head (``ddz.head_to_head``, every seat assignment of
each deal), each pair's role-balanced WP and score margin with their 95 % intervals, and each bot's
CPU time a decision with a choice (median and p99, over all its matches).

Bots are ``ddz.learn.agents`` specs (``random``, ``rule``, ``search:4000``, ``neural``,
``nsearch``...); under ``--variant classic_rlcard`` RLCard's rule agent (``rlcard``, bidding as
RuleBot) may play too, and a model of another rule set is refused there. Each pair's match is saved
in ``--dir`` as it ends and read back when the script runs again (a long round robin resumes).

    python benchmarks/round_robin.py --bots random,rule,search:4000,neural,nsearch --deals 50 \\
        --dir benchmarks/results/round-robin/classic
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path
from typing import Any, Dict, List

import ddz
import match as mt


def main(argv: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="classic")
    ap.add_argument("--bots", required=True, help="comma-separated agent specs")
    ap.add_argument("--deals", type=int, default=50)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--dir", required=True)
    args = ap.parse_args(argv)
    rules = ddz.Rules.named(args.variant)
    bots = [b for b in args.bots.split(",") if b]
    root = Path(args.dir)
    root.mkdir(parents=True, exist_ok=True)
    times: Dict[str, List[float]] = {b: [] for b in bots}
    pairs: List[Dict[str, Any]] = []
    for a, b in itertools.combinations(bots, 2):
        path = root / f"{a}--{b}.json".replace(":", "_").replace("/", "_")
        if path.exists():
            res = json.loads(path.read_text())
        else:
            ta, tb = mt.Timed(mt.make_agent(a, rules)), mt.Timed(mt.make_agent(b, rules))
            res = mt.match(ta, tb, rules, args.deals, args.seed)
            assert res is not None
            res.pop("table", None)
            res.update({"a": a, "b": b, "times_a": ta.times, "times_b": tb.times})
            path.write_text(json.dumps(res) + "\n")
            print(f"{a} against {b}: WP {res['role_balanced_wp']:.3f}, margin {res['score_margin']:+.2f}", flush=True)
        times[a] += res["times_a"]
        times[b] += res["times_b"]
        pairs.append({k: res[k] for k in ("a", "b", "deals", "role_balanced_wp", "role_balanced_wp_ci",
                                           "score_margin", "score_margin_ci", "landlord_share")})
    cpu = {b: mt.cpu_summary(t) for b, t in times.items()}
    (root / "summary.json").write_text(json.dumps({"variant": args.variant, "deals": args.deals, "seed": args.seed,
                                                   "pairs": pairs, "cpu": cpu}, indent=1) + "\n")
    lines = ["| A | B | deals | A's role-balanced WP | A's score margin | A's landlord share |", "|---|---|---|---|---|---|"]
    for p in pairs:
        lo, hi = p["role_balanced_wp_ci"]
        mlo, mhi = p["score_margin_ci"]
        lines.append(f"| `{p['a']}` | `{p['b']}` | {p['deals']} | {p['role_balanced_wp']:.3f} [{lo:.3f}, {hi:.3f}] | "
                     f"{p['score_margin']:+.2f} [{mlo:+.2f}, {mhi:+.2f}] | {p['landlord_share']:.2f} |")
    lines += ["", "| bot | decisions with a choice | median CPU ms | p99 CPU ms |", "|---|---|---|---|"]
    for b, c in cpu.items():
        lines.append(f"| `{b}` | {c['decisions']:,} | {c['median_ms']} | {c['p99_ms']} |")
    (root / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
