"""The `ddz` command line, run through its entry point with real assertions on the output."""
from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import ddz
from ddz.bots import RuleBot
from ddz.cli import main

VARIANT_FLAG = {"classic": "classic", "two_player": "two-player", "bengbu": "bengbu"}


def run(argv, stdin_text=""):
    out = io.StringIO()
    old_in, old_out = sys.stdin, sys.stdout
    sys.stdin, sys.stdout = io.StringIO(stdin_text), out
    try:
        code = main(argv)
    finally:
        sys.stdin, sys.stdout = old_in, old_out
    return code, out.getvalue()


def scripted_inputs(variant: str, seed: int, seat: int = 0):
    """The input lines of a player who always takes the first legal action, against the
    same rule bots `ddz play` uses, and the game that results."""
    g = ddz.Game(getattr(ddz.Rules, variant)(), seed=seed)
    for s in range(g.num_players):
        if s != seat:
            g.set_bot(s, RuleBot())
    lines = []
    while True:
        g.step_bots()
        if g.is_over:
            break
        token = g.legal_actions()[0]
        lines.append(token[5:] if token.startswith("PLAY ") else ("pass" if token == "PASS" else token.lower()))
        g.apply(token)
    return lines, g


@pytest.mark.parametrize("variant", ["classic", "two_player", "bengbu"])
def test_play_a_whole_hand_through_stdin(variant, tmp_path):
    for seed in range(20):
        lines, expect = scripted_inputs(variant, seed)
        if expect.result.kind == "normal" and len(lines) >= 3:
            break
    record = tmp_path / "hand.json"
    text = "?\nXYZ\n" + "\n".join(lines) + "\n"
    code, out = run(["play", "--variant", VARIANT_FLAG[variant], "--seed", str(seed), "--record", str(record)], text)
    assert code == 0, out
    assert "legal:" in out                       # '?' listed the legal actions
    assert "not accepted" in out                 # the invalid input was explained and asked again
    assert "hand over" in out and "Traceback" not in out
    assert "scores: " + " ".join(str(x) for x in expect.result.scores) in out
    assert f"multiplier {expect.result.multiplier}" in out
    replayed = ddz.Game.from_json(record.read_text(encoding="utf-8"))
    assert replayed.result == expect.result and replayed.history == expect.history


def test_play_explains_bad_plays_and_stops_cleanly_at_end_of_input():
    lines, _ = scripted_inputs("classic", 4)
    code, out = run(["play", "--seed", "4"], "\n".join(lines[:2]) + "\n")
    assert code == 1 and "end of input" in out and "Traceback" not in out
    code, out = run(["play", "--seed", "4", "--seat", "7"])
    assert code == 2


def test_selfplay_summary_agrees_with_simulate(tmp_path):
    out_file = tmp_path / "games.jsonl"
    code, out = run(["selfplay", "--variant", "bengbu", "--games", "2500", "--seed", "5", "--threads", "2",
                     "--out", str(out_file)])
    assert code == 0
    res = ddz.simulate(ddz.Rules.bengbu(), games=2500, seed=5)
    s = res.summary
    for label, key, fmt in [("landlord win rate", "landlord_win_rate", "{:.4f}"),
                            ("actions per game", "actions_per_game", "{:.2f}"),
                            ("bombs per game", "bombs_per_game", "{:.4f}"),
                            ("missiles per game", "missiles_per_game", "{:.4f}")]:
        m = re.search(re.escape(label) + r"\s*│\s*([0-9.]+)", out)
        assert m and m.group(1) == fmt.format(s[key]), label
    rows = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert len(rows) == 2500
    assert [r["actions"] for r in rows] == res.actions.tolist()
    assert [r["winner_side"] == "landlord" for r in rows] == (res.winner_side == 0).tolist()


def test_selfplay_in_chunks_equals_one_run():
    r = ddz.Rules.classic()
    whole = ddz.simulate(r, games=3000, seed=7)
    from ddz._sim import concat
    parts = concat([ddz.simulate(r, games=1000, seed=7, first_game=k) for k in (0, 1000, 2000)])
    assert np.array_equal(whole.actions, parts.actions) and np.array_equal(whole.winner_side, parts.winner_side)


def test_moves_lists_grouped_plays():
    code, out = run(["moves", "33344456", "--variant", "classic"])
    assert code == 0
    assert out.splitlines()[0].startswith(f"{ddz.count_moves('33344456', ddz.Rules.classic())} legal plays")
    assert "PLANE_SOLO (" in out and "33344456" in out
    code, out = run(["moves", "3456789", "--prev", "34567"])
    assert "STRAIGHT (2): 45678 56789" in out and "or PASS" in out


def test_replay_prints_the_recorded_hand(tmp_path):
    g = ddz.Game(ddz.Rules.two_player(), seed=11)
    for s in range(2):
        g.set_bot(s, RuleBot())
    g.step_bots()
    path = tmp_path / "rec.json"
    path.write_text(g.to_json(), encoding="utf-8")
    code, out = run(["replay", str(path)])
    assert code == 0
    assert "scores: " + " ".join(str(x) for x in g.result.scores) in out
    assert out.count("seat ") >= len(g.history)
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    code, _ = run(["replay", str(bad)])
    assert code == 2


def test_bench_runs_small():
    code, out = run(["bench", "--hands", "200", "--games", "200"])
    assert code == 0
    assert "legal_moves_batch" in out and "simulate bengbu" in out


def test_every_subcommand_has_help():
    exe = shutil.which("ddz")
    assert exe, "the ddz console script is installed"
    for cmd in ([], ["play"], ["selfplay"], ["moves"], ["bench"], ["replay"]):
        p = subprocess.run([exe, *cmd, "--help"], capture_output=True, text=True, timeout=60)
        assert p.returncode == 0 and "usage: ddz" in p.stdout


def test_solve_prints_result_moves_and_line():
    """`ddz solve`: the published KK5543 vs 225543 (first to lead wins; tests/data) and a loss."""
    code, out = run(["solve", "KK5543", "225543", "--all"])
    assert code == 0
    lines = out.splitlines()
    assert lines[1] == "result: seat 0 wins"
    want = {str(m) for m in ddz.solve(["KK5543", "225543"], ddz.Rules.classic(), all_moves=True).moves}
    assert set(lines[2].split(": ")[1].split(", ")) == want
    line = lines[3].split()[1:]
    assert line[0].split(":")[0] == "0" and line[-1].startswith("0:")
    code, out = run(["solve", "2KKTT77554", "AA8"])
    assert code == 0 and "result: seat 0 loses against best play" in out
    code, out = run(["solve", "2", "A4", "5", "--to-move", "1", "--prev", "3", "--sides", "011", "--all"])
    assert "result: seats 1+2 win" in out and "winning moves: 4, PASS" in out


def test_solve_bad_input_exits_2(capsys):
    assert main(["solve", "3X", "4"]) == 2
    assert "unknown card character 'X'" in capsys.readouterr().err
    assert main(["solve", "3", "4", "--sides", "0a"]) == 2
    assert main(["solve", "3", "4", "--prev", "34"]) == 2
