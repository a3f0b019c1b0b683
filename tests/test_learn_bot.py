"""NeuralBot and the model file, without torch: the file round-trips, its record is checked, the
bot plays whole hands through ddz.evaluate, and importing ddz (or ddz.learn) loads no torch."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import ddz
from ddz.bots import RandomBot, RuleBot
from ddz.learn import ModelError, NeuralBot, NeuralModel, features_for
from ddz.learn.nets import forward, net_config, param_shapes


def random_model(rules, preset="small", hidden=None, seed=0, whole=False):
    f = features_for(rules, whole)
    net = net_config(preset, hidden)
    rng = np.random.default_rng(seed)
    arrays = {f"p{p}.{k}": (rng.standard_normal(s) * 0.1).astype(np.float32)
              for p in range(rules.players + whole) for k, s in param_shapes(net, f.state_dim, f.action_dim,
                                                                                3 * f.move_dim).items()}
    return NeuralModel(rules, net, arrays, meta={"frames": 0, "whole": whole})


def test_importing_ddz_and_ddz_learn_loads_no_torch():
    code = "import sys, ddz, ddz.learn; from ddz.learn import NeuralBot; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_model_file_round_trips(tmp_path):
    m = random_model(ddz.Rules.classic(), hidden=[32, 16])
    path = tmp_path / "m.npz"
    m.save(path)
    back = NeuralModel.load(path)
    assert back.rules == m.rules and back.net == m.net
    assert set(back.arrays) == set(m.arrays)
    for k in m.arrays:
        np.testing.assert_array_equal(back.arrays[k], m.arrays[k])
    assert back.meta["frames"] == 0 and back.meta["encoder"].startswith("ddz-play-features-1:")
    # the record names the rules preset: a compat preset comes back as itself
    d = random_model(ddz.Rules.classic_douzero(), hidden=[8])
    d.save(tmp_path / "d.npz")
    assert NeuralModel.load(tmp_path / "d.npz").rules == ddz.Rules.classic_douzero()


def _rewrite_meta(src, dst, **changes):
    with np.load(src, allow_pickle=False) as z:
        files = {k: z[k] for k in z.files}
    meta = json.loads(files["__meta__"].tobytes().decode())
    meta.update(changes)
    files["__meta__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(dst, **files)


def test_a_mismatched_record_is_refused(tmp_path):
    m = random_model(ddz.Rules.classic(), hidden=[8])
    m.save(tmp_path / "m.npz")
    for field, value, words in (("action_space", "0" * 16, "action_space"), ("encoder", "other:1", "encoder"),
                                ("format_version", 99, "version")):
        _rewrite_meta(tmp_path / "m.npz", tmp_path / "bad.npz", **{field: value})
        with pytest.raises(ModelError, match=words):
            NeuralModel.load(tmp_path / "bad.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a model")
    with pytest.raises(ModelError, match="cannot read"):
        NeuralModel.load(tmp_path / "junk.npz")
    with pytest.raises(ddz.ArgumentTypeError):
        NeuralBot(3)
    assert issubclass(ModelError, ddz.DdzError)
    # a model for CLASSIC3 refuses a game of another preset
    bot = NeuralBot(m)
    g = ddz.Game(ddz.Rules.classic_douzero(), seed=1)
    while g.phase != "PLAY":
        g.apply(RuleBot().act(g, g.current_seat))
    with pytest.raises(ModelError, match="classic"):
        bot.act(g, g.current_seat)


def test_a_wrong_array_shape_is_refused():
    m = random_model(ddz.Rules.classic(), hidden=[8])
    arrays = dict(m.arrays)
    arrays["p1.out.weight"] = np.zeros((2, 8), np.float32)
    with pytest.raises(ModelError, match="p1.out.weight"):
        NeuralModel(m.rules, m.net, arrays)


@pytest.mark.parametrize("rules", [ddz.Rules.classic(), ddz.Rules.two_player(), ddz.Rules.bengbu()],
                         ids=lambda r: r.variant)
def test_neural_bot_plays_whole_hands_in_evaluate(rules):
    bot = NeuralBot(random_model(rules, hidden=[16]))
    others = [RandomBot(seed=i) for i in range(rules.players - 1)]
    res = ddz.evaluate([bot] + others, rules, games=3, seed=2)
    assert res["NeuralBot"].overall.hands == 3 * rules.players


def test_the_bot_picks_the_highest_q_and_bids_as_rulebot():
    rules = ddz.Rules.classic()
    bot = NeuralBot(random_model(rules, hidden=[16]))
    g = ddz.Game(rules, seed=5)
    rb = RuleBot()
    while g.phase != "PLAY":  # bidding: exactly RuleBot's choices
        assert bot.act(g, g.current_seat) == rb.act(g, g.current_seat)
        g.apply(rb.act(g, g.current_seat))
    seat = g.current_seat
    ids, q = bot.scores(g, seat)
    assert list(ids) == g.legal_action_ids() and q.shape == ids.shape
    assert bot.act(g, seat) == ids[int(np.argmax(q))]
    with pytest.raises(ddz.ArgumentError):
        bot.scores(g, (seat + 1) % 3)


def test_numpy_forward_is_one_dense_network_over_the_concatenation():
    """The split first layer equals one dense layer over [state, action] (DouZero's shape)."""
    rules = ddz.Rules.classic()
    m = random_model(rules, hidden=[12, 6], seed=3)
    f = m.features
    p = m._params[0]
    rng = np.random.default_rng(1)
    obs = rng.integers(0, 3, size=(2, f.width)).astype(np.int8)
    ids = np.array([0, 5, rules.pass_id])
    s, a = f.state(obs), f.actions(ids)
    got = forward(p, m.net, s, a, np.array([0, 1, 1]))
    w = np.hstack([p["s0.weight"], p["a0.weight"]])
    x = np.maximum(np.hstack([s[[0, 1, 1]], a]) @ w.T + p["s0.bias"], 0)
    x = np.maximum(x @ p["l1.weight"].T + p["l1.bias"], 0)
    want = (x @ p["out.weight"].T + p["out.bias"])[:, 0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_features_follow_the_cards():
    rules = ddz.Rules.classic()
    f = features_for(rules)
    row = f.actions(np.array([ddz.classify("333", rules).id]))[0]
    assert row[:f.move_dim].sum() == 3 and row[:3].tolist() == [1, 1, 1]  # the rank 3: >= 1, 2, 3, not 4
    assert row[f.move_dim + int(ddz.Kind.TRIO)] == 1
    assert f.actions(np.array([rules.pass_id]))[0, f.move_dim + 20] == 1
    assert f.is_bomb[ddz.classify("BR", rules).id] and not f.is_bomb[ddz.classify("33", rules).id]


@pytest.mark.parametrize("rules", [ddz.Rules.classic(), ddz.Rules.two_player(), ddz.Rules.bengbu()],
                         ids=lambda r: r.variant)
def test_a_whole_hand_model_decides_every_phase(rules, tmp_path):
    """A whole-hand model bids (and makes TWOP's 翻身 / 压迫) by its decision network: the highest Q
    among the decision ids; its file records the whole-hand feature set."""
    m = random_model(rules, hidden=[16], whole=True, seed=3)
    m.save(tmp_path / "w.npz")
    back = NeuralModel.load(tmp_path / "w.npz")
    assert back.whole and back.meta["encoder"].startswith("ddz-hand-features-1:") and back.positions == rules.players + 1
    bot = NeuralBot(back)
    phases = set()
    for seed in range(6):
        g = ddz.Game(rules, seed=seed)
        while not g.is_over:
            seat = g.current_seat
            ids, q = bot.scores(g, seat)
            assert list(ids) == g.legal_action_ids()
            a = bot.act(g, seat)
            assert a == ids[int(np.argmax(q))]
            phases.add(g.phase)
            g.apply(a)
    assert "PLAY" in phases and len(phases) >= 2  # decisions of the auction, and the play
    # a play-phase model's record does not pass for a whole-hand one
    _rewrite_meta(tmp_path / "w.npz", tmp_path / "x.npz", whole=False)
    with pytest.raises(ModelError):
        NeuralModel.load(tmp_path / "x.npz")
