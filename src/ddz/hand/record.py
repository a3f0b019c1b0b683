"""Reading ``ddz-game`` v1 records, and the ``ddz-view`` v1 format of what one seat saw.

A ``ddz-game`` record (``Game.to_json()``) holds every deal of the hand, hidden cards
included: it is the server's record, for storage and replay, and must never be sent to a
player while the hand is running. What a seat (or a spectator) may be sent is a
``ddz-view`` (``Game.view_json(seat)``): the public actions plus what that seat saw.

Reading a record checks it whole, before and while replaying it: its structure and types,
each deal (the right number of cards in each hand, the kitty and the set-aside part, every
card of the deck exactly once), every action against the engine, that the replay used
exactly the recorded deals, and that the replayed result equals the recorded one. Anything
else raises ``RecordError`` naming what was wrong (``RecordTypeError`` when the record is
not a str).
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from ..core.rules import Rules, option_names
from ..core.variants import VARIANT, VARIANTS
from ..core.cards import card_id, card_name, deck_ids
from ..core.errors import DdzError, RecordError, RecordTypeError, shown
if TYPE_CHECKING:
    from .game import Game

#: The class the reader builds hands of: ``ddz.Game``, set by the package (``ddz/hand/__init__.py``)
#: once both modules are loaded, so that the game module, which writes records, and this one,
#: which reads them into games, do not import each other.
GAME: Any = None

RECORD_FORMAT = "ddz-game"
RECORD_VERSION = 1

__all__ = ["GAME_FORMAT", "VIEW_FORMAT", "VERSION", "read_game", "read_view", "view_record"]

GAME_FORMAT = RECORD_FORMAT
VIEW_FORMAT = "ddz-view"
VERSION = RECORD_VERSION  # both formats are at version 1
_MAX_SEED = 2**64


def _load(text: Any, fmt: str) -> Dict[str, Any]:
    if not isinstance(text, str):
        raise RecordTypeError(f"a {fmt} record is a str of JSON, not {type(text).__name__}")
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"not a {fmt} record: {e}") from None
    except RecursionError:
        raise RecordError(f"not a {fmt} record: nested too deeply") from None
    if not isinstance(d, dict) or d.get("format") != fmt:
        raise RecordError(f"not a {fmt} record (its \"format\" must be {shown(fmt)})")
    v = d.get("version")
    if type(v) is not int or v != VERSION:
        raise RecordError(f"unsupported {fmt} version {_short(v)} (this ddz reads version {VERSION}, an integer)")
    return d


def _short(v: Any, n: int = 60) -> str:
    return shown(v, n)


def _field(d: Dict[str, Any], key: str, kind: Any, what: str) -> Any:
    if key not in d:
        raise RecordError(f"{what} has no {shown(key)}")
    v = d[key]
    if kind is int:
        ok = type(v) is int
    else:
        ok = isinstance(v, kind) and not isinstance(v, bool)
    if not ok:
        raise RecordError(f"{what}: {shown(key)} must be {getattr(kind, '__name__', kind)}, not {_short(v)}")
    return v


def _int(d: Dict[str, Any], key: str, lo: int, hi: int, what: str) -> int:
    v = _field(d, key, int, what)
    if not lo <= v <= hi:
        raise RecordError(f"{what}: {shown(key)} must be in {lo}..{hi}, not {_short(v)}")
    return v


def _rules(d: Dict[str, Any]) -> Rules:
    spec = _field(d, "rules", dict, "the record")
    variant = _field(spec, "variant", str, "the record's rules")
    if variant not in VARIANTS:
        raise RecordError(f"the record's rules: unknown variant {_short(variant)}")
    options = _field(spec, "options", dict, "the record's rules")
    known = option_names(variant)
    for key in options:  # only real options: not Rules' own parameters (variant, the preset's name)
        if not isinstance(key, str) or key not in known:
            raise RecordError(f"the record's rules: {_short(key)} is not an option of variant {variant} "
                              f"(known: {', '.join(sorted(known))})")
    try:
        return Rules(variant, **options)
    except DdzError as e:
        raise RecordError(f"the record's rules: {e}") from None


def _cards(names: Any, decks: int, what: str) -> List[int]:
    if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
        raise RecordError(f"{what} must be a list of card names")
    try:
        return [card_id(x, decks) for x in names]
    except DdzError as e:
        raise RecordError(f"{what}: {e}") from None


def _deal(dl: Any, i: int, rules: Rules) -> Dict[str, Any]:
    what = f"deal {i}"
    if not isinstance(dl, dict):
        raise RecordError(f"{what} must be an object")
    v, n, decks = rules.variant, VARIANT[rules.variant].players, rules.decks
    hands = _field(dl, "hands", list, what)
    if len(hands) != n:
        raise RecordError(f"{what} has {len(hands)} hands; {v} deals {n}")
    parts = [_cards(h, decks, f"{what}, hand of seat {s}") for s, h in enumerate(hands)]
    kitty = _cards(dl.get("kitty"), decks, f"{what}, kitty")
    aside = _cards(dl.get("aside", []), decks, f"{what}, set-aside cards")
    for s, h in enumerate(parts):
        if len(h) != VARIANT[v].hand:
            raise RecordError(f"{what}: seat {s} holds {len(h)} cards; {v} deals {VARIANT[v].hand}")
    if len(kitty) != VARIANT[v].kitty:
        raise RecordError(f"{what}: the kitty holds {len(kitty)} cards; {v} has {VARIANT[v].kitty}")
    if len(aside) != VARIANT[v].aside:
        raise RecordError(f"{what}: {len(aside)} cards set aside; {v} sets {VARIANT[v].aside} aside")
    every = sorted(c for p in parts + [kitty, aside] for c in p)
    if every != deck_ids(decks):
        raise RecordError(f"{what} does not hold every card of the deck exactly once")
    first_bidder = _int(dl, "first_bidder", 0, n - 1, what)
    ftd = dl.get("first_to_decide")
    if VARIANT[v].coin_toss:
        ftd = _int(dl, "first_to_decide", 0, 1, what)
    elif ftd is not None:
        raise RecordError(f"{what}: first_to_decide exists only in two_player records")
    return {"hands": parts, "kitty": kitty, "aside": aside, "first_bidder": first_bidder, "first_to_decide": ftd}


# GameResult fields added after records of version 1 were first written: an older record
# lacks them and still replays (they are derived from the rules it holds).
_LATER_RESULT_FIELDS = {"terms"}


def _normal(x: Any) -> Any:
    """A value as JSON gives it back (dict keys become str, tuples lists)."""
    return json.loads(json.dumps(x, sort_keys=True))


def read_game(text: Any) -> "Game":
    """Rebuilds a game from its ``ddz-game`` record by replaying every action on the recorded
    deals; see the module docstring for what is checked."""
    d = _load(text, GAME_FORMAT)
    rules = _rules(d)
    n = VARIANT[rules.variant].players
    seed = _int(d, "seed", 0, _MAX_SEED - 1, "the record")
    base = _int(d, "base", 1, 10**12, "the record") if "base" in d else 1
    imult = _int(d, "initial_multiplier", 1, 10**12, "the record") if "initial_multiplier" in d else 1
    raw_deals = _field(d, "deals", list, "the record")
    if not raw_deals:
        raise RecordError("the record holds no deal")
    deals = [_deal(dl, i, rules) for i, dl in enumerate(raw_deals)]
    actions = _field(d, "actions", list, "the record")
    if "result" not in d:
        raise RecordError("the record has no 'result' (null while the hand is running)")
    try:
        g = GAME(rules, seed=seed, base=base, initial_multiplier=imult, _deals=deals)
    except DdzError as e:
        raise RecordError(f"the record's first deal: {e}") from None
    pending_timeout = False
    for i, a in enumerate(actions):
        what = f"record action {i}"
        if not isinstance(a, dict):
            raise RecordError(f"{what} must be an object with 'seat' and 'action'")
        seat = _int(a, "seat", 0, n - 1, what)
        token = _field(a, "action", str, what)
        try:
            if token == "ESCAPE":
                g.escape(seat)
                continue
            if seat != g.current_seat:
                raise RecordError(f"{what} is by seat {seat}, but {_to_act(g)}")
            if token == "TIMEOUT":
                if pending_timeout:
                    raise RecordError(f"{what}: two TIMEOUTs in a row")
                expected = g.timeout_action() if rules.options["timeout_policy"] == "auto_minimal" else None
                g._note_timeout()
                pending_timeout = True
                continue
            if pending_timeout and expected is not None and token != expected:
                raise RecordError(f"{what} follows a TIMEOUT, so it must be the default action {shown(expected)}, "
                                  f"not {_short(token)}")
            pending_timeout = False
            g.apply(token)
        except RecordError:
            raise
        except DdzError as e:
            raise RecordError(f"{what} ({_short(token)}) does not replay: {e}") from None
        if g._core.deals > len(deals):  # the count: g._deals lists every deal (quadratic in a loop)
            raise RecordError(f"{what} needs a deal the record does not hold (it holds {len(deals)})")
    if pending_timeout:
        raise RecordError("the record ends on a TIMEOUT without its default action")
    if g._core.deals != len(deals):
        raise RecordError(f"the record holds {len(deals)} deals but its actions use {g._core.deals}")
    replayed = _normal(g.result.to_dict()) if g.result else None
    if replayed is not None and isinstance(d["result"], dict):
        for key in _LATER_RESULT_FIELDS - set(d["result"]):  # a record written before the field existed
            del replayed[key]
    if _normal(d["result"]) != replayed:
        raise RecordError("the recorded result differs from the replayed one "
                          f"(recorded {_short(d['result'], 120)}, replayed {_short(replayed, 120)})")
    return g


def _to_act(g: "Game") -> str:
    return "the hand is over" if g.is_over else f"seat {g.current_seat} is to act"


# ---- ddz-view: what one seat (or a spectator) saw -----------------------------------------

def view_record(g: "Game", seat: Optional[int] = None) -> Dict[str, Any]:
    """The ``ddz-view`` v1 record of ``g`` for ``seat`` (None: a spectator, public only)."""
    if seat is not None:
        seat = g._check_seat(seat)  # a numpy integer is a seat too; the record holds an int
    deals = []
    last = len(g._deals) - 1
    for i, dl in enumerate(g._deals):
        current = i == last
        dealt = g._dealt() if current else True
        own = None
        if seat is not None and dealt:
            own = [card_name(c, g.rules.decks) for c in sorted(dl["hands"][seat])]
        deals.append({"hand": own,
                      "first_bidder": dl["first_bidder"] if dealt else None,
                      "first_to_decide": dl["first_to_decide"]})
    return {"format": VIEW_FORMAT, "version": VERSION, "seat": seat,
            "rules": {"variant": g.rules.variant, "options": dict(g.rules.options)},
            "base": g._base, "initial_multiplier": g._initial_multiplier,
            "deals": deals, "actions": g._action_log(),
            "observation": g.observation(seat),
            "result": g.result.to_dict() if g.result else None}


def read_view(text: Any) -> Dict[str, Any]:
    """Reads a ``ddz-view`` v1 record (checked for its structure; it holds no hidden card,
    so it cannot be replayed into a Game) and returns it as a dict."""
    d = _load(text, VIEW_FORMAT)
    rules = _rules(d)
    n = VARIANT[rules.variant].players
    seat = d.get("seat")
    if seat is not None and (type(seat) is not int or not 0 <= seat < n):
        raise RecordError(f"the view: 'seat' must be a seat 0..{n - 1} or null, not {_short(seat)}")
    deals = _field(d, "deals", list, "the view")
    for i, dl in enumerate(deals):
        if not isinstance(dl, dict):
            raise RecordError(f"the view: deal {i} must be an object")
        if dl.get("hand") is not None:
            _cards(dl["hand"], rules.decks, f"the view: deal {i}, own hand")
    for i, a in enumerate(_field(d, "actions", list, "the view")):
        if not isinstance(a, dict):
            raise RecordError(f"the view: action {i} must be an object")
        _int(a, "seat", 0, n - 1, f"the view: action {i}")
        _field(a, "action", str, f"the view: action {i}")
    _field(d, "observation", dict, "the view")
    if d.get("result") is not None and not isinstance(d["result"], dict):
        raise RecordError("the view: 'result' must be an object or null")
    return d
