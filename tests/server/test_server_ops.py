"""What an operator expects of ``ddz serve`` (issue #41, item 5): ``/metrics`` in Prometheus's
text format (for whom ``--metrics`` says), ``/healthz`` and ``/readyz`` (not ready while it
drains), JSON-lines logs, no access log unless asked, the default database under a data
directory, not the working directory."""
from __future__ import annotations

import asyncio
import json
import os
import signal
import urllib.error
import urllib.request

import pytest

pytest.importorskip("websockets")
pytest.importorskip("prometheus_client")

from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

from _client import Client, play_out, running  # noqa: E402
from _util import SERVE, free_port, run  # noqa: E402


def _get(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def _samples(text):
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for fam in text_string_to_metric_families(text) for s in fam.samples}


def test_metrics_health_and_readiness(tmp_path):
    """A hand with bots played to its end: ``/metrics`` counts its actions (applied, with their
    latency), the hand finished, the log's rows, and shows the tables, connections, the
    collector's and the loop's figures; ``/healthz`` answers, ``/readyz`` is ready, then 503
    ``draining`` while a drain waits for a hand in play. ``--metrics off``: 404."""
    async def main():
        # the client acts the moment it may (bots without delay): lift the per-connection limit,
        # which a loaded machine's bursts of answers would otherwise hit
        async with running(str(tmp_path / "db.sqlite3"), rate=1000, burst=1000) as srv:
            c = await Client.connect(srv.port)
            await c.hello("ann")
            await c.send({"type": "join", "room": "novice", "bots": True})
            await c.expect("matched")
            assert (await play_out([c]))[0]["type"] == "result"
            code, text = await asyncio.to_thread(_get, srv.port, "/metrics")
            assert code == 200
            m = _samples(text)
            applied = m[("ddz_actions_total", (("outcome", "applied"),))]
            assert applied >= 1 and m[("ddz_action_latency_seconds_count", ())] == applied
            assert m[("ddz_hands_total", (("event", "finished"),))] == 1
            assert m[("ddz_hand_log_rows_total", ())] >= applied
            assert m[("ddz_connections", ())] == 1 and m[("ddz_tables", ())] == 0
            assert m[("ddz_gc_collections_total", (("generation", "0"),))] >= 0
            assert ("ddz_loop_lag_max_seconds", ()) in m and ("ddz_storage_errors_total", ()) in m
            assert await asyncio.to_thread(_get, srv.port, "/healthz") == (200, "ok\n")
            assert await asyncio.to_thread(_get, srv.port, "/readyz") == (200, "ready\n")
            await c.send({"type": "join", "room": "novice", "bots": True})
            await c.expect("matched")
            drain = asyncio.ensure_future(srv.drain(timeout=30))
            await asyncio.sleep(0.2)
            assert await asyncio.to_thread(_get, srv.port, "/readyz") == (503, "draining\n")
            assert await asyncio.to_thread(_get, srv.port, "/healthz") == (200, "ok\n")
            await play_out([c])
            await drain
        async with running(str(tmp_path / "db.sqlite3"), metrics="off") as srv:
            assert (await asyncio.to_thread(_get, srv.port, "/metrics"))[0] == 404
    run(main())


def test_json_logs_no_access_log_and_the_default_database(tmp_path):
    """``ddz serve`` without ``--db`` makes its database under ``$DDZ_DATA_DIR`` (not the
    working directory); ``--log-format json`` writes one JSON object a line; a connection is
    logged only with ``--access-log``."""
    data = tmp_path / "data"

    async def serve(*extra):
        port = free_port()
        p = await asyncio.create_subprocess_exec(*SERVE, "--port", str(port), *extra, cwd=str(tmp_path),
                                                 env=dict(os.environ, DDZ_DATA_DIR=str(data)),
                                                 stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            line = await asyncio.wait_for(p.stdout.readline(), 60)
            assert b"ddz serve: http" in line, line
            c = await Client.connect(port)
            await c.hello("ann" if not extra else "bob")
            await c.close()
            p.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(p.wait(), 30) == 0
            return line.decode(), (await p.stderr.read()).decode()
        finally:
            if p.returncode is None:
                p.kill()
                await p.wait()

    async def main():
        line, err = await serve()
        assert str(data / "ddz-server.sqlite3") in line
        assert "connection open" not in err
        line, err = await serve("--log-format", "json", "--access-log")
        records = [json.loads(x) for x in err.splitlines() if x.strip()]
        assert records and all({"time", "level", "logger", "message"} <= set(r) for r in records)
        assert any(r["logger"] == "websockets.server" and "connection open" in r["message"] for r in records)
    run(main())
    assert (data / "ddz-server.sqlite3").exists() and not list(tmp_path.glob("*.sqlite3"))
