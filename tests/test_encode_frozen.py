"""The compact rows are frozen (tests/data/compact/rows.npz, written by make.py there and checked
equal to the rows of the code before the core wrote them alone): every seat's row at every step of
seeded hands of each variant, through ``Game.encode``, ``ddz.encode.compact`` and the vector env's
layout, stays bit-identical, so the shipped models (which pin ``ddz-hand-features-1``) and runs in
progress keep reading the same features."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from ddz.learn import encode

sys.path.insert(0, str(Path(__file__).resolve().parent / "data" / "compact"))
import make  # noqa: E402

FROZEN = np.load(Path(__file__).resolve().parent / "data" / "compact" / "rows.npz")


@pytest.mark.parametrize("variant", sorted(make.RULES))
def test_rows_are_the_frozen_ones(variant):
    rows = make.rows(variant)
    np.testing.assert_array_equal(rows, FROZEN[variant])
    assert rows.shape[1] == encode.compact_layout(make.RULES[variant])["auction"].stop


def test_the_encoder_facade_gives_the_same_rows():
    import random

    import ddz
    rules = make.RULES["classic"]
    rng = random.Random("frozen-classic")
    g = ddz.Game(rules, seed=1000)
    for k in range(12):
        for s in range(3):
            np.testing.assert_array_equal(encode.compact(g, s), FROZEN["classic"][3 * k + s])
        g.apply(rng.choice(g.legal_action_ids()))
