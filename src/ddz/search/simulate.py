"""Batched self-play in C++ (``ddz.simulate``)."""
from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Optional, Union

import numpy as np

from .. import _core
from ..core.rules import Rules
from ..core.errors import ArgumentError, ArgumentTypeError, shown

__all__ = ["SimulationResult", "simulate", "POLICIES", "MAX_THREADS"]

POLICIES = {"random": 0, "greedy": 1}
MAX_THREADS: int = _core.MAX_THREADS  # the most threads simulate() accepts


@dataclass(frozen=True)
class SimulationResult:
    """Per-game arrays of a ``simulate`` run (index = game number) and its summary."""

    rules: Rules
    games: int
    policy: str                                        # "random", "greedy" or a Python policy's name
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


def simulate(rules: Rules, games: int = 1000, policy: Union[str, Callable[..., Any]] = "random", seed: int = 0,
             threads: int = 1, first_game: int = 0, *, backend: str = "local",
             chunks: Optional[int] = None) -> SimulationResult:
    """Deal ``games`` seeded hands, give each a random landlord (bidding is not simulated:
    no bomb limits, no deal-time 天炸/天尊 check), and play them to the end in C++ with the
    GIL released, spread over ``threads``. Game ``g`` depends only on ``(seed, g)``
    (``ddz.deal(rules, seed, g)`` shows its deal), so the results do not depend on
    ``threads``; ``first_game`` starts the series later (games ``first_game`` …
    ``first_game + games - 1``), so a long run can be split into chunks. Policies: ``"random"`` (uniform over the legal actions, pass included) and
    ``"greedy"`` (lead the longest non-bomb play, follow an opponent with the lowest
    winning non-bomb play, never overtake the other farmer, bomb only against a seat with
    five cards or fewer). ``threads`` is at most ``ddz.MAX_THREADS`` (256); if the
    system refuses a thread, its games are played on the calling thread instead.

    ``policy`` may also be a Python callable, called at every decision as
    ``policy(state)`` or, when it takes two arguments, ``policy(state, rng)``: ``state`` is
    the game's ``ddz.PlayState`` (every hand open: this is self-play), ``rng`` a
    ``numpy.random.Generator`` seeded by ``(seed, game)``; it returns an action
    ``PlayState.apply`` takes (an action id from ``state.legal_actions()``, a Move, …). The
    games are the same deals, played in Python on one thread.

    ``backend="ray"`` splits the games into ``chunks`` Ray tasks (``pip install ".[ray]"`` in the source tree;
    ``ray.init(...)`` first to join a cluster) and returns exactly the local result
    (``seconds`` aside)."""
    if backend == "ray":
        from .ray_backend import split_range
        parts = split_range(simulate, first_game, games, chunks,
                            lambda first, count: (rules, count, policy, seed, threads, first))
        if not parts:
            return simulate(rules, 0, policy, seed, threads, first_game)
        joined = concat(parts)
        return SimulationResult(**{**joined.__dict__, "threads": threads})
    if backend != "local":
        raise ArgumentError(f"backend must be 'local' or 'ray', not {shown(backend)}")
    if callable(policy):
        return _simulate_python(rules, games, policy, seed, first_game)
    if not isinstance(policy, str):
        raise ArgumentTypeError(f"policy must be a str ({', '.join(POLICIES)}) or a callable, not "
                                f"{type(policy).__name__}")
    if policy not in POLICIES:
        raise ArgumentError(f"unknown policy {shown(policy)}: use one of {', '.join(POLICIES)}")
    # rules, games (0..2**28), seed and first_game (0..2**64-1) and threads (1..MAX_THREADS)
    # are checked by the core, with messages naming the argument
    t0 = time.perf_counter()
    cols = _core._simulate(rules, games, POLICIES[policy], seed, threads, first_game)
    seconds = time.perf_counter() - t0
    return SimulationResult(rules=rules, games=games, policy=policy, seed=seed, threads=threads, seconds=seconds,
                            **cols)


def _policy_name(policy: Callable[..., Any]) -> str:
    return getattr(policy, "__name__", None) or type(policy).__name__


def _simulate_python(rules: Rules, games: int, policy: Callable[..., Any], seed: int,
                     first_game: int) -> SimulationResult:
    """The games of ``simulate`` played by a Python policy: the core's deals
    (``ddz.deal``), the same columns."""
    if not isinstance(rules, Rules):
        raise ArgumentTypeError(f"rules must be a ddz.Rules, not {shown(rules)}")
    if isinstance(games, bool) or not isinstance(games, int) or games < 0:
        raise ArgumentError(f"games must be an int >= 0, not {shown(games)}")
    try:
        with_rng = len(inspect.signature(policy).parameters) >= 2
    except (TypeError, ValueError):  # a builtin without a signature: one argument
        with_rng = False
    n = rules.players
    cols = {f: np.zeros(games, dtype=dt) for f, dt in _DTYPES.items()}
    t0 = time.perf_counter()
    for k in range(games):
        g = first_game + k
        hands, landlord = _core.deal(rules, seed, g)
        ps = _core.PlayState(hands, landlord, rules)
        if with_rng:
            rng = np.random.default_rng([seed, g])
            while not ps.is_over:
                ps.apply(policy(ps, rng))
        else:
            while not ps.is_over:
                ps.apply(policy(ps))
        missiles = [ps.missiles(s) for s in range(n)]
        cols["winner_side"][k] = 0 if ps.winner_side == "landlord" else 1
        cols["landlord"][k] = landlord
        cols["actions"][k] = ps.num_actions
        cols["plays"][k] = sum(ps.plays_made(s) for s in range(n))
        cols["bombs"][k] = ps.bombs_total
        cols["rockets"][k] = ps.rockets
        cols["spring"][k] = ps.spring
        cols["anti_spring"][k] = ps.anti_spring
        cols["missiles_landlord"][k] = missiles[landlord]
        cols["missiles_farmers"][k] = sum(missiles) - missiles[landlord]
    seconds = time.perf_counter() - t0
    return SimulationResult(rules=rules, games=games, policy=_policy_name(policy), seed=seed, threads=1,
                            seconds=seconds, **cols)


def concat(results: "list[SimulationResult]") -> SimulationResult:
    """Joins the chunks of one series (same rules, policy and seed) into one result."""
    if not results:
        raise ArgumentError("nothing to join")
    first = results[0]
    arrays = {f: np.concatenate([getattr(r, f) for r in results]) for f in _COLUMNS}
    return SimulationResult(rules=first.rules, games=sum(r.games for r in results), policy=first.policy,
                            seed=first.seed, threads=first.threads, seconds=sum(r.seconds for r in results), **arrays)


_DTYPES = {"winner_side": np.int8, "landlord": np.int8, "actions": np.int16, "plays": np.int16, "bombs": np.int16,
           "rockets": np.int16, "spring": bool, "anti_spring": bool, "missiles_landlord": np.int16,
           "missiles_farmers": np.int16}  # as the core's columns
_COLUMNS = tuple(_DTYPES)
