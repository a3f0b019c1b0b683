"""The server's defences for the browser and its accounts: security headers on every HTTP
response (the Content-Security-Policy above all), the WebSocket handshake's Origin check,
tokens (expiry, renewal while in use, logout, the operator's reset, the tokens of before the
tokens table void) and the record download with the token in a header."""
from __future__ import annotations

import asyncio
import hashlib
import html.parser
import time
import urllib.error
import urllib.request

import pytest

websockets = pytest.importorskip("websockets")

from websockets.exceptions import ConnectionClosed, InvalidStatus  # noqa: E402

from ddz.cli import main as cli_main  # noqa: E402
from ddz.server.app import STATIC  # noqa: E402
from ddz.server.storage import open_storage  # noqa: E402

from _client import Client, running  # noqa: E402
from _util import run  # noqa: E402


def _fetch(port, path, headers=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


async def fetch(port, path, headers=None):
    return await asyncio.to_thread(_fetch, port, path, headers)


def _csp_ok(csp):
    parts = {p.split()[0]: p.split()[1:] for p in csp.split(";") if p.strip()}
    return (parts["script-src"] == ["'self'"] and parts["style-src"] == ["'self'"]
            and parts["base-uri"] == ["'none'"] and parts["object-src"] == ["'none'"]
            and parts["frame-ancestors"] == ["'none'"] and parts["default-src"] == ["'none'"]
            and "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp
            and parts["require-trusted-types-for"] == ["'script'"]
            and parts["connect-src"][0] == "'self'" and all(u.startswith(("ws://127.0.0.1:", "wss://127.0.0.1:"))
                                                            for u in parts["connect-src"][1:]))


def test_every_http_response_carries_the_security_headers(tmp_path):
    """The page, its script, style and font, the API, the errors and the WebSocket handshake's
    own response all carry the CSP (no inline script or style, no foreign <base>, no plugins,
    no framing) and its companions; the font is served (so it is in the package)."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3")) as srv:
            paths = {"/": 200, "/app.js": 200, "/style.css": 200, "/fonts/ddz-cjk.woff": 200,
                     "/fonts/OFL.txt": 200, "/api/rooms": 200, "/api/status": 200, "/records/abc": 403,
                     "/nothing-here": 404, "/../pyproject.toml": 404, "/ws": 426}
            for path, status in paths.items():
                got, headers, body = await fetch(srv.port, path)
                assert got == status, path
                assert _csp_ok(headers["Content-Security-Policy"]), path
                assert headers["X-Content-Type-Options"] == "nosniff" and headers["Referrer-Policy"] == "no-referrer"
                assert headers["X-Frame-Options"] == "DENY"
                if path == "/fonts/ddz-cjk.woff":
                    assert headers["Content-Type"] == "font/woff" and body[:4] == b"wOFF"
            async with websockets.connect(f"ws://127.0.0.1:{srv.port}/ws") as ws:
                assert _csp_ok(ws.response.headers["Content-Security-Policy"])
            # a Host that is not a plain host name never enters the header
            for host in ("x; script-src *", "a b", "évil"):
                got, headers, _ = await fetch(srv.port, "/", {"Host": host})
                assert got == 200 and _csp_ok(headers["Content-Security-Policy"]), host
                assert "script-src *" not in headers["Content-Security-Policy"]
    run(main())


class _Inline(html.parser.HTMLParser):
    """What of a page a CSP without 'unsafe-inline' would block: inline scripts and styles,
    event-handler and style attributes, javascript: URLs, <base>."""

    def __init__(self):
        super().__init__()
        self.found = []
        self._in = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script" and "src" not in a:
            self.found.append("inline <script>")
        if tag in ("style", "base"):
            self.found.append(f"<{tag}>")
        self.found += [f"{tag}[{k}]" for k in a if k.startswith("on") or k == "style"]
        self.found += [f"{tag}[{k}] javascript:" for k, v in a.items() if v and v.strip().lower().startswith("javascript:")]


def test_the_page_has_nothing_inline_for_the_csp_to_block():
    p = _Inline()
    p.feed((STATIC / "index.html").read_text(encoding="utf-8"))
    assert p.found == []
    js = (STATIC / "app.js").read_text(encoding="utf-8")
    code = "\n".join(line.split("//")[0] for line in js.splitlines())  # comments may name what is not done
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
                 "setAttribute(\"on", ".style."):
        assert sink not in code, sink


def test_a_handshake_from_a_foreign_origin_is_refused(tmp_path):
    async def main():
        async with running(str(tmp_path / "db.sqlite3")) as srv:
            url = f"ws://127.0.0.1:{srv.port}/ws"
            for bad in ("http://evil.example", f"http://127.0.0.1:{srv.port + 1}", "null",
                        f"http://127.0.0.1:{srv.port}.evil.example"):
                with pytest.raises(InvalidStatus) as e:
                    await websockets.connect(url, origin=bad)
                assert e.value.response.status_code == 403, bad
            for good in (f"http://127.0.0.1:{srv.port}", f"https://127.0.0.1:{srv.port}", None):
                async with websockets.connect(url, origin=good) as ws:  # the page's own, or a program
                    await ws.send('{"type": "ping"}')
                    assert '"pong"' in await ws.recv()
        # an operator's list replaces the default: only those origins, whatever the Host
        async with running(str(tmp_path / "db2.sqlite3"), origins=("https://ddz.example",)) as srv:
            url = f"ws://127.0.0.1:{srv.port}/ws"
            async with websockets.connect(url, origin="https://DDZ.example/"):
                pass
            with pytest.raises(InvalidStatus):
                await websockets.connect(url, origin=f"http://127.0.0.1:{srv.port}")
            async with websockets.connect(url):
                pass
    run(main())


def test_logout_ends_every_connection_and_token_of_the_account(tmp_path, capsys):
    """logout: every token of the account stops working, each of its connections gets
    logged_out and is closed; the account, its name and its coins stay, another account is
    untouched, and the operator's ddz serve --reset-token gives the owner a working token."""
    db = str(tmp_path / "db.sqlite3")

    async def first():
        async with running(db, starting_coins=1234) as srv:
            a = await Client.connect(srv.port)
            await a.hello("ann")
            b = await Client.connect(srv.port)
            await b.hello("ann", a.token)
            assert (await a.expect("error"))["code"] == "replaced"
            with pytest.raises(ConnectionClosed):  # a replaced connection is closed at once (4001)
                while True:
                    await a._recv(5)
            assert a.ws.close_code == 4001
            bob = await Client.connect(srv.port)
            await bob.hello("bob")
            await b.send({"type": "logout"})
            assert "logged out" in (await b.expect("logged_out"))["message"]
            with pytest.raises(ConnectionClosed):
                while True:
                    await b._recv(5)
            assert b.ws.close_code == 1000
            again = await Client.connect(srv.port)
            await again.send({"type": "hello", "name": "ann", "token": a.token})
            assert (await again.expect("error"))["code"] == "bad_token"
            await again.send({"type": "hello", "name": "ann"})
            assert (await again.expect("error"))["code"] == "name_taken"  # the name stays its owner's
            assert (await srv.storage.balances("ann"))["coins"] == 1234
            await bob.send({"type": "ping"})
            await bob.expect("pong")
            await bob.close()
            await again.close()
    run(first())
    assert cli_main(["serve", "--db", db, "--reset-token", "ann"]) == 0
    token = capsys.readouterr().out.strip()
    assert cli_main(["serve", "--db", db, "--reset-token", "nobody"]) == 2

    async def second():
        async with running(db) as srv:
            c = await Client.connect(srv.port)
            w = await c.hello("ann", token)
            assert w["balances"]["coins"] == 1234
            await c.close()
    run(second())


def test_tokens_expire_and_are_renewed_while_in_use(tmp_path):
    """A token works for token_lifetime_s. A connection gets a fresh one (a token message) once
    a quarter of its token's life has passed, a hello with such a token gets one in welcome;
    an expired token is refused as token_expired (not bad_token), the name stays its owner's,
    and an expired token downloads no record."""
    life = 4.0

    async def main():
        async with running(str(tmp_path / "db.sqlite3"), token_lifetime_s=life) as srv:
            a = await Client.connect(srv.port)
            t0 = time.time()
            w = await a.hello("ann")
            first = a.token
            assert abs(w["token_expires"] - (t0 + life)) < 1.0
            m = await a.expect("token", timeout=life)  # renewed at about a quarter of its life
            assert time.time() - t0 >= 0.2 * life and m["token"] != first
            assert abs(m["expires"] - (time.time() + life)) < 1.0
            renewed = m["token"]
            b = await Client.connect(srv.port)
            wb = await b.hello("ann", first)  # a token past a quarter of its life: a fresh one in welcome
            assert wb["token"] not in (first, renewed) and wb["token_expires"] > w["token_expires"]
            await b.close()
            await asyncio.sleep(max(0.0, t0 + life + 0.3 - time.time()))
            c = await Client.connect(srv.port)
            await c.send({"type": "hello", "name": "ann", "token": first})
            e = await c.expect("error")
            assert e["code"] == "token_expired" and "operator" in e["message"]
            await c.send({"type": "hello", "name": "ann"})
            assert (await c.expect("error"))["code"] == "name_taken"
            status, _, _ = await fetch(srv.port, "/records/abc", {"Authorization": f"Bearer {first}"})
            assert status == 403
            # the connection in use kept renewing: its newest token works
            newest = [x for x in a.inbox if x["type"] == "token"]
            latest = newest[-1]["token"] if newest else renewed
            assert (await c.hello("ann", latest))["name"] == "ann"
            await a.close()
            await c.close()
    run(main())


def test_the_tokens_of_before_the_tokens_table_no_longer_work(db_url, capsys):
    """A database of a server that kept one token hash per account (accounts.token_hash): at the
    next start every such token is void, the account and its coins stay, the owner gets a new
    token from the operator."""
    old = "an-old-token-that-a-page-script-may-have-read"

    async def make():
        store = open_storage(db_url)
        await store.open()
        await store.create_account("ann", {"coins": 4321})
        async with store.tx() as tx:  # as the server before the tokens table left it
            await tx.execute("DELETE FROM tokens")
            await tx.execute("UPDATE accounts SET token_hash = ? WHERE name = ?",
                             hashlib.sha256(old.encode()).hexdigest(), "ann")
        await store.close()
    run(make())

    async def upgraded():
        async with running(db_url) as srv:
            c = await Client.connect(srv.port)
            await c.send({"type": "hello", "name": "ann", "token": old})
            assert (await c.expect("error"))["code"] == "bad_token"
            await c.send({"type": "hello", "name": "ann"})
            assert (await c.expect("error"))["code"] == "name_taken"
            async with srv.storage.tx() as tx:
                assert [tuple(r) for r in await tx.fetch("SELECT token_hash FROM accounts WHERE name = ?", "ann")] == [("",)]
            await c.close()
    run(upgraded())
    assert cli_main(["serve", "--db", db_url, "--reset-token", "ann"]) == 0
    token = capsys.readouterr().out.strip()

    async def owner_back():
        async with running(db_url) as srv:
            c = await Client.connect(srv.port)
            assert (await c.hello("ann", token))["balances"]["coins"] == 4321
            await c.close()
    run(owner_back())


def test_renewals_keep_only_the_newest_tokens(db_url):
    """Each renewal adds a token; an account keeps the newest MAX_TOKENS, so logins in a loop
    cannot grow the table without bound."""
    from ddz.server.storage import MAX_TOKENS

    async def main():
        store = open_storage(db_url)
        await store.open()
        try:
            first = await store.create_account("ann", {"coins": 1})
            tokens = [(await store.issue_token("ann"))[0] for _ in range(MAX_TOKENS + 4)]
            async with store.tx() as tx:
                assert (await tx.fetch("SELECT COUNT(*) FROM tokens WHERE name = ?", "ann"))[0][0] == MAX_TOKENS
            assert all([await store.check_token("ann", t) for t in tokens[-MAX_TOKENS:]])
            assert not await store.check_token("ann", first)
            assert await store.token_owner(tokens[-1]) == "ann" and await store.token_owner(first) is None
            assert await store.revoke_tokens("ann") == MAX_TOKENS and not await store.check_token("ann", tokens[-1])
        finally:
            await store.close()
    run(main())


def test_serve_refuses_a_bad_origin_or_lifetime(capsys):
    assert cli_main(["serve", "--origin", "evil.example"]) == 2
    assert cli_main(["serve", "--origin", "https://a.example/path"]) == 2
    assert cli_main(["serve", "--token-days", "0"]) == 2
    assert cli_main(["serve", "--token-days", "nan"]) == 2
    assert "--origin" in capsys.readouterr().err
