"""Solver and sampler benchmarks as seeded, named workloads (standalone until a workload
registry exists; each workload is a function of its seed returning printable rows).

    python benchmarks/bench_solver.py                      # every workload
    python benchmarks/bench_solver.py solve_published      # one or more by name

Workloads:
  solve_published          each published two-player 残局 (tests/data/published_endgames.json):
                           answer checked, seconds, nodes, nodes/s, the published solvers' times
  solve_classic3_endgames  CLASSIC3, 1,000 positions from seeded random games at the first state
                           with <= 20 cards left in all: median / p95 / max solve time
  sample_deals_classic3    ddz.sample_deals on a mid-hand CLASSIC3 observation: deals per second
  rollouts_classic3        SearchBot's rollouts (_core._pimc) at the landlord's first lead of 20
                           seeded CLASSIC3 deals, 200 sampled deals each: candidates, rollouts per
                           second, sampled deals played out in 15 ms (what a 20 ms decision has
                           left after its exact-search probe)
"""
from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import ddz

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "published_endgames.json"

Rows = Tuple[List[str], List[List[str]]]


def solve_published(seed: int = 0) -> Rows:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    rules = ddz.Rules.classic()
    rows = []
    ddz.solve(["3", "4"], rules)  # the thread's table is allocated once, outside the timings
    for p in data["positions"]:
        sol = ddz.solve([p["first"], p["second"]], rules)
        ok = "ok" if sol.win is p["first_wins"] else "WRONG"
        pub = " / ".join("-" if t is None else f"{t:g}" for t in p["published_seconds"])
        rows.append([f"{p['first']} vs {p['second']}", f"{len(p['first'])}v{len(p['second'])}", ok,
                     f"{sol.seconds:.4f}", f"{sol.nodes:,}", f"{sol.nodes / max(sol.seconds, 1e-9) / 1e6:.2f}M", pub])
    return ["position", "cards", "answer", "seconds", "nodes", "nodes/s", "published s (3 solvers)"], rows


def classic3_endgames(n: int, seed: int) -> List[ddz.PlayState]:
    """Seeded random CLASSIC3 games, each taken at its first state with <= 20 cards left."""
    rules = ddz.Rules.classic()
    rng = random.Random(seed)
    out: List[ddz.PlayState] = []
    game = 0
    while len(out) < n:
        hands, landlord = ddz.deal(rules, seed, game)
        game += 1
        ps = ddz.PlayState(hands, landlord, rules)
        while not ps.is_over and sum(ps.cards_left(s) for s in range(3)) > 20:
            ps.apply(rng.choice(ps.legal_actions()))
        if not ps.is_over:
            out.append(ps)
    return out


def solve_classic3_endgames(seed: int = 2026) -> Rows:
    positions = classic3_endgames(1000, seed)
    ddz.solve(positions[0])
    times, nodes, wins = [], [], 0
    for ps in positions:
        sol = ddz.solve(ps)
        times.append(sol.seconds)
        nodes.append(sol.nodes)
        wins += bool(sol.win)
    times.sort()
    p95 = times[int(0.95 * len(times)) - 1]
    rows = [[str(len(times)), f"{statistics.median(times) * 1e3:.3f}", f"{p95 * 1e3:.2f}", f"{times[-1] * 1e3:.1f}",
             f"{statistics.median(nodes):,.0f}", f"{sum(nodes) / sum(times) / 1e6:.2f}M", str(wins)]]
    return ["positions", "median ms", "p95 ms", "max ms", "median nodes", "nodes/s", "mover wins"], rows


def mid_hand_observation(seed: int) -> dict:
    """A CLASSIC3 observation of a farmer after 9 random plays or passes (both other hands hidden)."""
    from ddz.bots import RandomBot
    g = ddz.Game(ddz.Rules.classic(), seed=seed)
    bot = RandomBot(seed)
    while g.phase != "PLAY":
        g.apply(bot.act(g, g.current_seat))
    for _ in range(9):
        g.apply(bot.act(g, g.current_seat))
    farmer = (g.landlord + 1) % 3
    return g.observation(farmer)


def sample_deals_classic3(seed: int = 2026) -> Rows:
    obs = mid_hand_observation(seed)
    rows = []
    for n in (1_000, 1_000_000):
        best = float("inf")
        for rep in range(5):
            t = time.perf_counter()
            ddz.sample_deals(obs, n, seed=rep)
            best = min(best, time.perf_counter() - t)
        rows.append([f"{n:,}", str(obs["cards_left"]), f"{best * 1e3:.2f}", f"{n / best / 1e6:.2f}M"])
    return ["deals per call", "cards left", "best ms", "deals/s (1 thread)"], rows


def rollouts_classic3(seed: int = 2026) -> Rows:
    from ddz import _core
    from ddz.peers import fixed_auction_action

    rules = ddz.Rules.classic()
    cands, rates = [], []
    for d in range(20):
        g = ddz.Game(rules, seed=seed * 100 + d, first_bidder=0)
        while g.phase != "PLAY":
            g.apply(fixed_auction_action(g.legal_actions()))
        seat = g.current_seat
        rows = ddz.sample_deals(g.observation(seat), 200, seed=d)
        sides = [0 if s == g.landlord else 1 for s in range(3)]
        moves, _, worlds, secs = _core._pimc(rules, rows, seat, None, seat, 0, [-1] * 3, sides, None, 0.0, 200)
        cands.append(len(moves))
        rates.append(worlds * len(moves) / secs)
    rate = statistics.median(rates)
    per_world = statistics.median(c / r for c, r in zip(cands, rates))
    rows_out = [[str(len(cands)), f"{statistics.median(cands):g}", f"{rate / 1e3:,.0f}k",
                 f"{0.015 / per_world:.0f}"]]
    return ["positions", "median candidates", "rollouts/s (median)", "deals in 15 ms"], rows_out


WORKLOADS: Dict[str, Callable[..., Rows]] = {
    "solve_published": solve_published,
    "solve_classic3_endgames": solve_classic3_endgames,
    "sample_deals_classic3": sample_deals_classic3,
    "rollouts_classic3": rollouts_classic3,
}


def _print(name: str, header: List[str], rows: List[List[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print(f"\n== {name}")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))


def main(argv: List[str]) -> int:
    names = argv or list(WORKLOADS)
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        print(f"unknown workload(s) {', '.join(unknown)}; known: {', '.join(WORKLOADS)}", file=sys.stderr)
        return 2
    for name in names:
        t = time.perf_counter()
        header, rows = WORKLOADS[name]()
        _print(f"{name} ({time.perf_counter() - t:.1f} s)", header, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
