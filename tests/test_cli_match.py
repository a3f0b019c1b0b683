"""``ddz match``: two agents (specs or model files) head to head, with the parity measures and the
CPU time a decision; equal agents read exactly 0.5 and 0, and a bad spec is an error."""
from __future__ import annotations

import contextlib
import io
import json

from ddz.cli import main


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_match_of_two_specs_writes_the_measures(tmp_path):
    path = tmp_path / "m.json"
    code, out, _ = run(["match", "rule", "random", "--deals", "3", "--seed", "1", "--out", str(path)])
    assert code == 0
    for line in ("role-balanced WP", "score margin", "landlord share", "CPU a decision"):
        assert line in out
    res = json.loads(path.read_text())
    assert res["games"] == 18 and res["role_balanced_wp"] > 0.5 and res["score_margin"] > 0
    assert res["cpu_a"]["decisions"] > 0 and res["cpu_a"]["median_ms"] >= 0


def test_equal_agents_are_at_parity_and_a_model_file_is_an_agent(tmp_path):
    from ddz.learn import shipped_model
    model = tmp_path / "m.npz"
    shipped_model("twop").save(model)
    path = tmp_path / "m.json"
    code, _, _ = run(["match", str(model), "neural", "--variant", "twop", "--deals", "2", "--out", str(path)])
    assert code == 0
    res = json.loads(path.read_text())
    assert res["role_balanced_wp"] == 0.5 and res["score_margin"] == 0.0 and res["landlord_share"] == 0.5


def test_an_unknown_agent_is_an_error():
    code, _, err = run(["match", "genius", "rule", "--deals", "1"])
    assert code == 2 and "unknown agent 'genius'" in err


def test_play_seats_the_search_over_the_model():
    """``ddz play --bot nsearch``: every other seat a NeuralSearchBot over the shipped model (or
    --model), each seeded from the deal seed and its seat."""
    import argparse
    import ddz
    from ddz.cli.play import _bots
    from ddz.learn import NeuralSearchBot
    args = argparse.Namespace(bot="nsearch", model=None, variant=None, seed=5)
    rules, kind, bot_for = _bots(args)
    one, two = bot_for(1), bot_for(2)
    assert kind == "nsearch" and rules == ddz.Rules.classic()
    assert isinstance(one, NeuralSearchBot) and one.net.model is two.net.model and one._seed != two._seed
    # the variant's strongest measured settings, not the constructor's defaults
    from ddz.learn.nsearch import STRONGEST
    assert all(getattr(one, k) == v for k, v in STRONGEST["classic"].items())
    _, _, bot_for = _bots(argparse.Namespace(bot="nsearch", model=None, variant=ddz.Rules.bengbu(), seed=5))
    assert (bot_for(1).others, bot_for(1).call_at) == ("rule", 0.8)
