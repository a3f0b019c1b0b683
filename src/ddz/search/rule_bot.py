"""The bot protocol (``Bot``) and the bots that need no search: ``RandomBot`` and ``RuleBot``.

A bot sees only what its seat may see: ``act(game, seat)`` reads ``game.observation(seat)``
and ``game.rules``, never another seat's hidden cards, and returns one of the seat's legal
action tokens.
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Any, Dict, List, Optional

from .._core import Kind, Move, legal_moves
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


def hand_strength(hand: str, decks: int = 1) -> float:
    """A rough strength of a hand for bidding: high cards, bombs and the rocket count."""
    c = Counter(hand)
    s = 0.0
    s += 3.0 * (c["R"] >= decks) + 2.5 * (c["B"] >= decks)       # jokers (a full joker set of the deck)
    s += 1.0 * c["R"] + 0.8 * c["B"]
    s += 1.2 * c["2"] / decks + 0.5 * c["A"] / decks
    quad = 4 if decks == 1 else 5
    s += 3.0 * sum(1 for r, n in c.items() if r not in "BR" and n >= quad)
    if decks == 1 and c["B"] and c["R"]:
        s += 2.0
    return s


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
        strength = hand_strength(obs["hand"], rules.decks)
        want = strength >= self.call_at
        strong = strength >= self.double_at

        def pick(yes: str, no: str, flag: bool) -> str:
            return yes if flag and yes in legal else no

        phase = obs["phase"]
        if phase == "PRE_DEAL":
            return "NORMAL_START"          # no cards are seen before the deal
        if phase in ("CALL", "BID") and "CALL" in legal:
            return pick("CALL", "NO_CALL", want)
        if phase in ("ROB", "FINAL_ROB"):
            return pick("ROB", "NO_ROB", strong)
        if phase == "SHOW":
            return pick("SHOW", "NO_SHOW", strength >= self.double_at + 4)
        if phase == "FANSHEN":
            return pick("FANSHEN", "NO_FANSHEN", strong)
        if phase == "YAPO":
            return pick("YAPO", "NO_YAPO", strong)
        if phase == "OPEN_CHOICE":
            return pick("OPEN", "CLOSED", strength >= self.double_at + 4)
        if phase == "BID":  # BENGBU4
            if strength >= self.double_at + 6 and "GRAB" in legal:
                return "GRAB"
            for bid, at in (("BID3", self.double_at), ("BID2", self.call_at + 1.5), ("BID1", self.call_at)):
                if strength >= at and bid in legal:
                    return bid
            return "NO_CALL"
        return legal[-1]

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

