"""``GET /metrics``: the server's figures in Prometheus's text format, written by
``prometheus_client`` (the ``server`` extra) from a registry of the server's own (two servers in
one process keep two). What it counts is what an operator watches (docs/server.md, "What an
operator sees"): tables, connections, actions and their latency, hands finished, resumed and
void, the hand log's batches and the storage's errors, the bots' answers, the garbage
collector's pauses and the event loop's lag.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Optional

if TYPE_CHECKING:  # pragma: no cover
    from .app import Server

__all__ = ["Metrics", "available"]

# the action latency's buckets (seconds): from the read of an ``act`` to its answer sent
_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


def available() -> bool:
    try:
        import prometheus_client  # noqa: F401
    except ImportError:
        return False
    return True


class Metrics:
    """The server's metrics: counters and a histogram it updates as things happen, and gauges
    read from the server when scraped. Without ``prometheus_client`` every update is a no-op
    and ``exposition`` returns None."""

    def __init__(self, server: "Server") -> None:
        self.server = server
        self.registry: Any = None
        if not available():
            return
        from prometheus_client import CollectorRegistry, Counter, Histogram

        r = self.registry = CollectorRegistry(auto_describe=True)
        self.actions = Counter("ddz_actions", "actions sent by players, by outcome (applied or refused)",
                               ["outcome"], registry=r)
        self.latency = Histogram("ddz_action_latency_seconds",
                                 "from the read of a player's act to its update sent (its log row stored)",
                                 buckets=_BUCKETS, registry=r)
        self.hands = Counter("ddz_hands", "hands by how they ended here: finished (settled), void, "
                             "resumed (after a restart or a takeover), handed_over (to another process)",
                             ["event"], registry=r)
        self.storage_errors = Counter("ddz_storage_errors", "database calls that failed (the hand log's "
                                      "batches included: they are written again)", registry=r)
        self.log_batch = Histogram("ddz_hand_log_batch_seconds", "one transaction of the hand log's rows",
                                   buckets=_BUCKETS, registry=r)
        self.log_rows = Counter("ddz_hand_log_rows", "rows of the hand log stored", registry=r)
        self.bots = Counter("ddz_bot_answers", "answers of the bots that think off the event loop, by what became "
                            "of them: applied, late (the move clock ran out: the seat timed out), stale (came after "
                            "their decision closed: dropped), failed (raised or illegal: RuleBot played instead)",
                            ["outcome"], registry=r)
        r.register(_Live(server))
        # the children of the labels counted on every action, looked up once (labels() per action
        # was a dictionary lookup under a lock each time)
        self._applied = self.actions.labels("applied")
        self._refused = self.actions.labels("refused")

    def exposition(self) -> Optional[bytes]:
        if self.registry is None:
            return None
        from prometheus_client import generate_latest
        return bytes(generate_latest(self.registry))

    # ---- updates (no-ops without prometheus_client) ----
    def action(self, applied: bool, seconds: Optional[float] = None) -> None:
        if self.registry is not None:
            (self._applied if applied else self._refused).inc()
            if seconds is not None:
                self.latency.observe(seconds)

    def hand(self, event: str, n: int = 1) -> None:
        if self.registry is not None and n:
            self.hands.labels(event).inc(n)

    def storage_error(self) -> None:
        if self.registry is not None:
            self.storage_errors.inc()

    def bot(self, outcome: str) -> None:
        if self.registry is not None:
            self.bots.labels(outcome).inc()

    def batch(self, rows: int, seconds: float) -> None:
        if self.registry is not None:
            self.log_rows.inc(rows)
            self.log_batch.observe(seconds)


class _Live:
    """Gauges read from the server at each scrape."""

    def __init__(self, server: "Server") -> None:
        self.server = server

    def describe(self) -> Iterator[Any]:
        return iter(())  # read at each scrape; nothing to check at registration

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        s = self.server
        yield GaugeMetricFamily("ddz_tables", "tables whose hand is in play here", value=s.live_tables())
        yield GaugeMetricFamily("ddz_connections", "open WebSocket connections", value=len(s.lobby.connections))
        yield GaugeMetricFamily("ddz_players", "accounts logged in", value=len(s.lobby.sessions))
        yield GaugeMetricFamily("ddz_waiting", "players waiting for a table through this process", value=len(s.lobby.waiting))
        yield GaugeMetricFamily("ddz_hands_to_resume", "stored live hands not yet resumed", value=len(s.tables.to_resume))
        yield GaugeMetricFamily("ddz_hand_log_pending", "log rows waiting to be stored", value=s.journal.pending)
        yield GaugeMetricFamily("ddz_draining", "1 while the server drains (SIGTERM)", value=int(s.draining))
        gc = CounterMetricFamily("ddz_gc_collections", "garbage collections, by generation", labels=["generation"])
        pause = CounterMetricFamily("ddz_gc_pause_seconds", "wall time the collections held the loop, by generation",
                                    labels=["generation"])
        for g in range(3):
            gc.add_metric([str(g)], s.gc_pauses.count[g])
            pause.add_metric([str(g)], s.gc_pauses.total_s[g])
        yield gc
        yield pause
        lag = s.loop_lag
        yield GaugeMetricFamily("ddz_loop_lag_max_seconds", "the longest the event loop was held since the start",
                                value=lag.max_s)
        stops = CounterMetricFamily("ddz_loop_stops", "times the event loop was held longer than a bound (seconds)",
                                    labels=["over"])
        for bound, n in zip(lag.BOUNDS, lag.over):
            stops.add_metric([f"{bound:g}"], n)
        yield stops
