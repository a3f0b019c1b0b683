"""The flat layout's module paths (ddz._compat): those a pickle of that layout may name and those
the documentation names resolve silently; the others resolve to the same module with one
DeprecationWarning that names the new path, attributed to the code that imported them. The
old pickles of tests/data/pickles load without a warning, and nothing inside the package
imports an old path. Each runtime check runs in a fresh interpreter, where no other test has
imported the paths yet (a module warns on its first import only)."""
from __future__ import annotations

import ast
import json
import pickletools
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ddz._compat import DEPRECATED, DOCUMENTED, OLD_PATHS, PICKLED

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "ddz"
OLD_PICKLES = ROOT / "tests" / "data" / "pickles" / "v0.2.0-before-layers.pickle"


def _run(code: str) -> list:
    """Runs ``code`` in a fresh interpreter; it prints a JSON value, which is returned."""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-4000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


# what each check prints: the warnings of ddz._compat recorded, as (category, message, filename)
_RECORD = """
import importlib, json, sys, warnings
def ours(record):
    return [(w.category.__name__, str(w.message), w.filename) for w in record
            if "is deprecated: import ddz." in str(w.message)]
"""


def test_the_paths_are_split_in_two():
    """Every old path is silent (pickled or documented) or deprecated, never both."""
    assert PICKLED | DOCUMENTED <= set(OLD_PATHS)
    assert set(DEPRECATED) == set(OLD_PATHS) - PICKLED - DOCUMENTED
    assert all(DEPRECATED[old] == OLD_PATHS[old] for old in DEPRECATED)
    assert {"ddz.cards", "ddz.table", "ddz._cli_play"} <= set(DEPRECATED)


def test_the_old_pickles_paths_are_silent():
    """Every old module path the stored pickle of the flat layout names is a silent one."""
    named = {arg for _, arg, _ in pickletools.genops(OLD_PICKLES.read_bytes()) if isinstance(arg, str)}
    old = named & set(OLD_PATHS)
    assert old == {"ddz.game", "ddz.bots", "ddz._search_bot", "ddz._rules", "ddz.scoring"}, old
    assert old <= PICKLED


def test_the_documented_paths_are_silent():
    """Every old path the README and docs/ name (``ddz.envs``, ``ddz.bots.RuleBot``, ...) is silent."""
    pages = [ROOT / "README.md", ROOT / "mkdocs.yml"] + sorted((ROOT / "docs").rglob("*.md"))
    named = {}
    for page in pages:
        for m in re.finditer(r"(?<![\w.])ddz\.(\w+)", page.read_text(encoding="utf-8")):
            if f"ddz.{m.group(1)}" in OLD_PATHS:
                named.setdefault(f"ddz.{m.group(1)}", page.relative_to(ROOT).as_posix())
    loud = {path: page for path, page in named.items() if path in DEPRECATED}
    assert not loud, f"the documentation names deprecated paths: {loud}"


def test_a_deprecated_path_warns_once_and_names_its_new_path():
    code = _RECORD + f"""
import ddz
out = {{}}
for old in {sorted(DEPRECATED)!r}:
    with warnings.catch_warnings(record=True) as first:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    with warnings.catch_warnings(record=True) as again:
        warnings.simplefilter("always")
        importlib.import_module(old)
    out[old] = [ours(first), ours(again), module.__name__]
print(json.dumps(out))
"""
    out = _run(code)
    assert set(out) == set(DEPRECATED)
    for old, (first, again, name) in out.items():
        new = DEPRECATED[old]
        assert name == new, old
        assert len(first) == 1, (old, first)
        category, message, filename = first[0]
        assert category == "DeprecationWarning" and f"{old} is deprecated: import {new} instead" in message
        assert filename == "<string>", (old, filename)  # the importing code, not ddz or importlib
        assert again == [], old


def test_the_import_statement_and_the_attribute_warn_too():
    """``import ddz.table`` and ``ddz.cards`` (an attribute of the package) warn at their line;
    a later ``import ddz.cards`` finds the module loaded and says nothing."""
    code = _RECORD + """
with warnings.catch_warnings(record=True) as record:
    warnings.simplefilter("always")
    import ddz
    import ddz.table
    from ddz.hand.table import TablePolicy
    assert ddz.table.TablePolicy is TablePolicy
    ranks = ddz.cards.RANKS
    import ddz.cards
    from ddz import errors
    assert errors is sys.modules["ddz.core.errors"]
print(json.dumps(ours(record)))
"""
    warned = _run(code)
    assert [(m.split()[0], f) for _, m, f in warned] == [("ddz.table", "<string>"), ("ddz.cards", "<string>"),
                                                        ("ddz.errors", "<string>")], warned


def test_python_shows_the_warning_to_a_script():
    """Python's default filters show a DeprecationWarning raised in ``__main__``: the warning
    is attributed to the script's own line."""
    r = subprocess.run([sys.executable, "-c", "import ddz._cli_solve"], capture_output=True, text=True,
                       timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "DeprecationWarning: ddz._cli_solve is deprecated: import ddz.cli.solve instead" in r.stderr


def test_pickled_and_documented_paths_are_silent():
    code = _RECORD + f"""
import ddz
out = {{}}
with warnings.catch_warnings(record=True) as record:
    warnings.simplefilter("always")
    for old in {sorted(PICKLED | DOCUMENTED)!r}:
        try:
            out[old] = importlib.import_module(old) is importlib.import_module({OLD_PATHS!r}[old])
        except ImportError:  # an optional extra (ddz.envs without gymnasium, ...)
            pass
    import ddz.game, ddz.bots
    from ddz.scoring import GameResult
    ddz.record, ddz.envs, ddz.openspiel_ids
print(json.dumps([out, ours(record)]))
"""
    same, warned = _run(code)
    assert warned == []
    assert same and all(same.values()), same
    assert {"ddz.game", "ddz._rules", "ddz.bots", "ddz.record"} <= set(same)


def test_the_old_pickles_load_without_warnings():
    code = f"""
import json, pathlib, pickle, warnings
import ddz
stored = pathlib.Path({str(OLD_PICKLES)!r}).read_bytes()
with warnings.catch_warnings():
    warnings.simplefilter("error")
    data = pickle.loads(stored)
classic = data["classic"]
print(json.dumps([type(classic["game"]).__module__, type(data["search_bot"]).__module__,
                  type(classic["rules"]).__module__, type(classic["result"]).__module__]))
"""
    assert _run(code) == ["ddz.hand.game", "ddz.search.search_bot", "ddz.core.rules", "ddz.hand.scoring"]


def _imported(path: Path, tree: ast.AST) -> list:
    """The absolute module names a module's imports name (``from . import x`` names ``pkg.x``)."""
    package = ["ddz"] + list(path.relative_to(SRC).parent.parts)  # where ``from .`` starts
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                head = package[:len(package) - node.level + 1]
                base = ".".join(head + ([base] if base else []))
            names += [(node.lineno, base)] + [(node.lineno, f"{base}.{a.name}") for a in node.names]
    return names


def test_nothing_inside_the_package_imports_an_old_path():
    """Code inside the package imports the layered paths (docs/architecture.md): no import in
    src/ddz names a module path of the flat layout, deprecated or kept."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for line, name in _imported(path, ast.parse(path.read_text(encoding="utf-8"))):
            if any(name == old or name.startswith(old + ".") for old in OLD_PATHS):
                found.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    assert not found, "imports of old paths inside the package:\n" + "\n".join(found)


def test_importing_every_module_of_the_package_warns_nothing():
    code = _RECORD + """
import pkgutil
import ddz
with warnings.catch_warnings(record=True) as record:
    warnings.simplefilter("always")
    for m in pkgutil.walk_packages(ddz.__path__, "ddz."):
        if m.name.endswith("__main__"):
            continue
        try:
            importlib.import_module(m.name)
        except ImportError:  # an optional extra
            pass
print(json.dumps(ours(record)))
"""
    assert _run(code) == []


@pytest.mark.parametrize("old", ["ddz.cards", "ddz.table"])
def test_the_scan_catches_what_it_is_for(old):
    assert any(n == old for _, n in _imported(SRC / "x.py", ast.parse(f"import {old}")))
    assert any(n == old for _, n in _imported(SRC / "x.py", ast.parse(f"from . import {old[4:]}")))
    assert any(n == old for _, n in _imported(SRC / "hand" / "x.py", ast.parse(f"from .. import {old[4:]}")))
    assert not any(n == old for _, n in _imported(SRC / "hand" / "x.py", ast.parse(f"from . import {old[4:]}")))
