"""SearchBot against RuleBot or RLCard's rule agent on duplicate deals (the play phase, roles
fixed by the deal).

Each seeded deal is played three times with the same auction (the first bidder calls, nobody
robs or shows, so the landlord is fixed by the deal): the opponent bot in every seat (the
baseline), SearchBot as the landlord against opponent farmers, and SearchBot in both farmer
seats against an opponent landlord. On the same deals, SearchBot's gain in a role is its win
rate in that role minus the opponent's win rate in that role (paired per deal), with a 95 %
confidence interval.

``--opponent rulebot`` (the default) is ``ddz.bots.RuleBot`` under the chosen variant;
``--opponent rlcard`` is RLCard's ``DouDizhuRuleAgentV1`` (``ddz.peers.RLCardRuleBot``, which
gives it RLCard's raw observation) under ``Rules.classic_rlcard()``; each of its seats draws
from its own generator, seeded by the deal and the seat, so the three plays of a deal give it
the same draws.

    python benchmarks/searchbot_match.py --deals 300 --budget 0.02
    python benchmarks/searchbot_match.py --deals 50 --budget 1.0 --variant classic
    python benchmarks/searchbot_match.py --opponent rlcard --deals 2000 --budget 0.02
    python benchmarks/searchbot_match.py --merge a.json b.json   # pool runs written with --out

With ``--out`` the per-deal outcomes are rewritten after every deal, so an interrupted run
keeps the deals it finished.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Callable, List

import ddz
from ddz.bots import Bot, RuleBot, SearchBot
from ddz.peers import fixed_auction_action

OPPONENTS = {"rulebot": "RuleBot", "rlcard": "RLCard agent"}


def fixed_auction(g: ddz.Game) -> None:
    while g.phase != "PLAY" and not g.is_over:
        g.apply(fixed_auction_action(g.legal_actions()))


def opponent_bots(opponent: str, n: int, bot_seed: int) -> List[Bot]:
    """The baseline bot of each seat: one RuleBot (it keeps no state), or an RLCard agent per
    seat seeded by the deal and the seat."""
    if opponent == "rlcard":
        from ddz.peers import RLCardRuleBot

        return [RLCardRuleBot(seed=bot_seed * n + s) for s in range(n)]
    return [RuleBot()] * n


def play(rules: ddz.Rules, seed: int, search_seats: Callable[[int], List[int]], budget: float, bot_seed: int,
         opponent: str = "rulebot") -> bool:
    """One hand; True when the landlord wins."""
    g = ddz.Game(rules, seed=seed, first_bidder=0)
    fixed_auction(g)
    landlord = g.landlord
    base = opponent_bots(opponent, g.num_players, bot_seed)
    seats = {s: (SearchBot(time_per_move=budget, seed=bot_seed + s) if s in search_seats(landlord) else base[s])
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


def report(base: List[bool], as_landlord: List[bool], as_farmers: List[bool], opponent: str = "rulebot") -> None:
    k = len(base)
    o = OPPONENTS[opponent]
    print(f"{'landlord win rate, ' + o + ' everywhere:':44s}{rate_ci(sum(base), k)}")
    print(f"{'SearchBot landlord vs ' + o + ' farmers:':44s}{rate_ci(sum(as_landlord), k)}")
    print(f"{o + ' landlord vs SearchBot farmers:':44s}{rate_ci(sum(as_farmers), k)}")
    print(f"{'SearchBot gain as landlord (paired):':44s}{mean_ci([x - y for x, y in zip(as_landlord, base)])}")
    print(f"{'SearchBot gain as farmers (paired):':44s}{mean_ci([y - x for x, y in zip(as_farmers, base)])}")


def merge(paths: List[str]) -> int:
    runs = [json.load(open(p, encoding="utf-8")) for p in paths]
    if (len({(r["variant"], r["budget"], r.get("opponent", "rulebot")) for r in runs}) != 1
            or len({(r["seed"], r.get("first_deal", 0)) for r in runs}) != len(runs)):
        print("merge: the runs need one variant, budget and opponent and different seeds or first deals",
              file=sys.stderr)
        return 2
    opponent = runs[0].get("opponent", "rulebot")
    base = [x for r in runs for x in r["baseline"]]
    print(f"{runs[0]['variant']}: {len(base)} duplicate deals from {len(runs)} runs, SearchBot "
          f"{runs[0]['budget'] * 1e3:g} ms per decision against {OPPONENTS[opponent]}")
    report(base, [x for r in runs for x in r["search_landlord"]], [x for r in runs for x in r["search_farmers"]],
           opponent)
    return 0


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="classic", choices=["classic", "two_player", "bengbu"])
    ap.add_argument("--opponent", default="rulebot", choices=list(OPPONENTS),
                    help="the baseline bot (rlcard: RLCard's rule agent under Rules.classic_rlcard(), CLASSIC3 only)")
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--budget", type=float, default=0.02, help="SearchBot seconds per decision")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--first-deal", type=int, default=0,
                    help="play deals first-deal .. first-deal + deals - 1 of the seed's series (to split a run)")
    ap.add_argument("--out", default=None, help="write per-deal outcomes as JSON")
    ap.add_argument("--merge", nargs="+", default=None, metavar="JSON", help="pool earlier --out files and report")
    a = ap.parse_args(argv)
    if a.merge:
        return merge(a.merge)
    if a.opponent == "rlcard":
        if a.variant != "classic":
            print("--opponent rlcard plays CLASSIC3 only (Rules.classic_rlcard())", file=sys.stderr)
            return 2
        rules, variant = ddz.Rules.classic_rlcard(), "classic_rlcard"
    else:
        rules, variant = getattr(ddz.Rules, a.variant)(), a.variant
    n = rules.players
    base: List[bool] = []
    as_landlord: List[bool] = []
    as_farmers: List[bool] = []

    def save() -> None:
        if a.out:
            with open(a.out, "w", encoding="utf-8") as f:
                json.dump({"variant": variant, "opponent": a.opponent, "budget": a.budget, "seed": a.seed,
                           "first_deal": a.first_deal, "baseline": base, "search_landlord": as_landlord, "search_farmers": as_farmers}, f)

    t0 = time.perf_counter()
    for d in range(a.first_deal, a.first_deal + a.deals):
        seed = a.seed * 100_000 + d
        base.append(play(rules, seed, lambda ll: [], a.budget, d, a.opponent))
        as_landlord.append(play(rules, seed, lambda ll: [ll], a.budget, d, a.opponent))
        as_farmers.append(play(rules, seed, lambda ll: [s for s in range(n) if s != ll], a.budget, d, a.opponent))
        save()
    secs = time.perf_counter() - t0
    print(f"{variant}: {len(base)} duplicate deals, SearchBot {a.budget * 1e3:g} ms per decision against "
          f"{OPPONENTS[a.opponent]}, {secs:.0f} s")
    report(base, as_landlord, as_farmers, a.opponent)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
