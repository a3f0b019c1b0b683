"""``SearchBot``: determinised search over sampled deals (exported as ``ddz.bots.SearchBot``).

For a play decision it samples the hidden hands from its seat's observation
(``ddz.sample_deals``). When the sampled deals are small enough to solve exactly within the
budget, it solves each as an open-hand position (``ddz.solve`` with every winning first
action) and plays the action that wins in the most sampled deals. Otherwise (large hands,
early in the hand) it plays each candidate action out to the end in many sampled deals by a
fast fixed policy in C++ (determinised Monte-Carlo, ``_core._pimc``) and plays the one
winning in the most. Ties go to what ``RuleBot`` would play when it is among them. Auction
decisions are ``RuleBot``'s. It reads the observation, the rules and the public part of the
play state (the play to beat with its reading, passes since it, bomb plays made, bomb limits).
"""
from __future__ import annotations

import time
from collections import Counter
from typing import Any, Dict, List, Optional, Tuple

import math

from .. import _core
from ..core.args import int_arg, number_arg
from .rule_bot import Bot, RuleBot
from ..core.errors import ArgumentError
from .sample import MAX_DEALS, sample_deals
from .solver import MAX_TABLE_MB

# The most deals a decision samples for the exact search (each is solved).
MAX_WORLDS = 100_000

__all__ = ["SearchBot"]


class SearchBot(Bot):
    """Sample the hidden hands; solve each sampled deal, or play each candidate out in many.

    ``time_per_move`` (seconds, positive, default 0.02; ``math.inf`` = none, then with a
    ``node_limit``) bounds the search of one decision; ``node_limit`` (optional, a positive
    int below 2**64) bounds each sampled deal's exact search instead or as well; ``worlds`` (1..100,000) is how many
    deals are sampled for the exact search (duplicates are solved once and counted with
    their multiplicity); ``rollout_worlds`` (1..1,000,000) how many for the rollouts (at
    most: the time budget usually stops them sooner); ``table_mb`` (MiB, in (0, 4096]) the
    solver's table; ``seed`` (0..2**64-1) makes the bot reproducible (with
    ``time_per_move=None`` its decisions depend on the seed only). Ints may be numpy
    integers; an argument out of range raises ``ArgumentError`` here, of the wrong type
    ``ArgumentTypeError``.

    A decision first solves the most frequent sampled deal within a quarter of the budget.
    If that completes, every sampled deal is solved (as far as the budget goes) and the
    action winning in the most is played: exact when the hidden cards are few. If not (large
    hands), the bot evaluates candidate actions by rollouts (``_core._pimc``): each is
    played out to the end in each sampled deal by a fast fixed policy, and the one winning
    in the most deals is played. Ties go to RuleBot's choice when it is among them."""

    def __init__(self, time_per_move: Optional[float] = 0.02, node_limit: Optional[int] = None, worlds: int = 32,
                 seed: int = 0, table_mb: float = 16, rollout_worlds: int = 1000) -> None:
        if time_per_move is None and node_limit is None:
            raise ArgumentError("SearchBot needs a time_per_move or a node_limit (or both)")
        if time_per_move is not None:
            time_per_move = number_arg(time_per_move, "time_per_move", 0)  # math.inf: no time limit
        if node_limit is not None:
            node_limit = int_arg(node_limit, "node_limit", 1, 2**64 - 1)
        elif time_per_move == math.inf:
            raise ArgumentError("time_per_move=inf sets no limit: give a node_limit with it")
        worlds = int_arg(worlds, "worlds", 1, MAX_WORLDS)
        rollout_worlds = int_arg(rollout_worlds, "rollout_worlds", 1, MAX_DEALS)
        table_mb = number_arg(table_mb, "table_mb", 0, MAX_TABLE_MB)
        seed = int_arg(seed, "seed", 0, 2**64 - 1)
        self.time_per_move = time_per_move
        self.node_limit = node_limit
        self.worlds = worlds
        self.rollout_worlds = rollout_worlds
        self.table_mb = table_mb
        self._seed = seed
        self._decisions = 0
        self._rule = RuleBot()
        # What the last play decision saw: worlds sampled and solved, wins per action; after
        # rollouts also "rollout_worlds" (deals played out) and "rollouts" (wins per candidate).
        self.last: Dict[str, Any] = {}

    def reseed(self, seed: int) -> None:
        """Restarts the bot's sampling from ``seed`` (``ddz.evaluate`` reseeds each hand's copy)."""
        self._seed = int_arg(seed, "seed") % 2**64
        self._decisions = 0

    def act(self, game: Any, seat: int) -> str:
        obs = game.observation(seat)
        self.last = {}
        if obs["phase"] != "PLAY" or not obs["legal_actions"]:
            return self._rule.act(game, seat)
        fallback = self._rule.act(game, seat)
        rules = game.rules
        if len(obs["legal_actions"]) == 1:
            return fallback
        start = time.perf_counter()
        self._decisions += 1
        seed = (self._seed * 1_000_003 + self._decisions) % 2**64
        rows = sample_deals(obs, self.worlds, seed=seed)
        worlds = Counter(tuple(int(w) for w in r) for r in rows)
        n = len(obs["cards_left"])
        landlord = obs["landlord"]
        sides = [0 if s == landlord else 1 for s in range(n)]
        top, owner, passes, left = _position(game, obs)
        wins: Counter = Counter()
        solved = 0
        probe_failed = False
        distinct = worlds.most_common()
        for k, (world, mult) in enumerate(distinct):
            t = 0.0
            if self.time_per_move is not None and self.time_per_move != math.inf:
                remaining = self.time_per_move - (time.perf_counter() - start)
                if remaining <= 0:
                    break
                # The first deal probes with a quarter of the budget: if even that cannot
                # solve it, the others (as large) will not be solved either.
                t = remaining / 4 if k == 0 else remaining / (len(distinct) - k)
            res = _core._solve(rules, list(world), seat, top, owner, passes, left, sides, True, t,
                               self.node_limit or 0, self.table_mb)
            if not res[0]:
                if k == 0:
                    probe_failed = True
                    break
                continue
            solved += mult
            for m in res[2]:
                wins[_token(m)] += mult
        self.last = {"worlds": sum(worlds.values()), "distinct": len(worlds), "solved": solved, "wins": dict(wins)}
        scores: Dict[str, int] = dict(wins)
        if probe_failed:
            scores = self._rollouts(rules, obs, seat, top, owner, passes, left, sides, seed, start)
        if not scores:
            return fallback
        best = max(scores.values())
        top_actions = [a for a, w in scores.items() if w == best]
        fb = _canonical(fallback, rules)
        if fb in top_actions:
            return fallback
        return top_actions[0] if probe_failed else sorted(top_actions)[0]

    def _rollouts(self, rules: Any, obs: Dict[str, Any], seat: int, top: Optional[_core.Move], owner: int,
                  passes: int, left: List[int], sides: List[int], seed: int, start: float) -> Dict[str, int]:
        """Wins per candidate action over rollout deals (in the candidates' order)."""
        rows = sample_deals(obs, self.rollout_worlds, seed=(seed ^ 0x9E3779B97F4A7C15) % 2**64)
        t = 0.0
        if self.time_per_move is not None and self.time_per_move != math.inf:
            t = max(self.time_per_move - (time.perf_counter() - start), 1e-9)
        cands, wins, done, _ = _core._pimc(rules, rows, seat, top, owner, passes, left, sides, None, t, 0)
        out = {_token(m): w for m, w in zip(cands, wins)}
        self.last.update({"rollout_worlds": done, "rollouts": out})
        return out


def _token(m: _core.Move) -> str:
    return "PASS" if m.is_pass else f"PLAY {m}"


def _canonical(token: str, rules: Any) -> str:
    """A play token in rank notation: 'PLAY 3s 3h' and 'PLAY 33' both give 'PLAY 33'."""
    if not token.startswith("PLAY "):
        return token
    body = token[5:]
    names = " " in body or any(ch in "shcd'" for ch in body)
    ranks = "".join(c[0] for c in body.split()) if names else body
    return f"PLAY {_core.Cards(ranks, decks=rules.decks)}"


def _position(game: Any, obs: Dict[str, Any]) -> Tuple[Optional[_core.Move], int, int, List[int]]:
    """(the play to beat with the reading it was played as, its owner, passes since it, bomb
    plays each seat may still make, -1 = unlimited): the public part of the play state."""
    ps = game.play_state
    top = ps.top
    move, owner = top if top is not None else (None, obs["seat"])
    limits = game.bomb_limits or [None] * len(obs["cards_left"])
    left = [-1 if lim is None else max(lim - ps.bombs_played(s), 0) for s, lim in enumerate(limits)]
    return move, owner, ps.passes, left
