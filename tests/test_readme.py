"""Every code block of README.md and of every docs/*.md runs here, so that the documentation
cannot drift from the code. Each file is checked on its own (its python blocks are one session).

* ```` ```python ```` blocks are doctests (``>>>`` with the output shown): they run in order
  in one namespace, as a reader would type them, and a wrong output fails.
* ```` ```sh ```` blocks run with bash in the repository (``set -e``, a time limit) when the
  line before the block is ``<!-- run -->``.
* Any block may instead be preceded by ``<!-- not run: REASON -->``; the reason must say why.
* A python block preceded by ``<!-- needs: MODULE -->`` runs where MODULE imports (an optional
  peer) and is skipped elsewhere; the blocks after it must not depend on it.
* ```` ```json ```` blocks must parse as JSON; a block preceded by ``<!-- record: FORMAT -->``
  must also have the top-level keys of a real record of that format.
"""
from __future__ import annotations

import doctest
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import List, NamedTuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS_DIR = ROOT / "docs"
# The documents whose examples are tested: the README, then every page of docs/ and its folders.
DOCS = [README] + sorted(DOCS_DIR.rglob("*.md"))
# The pages docs/ must hold (the README, mkdocs.yml and the docstrings point to them).
REQUIRED_PAGES = ("rules.md", "records.md", "encodings.md", "peers.md", "engine.md", "game.md", "search.md",
                  "learning.md", "cli.md", "benchmarks.md", "fuzzing.md", "development.md")


class Block(NamedTuple):
    lang: str
    line: int      # 1-based line of the opening fence
    marker: str    # the HTML comment on the line before the fence ("" when none)
    text: str


def blocks(path: Path = README) -> List[Block]:
    """The fenced blocks of a page, also those indented under a list item (dedented)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^( *)```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        start, indent = i, len(m.group(1))
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        prev = lines[start - 1].strip() if start else ""
        marker = prev if prev.startswith("<!--") else ""
        body = [line[indent:] if line[:indent].strip() == "" else line for line in lines[start + 1:j]]
        out.append(Block(m.group(2), start + 1, marker, "\n".join(body) + "\n"))
        i = j + 1
    return out


def not_run(b: Block) -> bool:
    m = re.match(r"<!-- not run: (.+) -->", b.marker)
    return bool(m and len(m.group(1).strip()) >= 10)


def needs(b: Block) -> str:
    """The module a block needs (``<!-- needs: rlcard -->``), or ""."""
    m = re.match(r"<!-- needs: ([\w.]+) -->", b.marker)
    return m.group(1) if m else ""


def _importable(module: str) -> bool:
    import importlib.util
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:
        return False


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


BLOCKS = {path: blocks(path) for path in DOCS}


def test_docs_pages_exist():
    for page in REQUIRED_PAGES:
        assert (DOCS_DIR / page).is_file(), f"docs/{page} is missing"


@pytest.mark.parametrize("path", DOCS, ids=_name)
def test_every_block_is_tested_or_says_why_not(path):
    where = _name(path)
    for b in BLOCKS[path]:
        if not_run(b):
            continue
        if b.lang == "python":
            assert ">>> " in b.text, f"{where} line {b.line}: a python block must be a doctest (>>> and output)"
        elif needs(b):
            pytest.fail(f"{where} line {b.line}: <!-- needs: --> marks python blocks only")
        elif b.lang in ("sh", "bash", "console"):
            assert b.marker == "<!-- run -->", f"{where} line {b.line}: mark a shell block <!-- run --> or " \
                                               "<!-- not run: reason -->"
        elif b.lang == "json":
            json.loads(b.text)
        else:
            pytest.fail(f"{where} line {b.line}: a ```{b.lang} block is neither run nor marked "
                        "<!-- not run: reason -->")


@pytest.mark.parametrize("path", DOCS, ids=_name)
def test_python_examples(path):
    """All python blocks of one file in order, one namespace: the file read as one session."""
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    globs: dict = {}
    failures = []
    for b in BLOCKS[path]:
        if b.lang != "python" or not_run(b) or (needs(b) and not _importable(needs(b))):
            continue
        test = parser.get_doctest(b.text, globs, f"{_name(path)}:{b.line}", str(path), b.line)
        out: List[str] = []
        result = runner.run(test, out=out.append, clear_globs=False)
        globs = test.globs  # the next block sees what this one defined (DocTest copies globs)
        if result.failed:
            failures.append("".join(out))
    assert not failures, "\n".join(failures)


SHELL = [(path, b) for path in DOCS for b in BLOCKS[path] if b.lang in ("sh", "bash") and b.marker == "<!-- run -->"]


@pytest.mark.parametrize("path,b", SHELL, ids=[f"{_name(p)}:line{b.line}" for p, b in SHELL])
def test_shell_examples(path, b, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    bindir = Path(sys.executable).parent
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", b.text], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, f"{_name(path)} line {b.line}:\n{b.text}\nstdout:\n{r.stdout[-2000:]}\nstderr:\n{r.stderr[-2000:]}"


def _random_hand_record(variant: str, seed: int, rng_seed: int) -> dict:
    """The record of a hand of ``variant`` dealt by ``seed``, each action drawn by
    ``random.Random(rng_seed).choice`` among the legal ones (as the pages play it)."""
    import random

    import ddz
    rng = random.Random(rng_seed)
    g = ddz.Game(ddz.Rules(variant), seed)
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
    return json.loads(g.to_json())


def _shown_matches(shown, real, where: str) -> None:
    """Every value a page shows of a record equals the real one; "..." stands for anything
    (a whole value, the rest of a list, or the other keys of an object)."""
    if shown == "...":
        return
    if isinstance(shown, dict):
        assert isinstance(real, dict), where
        for k, v in shown.items():
            if k != "...":
                assert k in real, f"{where}: no key {k!r}"
                _shown_matches(v, real[k], f"{where}.{k}")
        return
    if isinstance(shown, list):
        assert isinstance(real, list), where
        cut = "..." in shown and shown.index("...") == len(shown) - 1
        body = shown[:-1] if cut else shown
        assert len(real) >= len(body) if cut else len(real) == len(body), f"{where}: {shown!r} vs {real!r}"
        for i, v in enumerate(body):
            _shown_matches(v, real[i], f"{where}[{i}]")
        return
    assert shown == real, f"{where}: the page shows {shown!r}, the record holds {real!r}"


@pytest.mark.parametrize("path", DOCS, ids=_name)
def test_shown_records_are_real(path):
    """A record block marked ``<!-- record: ddz-game of VARIANT seed S Random(R) -->`` shows
    values of that hand's real record, so a change of the dealer or the engine fails here."""
    for b in BLOCKS[path]:
        m = re.match(r"<!-- record: ddz-game of (\w+) seed (\d+) Random\((\d+)\) -->", b.marker)
        if m:
            real = _random_hand_record(m.group(1), int(m.group(2)), int(m.group(3)))
            _shown_matches(json.loads(b.text), real, f"{_name(path)} line {b.line}")


@pytest.mark.parametrize("path", DOCS, ids=_name)
def test_record_blocks_have_a_real_record_keys(path):
    import ddz
    g = ddz.Game(ddz.Rules.classic(), 1)
    real = {"ddz-game": json.loads(g.to_json()), "ddz-view": json.loads(g.view_json(0))}
    for b in BLOCKS[path]:
        m = re.match(r"<!-- record: ([\w-]+)( of .+)? -->", b.marker)
        if m:
            assert m.group(1) in real, f"{_name(path)} line {b.line}: unknown record format {m.group(1)!r}"
            shown = json.loads(b.text)
            assert set(shown) == set(real[m.group(1)]), \
                f"{_name(path)} line {b.line}: keys differ from a real record"


def _anchors(path: Path) -> set:
    """The heading anchors of a page, as GitHub makes them (lower case, punctuation dropped,
    spaces to hyphens)."""
    heads = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


@pytest.mark.parametrize("path", DOCS, ids=_name)
def test_links_to_docs_resolve(path):
    """Every relative link of a page points to a file of the repository, and every #anchor to a
    heading of its page (a renamed page or section fails)."""
    text = path.read_text(encoding="utf-8")
    for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", text):
        if "://" in target:
            continue
        page = path.parent / target if target else path
        assert page.exists(), f"{_name(path)}: the link {target!r} leads nowhere"
        if anchor and page.suffix == ".md":
            assert anchor in _anchors(page), f"{_name(path)}: no heading #{anchor} in {_name(page)}"


def test_setup_commands():
    """The README's set-up section holds exactly two commands: install and run the main job,
    install and run the tests; CI runs the second one verbatim."""
    text = README.read_text(encoding="utf-8")
    setup = text[text.index("## Set up"):text.index("\n## ", text.index("## Set up") + 5)]
    cmds = [b.text.strip() for b in blocks_of(setup)]
    assert cmds[0].startswith("pip install . && ddz ") and len(cmds) == 2
    assert cmds[1] in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def blocks_of(text: str) -> List[Block]:
    tmp = re.findall(r"^```\w*\n(.*?)^```$", text, flags=re.S | re.M)
    return [Block("", 0, "", t) for t in tmp]


def _shown_default(v) -> str:
    """A default as docs/rules.md writes it: `"text"`, True/False, or the number."""
    return f'`"{v}"`' if isinstance(v, str) else f"`{v}`" if isinstance(v, bool) else f"{v}"


def test_rules_page_lists_every_option_with_its_default():
    """docs/rules.md §11 has a row for every option of every variant, with the default the code
    uses (the option tables are prose, so this keeps them from drifting)."""
    import ddz
    text = (DOCS_DIR / "rules.md").read_text(encoding="utf-8")
    section = text[text.index("## 11. Every option"):]
    rows = {}
    for name, default in re.findall(r"^\| `(\w+)` \| ([^|]+) \|", section, flags=re.M):
        rows.setdefault(name, []).append(default.strip())
    for variant in ddz.VARIANTS:
        for name, value in ddz.Rules(variant).options.items():
            assert name in rows, f"docs/rules.md §11 has no row for option {name}"
            if name == "single_kicker_rank_cap":  # one row gives the default of each variant
                label = {"classic": "CLASSIC3", "two_player": "TWOP", "bengbu": "BENGBU4"}[variant]
                assert any(f"{label} {value}" in d for d in rows[name]), (name, variant, rows[name])
            else:
                assert any(d.startswith(_shown_default(value)) for d in rows[name]), (name, value, rows[name])


def test_needs_marker_runs_a_block_only_where_its_module_imports():
    b = Block("python", 1, "<!-- needs: no_such_module_for_ddz -->", ">>> 1/0\n")
    assert needs(b) == "no_such_module_for_ddz" and not _importable(needs(b))
    assert _importable("json") and needs(Block("python", 1, "", "")) == ""
