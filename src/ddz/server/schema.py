"""The protocol's JSON Schema (``protocol.schema.json`` beside this file) and the server's
validator for client messages, compiled from it.

Why not ``jsonschema`` at run time: it costs about 25 times what reading the JSON costs
(hundreds of microseconds a message, most of the server's CPU per action); the compiled
checks cost a few. They implement the keywords the client part of the schema uses, with
JSON Schema's meaning (draft 2020-12), and refuse to compile a schema using any other, so
the file cannot say something the server would not check; the tests run ``jsonschema`` on
the same file and check that both accept and refuse the same messages.

A refusal names the message type and the field, and says what the field must be (the
``description`` of its schema) and what was wrong with it.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable, Dict, Optional, Tuple

__all__ = ["SCHEMA_PATH", "SCHEMA", "CLIENT", "SERVER", "SchemaError", "FieldError", "compile_message",
           "client_validators", "reference_validator", "message_problems"]

SCHEMA_PATH = Path(__file__).with_name("protocol.schema.json")
SCHEMA: Dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
CLIENT: Dict[str, Dict[str, Any]] = SCHEMA["$defs"]["client"]["$defs"]   # client message type -> its schema
SERVER: Dict[str, Dict[str, Any]] = SCHEMA["$defs"]["server"]["$defs"]   # server message type -> its schema

_ANNOTATIONS = {"description", "title", "$comment"}
_FIELD_KEYWORDS = {"$ref", "type", "const", "minLength", "maxLength", "not", "minimum", "maximum"} | _ANNOTATIONS
_MESSAGE_KEYWORDS = {"type", "properties", "required", "additionalProperties"} | _ANNOTATIONS
_TYPE_NAMES = {"string": "a string", "integer": "an integer", "boolean": "true or false"}


class SchemaError(ValueError):
    """The schema uses something the compiled validator does not implement."""


class FieldError(ValueError):
    """A field's value does not match its schema; the message says why."""


def _resolve(node: Dict[str, Any], root: Dict[str, Any]) -> Dict[str, Any]:
    """``node`` with a local ``$ref`` (``#/...``) replaced by its target, merged with the
    keywords beside it (draft 2020-12 applies both)."""
    ref = node.get("$ref")
    if ref is None:
        return node
    if not ref.startswith("#/"):
        raise SchemaError(f"only local references are compiled, not {ref!r}")
    target: Any = root
    for part in ref[2:].split("/"):
        target = target[part.replace("~1", "/").replace("~0", "~")]
    merged = dict(_resolve(target, root))
    for k, v in node.items():
        if k != "$ref":
            if k in merged and k not in _ANNOTATIONS:
                raise SchemaError(f"{k!r} both beside {ref!r} and in it")
            merged[k] = v
    return merged


def _kind_of(value: Any) -> str:
    if value is None:
        return "null (leave an optional field out instead)"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _is_integer(v: Any) -> bool:
    """JSON Schema's integer: a number with no fractional part (12, 12.0, 1.2e1), not a boolean."""
    if isinstance(v, bool):
        return False
    return isinstance(v, int) or (isinstance(v, float) and v.is_integer())


def _field_check(node: Dict[str, Any], root: Dict[str, Any]) -> Callable[[Any], Any]:
    """A function that returns the field's value (integers as ``int``) or raises
    ``FieldError`` saying what is wrong."""
    s = _resolve(node, root)
    unknown = set(s) - _FIELD_KEYWORDS
    if unknown:
        raise SchemaError(f"keywords not compiled: {sorted(unknown)}")
    if "const" in s:
        const = s["const"]
        return lambda v: v if v == const and type(v) is type(const) else _fail(f"must be {const!r}")
    typ = s.get("type")
    if typ not in _TYPE_NAMES:
        raise SchemaError(f"field type {typ!r} is not compiled")
    what = s.get("description") or _TYPE_NAMES[typ]
    lo_len, hi_len = s.get("minLength"), s.get("maxLength")
    lo, hi = s.get("minimum"), s.get("maximum")
    forbid: Optional["re.Pattern[str]"] = None
    if "not" in s:
        if set(s["not"]) != {"pattern"}:
            raise SchemaError("'not' is compiled only around a lone 'pattern'")
        forbid = re.compile(s["not"]["pattern"])

    def fail(why: str) -> Any:
        raise FieldError(f"must be {what} ({why})")

    if typ == "boolean":
        def check(v: Any) -> Any:
            return v if isinstance(v, bool) else fail(f"it is {_kind_of(v)}")
    elif typ == "integer":
        def check(v: Any) -> Any:
            if not _is_integer(v):
                return fail(f"it is {_kind_of(v)}" if not isinstance(v, float) else f"it is {v!r}")
            if (lo is not None and v < lo) or (hi is not None and v > hi):
                return fail(f"it is {int(v)}")
            return int(v)
    else:
        def check(v: Any) -> Any:
            if not isinstance(v, str):
                return fail(f"it is {_kind_of(v)}")
            n = len(v)
            if hi_len is not None and n > hi_len:
                return fail(f"it has {n} characters")
            if lo_len is not None and n < lo_len:
                return fail("it is empty" if n == 0 else f"it has {n} characters")
            if forbid is not None:
                m = forbid.search(v)
                if m is not None:
                    return fail(f"it holds U+{ord(m.group()[0]):04X} at {m.start()}")
            return v
    return check


def _fail(why: str) -> Any:
    raise FieldError(why)


def compile_message(kind: str, node: Dict[str, Any], root: Dict[str, Any] = SCHEMA) -> Callable[[Dict[str, Any]], Dict[str, Any]]:
    """The validator of one client message type: takes the decoded object (a dict whose
    ``type`` is ``kind``) and returns it with integer fields as ``int``, or raises
    ``FieldError`` with a message naming the field."""
    s = _resolve(node, root)
    unknown = set(s) - _MESSAGE_KEYWORDS
    if unknown or s.get("type") != "object" or s.get("additionalProperties") is not False:
        raise SchemaError(f"{kind}: a message schema is a closed object (type, properties, required, "
                          f"additionalProperties: false), not {sorted(s)}")
    fields: Dict[str, Callable[[Any], Any]] = {f: _field_check(n, root) for f, n in s["properties"].items()}
    required: Tuple[str, ...] = tuple(s.get("required", ()))
    allowed = ", ".join(repr(f) for f in fields if f != "type")

    def validate(msg: Dict[str, Any]) -> Dict[str, Any]:
        for f in msg:
            check = fields.get(f)
            if check is None:
                raise FieldError(f"{kind}: unknown field {_short(f)!r} (a {kind} has "
                                 + (f"only {allowed})" if allowed else "no field but 'type')"))
            try:
                msg[f] = check(msg[f])
            except FieldError as e:
                raise FieldError(f"{kind}: field {f!r} {e}") from None
        for f in required:
            if f not in msg:
                raise FieldError(f"{kind}: missing field {f!r}")
        return msg
    return validate


def _short(text: str, n: int = 40) -> str:
    return text if len(text) <= n else text[:n] + "…"


def client_validators(root: Dict[str, Any] = SCHEMA) -> Dict[str, Callable[[Dict[str, Any]], Dict[str, Any]]]:
    """A validator per client message type of ``root`` (this package's schema by default)."""
    return {kind: compile_message(kind, node, root) for kind, node in root["$defs"]["client"]["$defs"].items()}


_REFERENCE: Dict[Tuple[str, str], Any] = {}


def reference_validator(side: str, kind: str) -> Any:
    """A ``jsonschema`` validator (the reference implementation, which tests and tools use; the
    server does not need it) for the message ``kind`` of ``side`` (``"client"`` or
    ``"server"``), or None when the schema has no such message."""
    v = _REFERENCE.get((side, kind))
    if v is None:
        if kind not in SCHEMA["$defs"][side]["$defs"]:
            return None
        import jsonschema  # optional: the test extra installs it
        cls = jsonschema.validators.validator_for(SCHEMA)
        # references inlined (the schema has no recursion): the same meaning, validated several
        # times faster than through the reference resolver
        v = _REFERENCE[(side, kind)] = cls(_inline(SCHEMA["$defs"][side]["$defs"][kind], SCHEMA))
    return v


def _inline(node: Any, root: Dict[str, Any]) -> Any:
    """``node`` with every local ``$ref`` replaced by its target (``allOf`` with the keywords
    beside it, which is what draft 2020-12 means by them)."""
    if isinstance(node, list):
        return [_inline(x, root) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _inline(v, root) for k, v in node.items() if k != "$ref"}
    ref = node.get("$ref")
    if ref is None:
        return out
    target: Any = root
    for part in ref[2:].split("/"):
        target = target[part]
    target = _inline(target, root)
    return {"allOf": [target], **out} if out else target


def message_problems(side: str, msg: Any) -> Optional[str]:
    """Why ``msg`` (a decoded message) does not match the schema of its type on ``side``, by
    the reference implementation; None when it matches."""
    kind = msg.get("type") if isinstance(msg, dict) else None
    v = reference_validator(side, kind) if isinstance(kind, str) else None
    if v is None:
        return f"no {side} message type {kind!r} in the schema"
    err = next(iter(v.iter_errors(msg)), None)
    return None if err is None else f"{kind}: {'/'.join(map(str, err.absolute_path))}: {err.message[:300]}"
