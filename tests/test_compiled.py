"""The compiled layer (docs/architecture.md, "The compiled layer"): an installed ddz runs the hand's
thin Python layer as Cython extensions built from its .py sources, which keep their docstrings and
signatures, pickle by reference and raise the package's own errors (Cython's annotation typing is
off). Skipped when ddz runs from a source tree without a build."""
from __future__ import annotations

import inspect
import pickle

import pytest

import ddz
import ddz.hand.game
import ddz.hand.outcome
import ddz.hand.table

COMPILED = [ddz.hand.game, ddz.hand.table, ddz.hand.outcome]

pytestmark = pytest.mark.skipif(not ddz.hand.game.__file__.endswith((".so", ".pyd")),
                                reason="ddz runs from its sources here (no build of the compiled layer)")


def test_the_hand_layer_is_compiled():
    for module in COMPILED:
        assert module.__file__.endswith((".so", ".pyd")), module.__file__
        assert type(ddz.Game.apply).__name__.startswith("cython_function")


def test_docstrings_and_signatures_survive():
    assert "Applies an action of the seat to act" in ddz.Game.apply.__doc__
    assert list(inspect.signature(ddz.Game).parameters)[:2] == ["rules", "seed"]
    assert "seat" in inspect.signature(ddz.Game.apply).parameters
    assert ddz.hand.outcome.exact_score.__doc__ and ddz.Game.timeout.__doc__


def test_annotations_do_not_check_arguments():
    """Cython checks nothing by annotation: the module's own checks raise the package's errors."""
    g = ddz.Game(ddz.Rules.classic(), seed=1)
    with pytest.raises(ddz.RecordTypeError):
        ddz.Game.from_snapshot("DDZS")  # type: ignore[arg-type]  # annotated bytes
    with pytest.raises(ddz.ArgumentTypeError):
        g.elapsed("1")  # type: ignore[arg-type]  # annotated float
    with pytest.raises(ddz.ArgumentTypeError):
        ddz.Game(ddz.Rules.classic(), seed=1.5)  # type: ignore[arg-type]


def test_pickles_name_the_module_functions():
    g = ddz.Game(ddz.Rules.classic(), seed=1)
    g.apply("CALL")
    data = pickle.dumps(g)
    assert b"ddz.hand.game" in data and b"_game_from_snapshot" in data
    assert pickle.loads(data).history == g.history
