"""Test helpers: a server on a free loopback port in the test's event loop, and a protocol
client over a real WebSocket connection that keeps every message it receives, rebuilds
each seat's observation from the snapshots and deltas (protocol version 2) and, when it
closes, checks every message against the protocol's JSON Schema."""
from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any, AsyncIterator, Dict, List, Optional

import websockets

from ddz.server import Server, ServerConfig
from ddz.server.protocol import PROTOCOL_VERSION, apply_update
from ddz.server.schema import message_problems


@contextlib.asynccontextmanager
async def running(db: str, **config: Any) -> AsyncIterator[Server]:
    config.setdefault("bot_delay_s", 0.0)
    srv = Server(ServerConfig(db=db, **config))
    await srv.start("127.0.0.1", 0)
    try:
        yield srv
    finally:
        await srv.stop()


class Client:
    """A protocol client: ``send`` a message, ``expect`` the next message of some type.

    ``raw`` keeps every message as it came (what the audit checks); ``seen`` and the inbox
    hold them as the client understands them: a ``delta`` becomes an ``obs`` message with
    the whole observation rebuilt (``"delta": True``) and the newest ``table_info``."""

    def __init__(self, ws: Any, version: int = PROTOCOL_VERSION) -> None:
        self.ws = ws
        self.version = version
        self.inbox: List[Dict[str, Any]] = []   # received, not yet expected
        self.seen: List[Dict[str, Any]] = []    # everything received, deltas applied
        self.raw: List[Dict[str, Any]] = []     # everything received, as sent
        self.views: Dict[Any, Dict[str, Any]] = {}   # (table, seat) -> the observation so far
        self.infos: Dict[Any, Dict[str, Any]] = {}   # (table, seat) -> the newest table_info
        self.table: Optional[str] = None
        self.seat: Optional[int] = None
        self.seat_token: Optional[str] = None
        self.token: Optional[str] = None
        self.name: Optional[str] = None

    @classmethod
    async def connect(cls, port: int) -> "Client":
        return cls(await websockets.connect(f"ws://127.0.0.1:{port}/ws", max_size=1 << 20, max_queue=None))

    async def send(self, msg: Any) -> None:
        await self.ws.send(msg if isinstance(msg, (str, bytes)) else json.dumps(msg))

    async def _recv(self, timeout: float) -> Dict[str, Any]:
        m = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        self.raw.append(m)
        if m["type"] in ("obs", "delta"):
            key = (m["table"], m["seat"])
            view = self.views[key] = apply_update(self.views.get(key), m)
            if "table_info" in m:
                self.infos[key] = m["table_info"]
            m = {"type": "obs", "table": m["table"], "seq": m["seq"], "seat": m["seat"],
                 "obs": dict(view, history=list(view["history"])), "deadline": m["deadline"], "now": m["now"],
                 "table_info": self.infos[key], "delta": m["type"] == "delta"}
        self.seen.append(m)
        if m["type"] == "matched":
            self.table, self.seat, self.seat_token = m["table"], m["seat"], m["seat_token"]
        return m

    async def expect(self, kind: str, timeout: float = 10.0, **match: Any) -> Dict[str, Any]:
        """The first message (kept or arriving) of type ``kind`` with the given fields; the
        messages before it stay in the inbox for later calls."""
        for i, m in enumerate(self.inbox):
            if m["type"] == kind and all(m.get(k) == v for k, v in match.items()):
                return self.inbox.pop(i)
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            m = await self._recv(max(0.01, end - loop.time()))
            if m["type"] == kind and all(m.get(k) == v for k, v in match.items()):
                return m
            self.inbox.append(m)

    async def latest_obs(self, timeout: float = 0.3) -> Dict[str, Any]:
        """The newest observation received, after draining what arrives within ``timeout``."""
        with contextlib.suppress(asyncio.TimeoutError):
            while True:
                self.inbox.append(await self._recv(timeout))
        self.inbox = [m for m in self.inbox if m["type"] != "obs"]
        obs = [m for m in self.seen if m["type"] == "obs"]
        assert obs, "no observation arrived"
        return obs[-1]

    async def hello(self, name: str, token: Optional[str] = None) -> Dict[str, Any]:
        msg: Dict[str, Any] = {"type": "hello", "name": name, "v": self.version}
        if token:
            msg["token"] = token
        await self.send(msg)
        w = await self.expect("welcome")
        self.name = name
        self.token = w.get("token", token)
        return w

    async def act(self, action: str, seq: Optional[int] = None) -> None:
        """Sends ``action``; with ``seq``, the event of the view it answers (the server refuses it
        as ``STALE`` if that decision has closed since)."""
        msg: Dict[str, Any] = {"type": "act", "table": self.table, "seat_token": self.seat_token, "action": action}
        if seq is not None:
            msg["seq"] = seq
        await self.send(msg)

    async def close(self) -> None:
        """Closes the connection, then checks every message received against the protocol's
        schema (src/ddz/server/protocol.schema.json; here, not on arrival, to keep the
        client's timing that of a client)."""
        await self.ws.close()
        problems = [p for p in map(lambda m: message_problems("server", m), self.raw) if p]
        assert not problems, f"{len(problems)} messages not as the schema says, the first: {problems[0]}"


async def seated(port: int, names: List[str], room: str) -> List[Client]:
    """Clients for ``names``, each with an account, all queued for ``room`` and matched."""
    cs = []
    for n in names:
        c = await Client.connect(port)
        await c.hello(n)
        cs.append(c)
    for c in cs:
        await c.send({"type": "join", "room": room})
    for c in cs:
        await c.expect("matched")
    return cs


def eager(legal: List[str]) -> str:
    """A quick hand: the first action that is neither a refusal (NO_…) nor a pass."""
    return next((a for a in legal if not a.startswith("NO_") and a != "PASS"), legal[0])


async def play_out(clients: List[Client], pick: Any = None, timeout: float = 30.0) -> List[Dict[str, Any]]:
    """Each client plays ``eager`` (or ``pick(obs_message)``) whenever it is to
    act, until every client has the result; returns the result messages."""
    async def one(c: Client) -> Dict[str, Any]:
        acted, acted_seq = -1, 0
        sent_at: Optional[int] = None  # the history length when its action was sent, until answered (SeatView's rule)
        fresh = True  # the newest observation received may still need an answer
        if any(x["type"] == "obs" for x in c.seen):
            await c.latest_obs(0.1)  # read what is already on the way first
        while True:
            m = next((x for x in c.inbox if x["type"] == "result"), None)
            if m is None and (fresh or any(x["type"] == "obs" for x in c.inbox)):
                m = next((x for x in reversed(c.seen) if x["type"] == "obs"), None)  # only the newest counts
            fresh = False
            c.inbox = [x for x in c.inbox if x["type"] not in ("obs", "result")]
            if m is None:
                m = await c._recv(timeout)
            if m["type"] == "result":
                return m
            if m["type"] in ("illegal", "error"):
                sent_at = None
            if m["type"] == "illegal" and m["code"] in ("STALE", "NOT_YOUR_TURN") and max(
                    x["seq"] for x in c.seen if x["type"] == "obs") > acted_seq:
                continue  # the hand moved on (a bot, the clock) between the observation and the action
            if m["type"] in ("error", "illegal"):
                raise AssertionError(f"seat {c.seat} was refused: {m}")
            if m["type"] != "obs":
                continue
            o = m["obs"]
            if sent_at is not None and any(s == c.seat and t != "ESCAPE" for s, t in o["history"][sent_at:]):
                sent_at = None
            if (sent_at is None and o["legal_actions"] and o["current_seat"] == c.seat
                    and len(o["history"]) > acted):
                acted, acted_seq = len(o["history"]), m["seq"]
                sent_at = acted
                await c.act(pick(m) if pick else eager(o["legal_actions"]), m["seq"])
    return list(await asyncio.wait_for(asyncio.gather(*(one(c) for c in clients)), timeout))
