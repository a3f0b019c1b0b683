"""The rows of a markdown table from ``match.py --out`` JSON files: the rules, A, B, deals, the role-balanced
WP and the score margin with their 95 % intervals, A's win rates alone as landlord and as farmers,
A's landlord share, and each agent's median CPU time a decision with a choice.

    python benchmarks/match_table.py benchmarks/results/nsearch/*.json
"""
from __future__ import annotations

import json
import sys
from typing import Any, Dict, List


def row(d: Dict[str, Any]) -> str:
    lo, hi = d["role_balanced_wp_ci"]
    mlo, mhi = d["score_margin_ci"]
    cpu_a = (d.get("cpu_a") or {}).get("median_ms")
    cpu_b = (d.get("cpu_b") or {}).get("median_ms")
    cpu = f"{cpu_a:.1f} / {cpu_b:.1f}" if cpu_a is not None and cpu_b is not None else ""
    landlord = "" if d.get("wp_a_landlord") is None else f"{d['wp_a_landlord']:.3f}"
    farmers = "" if d.get("wp_a_farmers") is None else f"{d['wp_a_farmers']:.3f}"
    return (f"| {d.get('variant', '')} | `{d.get('a_spec', d['a'])}` | `{d.get('b_spec', d['b'])}` | {d['deals']:,} | "
            f"**{d['role_balanced_wp']:.3f}** [{lo:.3f}, {hi:.3f}] | {landlord} | {farmers} | "
            f"**{d['score_margin']:+.2f}** [{mlo:+.2f}, {mhi:+.2f}] | {d['landlord_share']:.2f} | {cpu} |")


HEADER = ["| rules | A | B | deals | role-balanced WP | A alone as landlord | A's farmers | score margin | A's landlord share "
          "| median CPU ms a decision (A / B) |", "|---|---|---|---|---|---|---|---|---|---|"]


def main(argv: List[str]) -> int:
    print("\n".join(HEADER))
    for path in argv:
        with open(path) as f:
            d = json.load(f)
        if "role_balanced_wp" in d:  # a match's result (other JSON files are passed over)
            print(row(d))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
