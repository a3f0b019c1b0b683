"""``ddz match``: two agents head to head (``ddz.head_to_head``: every seat assignment of each
deal), with the role-balanced win rate, the score margin, the landlord share and each agent's CPU
time a decision. Agents are specs (``ddz.learn.agents``: ``rule``, ``random``, ``search:NODES``,
``neural[:PATH][:bids=rule]``, ``nsearch[...]``, a model file) or ``rlcard`` (RLCard's rule agent, under
``classic_rlcard`` rules; its seats bid as RuleBot does)."""
from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from ..core.errors import DdzError


def add_parser(sub: Any) -> None:
    mt = sub.add_parser("match", help="two bots or model files head to head, every seat assignment of each deal",
                        description="Play agent A against agent B on seeded deals, each deal under every "
                                    "assignment of A and B to the seats, whole hands with the bidding, and print "
                                    "the role-balanced win rate (parity 0.5), the score margin (parity 0) and "
                                    "the landlord share with 95 % intervals over deals, and each agent's CPU time "
                                    "a decision. Agents: rule, random, search:NODES, neural[:PATH][:bids=rule], "
                                    "nsearch[:WORLDS][:strongest][:KEY=VALUE...][@PATH], a model file, or rlcard.")
    mt.add_argument("a", help="agent A")
    mt.add_argument("b", help="agent B")
    mt.add_argument("--variant", default="classic", metavar="NAME",
                    help="classic, twop, bengbu or a compat preset (default classic)")
    mt.add_argument("--deals", type=int, default=100, help="seeded deals (default 100)")
    mt.add_argument("--seed", type=int, default=2026, help="deal seed (default 2026)")
    mt.add_argument("--out", default=None, metavar="FILE", help="write the measures as JSON here")
    mt.set_defaults(func=_cmd_match)


def _agent(spec: str, rules: Any) -> Any:
    if spec == "rlcard":
        from ..peers import RLCardRuleBot
        from ..learn.agents import BidsAsRuleBot
        return BidsAsRuleBot(RLCardRuleBot())
    from ..learn.agents import agent
    return agent(spec, rules)


def _cmd_match(args: argparse.Namespace) -> int:
    from ..core.rules import Rules
    from ..learn.agents import Timed, cpu_summary
    from ..search.evaluate import head_to_head
    try:
        rules = Rules.named(args.variant)
        a, b = Timed(_agent(args.a, rules)), Timed(_agent(args.b, rules))
        t = time.perf_counter()
        res = head_to_head(a, b, rules, games=args.deals, seed=args.seed)
    except DdzError as e:
        print(f"ddz match: {e}", file=sys.stderr)
        return 2
    print(f"{args.a} (A) against {args.b} (B), {rules!r}, {args.deals} deals (seed {args.seed}), "
          f"{time.perf_counter() - t:.1f} s")
    print(res.table())
    cpu = {"a": cpu_summary(a.times), "b": cpu_summary(b.times)}
    for who, spec in (("a", args.a), ("b", args.b)):
        c = cpu[who]
        print(f"{who.upper()} ({spec}): CPU a decision with a choice: median {c['median_ms']} ms, "
              f"p99 {c['p99_ms']} ms ({c['decisions']} decisions)")
    if args.out:
        out = res.summary()
        out.update({"variant": args.variant, "a_spec": args.a, "b_spec": args.b, "seed": args.seed,
                    "cpu_a": cpu["a"], "cpu_b": cpu["b"]})
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
    return 0
