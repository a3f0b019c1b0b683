"""Hidden-hand sampling: ``ddz.sample_deals(observation, n, seed)``.

From what one seat knows (``Game.observation(seat)``: its hand, the shown hands, the kitty
once revealed, every public play with its physical cards, the cards left per seat) it deals
the unseen cards to the seats it cannot see, uniformly over the physical cards: every
assignment of the unseen cards to the hidden seats and to the cards out of play (the kitty
before it is taken, TWOP's 11 set-aside cards) is equally likely. Kitty cards the landlord
has not played are known to be in the landlord's hand. In BENGBU4 the deals are conditioned
on no seat having been dealt 天炸 or 天尊 (docs/rules.md §8: the hand would have ended at the
deal). The sampling runs in C++ (seeded, GIL released).
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Sequence, Set

import numpy as np
import numpy.typing as npt

from .. import _core
from ..core.args import int_arg
from ..core.cards import card_name, card_rank, deck_ids, parse_card_names
from ..core.errors import ArgumentError, shown
from ..core.variants import VARIANT

__all__ = ["SampleError", "SampleTypeError", "sample_deals"]


class SampleError(ArgumentError):
    """An observation ``ddz.sample_deals`` cannot sample from; the message names what is wrong."""


class SampleTypeError(SampleError, TypeError):
    """An argument of ``ddz.sample_deals`` of the wrong Python type."""


def _word(ids: Set[int]) -> int:
    w = 0
    for c in ids:
        w += 1 << (4 * card_rank(c))
    return w


MAX_DEALS = 1_000_000
"""The most deals one ``sample_deals`` call returns."""

_BY_SEATS = {v.players: v for v in VARIANT.values()}


def _ids(names: Any, decks: int, what: str) -> Set[int]:
    if isinstance(names, (str, bytes)) or not isinstance(names, Sequence):
        raise SampleTypeError(f"observation {what} must be a list of card names, not {type(names).__name__}")
    try:
        return set(parse_card_names(list(names), decks))
    except (ValueError, TypeError) as e:  # the parser's CardError, or its type twin
        raise (SampleTypeError if isinstance(e, TypeError) else SampleError)(f"observation {what}: {e}") from None


def _seat_of(v: Any, seats: int, what: str) -> int:
    return int_arg(v, f"observation {what}", 0, seats - 1, error=SampleError, type_error=SampleTypeError)


def sample_deals(observation: Mapping[str, Any], n: int, seed: int) -> npt.NDArray[np.uint64]:
    """``n`` deals consistent with ``observation``: a uint64 array of shape (n, seats), row
    i the current hands of all seats as rank-count words (``ddz.Cards.from_word``); the
    observing seat's column is its own hand, a shown hand's column is that hand. Rows
    depend only on (observation, n, seed), never on the cards the seat cannot see.

    The observation is checked whole first (it may come from a client): seats in range (numpy
    integers taken, bools refused), each physical card in one place at most (the own hand,
    the shown hands, the plays), the kitty of the variant's size and with the landlord, and
    the counts adding up to the deck; ``n`` is 0..1,000,000, ``seed`` 0..2**64-1. What does
    not fit raises ``SampleError`` (``SampleTypeError`` for a wrong type).

    >>> import ddz
    >>> g = ddz.Game(ddz.Rules.classic(), seed=1)
    >>> ddz.sample_deals(g.observation(0), 2, seed=7).shape
    (2, 3)
    """
    if not isinstance(observation, Mapping):
        raise SampleTypeError(f"observation must be the dict of Game.observation(seat), not {type(observation).__name__}")
    n = int_arg(n, "n", 0, MAX_DEALS, error=SampleError, type_error=SampleTypeError)
    seed = int_arg(seed, "seed", 0, 2**64 - 1, error=SampleError, type_error=SampleTypeError)
    try:
        seat_v = observation["seat"]
        left_v = observation["cards_left"]
        own_names = observation["cards"]
        shown_v = observation["shown"]
        kitty_names = observation["kitty"]
        landlord_v = observation["landlord"]
        history_v = observation["history"]
    except KeyError as e:
        raise SampleError(f"observation has no {shown(e.args[0])}: pass Game.observation(seat)") from None
    if isinstance(left_v, (str, bytes)) or not isinstance(left_v, Sequence):
        raise SampleTypeError(f"observation cards_left must be a list of ints, not {type(left_v).__name__}")
    seats = len(left_v)
    if seats not in _BY_SEATS:
        raise SampleError(f"observation has {seats} seats; a variant has 2, 3 or 4")
    layout = _BY_SEATS[seats]
    decks = layout.decks
    deck_size = 54 * decks
    left = [int_arg(v, f"observation cards_left[{i}]", 0, layout.max_hand, error=SampleError,
                    type_error=SampleTypeError) for i, v in enumerate(left_v)]
    seat = _seat_of(seat_v, seats, "seat")
    landlord = None if landlord_v is None else _seat_of(landlord_v, seats, "landlord")
    own = _ids(own_names, decks, "cards")
    if observation.get("phase") == "PRE_DEAL" or (not own and sum(left) == 0):
        raise SampleError("no cards are dealt yet: nothing to sample")
    if not isinstance(shown_v, Mapping):
        raise SampleTypeError(f"observation shown must be a dict of seat: cards, not {type(shown_v).__name__}")
    if isinstance(history_v, (str, bytes)) or not isinstance(history_v, Sequence):
        raise SampleTypeError(f"observation history must be a list of [seat, action], not {type(history_v).__name__}")

    shown_ids: Dict[int, Set[int]] = {}
    for key, v in shown_v.items():
        k = _seat_of(int(key) if isinstance(key, str) and key.isdecimal() and len(key) < 3 else key, seats,
                     f"shown key {shown(key)}")
        ids = _ids(v, decks, f"shown[{k}]")
        if k in shown_ids:
            raise SampleError(f"observation shown names seat {k} twice")
        if k == seat:
            if ids != own:
                raise SampleError(f"observation shown[{k}] (the observing seat) differs from its cards")
            continue
        shown_ids[k] = ids
    # Plays of the current deal only: a REDEAL (seat None) starts the history afresh.
    entries = []
    for i, entry in enumerate(history_v):
        if isinstance(entry, (str, bytes)) or not isinstance(entry, Sequence):
            raise SampleTypeError(f"observation history[{i}] must be a [seat, action] pair, not "
                                  f"{type(entry).__name__}")
        if len(entry) != 2:
            raise SampleError(f"observation history[{i}] must be a [seat, action] pair, not {len(entry)} items")
        who, token = entry
        if not isinstance(token, str):
            raise SampleTypeError(f"observation history[{i}] action must be a str, not {type(token).__name__}")
        entries.append((None if who is None else _seat_of(who, seats, f"history[{i}] seat"), token))
    start = max((i + 1 for i, (s, _) in enumerate(entries) if s is None), default=0)
    played: List[Set[int]] = [set() for _ in range(seats)]
    n_played = 0
    for i, (s, token) in enumerate(entries[start:], start):
        if s is not None and token.startswith("PLAY "):
            ids = _ids(token[5:].split(), decks, f"history[{i}]")
            n_played += len(ids)
            played[s] |= ids

    # Every physical card is in one place: a hand, a play, or out of play.
    places = [("cards", own)] + [(f"shown[{k}]", v) for k, v in sorted(shown_ids.items())] + \
             [(f"the plays of seat {s}", played[s]) for s in range(seats)]
    where: Dict[int, str] = {}
    for what, ids in places:
        for c in ids:
            if c in where:
                raise SampleError(f"card {card_name(c, decks)} is in both {where[c]} and {what}")
            where[c] = what
    if n_played != sum(len(p) for p in played):
        raise SampleError("the history plays a card twice")
    all_played = set().union(*played)
    kitty: Set[int] = set()
    if kitty_names is not None:
        kitty = _ids(kitty_names, decks, "kitty")
        if landlord is None:
            raise SampleError("the observation shows a kitty but no landlord took it")
        if len(kitty) != layout.kitty:
            raise SampleError(f"the kitty has {len(kitty)} cards; this variant's has {layout.kitty}")
        for c in kitty:  # the landlord took the kitty: its cards are the landlord's (held or played)
            place = where.get(c)
            if place is not None and place not in (f"the plays of seat {landlord}",
                                                   "cards" if landlord == seat else f"shown[{landlord}]"):
                raise SampleError(f"kitty card {card_name(c, decks)} is in {place}, not with the landlord "
                                  f"(seat {landlord})")
        if landlord == seat or landlord in shown_ids:
            held = own if landlord == seat else shown_ids[landlord]
            missing = kitty - held - played[landlord]
            if missing:
                raise SampleError(f"kitty card {card_name(min(missing), decks)} is neither in the landlord's "
                                  f"hand nor among its plays")
    # The counts add up to the deck: cards left + cards played + cards out of play (the set-aside
    # cards, and the kitty until the landlord takes it).
    out_of_play = layout.aside + (0 if kitty_names is not None else layout.kitty)
    if sum(left) + n_played + out_of_play != deck_size:
        raise SampleError(f"the cards do not add up to the deck: {sum(left)} left + {n_played} played + "
                          f"{out_of_play} out of play != {deck_size}")

    hidden = [s != seat and s not in shown_ids for s in range(seats)]
    known_ids: List[Set[int]] = [set() for _ in range(seats)]
    known_ids[seat] = own
    for s, ids in shown_ids.items():
        known_ids[s] = ids
    if landlord is not None and hidden[landlord] and kitty:
        known_ids[landlord] = kitty - all_played  # the kitty cards it has not played are still in its hand
    seen = set().union(*known_ids) | all_played
    pool = set(deck_ids(decks)) - seen
    draw = [left[s] - len(known_ids[s]) if hidden[s] else 0 for s in range(seats)]
    for s in range(seats):
        if not hidden[s] and len(known_ids[s]) != left[s]:
            raise SampleError(f"seat {s} holds {len(known_ids[s])} known cards but cards_left says {left[s]}")
        if draw[s] < 0:
            raise SampleError(f"seat {s} has {left[s]} cards left but {len(known_ids[s])} are known to be in its hand")
    if sum(draw) > len(pool):  # ruled out by the checks above; kept as the core's precondition
        raise SampleError(f"the hidden seats hold {sum(draw)} cards but only {len(pool)} are unseen")
    # The hand each hidden seat was dealt = the drawn cards + what it played (less the kitty).
    extra = [_word(played[s] - (kitty if s == landlord else set())) if hidden[s] else 0 for s in range(seats)]
    try:
        return _core._sample_deals(_word(pool), hidden, [_word(k) for k in known_ids], draw, extra, seats == 4,
                                   int(n), int(seed))
    except ValueError as e:
        raise SampleError(str(e)) from None
