"""The package's layers (docs/architecture.md): import-linter's contracts in pyproject.toml
hold (each layer imports only from the layers below it, siblings marked independent do not
know each other, no import circle between the modules of a package), and no module inside
the package imports through the facade ``ddz``."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
grimp = pytest.importorskip("grimp", reason="import-linter (the test extra) is not installed")


def test_import_contracts_hold():
    code = "import sys; from importlinter.cli import lint_imports_command; sys.argv = ['lint-imports']; " \
           "sys.exit(lint_imports_command())"
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "0 broken" in r.stdout and "BROKEN" not in r.stdout


def test_no_module_imports_the_facade():
    """import-linter reads ``from .. import _core`` as an import of ``ddz`` (the compiled core is
    no Python file), so pyproject.toml ignores imports of ``ddz`` in its contracts; this test
    makes sure that is the only one: nothing inside the package imports the facade itself."""
    graph = grimp.build_graph("ddz", exclude_type_checking_imports=True)
    bad = []
    for importer in sorted(graph.find_modules_that_directly_import("ddz")):
        for d in graph.get_import_details(importer=importer, imported="ddz"):
            if not re.fullmatch(r"from \.+ import _core", d["line_contents"].strip()):
                bad.append(f"{importer}:{d['line_number']}: {d['line_contents']}")
    assert not bad, "modules importing through the facade:\n" + "\n".join(bad)


def test_no_stray_modules_at_the_top():
    """The top of the package holds the facade and what docs/architecture.md lists, nothing else."""
    top = sorted(p.name for p in (ROOT / "src" / "ddz").glob("*.py"))
    assert top == ["__init__.py", "_compat.py", "_version.py"], top


def test_no_layer_reaches_into_a_games_private_state():
    """Outside ``ddz.hand`` a Game is read through its public doors (docs/architecture.md): no
    module touches one of its private attributes (its slots, private methods or properties).
    ``other._name`` on anything but ``self``/``cls`` with such a name is flagged; the exceptions
    are attributes of other classes that happen to share a name, listed by file."""
    import ast
    from pathlib import Path

    import ddz
    from ddz.hand.game import Game
    from ddz.hand.table import TablePolicy
    private = {n for cls in (Game, TablePolicy) for n in list(vars(cls)) + list(getattr(cls, "__slots__", ()))
               if n.startswith("_") and not n.startswith("__")}
    # (file, attribute): another class's attribute of the same name
    others = {("learn/envs/rlcard_env.py", "_ps")}  # the RLCard game's own play state, not a Game's
    root = Path(ddz.__file__).resolve().parent
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith("hand/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and node.attr in private
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
                    and (rel, node.attr) not in others):
                found.append(f"{rel}:{node.lineno} .{node.attr}")
    assert not found, "private attributes of a Game read outside ddz.hand:\n" + "\n".join(found)


# a comparison with a variant's name: `x == "bengbu"`, `"classic" != y`, `x in ("classic", ...)`
_NAMES = r"\"(?:classic|two_player|twop|bengbu|classic3|bengbu4)\""
_VARIANT_TEST = re.compile(rf"(?:==|!=)\s*{_NAMES}|{_NAMES}\s*(?:==|!=)|\bin\s*[\(\[\{{]\s*{_NAMES}")


def test_variants_are_read_from_their_spec_not_compared_by_name():
    """What differs per variant is a field of its spec row (ddz.variants.VARIANT, read from the
    core) or an entry of a table keyed by variant; at most 3 comparisons of a variant's name are
    left in the package (the browser client aside), each a peer's convention for CLASSIC3."""
    hits = []
    for path in sorted((ROOT / "src" / "ddz").rglob("*.py")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _VARIANT_TEST.search(line.split("#")[0]):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert len(hits) <= 3, "\n".join(hits)
    assert _VARIANT_TEST.search('if v == "bengbu":') and _VARIANT_TEST.search('x in ("classic", "twop")')
    assert not _VARIANT_TEST.search('VARIANT["bengbu"].decks')


def test_the_core_has_one_variant_enum_and_no_raw_masks():
    """csrc: the variant is the enum class Variant (no `variant == 2`), and the rank masks are named."""
    raw_variant = re.compile(r"variant(?:\(\))?\s*(?:==|!=)\s*\d|case\s+[0-2]\s*:.*(?:CLASSIC|TWOP|BENGBU)")
    raw_mask = re.compile(r"0x(?:1FFF|0?FFF|7FFF)u?\b", re.I)
    found = []
    for path in sorted((ROOT / "csrc").rglob("*")):
        if path.suffix not in (".cpp", ".hpp", ".inc"):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("//")[0]
            if raw_variant.search(code) or (raw_mask.search(code) and "constexpr" not in code):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert found == [], "\n".join(found)
    assert "enum class Variant" in (ROOT / "csrc" / "ddz" / "core.hpp").read_text(encoding="utf-8")
