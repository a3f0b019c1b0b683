"""The README's solver, sampling and SearchBot examples run, and their commented results hold."""
from __future__ import annotations

import re
from pathlib import Path

import ddz

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def section() -> str:
    start = README.index("## Open-hand solver, hidden-hand sampling and SearchBot")
    return README[start:README.index("\n## ", start + 1)]


def test_python_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", section(), flags=re.S)
    assert len(blocks) == 3
    env: dict = {}
    for code in blocks:
        exec(compile(code, "README.md", "exec"), env)  # noqa: S102 - our own documentation
    assert env["sol"].win is True and sorted(str(m) for m in env["sol"].moves) == ["4", "5"]
    assert env["rows"].shape == (1000, 3)
    assert env["g"].result.winner_side in ("landlord", "farmers")


def test_commented_results() -> None:
    rules = ddz.Rules.classic()
    assert [repr(m) for m in ddz.solve(["23", "5"], rules, prev="4", all_moves=True).moves] == ["Move('2', SOLO, key=12)"]
    assert ddz.solve(["2", "A4", "5"], rules, to_move=1, prev="3", sides=[0, 1, 1], all_moves=True).win is True
    assert ddz.solve(["3333", "4"], ddz.Rules.bengbu(), prev="2", bomb_limits=[0, None]).win is False
    hands, landlord = ddz.deal(rules, seed=7, game=0)
    sol = ddz.solve(ddz.PlayState(hands, landlord, rules), time_limit=0.05)
    assert sol.complete is False and sol.win is None
