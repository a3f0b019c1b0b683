"""Fixtures: a throwaway PostgreSQL cluster from the Debian packages (initdb in a temporary
directory, started on a free loopback port, as the ``postgres`` user when run as root), and
a fresh database in it per test. Skipped, saying why, only when the binaries are absent."""
from __future__ import annotations

import asyncio
import glob
import os
import shutil
import subprocess
import tempfile
import uuid

import pytest

from _util import free_port


def _pg_bin():
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.path.exists(os.path.join(d, "initdb")):
            return d
    d = shutil.which("initdb")
    return os.path.dirname(d) if d else None


@pytest.fixture(scope="session")
def pg_cluster():
    pytest.importorskip("asyncpg")
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed: "
                    "apt-get install postgresql (CI installs them)")
    root = tempfile.mkdtemp(prefix="ddz-pg-")
    data = os.path.join(root, "data")
    as_user = []
    if os.geteuid() == 0:  # postgres refuses to run as root
        import pwd
        try:
            pw = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no 'postgres' user to run the server as")
        os.chown(root, pw.pw_uid, pw.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    subprocess.run(as_user + [f"{bindir}/initdb", "-D", data, "-U", "ddz", "--auth=trust", "-E", "UTF8"],
                   check=True, capture_output=True)
    subprocess.run(as_user + [f"{bindir}/pg_ctl", "-D", data, "-l", os.path.join(root, "log"), "-w",
                              "-o", f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off", "start"],
                   check=True, capture_output=True)
    try:
        yield f"postgresql://ddz@127.0.0.1:{port}"
    finally:
        subprocess.run(as_user + [f"{bindir}/pg_ctl", "-D", data, "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def pg_url(pg_cluster):
    """A new empty database in the throwaway cluster."""
    import asyncpg
    name = "t_" + uuid.uuid4().hex[:12]

    async def create():
        c = await asyncpg.connect(pg_cluster + "/postgres")
        await c.execute(f"CREATE DATABASE {name}")
        await c.close()
    asyncio.run(create())
    return f"{pg_cluster}/{name}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """Each storage backend in turn: a SQLite file, then a PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "db.sqlite3")
    return request.getfixturevalue("pg_url")


ORDINARY_SEED = 1  # a deal seed that does not end at the deal in any variant (checked by the fixture)


@pytest.fixture
def ordinary_deals(monkeypatch):
    """The server's tables deal from ``ORDINARY_SEED`` instead of at random. 0.8 % of BENGBU4 deals
    end at the deal (天炸 / 天尊, e.g. seed 313), before any seat has a decision to make, and a test
    that waits for one would time out on such a deal (CI failed on one)."""
    import ddz
    from ddz.server import app as server_app
    for rules in (ddz.Rules.classic(), ddz.Rules.two_player(), ddz.Rules.bengbu()):
        assert not ddz.Game(rules, ORDINARY_SEED).is_over
    real_table = server_app.Table
    monkeypatch.setattr(server_app, "Table", lambda *a, **k: real_table(*a, **{"seed": ORDINARY_SEED, **k}))
    return ORDINARY_SEED
