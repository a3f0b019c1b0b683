"""Duplicate-deal evaluation of agents over whole hands: ``ddz.evaluate``.

Every deal is played once per seat rotation (the standard variance reduction for card
games): in rotation ``r`` agent ``i`` sits at seat ``(i + r) % players``, so each agent
plays each deal's every seat, bidding included, through ``ddz.Game``. Deal ``d`` is the
deal of ``Game(rules, seed=deal_seed(seed, d))`` (its redeals too) unless ``deals`` gives
the hands; every hand depends only on ``(seed, d, r)``, never on the other hands, so a run
split over processes or machines (``backend="ray"``) gives exactly the local result.

An agent is one of

* a bot: an object with ``act(game, seat) -> action`` (``ddz.bots.RuleBot``,
  ``RandomBot``, ``SearchBot``, ``ddz.peers.RLCardRuleBot``); it reads only
  ``game.observation(seat)``;
* a Python callable ``agent(observation) -> action``, given ``game.observation(seat)``
  with ``"legal_action_ids"`` added (the ids of ``"legal_actions"``, ``ddz.action_space``).

An action is anything ``Game.apply`` takes (a token or an action id). Each hand gets a
fresh copy of every agent (``copy.deepcopy`` of what was passed), reseeded from the hand's
seed when it has a ``reseed(seed)`` method, so no hand depends on another.

Sampled worlds (PIMC, ``ddz.sample_deals``): an agent with a true ``wants_samples``
attribute (an int: that many worlds, ``True``: 32) finds ``"samples"`` in the observation
at its play decisions: a uint64 array (worlds, seats) of hands consistent with what its
seat has seen, seeded from the hand and the decision.
"""
from __future__ import annotations

import copy
import inspect
import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..core.args import int_arg
from ..core.rules import Rules
from ..core.errors import ArgumentError, ArgumentTypeError, shown
from ..hand.game import Game
from .sample import sample_deals

__all__ = ["EvaluationResult", "AgentStats", "RoleStats", "evaluate", "deal_seed", "DEFAULT_SAMPLES"]

DEFAULT_SAMPLES = 32      # worlds for an agent whose wants_samples is True
MAX_GAMES = 10_000_000    # the per-hand arrays of more would not fit in memory (90 bytes a deal)
MAX_ACTIONS = 2_000       # a hand longer than this means agents that never end the auction
_Z95 = 1.959963984540054  # the two-sided 95 % normal quantile

ROLES = ("landlord", "farmer")


def deal_seed(seed: int, deal: int) -> int:
    """The ``Game`` seed of deal ``deal`` of an evaluation seeded ``seed`` (SplitMix64 of
    both, so neighbouring seeds give unrelated deals)."""
    z = (seed * 0x9E3779B97F4A7C15 + (deal + 1) * 0xBF58476D1CE4E5B9) % 2**64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
    return z ^ (z >> 31)


@dataclass(frozen=True)
class RoleStats:
    """One agent in one role: ``hands`` played, ``wins``, ``win_rate`` with its 95 % Wilson
    interval, ``mean_score`` (``GameResult.scores`` of its seat) with its 95 % normal
    interval. The intervals treat the hands as independent (see ``AgentStats.overall``)."""

    hands: int
    wins: int
    win_rate: float
    win_rate_ci: Tuple[float, float]
    mean_score: float
    mean_score_ci: Tuple[float, float]


@dataclass(frozen=True)
class AgentStats:
    """An agent's results: as ``landlord``, as ``farmer`` and ``overall`` (every hand, a
    hand without roles, BENGBU4 天炸/天尊 or a void hand, counting as not won). The overall
    score interval is over deals (each deal's mean over the rotations), the unit that is
    independent under duplicate play."""

    name: str
    landlord: RoleStats
    farmer: RoleStats
    overall: RoleStats


@dataclass(frozen=True)
class EvaluationResult:
    """The per-hand arrays of an evaluation, shape (deals, rotations, agents), and the
    per-agent statistics computed from them. ``role`` is 0 landlord, 1 farmer, -1 none."""

    rules: Rules
    deals: int
    seed: int
    first_deal: int
    names: Tuple[str, ...]
    scores: np.ndarray = field(repr=False)   # float64: the agent's seat's score
    role: np.ndarray = field(repr=False)     # int8
    won: np.ndarray = field(repr=False)      # bool: the agent's side won

    @property
    def agents(self) -> Tuple[AgentStats, ...]:
        return tuple(_agent_stats(self.names[i], self.scores[:, :, i], self.role[:, :, i], self.won[:, :, i])
                     for i in range(len(self.names)))

    def __getitem__(self, name: str) -> AgentStats:
        for a in self.agents:
            if a.name == name:
                return a
        raise KeyError(name)

    def table(self) -> str:
        """The statistics as a text table, one row per agent and role."""
        rows = [f"{'agent':<16} {'role':<9} {'hands':>6} {'win rate':>8} {'95% CI':>15} {'mean score':>10} "
                f"{'95% CI':>19}"]
        for a in self.agents:
            for role in ("landlord", "farmer", "overall"):
                s: RoleStats = getattr(a, role)
                rows.append(f"{a.name[:16]:<16} {role:<9} {s.hands:>6} {s.win_rate:>8.3f} "
                            f"[{s.win_rate_ci[0]:.3f}, {s.win_rate_ci[1]:.3f}] {s.mean_score:>10.3f} "
                            f"[{s.mean_score_ci[0]:>8.3f}, {s.mean_score_ci[1]:>8.3f}]")
        return "\n".join(rows)


def _wilson(wins: int, n: int) -> Tuple[float, float]:
    if n == 0:
        return (float("nan"), float("nan"))
    p = wins / n
    z2 = _Z95 * _Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = _Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _mean_ci(x: np.ndarray) -> Tuple[float, Tuple[float, float]]:
    if len(x) == 0:
        return float("nan"), (float("nan"), float("nan"))
    m = float(x.mean())
    if len(x) < 2:
        return m, (float("nan"), float("nan"))
    half = _Z95 * float(x.std(ddof=1)) / math.sqrt(len(x))
    return m, (m - half, m + half)


def _role_stats(scores: np.ndarray, won: np.ndarray) -> RoleStats:
    wins = int(won.sum())
    n = len(scores)
    mean, ci = _mean_ci(scores)
    return RoleStats(hands=n, wins=wins, win_rate=wins / n if n else float("nan"), win_rate_ci=_wilson(wins, n),
                     mean_score=mean, mean_score_ci=ci)


def _agent_stats(name: str, scores: np.ndarray, role: np.ndarray, won: np.ndarray) -> AgentStats:
    by_role = [_role_stats(scores[role == k], won[role == k]) for k in (0, 1)]
    overall = _role_stats(scores.ravel(), won.ravel())
    mean, ci = _mean_ci(scores.mean(axis=1))  # per-deal means: the independent unit
    overall = RoleStats(hands=overall.hands, wins=overall.wins, win_rate=overall.win_rate,
                        win_rate_ci=overall.win_rate_ci, mean_score=mean, mean_score_ci=ci)
    return AgentStats(name=name, landlord=by_role[0], farmer=by_role[1], overall=overall)


def _name(agent: Any) -> str:
    return getattr(agent, "name", None) or getattr(agent, "__name__", None) or type(agent).__name__


def _check_agents(agents: Any, rules: Rules) -> List[Any]:
    if isinstance(agents, (str, bytes)) or not isinstance(agents, Sequence):
        raise ArgumentTypeError(f"agents must be a list of {rules.players} agents, not {shown(agents)}")
    agents = list(agents)
    if len(agents) != rules.players:
        raise ArgumentError(f"{rules!r} seats {rules.players} agents, not {len(agents)}")
    for i, a in enumerate(agents):
        is_bot = callable(getattr(a, "act", None))
        if not (is_bot or callable(a)):
            raise ArgumentTypeError(f"agent {i} is neither a bot (act(game, seat)) nor a callable: {shown(a)}")
        fn, args = (a.act, (None, None)) if is_bot else (a, (None,))
        try:  # a callable that cannot take its arguments is refused here, not in the middle of a hand
            inspect.signature(fn).bind(*args)
        except TypeError:
            what = "act(game, seat)" if is_bot else "agent(observation)"
            raise ArgumentTypeError(f"agent {i} ({_name(a)}) cannot be called as {what}") from None
        except ValueError:  # no signature to read (some builtins): it is called as it is
            pass
    return agents


def _wants(agent: Any) -> int:
    w = getattr(agent, "wants_samples", False)
    if w is True:
        return DEFAULT_SAMPLES
    if isinstance(w, bool) or not w:
        return 0
    if not isinstance(w, int) or w < 0:
        raise ArgumentError(f"wants_samples must be True, False or a number of worlds, not {shown(w)}")
    return w


def agent_observation(game: Game, seat: int, agent: Any, sample_seed: int) -> Dict[str, Any]:
    """What a callable agent is given: ``game.observation(seat)``, ``"legal_action_ids"``
    and, for an agent that wants them at a play decision, ``"samples"``."""
    obs = game.observation(seat)
    obs["legal_action_ids"] = game.legal_action_ids()
    n = _wants(agent)
    if n and game.phase == "PLAY":
        obs["samples"] = sample_deals(obs, n, seed=sample_seed % 2**64)
    return obs


def _act(agent: Any, game: Game, seat: int, sample_seed: int) -> Any:
    if callable(getattr(agent, "act", None)):
        return agent.act(game, seat)
    return agent(agent_observation(game, seat, agent, sample_seed))


def play_hand(game: Game, seat_agents: Sequence[Any], seed: int) -> Game:
    """Plays ``game`` to its end with ``seat_agents[seat]`` at each seat; ``seed`` seeds the
    sampled worlds of agents that want them."""
    steps = 0
    while not game.is_over:
        seat = game.current_seat
        assert seat is not None
        game.apply(_act(seat_agents[seat], game, seat, seed * 1_000_003 + steps), seat)
        steps += 1
        if steps > MAX_ACTIONS:
            raise ArgumentError(f"a hand took more than {MAX_ACTIONS} actions: do the agents ever end the auction? "
                                f"(or set the rules' max_redeals)")
    return game


_DEAL_KEYS = frozenset({"hands", "kitty", "aside", "first_bidder", "first_to_decide"})


def _deal_game(rules: Rules, seed: int, d: int, deals: Optional[Sequence[Mapping[str, Any]]]) -> Game:
    if deals is None:
        return Game(rules, deal_seed(seed, d))
    spec = deals[d]
    if not isinstance(spec, Mapping):
        raise ArgumentTypeError(f"deals[{d}] must be a dict of Game keyword arguments, not {shown(spec)}")
    unknown = sorted(map(str, set(spec) - _DEAL_KEYS))
    if unknown:
        raise ArgumentError(f"deals[{d}] has {shown(unknown[0])}; a deal takes {', '.join(sorted(_DEAL_KEYS))}")
    return Game(rules, deal_seed(seed, d), **{str(k): v for k, v in spec.items()})


def _fresh_copy(agent: Any, i: int) -> Any:
    try:
        return copy.deepcopy(agent)
    except (TypeError, copy.Error) as e:
        raise ArgumentTypeError(f"agent {i} ({_name(agent)}) cannot be copied for each hand "
                                f"(copy.deepcopy: {shown(str(e))})") from None


def _evaluate_range(agents: List[Any], rules: Rules, first: int, count: int, seed: int,
                    deals: Optional[Sequence[Mapping[str, Any]]]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = rules.players
    scores = np.zeros((count, n, n), dtype=np.float64)
    role = np.full((count, n, n), -1, dtype=np.int8)
    won = np.zeros((count, n, n), dtype=bool)
    for k in range(count):
        d = first + k
        for r in range(n):
            hand_seed = deal_seed(deal_seed(seed, d), r)
            seat_agents: List[Any] = [None] * n
            for i, a in enumerate(agents):
                fresh = _fresh_copy(a, i)
                if callable(getattr(fresh, "reseed", None)):
                    fresh.reseed(deal_seed(hand_seed, i))
                seat_agents[(i + r) % n] = fresh
            g = play_hand(_deal_game(rules, seed, d, deals), seat_agents, hand_seed)
            res = g.result
            assert res is not None
            for i in range(n):
                s = (i + r) % n
                scores[k, r, i] = float(res.scores[s])
                if res.landlord is not None and res.winner_side is not None:
                    is_ll = s == res.landlord
                    role[k, r, i] = 0 if is_ll else 1
                    won[k, r, i] = (res.winner_side == "landlord") == is_ll
    return scores, role, won


def evaluate(agents: Sequence[Any], rules: Rules, games: int = 100, seed: int = 0, *,
             deals: Optional[Sequence[Mapping[str, Any]]] = None, first_deal: int = 0,
             backend: str = "local", chunks: Optional[int] = None) -> EvaluationResult:
    """Plays ``games`` duplicate deals, each once per seat rotation (``rules.players``
    hands per deal), with ``agents[i]`` (one per seat: bots or callables, see the module
    docstring) and reports per agent and role the win rate and the mean score with 95 %
    confidence intervals (``EvaluationResult.agents``, ``.table()``).

    ``deals`` (optional, one per game) gives the deals as ``Game`` keyword arguments
    (``hands=``, ``kitty=``, ``aside=``, ``first_bidder=``, ``first_to_decide=``), e.g. the
    same deals as a peer engine's; ``first_deal`` starts the series later, so a long run can
    be split. ``backend="ray"`` spreads the deals over a Ray cluster (``pip install
    ".[ray]"`` in the source tree; ``ray.init(...)`` first to join a cluster) in ``chunks`` tasks and returns
    exactly the local result.

    >>> import ddz
    >>> res = ddz.evaluate([ddz.bots.RuleBot(), ddz.bots.RandomBot(), ddz.bots.RandomBot()],
    ...                    ddz.Rules.classic(), games=4, seed=1)
    >>> res.scores.shape, res["RuleBot"].overall.hands
    ((4, 3, 3), 12)
    """
    if not isinstance(rules, Rules):
        raise ArgumentTypeError(f"rules must be a ddz.Rules, not {shown(rules)}")
    agents = _check_agents(agents, rules)
    games = int_arg(games, "games", 0, MAX_GAMES)
    first_deal = int_arg(first_deal, "first_deal", 0)
    seed = int_arg(seed, "seed", 0, 2**64 - 1)
    if deals is not None:
        if isinstance(deals, (str, bytes, Mapping)) or not isinstance(deals, Sequence):
            raise ArgumentTypeError(f"deals must be a list of dicts of Game keyword arguments, not {shown(deals)}")
        if len(deals) < first_deal + games:
            raise ArgumentError(f"deals lists {len(deals)} deals; games {first_deal}..{first_deal + games - 1} "
                                f"need {first_deal + games}")
        for d in range(first_deal, first_deal + games):  # every deal checked before any hand is played
            _deal_game(rules, seed, d, deals)
    if backend == "local":
        scores, role, won = _evaluate_range(agents, rules, first_deal, games, seed, deals)
    elif backend == "ray":
        from .ray_backend import split_range
        parts = split_range(_evaluate_range, first_deal, games, chunks,
                            lambda first, count: (agents, rules, first, count, seed, deals))
        n = rules.players
        empty = (np.zeros((0, n, n)), np.zeros((0, n, n), dtype=np.int8), np.zeros((0, n, n), dtype=bool))
        scores, role, won = (np.concatenate([p[j] for p in parts] or [empty[j]]) for j in range(3))
    else:
        raise ArgumentError(f"backend must be 'local' or 'ray', not {shown(backend)}")
    names = _unique_names([_name(a) for a in agents])
    return EvaluationResult(rules=rules, deals=games, seed=seed, first_deal=first_deal, names=names,
                            scores=scores, role=role, won=won)


def _unique_names(names: List[str]) -> Tuple[str, ...]:
    """Agent names, numbered where two agents share one (``RandomBot``, ``RandomBot#2``)."""
    out: List[str] = []
    for n in names:
        k, name = 1, n
        while name in out:
            k += 1
            name = f"{n}#{k}"
        out.append(name)
    return tuple(out)

