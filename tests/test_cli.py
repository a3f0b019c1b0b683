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


def scripted_inputs(variant: str, seed: int, seat: int = 0, auto_pass: bool = True):
    """The input lines of a player who always takes the first legal action, against the
    same rule bots `ddz play` uses, and the game that results. With auto_pass, a turn whose
    only legal action is PASS needs no line (ddz play passes by itself)."""
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
        if not (auto_pass and g.legal_actions() == ["PASS"]):
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
    if variant == "bengbu":
        assert f"bid {expect.result.factors['base']}" in out
    else:
        assert f"×{expect.result.multiplier}" in out
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
    from ddz.search.simulate import concat
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


# ---- ddz play for a person (issue: documentation and the command line, item 4) ----------

def test_play_screen_shows_what_a_player_needs():
    # seed 9: seat 0 is offered a rob, leads and follows (re-pinned for the one dealer)
    lines, g = scripted_inputs("classic", 9)
    code, out = run(["play", "--seed", "9"], "\n".join(lines) + "\n")
    assert code == 0 and "Traceback" not in out
    assert "you lead" in out and "to beat:" in out and "── trick to seat" in out
    assert "out: " in out                                   # the tracker of cards still out
    assert "1 = rob: rob the landlord seat" in out         # each decision explained when offered
    assert "{'rob'" not in out                               # factors formatted, not a dict
    assert "ʹ" not in out                                    # one deck: no second copies


def test_auto_pass_and_its_flag():
    lines, g = scripted_inputs("classic", 9, auto_pass=False)
    code, out = run(["play", "--seed", "9", "--no-auto-pass"], "\n".join(lines) + "\n")
    assert code == 0 and "scores: " + " ".join(map(str, g.result.scores)) in out
    assert "you cannot beat it: pass" not in out
    auto_lines, g2 = scripted_inputs("classic", 9)
    code, out = run(["play", "--seed", "9"], "\n".join(auto_lines) + "\n")
    assert code == 0 and g2.result == g.result
    assert len(auto_lines) < len(lines) and "you cannot beat it: pass" in out


class _Interrupt(io.StringIO):
    def __init__(self, lines):
        super().__init__("".join(l + "\n" for l in lines))
        self.left = len(lines)

    def readline(self, *a):
        if self.left == 0:
            raise KeyboardInterrupt
        self.left -= 1
        return super().readline(*a)


@pytest.mark.parametrize("end", ["interrupt", "eof"])
def test_ctrl_c_and_eof_end_cleanly_and_keep_the_record(end, tmp_path):
    lines, _ = scripted_inputs("two_player", 2)
    record = tmp_path / "r.json"
    args = ["play", "--variant", "twop", "--seed", "2", "--record", str(record)]
    if end == "interrupt":
        out = io.StringIO()
        old = sys.stdout
        sys.stdout = out
        try:
            code = main.__globals__["build_parser"]().parse_args(args).func(
                main.__globals__["build_parser"]().parse_args(args), stdin=_Interrupt(lines[:3]))
        finally:
            sys.stdout = old
        out = out.getvalue()
        assert code == 130 and "interrupted" in out
    else:
        code, out = run(args, "\n".join(lines[:3]) + "\n")
        assert code == 1 and "end of input" in out
    assert "Traceback" not in out and "unfinished" in out
    g = ddz.Game.from_json(record.read_text(encoding="utf-8"))
    assert not g.is_over and len([a for a in g.history if a[0] == 0]) == 3


def test_one_set_of_variant_names_for_every_subcommand(tmp_path):
    for alias in ("classic", "classic3", "two-player", "two_player", "twop", "bengbu", "bengbu4"):
        assert run(["moves", "3456789", "--variant", alias])[0] == 0
        assert run(["selfplay", "--variant", alias, "--games", "20"])[0] == 0
        assert run(["play", "--variant", alias, "--seed", "1"], "")[0] == 1   # ends at once: no input
    with pytest.raises(SystemExit):
        main(["moves", "33", "--variant", "classic4"])


def test_moves_in_rank_order():
    code, out = run(["moves", "333AKJ2", "--variant", "classic"])
    line = next(l for l in out.splitlines() if l.startswith("TRIO_SOLO"))
    assert line.split(": ")[1] == "333J 333K 333A 3332"


def test_replay_shows_the_kitty_and_steps(tmp_path):
    g = ddz.Game(ddz.Rules.classic(), 5)
    rng = __import__("random").Random(1)
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
    p = tmp_path / "g.json"
    p.write_text(g.to_json(), encoding="utf-8")
    code, out = run(["replay", str(p)])
    assert code == 0 and "kitty:" in out
    code, out = run(["replay", str(p), "--step"], "\n\nq\n")
    assert code == 0 and "  2. " in out and "  3. " not in out and "(stopped)" in out


def test_cards_and_factors_on_screen():
    from ddz.cli.play import format_factors, show_cards
    assert "♠ʹ" in show_cards(["3s", "3s'", "B'"], 2) and "Bʹ" in show_cards(["B'"], 2)
    assert format_factors({"rob": 2, "show": 1, "kitty": 1, "bomb": 2, "spring": 1}, 4) == \
        "×2 rob · ×2 bomb = ×4"
    assert format_factors({"rob": 1, "show": 1, "kitty": 1, "bomb": 1, "spring": 1}, 1) == "×1"
    assert format_factors({"base": 2, "open": True}, 1) == "bid 2 · open play (明打)"
    assert format_factors({"rob": 2, "fanshen": 2, "bomb": 1}, 4, ascii=True) == "x2 rob, x2 fanshen/yapo = x4"


def test_bengbu_screen_shows_bomb_limits_and_no_spring_rows():
    code, out = run(["selfplay", "--variant", "bengbu", "--games", "50"])
    assert "missiles" in out and "spring" not in out
    for seed in range(40):
        lines, g = scripted_inputs("bengbu", seed)
        if g.result.bomb_limits and any(x is not None for x in g.result.bomb_limits):
            break
    code, out = run(["play", "--variant", "bengbu", "--seed", str(seed)], "\n".join(lines) + "\n")
    assert code == 0 and "bomb limits:" in out


def test_messages_keep_the_input_case():
    code, out = run(["play", "--seed", "3"], "PLAY 3s\n")
    assert "PLAY 3s" in out and "PLAY 3S" not in out


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


# ---- ddz play --bot neural -------------------------------------------------------------

def _neural_inputs(bot, rules, seed, seat=0):
    """The input lines of a player taking the first legal action against ``bot`` in every other
    seat (what ``ddz play --bot neural`` seats), and the game that results."""
    g = ddz.Game(rules, seed=seed)
    for s in range(g.num_players):
        if s != seat:
            g.set_bot(s, bot)
    lines = []
    while True:
        g.step_bots()
        if g.is_over:
            break
        token = g.legal_actions()[0]
        if g.legal_actions() != ["PASS"]:
            lines.append(token[5:] if token.startswith("PLAY ") else ("pass" if token == "PASS" else token.lower()))
        g.apply(token)
    return lines, g


def test_play_against_the_shipped_neural_model():
    from ddz.learn import NeuralBot
    lines, expect = _neural_inputs(NeuralBot.shipped("classic"), ddz.Rules.classic(), seed=5)
    code, out = run(["play", "--bot", "neural", "--seed", "5"], "\n".join(lines) + "\n")
    assert code == 0, out
    assert "bots: neural" in out and "hand over" in out and "Traceback" not in out
    assert "scores: " + " ".join(str(x) for x in expect.result.scores) in out


def test_play_against_a_model_file(tmp_path):
    """``--model PATH`` plays that file (and implies --bot neural); a whole-hand model bids too;
    without --variant the game is under the model's rules."""
    from ddz.learn import NeuralBot
    from test_learn_bot import random_model
    m = random_model(ddz.Rules.two_player(), hidden=[16], whole=True, seed=3)
    path = tmp_path / "twop.npz"
    m.save(path)
    lines, expect = _neural_inputs(NeuralBot(m), ddz.Rules.two_player(), seed=2)
    code, out = run(["play", "--model", str(path), "--seed", "2"], "\n".join(lines) + "\n")
    assert code == 0, out
    assert "ddz two_player" in out and "bots: neural" in out
    assert "scores: " + " ".join(str(x) for x in expect.result.scores) in out
    code, out = run(["play", "--model", str(path), "--variant", "twop", "--seed", "2"], "\n".join(lines) + "\n")
    assert code == 0 and "scores: " + " ".join(str(x) for x in expect.result.scores) in out


@pytest.mark.parametrize("argv, words", [
    (["--bot", "neural", "--variant", "bengbu"], "no model is shipped for bengbu"),
    (["--model", "NOFILE"], "cannot read model"),
    (["--model", "JUNK"], "cannot read model"),
    (["--model", "TWOP", "--variant", "classic"], "plays Rules.two_player(), not Rules.classic()"),
    (["--model", "TWOP", "--bot", "rules"], "--model is the neural bots' model"),
])
def test_play_neural_errors_are_one_line(argv, words, tmp_path, capsys, monkeypatch):
    import ddz.learn.shipped as S
    from test_learn_bot import random_model
    if "bengbu" in argv:  # the package as if no BENGBU4 model were shipped
        monkeypatch.setattr(S, "SHIPPED", {v: e for v, e in S.SHIPPED.items() if v != "bengbu"})
        S._load.cache_clear()
    (tmp_path / "junk.npz").write_bytes(b"not a model")
    random_model(ddz.Rules.two_player(), hidden=[8]).save(tmp_path / "twop.npz")
    paths = {"NOFILE": str(tmp_path / "none.npz"), "JUNK": str(tmp_path / "junk.npz"),
             "TWOP": str(tmp_path / "twop.npz")}
    code, out = run(["play", "--seed", "1"] + [paths.get(a, a) for a in argv], "")
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in out + err
    assert err.count("\n") == 1 and err.startswith("ddz play: ") and words in err, err
