"""How well NeuralSearchBot's bidding estimate (``landlord_worth``: the share of sampled deals the
seat, given the kitty as the landlord, wins when the rollout policy plays the deal out) predicts
the hand's outcome under strong play: for each seat of each deal, its worth p and the result of
the hand played by SearchBot (``search:NODES``) at every seat with that seat made the landlord
(it calls, the others pass, nobody robs or shows). Prints the landlord's win rate by bins of p
(the thresholds ``call_at`` and ``rob_at`` are read off it) and writes the pairs as JSON.

    python benchmarks/bid_calibration.py --deals 100 --out benchmarks/results/nsearch/bid-calibration.json
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, Dict, List

import numpy as np

import ddz
from ddz.bots import SearchBot
from ddz.learn import NeuralSearchBot, shipped_model
from ddz.search.evaluate import deal_seed


def forced_landlord(rules: ddz.Rules, seed: int, seat: int, nodes: int) -> int:
    """1 when ``seat``, made the landlord of deal ``seed``, wins the hand with SearchBot at every
    seat, else 0 (the first bidder is ``seat``; it calls, nobody robs, nobody shows)."""
    g = ddz.Game(rules, seed=seed)
    bots = [SearchBot(time_per_move=None, node_limit=nodes, seed=seed + s) for s in range(rules.players)]
    while g.phase != "PLAY":
        s = g.current_seat
        legal = g.legal_actions()
        if s == seat and "CALL" in legal:
            g.apply("CALL")
        else:
            g.apply(next(t for t in legal if t.startswith("NO_")))
        if g.is_over:
            return -1
    if g.landlord != seat:
        return -1
    while not g.is_over:
        s = g.current_seat
        g.apply(bots[s].act(g, s))
    res = g.result
    return int(res.winner_side == "landlord")


def main(argv: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--nodes", type=int, default=4000, help="SearchBot's node limit (default 4000)")
    ap.add_argument("--bid-worlds", type=int, default=256)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    rules = ddz.Rules.classic()
    bot = NeuralSearchBot(shipped_model("classic"), bid_worlds=args.bid_worlds)
    pairs: List[Dict[str, Any]] = []
    t = time.perf_counter()
    for d in range(args.deals):
        seed = deal_seed(args.seed, d)
        g = ddz.Game(rules, seed=seed)
        for seat in range(rules.players):
            p = bot.landlord_worth(g, seat)
            won = forced_landlord(rules, seed, seat, args.nodes)
            if won >= 0:
                pairs.append({"deal": d, "seat": seat, "p": round(p, 4), "won": won})
    ps = np.array([x["p"] for x in pairs])
    won = np.array([x["won"] for x in pairs])
    print(f"{len(pairs)} hands in {time.perf_counter() - t:.0f} s; landlord win rate {won.mean():.3f}")
    print("p bin        hands  landlord wins")
    bins = [0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01]
    rows = []
    for lo, hi in zip(bins, bins[1:]):
        m = (ps >= lo) & (ps < hi)
        if m.any():
            rows.append({"lo": lo, "hi": min(hi, 1.0), "hands": int(m.sum()), "win_rate": float(won[m].mean())})
            print(f"[{lo:.1f}, {min(hi, 1.0):.1f})  {int(m.sum()):6d}  {won[m].mean():.3f}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"deals": args.deals, "seed": args.seed, "nodes": args.nodes, "bid_worlds": args.bid_worlds,
                       "bins": rows, "pairs": pairs}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
