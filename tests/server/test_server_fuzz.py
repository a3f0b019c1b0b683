"""The server's fuzz target (tests/fuzz/targets_server.py) runs briefly on every test run,
with a fixed seed, on both storage backends: a bad message gets its error, the connection
stays usable, nothing raises past the handler, every message sent matches the schema. The
long runs: ``python -m tests.fuzz.run --target server`` (``server_pg`` with ``DDZ_FUZZ_PG``)."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("websockets")
pytest.importorskip("jsonschema")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the fuzz package

from fuzz.run import run_builtin  # noqa: E402
from fuzz.targets_server import TARGETS, Finding, ServerTarget, expected  # noqa: E402


def _run(target, n, seed):
    t0 = time.monotonic()
    try:
        tried, finding = run_builtin("server", target, n, None, seed=seed)
    finally:
        target.close()
    assert finding is None, f"input {finding[0].hex()}\n{finding[1]}"
    assert tried == n
    return time.monotonic() - t0


def test_server_target_on_sqlite():
    assert "server" in TARGETS
    _run(ServerTarget(":memory:"), 300, seed=0)


def test_server_target_on_postgresql(pg_url):
    _run(ServerTarget(pg_url), 120, seed=1)


def test_the_target_finds_a_connection_that_dies(monkeypatch):
    """The target reports what it is there to find: a handler that lets an exception out
    (here: every join fails inside the server)."""
    from ddz.server.app import Server

    async def broken(self, sess, room_name, bots):
        raise RuntimeError("boom")
    monkeypatch.setattr(Server, "_join", broken)
    target = ServerTarget(":memory:")
    try:
        tried, finding = run_builtin("server", target, 300, None, seed=0)
    finally:
        target.close()
    assert finding is not None and "internal" in finding[1]


def test_the_reference_reading_of_frames():
    assert expected(b"{}") == ("malformed", None)
    assert expected('{"type": "ping"}') == (None, "ping")
    assert expected('{"type": "ping", "type": "ping"}') == ("malformed", None)
    assert expected('{"type": "act"}') == ("bad_field", "act")
    assert expected('{"type": "nope"}') == ("unknown_type", None)
    assert expected('{"type": "hello", "name": "\\ud800"}') == ("bad_field", "hello")
    assert issubclass(Finding, AssertionError)
