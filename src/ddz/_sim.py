"""Batched self-play in C++ (``ddz.simulate``)."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Dict

import numpy as np

from . import _core
from ._rules import Rules
from .errors import ArgumentError, ArgumentTypeError, shown

__all__ = ["SimulationResult", "simulate", "POLICIES", "MAX_THREADS"]

POLICIES = {"random": 0, "greedy": 1}
MAX_THREADS: int = _core.MAX_THREADS  # the most threads simulate() accepts


@dataclass(frozen=True)
class SimulationResult:
    """Per-game arrays of a ``simulate`` run (index = game number) and its summary."""

    rules: Rules
    games: int
    policy: str
    seed: int
    threads: int
    seconds: float
    winner_side: np.ndarray = field(repr=False)        # 0 landlord won, 1 farmers won
    landlord: np.ndarray = field(repr=False)           # landlord seat
    actions: np.ndarray = field(repr=False)            # plays and passes
    plays: np.ndarray = field(repr=False)              # plays (passes excluded)
    bombs: np.ndarray = field(repr=False)              # bomb-class plays, ROCKET / JOKER_BOMB included
    rockets: np.ndarray = field(repr=False)            # ROCKET (one deck) / JOKER_BOMB (two decks) plays
    spring: np.ndarray = field(repr=False)             # CLASSIC3/TWOP spring
    anti_spring: np.ndarray = field(repr=False)        # CLASSIC3/TWOP anti-spring
    missiles_landlord: np.ndarray = field(repr=False)  # BENGBU4 missile units of the landlord
    missiles_farmers: np.ndarray = field(repr=False)   # BENGBU4 missile units of the farmers

    @property
    def summary(self) -> Dict[str, float]:
        n = max(self.games, 1)
        return {
            "games": self.games,
            "landlord_win_rate": float(np.mean(self.winner_side == 0)) if self.games else 0.0,
            "actions_per_game": float(self.actions.sum()) / n,
            "plays_per_game": float(self.plays.sum()) / n,
            "bombs_per_game": float(self.bombs.sum()) / n,
            "rockets_per_game": float(self.rockets.sum()) / n,
            "spring_rate": float(self.spring.sum()) / n,
            "anti_spring_rate": float(self.anti_spring.sum()) / n,
            "missiles_per_game": float(self.missiles_landlord.sum() + self.missiles_farmers.sum()) / n,
            "games_per_second": self.games / self.seconds if self.seconds > 0 else float("inf"),
        }


def simulate(rules: Rules, games: int = 1000, policy: str = "random", seed: int = 0,
             threads: int = 1, first_game: int = 0) -> SimulationResult:
    """Deal ``games`` seeded hands, give each a random landlord (bidding is not simulated:
    no bomb limits, no deal-time 天炸/天尊 check), and play them to the end in C++ with the
    GIL released, spread over ``threads``. Game ``g`` depends only on ``(seed, g)``
    (``ddz.deal(rules, seed, g)`` shows its deal), so the results do not depend on
    ``threads``; ``first_game`` starts the series later (games ``first_game`` …
    ``first_game + games - 1``), so a long run can be split into chunks. Policies: ``"random"`` (uniform over the legal actions, pass included) and
    ``"greedy"`` (lead the longest non-bomb play, follow an opponent with the lowest
    winning non-bomb play, never overtake the other farmer, bomb only against a seat with
    five cards or fewer). ``threads`` is at most ``ddz.MAX_THREADS`` (256); if the
    system refuses a thread, its games are played on the calling thread instead."""
    if not isinstance(policy, str):
        raise ArgumentTypeError(f"policy must be a str ({', '.join(POLICIES)}), not {type(policy).__name__}")
    if policy not in POLICIES:
        raise ArgumentError(f"unknown policy {shown(policy)}: use one of {', '.join(POLICIES)}")
    # rules, games (0..2**28), seed and first_game (0..2**64-1) and threads (1..MAX_THREADS)
    # are checked by the core, with messages naming the argument
    t0 = time.perf_counter()
    cols = _core._simulate(rules, games, POLICIES[policy], seed, threads, first_game)
    seconds = time.perf_counter() - t0
    return SimulationResult(rules=rules, games=games, policy=policy, seed=seed, threads=threads, seconds=seconds,
                            **cols)


def concat(results: "list[SimulationResult]") -> SimulationResult:
    """Joins the chunks of one series (same rules, policy and seed) into one result."""
    if not results:
        raise ArgumentError("nothing to join")
    first = results[0]
    arrays = {f: np.concatenate([getattr(r, f) for r in results]) for f in _COLUMNS}
    return SimulationResult(rules=first.rules, games=sum(r.games for r in results), policy=first.policy,
                            seed=first.seed, threads=first.threads, seconds=sum(r.seconds for r in results), **arrays)


_COLUMNS = ("winner_side", "landlord", "actions", "plays", "bombs", "rockets", "spring", "anti_spring",
            "missiles_landlord", "missiles_farmers")
