"""Fuzz target for the table server's message handler (``Server.on_frame``), over the
protocol's schema (src/ddz/server/protocol.schema.json), against an in-process server.

Each input is a short script: a few frames, each from one of a small pool of connections
(some logged in, some seated at tables with server bots), built from the schema of a client
message type with valid values (the connection's own table ids and seat tokens, real names,
tokens and actions), hostile ones (lone surrogates, NUL, controls, bidi overrides, huge or
negative numbers, wrong types, null), unknown or missing fields, or broken as JSON (NaN,
duplicate keys, a byte order mark, garbage, binary, over the size limit). The checks:

* the server's answer agrees with the schema, read by the reference implementation
  (``jsonschema``): a frame that breaks it gets exactly one ``error`` of the matching code
  with ``ref`` as docs/protocol.md says; a frame that meets it is not refused as malformed;
* the connection stays usable: a ``ping`` after every frame is answered;
* nothing raises past the handler: no ``internal`` error, no error logged by the server, no
  exception in a timer or task of the event loop;
* every message the server writes is valid UTF-8 JSON and matches its type's schema.

The fast path calls ``Server.on_frame`` with a connection object that keeps what it is sent
(the server's own code from the frame on: parse, dispatch, tables, storage); one input in
40 also goes through a real WebSocket connection to the same server, which must stay open.

Targets: ``server`` (SQLite, in memory); ``server_pg`` when ``DDZ_FUZZ_PG`` names a
PostgreSQL database the run may write to (the pytest test gives it a fresh one).
"""
from __future__ import annotations

import asyncio
import atexit
import json
import logging
import os
from typing import Any, Callable, Dict, List, Optional, Tuple

from ddz.server.app import Server, ServerConfig, Session
from ddz.server.protocol import dumps
from ddz.server.schema import CLIENT, SCHEMA, message_problems

from .provider import Data


class Finding(AssertionError):
    """A broken promise of the protocol (docs/protocol.md) that raised nothing."""


MAX_BYTES = 4096
_SHAPE_CODES = {"malformed", "too_large", "unknown_type", "bad_field"}
_ERROR_CODES = set(SCHEMA["$defs"]["error_code"]["enum"])
_TYPES = sorted(CLIENT)
_NAMES = ["ann", "bob", "ANN", "Ann", "cat", "dan", "ＡＮＮ", "~bot-x-1", "a b", " ann", "x" * 24, "x" * 25, "张伟",
          "eve\u202e", "zoë"]
_ROOMS = ["novice", "score", "coin_junior", "bengbu", "bengbu_300", "intermediate", "nowhere", ""]
_ACTIONS = ["PASS", "CALL", "NO_CALL", "ROB", "NO_ROB", "SHOW", "NO_SHOW", "BID1", "BID3", "PLAY 3", "PLAY 33",
            "PLAY 3s", "PLAY 3s 3h", "NORMAL_START", "SHOW_START", "hello", "", "PLAY", "ESCAPE"]
# values of every JSON type that a field may be given instead of the right one
_HOSTILE: List[Any] = [
    None, True, False, 0, 1, -1, 2, 3, 12.0, 1.5, -0.0, 1e300, 2**31, 2**53 - 1, 2**53, 2**64, -(2**63), 10**40,
    "", " ", "x", "\ud800", "x\udfff", "\udc80\ud800", "\x00", "a\x00b", "\t", "a\nb", "\u202eevil", "\u200b",
    "\ufeff", "ü", "\U0001F600", "x" * 200, "x" * 201, "PLAY " + "3" * 300, "~", [], [1], ["x"], {}, {"a": 1},
]


def _strict_loads(frame: str) -> Any:
    """The reference reading of a frame as RFC 8259 JSON: no NaN / Infinity, no duplicate
    keys, no byte order mark (ValueError otherwise)."""
    if frame.startswith("\ufeff"):
        raise ValueError("BOM")

    def pairs(items: List[Tuple[str, Any]]) -> Dict[str, Any]:
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            raise ValueError("duplicate key")
        return dict(items)

    def constant(name: str) -> Any:
        raise ValueError(name)
    return json.loads(frame, object_pairs_hook=pairs, parse_constant=constant)


def expected(frame: Any) -> Tuple[Optional[str], Optional[str]]:
    """(the code a frame must be refused with, or None if the schema accepts it; the ``ref``
    of that refusal). The codes follow docs/protocol.md, the acceptance the reference
    ``jsonschema`` on the schema file."""
    if isinstance(frame, bytes):
        return "malformed", None
    if len(frame) > MAX_BYTES:
        return "too_large", None
    try:
        msg = _strict_loads(frame)
    except (ValueError, RecursionError):
        return "malformed", None
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        return "malformed", None
    if msg["type"] not in CLIENT:
        return "unknown_type", None
    if message_problems("client", msg) is not None:
        return "bad_field", msg["type"]
    return None, msg["type"]


class _Socket:
    """What the server asks of a connection's socket besides sending: its address (the signup
    limit) and closing it (a replaced or logged-out connection)."""

    remote_address = ("127.0.0.1", 0)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        pass


class _Conn(Session):
    """A connection that keeps what the server sends it, after encoding it as the server does
    (a message that cannot be written as UTF-8 JSON is a finding)."""

    def __init__(self, server: Server) -> None:
        super().__init__(server, _Socket())  # type: ignore[arg-type]
        self.out: List[Dict[str, Any]] = []
        self.seen: List[Tuple[str, str]] = []   # (table, seat_token) it was given
        self.legal: List[str] = []              # the legal actions of its newest view
        self.seq = 0                            # the seq of its newest view

    def send(self, msg: Dict[str, Any]) -> None:
        text = dumps(msg)
        text.encode("utf-8")  # what the WebSocket layer does: a lone surrogate raises here
        m = json.loads(text)
        self.out.append(m)
        kind = m.get("type")
        if kind == "matched":
            self.seen.append((m["table"], m["seat_token"]))
        elif kind == "welcome" and "table" in m:
            self.seen.append((m["table"]["table"], m["table"]["seat_token"]))
        elif kind == "obs":
            self.legal, self.seq = m["obs"]["legal_actions"], m["seq"]
        elif kind == "delta":
            self.seq = m["seq"]
            if "legal_actions" in m["set"]:
                self.legal = m["set"]["legal_actions"]
        if kind == "welcome" and "token" in m:
            self.server._fuzz_tokens[m["name"]] = m["token"]  # type: ignore[attr-defined]


class _Harness:
    """One server on a loop of its own, kept across inputs (its state is part of the input's
    context), with a pool of connections."""

    POOL = 5

    def __init__(self, db: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.loop_errors: List[str] = []
        self.loop.set_exception_handler(lambda loop, ctx: self.loop_errors.append(str(ctx.get("message"))
                                                                                   + repr(ctx.get("exception"))))
        self.logged: List[str] = []
        handler = logging.Handler(logging.ERROR)
        handler.emit = lambda rec: self.logged.append(rec.getMessage() + (  # type: ignore[assignment]
            f": {rec.exc_info[1]!r}" if rec.exc_info else ""))
        logging.getLogger("ddz.server").addHandler(handler)
        self._handler = handler
        cfg = ServerConfig(db=db, bot_delay_s=0.0, move_timeout_s=0.05, grace_s=0.05, rate=1e9, burst=10**9,
                           max_message_bytes=MAX_BYTES, match_interval_s=0.05, signup_limit=0)
        self.server = Server(cfg)
        self.server._fuzz_tokens = {}  # type: ignore[attr-defined]
        self.loop.run_until_complete(self.server.start("127.0.0.1", 0))
        self.pool: List[_Conn] = [_Conn(self.server) for _ in range(self.POOL)]
        self.ws: Any = None
        self.inputs = 0
        self.fresh = 0
        self.closed = False

    def run(self, coro: Any, timeout: float = 30.0) -> Any:
        return self.loop.run_until_complete(asyncio.wait_for(coro, timeout))

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for c in self.pool:
            self.run(_close(self, c))
        if self.ws is not None:
            self.run(self.ws.close())
        self.run(self.server.stop())
        self.loop.close()
        logging.getLogger("ddz.server").removeHandler(self._handler)


# ---- building frames from the schema --------------------------------------------------------

def _valid_value(d: Data, h: _Harness, conn: _Conn, kind: str, field: str) -> Any:
    srv = h.server
    if field in ("table", "seat_token"):
        held = [(tid, srv.tables[tid].tokens[seat]) for tid, seat in conn.seats.items() if tid in srv.tables]
        pairs = held + conn.seen[-4:] + [(t.id, t.tokens[d.int(0, t.n - 1)]) for t in list(srv.tables.values())[:2]]
        if pairs and not d.chance(6):
            table, token = d.choice(pairs)
            return table if field == "table" else token
        return d.choice(["nope", "0" * 16, "x" * 24, "!"])
    if field == "name":
        k = d.int(0, 5)
        if k <= 2:
            h.fresh += 1
            return f"p{h.fresh}"  # a name no account has yet
        return d.choice(_NAMES) if k <= 4 else d.text(30)
    if field == "token":
        toks = list(srv._fuzz_tokens.values())  # type: ignore[attr-defined]
        return d.choice(toks) if toks and not d.chance(4) else d.choice(["forged", "x" * 32])
    if field == "room":
        return d.choice(_ROOMS)
    if field == "action":
        if conn.legal and d.bool():
            return d.choice(conn.legal)
        return d.choice(_ACTIONS) if d.bool() else d.text(20)
    if field in ("seq", "since"):
        base = conn.seq
        return d.choice([base, base - 1, 0, 1, base + 1, base + 1000, 2**53 - 1, float(base)])
    if field == "v":
        return d.choice([1, 2, 2, 0, 3, 1.0])
    if field == "bots":
        return d.bool() or d.chance(2)
    return d.choice(_HOSTILE)


def _message(d: Data, h: _Harness, conn: _Conn) -> Dict[str, Any]:
    k = d.int(0, 9)  # mostly what the connection's state calls for (0, an exhausted input, too)
    if k >= 6:
        kind = d.choice(_TYPES)
    elif conn.name is None:
        kind = "hello"
    elif conn.seats:
        kind = "act" if k < 4 else d.choice(["resume", "leave", "spectate", "unspectate", "act"])
    else:
        kind = "join" if k < 4 else d.choice(["spectate", "leave_queue", "tables", "balances", "hello"])
    props = CLIENT[kind]["properties"]
    required = set(CLIENT[kind].get("required", ()))
    msg: Dict[str, Any] = {"type": kind}
    if kind == "hello" and srv_accounts(h) and d.chance(3):  # a login: an account's name and token
        name, token = d.choice(srv_accounts(h))
        msg.update(name=name, token=token)
    for field in props:
        if field == "type" or field in msg:
            continue
        r = d.int(0, 19)  # 0 (what an exhausted input gives) is a valid value
        if r == 19 or (field not in required and r >= 10):
            continue                                     # left out
        msg[field] = d.choice(_HOSTILE) if r in (17, 18) else _valid_value(d, h, conn, kind, field)
    k = d.int(0, 39)
    if k == 37:
        msg[d.choice(["extra", "Type", "\ud800", "", "seq", "table"])] = d.choice(_HOSTILE)
    elif k == 38:
        msg["type"] = d.choice(["fly", "", "PING", "\ud800", "hello ", 5, None, ["ping"]])
    elif k == 39:
        msg.pop("type")
    return msg


def srv_accounts(h: _Harness) -> List[Tuple[str, str]]:
    return sorted(h.server._fuzz_tokens.items())  # type: ignore[attr-defined]


def _encode(d: Data, msg: Dict[str, Any]) -> Any:
    """The message as a frame, sometimes broken at the JSON level."""
    k = 19 - d.int(0, 19)  # an exhausted input (0) gives the plain message
    text = json.dumps(msg, ensure_ascii=d.bool())
    if k == 0:
        return text.replace("1", "NaN", 1) if "1" in text else text[:-1] + ', "x": Infinity}'
    if k == 1 and len(msg) > 1:
        key = d.choice(sorted(msg))
        return text[:-1] + ", " + json.dumps(key) + ": " + json.dumps(msg[key]) + "}"  # a duplicate key
    if k == 2:
        return "\ufeff" + text
    if k == 3:
        return text[:d.int(0, len(text))]
    if k == 4:
        return text.encode("utf-8", "surrogatepass") if d.bool() else bytes(d.raw(d.int(0, 20)))
    if k == 5:
        return json.dumps(dict(msg, pad="x" * MAX_BYTES))
    if k == 6:
        return d.choice(["", "null", "[]", "[1]", '"ping"', "{}", "1", "[" * 300 + "]" * 300, '{"type": "ping"} x'])
    if k == 7:
        return d.text(60)
    return text  # k 8 to 19


# ---- the checks -----------------------------------------------------------------------------

def _trimmed(m: Dict[str, Any]) -> Dict[str, Any]:
    """``m`` with at most its last 3 history entries: the same shape to check, at a bounded cost
    (the reference validator takes about 50 microseconds an entry)."""
    if m["type"] == "obs" and len(m["obs"]["history"]) > 3:
        return dict(m, obs=dict(m["obs"], history=m["obs"]["history"][-3:]))
    if m["type"] == "delta" and len(m["events"]) > 3:
        return dict(m, events=m["events"][-3:])
    return m


def _check_messages(h: _Harness, conns: List[_Conn]) -> None:
    for c in conns:
        for m in c.out:
            problem = message_problems("server", _trimmed(m))
            if problem is not None:
                raise Finding(f"the server sent a message its schema refuses: {problem}")
            if m["type"] == "error" and m["code"] == "internal":
                raise Finding(f"internal error: {m}")
    if h.logged:
        raise Finding(f"the server logged an error: {h.logged[:3]}")
    if h.loop_errors:
        raise Finding(f"an exception in the event loop: {h.loop_errors[:3]}")


def _check_answer(frame: Any, conn: _Conn, start: int) -> None:
    code, ref = expected(frame)
    mine = [m for m in conn.out[start:] if m["type"] == "error" and "ref" in m]
    stray = [m for m in conn.out[start:] if m["type"] == "error" and "ref" not in m and m["code"] != "replaced"]
    if stray:
        raise Finding(f"an error with no ref that is not 'replaced': {stray[0]}")
    if len(mine) > 1:
        raise Finding(f"one frame, {len(mine)} errors: {mine}")
    if code is not None:
        if not mine:
            raise Finding(f"a frame the schema refuses ({code}) was not refused: {frame!r:.300}")
        e = mine[0]
        if e["code"] != code or e["ref"] != ref:
            raise Finding(f"refused as {e['code']} (ref {e['ref']!r}), the schema says {code} (ref {ref!r}): "
                          f"{frame!r:.300} -> {e['message']}")
    elif mine:
        e = mine[0]
        if e["code"] in _SHAPE_CODES and not (e["code"] == "bad_field" and "ahead of the table" in e["message"]):
            raise Finding(f"a frame the schema accepts was refused as {e['code']}: {frame!r:.300} -> {e['message']}")
        if e["ref"] != ref or e["code"] not in _ERROR_CODES:
            raise Finding(f"error {e} for a {ref} message")


async def _one(h: _Harness, conn: _Conn, frame: Any) -> None:
    start = len(conn.out)
    await h.server.on_frame(conn, frame)
    await asyncio.sleep(0)  # let what the frame started (a table's first push, a storage task) run
    _check_answer(frame, conn, start)
    if conn.closed:  # logged out (or replaced): the server closes it and reads nothing more from it
        return
    n = len(conn.out)
    await h.server.on_frame(conn, '{"type": "ping"}')
    if not any(m["type"] == "pong" for m in conn.out[n:]):
        raise Finding(f"no pong after {frame!r:.300}: {conn.out[n:][:3]}")


# the closes the protocol documents for a connection that did nothing wrong: another login took
# its account (4001), or the account logged out (1000)
_DOCUMENTED_CLOSES = (4001, 1000)


async def _over_websocket(h: _Harness, frame: Any, retry: bool = True) -> None:
    """The same frame through a real connection: its answer, then a pong; never a close but the
    documented ones (another login or a logout of its account, after which it connects anew)."""
    import websockets
    if h.ws is not None and h.ws.close_code in _DOCUMENTED_CLOSES:
        h.ws = None
    if h.ws is None:
        h.ws = await websockets.connect(f"ws://127.0.0.1:{h.server.port}/ws", max_size=1 << 20)
    code, ref = expected(frame)
    pongs = 2 if code is None and ref == "ping" else 1  # a valid ping is answered with a pong too
    try:
        await h.ws.send(frame)
        await h.ws.send('{"type": "ping"}')
        got = []
        while pongs:
            m = json.loads(await asyncio.wait_for(h.ws.recv(), 10))
            got.append(m)
            pongs -= m["type"] == "pong"
    except websockets.ConnectionClosed as e:
        if retry and e.rcvd is not None and e.rcvd.code in _DOCUMENTED_CLOSES:
            h.ws = None  # closed for what another connection did: this frame again on a new one
            return await _over_websocket(h, frame, retry=False)
        raise Finding(f"the connection closed ({e.rcvd.code if e.rcvd else None}) after {frame!r:.300}") from None
    errs = [m for m in got if m["type"] == "error" and "ref" in m]
    if code is not None and not (errs and errs[0]["code"] == code and errs[0]["ref"] == ref):
        raise Finding(f"over WebSocket, {frame!r:.300} got {got[:3]}, not {code}")
    for m in got:
        problem = message_problems("server", m)
        if problem is not None:
            raise Finding(f"the server sent a message its schema refuses: {problem}")


async def _close(h: _Harness, conn: _Conn) -> None:
    """What the server does when a connection closes (in the loop: a seat left gets a bot)."""
    conn.closed = True
    h.server._gone(conn)


def _sendable(frame: Any, limit: int) -> bool:
    """A frame a WebSocket client can send (text is UTF-8: no lone surrogate) and the server
    reads (longer ones close the connection with 1009, as documented)."""
    if isinstance(frame, str):
        try:
            frame = frame.encode("utf-8")
        except UnicodeEncodeError:
            return False
    return len(frame) <= limit


def _input(h: _Harness, data: bytes) -> None:
    d = Data(data)
    h.inputs += 1
    touched = []
    for _ in range(d.int(1, 4)):
        i = d.int(0, h.POOL - 1)
        if h.pool[i].closed or d.chance(12):  # the connection closes (or the server closed it); a new one
            h.run(_close(h, h.pool[i]))      # takes its place
            h.pool[i] = _Conn(h.server)
        conn = h.pool[i]
        touched.append(conn)
        frame = _encode(d, _message(d, h, conn))
        h.run(_one(h, conn, frame))
        if d.chance(40) and _sendable(frame, h.server.config.hard_max_bytes):
            h.run(_over_websocket(h, frame))
    _check_messages(h, h.pool)
    for c in h.pool:  # what was checked is not kept
        del c.out[:]


class ServerTarget:
    """The target for one database; the server starts on the first input."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.harness: Optional[_Harness] = None

    def __call__(self, data: bytes) -> None:
        if self.harness is None:
            self.harness = _Harness(self.db)
            atexit.register(self._at_exit)
        _input(self.harness, data)

    def _at_exit(self) -> None:
        try:  # the interpreter may have shut the storage's worker thread down first: nothing to close then
            self.close()
        except RuntimeError:
            pass

    def close(self) -> None:
        if self.harness is not None:
            self.harness.close()
            self.harness = None


TARGETS: Dict[str, Callable[[bytes], None]] = {"server": ServerTarget(":memory:")}
if os.environ.get("DDZ_FUZZ_PG"):
    TARGETS["server_pg"] = ServerTarget(os.environ["DDZ_FUZZ_PG"])
