"""Checks of what a server sent, against the hand's stored ``ddz-game`` record: used by the
tests and by benchmarks/server_load.py.

``observations(record)`` replays the record and gives, after each step, what the engine says
each seat (and a spectator) may see. ``check_messages`` rebuilds, from the snapshots and
deltas a client received (``protocol.apply_update``), the observation it holds after each
of them and compares it with that (so a message showing one card more than
``Game.observation`` allows is caught: a delta field the engine does not show makes the
rebuilt view differ), and scans the rest of every message for card names.
"""
from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Optional, Tuple

from ..core.variants import VARIANT
from ..hand.game import Game
from ..core.cards import card_name, deck_ids
from ..hand.record import read_game
from .protocol import ProtocolError, apply_update

__all__ = ["observations", "check_messages", "replays"]

_IGNORED = ("bots",)  # which seats a bot plays changes with connections, not with the hand
_OPAQUE = ("seat_token", "token", "table", "record", "players", "name", "message", "action", "hand_id")
_VIEW = ("obs", "set", "events")  # the parts of an update that make the view, compared whole


def _strip(obs: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in obs.items() if k not in _IGNORED}


def _normal(x: Any) -> Any:
    return json.loads(json.dumps(x))  # int keys as strings, tuples as lists: as received


def observations(record: str) -> Dict[Tuple[Optional[int], int], Dict[str, Any]]:
    """``(seat, history length) -> observation`` at every step of the recorded hand
    (``seat=None``: the public view)."""
    d = json.loads(record)
    final = read_game(record)  # checks the whole record first
    g = final.restart()  # the same rules, seed, stakes and deals, before any action
    seats: List[Optional[int]] = [None, *range(final.num_players)]
    out: Dict[Tuple[Optional[int], int], Dict[str, Any]] = {}

    def snap() -> None:
        for s in seats:
            o = g.observation(s)
            out[(s, len(o["history"]))] = _normal(_strip(o))

    snap()
    actions = d["actions"]
    i = 0
    while i < len(actions):
        a = actions[i]
        if a["action"] == "ESCAPE":
            g.escape(a["seat"])
        elif a["action"] == "TIMEOUT":
            g.timeout()  # TIMEOUT and the default action after it (docs/rules.md §9), as the server does
            i += 1
        else:
            g.apply(a["action"], seat=a["seat"])
        i += 1
        snap()
    return out


def _strings(x: Any, skip: bool = False) -> Iterable[str]:
    if isinstance(x, str):
        if not skip:
            yield x
    elif isinstance(x, dict):
        for k, v in x.items():
            yield from _strings(v, skip or k in _OPAQUE)
    elif isinstance(x, list):
        for v in x:
            yield from _strings(v, skip)


def check_messages(record: str, seat: Optional[int], messages: List[Dict[str, Any]],
                   table: Optional[str] = None,
                   views: Optional[Dict[Tuple[Optional[int], int], Dict[str, Any]]] = None) -> List[str]:
    """Problems with the messages one seat (None: a spectator) received for the hand of
    ``record``, in the order received (several connections one after another are fine: a
    resumed connection starts with a snapshot or a delta from a point already seen): an
    update that does not apply, an observation rebuilt from the updates unlike the engine's
    for that seat at that point of the hand, a card name anywhere else in any message.
    ``[]`` when all is well."""
    views = views if views is not None else observations(record)
    decks = VARIANT[json.loads(record)["rules"]["variant"]].decks
    names = {card_name(c, decks) for c in deck_ids(decks)}
    problems = []
    view: Optional[Dict[str, Any]] = None
    for m in messages:
        if table is not None and m.get("table") not in (None, table):
            continue
        kind = m.get("type")
        if kind in ("obs", "delta"):
            if m.get("seat") != seat:
                problems.append(f"seq {m.get('seq')}: an update of seat {m.get('seat')}'s view sent to seat {seat}")
                continue
            try:
                view = apply_update(view, m)
            except (ProtocolError, KeyError, TypeError) as e:
                problems.append(f"seq {m.get('seq')}: the {kind} does not apply: {e}")
                view = None
                continue
            o = _normal(_strip(view))
            want = views.get((seat, len(o["history"])))
            if want is None:
                problems.append(f"seq {m['seq']}: no step of the hand has {len(o['history'])} history entries")
            elif o != want:
                diff = sorted(k for k in set(o) | set(want) if o.get(k) != want.get(k))
                problems.append(f"seq {m['seq']}: observation differs from the engine's in {diff}")
            rest = {k: v for k, v in m.items() if k not in _VIEW}
        else:
            rest = m
        leaked = sorted(set(_strings(rest)) & names)
        if leaked:
            problems.append(f"a {kind} message names cards {leaked[:5]}")
    return problems


def replays(record: str, result: Dict[str, Any]) -> bool:
    """The record replays (``ddz.record.read_game`` checks it whole) to ``result``."""
    g = read_game(record)
    return g.result is not None and _normal(g.result.to_dict()) == _normal(result)
