"""The environments' fuzz targets (tests/fuzz/targets_envs.py) on a few hundred inputs each,
with a fixed seed, on every test run: an environment that takes a non-id, changes on a
refused action or lets a non-ddz error escape fails here."""
from __future__ import annotations

import pytest

from fuzz.run import run_builtin
from fuzz.targets_envs import TARGETS

# inputs per target: a few seconds each
BUDGET = {"env_aec": 300, "env_gym": 300, "env_rlcard": 150}


@pytest.mark.parametrize("name", sorted(BUDGET))
def test_env_target_finds_nothing(name):
    if name not in TARGETS:
        pytest.skip(f"{name}: its framework is not installed")
    tried, finding = run_builtin(name, TARGETS[name], BUDGET[name], None, seed=0)
    assert finding is None, f"{name}: input {finding[0].hex()}\n{finding[1]}"
    assert tried == BUDGET[name]
