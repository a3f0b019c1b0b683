"""Writes the frozen compact rows of tests/test_encode_frozen.py (rows.npz): the compact row of
every seat at every step of seeded hands of every variant (the ``ddz-hand-features-1`` layout the
shipped models read). Run once; a change of the rows is a change of the layout, which needs a new
feature version, not a new file."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np

import ddz

HERE = Path(__file__).parent
RULES = {"classic": ddz.Rules.classic(), "two_player": ddz.Rules.two_player(), "bengbu": ddz.Rules.bengbu()}


def rows(variant: str) -> np.ndarray:
    rules = RULES[variant]
    rng = random.Random(f"frozen-{variant}")
    out = []
    for hand in range(6):
        g = ddz.Game(rules, seed=1000 + hand)
        while True:
            for s in range(rules.players):
                out.append(g.encode(s))
            if g.is_over:
                break
            g.apply(rng.choice(g.legal_action_ids()))
    return np.stack(out)


if __name__ == "__main__":
    path = HERE / "rows.npz"
    if path.exists():
        raise SystemExit(f"{path} exists: frozen files are never rewritten")
    np.savez_compressed(path, **{v: rows(v) for v in RULES})
    print({v: rows(v).shape for v in RULES})
