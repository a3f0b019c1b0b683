"""Agents that combine a trained model with SearchBot's search, for #25's question of what the
network buys inside a search (``benchmarks/match.py`` seats them as ``neural+exact:NODES`` and
``neural+search:NODES[:TOPK]``, with the variant's shipped model, or ``...@MODEL`` for a file).

* ``NeuralExact``: the model decides (bids included); at a play decision where SearchBot's exact
  probe solves its most frequent sampled deal within ``node_limit`` nodes (the endgame), the action
  winning in the most sampled deals is played instead, ties to the model's highest Q.
* ``NeuralSearch``: the model bids; every play decision is SearchBot's (the exact search where the
  probe solves, otherwise the C++ rollouts), limited to the model's ``topk`` best actions when given,
  ties to the model's highest Q.

Not part of the package: measurements only (docs/models.md, "The network inside a search").
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Dict, List, Optional

import numpy as np

from ddz import _core
from ddz.learn import NeuralBot
from ddz.learn.nsearch import exact_wins
from ddz.search.sample import sample_deals
from ddz.search.search_bot import _canonical, _position, _token


class NeuralExact(NeuralBot):
    """The model, with SearchBot's exact search over sampled deals where it completes."""

    def __init__(self, model: Any, node_limit: int = 26000, worlds: int = 32, seed: int = 0) -> None:
        super().__init__(model, name=type(self).__name__)
        self.node_limit, self.worlds, self._seed, self._decisions = node_limit, worlds, seed, 0
        self.stats: Counter = Counter()  # decisions by how they were made
        # evaluate's per-hand copies are this object (NeuralBot's deepcopy), reseeded per hand: the
        # hands are played one after another, so the sampling stays reproducible

    def reseed(self, seed: int) -> None:
        self._seed, self._decisions = seed % 2**64, 0

    def _exact(self, game: Any, seat: int, obs: Dict[str, Any], seed: int) -> Optional[Counter]:
        """Wins per action token over the sampled deals, or None when the probe runs out."""
        return exact_wins(game, seat, obs, seed, self.worlds, self.node_limit)[0]

    def _searched(self, game: Any, seat: int, obs: Dict[str, Any], seed: int, ids: Any, q: Any) -> Optional[Counter]:
        wins = self._exact(game, seat, obs, seed)
        self.stats["exact" if wins is not None else "network"] += 1
        return wins

    def act(self, game: Any, seat: int) -> Any:
        if game.phase != "PLAY":
            return super().act(game, seat)
        ids, q = self.scores(game, seat)
        best_q = int(ids[int(np.argmax(q))])
        if len(ids) == 1:
            return best_q
        obs = game.observation(seat)
        self._decisions += 1
        seed = (self._seed * 1_000_003 + self._decisions) % 2**64
        wins = self._searched(game, seat, obs, seed, ids, q)
        if not wins:
            return best_q
        top = max(wins.values())
        tokens = [_canonical(a, game.rules) for a in game.legal_actions()]  # legal_action_ids' order
        cand = [i for i, t in enumerate(tokens) if wins.get(t, -1) == top]
        return int(ids[max(cand, key=lambda i: q[i])]) if cand else best_q


class NeuralSearch(NeuralExact):
    """SearchBot's play (exact search or rollouts) with the model's bids, candidates and ties."""

    def __init__(self, model: Any, node_limit: int = 4000, topk: Optional[int] = None, rollout_worlds: int = 1000,
                 **kw: Any) -> None:
        super().__init__(model, node_limit=node_limit, **kw)
        self.topk, self.rollout_worlds = topk, rollout_worlds

    def _searched(self, game: Any, seat: int, obs: Dict[str, Any], seed: int, ids: Any, q: Any) -> Optional[Counter]:
        wins = self._exact(game, seat, obs, seed)
        if wins is not None:
            self.stats["exact"] += 1
            return wins
        self.stats["rollouts"] += 1
        tokens = [_canonical(a, game.rules) for a in game.legal_actions()]
        keep = np.argsort(-q, kind="stable")[: self.topk]
        want = {tokens[i] for i in keep}
        moves: List[Any] = [m for m in game.play_state.legal_moves() if _canonical(_token(m), game.rules) in want]
        sides = [0 if s == obs["landlord"] else 1 for s in range(len(obs["cards_left"]))]
        top, owner, passes, left = _position(game, obs)
        rows = sample_deals(obs, self.rollout_worlds, seed=(seed ^ 0x9E3779B97F4A7C15) % 2**64)
        cands, won, _, _ = _core._pimc(game.rules, rows, seat, top, owner, passes, left, sides, moves, 0.0, 0)
        return Counter({_canonical(_token(m), game.rules): w for m, w in zip(cands, won)})


class Peek:
    """A bound, not a fair agent: SearchBot that sees every hand. At a play decision the exact
    solver searches the true position (every hand open) within ``node_limit`` nodes; when it
    completes and the seat's side can win, a winning action is played (SearchBot's own choice
    when it is one); otherwise (the position lost with best play, or too large to solve) SearchBot's
    choice. It bids as SearchBot does (as ``RuleBot``). What it wins against SearchBot bounds what
    any agent that sees only its own hand can win by its play: the same auction, perfect play
    wherever the solver reaches."""

    def __init__(self, node_limit: int = 200_000, search_nodes: int = 4000) -> None:
        from ddz.bots import SearchBot
        self.search = SearchBot(time_per_move=None, node_limit=search_nodes)
        self.node_limit = node_limit
        self.stats: Counter = Counter()  # play decisions by how they were made

    def reseed(self, seed: int) -> None:
        self.search.reseed(seed)

    def act(self, game: Any, seat: int) -> Any:
        import ddz
        mine = self.search.act(game, seat)
        legal = game.legal_actions()
        if game.phase != "PLAY" or len(legal) == 1:
            return mine
        sol = ddz.solve(game.play_state, all_moves=True, node_limit=self.node_limit)
        if not sol.complete or not sol.win:
            self.stats["unsolved" if not sol.complete else "lost"] += 1
            return mine
        rules = game.rules
        winning = {_canonical(_token(m), rules) for m in sol.moves}
        mine_token = mine if isinstance(mine, str) else game.clone().apply(mine, seat=seat)
        if _canonical(mine_token, rules) in winning:
            self.stats["searchbot wins"] += 1
            return mine
        self.stats["solver's win"] += 1
        return next(t for t in legal if _canonical(t, rules) in winning)
