"""The fuzz targets (tests/fuzz/targets.py and targets_*.py) run briefly on every test run, with a fixed seed,
so a target that breaks or an entry point that regresses on hostile input fails here; the
long runs and the sanitizer build are in .ci/sanitize (docs/fuzzing.md)."""
from __future__ import annotations

import pytest

from fuzz.run import TARGETS, main, mutate, run_builtin

# inputs per target on each test run: about 20 s in total (the search, sampling and learning
# targets spend more per input: a node limit, a tiny time per move, one-deal evaluations)
BUDGET = {"game_apply": 150, "from_json": 600, "solve": 300, "sample_deals": 300, "vector_env": 60,
          "encoders": 200, "read_view": 400, "evaluate": 40, "search_bot": 100, "game_clone": 300,
          "long_history": 150, "stakes": 400, "play_state_view": 300, "timeout_bots": 300, "neural_act": 400, "snapshot": 1500}


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_target_finds_nothing(name):
    target = TARGETS[name]
    try:
        tried, finding = run_builtin(name, target, BUDGET.get(name, 1500), None, seed=0)
    finally:
        # a target that holds a server (targets_server.py) stops it here, while its storage's
        # threads still run; left to the interpreter's exit, its hand log cannot be written
        close = getattr(target, "close", None)
        if close is not None:
            close()
    assert finding is None, f"{name}: input {finding[0].hex()}\n{finding[1]}"
    assert tried == BUDGET.get(name, 1500)


def test_driver_reports_a_finding(capsys):
    import random

    def broken(data: bytes) -> None:
        if len(data) > 3 and data[0] == 0x42:
            raise RuntimeError("boom")

    TARGETS["_broken"] = broken
    try:
        tried, finding = run_builtin("_broken", broken, 100_000, None, seed=0)
        assert finding is not None and finding[0][0] == 0x42 and "boom" in finding[1]
        assert main(["--target", "_broken", "--runs", "100000"]) == 1
        assert "FINDING in target _broken" in capsys.readouterr().err
        assert main(["--target", "_broken", "--reproduce", "00"]) == 0
    finally:
        del TARGETS["_broken"]
    rng = random.Random(1)
    assert all(len(mutate(rng, b"abc", [b"xyz"])) <= 4096 for _ in range(100))
