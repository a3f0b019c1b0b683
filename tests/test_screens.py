"""docs/screens/*.txt are what ``ddz play`` prints now: tools/make_screens.py makes them from a
fixed deal and fixed input, and this test fails when a screen no longer matches the command
(after a change of the dealer, the bots or the CLI's wording: rerun the script)."""
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("make_screens", ROOT / "tools" / "make_screens.py")
make_screens = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_screens)


@pytest.mark.parametrize("name", sorted(make_screens.SCREENS))
def test_screen_matches_what_ddz_play_prints(name):
    args, lines = make_screens.SCREENS[name]
    path = ROOT / "docs" / "screens" / f"{name}.txt"
    assert path.read_text(encoding="utf-8") == make_screens.render(args, lines), \
        f"docs/screens/{name}.txt is stale: python tools/make_screens.py rewrites it"


def test_every_text_screen_is_made_by_the_script():
    on_disk = {p.stem for p in (ROOT / "docs" / "screens").glob("*.txt")}
    assert on_disk == set(make_screens.SCREENS)


def test_check_mode_reports_a_stale_screen(tmp_path, monkeypatch):
    monkeypatch.setattr(make_screens, "SCREENS_DIR", tmp_path)
    (tmp_path / "classic.txt").write_text("an old capture\n", encoding="utf-8")
    monkeypatch.setattr(make_screens, "SCREENS", {"classic": make_screens.SCREENS["classic"]})
    assert make_screens.main(["--check"]) == 1
    assert make_screens.main([]) == 0 and make_screens.main(["--check"]) == 0
