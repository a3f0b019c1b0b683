"""backend="ray" of ddz.simulate, ddz.evaluate and ddz.head_to_head: the games split over Ray tasks give
exactly the local result for the same seed (skipped without Ray; a local
ray.init(num_cpus=2) starts in about 7 s here)."""
from __future__ import annotations

import numpy as np
import pytest

import ddz
from ddz.search.ray_backend import chunk_bounds
from ddz.search.simulate import _COLUMNS

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_chunk_bounds_cover_the_range_in_order():
    assert chunk_bounds(10, 7, 3) == [(10, 3), (13, 2), (15, 2)]
    assert chunk_bounds(0, 2, 5) == [(0, 1), (1, 1)]
    for first, count, chunks in ((0, 100, 7), (5, 1, 1), (3, 64, 64)):
        parts = chunk_bounds(first, count, chunks)
        assert sum(c for _, c in parts) == count and parts[0][0] == first
        assert all(a + c == b for (a, c), (b, _) in zip(parts, parts[1:]))


def test_simulate_on_ray_equals_local(local_ray):
    for rules, policy in ((ddz.Rules.classic(), "random"), (ddz.Rules.bengbu(), "greedy")):
        local = ddz.simulate(rules, 3000, policy=policy, seed=7, first_game=11)
        remote = ddz.simulate(rules, 3000, policy=policy, seed=7, first_game=11, backend="ray", chunks=5)
        for f in _COLUMNS:
            np.testing.assert_array_equal(getattr(remote, f), getattr(local, f))
        assert remote.games == local.games and remote.seed == local.seed and remote.policy == local.policy


def test_python_policy_on_ray_equals_local(local_ray):
    # defined here, so that Ray ships it by value (a worker cannot import this test module)
    def _first_legal(ps):
        return ps.legal_actions()[0]

    rules = ddz.Rules.two_player()
    local = ddz.simulate(rules, 40, policy=_first_legal, seed=3)
    remote = ddz.simulate(rules, 40, policy=_first_legal, seed=3, backend="ray", chunks=3)
    for f in _COLUMNS:
        np.testing.assert_array_equal(getattr(remote, f), getattr(local, f))


def test_evaluate_on_ray_equals_local(local_ray):
    rules = ddz.Rules.classic()
    agents = [ddz.bots.RuleBot(), ddz.bots.RandomBot(seed=1), lambda obs: obs["legal_action_ids"][-1]]
    local = ddz.evaluate(agents, rules, games=9, seed=5)
    remote = ddz.evaluate(agents, rules, games=9, seed=5, backend="ray", chunks=4)
    for f in ("scores", "role", "won"):
        np.testing.assert_array_equal(getattr(remote, f), getattr(local, f))
    assert repr(remote.agents) == repr(local.agents)  # NaN (a role never played) != NaN


def test_empty_range_and_bad_chunks(local_ray):
    rules = ddz.Rules.classic()
    assert ddz.simulate(rules, 0, backend="ray").games == 0
    assert ddz.evaluate([ddz.bots.RuleBot()] * 3, rules, games=0, backend="ray").scores.shape == (0, 3, 3)
    with pytest.raises(ddz.ArgumentError, match="chunks"):
        ddz.simulate(rules, 5, backend="ray", chunks=0)


def test_head_to_head_on_ray_equals_local(local_ray):
    rules = ddz.Rules.bengbu()
    a, b = ddz.bots.RuleBot(), ddz.bots.RandomBot(seed=1)
    local = ddz.head_to_head(a, b, rules, games=5, seed=5)
    remote = ddz.head_to_head(a, b, rules, games=5, seed=5, backend="ray", chunks=3)
    for f in ("scores", "landlord", "landlord_won"):
        np.testing.assert_array_equal(getattr(remote, f), getattr(local, f))
    assert remote.summary() == local.summary()
