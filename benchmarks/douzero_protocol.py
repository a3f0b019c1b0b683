"""Two agents in DouZero's own evaluation protocol, in DouZero's own harness (#25's play-phase
comparison with DouZero's trainer).

    python benchmarks/douzero_protocol.py --a neural:runs/dz/model.npz --b douzero:douzero_checkpoints/douzero \\
        --deals 10000 --out result.json

DouZero's protocol: a fixed seeded set of deals under ``Rules.classic_douzero()`` (the deck
shuffled, the landlord's 20 cards with the three kitty cards, 17 to each farmer: DouZero's
``generate_eval_data`` layout), the landlord fixed by the deal, no auction. Each deal is played
twice: A as the landlord against B as both farmers, then B as the landlord against A. The games
run in DouZero's ``GameEnv`` (``douzero.env.game``, installed with ``pip install --no-deps
douzero``), whose score rule counts: the landlord ±2 × 2^bombs, the farmers ±1 × 2^bombs.
Reported, as DouZero's ``evaluate`` prints them: per role the WP (wins over deals) and the ADP
(the landlord's score over deals; the farmers' twice theirs), and A's overall WP and ADP, the
mean of its two roles, with a 95 % interval over deals.

Agents: ``douzero:PATH`` (a DouZero checkpoint directory or file stem: DouZero's own
``DeepAgent`` per position; needs torch), ``neural:PATH`` (a ddz model trained with
``--play-only`` under ``classic_douzero``), ``rule``, ``random``, ``search:NODES``, and
``nsearch[:WORLDS][:KEY=VALUE...][@PATH]`` (``NeuralSearchBot`` over such a model: the specs of
``benchmarks/match.py``); ddz agents are seated with ``ddz.peers.as_douzero_agent``, and the median
CPU time of their decisions with a choice is reported beside the result.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Any, Dict, List, Optional

import numpy as np

import ddz
from ddz.peers import as_douzero_agent
from ddz.peers.douzero_agents import find_douzero_checkpoints

POSITIONS = ("landlord", "landlord_up", "landlord_down")
_DECK = [r for r in range(3, 15) for _ in range(4)] + [17] * 4 + [20, 30]


def deals(n: int, seed: int) -> List[Dict[str, List[int]]]:
    """``n`` deals in DouZero's evaluation-data layout, from ``seed``."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        d = list(rng.permutation(_DECK))
        d = [int(c) for c in d]
        out.append({"landlord": sorted(d[:20]), "landlord_up": sorted(d[20:37]), "landlord_down": sorted(d[37:54]),
                    "three_landlord_cards": sorted(d[17:20])})
    return out


def make_agents(spec: str, times: Optional[List[float]] = None) -> Dict[str, Any]:
    """The DouZero agents of one spec, one per position (a ddz agent's decision times are
    appended to ``times``)."""
    kind, _, arg = spec.partition(":")
    if kind == "douzero":
        from douzero.evaluation.deep_agent import DeepAgent
        paths = find_douzero_checkpoints(arg)
        return {p: DeepAgent(p, str(paths[p])) for p in POSITIONS}
    rules = ddz.Rules.classic_douzero()

    def bot() -> Any:
        if kind == "rule":
            return ddz.bots.RuleBot()
        if kind == "random":
            return ddz.bots.RandomBot(0)
        if kind == "search":
            return ddz.bots.SearchBot(time_per_move=None, node_limit=int(arg or 4000))
        if kind == "neural":
            from ddz.learn import NeuralBot
            b = NeuralBot(arg)
            b.model.check_rules(rules)
            return b
        if kind == "nsearch":
            from ddz.learn.agents import agent
            return agent(spec, rules)
        raise SystemExit(f"unknown agent {spec!r}: douzero:PATH, neural:PATH, rule, random, search:NODES")

    from ddz.learn.agents import Timed
    return {p: as_douzero_agent(Timed(bot(), times), seed=k) for k, p in enumerate(POSITIONS)}


def play(landlord: Dict[str, Any], farmers: Dict[str, Any], data: List[Dict[str, List[int]]]) -> Dict[str, Any]:
    """Every deal once with ``landlord``'s landlord agent and ``farmers``' farmer agents, in
    DouZero's GameEnv: per deal whether the landlord won, and its score."""
    from douzero.env.game import GameEnv
    env = GameEnv({"landlord": landlord["landlord"], "landlord_up": farmers["landlord_up"],
                   "landlord_down": farmers["landlord_down"]})
    won = np.zeros(len(data), dtype=bool)
    score = np.zeros(len(data))
    seats = [landlord["landlord"], farmers["landlord_up"], farmers["landlord_down"]]
    for i, d in enumerate(data):
        for seat in seats:  # the kitty is public: ddz seats are told it (DouZero's infosets keep it in part)
            if hasattr(seat, "tell_kitty"):
                seat.tell_kitty(d["three_landlord_cards"])
        before = dict(env.num_wins), dict(env.num_scores)
        env.card_play_init({k: list(v) for k, v in d.items()})
        while not env.game_over:
            env.step()
        won[i] = env.num_wins["landlord"] > before[0]["landlord"]
        score[i] = env.num_scores["landlord"] - before[1]["landlord"]
        env.reset()
    return {"won": won, "score": score}


def _ci(x: np.ndarray) -> List[float]:
    half = 1.96 * float(x.std(ddof=1)) / math.sqrt(len(x)) if len(x) > 1 else float("nan")
    return [float(x.mean()) - half, float(x.mean()) + half]


def summarise(a_ll: Dict[str, Any], b_ll: Dict[str, Any]) -> Dict[str, Any]:
    """A's WP and ADP (with 95 % intervals over deals) and per role, from ``play`` with A as the
    landlord (``a_ll``) and with B as the landlord (``b_ll``) on the same deals."""
    # per deal, A's result in each role: the farmers' score is the landlord's negated, halved
    # (±1 × 2^bombs against ±2 × 2^bombs), and DouZero's ADP doubles it back
    wp_ll, wp_f = a_ll["won"].astype(float), (~b_ll["won"]).astype(float)
    adp_ll, adp_f = a_ll["score"], -b_ll["score"]
    per_deal_wp, per_deal_adp = (wp_ll + wp_f) / 2, (adp_ll + adp_f) / 2
    return {"wp": float(per_deal_wp.mean()), "wp_ci": _ci(per_deal_wp),
            "adp": float(per_deal_adp.mean()), "adp_ci": _ci(per_deal_adp),
            "a_landlord": {"wp": float(wp_ll.mean()), "adp": float(adp_ll.mean())},
            "a_farmers": {"wp": float(wp_f.mean()), "adp": float(adp_f.mean())}}


def main(argv: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True, help="agent A (see the module docstring)")
    ap.add_argument("--b", required=True, help="agent B")
    ap.add_argument("--deals", type=int, default=10000, help="deals (default 10000, DouZero's)")
    ap.add_argument("--seed", type=int, default=2026, help="deal seed (default 2026)")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)
    data = deals(args.deals, args.seed)
    from ddz.learn.agents import cpu_summary
    a_times: List[float] = []
    b_times: List[float] = []
    a, b = make_agents(args.a, a_times), make_agents(args.b, b_times)
    t = time.perf_counter()
    res = {"a": args.a, "b": args.b, "deals": args.deals, "seed": args.seed,
           **summarise(play(a, b, data), play(b, a, data)),  # A the landlord, then B
           "seconds": round(time.perf_counter() - t, 1)}
    for who, times in (("a", a_times), ("b", b_times)):
        if times:
            res[f"{who}_cpu"] = cpu_summary(times)
    print(f"{args.a} against {args.b}, DouZero's protocol, {args.deals} deals x 2: WP {res['wp']:.3f} "
          f"[{res['wp_ci'][0]:.3f}, {res['wp_ci'][1]:.3f}], ADP {res['adp']:+.3f}; A as landlord WP "
          f"{res['a_landlord']['wp']:.3f} ADP {res['a_landlord']['adp']:+.3f}, as farmers WP "
          f"{res['a_farmers']['wp']:.3f} ADP {res['a_farmers']['adp']:+.3f}")
    for who in ("a", "b"):
        if f"{who}_cpu" in res:
            c = res[f"{who}_cpu"]
            print(f"{who.upper()}'s CPU a decision with a choice: median {c['median_ms']:.3f} ms, p99 {c['p99_ms']:.3f} ms "
                  f"({c['decisions']} decisions)")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(res, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
