"""The browser client end to end in headless Chromium (Debian's chromium + chromium-driver,
through selenium): a person logs in, sits down with bots and plays a whole hand of each
variant by clicking cards and decision buttons; the test checks what the page shows (the
lobby balance, the others' card counts, the timer, badges, BENGBU4 bomb limits, the result
and the settlement, the balance afterwards) against the server's state. Then the defences: a
player whose name is HTML shows as that text at another's table (nothing of it runs or becomes
an element), the page lives under the server's Content-Security-Policy (nothing refused, no
console error), and the page's own font draws its Chinese labels on a machine with no CJK font."""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("websockets")
selenium = pytest.importorskip("selenium")

from selenium.webdriver.common.by import By  # noqa: E402

from ddz.record import read_game  # noqa: E402

from _browser import (ServerThread, _chrome, allow_downloads, choose, click_play, console_problems,  # noqa: E402
                      downloaded, legal, no_alert, visible, wait_for)

SCREENS = Path(__file__).resolve().parents[2] / "docs" / "screens"


@pytest.fixture(scope="module")
def browser():
    d = _chrome()
    yield d
    d.quit()


@pytest.mark.parametrize("room,variant,n", [("novice", "classic", 3), ("score", "two_player", 2),
                                            ("bengbu_300", "bengbu", 4)])
def test_a_person_plays_a_whole_hand(browser, tmp_path, room, variant, n, ordinary_deals):
    d = browser
    with ServerThread(str(tmp_path / "db.sqlite3"), bot_delay_s=0.02, starting_coins=5000) as st:
        srv = st.server
        d.get(f"http://127.0.0.1:{srv.port}/")
        d.execute_script("localStorage.clear()")
        d.get(f"http://127.0.0.1:{srv.port}/")
        console_problems(d)  # the previous test's page (its server gone) is not this one's
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
        assert not visible(d, "leave-btn"), "Leave (escape) is still offered after the hand ended"
        # the page's download button fetches the hand's record (the token in a header, not the URL)
        # and saves it; it replays to the result
        allow_downloads(d, tmp_path)
        d.find_element(By.ID, "record-btn").click()
        record = wait_for(lambda: downloaded(tmp_path, f"ddz-{table.id}.json"), what="the downloaded record")
        assert read_game(record).result == res
        assert "saved" in d.find_element(By.ID, "record-status").text
        assert console_problems(d) == []
        d.find_element(By.ID, "lobby-btn").click()
        ledger = {"classic": "coins", "two_player": "twop_score", "bengbu": "bengbu"}[variant]
        start = 5000 if ledger == "coins" else 0
        wait_for(lambda: d.find_element(By.ID, f"balance-{ledger}").text.strip() ==
                 f"{ledger}: {start + change}", what="the new balance")
        assert shot, "the hand never reached the play phase on this seat's turn"


# Names a player may choose (1 to 24 characters) that are HTML: an element with a handler, the
# image-error idiom's short form, and a <base> that would send the page's requests elsewhere.
HOSTILE = ["<iframe onload=alert(7)>", "<svg onload=alert(8)>", "<base href=//x.yz>"]


def _program(stack, port, name, room):
    """A program's connection (no Origin): an account named ``name``, queued for ``room``."""
    from websockets.sync.client import connect
    ws = stack.enter_context(connect(f"ws://127.0.0.1:{port}/ws"))
    ws.send(json.dumps({"type": "hello", "name": name}))
    ws.send(json.dumps({"type": "join", "room": room}))
    return ws


def _until(ws, kind):
    while True:
        m = json.loads(ws.recv(timeout=20))
        if m["type"] == kind:
            return m


def _no_hostile_element(d):
    """Nothing of the names became an element or changed where the page's requests go."""
    assert d.execute_script("return document.querySelectorAll('iframe, svg, img, base, object, embed').length") == 0
    assert d.execute_script("return document.baseURI") == d.current_url
    assert no_alert(d)


def test_a_players_html_name_is_only_text_at_another_players_table(browser, tmp_path):
    d = browser
    with ServerThread(str(tmp_path / "db.sqlite3"), bot_delay_s=0.02) as st:
        srv = st.server
        base = f"http://127.0.0.1:{srv.port}/"
        d.get(base)
        d.execute_script("localStorage.clear()")
        d.get(base)
        console_problems(d)  # the previous test's page (its server gone) is not this one's
        wait_for(lambda: visible(d, "login"), what="the login form")
        d.find_element(By.ID, "name").send_keys("victim")
        d.find_element(By.ID, "login-btn").click()
        wait_for(lambda: visible(d, "lobby"), what="the lobby")
        next(b for b in d.find_elements(By.CSS_SELECTOR, "#rooms tbody tr")
             if b.text.startswith("bengbu ")).find_element(By.CSS_SELECTOR, "button.queue").click()
        wait_for(lambda: "waiting" in d.find_element(By.ID, "queue-status").text, what="the queue")
        with contextlib.ExitStack() as stack:
            hostile = [_program(stack, srv.port, n, "bengbu") for n in HOSTILE]
            matched = [_until(ws, "matched") for ws in hostile]
            wait_for(lambda: visible(d, "table"), what="the table")
            players = matched[0]["players"]
            assert sorted(players) == sorted(HOSTILE + ["victim"])
            for s, name in enumerate(players):
                if name != "victim":
                    shown = wait_for(lambda: d.find_element(By.CSS_SELECTOR, f"#seat-{s} .player").text,
                                     what=f"seat {s}'s name")
                    assert shown == name
            _no_hostile_element(d)
            # one of them leaves: in BENGBU4 the hand ends at once with the escape settlement
            m = matched[0]
            hostile[0].send(json.dumps({"type": "leave", "table": m["table"], "seat_token": m["seat_token"]}))
            wait_for(lambda: visible(d, "result"), what="the result")
            for s, name in enumerate(players):
                row = d.find_element(By.ID, f"settle-{s}")
                assert row.find_element(By.CSS_SELECTOR, ".player").text == name
            assert "(you)" in d.find_element(By.ID, f"settle-{players.index('victim')}").text
            _no_hostile_element(d)
            assert not visible(d, "leave-btn")
            # the record still comes from this server, with the token in a header
            allow_downloads(d, tmp_path)
            d.find_element(By.ID, "record-btn").click()
            record = wait_for(lambda: downloaded(tmp_path, f"ddz-{m['table']}.json"), what="the record")
            assert read_game(record).result.kind == "escape"
            assert console_problems(d) == []


def _page_chars():
    """The non-ASCII characters of the page's sources (what tools/gen_page_font.py puts in its font)."""
    static = Path(__file__).resolve().parents[2] / "src" / "ddz" / "server" / "static"
    text = "".join((static / f).read_text(encoding="utf-8") for f in ("app.js", "index.html"))
    return "".join(sorted({ch for ch in text if ord(ch) > 127 and not ch.isspace()}))


@pytest.fixture(scope="module")
def browser_without_cjk_fonts(tmp_path_factory):
    """Chromium that sees one Latin font family and no CJK font (its own fontconfig)."""
    latin = "/usr/share/fonts/truetype/dejavu"
    if not os.path.isdir(latin):
        pytest.skip("no DejaVu fonts to give the bare browser")
    root = tmp_path_factory.mktemp("fonts")
    conf = root / "fonts.conf"
    conf.write_text(f'<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>{latin}</dir>'
                    f"<cachedir>{root}/cache</cachedir></fontconfig>\n")
    d = _chrome(env=dict(os.environ, FONTCONFIG_FILE=str(conf)))
    yield d
    d.quit()


def _fonts_of(d, selector):
    """The fonts Chromium drew the text of ``selector`` with: [(family, custom, glyphs)]."""
    root = d.execute_cdp_cmd("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    node = d.execute_cdp_cmd("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    fonts = d.execute_cdp_cmd("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    return [(f["familyName"], f["isCustomFont"], f["glyphCount"]) for f in fonts]


def test_the_page_draws_its_chinese_and_card_glyphs_with_its_own_font(browser_without_cjk_fonts, tmp_path):
    """Every non-ASCII character of the page's labels (斗地主, 小王/大王, 叫地主…, the suits, ×, ∞)
    is drawn from the font the server ships, on a machine with no CJK font (without it they
    are empty boxes)."""
    d = browser_without_cjk_fonts
    with ServerThread(str(tmp_path / "db.sqlite3")) as st:
        d.get(f"http://127.0.0.1:{st.server.port}/")
        d.execute_cdp_cmd("DOM.enable", {})
        d.execute_cdp_cmd("CSS.enable", {})
        chars = _page_chars()
        assert "王" in chars and "♠" in chars
        for tag in ("span", "button"):  # buttons (cards, decisions) too: controls have fonts of their own
            d.execute_script(f"const s = document.createElement('{tag}'); s.id = '{tag}-probe';"
                             "s.textContent = arguments[0]; document.body.append(s);", chars)
        wait_for(lambda: d.execute_script("return document.fonts.check('16px \"ddz page CJK\"', arguments[0])"
                                          " && [...document.fonts].some((f) => f.status === 'loaded')", chars),
                 what="the page's font")
        for probe in ("#span-probe", "#button-probe"):
            assert wait_for(lambda: sum(n for _, c, n in _fonts_of(d, probe) if c) == len(chars) or None,
                            timeout=5, what=f"every character of {probe} drawn from the page's font")
        assert sum(n for _, c, n in _fonts_of(d, "h1") if c) == 3  # 斗地主
        assert console_problems(d) == []


def test_the_page_keeps_a_renewed_token_logs_out_and_takes_the_operators_token(browser, tmp_path):
    """The page stores the token a renewal sends; its Log out ends the account's tokens and
    brings back the login form; the token the operator issues, typed into that form, logs the
    owner back in to the same account."""
    d = browser
    with ServerThread(str(tmp_path / "db.sqlite3"), token_lifetime_s=4.0, starting_coins=4242) as st:
        srv = st.server
        d.get(f"http://127.0.0.1:{srv.port}/")
        d.execute_script("localStorage.clear()")
        d.get(f"http://127.0.0.1:{srv.port}/")
        console_problems(d)  # the previous test's page (its server gone) is not this one's
        wait_for(lambda: visible(d, "login"), what="the login form")
        d.find_element(By.ID, "name").send_keys("owner")
        d.find_element(By.ID, "login-btn").click()
        wait_for(lambda: visible(d, "lobby"), what="the lobby")
        stored = lambda: d.execute_script("return localStorage.getItem('ddz-token:owner')")  # noqa: E731
        first = stored()
        assert first and st.call(srv.storage.check_token("owner", first))
        renewed = wait_for(lambda: stored() != first and stored(), timeout=6, what="the renewed token")
        assert st.call(srv.storage.check_token("owner", renewed))
        d.find_element(By.ID, "logout-btn").click()
        wait_for(lambda: visible(d, "login"), what="the login form after logging out")
        assert "logged out" in d.find_element(By.ID, "error").text
        assert stored() is None and not visible(d, "logout-btn")
        assert not st.call(srv.storage.check_token("owner", renewed))
        token, _ = st.call(srv.storage.issue_token("owner", 60.0, revoke_others=True))  # ddz serve --reset-token
        d.find_element(By.ID, "name").clear()
        d.find_element(By.ID, "name").send_keys("owner")
        d.find_element(By.ID, "token").send_keys(token)
        d.find_element(By.ID, "login-btn").click()
        wait_for(lambda: visible(d, "lobby"), what="the lobby with the operator's token")
        assert d.find_element(By.ID, "balance-coins").text.strip() == "coins: 4242"
        assert d.find_element(By.ID, "token").get_attribute("value") == ""
        assert console_problems(d) == []
