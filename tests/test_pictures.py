"""ddz.draw: the SVG pictures of cards, hands, moves, tricks and tables.

A seat's view never draws a card its observation hides; the open table draws every hand; a game
replayed from its record draws the same bytes; every drawing has a <title>, ASCII text only and
suits told apart by shape; the variants are drawn from their data (no variant name in the
drawing code); Cards, Move and Game show as pictures in a notebook; docs/pictures/*.svg are what
the drawings are now (tools/make_pictures.py); and headless Chromium renders the committed
pictures, each card inside the picture with the name and index of the view's card."""
from __future__ import annotations

import importlib.util
import json
import os
import random
import re
import shutil
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

import ddz
import ddz.draw
from ddz.core.variants import VARIANT
from ddz.draw.svg import RANK_LABEL

ROOT = Path(__file__).resolve().parent.parent
SVG_NS = "{http://www.w3.org/2000/svg}"
_spec = importlib.util.spec_from_file_location("make_pictures", ROOT / "tools" / "make_pictures.py")
make_pictures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_pictures)


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG_NS}svg"
    return root


def drawn_cards(svg: str) -> list:
    return [g.get("data-card") for g in parse(svg).iter(f"{SVG_NS}g") if g.get("class") == "card"]


def seat_groups(svg: str) -> dict:
    return {int(g.get("data-seat")): g for g in parse(svg).iter(f"{SVG_NS}g") if g.get("class") == "seat"}


def visible(game: ddz.Game, seat) -> tuple:
    """(the cards a view must show, the cards it may show): the hands it sees and the kitty
    once revealed (the open table: every hand and the kitty), and besides those the played
    cards. Read from the observation, not from ddz.draw."""
    if seat == "open":
        obs = game.observation(None)
        dealt = obs["first_bidder"] is not None
        must = [c for s in range(game.num_players) for c in (game.cards(s) if dealt else [])]
        must += json.loads(game.to_json())["deals"][-1]["kitty"] if dealt else []
    else:
        obs = game.observation(seat)
        must = list(obs["cards"]) + [c for cs in obs["shown"].values() for c in cs] + list(obs["kitty"] or [])
    played = [c for _, token in obs["history"] if token.startswith("PLAY ") for c in token[5:].split()]
    return set(must), set(must) | set(played)


def _random_points(variant: str, seed: int, every: int):
    """A hand played by random choices, yielded every ``every`` actions and at its end."""
    rng = random.Random(seed)
    g = ddz.Game(ddz.Rules(variant), seed)
    n = 0
    yield g
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
        n += 1
        if n % every == 0 or g.is_over:
            yield g


@pytest.mark.parametrize("variant", list(VARIANT))
def test_a_seat_sees_only_what_its_observation_shows(variant):
    players = VARIANT[variant].players
    for seed in (1, 2):
        for g in _random_points(variant, seed, every=9):
            for seat in list(range(players)) + [None, "open"]:
                svg = ddz.draw.table(g, seat=seat)
                names = drawn_cards(svg)
                must, may = visible(g, seat)
                assert must <= set(names) <= may, (seat, set(names) - may, must - set(names))
                # a card drawn twice is a revealed kitty card, also in the landlord's hand
                twice = {c for c, k in Counter(names).items() if k > 1}
                assert twice <= set(g.observation(None)["kitty"] or []), twice
                obs = g.observation(None if seat == "open" else seat)
                for s, group in seat_groups(svg).items():  # a hidden hand: as many backs as it has cards
                    backs = sum(1 for e in group.iter(f"{SVG_NS}g") if e.get("class") == "back")
                    held = [e for e in group.iter(f"{SVG_NS}g") if e.get("class") == "card"]
                    if backs:
                        assert backs == obs["cards_left"][s] and seat != "open" and s != seat
                    assert backs or len(held) >= obs["cards_left"][s]


def test_a_game_replayed_from_its_record_draws_the_same():
    for variant in VARIANT:
        for g in list(_random_points(variant, 4, every=15))[1:]:
            again = ddz.Game.from_json(g.to_json())
            for seat in ("open", 0, None):
                assert ddz.draw.table(again, seat=seat) == ddz.draw.table(g, seat=seat)
            assert again._repr_svg_() == g._repr_svg_() == ddz.draw.table(g)


def test_every_drawing_is_titled_ascii_and_self_contained():
    g = make_pictures.midway(ddz.Rules.bengbu(), 11, 16)
    drawings = [ddz.draw.cards(ddz.Cards("3TJBR")), ddz.draw.cards("3s 3s' B'"), ddz.draw.hand(g.cards(0)),
                ddz.draw.move(ddz.classify("33344456", ddz.Rules.classic())), ddz.draw.move("PASS"),
                ddz.draw.move("PLAY 5c 5c'", ddz.Rules.bengbu()), ddz.draw.trick(g),
                ddz.draw.trick([(0, "PLAY 3s"), (1, "PASS")]), ddz.draw.table(g), ddz.draw.table(g, seat=2)]
    for svg in drawings:
        root = parse(svg)
        kids = list(root)
        assert kids[0].tag == f"{SVG_NS}title" and kids[0].text and kids[1].tag == f"{SVG_NS}desc"
        assert svg.isascii(), [ch for ch in svg if not ch.isascii()][:5]   # any font draws it
        assert " id=" not in svg and "<use" not in svg and "href" not in svg and "<image" not in svg
        assert root.get("role") == "img" and root.get("viewBox")
        for card in root.iter(f"{SVG_NS}g"):
            if card.get("class") == "card":
                assert card.find(f"{SVG_NS}title").text  # each card says what it is
    assert "second deck" in ddz.draw.cards("3s'") and "second-deck" in ddz.draw.cards("3s'")
    assert "second-deck" not in ddz.draw.cards("3s")


def test_suits_differ_in_shape_and_colour():
    shapes = {}
    for suit in "shcd":
        card = [g for g in parse(ddz.draw.cards(f"3{suit}")).iter(f"{SVG_NS}g") if g.get("class") == "card"][0]
        paths = card.findall(f"{SVG_NS}path")
        shapes[suit] = (paths[0].get("d"), paths[0].get("fill"))
        assert ("hearts spades clubs diamonds".split()["hscd".index(suit)]) in card.find(f"{SVG_NS}title").text
    assert len({d for d, _ in shapes.values()}) == 4                      # four shapes
    assert shapes["h"][1] == shapes["d"][1] != shapes["s"][1] == shapes["c"][1]


def test_the_drawing_code_reads_variants_from_their_data():
    """No variant is told by its name in ddz.draw: the seats, decks, kitty and set-aside cards
    come from ddz.variants.VARIANT (BENGBU4's two decks, TWOP's two seats)."""
    names = set(VARIANT) | {v.title for v in VARIANT.values()} | {a for v in VARIANT.values() for a in v.aliases}
    for path in (ROOT / "src" / "ddz" / "draw").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        hits = [n for n in names if re.search(rf"[\"']{re.escape(n)}[\"']", text)]
        assert not hits, f"{path.name} names a variant: {hits}"
    for variant, v in VARIANT.items():
        g = make_pictures.midway(ddz.Rules(variant), 2, 0)
        assert sorted(seat_groups(ddz.draw.table(g))) == list(range(v.players))


def test_cards_moves_and_games_show_in_a_notebook(tmp_path):
    hand = ddz.Cards("33344456789TJQKA2BR")
    move = ddz.classify("33344456", ddz.Rules.classic())
    g = ddz.Game(ddz.Rules.two_player(), 5)
    assert hand._repr_svg_() == ddz.draw.cards(hand) and "<title>" in hand._repr_svg_()
    assert move._repr_svg_() == ddz.draw.move(move) and "PLANE_SOLO" in move._repr_svg_()
    assert g._repr_svg_() == ddz.draw.table(g) and "TWOP table, open table" in g._repr_svg_()
    for i, obj in enumerate((hand, move, g, ddz.draw.hand("3s 4h"))):
        path = tmp_path / f"{i}.svg"
        drawn = ddz.draw.save(obj, path)
        assert path.read_text(encoding="utf-8") == drawn
    with pytest.raises(TypeError):
        ddz.draw.save(object(), tmp_path / "x.svg")
    with pytest.raises(ddz.CardError):
        ddz.draw.cards("3s 3s")


def test_the_facade_leaves_a_type_that_draws_itself_alone():
    class DrawsItself:
        def _repr_svg_(self):
            return "<svg/>"

    class Plain:
        pass

    ddz._give_pictures(DrawsItself, Plain)
    assert DrawsItself()._repr_svg_() == "<svg/>"
    assert Plain._repr_svg_ is ddz.Cards._repr_svg_ is ddz.Game._repr_svg_
    with pytest.raises(TypeError):                     # Plain is no Cards, Move or Game
        Plain()._repr_svg_()


def test_bad_input_is_a_short_ddz_error():
    for bad in (123, None, [1.5], "XYZ", ["3s", "3s"], [60]):
        with pytest.raises(ddz.CardError):           # CardTypeError is one too
            ddz.draw.cards(bad)
    g = ddz.Game(ddz.Rules.classic(), 1)
    for seat in (3, -1, "1", True):
        with pytest.raises(ddz.ArgumentError):
            ddz.draw.table(g, seat=seat)
    with pytest.raises(ddz.ArgumentTypeError):
        ddz.draw.table("a game")
    with pytest.raises(ddz.MoveError):
        ddz.draw.move(42)


def test_replay_svg_writes_the_final_table(tmp_path):
    from ddz.cli import main
    g = make_pictures.midway(ddz.Rules.classic(), 3, 200)
    record, out = tmp_path / "r.json", tmp_path / "t.svg"
    record.write_text(g.to_json(), encoding="utf-8")
    assert main(["replay", str(record), "--svg", str(out)]) == 0
    assert g.is_over and out.read_text(encoding="utf-8") == ddz.draw.table(g)
    assert "HAND OVER" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(make_pictures.PICTURES))
def test_committed_pictures_are_what_ddz_draws(name):
    path = ROOT / "docs" / "pictures" / f"{name}.svg"
    assert path.read_text(encoding="utf-8") == make_pictures.PICTURES[name]().svg, \
        f"docs/pictures/{name}.svg is stale: python tools/make_pictures.py rewrites it"


def test_every_committed_picture_is_made_and_shown():
    on_disk = {p.stem for p in (ROOT / "docs" / "pictures").glob("*.svg")}
    assert on_disk == set(make_pictures.PICTURES)
    shown = "".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
    for name in on_disk:
        assert f"pictures/{name}.svg" in shown, f"docs/pictures/{name}.svg is shown on no page"


def test_check_mode_reports_a_stale_picture(tmp_path, monkeypatch):
    monkeypatch.setattr(make_pictures, "PICTURES_DIR", tmp_path)
    monkeypatch.setattr(make_pictures, "PICTURES", {"move": make_pictures.PICTURES["move"]})
    (tmp_path / "move.svg").write_text("<svg/>", encoding="utf-8")
    assert make_pictures.main(["--check"]) == 1
    assert make_pictures.main([]) == 0 and make_pictures.main(["--check"]) == 0


# ---- in a browser ------------------------------------------------------------------------

def _chrome():
    selenium = pytest.importorskip("selenium")  # noqa: F841
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
    if not chromium or not driver:
        pytest.skip("headless Chromium and its driver are not installed: apt-get install chromium chromium-driver "
                    "(CI installs them)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1000,900",
              "--disable-gpu", "--lang=en-US"):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service(executable_path=driver), options=opts)


_READ = """
const svg = document.documentElement;
const box = svg.getBoundingClientRect();
return {tag: svg.tagName, errors: document.getElementsByTagName('parsererror').length,
        title: svg.querySelector('title') && svg.querySelector('title').textContent,
        box: [box.width, box.height, Number(svg.getAttribute('width')), Number(svg.getAttribute('height'))],
        cards: [...svg.querySelectorAll('g.card')].map(g => {
            const r = g.getBoundingClientRect();
            return {name: g.dataset.card, index: g.querySelector('text.index').textContent,
                    rect: [r.left, r.top, r.right, r.bottom]};
        })};
"""


def test_chromium_renders_the_pictures_with_the_views_cards():
    d = _chrome()
    try:
        for name, make in sorted(make_pictures.PICTURES.items()):
            scene = make()
            d.get((ROOT / "docs" / "pictures" / f"{name}.svg").as_uri())
            seen = d.execute_script(_READ)
            assert seen["tag"] == "svg" and seen["errors"] == 0 and seen["title"], name
            w, h, want_w, want_h = seen["box"]
            assert (round(w), round(h)) == (want_w, want_h), name
            for c in seen["cards"]:                         # inside the picture, and not empty
                left, top, right, bottom = c["rect"]
                assert 0 <= left < right <= w + 0.5 and 0 <= top < bottom <= h + 0.5, (name, c)
                assert c["index"] == RANK_LABEL[c["name"].rstrip("'")[0]], (name, c)
            names = [c["name"] for c in seen["cards"]]
            if scene.game is not None and name != "trick":
                must, may = visible(scene.game, scene.seat)
                assert must <= set(names) <= may, (name, set(names) ^ must)
            elif scene.names is not None:
                assert Counter(names) == Counter(scene.names), name
            else:
                trick = ddz.hand.tricks.Tricks(scene.game.num_players, scene.game.history).current
                assert Counter(names) == Counter(c for _, t in trick if t != "PASS" for c in t[5:].split())
    finally:
        d.quit()
