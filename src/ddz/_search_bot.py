"""``SearchBot``: determinised search over sampled deals (exported as ``ddz.bots.SearchBot``).

For a play decision it samples the hidden hands from its seat's observation
(``ddz.sample_deals``), solves each sampled deal exactly as an open-hand position
(``ddz.solve`` with every winning first action) within a time or node budget, and plays
the action that wins in the most sampled deals. When no sampled deal could be solved in
the budget (large hands early in the hand), or several actions tie, it plays what
``RuleBot`` would among them. Auction decisions are ``RuleBot``'s.
"""
from __future__ import annotations

import time
from collections import Counter
from typing import Any, Dict, List, Optional, Tuple

from . import _core
from ._core import classify
from .bots import Bot, RuleBot
from ._auction_bengbu import bomb_limits_from_bids
from .sample import sample_deals
from .errors import ArgumentError

__all__ = ["SearchBot"]


class SearchBot(Bot):
    """Sample the hidden hands, solve each sampled deal, play the action winning most.

    ``time_per_move`` (seconds, default 0.02) bounds the search of one decision;
    ``node_limit`` (optional) bounds each sampled deal's search instead or as well;
    ``worlds`` is how many deals are sampled (duplicates are solved once and counted with
    their multiplicity); ``seed`` makes the bot reproducible. Exact when the hidden cards
    are few: then the samples cover the consistent holdings and each is solved."""

    def __init__(self, time_per_move: Optional[float] = 0.02, node_limit: Optional[int] = None, worlds: int = 32,
                 seed: int = 0, table_mb: float = 16) -> None:
        if time_per_move is None and node_limit is None:
            raise ArgumentError("SearchBot needs a time_per_move or a node_limit (or both)")
        if time_per_move is not None and not time_per_move > 0:
            raise ArgumentError(f"time_per_move must be positive, not {time_per_move!r}")
        if node_limit is not None and (isinstance(node_limit, bool) or not isinstance(node_limit, int)
                                       or node_limit <= 0):
            raise ArgumentError(f"node_limit must be a positive int, not {node_limit!r}")
        if isinstance(worlds, bool) or not isinstance(worlds, int) or worlds < 1:
            raise ArgumentError(f"worlds must be a positive int, not {worlds!r}")
        self.time_per_move = time_per_move
        self.node_limit = node_limit
        self.worlds = worlds
        self.table_mb = table_mb
        self._seed = seed
        self._decisions = 0
        self._rule = RuleBot()
        self.last: Dict[str, Any] = {}  # what the last play decision saw: worlds solved, wins per action

    def reseed(self, seed: int) -> None:
        """Restarts the bot's sampling from ``seed`` (``ddz.evaluate`` reseeds each hand's copy)."""
        self._seed = seed % 2**64
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
        rows = sample_deals(obs, self.worlds, seed=(self._seed * 1_000_003 + self._decisions) % 2**64)
        worlds = Counter(tuple(int(w) for w in r) for r in rows)
        n = len(obs["cards_left"])
        landlord = obs["landlord"]
        sides = [0 if s == landlord else 1 for s in range(n)]
        top, owner, passes = _trick(obs, rules)
        left = _bomb_plays_left(obs, rules)
        wins: Counter = Counter()
        solved = 0
        distinct = worlds.most_common()
        for k, (world, mult) in enumerate(distinct):
            t = 0.0
            if self.time_per_move is not None:
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
                    break
                continue
            solved += mult
            for m in res[2]:
                wins["PASS" if m.is_pass else f"PLAY {m}"] += mult
        self.last = {"worlds": sum(worlds.values()), "distinct": len(worlds), "solved": solved, "wins": dict(wins)}
        if not wins:
            return fallback
        best = max(wins.values())
        top_actions = [a for a, w in wins.items() if w == best]
        fb = _canonical(fallback, rules)
        if fb in top_actions:
            return fallback
        return sorted(top_actions)[0]


def _canonical(token: str, rules: Any) -> str:
    """A play token in rank notation: 'PLAY 3s 3h' and 'PLAY 33' both give 'PLAY 33'."""
    if not token.startswith("PLAY "):
        return token
    body = token[5:]
    names = " " in body or any(ch in "shcd'" for ch in body)
    ranks = "".join(c[0] for c in body.split()) if names else body
    return f"PLAY {_core.Cards(ranks, decks=rules.decks)}"


def _trick(obs: Dict[str, Any], rules: Any) -> Tuple[Optional[_core.Move], int, int]:
    """(the play to beat, its owner, passes since it) from the public history. The play is
    read as a lead (under the default rules every multiset has one reading, §2.0.4)."""
    top = obs["top"]
    seat = obs["seat"]
    if top is None:
        return None, seat, 0
    passes = 0
    for _, token in reversed(obs["history"]):
        if token != "PASS":
            break
        passes += 1
    return classify(top[1], rules), top[0], passes


def _bomb_plays_left(obs: Dict[str, Any], rules: Any) -> List[int]:
    """Bomb plays each seat may still make (-1 = unlimited): BENGBU4 limits from the bid
    log (§2.3.6) less the bomb plays made; unlimited elsewhere."""
    n = len(obs["cards_left"])
    if rules.variant != "bengbu":
        return [-1] * n
    history = obs["history"]
    start = max((i + 1 for i, (s, _) in enumerate(history) if s is None), default=0)
    bids: List[Tuple[int, str, int]] = []
    h = 0
    used = [0] * n
    for s, token in history[start:]:
        if token in ("NO_CALL", "GRAB") or token.startswith("BID"):
            bids.append((s, token, h))
            if token.startswith("BID"):
                h = int(token[3])
        elif token.startswith("PLAY "):
            m = classify("".join(c[0] for c in token[5:].split()), rules)
            if m is not None and m.is_bomb:
                used[s] += 1
    limits = bomb_limits_from_bids(bids, obs["landlord"])
    return [-1 if lim is None else max(lim - used[s], 0) for s, lim in enumerate(limits)]

