"""The fuzz targets (tests/fuzz/targets.py) run briefly on every test run, with a fixed seed,
so a target that breaks or an entry point that regresses on hostile input fails here; the
long runs and the sanitizer build are in .ci/sanitize (docs/fuzzing.md)."""
from __future__ import annotations

import pytest

from fuzz.run import main, mutate, run_builtin
from fuzz.targets import TARGETS

# inputs per target on each test run: about 10 s in total
BUDGET = {"game_apply": 150, "from_json": 600}


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_target_finds_nothing(name):
    tried, finding = run_builtin(name, TARGETS[name], BUDGET.get(name, 1500), None, seed=0)
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
