"""Whether the search could judge TWOP's 翻身 / 压迫: how well the estimate NeuralSearchBot bids
by, taken at the doubling window (``side_worth``: the share of sampled deals a seat's side wins
when the core's rollout policy plays the hand out from where it stands), predicts the hand's
outcome under strong play. Each deal's auction is RuleBot's (no 明牌开始); at the farmer's 翻身
decision the farmer's and the landlord's estimates are taken, nobody doubles, and SearchBot
(``search:NODES``) plays both seats to the end. Prints the farmer's win rate by bins of each
estimate (where a threshold for doubling would sit, if any pays) and writes the triples as JSON.

    python benchmarks/double_calibration.py --deals 1000 --out benchmarks/results/nsearch/double-calibration.json
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, Dict, List

import numpy as np

import ddz
from ddz import _core
from ddz.bots import RuleBot, SearchBot
from ddz.search.evaluate import deal_seed
from ddz.search.sample import sample_deals
from ddz.search.search_bot import _position

from bid_calibration import bins  # this folder's sibling script

BINS = [0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01]


def side_worth(game: ddz.Game, seat: int, worlds: int, seed: int) -> float:
    """The share of ``worlds`` deals sampled from ``seat``'s observation that ``seat``'s side wins
    when the rollout policy plays the hand out from where it stands (the play to beat, the passes
    and the bomb limits as they are, the seat to play first): ``NeuralSearchBot.landlord_worth``
    taken mid-hand. TWOP's play state is live at the 翻身 / 压迫 decisions."""
    obs = game.observation(seat)
    sides = [0 if s == obs["landlord"] else 1 for s in range(game.rules.players)]
    top, owner, passes, left = _position(game, obs)
    ps = game.play_state
    assert ps is not None and ps.current_seat is not None, "the play state is live at 翻身 / 压迫"
    mover = ps.current_seat
    wins = 0
    rows = sample_deals(obs, worlds, seed=seed)
    for row in rows:
        out, _ = _core._rollout(game.rules, [int(w) for w in row], mover, top, owner, passes, left, sides)
        wins += int(sides[out] == sides[seat])
    return wins / len(rows)


def main(argv: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--nodes", type=int, default=4000, help="SearchBot's node limit (default 4000)")
    ap.add_argument("--worlds", type=int, default=256, help="the estimate's sampled deals (bid_worlds)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    rules = ddz.Rules.named("twop")
    rule = RuleBot()
    triples: List[Dict[str, Any]] = []
    t = time.perf_counter()
    for d in range(args.deals):
        seed = deal_seed(args.seed, d)
        g = ddz.Game(rules, seed=seed)
        while not g.is_over and g.phase != "FANSHEN":
            s = g.current_seat
            g.apply("NORMAL_START" if g.phase == "PRE_DEAL" else rule.act(g, s))
        if g.is_over:  # nobody called, or the landlord went out on its lead
            continue
        farmer = g.current_seat
        assert farmer is not None
        pf = side_worth(g, farmer, args.worlds, seed)
        pl = side_worth(g, 1 - farmer, args.worlds, seed + 1)
        ruled = rule.act(g, farmer) == "FANSHEN"
        g.apply("NO_FANSHEN")
        searchers = [SearchBot(time_per_move=None, node_limit=args.nodes, seed=seed + s) for s in range(2)]
        while not g.is_over:
            s = g.current_seat
            assert s is not None
            g.apply(searchers[s].act(g, s))
        triples.append({"deal": d, "farmer": round(pf, 4), "landlord": round(pl, 4),
                        "rule_fanshen": int(ruled), "farmer_won": int(g.result.winner_side != "landlord")})
    pfs = np.array([x["farmer"] for x in triples])
    pls = np.array([x["landlord"] for x in triples])
    won = np.array([x["farmer_won"] for x in triples])
    print(f"{len(triples)} hands in {time.perf_counter() - t:.0f} s; the farmer won {won.mean():.3f}")
    ruled = np.array([x["rule_fanshen"] for x in triples], dtype=bool)
    if ruled.any():
        print(f"RuleBot's farmer would double {ruled.sum()} hands; the farmer won {won[ruled].mean():.3f} of them")
    farmer_rows = bins(pfs, won, "farmer's p", BINS, "rate won")
    landlord_rows = bins(pls, 1 - won, "landlord's p", BINS, "rate won")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"deals": args.deals, "seed": args.seed, "nodes": args.nodes, "worlds": args.worlds,
                       "farmer_bins": farmer_rows, "landlord_bins": landlord_rows, "hands": triples}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
