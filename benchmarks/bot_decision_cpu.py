"""The CPU time of a server bot's decisions: what ``ddz serve --bot KIND`` costs per decision
(docs/server.md, "Which bot plays").

    python benchmarks/bot_decision_cpu.py --bot nsearch --hands 8

The bot plays every seat of ``--hands`` seeded hands of each variant, built as the server builds
it (``ddz.server.bots.room_bots``: the shipped models, ``--search-nodes``); each decision's CPU
time (``time.process_time``: load on the machine makes it slower, not costlier) is recorded,
auction decisions and single legal actions included, as a table sees them.
"""
from __future__ import annotations

import argparse
import time
from typing import Dict, List

import ddz
from ddz.server.bots import BOT_KINDS, room_bots
from ddz.rooms.room import Room

VARIANTS = ("classic", "twop", "bengbu")


def measure(kind: str, hands: int, nodes: int, seed: int) -> Dict[str, List[float]]:
    out: Dict[str, List[float]] = {}
    for v in VARIANTS:
        rules = ddz.Rules.named(v)
        room = next(r for r in ddz.ROOMS.values() if r.variant == rules.variant)
        bot = room_bots({"r": room}, kind, search_nodes=nodes)["r"]
        times: List[float] = []
        for k in range(hands):
            g = ddz.Game(rules, seed=seed + k)
            while not g.is_over:
                s = g.current_seat
                t0 = time.process_time()
                a = bot.act(g.clone(), s)
                times.append(time.process_time() - t0)
                g.apply(a, seat=s)
        out[v] = sorted(times)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bot", default="nsearch", choices=BOT_KINDS, help="the bot kind (default nsearch)")
    ap.add_argument("--hands", type=int, default=8, help="hands of each variant (default 8)")
    ap.add_argument("--search-nodes", type=int, default=4000, help="as ddz serve's (default 4000)")
    ap.add_argument("--seed", type=int, default=1000, help="the first hand's seed (default 1000)")
    args = ap.parse_args()
    for v, ts in measure(args.bot, args.hands, args.search_nodes, args.seed).items():
        q = lambda f: 1000 * ts[min(len(ts) - 1, int(len(ts) * f))]  # noqa: E731
        print(f"{v}: {len(ts)} decisions, median {q(0.5):.1f} ms, p90 {q(0.9):.1f} ms, "
              f"longest {1000 * ts[-1]:.0f} ms of CPU")


if __name__ == "__main__":
    main()
