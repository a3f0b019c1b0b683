"""tools/ship_model.py's reproducing command: the ``ddz train`` line written into a shipped
model's index entry must give back the run's config when ddz's own parser reads it, for every
option the trainer has (the perfect-information target, the schedules, the deal filter, ...)."""
from __future__ import annotations

import os
import shlex
import sys

from ddz.cli.main import build_parser

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
from ship_model import _train_options, chain_command, train_command  # noqa: E402

# a run whose config differs from the defaults in options of every kind (number, flag, list, choice)
CONFIG = {"variant": "classic", "seed": 7, "objective": "wp", "net": "small", "hidden": [512, 256],
          "tables": 128, "batch_size": 2048, "lr": 0.0005, "lr_end": 1e-05, "epsilon": 0.1, "epsilon_end": 0.01,
          "bid_epsilon": 0.3, "bid_epsilon_end": 0.03, "schedule_frames": 15000000, "rule_tables": 0.2,
          "oracle_cards": 20, "oracle_nodes": 20000, "deal_filter": 0.8, "filter_keep": 0.1,
          "filter_after": 3000000, "actor_int8": True, "mode": "threads", "actors": 2, "passes": 2,
          "optimizer": "rmsprop", "eval_every": 2000000, "eval_games": 100, "checkpoint_every": 1000000,
          "device": "cpu", "learner_threads": 1, "whole": False}


def _parse(cmd: str):
    argv = shlex.split(cmd)
    assert argv[:2] == ["ddz", "train"]
    return build_parser().parse_args(argv[1:])


def test_the_command_reads_back_as_the_runs_config():
    cmd = train_command("classic", CONFIG, 12_345_678, "runs/classic")
    args = _parse(cmd)
    options = _train_options()
    assert {"oracle_cards", "deal_filter", "schedule_frames", "bid_epsilon_end", "rule_tables"} <= set(options)
    for key in options:
        if key in CONFIG:
            assert getattr(args, key) == CONFIG[key], key
    assert (args.variant, args.seed, args.frames, args.out, args.play_only) == ("classic", 7, 12_345_678,
                                                                              "runs/classic", True)


def test_defaults_are_left_out():
    cmd = train_command("classic", {**CONFIG, "oracle_nodes": 20000, "filter_keep": 0.1, "tables": 256,
                                    "actor_int8": False, "whole": True}, 100, "runs/x")
    for flag in ("--oracle-nodes", "--filter-keep", "--tables", "--actor-int8", "--play-only",
                 "--device", "--learner-threads"):
        assert flag not in cmd.split(), flag
    assert "--oracle-cards 20" in cmd and "--deal-filter 0.8" in cmd


def test_a_chain_of_one_run_is_its_own_command():
    # a chain with no earlier run is the run's own command
    assert chain_command("classic", [], CONFIG, 100, False) == train_command("classic", {**CONFIG, "whole": False},
                                                                             100, "runs/classic")


def test_the_entry_takes_the_runs_cpu_seconds_past_its_last_evaluation(tmp_path):
    """A run's log ends with its final evaluation's row, which has no CPU seconds: the entry takes
    them (and the training seconds) from the rows before, the evaluation from that row."""
    import json
    import ddz
    from ship_model import entry_for
    from test_learn_bot import random_model

    random_model(ddz.Rules.two_player(), hidden=[8], whole=True).save(tmp_path / "model.npz")
    (tmp_path / "config.json").write_text(json.dumps({**CONFIG, "variant": "two_player", "whole": True}))
    (tmp_path / "log.csv").write_text("train_seconds,cpu_seconds,frames,eval_wp,eval_games\n"
                                      "10.0,7.5,1000,,\n20.0,15.0,2000,,\n20.0,,2000,0.625,8\n")
    entry = entry_for(str(tmp_path), "here")
    assert (entry["train_seconds"], entry["cpu_seconds"]) == (20.0, 15.0)
    assert entry["eval_vs_rulebot"] == {"eval_wp": 0.625, "eval_games": 8.0} and entry["hardware"] == "here"
    assert "--oracle-cards 20" in entry["train_command"]


def test_decisions_from_ships_one_models_play_with_the_others_decisions(tmp_path):
    """``--decisions-from``: the shipped file holds the run's play networks and the other model's
    decisions network, bit for bit; the entry names the other model and leaves out the run's own
    evaluation (it played the run's decisions); models that differ are refused."""
    import json
    import numpy as np
    import pytest
    import ddz
    from ddz.learn import NeuralModel
    from ship_model import compose_decisions, entry_for
    from test_learn_bot import random_model

    rules = ddz.Rules.two_player()
    play, decisions = random_model(rules, hidden=[8], whole=True, seed=1), random_model(rules, hidden=[8], whole=True, seed=2)
    decisions.meta["frames"] = 123
    both = compose_decisions(play, decisions)
    dec = f"p{rules.players}."
    assert any(k.startswith(dec) for k in both.arrays) and set(both.arrays) == set(play.arrays)
    for k, v in both.arrays.items():
        assert np.array_equal(v, (decisions if k.startswith(dec) else play).arrays[k])
    assert both.meta["decisions_frames"] == 123

    both.save(tmp_path / "both.npz")
    decisions.save(tmp_path / "decisions.npz")
    (tmp_path / "config.json").write_text(json.dumps({**CONFIG, "variant": "two_player", "whole": True}))
    (tmp_path / "log.csv").write_text("train_seconds,cpu_seconds,frames,eval_wp,eval_games\n"
                                      "10.0,7.5,1000,,\n10.0,,1000,0.125,8\n")
    entry = entry_for(str(tmp_path), None, src=str(tmp_path / "both.npz"),
                      decisions_from=str(tmp_path / "decisions.npz"))
    assert entry["decisions_from"]["frames"] == 123 and entry["decisions_from"]["file"].endswith("decisions.npz")
    assert "eval_vs_rulebot" not in entry and entry["cpu_seconds"] == 7.5
    reloaded = NeuralModel.load(str(tmp_path / "both.npz"))
    assert all(np.array_equal(reloaded.arrays[k], both.arrays[k]) for k in both.arrays)

    with pytest.raises(SystemExit, match="network"):
        compose_decisions(play, random_model(rules, hidden=[16], whole=True))
    with pytest.raises(SystemExit, match="rules"):
        compose_decisions(play, random_model(ddz.Rules.classic(), hidden=[8], whole=True))
    with pytest.raises(SystemExit, match="whole-hands"):
        compose_decisions(random_model(rules, hidden=[8]), random_model(rules, hidden=[8]))


def test_a_chain_may_name_the_frames_an_earlier_run_stopped_at(tmp_path):
    """``--after RUN_DIR@FRAMES``: the earlier run's command stops at FRAMES, not at its model's."""
    import json
    import ddz
    from test_learn_bot import random_model

    random_model(ddz.Rules.classic(), hidden=[8]).save(tmp_path / "model.npz")  # frames 0
    (tmp_path / "config.json").write_text(json.dumps(CONFIG))
    cmd = chain_command("classic", [f"{tmp_path}@5000"], CONFIG, 9000, False)
    first, last = cmd.split(" && ")
    assert _parse(first).frames == 5000 and _parse(last).frames == 9000
    assert _parse(last).init == "runs/classic-1/model.npz"
