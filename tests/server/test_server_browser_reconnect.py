"""The browser page follows its table in headless Chromium: across a real restart of
``ddz serve`` (killed with SIGKILL; stopped with SIGTERM and a drain too short for the hand) it
reconnects by itself with a growing backoff, logs in with its stored token, shows the resumed
table (the cards it holds are the stored hand's) and its person plays the hand to the result;
it follows a server's ``redirect`` once (not again on the connection it opened, not to a URL
that is no WebSocket's); and in a two-process cluster served under one name (a proxy routing
``/ws/N`` to process N, as docs/server.md's Deployment has it) a person queued through one
process follows the redirect to the process that runs its table and plays it there."""
from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import threading
import time

import pytest

pytest.importorskip("websockets")
selenium = pytest.importorskip("selenium")

from selenium.webdriver.common.by import By  # noqa: E402

import ddz  # noqa: E402

from _browser import ServerThread, _chrome, choose, click_play, console_problems, legal, visible, wait_for  # noqa: E402
from _chaos import Serve  # noqa: E402
from _client import Client, play_out  # noqa: E402
from _util import free_port  # noqa: E402

_MARKS = {"AWAY", "BACK", "RESUMED"}  # log entries that change no game state


@pytest.fixture(scope="module")
def browser():
    d = _chrome()
    yield d
    d.quit()


def js(d, expr):
    return d.execute_script(f"return {expr};")


def open_page(d, base, name):
    """A fresh page at ``base`` (no token kept), logged in as ``name``: the lobby."""
    d.get(base)
    d.execute_script("localStorage.clear()")
    d.get(base)
    console_problems(d)  # the previous test's page (its server gone) is not this one's
    wait_for(lambda: visible(d, "login"), what="the login form")
    d.find_element(By.ID, "name").send_keys(name)
    d.find_element(By.ID, "login-btn").click()
    wait_for(lambda: visible(d, "lobby"), what="the lobby")


def my_turn(d):
    """The page offers this seat's decisions (its turn, the connection up): the legal actions."""
    acts = legal(d)
    return acts if acts and "your turn" in d.find_element(By.ID, "turn").text else None


def act_once(d, acts):
    """One decision through the page (a click), until its history shows it or the result."""
    before = js(d, "st.obs.history.length")
    a = choose(acts)
    if a.startswith("PLAY "):
        click_play(d, a)
    else:
        d.find_element(By.CSS_SELECTOR, f"#actions button[data-action='{a}']").click()
    wait_for(lambda: visible(d, "result") or js(d, "st.obs && st.obs.history.length") > before,
             what="the action to apply")
    assert d.find_element(By.ID, "illegal").text == ""


def play_to_result(d, limit=120):
    deadline = time.time() + limit
    decisions = 0
    while not visible(d, "result"):
        assert time.time() < deadline, f"the hand did not end within {limit} s"
        acts = my_turn(d)
        if acts is None:
            time.sleep(0.05)
            continue
        act_once(d, acts)
        decisions += 1
    return decisions


def hand_cards(db, table, seat):
    """The cards ``seat`` holds in the stored hand (its start and log, replayed), and its status."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        start, status = con.execute("SELECT start, status FROM hands WHERE id = ?", (table,)).fetchone()
        ops = [json.loads(op) for (op,) in con.execute(
            "SELECT op FROM hand_actions WHERE hand_id = ? ORDER BY n", (table,))]
    finally:
        con.close()
    st = json.loads(start)
    g = ddz.Game(ddz.Rules.named(st["rules"]["variant"], **st["rules"]["options"]), st["seed"])
    for s, op in ops:
        if op in _MARKS:
            continue
        if op == "TIMEOUT":
            g.timeout()
        elif op == "ESCAPE":
            g.escape(s)
        else:
            g.apply(op, seat=s)
    return sorted(g.cards(seat)), status


def page_cards(d):
    return sorted(e.get_attribute("data-card") for e in d.find_elements(By.CSS_SELECTOR, "#hand .card"))


def hand_status(db, table):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute("SELECT status FROM hands WHERE id = ?", (table,)).fetchone()[0]
    finally:
        con.close()


@pytest.mark.parametrize("stop", ["kill", "term"])
def test_the_page_reconnects_after_a_restart_and_plays_the_resumed_hand(browser, tmp_path, stop):
    """A person at a bots table; after a few of its decisions, on its turn in the play, the
    server is killed (SIGKILL) or stopped (SIGTERM: a drain of 0.5 s, the hand left stored).
    While it is down the page keeps the table, offers no decision, and retries, each wait
    longer than the last; a new server on the same database and port resumes the hand; the
    page is back by itself at the same table with the stored hand's cards, its history the
    one it had and more, and the person plays it to the result, which is stored."""
    d = browser
    port = free_port()
    db = str(tmp_path / "db.sqlite3")
    srv = Serve(db, port, str(tmp_path / "serve.log"), "--bot-delay", "0.05", "--resume-grace", "30",
                "--drain-timeout", "0.5")
    srv.start()
    try:
        name = f"sit_{stop}"
        open_page(d, f"http://127.0.0.1:{port}/", name)
        d.find_element(By.CSS_SELECTOR, "button.bots[data-room='novice']").click()
        wait_for(lambda: visible(d, "table"), what="the table")
        # a few decisions, then the server goes while this seat has a decision in the play
        decisions = 0
        while True:
            acts = wait_for(lambda: my_turn(d), timeout=30, what="this seat's turn")
            if decisions >= 2 and d.find_element(By.ID, "phase").text == "PLAY":
                break
            act_once(d, acts)
            decisions += 1
            assert not visible(d, "result"), "the hand ended before the server could be stopped"
        table, seat = js(d, "st.table"), js(d, "st.seat")
        before, history = page_cards(d), js(d, "st.obs.history")
        if stop == "kill":
            srv.kill()
        else:
            assert srv.term() == 0
        # down: the page says so, keeps the table, offers nothing, and retries with growing waits
        wait_for(lambda: js(d, "net.failures") >= 3, timeout=20, what="three failed reconnections")
        assert re.search(r"reconnecting in \d+\.\d s \(attempt \d+\)", d.find_element(By.ID, "conn").text)
        assert visible(d, "table") and legal(d) == []
        assert hand_cards(db, table, seat) == (before, "live")
        srv.start()
        wait_for(lambda: js(d, "net.welcomed && net.failures === 0"), timeout=30, what="the page back")
        # each wait is drawn within [step/2, step], the step doubling from 0.5 s: while it doubles
        # (below the 10 s cap: the first five) no wait is shorter than the one before
        delays = js(d, "net.delays")
        grow = delays[:5]
        assert len(delays) >= 3 and all(b >= a for a, b in zip(grow, grow[1:])) and grow[-1] > grow[0], delays
        assert all(250 <= x <= 10_000 for x in delays), delays
        assert d.find_element(By.ID, "conn").text == "connected"
        # what the console said meanwhile: each refused attempt, nothing else
        refused = console_problems(d)
        assert len(refused) >= 2 and all(f"WebSocket connection to 'ws://127.0.0.1:{port}/ws' failed" in m
                                         for m in refused), refused
        # the same table, where it was
        assert js(d, "st.table") == table and js(d, "st.seat") == seat
        wait_for(lambda: my_turn(d), timeout=20, what="this seat's decision again")
        assert page_cards(d) == before == hand_cards(db, table, seat)[0]
        assert js(d, "st.obs.history")[:len(history)] == history
        assert visible(d, "table") and not visible(d, "result")
        play_to_result(d)
        assert "multiplier" in d.find_element(By.ID, "result-text").text
        wait_for(lambda: hand_status(db, table) == "done", timeout=10, what="the stored result")
        assert console_problems(d) == []
        assert srv.term() == 0
    finally:
        srv.stop()
    log = srv.tail(1_000_000)
    assert "Traceback" not in log and "resumed 1 hands" in log, log[-3000:]


def _tell(st, name, msg):
    """The server sends ``msg`` to ``name``'s connection, as it sends its own messages."""
    async def send():
        st.server.lobby.sessions[name].send(msg)
    st.call(send())


def test_the_page_follows_a_redirect_once(browser, tmp_path):
    """A ``redirect`` to the server's own URL (what a cluster process that took the hand over
    sends its players connected to it) is followed: a new connection, a login with the stored
    token, the table resumed, the old connection closed. The same redirect on the connection it
    opened is not followed again, nor one to a URL that is not a WebSocket's; one to another
    origin is refused by the page's Content-Security-Policy and the page comes back to its
    server; the person plays on to the result."""
    d = browser
    with ServerThread(str(tmp_path / "db.sqlite3"), bot_delay_s=0.02) as st:
        srv = st.server
        open_page(d, f"http://127.0.0.1:{srv.port}/", "mover")
        d.find_element(By.CSS_SELECTOR, "button.bots[data-room='score']").click()
        wait_for(lambda: visible(d, "table"), what="the table")
        table = js(d, "st.table")
        first = srv.lobby.sessions["mover"]
        d.execute_script("window.firstSocket = ws;")
        url = f"ws://127.0.0.1:{srv.port}/ws"
        _tell(st, "mover", {"type": "redirect", "table": table, "url": url})
        wait_for(lambda: js(d, "ws !== window.firstSocket && net.welcomed"), what="the redirect followed")
        assert js(d, "net.via") == f"{table} {url}" and js(d, "net.moves.get(st.table)") == 1
        wait_for(lambda: srv.lobby.sessions.get("mover") not in (None, first) and first.ws.state.name == "CLOSED",
                 what="the old connection closed")
        assert js(d, "st.table") == table
        wait_for(lambda: js(d, "st.msg && st.msg.seq") >= 1 and js(d, "net.welcomed"), what="the view resumed")
        d.execute_script("window.secondSocket = ws;")
        second = srv.lobby.sessions["mover"]
        _tell(st, "mover", {"type": "redirect", "table": table, "url": url})
        _tell(st, "mover", {"type": "redirect", "table": table, "url": "https://127.0.0.1:1/ws"})
        wait_for(lambda: "not following a redirect to https://127.0.0.1:1/ws" in d.find_element(By.ID, "conn").text,
                 what="the refused redirect said")
        time.sleep(0.5)
        assert js(d, "ws === window.secondSocket") and srv.lobby.sessions["mover"] is second
        assert js(d, "net.moves.get(st.table)") == 1
        assert console_problems(d) == []
        # one to another origin (the same server under another name): the page's CSP refuses the
        # connection, and the page goes back to the server that welcomed it
        other = f"ws://localhost:{srv.port}/ws"
        _tell(st, "mover", {"type": "redirect", "table": table, "url": other})
        wait_for(lambda: js(d, "ws !== window.secondSocket && net.welcomed && net.url") == url, what="the page back")
        assert js(d, "net.moves.get(st.table)") == 2 and js(d, "net.delays.length") == 1
        refused = console_problems(d)
        assert refused and all("Content Security Policy" in m and other in m for m in refused), refused
        wait_for(lambda: js(d, "st.msg && st.table") == table and visible(d, "table"), what="the table again")
        play_to_result(d)
        assert console_problems(d) == []


class PathProxy:
    """A reverse proxy on loopback, in a thread of its own: each connection goes to the backend
    its request's path names, ``/ws/N`` to backend N's ``/ws``, anything else to backend 0; the
    ``Host`` header passes unchanged (the nginx block of docs/server.md's Deployment)."""

    def __init__(self, backends):
        self.backends = backends
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    async def _pipe(self, r, w):
        try:
            while True:
                data = await r.read(65536)
                if not data:
                    break
                w.write(data)
                await w.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            w.close()

    async def _serve(self, reader, writer):
        line = await reader.readline()
        try:
            method, path, version = line.decode("latin-1").split(" ", 2)
        except ValueError:
            writer.close()
            return
        m = re.fullmatch(r"/ws/(\d+)", path)
        port = self.backends[int(m.group(1))] if m else self.backends[0]
        try:
            r2, w2 = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            writer.close()
            return
        w2.write(f"{method} {'/ws' if m else path} {version}".encode("latin-1"))
        await asyncio.gather(self._pipe(reader, w2), self._pipe(r2, writer))

    def __enter__(self):
        self.thread.start()
        self.server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._serve, "127.0.0.1", self.port), self.loop).result(10)
        return self

    def __exit__(self, *exc):
        async def stop():
            self.server.close()
            for t in asyncio.all_tasks():
                if t is not asyncio.current_task():
                    t.cancel()
        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def _status(port):
    import urllib.request
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=5) as r:
        return json.loads(r.read())


def test_the_page_follows_a_redirect_to_the_process_that_runs_its_table(browser, pg_url, tmp_path):
    """Two ``ddz serve --cluster`` processes behind one name (a proxy: ``/ws/0`` and ``/ws/1``).
    A program waits in the TWOP queue through process 1; the person's page, served through the
    proxy (process 0), queues too; the table goes to process 1 (its longest waiter's), process
    0 sends the page a ``redirect`` there, and the page connects to ``/ws/1``, logs in, resumes
    and its person plays the hand to the result with the program, nothing refused by the
    page's Content-Security-Policy."""
    d = browser
    ports = [free_port(), free_port()]
    with PathProxy(ports) as proxy:
        procs = [Serve(pg_url, p, str(tmp_path / f"s{i}.log"), "--cluster", "--public-url",
                       f"ws://127.0.0.1:{proxy.port}/ws/{i}", "--match-interval", "0.2", "--bot-delay", "0.05")
                 for i, p in enumerate(ports)]
        queued, outcome = threading.Event(), {}

        async def program():
            c = Client(await __import__("websockets").connect(f"ws://127.0.0.1:{ports[1]}/ws", max_queue=None))
            await c.hello("program")
            await c.send({"type": "join", "room": "score"})
            await c.expect("queued")
            queued.set()
            m = await c.expect("matched", timeout=30)
            outcome["table"] = m["table"]
            outcome["result"] = (await play_out([c], timeout=90))[0]
            await c.close()

        def run_program():
            try:
                asyncio.run(program())
            except BaseException as e:  # told to the test's thread
                outcome["error"] = e
                queued.set()
        try:
            for p in procs:
                p.start()
            helper = threading.Thread(target=run_program, daemon=True)
            helper.start()
            assert queued.wait(30) and "error" not in outcome, outcome.get("error")
            home = f"ws://127.0.0.1:{proxy.port}/ws"
            open_page(d, f"http://127.0.0.1:{proxy.port}/", "person")
            assert js(d, "net.url") == home
            next(r for r in d.find_elements(By.CSS_SELECTOR, "#rooms tbody tr")
                 if r.text.startswith("score ")).find_element(By.CSS_SELECTOR, "button.queue").click()
            wait_for(lambda: visible(d, "table") and js(d, "net.welcomed"), timeout=30, what="the table after the redirect")
            table = js(d, "st.table")
            assert js(d, "net.url") == f"{home}/1" and js(d, "net.moves.get(st.table)") == 1
            assert "connected to" in d.find_element(By.ID, "conn").text
            # the person is connected to process 1 (with the program), no longer to process 0
            wait_for(lambda: _status(ports[1])["connections"] == 2 and _status(ports[0])["connections"] == 0,
                     timeout=10, what="the person's connection moved")
            play_to_result(d)
            helper.join(60)
            assert "error" not in outcome, outcome.get("error")
            assert outcome["table"] == table and "result" in outcome
            assert js(d, "[...net.moves.values()]") == [1]
            assert console_problems(d) == []
        finally:
            for p in procs:
                p.stop()
    for p in procs:
        log = p.tail(1_000_000)
        assert "Traceback" not in log, log[-3000:]
