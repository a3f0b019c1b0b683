"""The perfect-information target of the trainer (``TrainConfig.oracle_cards``): after each
action the actor records the exact solver's verdict on the new position (checked here against
``ddz.solve`` on the ``ddz.Game`` each table replays), a frame learns the first verdict at or
after its action (checked against a plain loop), and the target changes no action the actors
take: only what the frames learn."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import ddz  # noqa: E402
from ddz.learn.actor import Actor  # noqa: E402
from ddz.learn.dmc import TrainConfig, Trainer  # noqa: E402
from ddz.learn.vector_env import hand_seed  # noqa: E402

TINY = dict(tables=32, batch_size=128, hidden=[32], buffer_frames=2048, checkpoint_every=10**9)


def _cards_left(game: ddz.Game) -> int:
    return sum(len(game.hand(s)) for s in range(game.num_players))


@pytest.mark.parametrize("variant", ["classic", "twop"])
def test_the_actor_records_the_solvers_verdict_after_each_action(variant: str) -> None:
    tr = Trainer(TrainConfig(**dict(TINY, variant=variant, objective="wp", seed=2)))
    tables, seed, cards = 6, 41, 18
    actor = Actor(tr.rules, tr.feats, tables, "wp", 0.3, False, oracle_cards=cards, oracle_nodes=10**9)
    actor.reset(seed)
    env = actor.env
    sent = []
    step = env.step
    env.step = lambda a: (sent.append(np.array(a)), step(a))[1]  # type: ignore[method-assign]
    games = [ddz.Game(tr.rules, seed=hand_seed(seed, i)) for i in range(tables)]
    played = [0] * tables
    checked = 0
    for _ in range(250):
        actor.step(tr.model)
        ids = sent[-1]
        for i, g in enumerate(games):
            g.apply(int(ids[i]))
            if g.is_over:
                played[i] += 1
                games[i] = ddz.Game(tr.rules, seed=hand_seed(seed, played[i] * tables + i))
                continue
            got = int(actor.t_orc[i, actor.length[i] - 1])
            if g.phase != "PLAY" or _cards_left(g) > cards:
                assert got == -1
                continue
            sol = ddz.solve(g.play_state)
            assert got == int(sol.win == (g.current_seat == g.landlord))
            checked += 1
    assert checked > 30 and sum(played) > 6, (checked, played)


def _reference_fill(orc: np.ndarray, lengths: np.ndarray, outcome: np.ndarray) -> np.ndarray:
    """A plain loop: frame j learns the first known verdict at columns j..len-1, the outcome
    standing as the last column's."""
    out = np.full(orc.shape, -1, dtype=np.int8)
    for r in range(len(lengths)):
        row = list(orc[r, :lengths[r]])
        row[-1] = outcome[r]
        for j in range(lengths[r]):
            later = [v for v in row[j:-1] if v >= 0]
            out[r, j] = later[0] if later else row[-1]
    return out


def test_each_frame_learns_the_first_verdict_at_or_after_its_action() -> None:
    tr = Trainer(TrainConfig(**dict(TINY, objective="wp", seed=2)))
    actor = Actor(tr.rules, tr.feats, 40, "wp", 0.0, False, oracle_cards=20)
    actor.reset(1)
    rng = np.random.default_rng(7)
    cut = 30
    actor.t_orc[:, :cut] = rng.choice([-1, -1, -1, 0, 1], size=(40, cut))
    lengths = rng.integers(1, cut + 1, size=40)
    winner = rng.choice([-1, 0, 1], size=40)  # 0 the landlord's side, 1 the farmers', -1 neither
    outcome = np.where(winner < 0, -1, np.where(winner == 0, 1, 0))
    orc = actor.t_orc[:, :cut].copy()
    got = actor._verdicts(np.arange(40), lengths, cut, winner)
    want = _reference_fill(orc, lengths, outcome)
    inside = np.arange(cut)[None, :] < lengths[:, None]
    assert np.array_equal(got[inside], want[inside])
    assert (actor.t_orc == -1).all()  # the finished tables' verdicts are cleared for their next hands


def test_the_target_changes_what_frames_learn_not_what_the_actors_do() -> None:
    tr = Trainer(TrainConfig(**dict(TINY, objective="wp", seed=5)))
    runs = []
    for cards in (0, 20):
        actor = Actor(tr.rules, tr.feats, 32, "wp", 0.1, False, oracle_cards=cards)
        actor.reset(9)
        frames = []
        for _ in range(300):
            frames += actor.step(tr.model)
        runs.append(frames)
    plain, oracle = runs
    assert len(plain) == len(oracle)
    changed = total = 0
    for a, b in zip(plain, oracle):
        assert a[0] == b[0]
        for k in (1, 2, 3):  # observations, actions, histories: the same play
            assert np.array_equal(a[k], b[k])
        assert set(np.unique(b[4])) <= {-1.0, 0.0, 1.0}
        changed += int((a[4] != b[4]).sum())
        total += len(a[4])
    # the verdicts replace the outcome where best play from the endgame on would have turned it
    assert 0 < changed < total // 2, (changed, total)


def test_a_run_trains_with_the_oracle_and_the_options_are_checked(tmp_path) -> None:
    tr = Trainer(TrainConfig(**dict(TINY, objective="wp+score", net="res", hidden=[32, 32], seed=1, oracle_cards=16)),
                 out=str(tmp_path))
    out = tr.train(frames=1500)
    assert out["frames"] >= 1500 and np.isfinite(list(tr.recent_loss.values())).all()
    assert Trainer(out=str(tmp_path), resume=True).config.oracle_cards == 16
    with pytest.raises(ddz.ArgumentError, match="objective 'score'"):
        TrainConfig(objective="score", oracle_cards=20).check()
    with pytest.raises(ddz.ArgumentError, match="oracle_cards"):
        TrainConfig(oracle_cards=-1).check()
    with pytest.raises(ddz.ArgumentError, match="oracle_nodes"):
        TrainConfig(oracle_nodes=0).check()


def test_the_deal_filter_finishes_lopsided_hands_by_rule_keeping_their_auction_frames() -> None:
    """A filter that finds every hand lopsided (threshold just above one half, none kept) leaves
    the landlord's first play and every later play frameless, and keeps the auction's frames; a
    filter that finds none changes nothing."""
    tr = Trainer(TrainConfig(**dict(TINY, objective="wp", seed=5)))
    runs = {}
    for name, kw in (("off", {}), ("all", dict(deal_filter=0.5000001, filter_keep=0.0)),
                     ("none", dict(deal_filter=0.9999999, filter_keep=0.0))):
        actor = Actor(tr.rules, tr.feats, 32, "wp", 0.0, False, **kw)
        actor.reset(9)
        frames = []
        for _ in range(250):
            frames += actor.step(tr.model)
        runs[name] = (actor, frames)
    decision = tr.feats.decision_position
    off_actor, off = runs["off"]
    all_actor, every = runs["all"]
    assert all_actor.hands_done > 20 and all_actor.hands_filtered == all_actor.hands_done
    assert sum(len(f[2]) for f in every if f[0] != decision) == 0  # no play frames at all
    auction = [f for f in every if f[0] == decision]
    assert auction and sum(len(f[2]) for f in auction) > 0
    none_actor, none = runs["none"]
    assert none_actor.hands_filtered == 0 and off_actor.hands_done == none_actor.hands_done
    for a, b in zip(off, none):
        for k in range(1, 5):
            assert np.array_equal(a[k], b[k])
    with pytest.raises(ddz.ArgumentError, match="deal_filter"):
        TrainConfig(objective="adp", deal_filter=0.9).check()
    with pytest.raises(ddz.ArgumentError, match="deal_filter"):
        TrainConfig(objective="wp", deal_filter=0.4).check()
    with pytest.raises(ddz.ArgumentError, match="filter_keep"):
        TrainConfig(objective="wp", deal_filter=0.9, filter_keep=2).check()
    with pytest.raises(ddz.ArgumentError, match="modes single and threads"):
        TrainConfig(objective="wp", deal_filter=0.9, mode="processes").check()


def test_the_deal_filter_waits_for_its_warm_up() -> None:
    """Until the run has ``filter_after`` frames the trainer holds its actors' filter off."""
    for after, on in ((10**9, False), (0, True)):
        tr = Trainer(TrainConfig(**dict(TINY, objective="wp", seed=5, deal_filter=0.8, filter_after=after)))
        actor = tr.new_actor()
        tr.explore(actor)
        assert actor.filtering is on


def test_ddz_train_takes_the_oracle_and_the_deal_filter(tmp_path) -> None:
    import json
    import os
    from ddz.cli import main
    out = str(tmp_path / "run")
    assert main(["train", "--variant", "classic", "--objective", "wp", "--frames", "800", "--out", out,
                 "--tables", "16", "--batch-size", "64", "--hidden", "16", "--eval-games", "0", "--quiet",
                 "--oracle-cards", "18", "--oracle-nodes", "5000", "--deal-filter", "0.8", "--filter-keep", "0.2",
                 "--filter-after", "0"]) == 0
    with open(os.path.join(out, "config.json")) as f:
        cfg = json.load(f)
    assert (cfg["oracle_cards"], cfg["oracle_nodes"], cfg["deal_filter"], cfg["filter_keep"], cfg["filter_after"]) == \
        (18, 5000, 0.8, 0.2, 0)
    assert main(["train", "--objective", "adp", "--deal-filter", "0.8", "--out", str(tmp_path / "bad"),
                 "--frames", "10", "--quiet"]) != 0


def test_oracle_play_only_leaves_the_decisions_the_outcome() -> None:
    """``oracle_play_only``: the same hands, the same play; the play's frames learn the verdicts as
    under the full target, the decisions' frames (the decision network's) learn exactly what they
    learn without the target, the hand's outcome. Options that could not act are refused."""
    tr = Trainer(TrainConfig(**dict(TINY, objective="wp", seed=5)))
    runs = []
    for cards, play_only in ((0, False), (20, False), (20, True)):
        actor = Actor(tr.rules, tr.feats, 32, "wp", 0.1, False, oracle_cards=cards, oracle_play_only=play_only)
        actor.reset(9)
        frames = []
        for _ in range(300):
            frames += actor.step(tr.model)
        runs.append(frames)
    plain, full, play_only = runs
    decisions = tr.feats.decision_position
    seen = {"decisions": 0, "changed play": 0}
    for a, b, c in zip(plain, full, play_only):
        assert a[0] == b[0] == c[0]
        for k in (1, 2, 3):
            assert np.array_equal(b[k], c[k])
        if a[0] == decisions:
            assert np.array_equal(c[4], a[4])  # the outcome, as without the target
            seen["decisions"] += len(c[4])
        else:
            assert np.array_equal(c[4], b[4])  # the verdicts, as under the full target
            seen["changed play"] += int((b[4] != a[4]).sum())
    assert seen["decisions"] > 0 and seen["changed play"] > 0
    # the full target does change some decisions' frames: what play-only keeps from them
    assert any(not np.array_equal(a[4], b[4]) for a, b in zip(plain, full) if a[0] == decisions)
    with pytest.raises(ddz.ArgumentError, match="needs oracle_cards"):
        TrainConfig(oracle_play_only=True).check()
    with pytest.raises(ddz.ArgumentError, match="play-phase"):
        TrainConfig(oracle_cards=20, oracle_play_only=True, whole=False).check()
    with pytest.raises(ddz.ArgumentError, match="must be a bool"):
        TrainConfig(oracle_cards=20, oracle_play_only=1).check()


def test_ddz_train_takes_oracle_play_only(tmp_path) -> None:
    import json
    import os
    from ddz.cli import main
    out = str(tmp_path / "run")
    assert main(["train", "--variant", "bengbu", "--objective", "wp", "--frames", "600", "--out", out,
                 "--tables", "8", "--batch-size", "64", "--hidden", "16", "--eval-games", "0", "--quiet",
                 "--oracle-cards", "24", "--oracle-nodes", "2000", "--oracle-play-only"]) == 0
    with open(os.path.join(out, "config.json")) as f:
        assert json.load(f)["oracle_play_only"] is True
    assert main(["train", "--oracle-play-only", "--out", str(tmp_path / "bad"), "--frames", "10", "--quiet"]) != 0
