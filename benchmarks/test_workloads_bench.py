"""The workload registry (benchmarks/workloads.py) stays runnable: every workload at a tiny
scale in the smoke run, names unique, every ratio's reference registered; and the compat
presets' batch leads as pytest-benchmark cases. Run: python -m pytest benchmarks --benchmark-only"""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W  # noqa: E402

import ddz  # noqa: E402


def test_registry_is_consistent():
    names = [w.name for w in W.WORKLOADS]
    assert len(names) == len(set(names))
    assert all(w.kind in W._RUNNERS and w.kind in W.WHAT for w in W.WORKLOADS)
    assert all(w.vs in names for w in W.WORKLOADS if w.vs)
    for w in W.WORKLOADS:
        W.make_rules(w.rules)


def test_every_workload_runs_tiny():
    # the long ones (training, minutes each) are not for a smoke run: run_all --long
    results = W.measure([w for w in W.WORKLOADS if not w.long], repeat=1, scale=0.0005)
    by = {r.workload.name: r for r in results}
    assert all(r.rate > 0 for r in results)
    assert by["gen.lead20.classic_openspiel"].moves_per_hand > 0
    if "openspiel.lead20" in by:
        assert by["array.lead20.classic_openspiel"].ratio is not None


@pytest.mark.parametrize("preset", ["classic_openspiel", "classic_douzero", "classic_rlcard", "two_player"])
def test_batch_leads_compat20(benchmark, classic20, preset):
    r = getattr(ddz.Rules, preset)()
    words = ddz.hand_words(classic20, r)
    off, moves = benchmark(ddz.legal_moves_batch, words, r)
    assert len(moves) == off[-1] > 0


@pytest.mark.parametrize("preset", ["classic_openspiel", "classic_douzero", "classic_rlcard", "two_player"])
def test_batch_count_compat20(benchmark, classic20, preset):
    r = getattr(ddz.Rules, preset)()
    words = ddz.hand_words(classic20, r)
    _, counts = benchmark(ddz.legal_moves_batch, words, r, None, True)
    assert counts.sum() > 0


def test_compare_peers_uses_each_peers_rules(capsys):
    """compare_peers / `ddz bench --peers`: each installed peer against ddz under its own
    preset, distinct plays per hand of both engines printed beside the rates."""
    from ddz.peers import adapters as peers, bench as bench_peers

    installed = [p for p, a in (("douzero", peers.DOUZERO), ("rlcard", peers.RLCARD), ("open_spiel", peers.OPENSPIEL))
                 if a.available()]
    if not installed:
        pytest.skip("no peer installed")
    bench_peers.main(["--hands", "20", "--repeat", "1", "--peers", ",".join(installed)])
    out = capsys.readouterr().out
    for p in installed:
        assert f"{p} against ddz under Rules.{bench_peers.PEER_PRESET[p]}()" in out
    assert "plays" in out and "ratio ddz /" in out
    bench_peers.main(["--hands", "10", "--repeat", "1", "--peers", installed[0], "--rules", "classic"])
    assert "under Rules.classic()" in capsys.readouterr().out
