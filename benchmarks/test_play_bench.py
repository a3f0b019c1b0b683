"""Play-phase throughput (pytest-benchmark): the C++ self-play and a Python-driven loop."""
from __future__ import annotations

import random

import ddz


def test_simulate_classic_random(benchmark):
    r = ddz.Rules.classic()
    res = benchmark(ddz.simulate, r, 20_000, "random", 1, 1)
    assert res.games == 20_000


def test_simulate_bengbu_random(benchmark):
    r = ddz.Rules.bengbu()
    res = benchmark(ddz.simulate, r, 5_000, "random", 1, 1)
    assert res.games == 5_000


def test_python_loop_classic_random(benchmark):
    r = ddz.Rules.classic()
    rng = random.Random(1)

    def run():
        for g in range(100):
            hands, landlord = ddz.deal(r, 1, g)
            ps = ddz.PlayState(hands, landlord, r)
            while not ps.is_over:
                ps.apply(rng.choice(ps.legal_actions()))

    benchmark(run)


def test_clone_and_undo(benchmark):
    r = ddz.Rules.classic()
    hands, landlord = ddz.deal(r, 3, 0)
    ps = ddz.PlayState(hands, landlord, r)

    def run():
        c = ps.clone()
        for _ in range(10):
            c.apply(c.legal_actions()[0])
        for _ in range(10):
            c.undo()

    benchmark(run)


def _after(n_actions: int) -> ddz.PlayState:
    r = ddz.Rules.classic()
    hands, landlord = ddz.deal(r, 3, 0)
    ps = ddz.PlayState(hands, landlord, r)
    rng = random.Random(4)
    while ps.num_actions < n_actions and not ps.is_over:
        ps.apply(rng.choice(ps.legal_actions()))
    return ps


def test_clone_at_start(benchmark):
    """Workload clone/start: PlayState.clone() of a fresh CLASSIC3 deal (seed 3)."""
    ps = _after(0)
    benchmark(ps.clone)


def test_clone_after_40_actions(benchmark):
    """Workload clone/after-40: the same deal after 40 random actions; the history is shared,
    so this should cost what clone/start does (issue: clone time independent of history)."""
    ps = _after(40)
    assert ps.num_actions == 40
    benchmark(ps.clone)
