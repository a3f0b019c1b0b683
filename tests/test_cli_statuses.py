"""The command line as docs/cli.md states it: the marker after every trick that closes, errors on
stderr (one line, nothing on stdout), the exit statuses of its "Exit statuses" table (0, 1, 2, 130,
Ctrl-C included, sent as a real SIGINT), and ``ddz bench``'s rows tied to the README's headline
figures."""
from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import ddz
from ddz.cli import main
main_module = __import__("importlib").import_module("ddz.cli.main")
from ddz.hand.tricks import Tricks
from test_cli import run, scripted_inputs

ROOT = Path(__file__).resolve().parent.parent


def _closings(g: ddz.Game) -> int:
    """How many tricks closed in ``g``'s hand, read from the play state as the hand is replayed
    (not from ddz.hand.tricks): a pass after which no play is left to beat."""
    replay = ddz.Game(g.rules, g.seed)
    n = 0
    for seat, token in g.history:
        if token == "REDEAL":
            continue
        replay.apply(token, seat=seat)
        ps = replay.play_state
        if token == "PASS" and ps is not None and ps.top is None and not ps.is_over:
            n += 1
    return n


def test_the_trick_marker_shows_whenever_a_trick_closes():
    """Also when a bot wins the trick and leads again before the player acts (the marker used to
    show only when the trick was still closed at the player's turn)."""
    for seed in range(40):
        lines, g = scripted_inputs("classic", seed)
        closes = _closings(g)
        # a hand where some trick is closed by the bots and followed by a bot's lead
        tricks, bot_closes = Tricks(3), 0
        for i, (seat, token) in enumerate(g.history):
            leader = tricks.follow(seat, token)
            if leader is not None and leader != 0 and i + 1 < len(g.history) and g.history[i + 1][0] == leader:
                bot_closes += 1
        if bot_closes:
            break
    code, out = run(["play", "--seed", str(seed)], "\n".join(lines) + "\n")
    assert code == 0 and closes > 0
    assert out.count("── trick to seat") == closes


@pytest.mark.parametrize("variant", ["classic", "two_player", "bengbu"])
def test_tricks_agree_with_the_play_state(variant):
    import random
    rng = random.Random(7)
    for seed in range(3):
        g = ddz.Game(ddz.Rules(variant), seed)
        while not g.is_over:
            g.apply(rng.choice(g.legal_actions()))
            t = Tricks(g.num_players, g.history)
            ps = g.play_state
            if ps is None or ps.is_over or g.phase != "PLAY":
                continue
            if ps.top is None:
                assert t.closed or not t.current
            else:
                plays = [i for i, (_, token) in enumerate(t.current) if token != "PASS"]
                assert not t.closed and t.current[plays[-1]][0] == ps.top[1]
                assert len(t.current) - 1 - plays[-1] == ps.passes


ERRORS = [
    (["play", "--seat", "5"], "--seat must be 0..2"),
    (["play", "--seed", "-1"], "seed must be"),
    (["play", "--record", "{missing}/r.json"], "No such file"),
    (["selfplay", "--games", "0"], "--games must be positive"),
    (["selfplay", "--games", "5", "--out", "{missing}/x.jsonl"], "No such file"),
    (["bench", "--hands", "0"], "must be positive"),
    (["bench", "--peers", "--rules", "bengbu"], "no peer plays it"),
    (["moves", "XYZ"], "unknown card character"),
    (["moves", "333", "--prev", "33334"], "is not a legal combination"),
    (["replay", "{missing}/r.json"], "cannot replay"),
    (["solve", "33", "44", "--to-move", "7"], "to_move must be"),
    (["replay", "{missing}/r.json", "--svg", "{tmp}/t.svg"], "cannot replay"),
    (["replay", "{record}", "--svg", "{missing}/t.svg"], "--svg: "),
    (["replay", "{view}", "--svg", "{tmp}/t.svg"], "--svg draws a game record"),
]


@pytest.mark.parametrize("argv, words", ERRORS, ids=[" ".join(a) for a, _ in ERRORS])
def test_errors_are_one_line_on_stderr_and_exit_2(argv, words, tmp_path, capsys):
    g = ddz.Game(ddz.Rules.classic(), 1)
    (tmp_path / "r.json").write_text(g.to_json(), encoding="utf-8")
    (tmp_path / "v.json").write_text(g.view_json(0), encoding="utf-8")
    argv = [a.format(missing=tmp_path / "no_such_folder", tmp=tmp_path, record=tmp_path / "r.json",
                     view=tmp_path / "v.json") for a in argv]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and out == "", out
    assert err.count("\n") == 1 and err.startswith(f"ddz {argv[0]}: ") and words in err, err


def test_usage_errors_exit_2_on_stderr(capsys):
    for argv in (["play", "--seed", "abc"], ["moves", "33", "--variant", "classic4"], ["nosuch"]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        out, err = capsys.readouterr()
        assert e.value.code == 2 and out == "" and "error:" in err


def test_status_1_when_stopped_short(capsys):
    assert main(["solve", "33445566778899TTJJQ", "3456789TJQKA2BR", "--time-limit", "0.001"]) == 1
    assert "unsolved" in capsys.readouterr().out


def test_ctrl_c_in_any_subcommand_exits_130(monkeypatch, capsys):
    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(main_module, "simulate", interrupted)
    assert main(["selfplay", "--games", "10"]) == 130
    assert "ddz selfplay: interrupted" in capsys.readouterr().err


@pytest.mark.parametrize("argv, prompt", [(["play", "--seed", "1"], b"choose"),
                                          (["replay", "{record}", "--step"], b"Enter steps")])
def test_a_real_sigint_exits_130(argv, prompt, tmp_path):
    """Ctrl-C as a terminal sends it: SIGINT to a ddz waiting for its input."""
    record = tmp_path / "r.json"
    lines, g = scripted_inputs("classic", 1)
    record.write_text(g.to_json(), encoding="utf-8")
    # The installed ddz, as a user's terminal runs it (a source tree has no compiled core).
    env = dict(os.environ, COLUMNS="120")
    # SIGINT as a terminal's shell leaves it to its jobs: a suite started in the background by a
    # non-interactive shell ignores SIGINT, and a child would inherit that and never see Ctrl-C
    p = subprocess.Popen([sys.executable, "-m", "ddz.cli", *[a.format(record=record) for a in argv]],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        seen = b""
        deadline = time.monotonic() + 60
        os.set_blocking(p.stdout.fileno(), False)
        while prompt not in seen and time.monotonic() < deadline:
            seen += p.stdout.read() or b""
            time.sleep(0.05)
        if prompt not in seen:
            p.kill()
            pytest.fail(f"no prompt {prompt!r}; stdout {seen!r}; stderr {p.stderr.read()!r}")
        p.send_signal(signal.SIGINT)
        code = p.wait(timeout=30)
    finally:
        p.kill()
    assert code == 130
    rest = (seen + (p.stdout.read() or b"") + p.stderr.read()).decode()
    assert "interrupted" in rest and "Traceback" not in rest


def test_the_docs_state_these_statuses():
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text[text.index("## Exit statuses"):text.index("\n## ", text.index("## Exit statuses") + 5)]
    assert re.findall(r"^\| (\d+) \|", section, flags=re.M) == ["0", "1", "2", "130"]
    assert "exit status 1)" not in text  # Ctrl-C is 130, not 1


# ---- ddz bench and the README's headline figures ----------------------------------------

def _readme_headlines():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Headline figures"):text.index("\n## ", text.index("## Headline figures") + 5)]
    return [cells[0].strip() for cells in (line.strip("|").split("|") for line in section.splitlines()
                                            if line.startswith("| ") and not line.startswith("| what"))]


def test_every_bench_row_names_its_readme_headline_or_none():
    rows = main_module.bench_rows(argparse.Namespace(hands=50, games=20, seed=1))
    headlines = _readme_headlines()
    named = set()
    for workload, per_second, headline in rows:
        assert per_second > 0
        if headline.startswith("none: "):
            continue
        what = headline.split(": ")[0]
        assert what in headlines, f"{workload}: {what!r} is no headline of the README"
        named.add(what)
    # the per-call row, the one a reader compares with the batch headline, says it is none
    per_call = next(h for w, _, h in rows if "per call" in w and "legal_moves_array" in w)
    assert per_call.startswith("none: ") and "batch" in per_call
    batch = next(h for w, _, h in rows if "legal_moves_batch (hands)" in w)
    assert "ns a move" in batch                  # in the headline's own unit
    assert named == {main_module.README_BATCH, main_module.README_SIMULATE}
