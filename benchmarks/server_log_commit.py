"""What a batch of the hand log costs to commit on SQLite, at ``synchronous=full`` and
``normal`` (docs/server.md, "Durable hands"): ``--batches`` transactions of ``--rows`` rows each
through ``SqliteStorage.append_actions``, in a new database in ``--dir`` (the disk measured),
each setting twice, alternating. Prints one line per run: wall time and CPU per batch.

    python benchmarks/server_log_commit.py --dir /var/tmp
"""
from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time

from ddz.server.storage import SqliteStorage


async def one(path: str, sync: str, batches: int, rows: int) -> str:
    s = SqliteStorage(path, sync)
    await s.open()
    hands = [f"h{i}" for i in range(50)]
    for h in hands:
        await s.start_hand(h, "novice", "classic", ["a", "b", "c"], "me", "{}")
    t0, c0 = time.perf_counter(), time.process_time()
    for b in range(batches):
        await s.append_actions([(hands[(b * rows + r) % 50], b * rows + r + 1, '[0, "PASS"]') for r in range(rows)],
                               "me")
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    await s.close()
    return (f"{sync}: {batches} batches of {rows} rows: {1e3 * wall / batches:.3f} ms per batch (wall), "
            f"{1e3 * cpu / batches:.3f} ms CPU")


async def main(a: argparse.Namespace) -> None:
    d = tempfile.mkdtemp(dir=a.dir, prefix="ddz-log-commit-")
    for i, sync in enumerate(("normal", "full", "normal", "full")):
        print(await one(os.path.join(d, f"{i}.sqlite3"), sync, a.batches, a.rows), flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", default=None, help="where the databases go (default: the system's temporary directory)")
    ap.add_argument("--batches", type=int, default=1000)
    ap.add_argument("--rows", type=int, default=10)
    asyncio.run(main(ap.parse_args()))
