"""SearchBot against RuleBot on duplicate deals (the play phase, roles fixed by the deal).

Each seeded deal is played three times with the same auction (the first bidder calls, nobody
robs or shows, so the landlord is fixed by the deal): RuleBot in every seat (the baseline),
SearchBot as the landlord against RuleBot farmers, and SearchBot in both farmer seats against
a RuleBot landlord. On the same deals, SearchBot's gain in a role is its win rate in that
role minus RuleBot's win rate in that role (paired per deal), with a 95 % confidence interval.

    python benchmarks/searchbot_match.py --deals 300 --budget 0.02
    python benchmarks/searchbot_match.py --deals 50 --budget 1.0 --variant classic
    python benchmarks/searchbot_match.py --merge a.json b.json   # pool runs written with --out

RLCard's rule agent (DouDizhuRuleAgentV1) is not in this script yet: it needs the
``classic_rlcard()`` rule preset and an adapter to RLCard's raw observation.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import List

import ddz
from ddz.bots import RuleBot, SearchBot


def fixed_auction(g: ddz.Game) -> None:
    while g.phase != "PLAY" and not g.is_over:
        la = g.legal_actions()
        pick = [t for t in ("NORMAL_START", "CALL", "BID3", "NO_ROB", "NO_SHOW", "NO_FANSHEN", "NO_YAPO", "CLOSED")
                if t in la]
        g.apply(pick[0] if pick else la[0])


def play(rules: ddz.Rules, seed: int, search_seats: List[int], budget: float, bot_seed: int) -> bool:
    """One hand; True when the landlord wins."""
    g = ddz.Game(rules, seed=seed, first_bidder=0)
    fixed_auction(g)
    landlord = g.landlord
    rule = RuleBot()
    seats = {s: (SearchBot(time_per_move=budget, seed=bot_seed + s) if s in search_seats(landlord) else rule)
             for s in range(g.num_players)}
    while not g.is_over:
        s = g.current_seat
        g.apply(seats[s].act(g, s))
    return g.result.winner_side == "landlord"


def mean_ci(xs: List[float]) -> str:
    n = len(xs)
    m = sum(xs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    h = 1.96 * sd / math.sqrt(n)
    return f"{m:+.3f} [{m - h:+.3f}, {m + h:+.3f}]"


def rate_ci(k: int, n: int) -> str:
    """Wilson 95 % interval."""
    p = k / n
    z = 1.96
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return f"{p:.3f} [{c - h:.3f}, {c + h:.3f}]"


def report(base: List[bool], as_landlord: List[bool], as_farmers: List[bool]) -> None:
    k = len(base)
    print(f"landlord win rate, RuleBot everywhere:      {rate_ci(sum(base), k)}")
    print(f"SearchBot landlord vs RuleBot farmers:      {rate_ci(sum(as_landlord), k)}")
    print(f"RuleBot landlord vs SearchBot farmers:      {rate_ci(sum(as_farmers), k)}")
    print(f"SearchBot gain as landlord (paired):        {mean_ci([x - y for x, y in zip(as_landlord, base)])}")
    print(f"SearchBot gain as farmers (paired):         {mean_ci([y - x for x, y in zip(as_farmers, base)])}")


def merge(paths: List[str]) -> int:
    runs = [json.load(open(p, encoding="utf-8")) for p in paths]
    if len({(r["variant"], r["budget"]) for r in runs}) != 1 or len({r["seed"] for r in runs}) != len(runs):
        print("merge: the runs need one variant and budget and different seeds", file=sys.stderr)
        return 2
    base = [x for r in runs for x in r["baseline"]]
    print(f"{runs[0]['variant']}: {len(base)} duplicate deals from {len(runs)} runs, SearchBot "
          f"{runs[0]['budget'] * 1e3:g} ms per decision")
    report(base, [x for r in runs for x in r["search_landlord"]], [x for r in runs for x in r["search_farmers"]])
    return 0


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="classic", choices=["classic", "two_player", "bengbu"])
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--budget", type=float, default=0.02, help="SearchBot seconds per decision")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default=None, help="write per-deal outcomes as JSON")
    ap.add_argument("--merge", nargs="+", default=None, metavar="JSON", help="pool earlier --out files and report")
    a = ap.parse_args(argv)
    if a.merge:
        return merge(a.merge)
    rules = getattr(ddz.Rules, a.variant)()
    n = rules.players
    base, as_landlord, as_farmers = [], [], []
    t0 = time.perf_counter()
    for d in range(a.deals):
        seed = a.seed * 100_000 + d
        base.append(play(rules, seed, lambda ll: [], a.budget, d))
        as_landlord.append(play(rules, seed, lambda ll: [ll], a.budget, d))
        as_farmers.append(play(rules, seed, lambda ll: [s for s in range(n) if s != ll], a.budget, d))
    secs = time.perf_counter() - t0
    print(f"{a.variant}: {len(base)} duplicate deals, SearchBot {a.budget * 1e3:g} ms per decision, {secs:.0f} s")
    report(base, as_landlord, as_farmers)
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump({"variant": a.variant, "budget": a.budget, "seed": a.seed, "baseline": base,
                       "search_landlord": as_landlord, "search_farmers": as_farmers}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
