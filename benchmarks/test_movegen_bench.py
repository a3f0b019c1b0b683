"""Move-generation throughput (pytest-benchmark). Run:
    python -m pytest benchmarks --benchmark-only
Each benchmark processes a whole batch of seeded hands; hands/s = batch size / mean time."""
from __future__ import annotations

import ddz


def test_batch_leads_classic20(benchmark, classic20, rules):
    r = rules["classic"]
    words = ddz.hand_words(classic20, r)
    off, moves = benchmark(ddz.legal_moves_batch, words, r)
    assert len(off) == len(classic20) + 1 and len(moves) == off[-1]


def test_batch_leads_into_buffer_classic20(benchmark, classic20, rules):
    import numpy as np

    r = rules["classic"]
    words = ddz.hand_words(classic20, r)
    out = np.empty(200 * len(classic20), dtype=np.uint64)
    off, moves = benchmark(ddz.legal_moves_batch, words, r, None, False, out)
    assert np.shares_memory(moves, out) and len(moves) == off[-1]


def test_batch_count_classic20(benchmark, classic20, rules):
    r = rules["classic"]
    words = ddz.hand_words(classic20, r)
    _, counts = benchmark(ddz.legal_moves_batch, words, r, None, True)
    assert counts.sum() > 0


def test_array_per_call_classic20(benchmark, classic20, rules):
    r = rules["classic"]
    hands = classic20[:2000]

    def run():
        f = ddz.legal_moves_array
        for h in hands:
            f(h, r)

    benchmark(run)


def test_legal_moves_objects_classic20(benchmark, classic20, rules):
    r = rules["classic"]
    hands = classic20[:500]

    def run():
        for h in hands:
            ddz.legal_moves(h, r)

    benchmark(run)


def test_batch_count_bengbu33(benchmark, bengbu33, rules):
    r = rules["bengbu"]
    words = ddz.hand_words(bengbu33, r)
    _, counts = benchmark(ddz.legal_moves_batch, words, r, None, True)
    assert counts.min() > 0


def test_batch_leads_bengbu33(benchmark, bengbu33, rules):
    r = rules["bengbu"]
    words = ddz.hand_words(bengbu33, r)
    off, _ = benchmark(ddz.legal_moves_batch, words, r)
    assert off[-1] > 0
