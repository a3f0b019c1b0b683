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

Two agents head to head: ``head_to_head(a, b, rules, games, seed)`` plays each deal under every
assignment of A to k of the seats, 1 <= k < players, B in the others (CLASSIC3 6 hands a deal,
TWOP 2, BENGBU4 14), and reports three measures with 95 % intervals over deals: the
**role-balanced win rate** (A alone as landlord against B's farmers and A's farmers against B
alone, each role's win rate weighted one half: equal agents 0.5), the **score margin** (A's mean
score per seat minus B's: equal agents 0) and the seat win rate of earlier versions (A's share
of its seat-games won, which is not 0.5 for equal agents), beside A's share of the landlord
seats (``HeadToHeadResult``).
"""
from __future__ import annotations

import copy
import inspect
import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..core.args import int_arg
from ..core.rules import Rules
from ..core.errors import ArgumentError, ArgumentTypeError, shown
from ..hand.game import Game
from .sample import sample_deals

__all__ = ["EvaluationResult", "AgentStats", "RoleStats", "evaluate", "deal_seed", "DEFAULT_SAMPLES",
           "head_to_head", "HeadToHeadResult", "Estimate", "RoleBalancedWP", "seat_assignments"]

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


def _check_agent(a: Any, i: int) -> None:
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


def _check_agents(agents: Any, rules: Rules) -> List[Any]:
    if isinstance(agents, (str, bytes)) or not isinstance(agents, Sequence):
        raise ArgumentTypeError(f"agents must be a list of {rules.players} agents, not {shown(agents)}")
    agents = list(agents)
    if len(agents) != rules.players:
        raise ArgumentError(f"{rules!r} seats {rules.players} agents, not {len(agents)}")
    for i, a in enumerate(agents):
        _check_agent(a, i)
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


def _check_run(rules: Rules, games: Any, seed: Any, first_deal: Any,
               deals: Optional[Sequence[Mapping[str, Any]]]) -> Tuple[int, int, int]:
    """``games``, ``seed`` and ``first_deal`` checked; every deal of ``deals`` checked before any
    hand is played."""
    games = int_arg(games, "games", 0, MAX_GAMES)
    first_deal = int_arg(first_deal, "first_deal", 0)
    seed = int_arg(seed, "seed", 0, 2**64 - 1)
    if deals is not None:
        if isinstance(deals, (str, bytes, Mapping)) or not isinstance(deals, Sequence):
            raise ArgumentTypeError(f"deals must be a list of dicts of Game keyword arguments, not {shown(deals)}")
        if len(deals) < first_deal + games:
            raise ArgumentError(f"deals lists {len(deals)} deals; games {first_deal}..{first_deal + games - 1} "
                                f"need {first_deal + games}")
        for d in range(first_deal, first_deal + games):
            _deal_game(rules, seed, d, deals)
    return games, seed, first_deal


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

    Every agent here plays every seat of each deal; to measure one agent against another
    (every assignment of the two to the seats, with measures whose value for equal agents is
    known), use ``head_to_head``.

    >>> import ddz
    >>> res = ddz.evaluate([ddz.bots.RuleBot(), ddz.bots.RandomBot(), ddz.bots.RandomBot()],
    ...                    ddz.Rules.classic(), games=4, seed=1)
    >>> res.scores.shape, res["RuleBot"].overall.hands
    ((4, 3, 3), 12)
    """
    if not isinstance(rules, Rules):
        raise ArgumentTypeError(f"rules must be a ddz.Rules, not {shown(rules)}")
    agents = _check_agents(agents, rules)
    games, seed, first_deal = _check_run(rules, games, seed, first_deal, deals)
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



# ---- two agents head to head --------------------------------------------------------------


def seat_assignments(players: int) -> Tuple[str, ...]:
    """Every assignment of agent A to k of ``players`` seats, 1 <= k < players, B in the others,
    as strings read seat by seat (``"ABB"``: A at seat 0, B at seats 1 and 2): k = 1 first, then
    k = 2, ..., each k's seat sets in lexicographic order; ``2**players - 2`` of them (TWOP 2,
    CLASSIC3 6, BENGBU4 14). Each assignment's mirror (A and B swapped) is in the list too.

    >>> seat_assignments(3)
    ('ABB', 'BAB', 'BBA', 'AAB', 'ABA', 'BAA')
    """
    players = int_arg(players, "players", 2, 8)
    out = []
    for k in range(1, players):
        for seats in itertools.combinations(range(players), k):
            out.append("".join("A" if s in seats else "B" for s in range(players)))
    return tuple(out)


@dataclass(frozen=True)
class Estimate:
    """A measure of a head-to-head run: its ``value`` and a 95 % interval ``ci`` over deals (the
    independent unit of duplicate play; NaN with fewer than two deals, or when nothing was
    counted). ``value`` is a ratio of sums over the deals (or a mean of per-deal values), its
    interval the normal one of the delta method with the deal as the unit: ``value ± 1.96 ·
    sqrt(Σ u_d² / (D (D − 1)))`` where ``u_d`` is deal d's deviation (for a ratio Σy / Σn,
    ``u_d = (y_d − value · n_d) / mean(n)``); rates are not clipped to [0, 1]."""

    value: float
    ci: Tuple[float, float]


@dataclass(frozen=True)
class RoleBalancedWP:
    """A's role-balanced win rate against B: the mean of A's win rate as landlord against B's
    farmers (``landlord``) and A's farmers' win rate against B as landlord (``farmers``), over
    the hands where one agent holds the landlord's seat and the other every farmer seat; a hand
    that puts both agents on one side, or has no landlord, is left out. Equal agents score 0.5
    in expectation (A's roles against B are B's against A). ``roles`` names the roles A held
    against B; with one only, ``value`` is A's win rate in it (NaN with none).
    ``landlord_games`` / ``farmer_games`` count the hands of each role, ``landlord_wins`` /
    ``farmer_wins`` A's wins in them."""

    value: float
    ci: Tuple[float, float]
    roles: Tuple[str, ...]
    landlord: Estimate
    farmers: Estimate
    landlord_games: int
    landlord_wins: int
    farmer_games: int
    farmer_wins: int


def _interval(value: float, u: np.ndarray) -> Tuple[float, float]:
    """``value ± 1.96 · sqrt(Σ u² / (D (D − 1)))``: the 95 % interval from the per-deal
    deviations ``u`` (D deals)."""
    d = len(u)
    if d < 2 or not math.isfinite(value):
        return (float("nan"), float("nan"))
    half = _Z95 * math.sqrt(float(np.dot(u, u)) / (d * (d - 1)))
    return (value - half, value + half)


def _ratio(y: np.ndarray, n: np.ndarray) -> Tuple[float, np.ndarray]:
    """Σy / Σn over the deals and each deal's deviation ``(y_d − r n_d) / mean(n)``."""
    total = int(n.sum())
    if total == 0:
        return float("nan"), np.zeros(len(n))
    r = int(y.sum()) / total
    return r, (y - r * n) / (total / len(n))


def _ratio_estimate(y: np.ndarray, n: np.ndarray) -> Estimate:
    r, u = _ratio(y, n)
    return Estimate(r, _interval(r, u))


@dataclass(frozen=True)
class HeadToHeadResult:
    """The hands of ``head_to_head``: each deal played under every assignment of A and B to the
    seats (``assignments``, ``seat_assignments``). Arrays: ``scores`` (deals, assignments, seats)
    float64, each seat's ``GameResult.scores``; ``landlord`` (deals, assignments) int8, the
    landlord's seat, -1 for a hand without one (void, BENGBU4 天炸/天尊); ``landlord_won``
    (deals, assignments) int8, 1 the landlord's side won, 0 the farmers', -1 no landlord.

    Measures (``Estimate``: value and 95 % interval over deals):

    * ``role_balanced_wp``: A alone as landlord against B's farmers and A's farmers against B
      alone, each role weighted one half (``RoleBalancedWP``); equal agents 0.5.
    * ``score_margin``: per hand, A's mean score per seat minus B's mean score per seat, every
      hand counted (hands without a landlord too: their scores are those of the rules), averaged
      over each deal's hands, then over deals; equal agents 0, zero-sum rules or not. It counts
      the bids and multipliers.
    * ``landlord_share``: the share of hands with a landlord in which an A seat holds it; equal
      agents 0.5 (A holds k seats as often as n − k).
    * ``seat_wp``: A's share of its seat-games whose side won (a hand without a landlord: not
      won), the win rate of earlier versions of ``benchmarks/match.py``; not 0.5 for equal
      agents (CLASSIC3 has one landlord seat to two farmer seats), so compare it only with a
      reference row. ``mean_score``: A's mean score per seat-game.

    With deterministic equal agents every assignment of a deal is the same hand, so the
    role-balanced WP and the landlord share are exactly 0.5 and the margin exactly 0."""

    rules: Rules
    deals: int
    seed: int
    first_deal: int
    names: Tuple[str, str]
    assignments: Tuple[str, ...]
    scores: np.ndarray = field(repr=False)
    landlord: np.ndarray = field(repr=False)
    landlord_won: np.ndarray = field(repr=False)

    @property
    def a_seats(self) -> np.ndarray:
        """(assignments, seats) bool: the seats of A in each assignment."""
        return np.array([[c == "A" for c in s] for s in self.assignments], dtype=bool).reshape(
            len(self.assignments), self.rules.players)

    @property
    def games(self) -> int:
        """The hands played: deals × assignments."""
        return self.deals * len(self.assignments)

    def _a_landlord(self) -> Tuple[np.ndarray, np.ndarray]:
        """(deals, assignments) bools: the hand has a landlord; an A seat holds it."""
        has = self.landlord >= 0
        a = self.a_seats[np.arange(len(self.assignments))[None, :], np.where(has, self.landlord, 0)]
        return has, a & has

    def _roles(self) -> Tuple[np.ndarray, np.ndarray]:
        """(deals, assignments) bools: A alone is the landlord against B's farmers; A's farmers
        play against B alone as the landlord."""
        n = self.rules.players
        k = self.a_seats.sum(axis=1)[None, :]
        has, a_lord = self._a_landlord()
        return a_lord & (k == 1), has & ~a_lord & (k == n - 1)

    @property
    def role_balanced_wp(self) -> RoleBalancedWP:
        """A's role-balanced win rate (``RoleBalancedWP``)."""
        lord, farm = self._roles()
        lord_won = lord & (self.landlord_won == 1)
        farm_won = farm & (self.landlord_won == 0)
        yl, nl = lord_won.sum(axis=1), lord.sum(axis=1)
        yf, nf = farm_won.sum(axis=1), farm.sum(axis=1)
        rl, ul = _ratio(yl, nl)
        rf, uf = _ratio(yf, nf)
        nl_t, nf_t, yl_t, yf_t = int(nl.sum()), int(nf.sum()), int(yl.sum()), int(yf.sum())
        roles = tuple(r for r, c in (("landlord", nl_t), ("farmers", nf_t)) if c)
        if nl_t and nf_t:
            # from the integer counts in one division, so that equal counts give exactly 0.5
            value, u = (yl_t * nf_t + yf_t * nl_t) / (2 * nl_t * nf_t), (ul + uf) / 2
        elif nl_t:
            value, u = rl, ul
        else:
            value, u = rf, uf
        return RoleBalancedWP(value=value, ci=_interval(value, u), roles=roles,
                              landlord=Estimate(rl, _interval(rl, ul)), farmers=Estimate(rf, _interval(rf, uf)),
                              landlord_games=nl_t, landlord_wins=yl_t, farmer_games=nf_t, farmer_wins=yf_t)

    def margins(self) -> np.ndarray:
        """(deals, assignments) float64: A's mean score per seat minus B's, hand by hand."""
        a = self.a_seats[None, :, :]
        k = a.sum(axis=2)
        n = self.rules.players

        def mean_over(mask: np.ndarray, count: np.ndarray) -> np.ndarray:
            # one expression for A's seats and B's, so a hand and its mirror give exact opposites
            return np.where(mask, self.scores, 0.0).sum(axis=2) / count

        return mean_over(a, k) - mean_over(~a, n - k)

    def per_deal_margin(self) -> np.ndarray:
        """(deals,) float64: each deal's mean margin over its hands. The hands are summed in
        mirror pairs (A's seats and B's swapped) first, so a deal whose mirror hands are the
        same hands (deterministic equal agents) gives exactly 0."""
        m = self.margins()
        mirror = [self.assignments.index(s.translate(str.maketrans("AB", "BA"))) for s in self.assignments]
        first = [g for g in range(len(mirror)) if g < mirror[g]]
        pairs = m[:, first] + m[:, [mirror[g] for g in first]]
        return pairs.sum(axis=1) / len(self.assignments)

    @property
    def score_margin(self) -> Estimate:
        """A's mean score per seat minus B's, per hand, averaged over deals; equal agents 0."""
        x = self.per_deal_margin()
        if len(x) == 0:
            return Estimate(float("nan"), (float("nan"), float("nan")))
        value = math.fsum(x) / len(x)
        return Estimate(value, _interval(value, x - value))

    @property
    def landlord_share(self) -> Estimate:
        """The share of hands with a landlord whose landlord is an A seat; equal agents 0.5."""
        has, a_lord = self._a_landlord()
        return _ratio_estimate(a_lord.sum(axis=1), has.sum(axis=1))

    def _seat_won(self) -> np.ndarray:
        """(deals, assignments, seats) bool: the seat's side won (False without a landlord)."""
        seats = np.arange(self.rules.players)[None, None, :]
        is_lord = seats == self.landlord[:, :, None]
        return (self.landlord_won[:, :, None] >= 0) & (is_lord == (self.landlord_won[:, :, None] == 1))

    @property
    def seat_wp(self) -> Estimate:
        """A's share of its seat-games won (the win rate of earlier versions; not 0.5 for
        equal agents)."""
        a = self.a_seats[None, :, :]
        won = self._seat_won() & a
        n = np.full(self.deals, int(self.a_seats.sum()))
        return _ratio_estimate(won.sum(axis=(1, 2)), n)

    @property
    def mean_score(self) -> Estimate:
        """A's mean score per seat-game, with its interval over deals."""
        a = self.a_seats[None, :, :]
        x = np.where(a, self.scores, 0.0).sum(axis=(1, 2)) / int(self.a_seats.sum())
        if len(x) == 0:
            return Estimate(float("nan"), (float("nan"), float("nan")))
        value = float(x.mean())
        return Estimate(value, _interval(value, x - value))

    def summary(self) -> Dict[str, Any]:
        """The measures as a JSON-ready dict (what ``benchmarks/match.py --out`` writes); an
        undefined value or interval (NaN: a role never seen, fewer than two deals) is None."""
        rb, margin, share, seat, ms = (self.role_balanced_wp, self.score_margin, self.landlord_share,
                                       self.seat_wp, self.mean_score)
        has, _ = self._a_landlord()
        lord, farm = self._roles()
        return _json_ready({
            "a": self.names[0], "b": self.names[1], "deals": self.deals, "games": self.games,
            "games_per_deal": len(self.assignments), "a_seat_games": self.deals * int(self.a_seats.sum()),
            "role_balanced_wp": rb.value, "role_balanced_wp_ci": list(rb.ci), "roles_seen": list(rb.roles),
            "role_games": {"landlord": rb.landlord_games, "farmers": rb.farmer_games},
            "wp_a_landlord": rb.landlord.value, "wp_a_landlord_ci": list(rb.landlord.ci),
            "wp_a_farmers": rb.farmers.value, "wp_a_farmers_ci": list(rb.farmers.ci),
            "mixed_games": int((has & ~lord & ~farm).sum()), "no_landlord_games": int((~has).sum()),
            "score_margin": margin.value, "score_margin_ci": list(margin.ci),
            "landlord_share": share.value, "landlord_share_ci": list(share.ci),
            "seat_wp": seat.value, "seat_wp_ci": list(seat.ci),
            "mean_score": ms.value, "mean_score_ci": list(ms.ci),
        })

    def table(self) -> str:
        """The measures as text, one line each."""
        rb, margin, share, seat, ms = (self.role_balanced_wp, self.score_margin, self.landlord_share,
                                       self.seat_wp, self.mean_score)

        def rate(e: Estimate, fmt: str = ".3f") -> str:
            if math.isnan(e.value):
                return "n/a"
            return f"{e.value:{fmt}} [{e.ci[0]:{fmt}}, {e.ci[1]:{fmt}}]"

        def signed(e: Estimate) -> str:
            return rate(e, "+.3f")

        a, b = self.names
        return "\n".join([
            f"{a} against {b}, {self.rules!r}: {self.deals} deals, {self.games} hands "
            f"({len(self.assignments)} a deal)",
            f"role-balanced WP  {rate(Estimate(rb.value, rb.ci))}  (parity 0.5; roles seen: "
            f"{', '.join(rb.roles) or 'none'})",
            f"  A landlord against B's farmers  {rate(rb.landlord)} in {rb.landlord_games} hands",
            f"  A's farmers against B landlord  {rate(rb.farmers)} in {rb.farmer_games} hands",
            f"score margin      {signed(margin)}  (A's mean score per seat minus B's; parity 0)",
            f"landlord share    {rate(share)}  (hands whose landlord is A; parity 0.5)",
            f"seat WP           {rate(seat)}  (A's share of its seat-games won; not 0.5 for equal agents)",
            f"mean score        {signed(ms)}  (A's, per seat-game)",
        ])


def _json_ready(x: Any) -> Any:
    """``x`` with every NaN float (in dicts and lists too) made None."""
    if isinstance(x, float):
        return None if math.isnan(x) else x
    if isinstance(x, dict):
        return {k: _json_ready(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_json_ready(v) for v in x]
    return x


def _head_to_head_range(a: Any, b: Any, rules: Rules, first: int, count: int, seed: int,
                        deals: Optional[Sequence[Mapping[str, Any]]]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = rules.players
    plan = seat_assignments(n)
    scores = np.zeros((count, len(plan), n), dtype=np.float64)
    landlord = np.full((count, len(plan)), -1, dtype=np.int8)
    landlord_won = np.full((count, len(plan)), -1, dtype=np.int8)
    for k in range(count):
        d = first + k
        ds = deal_seed(seed, d)
        for g, seats in enumerate(plan):
            seat_agents: List[Any] = []
            for s, who in enumerate(seats):
                fresh = _fresh_copy(a if who == "A" else b, 0 if who == "A" else 1)
                if callable(getattr(fresh, "reseed", None)):
                    # the seat's seed, whoever sits there: equal agents play the same hand in
                    # every assignment (common random numbers)
                    fresh.reseed(deal_seed(ds, s))
                seat_agents.append(fresh)
            res = play_hand(_deal_game(rules, seed, d, deals), seat_agents, ds).result
            assert res is not None
            scores[k, g] = [float(x) for x in res.scores]
            if res.landlord is not None and res.winner_side is not None:
                landlord[k, g] = res.landlord
                landlord_won[k, g] = 1 if res.winner_side == "landlord" else 0
    return scores, landlord, landlord_won


def head_to_head(a: Any, b: Any, rules: Rules, games: int = 100, seed: int = 0, *,
                 deals: Optional[Sequence[Mapping[str, Any]]] = None, first_deal: int = 0,
                 backend: str = "local", chunks: Optional[int] = None) -> HeadToHeadResult:
    """Plays agent ``a`` (A) against agent ``b`` (B) on ``games`` duplicate deals, each deal
    under every assignment of A to k of the seats, 1 <= k < players, B in the others
    (``seat_assignments``: CLASSIC3 6 hands a deal, TWOP 2, BENGBU4 14), whole hands, bidding
    included, and returns the hands with their measures (``HeadToHeadResult``): the
    role-balanced win rate and the score margin, whose values for equal agents are 0.5 and 0,
    A's share of the landlord seats and the seat win rate, each with a 95 % interval over deals.

    Agents are as ``evaluate`` takes them (bots or callables). Each seat of each hand gets a
    fresh copy of its agent, reseeded (``reseed(seed)``) from the deal and the seat only, so two
    equal agents play the same hand in every assignment of a deal, and the measures of equal
    deterministic agents are exactly at parity. ``deals``, ``first_deal``, ``backend`` and
    ``chunks`` are those of ``evaluate``.

    >>> import ddz
    >>> res = ddz.head_to_head(ddz.bots.RuleBot(), ddz.bots.RuleBot(), ddz.Rules.classic(), games=3, seed=1)
    >>> res.scores.shape, res.role_balanced_wp.value, res.score_margin.value
    ((3, 6, 3), 0.5, 0.0)
    """
    if not isinstance(rules, Rules):
        raise ArgumentTypeError(f"rules must be a ddz.Rules, not {shown(rules)}")
    _check_agent(a, 0)
    _check_agent(b, 1)
    games, seed, first_deal = _check_run(rules, games, seed, first_deal, deals)
    if backend == "local":
        scores, landlord, landlord_won = _head_to_head_range(a, b, rules, first_deal, games, seed, deals)
    elif backend == "ray":
        from .ray_backend import split_range
        parts = split_range(_head_to_head_range, first_deal, games, chunks,
                            lambda first, count: (a, b, rules, first, count, seed, deals))
        n, g = rules.players, 2**rules.players - 2
        empty = (np.zeros((0, g, n)), np.zeros((0, g), dtype=np.int8), np.zeros((0, g), dtype=np.int8))
        scores, landlord, landlord_won = (np.concatenate([p[j] for p in parts] or [empty[j]]) for j in range(3))
    else:
        raise ArgumentError(f"backend must be 'local' or 'ray', not {shown(backend)}")
    names = _unique_names([_name(a), _name(b)])
    return HeadToHeadResult(rules=rules, deals=games, seed=seed, first_deal=first_deal, names=(names[0], names[1]),
                            assignments=seat_assignments(rules.players), scores=scores, landlord=landlord,
                            landlord_won=landlord_won)
