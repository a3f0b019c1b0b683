"""The match script (benchmarks/match.py) runs: two agents on seat-rotation duplicates of each variant."""
from __future__ import annotations

import json

import pytest

import match


@pytest.mark.parametrize("variant,games", [("classic", 9), ("twop", 2), ("bengbu", 16)])
def test_match_runs_every_variant(variant, games, tmp_path, capsys):
    out = tmp_path / "m.json"
    assert match.main(["--variant", variant, "--a", "rule", "--b", "random", "--deals", "2", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["games"] == 2 * games and 0.0 <= res["wp"] <= 1.0
    assert "WP" in capsys.readouterr().out
