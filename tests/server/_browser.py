"""What the browser tests share: a server in a thread of its own, headless Chromium (Debian's
chromium + chromium-driver, through selenium), and reading and clicking the page."""
from __future__ import annotations

import asyncio
import json
import os
import shutil
import threading
import time
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from ddz.server import Server, ServerConfig


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


def _chrome(env=None):
    chromium, driver = _browser_paths()
    if not chromium or not driver:
        pytest.skip("headless Chromium and its driver are not installed: apt-get install chromium chromium-driver "
                    "(CI installs them)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,900",
              "--disable-gpu", "--lang=en-US"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console: CSP refusals, script errors
    d = webdriver.Chrome(service=Service(executable_path=driver, env=env), options=opts)
    d.implicitly_wait(0)
    return d


def console_problems(d):
    """What the page's console said since the last call that a working page never says: a
    script error, or anything the Content-Security-Policy refused."""
    return [e["message"] for e in d.get_log("browser")
            if (e["level"] == "SEVERE" or "Content Security Policy" in e["message"] or "Trusted" in e["message"])
            and "/favicon.ico " not in e["message"]]  # the browser's own guess; the page names no icon


def no_alert(d):
    try:
        text = d.switch_to.alert.text
    except NoAlertPresentException:
        return True
    raise AssertionError(f"a dialog opened: {text!r}")


def allow_downloads(d, where):
    d.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(where)})


def downloaded(where, name):
    f = Path(where) / name
    return f.read_text(encoding="utf-8") if f.is_file() and not Path(str(f) + ".crdownload").exists() else None


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
