"""Where the server keeps accounts, balances, finished hands and the system's ledger.

One interface (``Storage``), two backends: SQLite (the default, one file, created on first
start; ``sqlite:///path`` or a plain path) and PostgreSQL (``postgresql://…``, through
asyncpg). Both run the same SQL; the only difference is how a statement reaches the
database, so the same tests cover both.

An account is its name; what proves it is a token, of which only the SHA-256 is stored (table
``tokens``), each with its expiry; revoking or expiring tokens never removes the account.

Balances live in *ledgers*: ``coins`` (CLASSIC3 rooms and TWOP coin rooms), ``twop_score``
(TWOP score rooms) and ``bengbu`` (BENGBU4 money). A balance changes only in
``finish_hand``, in one transaction with the hand's record, so a server that dies during a
hand moves no coin for it: the hand stays ``live`` with its start and its log
(``start_hand``, ``append_actions``), and the next server (``adopt_live_hands``,
``live_hands``) resumes it. A hand that cannot be resumed is void (``void_hand``), its
players told once (``take_voids``).

A server *claims* its database before it touches it (``claim``): a SQLite file is owned by
one process at a time (an exclusive ``flock`` on ``FILE.lock`` beside it), a PostgreSQL
database by one server alone or by the processes of one cluster (an advisory lock, exclusive
or shared). A live hand is taken by another server only once its own is known to be gone: at
the start of a server that holds the exclusive claim, or (cluster mode) when its process's
heartbeats stop.
What the system takes (CLASSIC3 rake) and pays in (TWOP's house, docs/rules.md §9, A21) is written to
``system_ledger``, so that for every ledger
``sum(balances) + sum(rake) - sum(house) == sum(grants)``.
"""
from __future__ import annotations

import asyncio
import errno
import hashlib
import json
import logging
import os
import re
import secrets
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, AsyncIterator, Dict, List, Optional, Sequence, Set, Tuple

from .names import name_key

__all__ = ["LEDGERS", "TOKEN_LIFETIME_S", "SCHEMA_VERSION", "Storage", "StorageError", "HandRow", "LiveHand",
           "open_storage"]

LEDGERS = ("coins", "twop_score", "bengbu")
log = logging.getLogger("ddz.server")
TOKEN_LIFETIME_S = 90 * 86400.0  # how long a token works when nobody says otherwise
SQLITE_SYNC = ("full", "normal")  # the PRAGMA synchronous a SQLite database may run with
MAX_TOKENS = 16  # an account's live tokens at most (each renewal adds one; the oldest go)

try:  # POSIX; elsewhere a SQLite file is not locked (docs/server.md)
    import fcntl

    def _flock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
except ImportError:  # pragma: no cover
    _flock = None  # type: ignore[assignment]

_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS accounts (
        name TEXT PRIMARY KEY, token_hash TEXT NOT NULL, created DOUBLE PRECISION NOT NULL, name_key TEXT)""",
    """CREATE TABLE IF NOT EXISTS balances (
        name TEXT NOT NULL, ledger TEXT NOT NULL, amount BIGINT NOT NULL, granted BIGINT NOT NULL,
        PRIMARY KEY (name, ledger))""",
    """CREATE TABLE IF NOT EXISTS stats (
        name TEXT PRIMARY KEY, won BIGINT NOT NULL, completed BIGINT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS hands (
        id TEXT PRIMARY KEY, room TEXT NOT NULL, variant TEXT NOT NULL, players TEXT NOT NULL,
        status TEXT NOT NULL, host TEXT NOT NULL, started DOUBLE PRECISION NOT NULL,
        ended DOUBLE PRECISION, record TEXT, result TEXT, settlement TEXT)""",
    """CREATE TABLE IF NOT EXISTS hand_players (
        hand_id TEXT NOT NULL, name TEXT NOT NULL, seat INTEGER NOT NULL, notified INTEGER NOT NULL,
        PRIMARY KEY (hand_id, seat))""",
    "CREATE INDEX IF NOT EXISTS hand_players_name ON hand_players (name)",
    """CREATE TABLE IF NOT EXISTS system_ledger (
        hand_id TEXT NOT NULL, account TEXT NOT NULL, ledger TEXT NOT NULL, amount BIGINT NOT NULL)""",
    # an account's tokens (their SHA-256), each with its expiry; an account may hold several
    # (a renewed token works until its own expiry beside its successor)
    """CREATE TABLE IF NOT EXISTS tokens (
        hash TEXT PRIMARY KEY, name TEXT NOT NULL, issued DOUBLE PRECISION NOT NULL,
        expires DOUBLE PRECISION NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS tokens_name ON tokens (name)",
    # accounts.token_hash held the one token of an account before the tokens table; such a token
    # may have been read by a page's injected script, so it is wiped and never checked: its owner
    # gets a new token from the operator (``ddz serve --reset-token NAME``)
    "UPDATE accounts SET token_hash = '' WHERE token_hash <> ''",
    # the schema's version (SCHEMA_VERSION), one row; a database without it is version 1
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # a live hand's log: one row per event of its table after the start (docs/server.md,
    # "Durable hands"); the rows of a hand go in the transaction that settles or voids it
    """CREATE TABLE IF NOT EXISTS hand_actions (
        hand_id TEXT NOT NULL, n INTEGER NOT NULL, op TEXT NOT NULL, PRIMARY KEY (hand_id, n))""",
    "CREATE INDEX IF NOT EXISTS hands_live_host ON hands (host) WHERE status = 'live'",
]
#: the schema this code writes. 1: before the hand log; 2: ``hands.start`` and ``hand_actions``
SCHEMA_VERSION = 2
# after the accounts table has its name_key column (a database made before it gets it first)
_NAME_KEY_INDEX = "CREATE UNIQUE INDEX IF NOT EXISTS accounts_name_key ON accounts (name_key)"


class StorageError(ValueError):
    """A storage call with bad arguments (an unknown account, a hand in the wrong state)."""


@dataclass(frozen=True)
class HandRow:
    id: str
    room: str
    variant: str
    players: List[str]
    status: str          # "live", "done" or "void"
    host: str
    record: Optional[str]
    result: Optional[Dict[str, Any]]
    settlement: Optional[Dict[str, Any]]


@dataclass
class LiveHand:
    """A hand left ``live``, as stored: its row, its start (``start``: the JSON text
    ``Table.start_record`` wrote, None for a hand begun before the log) and its log (``ops``:
    (n, op text) in order of n)."""
    id: str
    room: str
    players: List[str]
    host: str
    start: Optional[str]
    ops: List[Tuple[int, str]]


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _unique_violation(e: BaseException) -> bool:
    """A unique constraint refused the statement (sqlite3 or asyncpg)."""
    return isinstance(e, sqlite3.IntegrityError) or type(e).__name__ == "UniqueViolationError"


async def _migrate_names(tx: "_Tx") -> List[Tuple[str, str]]:
    """Gives every account its ``name_key`` (the column and its unique index come after
    accounts were unique by exact name only). An account whose key an older account holds
    keeps a NULL key: it still logs in by its exact name, and its key stays taken. An
    account whose name holds a NUL (only SQLite could store one; no protocol field may hold
    one now, so it could not log in) is renamed: each NUL becomes U+FFFD, with ``-2``,
    ``-3``, … added if that is taken. Returns the renames (old, new)."""
    rows = await tx.fetch("SELECT name FROM accounts WHERE name_key IS NULL ORDER BY created, name")
    if not rows:
        return []
    taken = {r[0] for r in await tx.fetch("SELECT name_key FROM accounts WHERE name_key IS NOT NULL")}
    names = {r[0] for r in await tx.fetch("SELECT name FROM accounts")}
    renames = []
    for (name,) in rows:
        new = name
        if "\x00" in name:
            base = new = name.replace("\x00", "\ufffd")
            i = 1
            while new in names or name_key(new) in taken:
                i += 1
                new = f"{base}-{i}"
            await _rename(tx, name, new)
            names.add(new)
            renames.append((name, new))
        key = name_key(new)
        if key not in taken:
            await tx.execute("UPDATE accounts SET name_key = ? WHERE name = ?", key, new)
            taken.add(key)
    return renames


def _lost(rows: Sequence[Tuple[str, int, str]], own: Set[str], stored: Set[Tuple[str, int]]) -> List[str]:
    """``append_actions``'s answer: the hands not ``own`` (live with the host), and those of
    which a row was not ``stored`` (its ``n`` was there already)."""
    return sorted({h for h, n, _ in rows if h not in own or (h, n) not in stored})


async def _migrate_schema(tx: "_Tx", columns: Sequence[str]) -> int:
    """Brings a database to ``SCHEMA_VERSION`` (the tables of ``_SCHEMA`` exist by now);
    ``columns``: the columns ``hands`` has. Returns the version it had. A database written by
    a newer ddz is refused (``StorageError``): this code would not know its rows."""
    rows = await tx.fetch("SELECT value FROM meta WHERE key = 'schema_version'")
    version = int(rows[0][0]) if rows else 1
    if version > SCHEMA_VERSION:
        raise StorageError(f"the database has schema version {version}, newer than this ddz's "
                           f"{SCHEMA_VERSION}: run the ddz that wrote it")
    if "start" not in columns:
        await tx.execute("ALTER TABLE hands ADD COLUMN start TEXT")
    if version < SCHEMA_VERSION:
        if rows:
            await tx.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", str(SCHEMA_VERSION))
        else:
            await tx.execute("INSERT INTO meta (key, value) VALUES ('schema_version', ?)", str(SCHEMA_VERSION))
        log.info("database schema %d -> %d", version, SCHEMA_VERSION)
    return version


def _log_renames(renames: List[Tuple[str, str]]) -> None:
    for old, new in renames:
        log.warning("account %r renamed %r: a name may not hold NUL", old, new)


async def _rename(tx: "_Tx", old: str, new: str) -> None:
    for table in ("accounts", "balances", "stats", "hand_players"):
        await tx.execute(f"UPDATE {table} SET name = ? WHERE name = ?", new, old)
    for hand_id, players in await tx.fetch("SELECT id, players FROM hands WHERE id IN "
                                           "(SELECT hand_id FROM hand_players WHERE name = ?)", new):
        await tx.execute("UPDATE hands SET players = ? WHERE id = ?",
                         json.dumps([new if p == old else p for p in json.loads(players)]), hand_id)


class _Tx:
    """One transaction: ``execute`` and ``fetch`` with ``?`` placeholders. ``share``: what a
    SELECT adds to hold the rows it read until the commit (PostgreSQL: ``FOR SHARE``; a SQLite
    transaction holds the whole file already)."""

    share = ""

    async def execute(self, sql: str, *args: Any) -> None:
        raise NotImplementedError

    async def fetch(self, sql: str, *args: Any) -> List[Sequence[Any]]:
        raise NotImplementedError

    async def insert_actions(self, rows: Sequence[Tuple[str, int, str]]) -> Set[Tuple[str, int]]:
        """Inserts log rows, skipping any whose (hand, n) is stored already; returns those stored."""
        stored = set()
        for h, n, op in rows:
            if await self.fetch("INSERT INTO hand_actions (hand_id, n, op) VALUES (?, ?, ?) "
                                "ON CONFLICT (hand_id, n) DO NOTHING RETURNING hand_id", h, n, op):
                stored.add((h, n))
        return stored


class Storage:
    """The storage interface; ``open_storage(url)`` makes one. Every method is a coroutine."""

    url: str

    async def claim(self, shared: bool = False) -> None:
        """Takes this process's hold on the database, before ``open``: exclusive (a server alone
        on it) or ``shared`` (the processes of one cluster). Raises ``StorageError`` saying who
        holds it when another process's hold conflicts; ``close`` lets it go."""

    async def open(self) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    def tx(self) -> Any:  # an async context manager yielding a _Tx
        raise NotImplementedError

    async def _read(self, sql: str, *args: Any) -> List[Sequence[Any]]:
        """One SELECT, on its own."""
        async with self.tx() as tx:
            return await tx.fetch(sql, *args)

    # ---- accounts and their tokens ----
    async def create_account(self, name: str, grants: Dict[str, int],
                             lifetime_s: float = TOKEN_LIFETIME_S) -> str:
        """A new account with its starting grant per ledger; returns its secret token (valid for
        ``lifetime_s`` seconds). Raises ``StorageError`` if the name is taken."""
        token = secrets.token_urlsafe(24)
        now = time.time()
        key = name_key(name)
        try:
            async with self.tx() as tx:
                rows = await tx.fetch("SELECT name FROM accounts WHERE name = ? OR name_key = ?", name, key)
                if rows:
                    raise StorageError(f"the name {name!r} is taken" + (
                        f" by {rows[0][0]!r} (names that differ only in case or width are one name)"
                        if rows[0][0] != name else ""))
                await tx.execute("INSERT INTO accounts (name, token_hash, created, name_key) VALUES (?, '', ?, ?)",
                                 name, now, key)
                await tx.execute("INSERT INTO tokens (hash, name, issued, expires) VALUES (?, ?, ?, ?)",
                                 _hash(token), name, now, now + lifetime_s)
                for ledger in LEDGERS:
                    g = int(grants.get(ledger, 0))
                    await tx.execute("INSERT INTO balances (name, ledger, amount, granted) VALUES (?, ?, ?, ?)",
                                     name, ledger, g, g)
                await tx.execute("INSERT INTO stats (name, won, completed) VALUES (?, 0, 0)", name)
        except Exception as e:  # another connection (or process) took the name since the SELECT
            if isinstance(e, StorageError) or not _unique_violation(e):
                raise
            raise StorageError(f"the name {name!r} is taken") from None
        return token

    async def ensure_system_account(self, name: str) -> None:
        """An account nobody can log in to (no token hashes to its empty hash) with a grant of 0
        in every ledger, made if it does not exist yet (by any process: no error if it does)."""
        async with self.tx() as tx:
            await tx.execute("INSERT INTO accounts (name, token_hash, created) VALUES (?, '', ?) "
                             "ON CONFLICT (name) DO NOTHING", name, time.time())
            for ledger in LEDGERS:
                await tx.execute("INSERT INTO balances (name, ledger, amount, granted) VALUES (?, ?, 0, 0) "
                                 "ON CONFLICT (name, ledger) DO NOTHING", name, ledger)
            await tx.execute("INSERT INTO stats (name, won, completed) VALUES (?, 0, 0) "
                             "ON CONFLICT (name) DO NOTHING", name)

    async def token_expiry(self, name: str, token: str) -> Optional[float]:
        """When ``token`` of ``name`` expires (Unix seconds; it may have passed), or None if it
        is not a token of that account (never was, revoked, or long expired)."""
        rows = await self._read("SELECT name, expires FROM tokens WHERE hash = ?", _hash(token))
        if not rows or rows[0][0] != name:
            return None
        return float(rows[0][1])

    async def check_token(self, name: str, token: str) -> bool:
        """``token`` is a token of ``name`` and has not expired."""
        expires = await self.token_expiry(name, token)
        return expires is not None and expires > time.time()

    async def token_owner(self, token: str) -> Optional[str]:
        """The account of an unexpired ``token``, or None."""
        rows = await self._read("SELECT name FROM tokens WHERE hash = ? AND expires > ?", _hash(token), time.time())
        return str(rows[0][0]) if rows else None

    async def issue_token(self, name: str, lifetime_s: float = TOKEN_LIFETIME_S,
                          revoke_others: bool = False) -> Tuple[str, float]:
        """A new token for ``name`` and its expiry. The account's other tokens keep working until
        their own expiry (the newest ``MAX_TOKENS`` of them), or stop now with ``revoke_others``;
        tokens that expired more than ``lifetime_s`` ago are dropped. Raises ``StorageError`` for an unknown account."""
        token = secrets.token_urlsafe(24)
        now = time.time()
        async with self.tx() as tx:
            if not await tx.fetch("SELECT 1 FROM accounts WHERE name = ?", name):
                raise StorageError(f"no account {name!r}")
            if revoke_others:
                await tx.execute("DELETE FROM tokens WHERE name = ?", name)
            else:
                await tx.execute("DELETE FROM tokens WHERE name = ? AND expires < ?", name, now - lifetime_s)
            await tx.execute("INSERT INTO tokens (hash, name, issued, expires) VALUES (?, ?, ?, ?)",
                             _hash(token), name, now, now + lifetime_s)
            # renewals by many logins must not grow the table without bound: the newest few stay
            await tx.execute("DELETE FROM tokens WHERE name = ? AND hash NOT IN "
                             f"(SELECT hash FROM tokens WHERE name = ? ORDER BY issued DESC LIMIT {MAX_TOKENS})",
                             name, name)
        return token, now + lifetime_s

    async def revoke_tokens(self, name: str) -> int:
        """Every token of ``name`` stops working (the account and its balances stay). Returns
        how many were revoked."""
        async with self.tx() as tx:
            rows = await tx.fetch("SELECT hash FROM tokens WHERE name = ?", name)
            await tx.execute("DELETE FROM tokens WHERE name = ?", name)
        return len(rows)

    async def account_exists(self, name: str) -> bool:
        return bool(await self._read("SELECT 1 FROM accounts WHERE name = ?", name))

    async def balances(self, name: str) -> Dict[str, int]:
        rows = await self._read("SELECT ledger, amount FROM balances WHERE name = ?", name)
        return {r[0]: int(r[1]) for r in rows}

    async def stats(self, name: str) -> Tuple[int, int]:
        """(won, completed) CLASSIC3 hands, for the matchmaker's win rate."""
        rows = await self._read("SELECT won, completed FROM stats WHERE name = ?", name)
        return (int(rows[0][0]), int(rows[0][1])) if rows else (0, 0)

    # ---- hands ----
    async def start_hand(self, hand_id: str, room: str, variant: str, players: Sequence[str], host: str,
                         start: Optional[str] = None) -> None:
        """A hand begins: it is ``live`` until ``finish_hand`` or ``void_hand``. ``start``: what
        resumes it (``Table.start_record``: rules, seed, seats, stakes, seat tokens)."""
        async with self.tx() as tx:
            await tx.execute("INSERT INTO hands (id, room, variant, players, status, host, started, start) "
                             "VALUES (?, ?, ?, ?, 'live', ?, ?, ?)",
                             hand_id, room, variant, json.dumps(list(players)), host, time.time(), start)
            for seat, name in enumerate(players):
                await tx.execute("INSERT INTO hand_players (hand_id, name, seat, notified) VALUES (?, ?, ?, 0)",
                                 hand_id, name, seat)

    async def finish_hand(self, hand_id: str, ledger: str, record: str, result: Dict[str, Any],
                          settlement: Dict[str, Any], won: Optional[Sequence[bool]] = None) -> None:
        """Stores the finished hand's record and result and applies its settlement, all in one
        transaction. ``won`` (CLASSIC3) updates the players' win/completed counts."""
        async with self.tx() as tx:
            # one statement decides: of two processes finishing one hand (a takeover) one settles
            rows = await tx.fetch("UPDATE hands SET status = 'done', ended = ?, record = ?, result = ?, settlement = ? "
                                  "WHERE id = ? AND status = 'live' RETURNING players", time.time(), record,
                                  json.dumps(result, ensure_ascii=False), json.dumps(settlement), hand_id)
            if not rows:
                raise StorageError(f"hand {hand_id!r} is not live")
            players = json.loads(rows[0][0])
            await tx.execute("DELETE FROM hand_actions WHERE hand_id = ?", hand_id)
            for name, change in zip(players, settlement["changes"]):
                if change:
                    await tx.execute("UPDATE balances SET amount = amount + ? WHERE name = ? AND ledger = ?",
                                     int(change), name, ledger)
            rake = sum(settlement["rake"])
            if rake:
                await tx.execute("INSERT INTO system_ledger (hand_id, account, ledger, amount) VALUES (?, 'rake', ?, ?)",
                                 hand_id, ledger, rake)
            if settlement["house"]:
                await tx.execute("INSERT INTO system_ledger (hand_id, account, ledger, amount) VALUES (?, 'house', ?, ?)",
                                 hand_id, ledger, int(settlement["house"]))
            if won is not None:
                for name, w in zip(players, won):
                    await tx.execute("UPDATE stats SET won = won + ?, completed = completed + 1 WHERE name = ?",
                                     1 if w else 0, name)
            await tx.execute("UPDATE hand_players SET notified = 1 WHERE hand_id = ?", hand_id)

    async def void_live_hands(self, host: Optional[str] = None) -> int:
        """Marks the hands still ``live`` (of ``host``, or all) ``void``: their server died
        before they ended, so no coin moved. Returns how many."""
        async with self.tx() as tx:
            if host is None:
                rows = await tx.fetch("SELECT id FROM hands WHERE status = 'live'")
                await tx.execute("UPDATE hands SET status = 'void', ended = ? WHERE status = 'live'", time.time())
            else:
                rows = await tx.fetch("SELECT id FROM hands WHERE status = 'live' AND host = ?", host)
                await tx.execute("UPDATE hands SET status = 'void', ended = ? WHERE status = 'live' AND host = ?",
                                 time.time(), host)
        return len(rows)

    async def void_hand(self, hand_id: str, told: Sequence[str] = ()) -> bool:
        """One live hand is void (its table could not finish it, or its server stops); no coin
        moves. ``told``: players already told (no ``welcome`` reports it to them again).
        False if the hand was not live."""
        async with self.tx() as tx:
            if not await tx.fetch("SELECT 1 FROM hands WHERE id = ? AND status = 'live'", hand_id):
                return False
            await tx.execute("UPDATE hands SET status = 'void', ended = ? WHERE id = ? AND status = 'live'",
                             time.time(), hand_id)
            await tx.execute("DELETE FROM hand_actions WHERE hand_id = ?", hand_id)
            for name in told:
                await tx.execute("UPDATE hand_players SET notified = 1 WHERE hand_id = ? AND name = ?", hand_id, name)
        return True

    # ---- the hand log ----
    async def append_actions(self, rows: Sequence[Tuple[str, int, str]], host: str) -> List[str]:
        """Stores log rows (hand, n, op) in one transaction; returns the hands whose rows were
        refused: not live with ``host`` any more (another process took them over) or an ``n``
        already stored. A database failure raises: nothing of the batch is stored."""
        if not rows:
            return []
        hands = sorted({r[0] for r in rows})
        async with self.tx() as tx:
            own = {r[0] for r in await tx.fetch(
                "SELECT id FROM hands WHERE status = 'live' AND host = ? AND id IN (%s)%s"
                % (",".join("?" * len(hands)), tx.share), host, *hands)}
            stored = await tx.insert_actions([r for r in rows if r[0] in own])
        return _lost(rows, own, stored)

    async def adopt_live_hands(self, host: str, from_hosts: Optional[Sequence[str]] = None) -> List[str]:
        """The live hands of ``from_hosts`` (None: of every host) become ``host``'s, to resume;
        one statement, so of two processes adopting at once each hand goes to one. Returns
        their ids."""
        async with self.tx() as tx:
            if from_hosts is None:
                rows = await tx.fetch("UPDATE hands SET host = ? WHERE status = 'live' AND host <> ? RETURNING id",
                                      host, host)
            else:
                if not from_hosts:
                    return []
                rows = await tx.fetch("UPDATE hands SET host = ? WHERE status = 'live' AND host IN (%s) RETURNING id"
                                      % ",".join("?" * len(from_hosts)), host, *from_hosts)
        return [r[0] for r in rows]

    async def live_hands(self, host: str, ids: Optional[Sequence[str]] = None) -> List[LiveHand]:
        """The live hands of ``host`` (or those of ``ids`` among them) with their start and log,
        in the order they began: two queries, whatever their number."""
        async with self.tx() as tx:
            sql = "SELECT id, room, players, host, start FROM hands WHERE status = 'live' AND host = ?"
            args: List[Any] = [host]
            if ids is not None:
                if not ids:
                    return []
                sql += " AND id IN (%s)" % ",".join("?" * len(ids))
                args += list(ids)
            rows = await tx.fetch(sql + " ORDER BY started", *args)
            found = [r[0] for r in rows]
            ops: Dict[str, List[Tuple[int, str]]] = {h: [] for h in found}
            for i in range(0, len(found), 500):
                part = found[i:i + 500]
                for h, n, op in await tx.fetch("SELECT hand_id, n, op FROM hand_actions WHERE hand_id IN (%s) "
                                               "ORDER BY hand_id, n" % ",".join("?" * len(part)), *part):
                    ops[h].append((int(n), op))
        out = []
        for r in rows:
            try:
                players = [str(p) for p in json.loads(r[2])]
            except (TypeError, ValueError):
                players = []
            out.append(LiveHand(r[0], r[1], players, r[3], r[4], ops[r[0]]))
        return out

    async def take_voids(self, name: str) -> List[str]:
        """The void hands of ``name`` not yet reported to it (reported once)."""
        async with self.tx() as tx:
            rows = await tx.fetch("SELECT hp.hand_id FROM hand_players hp JOIN hands h ON h.id = hp.hand_id "
                                  "WHERE hp.name = ? AND hp.notified = 0 AND h.status = 'void' ORDER BY h.started",
                                  name)
            for r in rows:
                await tx.execute("UPDATE hand_players SET notified = 1 WHERE hand_id = ? AND name = ?", r[0], name)
        return [r[0] for r in rows]

    async def hand(self, hand_id: str) -> Optional[HandRow]:
        rows = await self._read("SELECT id, room, variant, players, status, host, record, result, settlement "
                                "FROM hands WHERE id = ?", hand_id)
        if not rows:
            return None
        r = rows[0]
        return HandRow(r[0], r[1], r[2], json.loads(r[3]), r[4], r[5], r[6],
                       json.loads(r[7]) if r[7] else None, json.loads(r[8]) if r[8] else None)

    async def hands(self, status: str = "done") -> List[str]:
        rows = await self._read("SELECT id FROM hands WHERE status = ? ORDER BY started", status)
        return [r[0] for r in rows]

    async def totals(self, ledger: str) -> Dict[str, int]:
        """Sums for the conservation check: ``balances``, ``granted``, ``rake``, ``house``."""
        async with self.tx() as tx:
            b = await tx.fetch("SELECT COALESCE(SUM(amount), 0), COALESCE(SUM(granted), 0) FROM balances "
                               "WHERE ledger = ?", ledger)
            s = await tx.fetch("SELECT account, COALESCE(SUM(amount), 0) FROM system_ledger WHERE ledger = ? "
                               "GROUP BY account", ledger)
        sys_ = {r[0]: int(r[1]) for r in s}
        return {"balances": int(b[0][0]), "granted": int(b[0][1]), "rake": sys_.get("rake", 0),
                "house": sys_.get("house", 0)}


# ---- SQLite -----------------------------------------------------------------------------

class _SqliteTx(_Tx):
    def __init__(self, store: "SqliteStorage") -> None:
        self._s = store

    async def execute(self, sql: str, *args: Any) -> None:
        await self._s._call(lambda c: c.execute(sql, args))

    async def fetch(self, sql: str, *args: Any) -> List[Sequence[Any]]:
        return await self._s._call(lambda c: c.execute(sql, args).fetchall())

    async def insert_actions(self, rows: Sequence[Tuple[str, int, str]]) -> Set[Tuple[str, int]]:
        return set(await self._s._call(lambda c: _insert_actions(c, rows)))


# The hand log's batch in two statements however many rows it holds (SQLite with its JSON
# functions, 3.38 and later, or earlier builds with JSON1): the rows (a JSON array of
# [hand, n, op]) of the hands live with this host inserted unless there already, and first the
# hands of the batch that are lost (not live with this host, or a row of theirs there already).
# Why not one statement per row, or RETURNING each row stored: the writer's thread takes the
# interpreter's lock back after every step of a statement, and under load the event loop holds
# it; here a batch is four steps (BEGIN, the check, the insert, COMMIT) whatever its size.
_LOST_ROWS = (
    "SELECT DISTINCT json_extract(r.value, '$[0]') FROM json_each(?1) AS r "
    "WHERE NOT EXISTS (SELECT 1 FROM hands AS h WHERE h.id = json_extract(r.value, '$[0]') "
    "AND h.status = 'live' AND h.host = ?2) "
    "OR EXISTS (SELECT 1 FROM hand_actions AS a WHERE a.hand_id = json_extract(r.value, '$[0]') "
    "AND a.n = json_extract(r.value, '$[1]'))")
_APPEND_ROWS = (
    "INSERT INTO hand_actions (hand_id, n, op) "
    "SELECT json_extract(r.value, '$[0]'), json_extract(r.value, '$[1]'), json_extract(r.value, '$[2]') "
    "FROM json_each(?1) AS r JOIN hands AS h ON h.id = json_extract(r.value, '$[0]') "
    "WHERE h.status = 'live' AND h.host = ?2 ORDER BY r.key "
    "ON CONFLICT (hand_id, n) DO NOTHING")


def _one_statement() -> bool:
    """Whether this SQLite runs ``_LOST_ROWS`` and ``_APPEND_ROWS`` (its JSON functions)."""
    try:
        c = sqlite3.connect(":memory:")
        try:
            c.execute("CREATE TABLE t (a INTEGER PRIMARY KEY)")
            c.execute("INSERT INTO t (a) SELECT json_extract(r.value, '$[0]') FROM json_each('[[1]]') AS r "
                      "WHERE 1 ORDER BY r.key ON CONFLICT (a) DO NOTHING")
            return c.execute("SELECT a FROM t").fetchall() == [(1,)]
        finally:
            c.close()
    except sqlite3.Error:
        return False


_ONE_STATEMENT = _one_statement()


def _insert_actions(c: sqlite3.Connection, rows: Sequence[Tuple[str, int, str]]) -> Set[Tuple[str, int]]:
    stored = set()
    for h, n, op in rows:
        if c.execute("INSERT INTO hand_actions (hand_id, n, op) VALUES (?, ?, ?) "
                     "ON CONFLICT (hand_id, n) DO NOTHING", (h, n, op)).rowcount:
            stored.add((h, n))
    return stored


class SqliteStorage(Storage):
    """SQLite through the standard ``sqlite3`` module, on one thread of its own (so the event
    loop never waits on the disk); transactions are serialised by an asyncio lock."""

    def __init__(self, path: str, synchronous: str = "full") -> None:
        if synchronous not in SQLITE_SYNC:
            raise StorageError(f"SQLite synchronous must be one of {', '.join(SQLITE_SYNC)}, not {synchronous!r}")
        self.url = f"sqlite:///{path}"
        self._path = path
        self._sync = synchronous
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ddz-sqlite")
        self._lock = asyncio.Lock()
        self._conn: Optional[sqlite3.Connection] = None
        # the hand log's own connection and thread: its batches wait for no queue of other
        # transactions, only (in SQLite's busy handler, on that thread) for the one writing now
        self._log_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ddz-sqlite-log")
        self._log_conn: Optional[sqlite3.Connection] = None
        self._owner: Optional[int] = None  # the descriptor of FILE.lock while this process owns the file

    async def claim(self, shared: bool = False) -> None:
        """An exclusive ``flock`` on ``FILE.lock`` (holding this process's id), taken without
        waiting: a SQLite file has one server, whatever ``shared`` says (a cluster needs
        PostgreSQL). The kernel lets the lock go when the process ends, however it ends; the
        file stays (removing it would let two processes lock two different files)."""
        if self._path == ":memory:" or self._owner is not None or _flock is None:
            return
        lock = self._path + ".lock"
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise StorageError(f"cannot open the SQLite database {self._path}: {e.strerror} ({lock})") from None
        try:
            _flock(fd)
        except OSError as e:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise StorageError(f"cannot lock the SQLite database {self._path}: {e.strerror}") from None
            raise StorageError(f"the database {self._path} is in use by another server (pid {holder}, lock "
                               f"{lock}): one process owns a SQLite file; stop it or use another --db") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._owner = fd

    def _release(self) -> None:
        if self._owner is not None:
            os.close(self._owner)  # closing the descriptor drops the flock
            self._owner = None

    async def _call(self, fn: Any) -> Any:
        conn = self._conn
        assert conn is not None, "storage not open"
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, conn)

    async def open(self) -> None:
        def connect(_: Any) -> sqlite3.Connection:
            c = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
            c.execute("PRAGMA busy_timeout=30000")  # two connections write: the log's and the rest's
            c.execute("PRAGMA journal_mode=WAL")
            # FULL: each commit is on the disk before the server tells anyone of it (a power loss
            # loses no acknowledged action); NORMAL: in the OS's cache (a process crash loses
            # none, a power loss may lose the last ones). Measured in docs/server.md
            c.execute(f"PRAGMA synchronous={self._sync.upper()}")
            for stmt in _SCHEMA:
                c.execute(stmt)
            if "name_key" not in {row[1] for row in c.execute("PRAGMA table_info(accounts)")}:
                c.execute("ALTER TABLE accounts ADD COLUMN name_key TEXT")
            c.execute(_NAME_KEY_INDEX)
            return c
        try:
            self._conn = await asyncio.get_running_loop().run_in_executor(self._pool, connect, None)
        except sqlite3.Error as e:  # a directory that does not exist, a file that is not a database
            raise StorageError(f"cannot open the SQLite database {self._path}: {e}") from None
        async with self.tx() as tx:
            await _migrate_schema(tx, [r[1] for r in await tx.fetch("PRAGMA table_info(hands)")])
            _log_renames(await _migrate_names(tx))
        if self._path != ":memory:":  # (a second connection to :memory: would be another database)
            def log_conn(_: Any) -> sqlite3.Connection:
                c = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
                c.execute("PRAGMA busy_timeout=30000")
                c.execute(f"PRAGMA synchronous={self._sync.upper()}")
                return c
            self._log_conn = await asyncio.get_running_loop().run_in_executor(self._log_pool, log_conn, None)

    async def close(self) -> None:
        if self._log_conn is not None:
            log_conn, self._log_conn = self._log_conn, None
            await asyncio.get_running_loop().run_in_executor(self._log_pool, lambda: log_conn.close())
        self._log_pool.shutdown(wait=True)
        if self._conn is not None:
            conn, self._conn = self._conn, None
            await asyncio.get_running_loop().run_in_executor(self._pool, lambda: conn.close())
        self._pool.shutdown(wait=True)
        self._release()

    async def append_actions(self, rows: Sequence[Tuple[str, int, str]], host: str) -> List[str]:
        """``Storage.append_actions`` in one hop to the database's thread (the transaction, the
        check and the inserts): under load each hop waits for the event loop's turn, and the log
        is on every action's path."""
        if not rows:
            return []

        def write(c: sqlite3.Connection) -> List[str]:
            if _ONE_STATEMENT:
                data = json.dumps(rows)
                c.execute("BEGIN IMMEDIATE")
                try:
                    lost = [r[0] for r in c.execute(_LOST_ROWS, (data, host)).fetchall()]
                    c.execute(_APPEND_ROWS, (data, host))
                    c.execute("COMMIT")
                except BaseException:
                    c.execute("ROLLBACK")
                    raise
                return sorted(lost)
            hands = sorted({r[0] for r in rows})
            c.execute("BEGIN IMMEDIATE")
            try:
                own: Set[str] = set()
                for i in range(0, len(hands), 500):
                    part = hands[i:i + 500]
                    own.update(r[0] for r in c.execute(
                        "SELECT id FROM hands WHERE status = 'live' AND host = ? AND id IN (%s)"
                        % ",".join("?" * len(part)), (host, *part)))
                stored = _insert_actions(c, [r for r in rows if r[0] in own])
                c.execute("COMMIT")
            except BaseException:
                c.execute("ROLLBACK")
                raise
            return _lost(rows, own, stored)
        if self._log_conn is None:  # :memory:
            async with self._lock:
                return list(await self._call(write))
        log_conn = self._log_conn
        return list(await asyncio.get_running_loop().run_in_executor(self._log_pool, write, log_conn))

    async def _read(self, sql: str, *args: Any) -> List[Sequence[Any]]:
        """One SELECT in one hop to the database's thread (no BEGIN, no COMMIT: a statement
        on its own is a transaction), after any transaction under way."""
        async with self._lock:
            return list(await self._call(lambda c: c.execute(sql, args).fetchall()))

    @asynccontextmanager
    async def tx(self) -> AsyncIterator[_Tx]:
        async with self._lock:
            await self._call(lambda c: c.execute("BEGIN IMMEDIATE"))
            try:
                yield _SqliteTx(self)
            except BaseException:
                await self._call(lambda c: c.execute("ROLLBACK"))
                raise
            await self._call(lambda c: c.execute("COMMIT"))


# ---- PostgreSQL -------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"\?")
_OWNER_LOCK = 7216  # the advisory lock of the processes using the database (7214: the schema, 7215: the matchmaker)


def _pg(sql: str) -> str:
    """``?`` placeholders as asyncpg's ``$1, $2, …`` (no statement here has a literal ``?``)."""
    n = iter(range(1, 1000))
    return _PLACEHOLDER.sub(lambda _: f"${next(n)}", sql)


class _PgTx(_Tx):
    def __init__(self, conn: Any) -> None:
        self._c = conn

    async def execute(self, sql: str, *args: Any) -> None:
        await self._c.execute(_pg(sql), *args)

    async def fetch(self, sql: str, *args: Any) -> List[Sequence[Any]]:
        return list(await self._c.fetch(_pg(sql), *args))

    share = " FOR SHARE"  # a takeover's UPDATE of these rows waits for this transaction, or this sees it

    async def insert_actions(self, rows: Sequence[Tuple[str, int, str]]) -> Set[Tuple[str, int]]:
        got = await self._c.fetch(
            "INSERT INTO hand_actions (hand_id, n, op) SELECT * FROM unnest($1::text[], $2::int[], $3::text[]) "
            "ON CONFLICT (hand_id, n) DO NOTHING RETURNING hand_id, n",
            [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
        return {(r[0], int(r[1])) for r in got}


class PostgresStorage(Storage):
    """PostgreSQL through an asyncpg pool. Several server processes may share one database."""

    def __init__(self, url: str, pool_size: int = 4) -> None:
        self.url = url
        self._pool_size = pool_size
        self._pool: Any = None
        self._owner: Any = None  # the connection holding this process's advisory lock _OWNER_LOCK

    async def claim(self, shared: bool = False) -> None:
        """Advisory lock ``_OWNER_LOCK`` on a connection of its own, exclusive for a server alone
        on the database, shared for a cluster's processes: a lone server and a cluster (or two
        lone servers) refuse each other. It goes with the connection, so with the process."""
        if self._owner is not None:
            return
        import asyncpg
        try:
            conn = await asyncpg.connect(self.url)
        except (OSError, asyncio.TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as e:
            raise StorageError(f"cannot open the PostgreSQL database {_safe_url(self.url)}: {_reason(e)}") from None
        fn = "pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock"
        if not await conn.fetchval(f"SELECT {fn}($1)", _OWNER_LOCK):
            await conn.close()
            raise StorageError(f"the database {_safe_url(self.url)} is in use by another server "
                               + ("not in cluster mode: stop it, or start this one without --cluster" if shared else
                                  "(alone, or the processes of a cluster: give --cluster to join a cluster)"))
        self._owner = conn

    async def open(self) -> None:
        import asyncpg  # the optional "server" extra
        try:
            self._pool = await asyncpg.create_pool(self.url, min_size=1, max_size=self._pool_size)
        except (OSError, asyncio.TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as e:
            raise StorageError(f"cannot open the PostgreSQL database {_safe_url(self.url)}: {_reason(e)}") from None
        async with self._pool.acquire() as c:
            await schema_statements(c, [*_SCHEMA, "ALTER TABLE accounts ADD COLUMN IF NOT EXISTS name_key TEXT",
                                        _NAME_KEY_INDEX])
            async with c.transaction():
                await c.execute("SELECT pg_advisory_xact_lock(7214)")
                await _migrate_schema(_PgTx(c), [r[0] for r in await c.fetch(
                    "SELECT column_name FROM information_schema.columns WHERE table_name = 'hands' "
                    "AND table_schema = current_schema()")])
                _log_renames(await _migrate_names(_PgTx(c)))

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None
        if self._owner is not None:
            conn, self._owner = self._owner, None
            await conn.close()

    @asynccontextmanager
    async def tx(self) -> AsyncIterator[_Tx]:
        async with self._pool.acquire() as c:
            async with c.transaction():
                yield _PgTx(c)

    def pool(self) -> Any:
        return self._pool

    async def append_actions(self, rows: Sequence[Tuple[str, int, str]], host: str) -> List[str]:
        """``Storage.append_actions`` in one statement (one round trip, its own transaction):
        the hands still live with ``host`` are read ``FOR SHARE`` (a takeover's ``UPDATE`` of
        them waits for this statement, or this one sees it), their rows inserted."""
        if not rows:
            return []
        got = await self._pool.fetch(
            "WITH own AS (SELECT id FROM hands WHERE id = ANY($1::text[]) AND status = 'live' AND host = $4 "
            "FOR SHARE), ins AS (INSERT INTO hand_actions (hand_id, n, op) SELECT u.h, u.n, u.op FROM "
            "unnest($1::text[], $2::int[], $3::text[]) AS u(h, n, op) WHERE u.h IN (SELECT id FROM own) "
            "ON CONFLICT (hand_id, n) DO NOTHING RETURNING hand_id, n) "
            "SELECT true, id, 0 FROM own UNION ALL SELECT false, hand_id, n FROM ins",
            [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], host)
        return _lost(rows, {r[1] for r in got if r[0]}, {(r[1], int(r[2])) for r in got if not r[0]})


async def schema_statements(conn: Any, statements: Sequence[str]) -> None:
    """Runs ``CREATE … IF NOT EXISTS`` statements under advisory lock 7214 (two processes
    starting together do not race on them), each in a transaction of its own: a ``CREATE INDEX``
    locks its table against writes until its transaction ends, and several held at once by a
    process starting beside running ones deadlocked with their hands' transactions."""
    await conn.execute("SELECT pg_advisory_lock(7214)")
    try:
        for stmt in statements:
            await conn.execute(stmt)
    finally:
        await conn.execute("SELECT pg_advisory_unlock(7214)")


def _safe_url(url: str) -> str:
    """The URL without its password (it goes to the terminal and the log)."""
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)


def _reason(e: BaseException) -> str:
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0]


def open_storage(url: str, sqlite_synchronous: str = "full") -> Storage:
    """A storage for ``url``: ``postgresql://…`` / ``postgres://…`` (PostgreSQL), ``sqlite:///path``
    or a plain file path (SQLite, ``:memory:`` for a throwaway database; ``sqlite_synchronous``:
    ``"full"`` or ``"normal"``, its ``PRAGMA synchronous``). Call ``await open()``."""
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresStorage(url)
    if url.startswith("sqlite:///"):
        url = url[len("sqlite:///"):]
    elif "://" in url:
        raise StorageError(f"unknown database URL scheme in {url[:60]!r}: use sqlite:///path or postgresql://…")
    return SqliteStorage(url, sqlite_synchronous)
