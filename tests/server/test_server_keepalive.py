"""Keepalive (ddz.server.keepalive): a connection that has been silent for ``ping_interval_s``
is pinged, and closed (1011) when its pong does not come within ``ping_timeout_s``; a peer
that answers stays; a peer that keeps speaking is never pinged (its frames show it is alive).
The peers here speak raw WebSocket frames, so that a test controls whether a pong is sent.
And the text frames the server writes itself (``Session.send``): the library's, byte for byte."""
from __future__ import annotations

import asyncio
import base64
import json
import os
import struct
import time

import pytest

pytest.importorskip("websockets")

from _client import Client, running  # noqa: E402
from _util import run  # noqa: E402


class RawPeer:
    """A WebSocket client on a bare TCP stream: it answers nothing unless told to."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, port: int) -> "RawPeer":
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                      f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 101"), head[:80]
        return cls(reader, writer)

    async def frame(self, timeout: float):
        """The next frame: (opcode, payload); None when the server closed the stream."""
        try:
            b0, b1 = await asyncio.wait_for(self.reader.readexactly(2), timeout)
        except asyncio.IncompleteReadError:
            return None
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", await self.reader.readexactly(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", await self.reader.readexactly(8))[0]
        return b0 & 0x0F, await self.reader.readexactly(n)

    def send(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        assert len(payload) < 126
        self.writer.write(bytes((0x80 | opcode, 0x80 | len(payload))) + mask
                          + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def close(self) -> None:
        self.writer.close()


PING, PONG, CLOSE, TEXT = 0x9, 0xA, 0x8, 0x1


def test_a_silent_peer_that_does_not_answer_is_pinged_then_closed(tmp_path):
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), ping_interval_s=0.4, ping_timeout_s=0.4) as srv:
            peer = await RawPeer.connect(srv.port)
            t0 = time.monotonic()
            op, data = await peer.frame(timeout=5)
            assert op == PING, (op, data)
            assert time.monotonic() - t0 >= 0.35  # not before the connection has been silent that long
            f = await peer.frame(timeout=5)  # no pong: the server gives up on it
            assert f is not None and f[0] == CLOSE, f
            assert struct.unpack("!H", f[1][:2])[0] == 1011 and b"keepalive ping timeout" in f[1]
            assert srv.keepalive.timeouts == 1
            peer.close()
    run(main())


def test_a_silent_peer_that_answers_stays_connected(tmp_path):
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), ping_interval_s=0.3, ping_timeout_s=0.3) as srv:
            c = await Client.connect(srv.port)  # the websockets client answers pings itself
            await asyncio.sleep(2.0)
            assert srv.keepalive.pings >= 3 and srv.keepalive.timeouts == 0
            await c.send({"type": "ping"})
            assert (await c.expect("pong"))["type"] == "pong"
            await c.ws.close()
    run(main())


def test_a_peer_that_keeps_speaking_is_never_pinged(tmp_path):
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), ping_interval_s=0.5, ping_timeout_s=0.5) as srv:
            peer = await RawPeer.connect(srv.port)
            opcodes = []

            async def read():
                while True:
                    f = await peer.frame(timeout=10)
                    if f is None:
                        return
                    opcodes.append(f[0])
            reader = asyncio.ensure_future(read())
            for _ in range(25):  # 2.5 s: five intervals, a frame every 0.1 s
                peer.send(TEXT, json.dumps({"type": "ping"}).encode())
                await asyncio.sleep(0.1)
            await asyncio.sleep(0.2)
            reader.cancel()
            assert opcodes.count(TEXT) == 25 and PING not in opcodes, opcodes
            assert srv.keepalive.pings == 0
            peer.close()
    run(main())


def test_no_pings_when_the_interval_is_zero(tmp_path):
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), ping_interval_s=0.0) as srv:
            peer = await RawPeer.connect(srv.port)
            with pytest.raises(asyncio.TimeoutError):
                await peer.frame(timeout=1.0)
            assert srv.keepalive.pings == 0
            peer.close()
    run(main())


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 70000])
def test_the_servers_text_frames_are_the_librarys(size):
    """``Session.send`` writes ``text_frame``s on the transport itself: byte for byte the frame
    the websockets library would write (unmasked, FIN, text), at each length encoding."""
    from websockets.frames import Frame, Opcode
    from ddz.server.app import text_frame
    payload = ("é" * size).encode()[:size]
    assert text_frame(payload) == Frame(Opcode.TEXT, payload).serialize(mask=False, extensions=[])


def test_a_long_message_reaches_the_client_whole(tmp_path):
    """A message longer than 65,535 bytes (the 64-bit length form) arrives whole and in order."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3")) as srv:
            c = await Client.connect(srv.port)
            await c.send({"type": "rooms"})
            await c.expect("rooms")
            sess = next(iter(srv.lobby.connections))
            sess.send({"type": "pong", "now": 0, "pad": "x" * 70000})
            sess.send({"type": "pong", "now": 1})
            first, second = await c.expect("pong"), await c.expect("pong")
            assert len(first["pad"]) == 70000 and second["now"] == 1
            await c.ws.close()
    run(main())
