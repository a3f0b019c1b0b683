"""The bot protocol (``Bot``) and the bots that need no search: ``RandomBot`` and ``RuleBot``.

A bot sees only what its seat may see: ``act(game, seat)`` reads ``game.observation(seat)``
and ``game.rules``, never another seat's hidden cards, and returns one of the seat's legal
action tokens.
"""
from __future__ import annotations

import random
from typing import Any, Dict, List, Optional, Union

from .. import _core
from .._core import Cards, Kind, Move, legal_moves
from ..core.args import int_arg
from ..core.errors import ArgumentError

__all__ = ["Bot", "RandomBot", "RuleBot", "hand_strength"]


class Bot:
    """The bot interface: ``act(game, seat) -> token``."""

    def act(self, game: Any, seat: int) -> str:  # pragma: no cover - interface
        raise NotImplementedError


class RandomBot(Bot):
    """Uniformly random over the legal actions (seeded)."""

    def __init__(self, seed: Optional[int] = None) -> None:
        self._rng = random.Random(None if seed is None else int_arg(seed, "seed"))

    def reseed(self, seed: int) -> None:
        """Restarts the bot's random numbers (``ddz.evaluate`` reseeds each hand's copy)."""
        self._rng.seed(int_arg(seed, "seed"))

    def act(self, game: Any, seat: int) -> str:
        legal = game.observation(seat)["legal_actions"]
        if not legal:
            raise ArgumentError(f"seat {seat} has no decision to make now")
        return self._rng.choice(legal)


def hand_strength(hand: Union[str, Cards], decks: int = 1) -> float:
    """A rough strength of a hand for bidding, as the core's rule policy counts it (its bids and
    doubles compare it with ``call_at`` and ``double_at``): high cards, bombs and the rocket."""
    cards = hand if isinstance(hand, Cards) else Cards(hand, decks=decks)
    return float(_core._rule_hand_strength(cards.word, decks))


class RuleBot(Bot):
    """A sensible rule-based player.

    Bids and doubles on strong hands; when leading, sheds its lowest-ranked combination
    (the longest of those) and keeps bombs; when following, plays the smallest winning
    non-bomb play, bombs only an opponent close to going out, and never overtakes the other
    farmer's winning play."""

    def __init__(self, call_at: float = 7.0, double_at: float = 10.0) -> None:
        self.call_at = call_at
        self.double_at = double_at

    def act(self, game: Any, seat: int) -> str:
        obs = game.observation(seat)
        legal: List[str] = obs["legal_actions"]
        if not legal:
            raise ArgumentError(f"seat {seat} has no decision to make now")
        if obs["phase"] == "PLAY":
            return self._play(game, obs, legal)
        return self._decide(game.rules, obs, legal)

    # ---- decisions ----
    def _decide(self, rules: Any, obs: Dict[str, Any], legal: List[str]) -> str:
        """The core's rule policy (``csrc/ddz/rule_policy.cpp``, which the vector env's rule seats
        use too) on what the seat sees: its phase, its own cards and the decisions offered. It
        calls on a strong hand, robs or doubles on a very strong one, shows on a stronger one;
        BENGBU4 bids by strength and grabs on the strongest."""
        hand = Cards(obs["hand"], decks=rules.decks)
        return str(_core._rule_choose(rules, obs["phase"], hand.word, legal, self.call_at, self.double_at))

    # ---- play ----
    def _play(self, game: Any, obs: Dict[str, Any], legal: List[str]) -> str:
        rules = game.rules
        seat = obs["seat"]
        top = obs.get("top")
        tokens = set(legal)
        prev = top[1] if top else None
        moves = [m for m in legal_moves(obs["hand"], rules, prev=prev) if f"PLAY {m}" in tokens]
        plain = [m for m in moves if not m.is_bomb]
        bombs = sorted((m for m in moves if m.is_bomb), key=_bomb_power)
        if top is None:  # lead: lowest main rank, longest among those; bombs last
            if plain:
                best = min(plain, key=lambda m: (m.key, -len(m), str(m)))
                return f"PLAY {best}"
            return f"PLAY {bombs[0]}"
        owner = top[0]
        landlord = obs["landlord"]
        if landlord is not None and seat != landlord and owner != landlord:
            return "PASS"                  # the other farmer is winning the trick
        if plain:
            return f"PLAY {min(plain, key=lambda m: (m.key, str(m)))}"
        if bombs and obs["cards_left"][owner] <= 5:
            return f"PLAY {bombs[0]}"
        return "PASS"


def _bomb_power(m: Move) -> tuple:
    """Weakest first: BOMB by rank (one deck), BOMB4..BOMB8 by size then rank, the rocket
    and 天尊 last."""
    if m.kind in (Kind.ROCKET, Kind.JOKER_BOMB):
        return (99, 0)
    return (len(m), m.key)

