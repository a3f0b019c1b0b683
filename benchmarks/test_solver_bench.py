"""Solver throughput (pytest-benchmark): the hardest published 残局, a batch of CLASSIC3
endgames from seeded random games, sampling and SearchBot's rollouts (the workloads of
bench_solver.py)."""
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


def test_rollouts_classic3_first_lead(benchmark):
    """SearchBot's rollouts (_core._pimc): every candidate at the landlord's first lead played
    out in 50 sampled deals."""
    from ddz import _core
    from ddz.peers import fixed_auction_action

    rules = ddz.Rules.classic()
    g = ddz.Game(rules, seed=2026, first_bidder=0)
    while g.phase != "PLAY":
        g.apply(fixed_auction_action(g.legal_actions()))
    seat = g.current_seat
    rows = ddz.sample_deals(g.observation(seat), 50, seed=1)
    sides = [0 if s == g.landlord else 1 for s in range(3)]
    moves, wins, worlds, _ = benchmark(_core._pimc, rules, rows, seat, None, seat, 0, [-1] * 3, sides, None, 0.0, 50)
    assert 1 <= worlds <= 50 and len(wins) == len(moves) and max(wins) <= worlds
