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

from typing import Any, Dict, List, Mapping, Set

import numpy as np
import numpy.typing as npt

from .. import _core
from ..core.cards import card_rank, deck_ids, parse_card_names
from ..core.errors import ArgumentError

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


def _ids(names: Any, decks: int, what: str) -> Set[int]:
    try:
        return set(parse_card_names(list(names), decks))
    except (ValueError, TypeError) as e:
        raise SampleError(f"observation {what}: {e}") from None


def sample_deals(observation: Mapping[str, Any], n: int, seed: int) -> npt.NDArray[np.uint64]:
    """``n`` deals consistent with ``observation``: a uint64 array of shape (n, seats), row
    i the current hands of all seats as rank-count words (``ddz.Cards.from_word``); the
    observing seat's column is its own hand, a shown hand's column is that hand. Rows
    depend only on (observation, n, seed), never on the cards the seat cannot see.

    >>> import ddz
    >>> g = ddz.Game(ddz.Rules.classic(), seed=1)
    >>> ddz.sample_deals(g.observation(0), 2, seed=7).shape
    (2, 3)
    """
    if not isinstance(observation, Mapping):
        raise SampleTypeError(f"observation must be the dict of Game.observation(seat), not {type(observation).__name__}")
    for name, v in (("n", n), ("seed", seed)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise SampleTypeError(f"{name} must be an int, not {type(v).__name__}")
    if n < 0:
        raise SampleError(f"n must be >= 0, not {n}")
    if not 0 <= seed < 2**64:
        raise SampleError(f"seed must be in 0..2**64-1, not {seed}")
    try:
        seat = observation["seat"]
        left: List[int] = list(observation["cards_left"])
        own_names = observation["cards"]
        shown: Dict[int, Any] = dict(observation["shown"])
        kitty_names = observation["kitty"]
        landlord = observation["landlord"]
        history = list(observation["history"])
    except KeyError as e:
        raise SampleError(f"observation has no {e.args[0]!r}: pass Game.observation(seat)") from None
    seats = len(left)
    if seats not in (2, 3, 4):
        raise SampleError(f"observation has {seats} seats; a variant has 2, 3 or 4")
    if observation.get("phase") == "PRE_DEAL" or (not own_names and sum(left) == 0):
        raise SampleError("no cards are dealt yet: nothing to sample")
    decks = 2 if seats == 4 else 1

    own = _ids(own_names, decks, "cards")
    shown_ids = {int(s): _ids(v, decks, f"shown[{s}]") for s, v in shown.items() if int(s) != seat}
    # Plays of the current deal only: a REDEAL (seat None) starts the history afresh.
    start = max((i + 1 for i, (s, _) in enumerate(history) if s is None), default=0)
    played: List[Set[int]] = [set() for _ in range(seats)]
    for s, token in history[start:]:
        if isinstance(token, str) and token.startswith("PLAY "):
            played[s] |= _ids(token[5:].split(), decks, "history")
    all_played = set().union(*played)
    kitty = _ids(kitty_names, decks, "kitty") if kitty_names is not None else set()

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
    if sum(draw) > len(pool):
        raise SampleError(f"the hidden seats hold {sum(draw)} cards but only {len(pool)} are unseen")
    # The hand each hidden seat was dealt = the drawn cards + what it played (less the kitty).
    extra = [_word(played[s] - (kitty if s == landlord else set())) if hidden[s] else 0 for s in range(seats)]
    try:
        return _core._sample_deals(_word(pool), hidden, [_word(k) for k in known_ids], draw, extra, seats == 4,
                                   int(n), int(seed))
    except ValueError as e:
        raise SampleError(str(e)) from None
