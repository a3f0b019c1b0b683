"""The documentation reads as a manual: no page speaks of issues (the tracker's, or the project's
history), a prose pointer to another part ("see … below", "(above)") is a link that the site
build checks, and the site build is configured to check every anchor (``mkdocs build --strict``
fails on a link to a heading that does not exist)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))

ISSUE = re.compile(r"\bthe issue\b|\bissue\s*#|\bissue\s+\d|\bthis issue\b|\bthe issue's\b", re.I)
POINTER = re.compile(r"\((?:see )?(?:below|above)\)|\bsee\s+[\"“'][^\"”']+[\"”']\s+(?:below|above)\b"
                     r"|\bsee\s+(?:below|above)\b|\bdescribed\s+(?:below|above)\b"
                     r"|\b(?:the|a)\s+(?:table|section|list|presets?|encoding|example|defects?)\s+(?:below|above)\b",
                     re.I)


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _prose(text: str) -> str:
    """The page without its code blocks, its code spans and its links (a link's text is fine)."""
    text = re.sub(r"^ *```.*?^ *```", "", text, flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.sub(r"!?\[[^\]]*\]\([^)]*\)", "LINK", text)


@pytest.mark.parametrize("path", PAGES, ids=_name)
def test_no_page_speaks_of_issues(path):
    hits = ISSUE.findall(path.read_text(encoding="utf-8"))
    assert not hits, f"{_name(path)} speaks of an issue ({hits}): say what the software does instead"


@pytest.mark.parametrize("path", PAGES, ids=_name)
def test_prose_pointers_are_links(path):
    hits = POINTER.findall(_prose(path.read_text(encoding="utf-8")))
    assert not hits, f"{_name(path)}: make these pointers links to their sections: {hits}"


def test_the_checks_catch_what_they_are_for():
    assert ISSUE.search("as the issue ran it") and ISSUE.search("(issue #41)") and ISSUE.search("issue 25")
    assert not ISSUE.search("the server issues a token")
    assert POINTER.search(_prose('a line of best play (see "Open-hand solver" below).'))
    assert POINTER.search(_prose("Standard input may be a pipe (below)."))
    assert not POINTER.search(_prose("a pipe ([below](#a-hand-through-a-pipe)); balances go below zero"))


def test_the_site_build_checks_anchors():
    """mkdocs.yml: strict, and every kind of link validated (an anchor that no heading makes fails
    the build; tests/test_readme.py checks the same with GitHub's anchors)."""
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^strict: true$", text, flags=re.M)
    validation = text[text.index("validation:"):].split("\n\n")[0]
    for key in ("omitted_files", "absolute_links", "unrecognized_links", "anchors"):
        assert re.search(rf"^  {key}: warn$", validation, flags=re.M), key


def test_the_readme_tells_a_newcomer_what_to_expect():
    """The suite's time and a quick subset by file (files that exist), why an extra installed from
    the clone builds again, and a gymnasium.make quick start that runs (tests/test_readme.py runs
    it) with the import that registers the ids and the mode check_env needs."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(r"2-core machine the whole suite takes about \d+–\d+ minutes", text)
    subset = re.search(r"`(python -m pytest -q (?:tests/\S+\.py ?)+)`", text)
    assert subset and all((ROOT / f).is_file() for f in subset.group(1).split()[4:])
    assert "pip rebuilds a local folder" in text and "`build/`" in text and "incremental" in text
    start = text.index("## Quick start: Gymnasium")
    quick = text[start:text.index("\n## ", start + 5)]
    assert ">>> import ddz.envs" in quick and 'gymnasium.make("ddz/Classic-v0", illegal_action="penalize")' in quick
    assert ">>> check_env(" in quick


def test_every_serve_option_is_in_the_servers_table():
    """docs/server.md's table of options names every option of ``ddz serve`` (and no other)."""
    import argparse

    from ddz.server.cli import add_parser
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    serve = next(a for a in parser._subparsers._group_actions).choices["serve"]  # noqa: SLF001
    options = {s for a in serve._actions for s in a.option_strings if s.startswith("--") and s != "--help"}
    text = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    table = text[text.index("| option | default | what |"):text.index("\nEvery option's help")]
    named = set(re.findall(r"`(--[a-z-]+)", "\n".join(line.split("|")[1] for line in table.splitlines()[2:])))
    assert options - named == set(), "options of ddz serve missing from docs/server.md"
    assert named - options == set(), "docs/server.md names options ddz serve does not have"
