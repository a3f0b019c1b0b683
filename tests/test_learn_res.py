"""The residual two-headed network (``--net res``: a win head and a score head) and the trainer's
schedule (learning rate and exploration along half a cosine): numpy's forward pass equals torch's,
both heads learn their own targets, a short run's model loads without torch and beats RandomBot,
the schedule reaches its ends, the exploration of the decisions is their own."""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import ddz  # noqa: E402
from ddz.learn.actor import Actor  # noqa: E402
from ddz.learn.dmc import TrainConfig, Trainer  # noqa: E402
from ddz.learn.nets import forward, forward_heads, net_config  # noqa: E402
from ddz.learn.schedule import Schedule, cosine  # noqa: E402
from test_learn_dmc import fixed_batch  # noqa: E402

RES = dict(net="res", objective="wp+score", hidden=[32, 32, 32], tables=32, batch_size=128, buffer_frames=2048,
           checkpoint_every=10**9)


def test_numpy_forward_equals_torch_for_both_heads():
    tr = Trainer(TrainConfig(**RES, seed=2))
    actor = Actor(tr.rules, tr.feats, 8, "wp+score", 0.0, False)
    actor.reset(3)
    st = actor.st
    f = tr.feats
    arrays = tr.model.arrays()
    p = int(tr.feats.positions(st.obs, st.legal_ids[st.legal_offsets[:-1]] > tr.rules.pass_id)[0])
    ids = st.legal_ids[st.legal_offsets[0]:st.legal_offsets[1]]
    params = {k.split(".", 1)[1]: v for k, v in arrays.items() if k.startswith(f"p{p}.")}
    state, acts = f.state(st.obs[:1]), f.actions(ids)
    idx = np.zeros(len(ids), dtype=np.int64)
    got = forward_heads(params, tr.net, state, acts, idx)
    with torch.no_grad():
        want = tr.model.nets[p].heads(torch.from_numpy(state), torch.from_numpy(acts), torch.from_numpy(idx)).numpy()
    assert got.shape == (len(ids), 2)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(forward(params, tr.net, state, acts, idx), got[:, 0] + 0.25 * got[:, 1], rtol=1e-5)


def test_each_head_learns_its_own_target():
    """On a fixed batch whose win and score targets differ, the win head goes to the ±1 returns and
    the score head to the scores: the loss falls, and each head ends nearer its own target than the
    other's."""
    tr = Trainer(TrainConfig(**RES, seed=3, lr=3e-3))
    obs, act, hist, ret = fixed_batch(tr, "wp+score")
    assert ret.shape == (256, 2) and set(np.unique(ret[:, 0])) <= {-1.0, 0.0, 1.0}
    assert np.abs(ret[:, 1]).max() <= 16 and not np.array_equal(ret[:, 0], ret[:, 1])
    losses = [tr.learn(0, obs, act, hist, ret) for _ in range(150)]
    assert losses[-1] < 0.3 * losses[0], (losses[0], losses[-1])
    f = tr.feats
    with torch.no_grad():
        out = tr.model.nets[0].heads(torch.from_numpy(f.state(obs)), torch.from_numpy(f.actions(act))).numpy()
    for h in (0, 1):
        own = np.mean((out[:, h] - ret[:, h]) ** 2)
        other = np.mean((out[:, h] - ret[:, 1 - h]) ** 2)
        assert own < other, (h, own, other)


def test_a_short_run_s_model_loads_without_torch_and_beats_randombot(tmp_path):
    out = tmp_path / "run"
    tr = Trainer(TrainConfig(**{**RES, "hidden": [64, 64, 64]}, seed=1, eval_games=0), out=str(out))
    tr.train(frames=60_000)
    code = ("import sys; sys.modules['torch'] = None\n"  # any import of torch now fails
            "import ddz\n"
            "from ddz.learn import NeuralBot\n"
            f"bot = NeuralBot({str(out / 'model.npz')!r})\n"
            "assert bot.model.heads == 2 and bot.model.meta['objective'] == 'wp+score'\n"
            "r = ddz.head_to_head(bot, ddz.bots.RandomBot(), ddz.Rules.classic(), games=8, seed=1)\n"
            "print(r.role_balanced_wp.value, r.score_margin.ci[0])\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    wp, margin_lo = map(float, res.split())
    assert wp > 0.7 and margin_lo > 0, res


def test_the_schedule_goes_along_half_a_cosine_to_its_ends():
    assert cosine(1.0, 0.0, 0.0) == 1.0 and cosine(1.0, 0.0, 1.0) == 0.0
    assert cosine(1.0, 0.0, 0.5) == pytest.approx(0.5) and cosine(1.0, 0.0, 2.0) == 0.0
    s = Schedule(1e-3, 0.1, 0.3, 0.0, 0.01, 0.03, frames=1000, start=500)
    assert s.at(500) == pytest.approx((1e-3, 0.1, 0.3)) and s.at(1500) == pytest.approx((0.0, 0.01, 0.03))
    assert s.at(1000)[1] == pytest.approx(0.055) and s.at(10**6) == s.at(1500)
    assert Schedule(1e-3, 0.1, 0.3).at(10**6) == (1e-3, 0.1, 0.3)
    with pytest.raises(ddz.ArgumentError, match="schedule_frames"):
        TrainConfig(lr_end=0.0).check()
    with pytest.raises(ddz.ArgumentError, match="wp\\+score"):
        TrainConfig(net="res").check()
    with pytest.raises(ddz.ArgumentError, match="wp\\+score"):
        TrainConfig(objective="wp+score").check()
    with pytest.raises(ddz.ArgumentError, match="one width"):
        net_config("res", [64, 32])


def test_a_run_follows_its_schedule():
    """The optimiser's learning rate and the actors' two explorations are the schedule's at the
    run's frame count: the start values at first, the end values once the schedule is done."""
    cfg = TrainConfig(**RES, seed=4, lr=1e-3, lr_end=1e-5, epsilon=0.1, epsilon_end=0.01, bid_epsilon=0.3,
                      bid_epsilon_end=0.03, schedule_frames=3000, eval_games=0)
    tr = Trainer(cfg)
    actor = tr.new_actor()
    assert (actor.epsilon, actor.bid_epsilon) == pytest.approx((0.1, 0.3))
    tr.train(frames=3000)
    assert tr.scheduled() == pytest.approx((1e-5, 0.01, 0.03))
    lrs = [g["lr"] for o in tr.optims for g in o.param_groups]
    assert all(1e-5 <= lr < 1e-4 for lr in lrs), lrs  # each network's last step came late in the schedule
    frames = tr.new_actor()
    frames.reset(1)
    batch = []
    while not any(b[0] == 0 and len(b[2]) for b in batch):
        batch = frames.step(tr.model)
    p0 = next(b for b in batch if b[0] == 0 and len(b[2]))
    tr.learn(0, *p0[1:])
    assert tr.optims[0].param_groups[0]["lr"] == pytest.approx(1e-5)
    tr.explore(actor)
    assert (actor.epsilon, actor.bid_epsilon) == pytest.approx((0.01, 0.03))


def test_the_decisions_explore_at_their_own_rate():
    """With exploration 0 in the play and 1 in the decisions, every decision of an untrained
    network's tables is random and every play greedy: the decisions taken spread over the legal
    ones while the plays are the network's argmax."""
    tr = Trainer(TrainConfig(**RES, seed=5))
    actor = Actor(tr.rules, tr.feats, 64, "wp+score", 0.0, False, bid_epsilon=1.0)
    actor.reset(2)
    st = actor.st
    pos = actor._positions(st)
    rows = actor._choose(tr.model, st, pos, None)
    greedy_rows = Actor(tr.rules, tr.feats, 64, "wp+score", 0.0, False)._choose.__func__(
        _NoExplore(actor), tr.model, st, pos, None)
    decision = pos == tr.rules.players
    assert decision.all()  # a new hand starts with the auction
    assert (rows != greedy_rows).mean() > 0.25
    actor.bid_epsilon, actor.epsilon = 0.0, 1.0
    assert np.array_equal(actor._choose(tr.model, st, pos, None), greedy_rows)
    assert math.isclose(actor.epsilon, 1.0)


class _NoExplore:
    """An actor's fields with no exploration (to call ``Actor._choose`` greedily)."""

    def __init__(self, actor):
        self.__dict__.update(actor.__dict__)
        self.epsilon = self.bid_epsilon = 0.0
        self.rng = np.random.default_rng(0)
