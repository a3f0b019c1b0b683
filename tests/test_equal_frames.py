"""benchmarks/equal_frames.py and douzero_protocol.summarise (#25's equal-frames comparison):
the pieces that need neither DouZero's trainer nor hours — which of DouZero's saves a comparison
takes, the frame-list argument, and the protocol's WP / ADP bookkeeping."""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest
from bench_scripts import load

ef = load("equal_frames")


def _touch(folder: Path, *names: str) -> None:
    for n in names:
        (folder / n).write_bytes(b"")


def test_douzero_saves_keeps_complete_sets(tmp_path):
    _touch(tmp_path, "landlord_weights_100.ckpt", "landlord_up_weights_100.ckpt", "landlord_down_weights_100.ckpt",
           "landlord_weights_250.ckpt", "landlord_up_weights_250.ckpt",  # incomplete: a save cut short
           "model.tar", "landlord.ckpt", "landlord_weights_x.ckpt")
    saves = ef.douzero_saves(tmp_path)
    assert sorted(saves) == [100]
    assert {p: f.name for p, f in saves[100].items()} == {
        "landlord": "landlord_weights_100.ckpt", "landlord_up": "landlord_up_weights_100.ckpt",
        "landlord_down": "landlord_down_weights_100.ckpt"}
    assert ef.douzero_saves(tmp_path / "missing") == {}


def test_frames_argument():
    assert ef._frames_arg("2000000,1e6, 500000") == [500000, 1000000, 2000000]
    for bad in ("", "x", "0,5", "-3"):
        with pytest.raises(argparse.ArgumentTypeError):
            ef._frames_arg(bad)


def test_compare_says_what_is_missing(tmp_path):
    (tmp_path / "douzero" / "equal").mkdir(parents=True)
    _touch(tmp_path / "douzero" / "equal", *(f"{p}_weights_900.ckpt" for p in ef.POSITIONS))
    with pytest.raises(SystemExit, match="no save at or above 1000 frames yet .newest: 900"):
        ef.compare(tmp_path, 1000, 10, 0, None)
    with pytest.raises(SystemExit, match="ddz has no snapshot between 810 and 900 frames"):
        ef.compare(tmp_path, 800, 10, 0, None)


def test_summarise_counts_each_role():
    dp = load("douzero_protocol")
    # deal 0: A wins as landlord (+4) and as farmers (B the landlord lost, -2 -> A's +2);
    # deal 1: A loses as landlord (-2), and B wins as landlord (+8 -> A's farmers -8)
    a_ll = {"won": np.array([True, False]), "score": np.array([4.0, -2.0])}
    b_ll = {"won": np.array([False, True]), "score": np.array([-2.0, 8.0])}
    res = dp.summarise(a_ll, b_ll)
    assert res["a_landlord"] == {"wp": 0.5, "adp": 1.0}
    assert res["a_farmers"] == {"wp": 0.5, "adp": -3.0}
    assert res["wp"] == 0.5 and res["adp"] == -1.0
    assert res["wp_ci"][0] < 0.5 < res["wp_ci"][1]


def test_ddz_step_stops_at_or_below_each_milestone(tmp_path, monkeypatch):
    """ddz's trainer counts frames by learner batches and stops at the first count at or past its
    target, so the step asks for the milestone rounded down to whole batches: the batch of the
    run's config once it exists, before that a ``--batch-size`` given to the step, else the
    trainer's default (a snapshot past DouZero's save could not be compared with it)."""
    calls = []

    def fake_run(cmd, check):
        calls.append(cmd)
        out = Path(cmd[cmd.index("--out") + 1])
        out.mkdir(parents=True, exist_ok=True)
        (out / "model.npz").write_bytes(b"")
        (out / "checkpoint.pt").write_bytes(b"")
        (out / "config.json").write_text('{"batch_size": 1000}')

    monkeypatch.setattr(ef.subprocess, "run", fake_run)
    made = ef.run_ddz(tmp_path, [2_500_500, 5_638_400], ["--batch-size", "1000"])
    targets = [int(c[c.index("--frames") + 1]) for c in calls]
    assert targets == [2_500_000, 5_638_000]
    assert "--resume" not in calls[0] and "--resume" in calls[1]
    assert [f for f, _ in made] == [2_500_500, 5_638_400]
    assert ef._batch_size(tmp_path / "new", ["--batch-size=512"]) == 512
    pytest.importorskip("torch")  # the trainer's default batch comes from ddz.learn.dmc
    from ddz.learn.dmc import TrainConfig
    assert ef._batch_size(tmp_path / "new", []) == TrainConfig().batch_size


def _douzero_checkpoint(folder: Path, frames: int) -> None:
    """A model.tar in DouZero's layout (tiny weights), with the log files DouZero keeps beside it."""
    torch = pytest.importorskip("torch")
    folder.mkdir(parents=True, exist_ok=True)
    weights = {p: {"dense.weight": torch.full((2, 3), float(i + frames))} for i, p in enumerate(ef.POSITIONS)}
    torch.save({"model_state_dict": weights, "optimizer_state_dict": {p: {} for p in ef.POSITIONS},
                "stats": {"loss_landlord": 0.5}, "flags": {"xpid": "equal"}, "frames": frames,
                "position_frames": {p: frames // 3 for p in ef.POSITIONS}}, folder / "model.tar")
    (folder / "logs.csv").write_text(f"# _tick,_time,frames\n0,1.0,{frames}\n")
    (folder / "fields.csv").write_text("_tick,_time,frames\n")


def test_archive_and_restore_carry_a_run_to_a_new_machine(tmp_path):
    """A session may start on a new machine: the archived checkpoint (committed) restores the
    run, with DouZero's weight files of that save for compare, and is checked on the way back."""
    torch = pytest.importorskip("torch")
    old, new, arch = tmp_path / "old", tmp_path / "new", tmp_path / "archive"
    _douzero_checkpoint(old / "douzero" / "equal", 3200)
    assert ef.archive(old, arch) == 3200
    assert sorted(p.name for p in arch.iterdir()) == ["checkpoint.json", "fields.csv", "logs.csv", "model.tar"]
    assert ef.restore(new, arch) == 3200
    saves = ef.douzero_saves(new / "douzero" / "equal")
    assert sorted(saves) == [3200]
    for i, p in enumerate(ef.POSITIONS):
        w = torch.load(saves[3200][p], weights_only=True)
        assert torch.equal(w["dense.weight"], torch.full((2, 3), float(i + 3200)))
    assert (new / "douzero" / "equal" / "logs.csv").read_text() == (old / "douzero" / "equal" / "logs.csv").read_text()
    # an archive never goes backwards, nor does a run directory
    _douzero_checkpoint(old / "douzero" / "equal", 1600)
    with pytest.raises(SystemExit, match="holds a checkpoint of 3,200 frames, more than"):
        ef.archive(old, arch)
    _douzero_checkpoint(new / "douzero" / "equal", 6400)
    with pytest.raises(SystemExit, match="already holds 6,400 frames"):
        ef.restore(new, arch)
    # a damaged archive is refused
    data = bytearray((arch / "model.tar").read_bytes())
    data[-1] ^= 0xFF
    (arch / "model.tar").write_bytes(bytes(data))
    with pytest.raises(SystemExit, match="does not match its SHA-256"):
        ef.restore(tmp_path / "third", arch)
    with pytest.raises(SystemExit, match="nothing to archive"):
        ef.archive(tmp_path / "empty", arch)
    with pytest.raises(SystemExit, match="no archived DouZero checkpoint"):
        ef.restore(new, tmp_path / "none")


def test_douzero_step_stops_its_trainer_on_sigterm(tmp_path, monkeypatch):
    """DouZero's trainer runs in its own session, so a SIGTERM to the step must stop it on the way
    out: before the step turned SIGTERM into an exception, a killed step left the trainer running
    and a second one could start beside it on the same checkpoint. The trainer also gets its torch
    threads (two one-thread actors are DouZero's best on two cores) and its niceness, for its
    session's scheduling group as well."""
    import os
    import signal
    import threading
    import time

    child = ("import os, sys, time\n"
             "d = sys.argv[sys.argv.index('--savedir') + 1]\n"
             "time.sleep(0.5)  # the step sets its session's niceness just after starting it\n"
             "g = open('/proc/self/autogroup').read().split()[-1] if os.path.exists('/proc/self/autogroup') else '-'\n"
             "open(os.path.join(d, 'pid'), 'w').write(f\"{os.getpid()} {os.environ.get('OMP_NUM_THREADS')} "
             "{sys.argv[sys.argv.index('--num_actors') + 1]} {os.nice(0)} {g}\")\n"
             "time.sleep(600)\n")
    monkeypatch.setattr(ef, "DOUZERO_CODE", child)
    previous = signal.getsignal(signal.SIGTERM)
    pid_file = tmp_path / "douzero" / "pid"

    def term_when_started():
        deadline = time.monotonic() + 30
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGTERM)

    killer = threading.Thread(target=term_when_started, daemon=True)
    try:
        ef.stop_on_sigterm()
        killer.start()
        t0 = time.monotonic()
        newest = ef.run_douzero(tmp_path, 1_000, minutes=5, nice=5, actors=2, threads=1)
        took = time.monotonic() - t0
    finally:
        signal.signal(signal.SIGTERM, previous)
        killer.join(5)
    assert newest == 0  # no save was made
    assert took < 60  # stopped by the signal, not by the 5 minutes
    pid, threads, actors, nice, group_nice = pid_file.read_text().split()
    assert (threads, actors, int(nice)) == ("1", "2", min(19, os.nice(0) + 5))  # `nice -n 5` adds to ours
    assert group_nice in ("5", "-")  # its session's scheduling group too, where Linux has autogroups
    header = (tmp_path / "douzero.log").read_text().splitlines()[0]
    assert " OMP_NUM_THREADS=1 nice -n 5 " in header and "--num_actors 2" in header  # the log says how it ran
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid), 0)  # the trainer is gone (and reaped), not left running


def test_the_protocol_seats_a_search_over_a_play_phase_model_and_times_it(tmp_path):
    """``nsearch@PATH`` plays DouZero's protocol in DouZero's own GameEnv, its decisions timed."""
    pytest.importorskip("torch")
    pytest.importorskip("douzero.env.game")
    from ddz.learn.dmc import TrainConfig, Trainer
    dp = load("douzero_protocol")
    tr = Trainer(TrainConfig(variant="classic_douzero", whole=False, objective="wp", hidden=[16], tables=8,
                             batch_size=32, buffer_frames=256, seed=1))
    path = tmp_path / "model.npz"
    tr.neural_model().save(path)
    a_times, b_times = [], []
    a = dp.make_agents(f"nsearch:50:worlds=4:node_limit=200@{path}", a_times)
    b = dp.make_agents("rule", b_times)
    data = dp.deals(2, 7)
    res = dp.summarise(dp.play(a, b, data), dp.play(b, a, data))
    assert 0.0 <= res["wp"] <= 1.0 and len(a_times) > 5 and len(b_times) > 5
