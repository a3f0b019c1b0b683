"""The browser client end to end in headless Chromium (Debian's chromium + chromium-driver,
through selenium): a person logs in, sits down with bots and plays a whole hand of each
variant by clicking cards and decision buttons; the test checks what the page shows (the
lobby balance, the others' card counts, the timer, badges, BENGBU4 bomb limits, the result
and the settlement, the balance afterwards) against the server's state."""
from __future__ import annotations

import asyncio
import os
import re
import shutil
import threading
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("websockets")
selenium = pytest.importorskip("selenium")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

from ddz.record import read_game  # noqa: E402
from ddz.server import Server, ServerConfig  # noqa: E402

SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens"


class ServerThread:
    """A server in its own thread and event loop (selenium blocks the test's thread)."""

    def __init__(self, db: str, **cfg) -> None:
        self.loop = asyncio.new_event_loop()
        self.server = Server(ServerConfig(db=db, **cfg))
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def call(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(30)

    def __enter__(self):
        self.thread.start()
        self.call(self.server.start("127.0.0.1", 0))
        return self

    def __exit__(self, *exc):
        self.call(self.server.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def _browser_paths():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
    return chromium, driver


@pytest.fixture(scope="module")
def browser():
    chromium, driver = _browser_paths()
    if not chromium or not driver:
        pytest.skip("headless Chromium and its driver are not installed: apt-get install chromium chromium-driver "
                    "(CI installs them)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,900",
              "--disable-gpu", "--lang=en-US"):
        opts.add_argument(a)
    d = webdriver.Chrome(service=Service(executable_path=driver), options=opts)
    d.implicitly_wait(0)
    yield d
    d.quit()


def wait_for(fn, timeout=20.0, what="the page"):
    end = time.time() + timeout
    while time.time() < end:
        try:
            v = fn()
        except StaleElementReferenceException:  # the page re-rendered that element: read it again
            v = None
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def visible(d, id_):
    return d.find_element(By.ID, id_).is_displayed()


def legal(d):
    import json
    try:
        return json.loads(d.find_element(By.ID, "actions").get_attribute("data-legal") or "[]")
    except Exception:  # re-rendered while read
        return []


def choose(legal_actions):
    """A quick hand: the first play or escalating decision (as the tests' other clients)."""
    return next((a for a in legal_actions if not a.startswith("NO_") and a != "PASS"), legal_actions[0])


def click_play(d, action):
    """Select the cards of ``PLAY <ranks>`` in the hand by clicking them, then Play."""
    want = action.split(" ", 1)[1]
    cards = d.find_elements(By.CSS_SELECTOR, "#hand .card")
    used = set()
    for rank in want:
        el = next(c for c in cards if c.get_attribute("data-card")[0] == rank and c.id not in used)
        used.add(el.id)
        el.click()
    assert len(d.find_elements(By.CSS_SELECTOR, "#hand .card.selected")) == len(want)
    d.find_element(By.ID, "play-btn").click()


@pytest.mark.parametrize("room,variant,n", [("novice", "classic", 3), ("score", "two_player", 2),
                                            ("bengbu_300", "bengbu", 4)])
def test_a_person_plays_a_whole_hand(browser, tmp_path, room, variant, n):
    d = browser
    with ServerThread(str(tmp_path / "db.sqlite3"), bot_delay_s=0.02, starting_coins=5000) as st:
        srv = st.server
        d.get(f"http://127.0.0.1:{srv.port}/")
        d.execute_script("localStorage.clear()")
        d.get(f"http://127.0.0.1:{srv.port}/")
        name = f"me_{variant}"
        wait_for(lambda: visible(d, "login"), what="the login form")
        d.find_element(By.ID, "name").send_keys(name)
        d.find_element(By.ID, "login-btn").click()
        wait_for(lambda: visible(d, "lobby"), what="the lobby")
        assert d.find_element(By.ID, "balance-coins").text.strip() == "coins: 5000"
        rooms = [r.text for r in d.find_elements(By.CSS_SELECTOR, "#rooms tbody tr")]
        assert any(r.startswith("novice") for r in rooms) and any("BENGBU4" in r for r in rooms)
        d.find_element(By.CSS_SELECTOR, f"button.bots[data-room='{room}']").click()
        wait_for(lambda: visible(d, "table"), what="the table")
        table = next(iter(srv.tables.values()))
        seat = table.players.index(name)
        shot = False
        decisions = 0
        deadline = time.time() + 180  # a hand that never ends fails here instead of hanging the suite
        while not visible(d, "result"):
            assert time.time() < deadline, f"the {variant} hand did not end within 180 s"
            acts = legal(d)
            if not acts or "your turn" not in d.find_element(By.ID, "turn").text:
                time.sleep(0.05)
                continue
            g = table.game
            if not shot and g.phase == "PLAY":
                # what the page shows is the server's view of this seat
                for s in range(n):
                    if s != seat:
                        assert d.find_element(By.CSS_SELECTOR, f"#seat-{s} .count").text == \
                            f"{len(g.cards(s))} cards"
                assert sorted(e.get_attribute("data-card") for e in d.find_elements(
                    By.CSS_SELECTOR, "#hand .card")) == sorted(g.cards(seat))
                assert re.fullmatch(r"\d+ s left", wait_for(lambda: d.find_element(By.ID, "timer").text, 5))
                assert sorted(acts) == sorted(g.legal_actions())
                if variant == "bengbu":
                    limits = d.find_element(By.ID, "bomb-limits").text
                    assert limits.startswith("炸弹上限") and len(limits.split("·")) == 4
                    assert ("明打" in d.find_element(By.ID, "badges").text) or (
                        "暗打" in d.find_element(By.ID, "badges").text)
                if variant == "two_player" and g.factors["show_start"] > 1:
                    assert "明牌×" in d.find_element(By.ID, "badges").text
                target = tmp_path / f"{variant}.png"
                d.save_screenshot(str(target))
                if os.environ.get("DDZ_SCREENSHOTS"):
                    SCREENS.mkdir(parents=True, exist_ok=True)
                    shutil.copy(target, SCREENS / f"{variant}.png")
                shot = True
            a = choose(acts)
            before = len(g.history)
            if a.startswith("PLAY "):
                click_play(d, a)
            else:
                d.find_element(By.CSS_SELECTOR, f"#actions button[data-action='{a}']").click()
            decisions += 1
            wait_for(lambda: len(table.game.history) > before or visible(d, "result"), what="the action to apply")
            assert d.find_element(By.ID, "illegal").text == ""
        assert decisions >= 1
        res = table.game.result
        text = d.find_element(By.ID, "result-text").text
        assert (res.winner_side + " win") in text if res.winner_side else res.kind in text
        rows = d.find_elements(By.CSS_SELECTOR, "#settlement tbody tr")
        assert len(rows) == n
        row = wait_for(lambda: srv.tables == {} and st.call(srv.storage.hand(table.id)), what="the stored hand")
        assert row.status == "done"
        change = row.settlement["changes"][seat]
        assert d.find_element(By.CSS_SELECTOR, f"#settle-{seat} .change").text == (f"+{change}" if change > 0
                                                                                  else str(change))
        assert "(you)" in d.find_element(By.ID, f"settle-{seat}").text
        # the page's download link gives this player the hand's record, which replays to the result
        href = d.find_element(By.ID, "record-link").get_attribute("href")
        with urllib.request.urlopen(href, timeout=10) as r:
            assert read_game(r.read().decode()).result == res
        d.find_element(By.ID, "lobby-btn").click()
        ledger = {"classic": "coins", "two_player": "twop_score", "bengbu": "bengbu"}[variant]
        start = 5000 if ledger == "coins" else 0
        wait_for(lambda: d.find_element(By.ID, f"balance-{ledger}").text.strip() ==
                 f"{ledger}: {start + change}", what="the new balance")
        assert shot, "the hand never reached the play phase on this seat's turn"
