"""The module paths ddz had before its layers were subpackages, kept for users and pickles.

``import ddz.game``, ``from ddz.bots import RuleBot``, ``ddz.envs``, and the names a pickle
made by an earlier version stores (``ddz.game._game_from_pickle``, ``ddz.bots.RuleBot``,
``ddz._rules.Rules``, ...) resolve to the module that holds the code now: the very same
module object, so classes and functions are identical under either name. An old path whose
module is already loaded is entered in ``sys.modules`` at once; the others (``ddz.envs``,
``ddz.bench_peers``, ...) are imported on first use by a finder, so ``import ddz`` loads
nothing more than before. A name the facade binds keeps its value: ``ddz.evaluate`` is the
function, ``import ddz.evaluate`` (or ``from ddz.evaluate import ...``) the module. New code
imports the new paths (docs/architecture.md).

The paths a pickle of the flat layout may name (``PICKLED``) and those the documentation
names (``DOCUMENTED``) stay silent. The others (``DEPRECATED``: ``ddz.cards``,
``ddz.table``, ...) still resolve, but their first import (or first use as an attribute of
``ddz``) issues a ``DeprecationWarning`` that names the new path, attributed to the code
that asked for it; later imports find the module in ``sys.modules`` and say nothing.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import sys
import warnings
from types import FrameType, ModuleType
from typing import Dict, FrozenSet, Optional, Sequence

__all__ = ["DEPRECATED", "DOCUMENTED", "OLD_PATHS", "PICKLED", "install"]

# old module path -> the module that holds its code now
OLD_PATHS: Dict[str, str] = {
    "ddz.cards": "ddz.core.cards", "ddz.errors": "ddz.core.errors", "ddz.variants": "ddz.core.variants",
    "ddz._rules": "ddz.core.rules", "ddz.action_space": "ddz.core.action_space",
    "ddz._rlcard_order": "ddz.core.rlcard_order",
    "ddz.game": "ddz.hand.game",
    "ddz.scoring": "ddz.hand.scoring", "ddz.table": "ddz.hand.table", "ddz.record": "ddz.hand.record",
    "ddz.matchmaking": "ddz.rooms.matchmaking",
    "ddz.solver": "ddz.search.solver", "ddz.sample": "ddz.search.sample", "ddz.bots": "ddz.search.bots",
    "ddz._search_bot": "ddz.search.search_bot", "ddz._sim": "ddz.search.simulate",
    "ddz.evaluate": "ddz.search.evaluate", "ddz._ray": "ddz.search.ray_backend",
    "ddz.encode": "ddz.learn.encode", "ddz.vector_env": "ddz.learn.vector_env", "ddz.envs": "ddz.learn.envs",
    "ddz.bench_peers": "ddz.peers.bench", "ddz.openspiel_ids": "ddz.peers.openspiel_ids",
    "ddz._openspiel_ids": "ddz.peers.openspiel_table",
    "ddz._cli_play": "ddz.cli.play", "ddz._cli_solve": "ddz.cli.solve",
}

# The old paths a pickle made by the flat layout may name: each module defined a class whose
# instances pickle by reference to it, or the function a class's pickle rebuilds through
# (tests/data/pickles/make.py wrote such a pickle: ddz.game, ddz.bots, ddz._search_bot,
# ddz._rules, ddz.scoring). The flat layout's exceptions of ddz.errors were named ``ddz.X``
# already, so their pickles name ``ddz``.
PICKLED: FrozenSet[str] = frozenset({
    "ddz.game",         # _game_from_pickle (every Game)
    "ddz._rules",       # Rules, and _move_from_spec (every Move)
    "ddz.scoring",      # GameResult, PlaySummary
    "ddz.bots",         # Bot, RandomBot, RuleBot
    "ddz._search_bot",  # SearchBot
    "ddz._sim",         # SimulationResult
    "ddz.evaluate",     # EvaluationResult, AgentStats, RoleStats
    "ddz.solver",       # Solution, SolveError, SolveTypeError
    "ddz.sample",       # SampleError, SampleTypeError
    "ddz.matchmaking",  # Matchmaker
    "ddz.vector_env",   # VectorStep
    "ddz.encode",       # DouZeroBatch
    "ddz.variants",     # Variant
})
# The old paths the documentation and the README name (as modules to import or to reach
# through ``ddz``): they are public names.
DOCUMENTED: FrozenSet[str] = frozenset({
    "ddz.envs", "ddz.bots", "ddz.encode", "ddz.variants", "ddz.record", "ddz.action_space",
    "ddz.openspiel_ids",
})
# The rest still resolve, with a DeprecationWarning naming the new path: old path -> new path
DEPRECATED: Dict[str, str] = {old: new for old, new in OLD_PATHS.items() if old not in PICKLED | DOCUMENTED}

_HERE = os.path.dirname(os.path.abspath(__file__))
_SKIPPED = {os.path.join(_HERE, "_compat.py"), os.path.join(_HERE, "__init__.py")}


def _caller() -> Optional[FrameType]:
    """The frame of the code that asked for an old path: past this module, the facade's
    ``__getattr__`` and the import machinery."""
    frame: Optional[FrameType] = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if os.path.abspath(name) not in _SKIPPED and "importlib" not in name:
            return frame
        frame = frame.f_back
    return None


def warn_deprecated(old: str) -> None:
    """The DeprecationWarning of a deprecated old path, attributed to the code that imported it
    (so Python's default filters show it when that code is ``__main__``)."""
    new = DEPRECATED[old]
    message = f"{old} is deprecated: import {new} instead (the same module, under its layered path)"
    frame = _caller()
    if frame is None:
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return
    module_globals = frame.f_globals
    warnings.warn_explicit(message, DeprecationWarning, frame.f_code.co_filename, frame.f_lineno,
                           module=module_globals.get("__name__", "<unknown>"),
                           registry=module_globals.setdefault("__warningregistry__", {}))


def _target(fullname: str) -> Optional[str]:
    """The new path of an old one, or of a module inside an old package (``ddz.envs.aec_env``)."""
    if fullname in OLD_PATHS:
        return OLD_PATHS[fullname]
    head, _, tail = fullname.rpartition(".")
    while head:
        if head in OLD_PATHS:
            return OLD_PATHS[head] + fullname[len(head):]
        head, _, more = head.rpartition(".")
    return None


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path and loads it as the module at its new path (the same object)."""

    def find_spec(self, fullname: str, path: Optional[Sequence[str]] = None,
                  target: Optional[ModuleType] = None) -> Optional[importlib.machinery.ModuleSpec]:
        new = _target(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=False)

    def __init__(self) -> None:
        self._specs: Dict[str, Optional[importlib.machinery.ModuleSpec]] = {}

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(_target(spec.name))  # type: ignore[arg-type]
        if spec.name in DEPRECATED:
            warn_deprecated(spec.name)
        self._specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """The module ran under its own name already; the import system has just set its
        ``__spec__`` to the old path's, so its own is put back."""
        current = getattr(module, "__spec__", None)
        if current is not None and current.name in self._specs:
            module.__spec__ = self._specs.pop(current.name)


def install() -> None:
    """Enters the loaded modules' old paths that stay silent and puts the finder first (once).
    A deprecated path is left to the finder (or to the facade's ``__getattr__``), which warns."""
    package = sys.modules["ddz"]
    for old, new in OLD_PATHS.items():
        if new in sys.modules and old not in DEPRECATED:
            module = sys.modules.setdefault(old, sys.modules[new])
            # as a loaded submodule is an attribute of its package (ddz.game); a name the
            # facade already binds keeps its value (ddz.evaluate is the function)
            if not hasattr(package, old[4:]):
                setattr(package, old[4:], module)
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.insert(0, _Alias())
