"""A short run of benchmarks/server_load.py (the server in its own process, the clients in
this one, over real WebSockets), with random disconnects, reconnects and escapes: every
invariant holds (coins conserved per ledger, no hand left live, no hidden card in any
message, every record replays). The long soak runs by hand (see docs/server.md)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("websockets")

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "server_load.py"


def _run(*args, timeout=240):
    p = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=timeout)
    out = json.loads(p.stdout)
    return p.returncode, out


def test_short_load_run_keeps_every_invariant():
    rc, out = _run("--tables", "6", "--hands", "30", "--think", "0", "0.01", "--disconnect", "0.03",
                   "--escape", "0.01", "--grace", "1", "--bot-delay", "0.02", "--duration", "60", "--seed", "7")
    assert out["problems"] == [] and rc == 0 and out["ok"]
    assert out["hands"] >= 30 and out["db"]["done_hands"] >= 30 and out["db"]["live_hands"] == 0
    assert out["disconnects"] > 0 and out["escapes"] > 0
    assert out["seats_checked_for_leaks"] >= 60
    assert out["db"]["records_not_replaying"] == 0 and out["db"]["records_checked"] >= 30
    for ledger in ("coins", "twop_score", "bengbu"):
        t = out["db"][ledger]
        assert t["balances"] + t["rake"] - t["house"] == t["granted"]
    assert out["latency_ms"]["samples"] == out["actions"] > 0


@pytest.mark.slow
def test_soak_10000_hands():
    """The soak of issue #14: 10,000 hands, no coin created or lost, no hidden card leaked."""
    rc, out = _run("--tables", "100", "--hands", "10000", "--think", "0", "0.01", "--duration", "3600",
                   "--check-every", "50", "--grace", "2", "--bot-delay", "0.02", "--client-procs", "2", timeout=4000)
    assert rc == 0 and out["ok"] and out["hands"] >= 10000
