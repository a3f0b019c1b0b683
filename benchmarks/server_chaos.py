"""Chaos benchmark of ``ddz serve`` (issue #41, durable hands): the load of
``server_load.py`` (``--tables`` tables of players at human pace, their clients reconnecting
and resuming whenever the server goes away) while the server is killed with SIGKILL at seeded
moments and started again on its database; or, with ``--cluster``, two processes on one
PostgreSQL database, one killed (SIGKILL, its hands taken over by the other) and then a
rolling restart (each process in turn stopped with SIGTERM, drained, started again).

Reports (JSON on stdout): hands started / finished / void / left live, every kill's time to
the server listening again and to the first action acknowledged after it, the latency of the
actions (all, and without those sent while a server was down), the servers' CPU per action,
and server_load's invariants (ledgers conserved, records replay, sampled seats' messages
agree with the engine and leak no card).

    python benchmarks/server_chaos.py --tables 1000 --duration 120 --kills 2              # SQLite
    python benchmarks/server_chaos.py --tables 1000 --duration 120 --kills 2 --db pg      # a throwaway PostgreSQL
    python benchmarks/server_chaos.py --tables 1000 --duration 150 --cluster --db pg      # two processes
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import glob
import json
import multiprocessing
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Dict, Iterator, List, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server_load as load  # noqa: E402

from ddz.server.storage import LEDGERS, open_storage  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def throwaway_pg() -> Iterator[str]:
    """A PostgreSQL cluster of its own (initdb in a temporary directory, on a free loopback
    port; as the ``postgres`` user when run as root), with an empty database ``ddz``."""
    bindir = next((d for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
                   if os.path.exists(os.path.join(d, "initdb"))), None)
    if bindir is None:
        raise SystemExit("no PostgreSQL server binaries (apt-get install postgresql)")
    root = tempfile.mkdtemp(prefix="ddz-chaos-pg-")
    data, port = os.path.join(root, "data"), _free_port()
    as_user: List[str] = []
    if os.geteuid() == 0:
        import pwd
        pw = pwd.getpwnam("postgres")
        os.chown(root, pw.pw_uid, pw.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    subprocess.run(as_user + [f"{bindir}/initdb", "-D", data, "-U", "ddz", "--auth=trust", "-E", "UTF8"],
                   check=True, capture_output=True)
    subprocess.run(as_user + [f"{bindir}/pg_ctl", "-D", data, "-l", os.path.join(root, "log"), "-w", "-o",
                              f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c max_connections=200", "start"],
                   check=True, capture_output=True)
    try:
        subprocess.run(as_user + [f"{bindir}/createdb", "-h", "127.0.0.1", "-p", str(port), "-U", "ddz", "ddz"],
                       check=True, capture_output=True)
        yield f"postgresql://ddz@127.0.0.1:{port}/ddz"
    finally:
        subprocess.run(as_user + [f"{bindir}/pg_ctl", "-D", data, "-m", "fast", "stop"], capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


class Proc:
    """One ``ddz serve`` process, started again as often as the chaos says; its CPU time is
    sampled so that a killed process's share is counted too."""

    def __init__(self, cmd: List[str], port: int, log: str) -> None:
        self.cmd, self.port, self.log = cmd, port, log
        self.p: Optional[subprocess.Popen] = None
        self.cpu_done = 0.0      # CPU seconds of the instances that have ended
        self.cpu_now = 0.0       # of the one running, at its last sample

    async def start(self) -> float:
        """Starts it; returns the wall time it listens."""
        out = open(self.log, "a")
        self.p = subprocess.Popen(self.cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        out.close()
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), 0.2):
                    return time.time()
            except OSError:
                if self.p.poll() is not None:
                    raise RuntimeError(f"ddz serve exited: {open(self.log).read()[-2000:]}")
                await asyncio.sleep(0.02)

    def sample(self) -> None:
        if self.p is not None and self.p.poll() is None:
            try:
                with open(f"/proc/{self.p.pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                self.cpu_now = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            except OSError:
                pass

    def _ended(self) -> None:
        self.cpu_done += self.cpu_now
        self.cpu_now = 0.0

    def kill(self) -> None:
        assert self.p is not None
        self.sample()
        self.p.kill()
        self.p.wait(30)
        self._ended()

    async def term(self) -> int:
        assert self.p is not None
        self.p.terminate()
        while self.p.poll() is None:
            self.sample()
            await asyncio.sleep(0.1)
        self._ended()
        return self.p.returncode


async def chaos(a: argparse.Namespace, procs: List[Proc], t0: float, events: List[Dict[str, Any]]) -> None:
    """The seeded schedule: SIGKILLs of the lone server, or the cluster's kill and rolling restart."""
    rng = random.Random(a.seed)

    async def at(frac: float) -> None:
        await asyncio.sleep(max(0.0, t0 + frac * a.duration - time.time()))
    if not a.cluster:
        for frac in sorted(rng.uniform(0.15, 0.85) for _ in range(a.kills)):
            await at(frac)
            kill = time.time()
            procs[0].kill()
            await asyncio.sleep(a.down)
            events.append({"event": "SIGKILL", "process": 0, "at_s": round(kill - t0, 1), "kill": kill,
                           "listening": await procs[0].start()})
        return
    await at(rng.uniform(0.15, 0.3))
    kill = time.time()
    procs[0].kill()
    events.append({"event": "SIGKILL", "process": 0, "at_s": round(kill - t0, 1), "kill": kill})
    await asyncio.sleep(a.cluster_timeout + 5)  # the survivor has taken its hands over; then it comes back
    events[-1]["restarted"] = await procs[0].start()
    await at(rng.uniform(0.5, 0.6))
    for i in (1, 0):  # the rolling restart: one process at a time, each drained
        stop = time.time()
        code = await procs[i].term()
        events.append({"event": "SIGTERM", "process": i, "at_s": round(stop - t0, 1), "kill": stop,
                       "exit": code, "drain_s": round(time.time() - stop, 1), "listening": await procs[i].start()})
        await asyncio.sleep(a.cluster_timeout)


async def main(a: argparse.Namespace) -> Dict[str, Any]:
    with contextlib.ExitStack() as stack:
        tmp = tempfile.mkdtemp(prefix="ddz-chaos-")
        if a.db == "pg" or a.cluster and a.db == "sqlite":
            db = stack.enter_context(throwaway_pg())
        elif a.db == "sqlite":
            db = os.path.join(tmp, "chaos.sqlite3")
        else:
            db = a.db
        ports = [_free_port() for _ in range(2 if a.cluster else 1)]
        procs = []
        for i, port in enumerate(ports):
            cmd = [sys.executable, "-m", "ddz.cli", "serve", "--port", str(port), "--db", db,
                   "--grace", str(a.grace), "--bot-delay", str(a.bot_delay), "--no-bot-tables", "--rate", "1000",
                   "--burst", "1000", "--signup-limit", "0", "--drain-timeout", str(a.drain_timeout),
                   *a.server_args]
            if a.cluster:
                cmd += ["--cluster", "--cluster-timeout", str(a.cluster_timeout)]
            procs.append(Proc(cmd, port, os.path.join(tmp, f"server{i}.log")))
        for p in procs:
            await p.start()
        la = load.parse_args(["--tables", str(a.tables), "--hands", str(a.hands), "--duration", str(a.duration),
                              "--think", str(a.think[0]), str(a.think[1]), "--disconnect", "0", "--escape", "0",
                              "--grace", str(a.grace), "--check-every", str(a.check_every), "--drain", str(a.drain),
                              "--client-procs", str(a.client_procs), "--seed", str(a.seed),
                              "--survive", str(a.survive)])
        la.ports = ports
        events: List[Dict[str, Any]] = []

        async def sampler() -> None:
            while True:
                for p in procs:
                    p.sample()
                await asyncio.sleep(0.5)
        sampling = asyncio.ensure_future(sampler())
        loop = asyncio.get_running_loop()
        t0 = time.time()
        with ProcessPoolExecutor(a.client_procs, mp_context=multiprocessing.get_context("spawn")) as pool:
            clients = asyncio.gather(*(loop.run_in_executor(pool, load._client_process, ports[0], la, i,
                                                            a.client_procs) for i in range(a.client_procs)))
            # the clients connect first (the play's clock starts after): the chaos counts from then
            await asyncio.sleep(a.connect_wait)
            parts = list(await asyncio.gather(clients, chaos(a, procs, time.time(), events)))[0]
        for p in procs:
            if p.p is not None and p.p.poll() is None:
                await p.term()
        sampling.cancel()
        st = load.Stats()
        for part in parts:
            st.latencies += part["latencies"]
            st.sent_wall += part["sent_wall"]
            st.actions += part["actions"]
            st.hands.update(part["hands"])
            st.problems += part["problems"]
            st.to_check += part["to_check"]
            st.reconnects += part["reconnects"]
            st.voided += part["voided"]
        store = open_storage(db)
        await store.open()
        try:
            counts = {status: len(await store.hands(status)) for status in ("done", "void", "live")}
        finally:
            await store.close()
        audit = await load.audit_db(db, st)
        acks = sorted(s + lat for s, lat in zip(st.sent_wall, st.latencies))
        for e in events:  # the first action answered after the kill (or the stop)
            after = next((x for x in acks if x > e["kill"]), None)
            e["kill_to_first_ack_s"] = round(after - e["kill"], 2) if after is not None else None
            for k in ("listening", "restarted"):
                if k in e:
                    e[f"kill_to_{k}_s"] = round(e.pop(k) - e["kill"], 2)
            del e["kill"]
        down = [(ev_kill, ev_kill + (ev["kill_to_first_ack_s"] or 0)) for ev, ev_kill in
                ((ev, t0 + a.connect_wait + ev["at_s"]) for ev in events)]
        for e in events:  # a cluster's takeover: when the survivor's log says it took the hands over
            if a.cluster and e["event"] == "SIGKILL":
                e["kill_to_takeover_s"] = _logged_after(procs[1 - e["process"]].log, "taken over here",
                                                         t0 + a.connect_wait + e["at_s"])
        lat = sorted(st.latencies)
        calm = sorted(x for x, s in zip(st.latencies, st.sent_wall)
                      if not any(k0 - 1 <= s <= k1 for k0, k1 in down))

        def q(xs: List[float], f: float) -> Optional[float]:
            return round(1000 * xs[min(len(xs) - 1, int(f * len(xs)))], 1) if xs else None
        cpu = sum(p.cpu_done + p.cpu_now for p in procs)
        out = {
            "tables": a.tables, "think_s": a.think, "db": "postgresql" if db.startswith("postgres") else "sqlite",
            "cluster": a.cluster, "server_args": a.server_args, "seed": a.seed,
            "hands": {"started": sum(counts.values()), "finished": counts["done"], "void": counts["void"],
                      "live_at_end": counts["live"], "reported_void_to_players": len(set(st.voided))},
            "events": events,
            "actions": st.actions, "reconnects": st.reconnects,
            "latency_ms": {"p50": q(lat, 0.5), "p99": q(lat, 0.99), "max": q(lat, 1.0), "samples": len(lat)},
            "latency_ms_outside_outages": {"p50": q(calm, 0.5), "p99": q(calm, 0.99), "samples": len(calm)},
            "server_cpu_s": round(cpu, 1),
            "server_cpu_ms_per_action": round(1000 * cpu / st.actions, 3) if st.actions else None,
            "problems": st.problems[:20], "problem_count": len(st.problems), "db_audit": audit,
        }
        out["ok"] = (not st.problems and counts["void"] == 0 and audit["records_not_replaying"] == 0
                     and all(audit[ledger]["conserved"] for ledger in LEDGERS))
        if a.keep_logs:  # the servers' logs beside the results
            for i, p in enumerate(procs):
                shutil.copy(p.log, f"{a.keep_logs}-server{i}.log")
        shutil.rmtree(tmp, ignore_errors=True) if out["ok"] else print(f"logs kept in {tmp}", file=sys.stderr)
        return out


def _logged_after(log: str, text: str, since: float) -> Optional[float]:
    """Seconds from ``since`` (epoch) to the first line of ``log`` holding ``text`` (the
    server's log lines start with their local time, to the millisecond)."""
    for line in open(log):
        if text in line:
            try:
                at = time.mktime(time.strptime(line[:19], "%Y-%m-%d %H:%M:%S")) + int(line[20:23]) / 1000
            except ValueError:
                continue
            if at >= since - 1:
                return round(at - since, 2)
    return None


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=1000)
    ap.add_argument("--hands", type=int, default=1_000_000, help="stop after this many finished hands")
    ap.add_argument("--duration", type=float, default=120, help="seconds of play")
    ap.add_argument("--think", type=float, nargs=2, default=[1.0, 3.0], metavar=("MIN", "MAX"))
    ap.add_argument("--kills", type=int, default=2, help="SIGKILLs of the lone server, at seeded moments")
    ap.add_argument("--down", type=float, default=1.0, help="seconds a killed server stays down")
    ap.add_argument("--cluster", action="store_true",
                    help="two processes on PostgreSQL: one SIGKILL, then a rolling restart by SIGTERM")
    ap.add_argument("--cluster-timeout", type=float, default=10.0, dest="cluster_timeout")
    ap.add_argument("--db", default="sqlite", help="sqlite (a new file), pg (a throwaway PostgreSQL) or a URL")
    ap.add_argument("--grace", type=float, default=30.0)
    ap.add_argument("--bot-delay", type=float, default=0.6, dest="bot_delay")
    ap.add_argument("--drain-timeout", type=float, default=20.0, dest="drain_timeout")
    ap.add_argument("--check-every", type=int, default=20, dest="check_every")
    ap.add_argument("--drain", type=float, default=120, help="seconds the clients let running hands finish")
    ap.add_argument("--client-procs", type=int, default=2, dest="client_procs")
    ap.add_argument("--connect-wait", type=float, default=15.0, dest="connect_wait",
                    help="seconds for the clients to connect before the chaos's clock starts")
    ap.add_argument("--survive", type=float, default=120.0, help="seconds a client tries to reconnect")
    ap.add_argument("--server-arg", action="append", default=[], dest="server_args", metavar="ARG")
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--keep-logs", default=None, dest="keep_logs", metavar="PREFIX",
                    help="copy each server's log to PREFIX-serverN.log")
    return ap.parse_args(argv)


if __name__ == "__main__":
    result = asyncio.run(main(parse_args()))
    print(json.dumps(result, indent=2, ensure_ascii=False))
    sys.exit(0 if result["ok"] else 1)
