"""The Deep Monte-Carlo trainer (needs torch; skipped without it): the loss falls on a fixed
batch, a seeded one-thread run is exact, a resumed run continues exactly, the numpy forward pass
equals torch's, a short run beats RandomBot, every variant trains, ``ddz train`` runs."""
from __future__ import annotations

import csv
import io
import os
import re
import sys
import time

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import ddz  # noqa: E402
from ddz.bots import RandomBot, RuleBot  # noqa: E402
from ddz.learn import NeuralBot, NeuralModel  # noqa: E402
from ddz.learn.actor import Actor, greedy  # noqa: E402
from ddz.learn.dmc import TrainConfig, Trainer  # noqa: E402

TINY = dict(tables=32, batch_size=128, hidden=[32], buffer_frames=2048, checkpoint_every=10**9)


def arrays_equal(a, b):
    return set(a) == set(b) and all(np.array_equal(a[k], b[k]) for k in a)


def fixed_batch(tr, objective, n=256, seed=1):
    """``n`` frames of the landlord's network (position 0) from 32 tables played by ``tr``'s
    networks without exploration: (obs, act, hist, ret)."""
    actor = Actor(tr.rules, tr.feats, 32, objective, 0.0, False)
    actor.reset(seed)
    frames = []
    while sum(len(f[2]) for f in frames if f[0] == 0) < n:
        frames += actor.step(tr.model)
    return tuple(np.concatenate([f[k] for f in frames if f[0] == 0])[:n] for k in range(1, 5))


def test_the_loss_falls_on_a_fixed_batch():
    tr = Trainer(TrainConfig(**TINY, lr=1e-3, seed=3))
    obs, act, hist, ret = fixed_batch(tr, "adp")
    losses = [tr.learn(0, obs, act, hist, ret) for _ in range(100)]
    assert losses[-1] < 0.3 * losses[0], (losses[0], losses[-1])


def test_passes_take_that_many_steps_on_a_batch_and_count_its_frames_once():
    """``passes=2`` is two gradient steps on each batch: the same weights as learning the batch
    twice with ``passes=1``; a run counts each frame once and each step in ``updates``."""
    one, two = (Trainer(TrainConfig(**TINY, seed=3, passes=k)) for k in (1, 2))
    actor = Actor(one.rules, one.feats, 32, "adp", 0.0, False)
    actor.reset(1)
    frames = []
    while sum(len(f[2]) for f in frames if f[0] == 0) < 128:
        frames += actor.step(one.model)
    batch = [np.concatenate([f[k] for f in frames if f[0] == 0])[:128] for k in range(1, 5)]
    first = one.learn(0, *batch)
    one.learn(0, *batch)
    assert two.learn(0, *batch) == first  # the loss before the first step
    assert arrays_equal(one.model.arrays(), two.model.arrays())
    run = Trainer(TrainConfig(**TINY, seed=3, passes=3))
    run.train(frames=1000)
    assert run.frames >= 1000 and run.updates == 3 * run.frames // 128
    with pytest.raises(ddz.ArgumentError, match="passes"):
        TrainConfig(**TINY, passes=0).check()


def test_a_seeded_one_thread_run_is_exact_and_seeds_differ():
    runs = []
    for seed in (5, 5, 6):
        tr = Trainer(TrainConfig(**TINY, seed=seed))
        tr.train(frames=1500)
        runs.append(tr.model.arrays())
    assert arrays_equal(runs[0], runs[1])
    assert not arrays_equal(runs[0], runs[2])


def test_checkpoints_round_trip_and_a_resumed_run_continues_exactly(tmp_path):
    cfg = dict(TINY, checkpoint_every=1000, seed=2)
    straight = Trainer(TrainConfig(**cfg), out=str(tmp_path / "a"))
    straight.train(frames=2000)
    first = Trainer(TrainConfig(**cfg), out=str(tmp_path / "b"))
    first.train(frames=1000)
    assert 0 < first.buffer.size[0] or 0 < first.buffer.size[1]  # frames waiting: saved with the checkpoint
    resumed = Trainer(out=str(tmp_path / "b"), resume=True)
    assert resumed.frames == first.frames and resumed.updates == first.updates
    assert arrays_equal(resumed.model.arrays(), first.model.arrays())
    assert resumed.buffer.size == first.buffer.size
    resumed.train(frames=2000)
    assert resumed.frames == straight.frames
    assert arrays_equal(resumed.model.arrays(), straight.model.arrays())
    # the run directory: config, checkpoint, model for NeuralBot, log
    names = set(os.listdir(tmp_path / "b"))
    assert {"config.json", "checkpoint.pt", "model.npz", "log.csv"} <= names
    assert arrays_equal(NeuralModel.load(tmp_path / "b" / "model.npz").arrays, straight.model.arrays())
    with pytest.raises(ddz.ArgumentError, match="resume"):
        Trainer(out=str(tmp_path / "empty"), resume=True)


def _play_decisions(rules, n, seed=0):
    """Games played by RuleBot up to ``n`` play decisions: (game copy, seat) pairs."""
    out, s = [], seed
    while len(out) < n:
        g = ddz.Game(rules, seed=s)
        bot = RuleBot()
        while not g.is_over:
            if g.phase == "PLAY":
                out.append((g.clone(), g.current_seat))
            g.apply(bot.act(g, g.current_seat))
        s += 1
    return out[:n]


# The numpy and torch forward passes differ by float rounding only: Q values agree within this,
# and where their choices differ, the two choices' Q values are within it (a tie).
Q_TOLERANCE = 1e-4


@pytest.mark.parametrize("net", ["small", "douzero"])
def test_numpy_inference_equals_torch(net):
    rules = ddz.Rules.classic()
    tr = Trainer(TrainConfig(tables=8, batch_size=64, net=net, buffer_frames=256, seed=4))
    bot = NeuralBot(tr.neural_model())
    f = tr.feats
    for g, seat in _play_decisions(rules, 60):
        ids, q_np = bot.scores(g, seat)
        obs = ddz.encode.compact(g, seat)[None]
        p = int(f.position(obs)[0])
        hist = f.history(bot.history(g)[None]) if net == "douzero" else None
        with torch.no_grad():
            q_t = tr.model.nets[p](torch.from_numpy(f.state(obs)), torch.from_numpy(f.actions(ids)),
                                   torch.zeros(len(ids), dtype=torch.long),
                                   None if hist is None else torch.from_numpy(hist)).numpy()
        np.testing.assert_allclose(q_np, q_t, rtol=0, atol=Q_TOLERANCE)
        a, b = int(np.argmax(q_np)), int(np.argmax(q_t))
        assert a == b or abs(q_t[a] - q_t[b]) <= Q_TOLERANCE


def test_greedy_takes_the_first_highest_of_each_table():
    q = np.array([1.0, 3.0, 3.0, 0.5, -2.0, -1.0], dtype=np.float32)
    offsets = np.array([0, 3, 4, 6])
    assert greedy(q, offsets).tolist() == [1, 3, 5]


def test_a_short_run_beats_random_bot():
    tr = Trainer(TrainConfig(tables=128, batch_size=256, hidden=[128], buffer_frames=4096, lr=3e-3, seed=1,
                             objective="wp", checkpoint_every=10**9))
    tr.train(frames=40_000)
    res = ddz.evaluate([NeuralBot(tr.neural_model()), RandomBot(1), RandomBot(2)], tr.rules, games=100, seed=9)
    s = res["NeuralBot"].overall
    assert s.win_rate_ci[0] > 0.5, s


@pytest.mark.parametrize("variant", ["twop", "bengbu", "classic_douzero"])
@pytest.mark.parametrize("objective", ["wp", "score"])
def test_every_variant_and_objective_trains(variant, objective):
    tr = Trainer(TrainConfig(**dict(TINY, tables=16, batch_size=64), variant=variant, objective=objective))
    out = tr.train(frames=600)
    assert out["frames"] >= 600 and tr.updates >= 600 // 64
    losses = [v for v in tr.recent_loss.values()]
    assert losses and all(np.isfinite(losses))
    if objective == "wp":
        assert all(v < 10 for v in losses)


def test_the_lstm_preset_trains():
    # the play phase: DouZero's three networks (about 4.5M parameters)
    tr = Trainer(TrainConfig(tables=16, batch_size=64, net="douzero", buffer_frames=512, seed=1, whole=False))
    params = sum(p.numel() for p in tr.model.parameters())
    assert len(tr.model.nets) == 3 and 4_000_000 < params < 6_000_000
    tr.train(frames=200)
    assert np.isfinite(list(tr.recent_loss.values())).all()
    # whole hands: a fourth network for the decisions
    whole = Trainer(TrainConfig(tables=16, batch_size=64, net="douzero", buffer_frames=512, seed=1))
    assert len(whole.model.nets) == 4
    whole.train(frames=200)
    assert np.isfinite(list(whole.recent_loss.values())).all()


def test_threads_mode_trains(tmp_path):
    tr = Trainer(TrainConfig(**dict(TINY, mode="threads", actors=2, checkpoint_every=500)), out=str(tmp_path))
    out = tr.train(frames=1200)
    assert out["frames"] >= 1200
    assert os.path.exists(tmp_path / "checkpoint.pt")
    back = Trainer(out=str(tmp_path), resume=True)
    assert back.frames == tr.frames


def test_bad_options_are_refused():
    for bad in (dict(objective="x"), dict(mode="cluster"), dict(mode="process"), dict(net="huge"), dict(hidden=[0]), dict(variant="chess"),
                dict(epsilon=2.0), dict(batch_size=0), dict(buffer_frames=10), dict(rule_tables=1.5),
                dict(rule_tables=-0.1), dict(rule_tables="half"), dict(rule_tables=True)):
        with pytest.raises(ddz.ArgumentError):
            TrainConfig(**bad).check()
    with pytest.raises(ddz.ArgumentError, match="budget"):
        Trainer(TrainConfig(**TINY)).train()


def test_ddz_train_runs_end_to_end(tmp_path, capsys):
    from ddz.cli import main
    out = str(tmp_path / "run")
    args = ["train", "--variant", "classic", "--frames", "1000", "--out", out, "--tables", "32", "--batch-size",
            "128", "--hidden", "32", "--eval-games", "2", "--eval-every", "500", "--checkpoint-every", "600"]
    assert main(args) == 0
    text = capsys.readouterr()
    assert "frames/s" in text.err and "win rate" in text.out
    # the progress line: target and share, time spent and left, each network's loss by name
    last = [ln for ln in text.err.splitlines() if "frames/s" in ln][-1]
    assert re.search(r"[\d,]+ / 1,000 frames \(100\.0 %\)  elapsed \d:\d\d:\d\d  ETA 0:00:00  ", last), last
    assert all(f" {name} " in last for name in ("landlord", "down", "up", "bids")), last
    # the summary: the last evaluation by role and the landlord share
    assert re.search(r"as landlord \d\.\d{3}, as farmer \d\.\d{3}, landlord in \d+ % of its hands", text.out)
    with open(os.path.join(out, "log.csv")) as f:
        rows = list(csv.DictReader(f))
    assert rows and all(int(r["frames"]) > 0 for r in rows)
    assert any(r["eval_wp"] for r in rows)
    assert NeuralBot(os.path.join(out, "model.npz")).rules == ddz.Rules.classic()
    assert main(args) == 2  # a second run into the same directory is refused
    assert "--resume" in capsys.readouterr().err
    assert main(["train", "--out", out, "--resume", "--frames", "1400", "--quiet", "--eval-games", "0"]) == 0
    try:
        import matplotlib  # noqa: F401
        assert os.path.exists(os.path.join(out, "curve.png"))
    except ImportError:
        pass


@pytest.mark.parametrize("mode", ["single", "threads"])
def test_request_stop_ends_training_at_the_next_step_saved(tmp_path, mode):
    import threading
    import time
    tr = Trainer(TrainConfig(**TINY, mode=mode), out=str(tmp_path))
    done = threading.Event()
    th = threading.Thread(target=lambda: (tr.train(seconds=120), done.set()), daemon=True)
    th.start()
    t0 = time.monotonic()
    while tr.frames < 300 and time.monotonic() - t0 < 60:
        time.sleep(0.05)
    assert tr.frames >= 300
    tr.request_stop()
    assert done.wait(30), "train() did not return after request_stop"
    saved = NeuralModel.load(str(tmp_path / "model.npz"))
    assert saved.meta["frames"] == tr.frames
    assert Trainer(out=str(tmp_path), resume=True).frames == tr.frames


def test_sigterm_stops_ddz_train_with_the_run_saved(tmp_path):
    """``ddz train`` on SIGTERM: exit 0 at the next step, checkpoint and model at the frames reached."""
    import signal
    import subprocess
    import time
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "ddz.cli", "train", "--out", str(out), "--hours", "1", "--tables", "32",
           "--batch-size", "128", "--hidden", "32", "--eval-games", "0", "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        t0 = time.monotonic()
        while not (out / "config.json").exists() and time.monotonic() - t0 < 120 and proc.poll() is None:
            time.sleep(0.1)
        time.sleep(3.0)  # training under way
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr
    assert "stopped by a signal" in stderr
    frames = Trainer(out=str(out), resume=True).frames
    assert frames > 0 and NeuralModel.load(str(out / "model.npz")).meta["frames"] == frames


def test_the_command_line_defaults_are_the_configs():
    from ddz.cli.train import _defaults
    cfg = TrainConfig()
    assert all(getattr(cfg, k) == v for k, v in _defaults().items()), _defaults()


def test_a_small_buffer_never_overflows_in_one_thread():
    """Many hands ending in one step fill a small ring: the learner drains it as it fills."""
    tr = Trainer(TrainConfig(tables=256, batch_size=64, hidden=[16], buffer_frames=128, checkpoint_every=10**9))
    tr.train(frames=3000)
    assert tr.frames >= 3000 and all(s <= 128 for s in tr.buffer.size)


def test_a_run_starts_from_a_model_file(tmp_path):
    first = Trainer(TrainConfig(**TINY, seed=1), out=str(tmp_path / "a"))
    first.train(frames=600)
    model = str(tmp_path / "a" / "model.npz")
    second = Trainer(TrainConfig(**TINY, seed=2, init=model), out=str(tmp_path / "b"))
    assert second.frames == first.frames
    assert arrays_equal(second.model.arrays(), first.model.arrays())
    out = second.train(frames=first.frames + 300)
    assert second.frames >= first.frames + 300
    # the rate counts this run's frames over this run's seconds, not the model's earlier frames
    assert out["frames_per_s"] == pytest.approx((second.frames - first.frames) / second.train_seconds)
    with pytest.raises(ddz.ArgumentError, match="network"):
        Trainer(TrainConfig(**dict(TINY, hidden=[16]), init=model))
    with pytest.raises(ddz.ArgumentError, match="network"):
        Trainer(TrainConfig(**TINY, variant="twop", init=model))
    # a whole-hands model cannot start a play-phase run: the message names both sides' phases
    with pytest.raises(ddz.ArgumentError, match=r"whole hands.*; this run trains .*the play phase only"):
        Trainer(TrainConfig(**TINY, whole=False, init=model))
    assert "init_rules" not in ddz.learn.NeuralModel.load(str(tmp_path / "b" / "model.npz")).meta


def test_a_run_starts_from_a_model_of_other_rules_of_the_variant(tmp_path):
    """A transfer: CLASSIC3 weights start a classic_rlcard run (same feature widths; the features
    describe cards and kinds, not action ids); the new model records where it started, across a
    resume too. Another variant, or other widths, are refused."""
    first = Trainer(TrainConfig(**TINY, seed=1), out=str(tmp_path / "a"))
    first.train(frames=600)
    model = str(tmp_path / "a" / "model.npz")
    run = str(tmp_path / "rl")
    second = Trainer(TrainConfig(**TINY, seed=2, variant="classic_rlcard", init=model), out=run)
    assert second.rules == ddz.Rules.classic_rlcard()
    assert arrays_equal(second.model.arrays(), first.model.arrays())
    second.train(frames=first.frames + 300)
    saved = ddz.learn.NeuralModel.load(run + "/model.npz")
    assert saved.rules == ddz.Rules.classic_rlcard()
    assert saved.meta["init_rules"]["preset"] == "classic"
    assert not saved.plays(ddz.Rules.classic()) and saved.plays(ddz.Rules.classic_rlcard())
    resumed = Trainer(out=run, resume=True)
    resumed.train(frames=second.frames + 200)
    assert ddz.learn.NeuralModel.load(run + "/model.npz").meta["init_rules"]["preset"] == "classic"
    with pytest.raises(ddz.ArgumentError, match="network"):
        Trainer(TrainConfig(**TINY, variant="bengbu", init=model))


def test_grow_computes_the_same_function_and_refuses_shrinking():
    from ddz.learn import nets
    rng = np.random.default_rng(0)
    f = ddz.learn.features.features_for(ddz.Rules.classic(), True)
    cfg = nets.net_config("small", [24, 16])
    shapes = nets.param_shapes(cfg, f.state_dim, f.action_dim, 3 * f.move_dim)
    p = {k: rng.normal(0, 0.3, s).astype(np.float32) for k, s in shapes.items()}
    state = (rng.random((5, f.state_dim)) < 0.3).astype(np.float32)
    acts = f.actions(rng.integers(0, f.num_ids, 40))
    idx = rng.integers(0, 5, 40)
    q = nets.forward(p, cfg, state, acts, idx)
    for hidden in ([24, 16], [40, 16], [24, 32], [48, 32, 32], [24, 16, 16, 20]):
        g = nets.grow(p, cfg, hidden, np.random.default_rng(1))
        big = nets.net_config("small", hidden)
        assert {k: v.shape for k, v in g.items()} == nets.param_shapes(big, f.state_dim, f.action_dim, 3 * f.move_dim)
        np.testing.assert_allclose(nets.forward(g, big, state, acts, idx), q, rtol=1e-5, atol=1e-5)
    for bad in ([16, 16], [24], [24, 16, 8]):
        with pytest.raises(ddz.ArgumentError, match="grow|wide"):
            nets.grow(p, cfg, bad, np.random.default_rng(1))


def test_a_run_grows_a_model_and_trains_on(tmp_path):
    first = Trainer(TrainConfig(**TINY, seed=1), out=str(tmp_path / "a"))
    first.train(frames=600)
    model = str(tmp_path / "a" / "model.npz")
    with pytest.raises(ddz.ArgumentError, match="grow"):
        Trainer(TrainConfig(**dict(TINY, hidden=[48, 48]), init=model))
    grown = Trainer(TrainConfig(**dict(TINY, hidden=[48, 48]), init=model, grow=True), out=str(tmp_path / "b"))
    small, big = first.neural_model(), grown.neural_model()
    actor = Actor(ddz.Rules.classic(), first.feats, 4, "wp", 0.0, False)  # whole-hand rows
    actor.reset(3)
    for _ in range(12):  # auction decisions, then plays
        obs, ids = actor.st.obs[0], actor.st.legal_ids[actor.st.legal_offsets[0]:actor.st.legal_offsets[1]]
        for pos in range(first.positions):
            np.testing.assert_allclose(big.q_values(pos, obs, ids), small.q_values(pos, obs, ids), rtol=1e-5, atol=1e-5)
        actor.step(first.model)
    grown.train(frames=first.frames + 300)
    assert grown.frames >= first.frames + 300 and np.isfinite(list(grown.recent_loss.values())).all()
    assert NeuralModel.load(str(tmp_path / "b" / "model.npz")).net["hidden"] == [48, 48]


def test_int8_actors_choose_as_float32_actors_and_train():
    """actor_int8: the acting copy's Q values are close to float32's and its greedy choices the
    same on nearly every table; the option trains in threads mode and is refused elsewhere."""
    from ddz.learn.actor import int8_copy as _int8, score_actions
    tr = Trainer(TrainConfig(**dict(TINY, hidden=[64, 64])))
    tr.train(frames=2000)
    q8 = _int8(tr.model)
    actor = Actor(tr.rules, tr.feats, 64, "wp", 0.0, False)
    actor.reset(9)
    same = total = 0
    for _ in range(20):
        st = actor.st
        pos = actor._positions(st)
        a = score_actions(tr.model, tr.feats, st.obs, st.legal_ids, st.legal_offsets, None, False, pos)
        b = score_actions(q8, tr.feats, st.obs, st.legal_ids, st.legal_offsets, None, False, pos)
        assert np.abs(a - b).max() < 0.05
        same += int((greedy(a, st.legal_offsets) == greedy(b, st.legal_offsets)).sum())
        total += len(st.obs)
        actor.step(tr.model)
    assert same / total >= 0.95, same / total
    run = Trainer(TrainConfig(**TINY, mode="threads", actor_int8=True))
    run.train(frames=1500)
    assert run.frames >= 1500 and np.isfinite(list(run.recent_loss.values())).all()
    with pytest.raises(ddz.ArgumentError, match="actor_int8"):
        TrainConfig(**TINY, actor_int8=True).check()  # mode single


def test_a_log_begun_with_other_columns_keeps_them(tmp_path):
    (tmp_path / "log.csv").write_text("wall_time,frames,loss_p0\n1.0,5,0.5\n")
    tr = Trainer(TrainConfig(**TINY), out=str(tmp_path))
    tr.train(frames=300)
    with open(tmp_path / "log.csv") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["wall_time", "frames", "loss_p0"] and all(len(r) == 3 for r in rows)
    assert int(rows[-1][1]) == tr.frames and tr.cpu_seconds > 0


def test_a_position_without_a_batch_logs_an_empty_loss(tmp_path):
    """A log row covers the learner's batches since the row before; a position that got none (a
    learner starved of CPU, or just resumed) has no loss to give: its field is empty, as the
    evaluation's fields are without an evaluation, never the "nan" an empty mean would print."""
    from ddz.learn.dmc import _Stats
    tr = Trainer(TrainConfig(**TINY, eval_every=10**9), out=str(tmp_path))
    stats = _Stats()
    stats.add(0, 0.25)
    stats.add(0, 0.75)
    t = time.perf_counter()
    clock = dict(t=t, cpu=time.process_time(), logged=t, shown=t, frames=0, seconds=0.0)
    tr._periodic(stats, clock, None, lambda: None, force=True)
    with open(tmp_path / "log.csv") as f:
        row = list(csv.DictReader(f))[-1]
    assert row["loss_p0"] == "0.50000"
    assert all(row[f"loss_p{p}"] == "" for p in range(1, tr.positions)), row


@pytest.mark.parametrize("net", ["small", "douzero"])
def test_the_actors_batched_scores_equal_one_state_at_a_time(net):
    """score_actions (every table at once, one pass per position) gives each table's legal actions
    the Q values the torch-free model gives that one state; the actor's history of a table is the
    history NeuralBot reads from the same hand's play state."""
    from types import SimpleNamespace
    from ddz.learn.actor import score_actions
    rules = ddz.Rules.classic()
    tr = Trainer(TrainConfig(tables=12, batch_size=64, net=net, hidden=[24, 12] if net == "small" else None,
                             buffer_frames=256, seed=8, whole=False))
    model = tr.neural_model()
    bot = NeuralBot(model)
    actor = Actor(rules, tr.feats, 12, "adp", 0.0, tr.lstm)
    actor.reset(3)
    taken = []
    game0 = int(actor.env.games()[0])
    for _ in range(12):
        st = actor.st
        q = score_actions(tr.model, tr.feats, st.obs, st.legal_ids, st.legal_offsets, actor.hist, tr.lstm)
        for i in range(12):
            a, b = st.legal_offsets[i], st.legal_offsets[i + 1]
            pos = int(tr.feats.position(st.obs[i:i + 1])[0])
            one = model.q_values(pos, st.obs[i], st.legal_ids[a:b], actor.hist[i].astype(np.int32))
            np.testing.assert_allclose(q[a:b], one, rtol=0, atol=1e-4)
        actor.step(tr.model)
        taken.append(int(actor.hist[0, -1]))
    assert int(actor.env.games()[0]) == game0  # table 0 is still in its first hand (12 decisions)
    # table 0's hand replayed in a PlayState: the same history
    ps = ddz.PlayState(*ddz.deal(rules, 3, game0), rules)
    for aid in taken:
        ps.apply(aid)
    want = bot.history(SimpleNamespace(play_state=ps))
    assert actor.hist[0].tolist() == want.tolist()


def test_processes_mode_trains_and_leaves_no_process(tmp_path):
    import multiprocessing as mp
    if "fork" not in mp.get_all_start_methods():
        pytest.skip("processes mode forks")
    tr = Trainer(TrainConfig(**dict(TINY, mode="processes", actors=2, checkpoint_every=500)), out=str(tmp_path))
    out = tr.train(frames=1200)
    assert out["frames"] >= 1200 and np.isfinite(list(tr.recent_loss.values())).all()
    assert not mp.active_children()
    assert Trainer(out=str(tmp_path), resume=True).frames == tr.frames


@pytest.mark.parametrize("variant", ["classic", "twop", "bengbu"])
def test_whole_hand_actor_scores_every_decision_as_neural_bot(variant):
    """Whole hands: each table of the actor is the Game of its hand seed; the batched scores of
    every table (the decision network in the auction, a position's network in the play) equal
    NeuralBot's scores of that Game, and the actor's frames of a finished hand include its
    decisions, with returns of the seat's side (wp)."""
    from ddz.learn.actor import score_actions
    from ddz.learn.vector_env import hand_seed
    tr = Trainer(TrainConfig(tables=6, batch_size=64, hidden=[24], buffer_frames=256, seed=4, variant=variant,
                             objective="wp"))
    rules, model = tr.rules, tr.neural_model()
    assert model.whole and model.positions == rules.players + 1
    bot = NeuralBot(model)
    actor = Actor(rules, tr.feats, 6, "wp", 0.0, tr.lstm)
    actor.reset(7)
    env = actor.env
    games = {i: ddz.Game(rules, seed=int(s)) for i, s in enumerate(env.hand_seeds())}
    decisions, frames = 0, []
    for _ in range(400):
        st = actor.st
        q = score_actions(tr.model, tr.feats, st.obs, st.legal_ids, st.legal_offsets, actor.hist, tr.lstm,
                          actor._positions(st))
        for i, g in games.items():
            a, b = st.legal_offsets[i], st.legal_offsets[i + 1]
            ids, one = bot.scores(g, g.current_seat)
            assert ids.tolist() == st.legal_ids[a:b].tolist()
            np.testing.assert_allclose(q[a:b], one, rtol=0, atol=1e-4)
            decisions += g.phase != "PLAY"
        frames += actor.step(tr.model)
        picked = actor.t_act[np.arange(6), np.maximum(actor.length - 1, 0)]
        for i, g in list(games.items()):
            if actor.length[i] == 0:  # the hand ended: the table's next hand (hands ending at the deal skipped)
                games[i] = ddz.Game(rules, seed=int(env.hand_seeds()[i]))
                assert not games[i].is_over
            else:
                g.apply(int(picked[i]))
    assert decisions > 0
    dec = [f for f in frames if f[0] == rules.players]
    assert dec and all(len(f[2]) == 0 or (f[2] > rules.pass_id).all() for f in dec)
    assert all(set(np.unique(f[4])) <= {-1.0, 0.0, 1.0} for f in frames)
    assert int(hand_seed(7, 0)) == int(ddz.VectorEnv(rules, 6, 7).hand_seeds()[0])


def test_a_recorded_config_without_whole_trains_the_play_phase(tmp_path):
    cfg = TrainConfig.from_dict({"variant": "classic", "tables": 8})
    assert cfg.whole is False
    assert TrainConfig().whole is True
    with pytest.raises(ddz.ArgumentError, match="whole"):
        TrainConfig(whole="yes").check()  # type: ignore[arg-type]


def test_device_option():
    assert Trainer(TrainConfig(**TINY, device="cpu")).device.type == "cpu"
    with pytest.raises(ddz.ArgumentError, match="device"):
        TrainConfig(**TINY, device="tpu").check()
    if not torch.cuda.is_available():
        with pytest.raises(ddz.ArgumentError, match="no CUDA device"):
            Trainer(TrainConfig(**TINY, device="cuda"))
    tr = Trainer(TrainConfig(**TINY, device="auto"))
    tr.train(frames=300)
    assert tr.frames >= 300


def test_ray_mode_trains_on_a_local_cluster(tmp_path):
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        tr = Trainer(TrainConfig(**dict(TINY, mode="ray", actors=2, checkpoint_every=500, sync_every=4)),
                     out=str(tmp_path))
        out = tr.train(frames=1500)
        assert out["frames"] >= 1500 and tr.updates >= 1500 // TINY["batch_size"]
        assert np.isfinite(list(tr.recent_loss.values())).all()
        back = Trainer(out=str(tmp_path), resume=True)
        assert back.frames == tr.frames and back.config.mode == "ray"
    finally:
        ray.shutdown()


@pytest.mark.parametrize("variant", ["classic", "bengbu"])
def test_rule_seats_play_the_rule_policy_and_make_no_frames(variant):
    """rule_tables=1: every hand seats the rule policy in 1..players-1 seats; those seats play
    VectorEnv.rule_choices (RuleBot's bids, the rollout policy's play) and only the networks'
    seats make frames."""
    tr = Trainer(TrainConfig(tables=8, batch_size=64, hidden=[24], buffer_frames=256, seed=4, variant=variant,
                             objective="wp", rule_tables=1.0))
    n, players = 8, tr.rules.players
    actor = Actor(tr.rules, tr.feats, n, "wp", 0.0, tr.lstm, rule_tables=1.0)
    actor.reset(9)
    ar = np.arange(n)
    mine = np.zeros(n, dtype=np.int64)  # the networks' decisions in each table's hand so far
    made = expected = ruled_steps = 0
    for _ in range(600):
        counts = actor.rule_seat.sum(axis=1)
        assert ((counts >= 1) & (counts <= players - 1)).all(), actor.rule_seat
        st = actor.st
        ruled = actor.rule_seat[ar, st.seat]
        want = st.legal_ids[st.legal_offsets[:-1] + actor.env.rule_choices()]
        frames = actor.step(tr.model)
        taken = actor.t_act[ar, np.maximum(actor.length - 1, 0)]
        done = actor.length == 0
        assert (taken[ruled & ~done] == want[ruled & ~done]).all()
        ruled_steps += int(ruled.sum())
        mine += ~ruled
        made += sum(len(f[2]) for f in frames)
        expected += int(mine[done].sum())
        mine[done] = 0
    assert ruled_steps > 0 and made == expected > 0


def test_rule_tables_share_and_a_seeded_run_with_them_is_exact():
    tr = Trainer(TrainConfig(**TINY, seed=2))
    actor = Actor(tr.rules, tr.feats, 4000, "wp", 0.0, False, rule_tables=0.5)
    actor.reset(3)
    mixed = actor.rule_seat.any(axis=1)
    assert 0.45 < mixed.mean() < 0.55
    two = actor.rule_seat[mixed].sum(axis=1)  # CLASSIC3: the networks keep 1 or 2 seats
    assert set(np.unique(two)) == {1, 2} and 0.4 < (two == 1).mean() < 0.6
    assert 0.3 < actor.rule_seat[mixed].mean(axis=0).min()  # every seat is a rule seat at times
    runs = []
    for _ in range(2):
        t = Trainer(TrainConfig(**TINY, seed=5, rule_tables=0.5))
        t.train(frames=1500)
        runs.append(t.model.arrays())
    assert arrays_equal(runs[0], runs[1])



def test_in_a_hand_with_rule_seats_each_network_seat_gets_its_own_return():
    """Network seats on opposite sides of a hand with rule seats are opponents, as in self-play:
    each frame's return is its own seat's (wp: +1 won, -1 lost), never a shared one (a shared
    return taught a landlord to lose to its own copies: docs/models.md)."""
    tr = Trainer(TrainConfig(tables=8, batch_size=64, hidden=[24], buffer_frames=256, seed=4, objective="wp",
                             rule_tables=1.0))
    n = 8
    actor = Actor(tr.rules, tr.feats, n, "wp", 0.0, tr.lstm, rule_tables=1.0)
    actor.reset(11)
    ar, seats = np.arange(n), np.arange(tr.rules.players)
    frames_by_seat = np.zeros((n, tr.rules.players), dtype=np.int64)
    got, want, opposed = [], [], 0
    for _ in range(600):
        st = actor.st
        before = actor.rule_seat.copy()
        ruled = before[ar, st.seat]
        frames_by_seat[ar[~ruled], st.seat[~ruled]] += 1
        frames = actor.step(tr.model)
        got += [r for f in frames for r in f[4].tolist()]
        t = actor.st.terminal
        for k, i in enumerate(t.tables):
            r = np.where((seats == t.landlord[k]) == (t.winner[k] == 0), 1.0, -1.0)
            mine = ~before[i]
            opposed += int(len(set(r[mine])) == 2)
            want += np.repeat(r[mine], frames_by_seat[i][mine]).tolist()
            frames_by_seat[i] = 0
    assert sorted(got) == sorted(want) and len(got) > 100 and opposed > 0


def test_a_cpu_budget_stops_the_run_there_and_a_resumed_run_continues_to_it(tmp_path):
    """``train(cpu_seconds=...)`` (``ddz train --cpu-hours``): the run stops once its CPU time in
    all (log.csv's ``cpu_seconds``) reaches the budget, within a step; a resumed run with a larger
    budget goes on to that one, and with the budget reached already trains no more."""
    import math
    tr = Trainer(TrainConfig(**TINY, seed=3), out=str(tmp_path))
    s = tr.train(cpu_seconds=1.5)
    assert 1.5 <= s["cpu_seconds"] < 1.5 + 1.0 and tr.frames > 0
    assert "CPU" in tr.progress_line() and "%" in tr.progress_line()
    again = Trainer(out=str(tmp_path), resume=True)
    assert math.isclose(again.cpu_seconds, s["cpu_seconds"], rel_tol=1e-3)
    frames = again.frames
    again.train(cpu_seconds=1.0)  # reached already
    assert again.frames == frames
    s2 = again.train(cpu_seconds=3.0)
    assert 3.0 <= s2["cpu_seconds"] < 3.0 + 1.0 and again.frames > frames
    with pytest.raises(ValueError):
        again.train()
