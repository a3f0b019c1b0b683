"""The table server's JSON protocol, version 2 (docs/protocol.md): message types, limits, the
checks every client message passes before it reaches a table, and ``apply_update``, which
rebuilds a seat's observation from the snapshot and the deltas the server pushes.

Every frame is one JSON object with a ``"type"``. A message that fails these checks gets an
``error`` reply naming what was wrong; the connection and its tables carry on.
"""
from __future__ import annotations

import json
import time
from typing import Any, Dict, List, Optional, Tuple

from .schema import CLIENT, FieldError, client_validators

__all__ = ["PROTOCOL_VERSION", "VERSIONS", "CLIENT_TYPES", "ProtocolError", "RateLimiter", "parse", "error",
           "refusal", "dumps", "apply_update", "SeatView"]

PROTOCOL_VERSION = 2
VERSIONS = (1, 2)  # what a client may ask for in hello: 1 gets a whole observation after every event

# client message type -> its JSON Schema (protocol.schema.json): the types a client may send
CLIENT_TYPES: Dict[str, Dict[str, Any]] = CLIENT
_VALIDATORS = client_validators()
_TYPE_LIST = ", ".join(sorted(CLIENT_TYPES))


class ProtocolError(ValueError):
    """A client message the server refuses; ``code`` is the ``error`` reply's code, ``ref``
    the type of the message refused (None when the frame was not read as a client message)."""

    def __init__(self, code: str, message: str, ref: Optional[str] = None) -> None:
        super().__init__(message)
        self.code = code
        self.ref = ref


def _short(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[:n] + "…"


class _BadJson(ValueError):
    pass


def _object(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    d = dict(pairs)
    if len(d) != len(pairs):  # RFC 8259 leaves duplicate names to the reader: this one refuses them
        seen: set = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise _BadJson(f"duplicate key {_short(dup)!r}: a message names each field once")
    return d


def _constant(name: str) -> Any:
    raise _BadJson(f"{name} is not a JSON value (RFC 8259 has no NaN or Infinity)")


# strict RFC 8259: no NaN / Infinity, no duplicate keys (the standard module allows both)
_DECODER = json.JSONDecoder(object_pairs_hook=_object, parse_constant=_constant)


def parse(frame: Any, max_bytes: int) -> Dict[str, Any]:
    """One client frame as a checked message, or ``ProtocolError`` (codes ``too_large``,
    ``malformed``, ``unknown_type``, ``bad_field``). The checks are the client part of
    protocol.schema.json (ddz.server.schema); integer fields come back as ``int``."""
    if isinstance(frame, bytes):
        raise ProtocolError("malformed", "frames must be text (JSON), not binary")
    if len(frame) > max_bytes:
        raise ProtocolError("too_large", f"message of {len(frame)} characters exceeds the limit of {max_bytes}")
    if frame.startswith("\ufeff"):
        raise ProtocolError("malformed", "a frame must not start with a byte order mark (U+FEFF)")
    try:
        msg = _DECODER.decode(frame)
    except _BadJson as e:
        raise ProtocolError("malformed", str(e)) from None
    except (ValueError, RecursionError):
        raise ProtocolError("malformed", f"not JSON: {_short(frame)!r}") from None
    if not isinstance(msg, dict):
        raise ProtocolError("malformed", "a message must be a JSON object with a \"type\"")
    kind = msg.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("malformed", "a message must have a string \"type\"")
    validate = _VALIDATORS.get(kind)
    if validate is None:
        raise ProtocolError("unknown_type", f"unknown message type {_short(kind)!r}: use one of {_TYPE_LIST}")
    try:
        return validate(msg)
    except FieldError as e:
        raise ProtocolError("bad_field", str(e), kind) from None


class RateLimiter:
    """A token bucket: ``rate`` messages a second on average, bursts of ``burst``."""

    __slots__ = ("rate", "burst", "_tokens", "_t")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._t = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._t) * self.rate)
        self._t = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))  # made once: json.dumps with options makes one a call

try:  # optional (the server extra installs it): the same text about seven times faster, and JSON was
    import orjson  # 7 % of the server's samples at a thousand tables
except ImportError:  # pragma: no cover - the standard library's encoder
    orjson = None  # type: ignore[assignment]


def dumps(msg: Dict[str, Any]) -> str:
    """A message as compact JSON text (non-ASCII as is; int keys as strings, as ``json``)."""
    if orjson is not None:
        return orjson.dumps(msg, option=orjson.OPT_NON_STR_KEYS).decode()
    return _ENCODER.encode(msg)


def error(code: str, message: str, ref: Optional[str] = None) -> Dict[str, Any]:
    """An ``error`` message; ``ref``, when given, is the type of the message it answers (an
    error that answers no message, such as ``replaced``, has none: see ``refusal``)."""
    if not message.isascii():  # client text quoted in a message may hold what UTF-8 cannot carry
        message = message.encode("utf-8", "backslashreplace").decode("utf-8")
    out: Dict[str, Any] = {"type": "error", "code": code, "message": message}
    if ref is not None:
        out["ref"] = ref
    return out


def refusal(e: ProtocolError) -> Dict[str, Any]:
    """The ``error`` that answers a refused frame: ``ref`` is always present, the type of the
    message refused, or null when the frame was not read as a client message."""
    out = error(e.code, str(e))
    out["ref"] = e.ref
    return out


def apply_update(view: Optional[Dict[str, Any]], msg: Dict[str, Any]) -> Dict[str, Any]:
    """The seat's observation after ``msg``: an ``obs`` message's ``obs`` (a snapshot), or
    ``view`` (the observation so far) with a ``delta`` applied: the history cut to ``from``
    entries and extended by ``events``, each field of ``set`` replaced. ``view`` is changed
    in place (its history list too) and returned; a delta that does not fit the view raises
    ``ProtocolError`` (code ``bad_delta``): the client should ``resume`` to get a snapshot."""
    if msg["type"] == "obs":
        view = dict(msg["obs"])
        view["history"] = list(view["history"])
        return view
    if msg["type"] != "delta":
        raise ProtocolError("bad_delta", f"a {_short(str(msg['type']))!r} message is not an observation update")
    if view is None:
        raise ProtocolError("bad_delta", f"seq {msg['seq']}: a delta with no snapshot before it")
    hist = view["history"]
    start = msg["from"]
    if not 0 <= start <= len(hist):
        raise ProtocolError("bad_delta", f"seq {msg['seq']}: a delta from history entry {start} "
                            f"on a view of {len(hist)} entries")
    del hist[start:]
    hist.extend(msg["events"])
    view.update(msg["set"])
    return view


class SeatView:
    """A client's side of one seat: its observation rebuilt from the server's updates
    (``update``: ``apply_update``), and whether the seat has a decision to answer now
    (``to_decide``). A client calls ``acted()`` when it sends an action and ``refused()``
    when an ``illegal`` reply comes.

    Why more than "my turn, and the history grew": an event may add a history entry and leave
    the same seat to act on the same decision (another seat's ``ESCAPE`` in CLASSIC3, where a
    bot plays on), while the seat's action is on the wire. Answering that view would answer
    one decision twice, the second time on a view behind the table, and the server would judge
    the second action against whatever decision the seat faces when it arrives (a soak
    run: 13 such refusals). So after ``acted`` the seat has nothing to decide until its action
    is answered: the history shows an action of the seat's own after that point (its action
    applied, or the clock's default for it), or the action was refused."""

    __slots__ = ("seat", "obs", "seq", "_sent_at")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.obs: Optional[Dict[str, Any]] = None
        self.seq = 0
        self._sent_at: Optional[int] = None  # the history length when the seat's action was sent, until answered

    def update(self, msg: Dict[str, Any]) -> Dict[str, Any]:
        """Applies an ``obs`` or ``delta`` message (``apply_update``); returns the view."""
        self.obs = apply_update(self.obs, msg)
        self.seq = msg["seq"]
        at = self._sent_at
        if at is not None:
            seat = self.seat
            if any(s == seat and t != "ESCAPE" for s, t in self.obs["history"][at:]):
                self._sent_at = None
        return self.obs

    @property
    def waiting(self) -> bool:
        """An action was sent and is not answered yet."""
        return self._sent_at is not None

    def to_decide(self) -> bool:
        """The seat is to act, has legal actions, is not played by a bot, and has no action
        waiting for its answer."""
        o = self.obs
        return (self._sent_at is None and o is not None and o["current_seat"] == self.seat
                and bool(o["legal_actions"]) and self.seat not in o["bots"])

    def acted(self) -> None:
        """The client sent an action for the decision its view shows."""
        assert self.obs is not None
        self._sent_at = len(self.obs["history"])

    def refused(self) -> None:
        """The action sent was refused (an ``illegal`` reply, or an ``error`` such as
        ``rate_limited``): the view, brought up to date by the updates before the reply, says
        what to decide now."""
        self._sent_at = None
