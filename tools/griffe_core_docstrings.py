"""A griffe extension (mkdocs.yml): the API reference of ``ddz._core`` takes its types from
the stubs (src/ddz/_core.pyi) and its text from the docstrings the C++ bindings carry.

The stubs hold no docstrings, so that the text is written once, beside the code it describes
(csrc/bindings); this fills each stub object that has none from the imported module, without
pybind11's leading signature line (the stub's signature is shown instead).
"""
from __future__ import annotations

import importlib
import inspect
import re
from typing import Any, Optional

import griffe


def _text(obj: Any, name: str) -> Optional[str]:
    doc = inspect.getdoc(obj)
    if not doc:
        return None
    # pybind11 puts "name(args) -> ret" (or "Overloaded function.") first; the stub says that
    doc = re.sub(rf"^(?:{re.escape(name)}\(.*?\)(?: -> [^\n]*)?\n+)", "", doc, flags=re.S)
    doc = doc.replace("Overloaded function.\n", "").strip()
    return doc or None


class CoreDocstrings(griffe.Extension):
    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        if pkg.name != "ddz" or "_core" not in pkg.members:
            return
        runtime = importlib.import_module("ddz._core")
        self._fill(pkg["_core"], runtime)

    def _fill(self, node: griffe.Object, runtime: Any) -> None:
        for name, member in node.members.items():
            if member.is_alias or name.startswith("__"):
                continue
            obj = getattr(runtime, name, None)
            if obj is None:
                continue
            if member.docstring is None and not isinstance(obj, (int, float, str)):
                text = _text(obj, name)
                if text and not (inspect.isclass(runtime) and text == inspect.getdoc(type(obj))):
                    member.docstring = griffe.Docstring(text, parent=member)
            if member.is_class:
                self._fill(member, obj)
