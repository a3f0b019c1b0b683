"""Two agents in whole hands, bidding included, on seat-rotation duplicates (the protocol of
docs/models.md): each seeded deal is played under every assignment of the two agents to the
seats — CLASSIC3: A in one seat and B in the other two, then B in one and A in two, each rotated
over the three seats (6 games a deal); TWOP: A and B, rotated (2 games); BENGBU4: 1 + 3 and 3 + 1,
rotated over the four seats (8 games). A's win rate is the share of A's seat-games whose side won
(a game with A seats on both sides counts each seat), with a 95 % interval over deals (the
independent unit); the mean score likewise.

Agents: ``rule`` (RuleBot), ``random``, ``search:NODES`` (SearchBot limited by a node count, no
clock: background load changes nothing), ``neural`` (the shipped model of the variant, when the
package has one) or ``neural:PATH`` (a model file), ``rlcard`` (RLCard's rule agent under
``Rules.classic_rlcard()``; it cannot bid, so its seats bid as RuleBot does), and the model inside
SearchBot's search (``benchmarks/hybrid_agents.py``): ``neural+exact:NODES`` (the model, with the
exact search in the endgame) and ``neural+search:NODES[:TOPK]`` (SearchBot's play, the model's bids
and ties, its TOPK best actions the only candidates when given), either with ``@PATH`` for a model
file instead of the shipped one.

    python benchmarks/match.py --variant classic --a neural:benchmarks/results/train-classic-whole/model.npz \\
        --b rule --deals 500
    python benchmarks/match.py --variant classic --a search:4000 --b rule --deals 300 --out search_vs_rule.json
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Any, Dict, List

import numpy as np

import ddz
from ddz.bots import Bot, RandomBot, RuleBot, SearchBot


class BidsAsRuleBot(Bot):
    """A bot whose auction decisions are RuleBot's and whose plays are another bot's."""

    def __init__(self, player: Any) -> None:
        self.player, self.bidder = player, RuleBot()
        self.name = getattr(player, "name", type(player).__name__)

    def reseed(self, seed: int) -> None:
        if hasattr(self.player, "reseed"):
            self.player.reseed(seed)

    def act(self, game: Any, seat: int) -> Any:
        return self.player.act(game, seat) if game.phase == "PLAY" else self.bidder.act(game, seat)


def make_agent(spec: str, rules: ddz.Rules) -> Any:
    kind, _, arg = spec.partition(":")
    if kind == "rule":
        return RuleBot()
    if kind == "random":
        return RandomBot(0)
    if kind == "search":
        return SearchBot(time_per_move=None, node_limit=int(arg or 4000))
    if kind == "neural":
        from ddz.learn import NeuralBot
        if arg:
            return NeuralBot(arg)
        from ddz import learn
        return learn.NeuralBot.shipped(rules)  # type: ignore[attr-defined]
    if kind in ("neural+exact", "neural+search"):
        import hybrid_agents as H
        nums, _, path = arg.partition("@")
        model = path or _shipped(rules)
        parts = [int(x) for x in nums.split(":") if x]
        if kind == "neural+exact":
            return H.NeuralExact(model, node_limit=parts[0] if parts else 26000)
        return H.NeuralSearch(model, node_limit=parts[0] if parts else 4000, topk=parts[1] if len(parts) > 1 else None)
    if kind == "rlcard":
        from ddz.peers import RLCardRuleBot
        return BidsAsRuleBot(RLCardRuleBot())
    raise SystemExit(f"unknown agent {spec!r}: rule, random, search:NODES, neural[:PATH], rlcard, "
                     "neural+exact:NODES[@PATH], neural+search:NODES[:TOPK][@PATH]")


def _shipped(rules: ddz.Rules) -> Any:
    from ddz import learn
    return learn.shipped_model(rules)  # type: ignore[attr-defined]


def assignments(players: int) -> List[List[str]]:
    """The seat lists of the two configurations (each is rotated over the seats by evaluate)."""
    if players == 2:
        return [["A", "B"]]
    return [["A"] + ["B"] * (players - 1), ["B"] + ["A"] * (players - 1)]


def match(a: Any, b: Any, rules: ddz.Rules, deals: int, seed: int) -> Dict[str, Any]:
    wins = np.zeros(deals)
    games = np.zeros(deals)
    score = np.zeros(deals)
    by_config = {}
    for seats in assignments(rules.players):
        agents = [a if s == "A" else b for s in seats]
        res = ddz.evaluate(agents, rules, games=deals, seed=seed)
        mine = [i for i, s in enumerate(seats) if s == "A"]
        won = res.won[:, :, mine]
        wins += won.sum(axis=(1, 2))
        games += won.size // deals
        score += res.scores[:, :, mine].sum(axis=(1, 2))
        # A's win rate in this configuration alone; the share of its seat-games as the landlord
        # and the win rate in those (a configuration with two A seats: an A landlord has an A farmer
        # against it, so those seat-games win exactly half)
        lord = res.role[:, :, mine] == 0
        by_config["".join(seats)] = {"wp": float(won.mean()), "seat_games": int(won.size),
                                     "landlord_share": float(lord.mean()),
                                     "wp_landlord": float(won[lord].mean()) if lord.any() else None,
                                     "wp_farmer": float(won[~lord].mean()) if (~lord).any() else None}
    per_deal = wins / games
    wp = float(wins.sum() / games.sum())
    half = 1.96 * float(per_deal.std(ddof=1)) / math.sqrt(deals) if deals > 1 else float("nan")
    ms = score / games
    ms_half = 1.96 * float(ms.std(ddof=1)) / math.sqrt(deals) if deals > 1 else float("nan")
    return {"wp": wp, "wp_ci": [wp - half, wp + half], "mean_score": float(ms.mean()),
            "mean_score_ci": [float(ms.mean()) - ms_half, float(ms.mean()) + ms_half],
            "deals": deals, "games": int(games.sum()), "by_configuration": by_config}


def main(argv: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="classic", help="classic, twop, bengbu or a compat preset (default classic)")
    ap.add_argument("--a", required=True, help="agent A (see the module docstring)")
    ap.add_argument("--b", required=True, help="agent B")
    ap.add_argument("--deals", type=int, default=200, help="seeded deals (default 200)")
    ap.add_argument("--seed", type=int, default=2026, help="deal seed (default 2026)")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)
    from ddz.learn.dmc import rules_for
    rules = rules_for(args.variant)
    a, b = make_agent(args.a, rules), make_agent(args.b, rules)
    t = time.perf_counter()
    res = match(a, b, rules, args.deals, args.seed)
    res.update({"variant": args.variant, "a": args.a, "b": args.b, "seed": args.seed,
                "seconds": round(time.perf_counter() - t, 1)})
    print(f"{args.a} against {args.b}, {rules!r}, {args.deals} deals ({res['games']} seat-games of A): "
          f"WP {res['wp']:.3f} [{res['wp_ci'][0]:.3f}, {res['wp_ci'][1]:.3f}], "
          f"mean score {res['mean_score']:+.3f} [{res['mean_score_ci'][0]:+.3f}, {res['mean_score_ci'][1]:+.3f}]")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
