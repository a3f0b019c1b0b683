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


def test_douzero_protocol_runs_in_douzero_s_harness(tmp_path):
    """benchmarks/douzero_protocol.py: each deal twice in DouZero's GameEnv (A the landlord, then
    B); RuleBot against RandomBot wins most, and swapping A and B mirrors every figure."""
    pytest.importorskip("douzero.env.game")
    import douzero_protocol as dp

    out, back = tmp_path / "ab.json", tmp_path / "ba.json"
    assert dp.main(["--a", "rule", "--b", "random", "--deals", "6", "--out", str(out)]) == 0
    assert dp.main(["--a", "random", "--b", "rule", "--deals", "6", "--out", str(back)]) == 0
    ab, ba = json.loads(out.read_text()), json.loads(back.read_text())
    assert ab["wp"] > 0.5 and ab["wp"] == pytest.approx(1.0 - ba["wp"]) and ab["adp"] == pytest.approx(-ba["adp"])
    assert ab["a_landlord"]["wp"] == pytest.approx(1.0 - ba["a_farmers"]["wp"])
    d = dp.deals(3, 1)
    assert all(len(x["landlord"]) == 20 and len(x["landlord_up"]) == 17 and len(x["landlord_down"]) == 17
               and all(c in x["landlord"] for c in x["three_landlord_cards"]) for x in d)
    assert d == dp.deals(3, 1)
