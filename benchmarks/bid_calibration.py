"""How well NeuralSearchBot's bidding estimate (``landlord_worth``: the share of sampled deals the
seat, given the kitty as the landlord, wins when the rollout policy plays the deal out) predicts
the hand's outcome under strong play: for each seat of each deal, its worth p and the result of
the hand played by SearchBot (``search:NODES``) at every seat with that seat made the landlord
(it calls, the others pass, nobody robs or shows). Prints the landlord's win rate by bins of p
(the thresholds ``call_at`` and ``rob_at`` are read off it) and writes the pairs as JSON.

With ``--net-kitties K`` it also takes the network's own estimate, ``p_net``: the seat made the
landlord with each of K kitties drawn from the cards it cannot see, the model's win value of its
best opening lead, ``(W + 1) / 2``, averaged over the K (what the seat sees then: its hand and the
kitty); and reports how well each estimate, their mean and ``RuleBot``'s hand strength (what it
calls and robs by) rank the hands (AUC: the chance that a won hand reads higher than a lost one).

    python benchmarks/bid_calibration.py --deals 100 --out benchmarks/results/nsearch/bid-calibration.json
    python benchmarks/bid_calibration.py --deals 250 --net-kitties 16 --out benchmarks/results/nsearch/bid-estimates.json
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from typing import Any, Dict, List

import numpy as np

import ddz
from ddz.bots import SearchBot, hand_strength
from ddz.learn import NeuralSearchBot, shipped_model
from ddz.core.cards import deck_ids
from ddz.search.evaluate import deal_seed

BINS = [0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01]


def forced_landlord(rules: ddz.Rules, seed: int, seat: int, nodes: int) -> int:
    """1 when ``seat``, made the landlord of deal ``seed``, wins the hand with SearchBot at every
    seat, else 0 (the first bidder is ``seat``; it calls, nobody robs, nobody shows)."""
    g = ddz.Game(rules, seed=seed)
    bots = [SearchBot(time_per_move=None, node_limit=nodes, seed=seed + s) for s in range(rules.players)]
    while g.phase != "PLAY":
        s = g.current_seat
        assert s is not None
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
        assert s is not None
        g.apply(bots[s].act(g, s))
    res = g.result
    assert res is not None
    return int(res.winner_side == "landlord")


def net_worth(bot: NeuralSearchBot, g: ddz.Game, seat: int, kitties: int, rng: np.random.Generator) -> float:
    """The model's win estimate for ``seat`` as the landlord of deal ``g``: the mean over
    ``kitties`` kitties drawn from the cards ``seat`` cannot see of ``(W + 1) / 2``, W the win value
    of its best opening lead (the other hands are dealt at random: the seat does not see them)."""
    rules = g.rules
    own = [card[0] for card in g.cards(seat)]
    unseen = list((Counter(ddz.card_name(i)[0] for i in deck_ids(1)) - Counter(own)).elements())
    values = []
    for _ in range(kitties):
        cards = [unseen[i] for i in rng.permutation(len(unseen))]
        kitty, rest = cards[:3], cards[3:]
        hands = [""] * rules.players
        hands[seat] = "".join(own)
        for k, other in enumerate(s for s in range(rules.players) if s != seat):
            hands[other] = "".join(rest[17 * k:17 * (k + 1)])
        h = ddz.Game(rules, hands=hands, kitty="".join(kitty), first_bidder=seat)
        h.apply("CALL")
        while h.phase != "PLAY":
            h.apply(next(t for t in h.legal_actions() if t.startswith("NO_")))
        _, out = bot.net.scores(h, seat, heads=True)
        values.append((float(out[:, 0].max()) + 1.0) / 2.0)
    return float(np.mean(values))


def auc(x: Any, won: Any) -> float:
    """The chance that a won hand's estimate is above a lost one's (ties count half)."""
    pos, neg = x[won == 1][:, None], x[won == 0][None, :]
    return float((pos > neg).mean() + 0.5 * (pos == neg).mean())


def bins(x: Any, won: Any, title: str, edges: List[float] = BINS,
         outcome: str = "landlord wins") -> List[Dict[str, Any]]:
    """The rate of ``won`` (0 or 1 a hand) by bins of the estimate ``x`` (``edges``, the last one
    above 1), printed under ``title`` and returned as rows."""
    print(f"{title:<12} hands  {outcome}")
    rows = []
    for lo, hi in zip(edges, edges[1:]):
        m = (x >= lo) & (x < hi)
        if m.any():
            rows.append({"lo": lo, "hi": min(hi, 1.0), "hands": int(m.sum()), "win_rate": float(won[m].mean())})
            print(f"[{lo:.1f}, {min(hi, 1.0):.1f})  {int(m.sum()):6d}  {won[m].mean():.3f}")
    return rows


def main(argv: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--nodes", type=int, default=4000, help="SearchBot's node limit (default 4000)")
    ap.add_argument("--bid-worlds", type=int, default=256)
    ap.add_argument("--net-kitties", type=int, default=0,
                    help="also the network's estimate, over this many kitties (default 0: not taken)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    rules = ddz.Rules.classic()
    bot = NeuralSearchBot(shipped_model("classic"), bid_worlds=args.bid_worlds)
    rng = np.random.default_rng(args.seed)
    pairs: List[Dict[str, Any]] = []
    t = time.perf_counter()
    for d in range(args.deals):
        seed = deal_seed(args.seed, d)
        g = ddz.Game(rules, seed=seed)
        for seat in range(rules.players):
            p = bot.landlord_worth(g, seat)
            p_net = net_worth(bot, g, seat, args.net_kitties, rng) if args.net_kitties else None
            result = forced_landlord(rules, seed, seat, args.nodes)
            if result >= 0:
                pairs.append({"deal": d, "seat": seat, "p": round(p, 4), "won": result,
                              "strength": hand_strength(g.hand(seat))})
                if p_net is not None:
                    pairs[-1]["p_net"] = round(p_net, 4)
    ps = np.array([x["p"] for x in pairs])
    won = np.array([x["won"] for x in pairs])
    print(f"{len(pairs)} hands in {time.perf_counter() - t:.0f} s; landlord win rate {won.mean():.3f}")
    rows = bins(ps, won, "p bin")
    net_rows: List[Dict[str, Any]] = []
    if args.net_kitties:
        pn = np.array([x["p_net"] for x in pairs])
        net_rows = bins(pn, won, "p_net bin")
        strength = np.array([x["strength"] for x in pairs])
        print(f"AUC: p {auc(ps, won):.3f}, p_net {auc(pn, won):.3f}, their mean {auc((ps + pn) / 2, won):.3f}, "
              f"RuleBot's hand strength {auc(strength, won):.3f}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"deals": args.deals, "seed": args.seed, "nodes": args.nodes, "bid_worlds": args.bid_worlds,
                       "net_kitties": args.net_kitties, "bins": rows, "net_bins": net_rows, "pairs": pairs}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
