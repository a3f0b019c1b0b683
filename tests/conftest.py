"""Suite-wide collection rules.

The suite runs on every core (pytest-xdist, ``-n auto --dist loadgroup`` in pyproject.toml).
The server's tests (tests/server/) run as one group on one worker, in order, beside the
rest: they time a clock, a load run and browser sessions, and share one throwaway
PostgreSQL cluster per worker, so they are kept from competing with each other for the two
cores while the engine's tests fill the other worker.
"""
from pathlib import Path

import pytest

SERVER_TESTS = Path(__file__).resolve().parent / "server"


def pytest_collection_modifyitems(config, items):
    for item in items:
        if SERVER_TESTS in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.xdist_group("server"))
