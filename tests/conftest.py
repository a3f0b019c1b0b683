"""Suite-wide collection rules.

The suite runs on every core (pytest-xdist, ``-n auto --dist loadgroup`` in pyproject.toml).
The server's tests (tests/server/) run as one group on one worker, in order, beside the
rest: they time a clock, a load run and browser sessions, and share one throwaway
PostgreSQL cluster per worker, so they are kept from competing with each other for the two
cores while the engine's tests fill the other worker.
"""
import importlib.util
from pathlib import Path

import pytest

SERVER_TESTS = Path(__file__).resolve().parent / "server"


def pytest_configure(config):
    """RLCard unpacks its Dou Dizhu tables (``jsondata.zip``) the first time its ``utils`` module
    is imported; two workers importing it at once on a fresh install race, and one reads a table
    still being written (seen: ``test_rlcard_universe`` counting fewer action ids). The
    controller imports it once, before any worker starts."""
    if not hasattr(config, "workerinput") and importlib.util.find_spec("rlcard") is not None:
        try:
            import rlcard.games.doudizhu.utils  # noqa: F401  (unpacks the tables)
        except Exception:  # a broken RLCard install: its tests skip or fail on their own
            pass


def pytest_collection_modifyitems(config, items):
    for item in items:
        if SERVER_TESTS in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.xdist_group("server"))
