"""Solver throughput (pytest-benchmark): the hardest published 残局 and a batch of CLASSIC3
endgames from seeded random games (the workloads of bench_solver.py)."""
from __future__ import annotations

import ddz

from bench_solver import classic3_endgames


def test_solve_hardest_published(benchmark):
    rules = ddz.Rules.classic()
    sol = benchmark(ddz.solve, ["RAQQJJT999844", "B22AAT886633"], rules)
    assert sol.win is True


def test_solve_classic3_endgames(benchmark):
    positions = classic3_endgames(100, 2026)

    def run():
        return sum(bool(ddz.solve(ps).win) for ps in positions)

    assert 0 < benchmark(run) < 100


def test_sample_deals_classic3_mid_hand(benchmark):
    from bench_solver import mid_hand_observation

    obs = mid_hand_observation(2026)
    rows = benchmark(ddz.sample_deals, obs, 100_000, 1)
    assert rows.shape == (100_000, 3)
