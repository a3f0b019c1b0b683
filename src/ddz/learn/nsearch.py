"""``NeuralSearchBot``: a trained model's play searched over sampled deals, the exact solver at
the end, and bids judged by playing the sampled deals out.

At a play decision the bot

1. scores its legal actions with the model (``NeuralBot.scores``: the Q values of its seat's
   observation, no hidden card);
2. samples ``worlds`` deals consistent with what its seat has seen (``ddz.sample_deals``) and
   probes the exact open-hand solver on the most frequent one within ``node_limit`` nodes. When
   the probe completes (the hands are small), every sampled deal is solved within the same node
   limit and the action winning in the most deals is played, ties to the highest Q;
3. otherwise keeps the model's ``topk`` best actions as the candidates (``topk=0``: SearchBot's
   candidates, one play of each shape), plays each out in
   ``rollout_worlds`` sampled deals by the core's fast rollout policy (``_core._pimc``) and plays
   the candidate of highest ``(1 - blend) * rollout win rate + blend * model win rate`` (the
   model's win rate ``(W + 1) / 2``, W the win value: a ``wp`` model's Q, a two-headed ``res``
   model's win head; a model of another objective only picks the candidates, ``blend`` 0).

At an auction decision (CLASSIC3's and TWOP's call and rob, BENGBU4's bids) with ``bids="search"``
the bot samples ``bid_worlds`` deals (the kitty among the cards it cannot see), gives itself the
kitty as the landlord in each, and plays each out by the rollout policy: the share of those
deals the landlord wins, ``p``, is its hand's worth as the landlord. It calls (or rises to the
next bid) when ``p >= call_at``, robs when ``p >= rob_at``. Every other decision (shows, 明牌开始,
翻身 / 压迫, 明打 / 暗打, BENGBU4's grab) is the model's when it is a whole-hand model, else
``RuleBot``'s; ``others="rule"`` makes them ``RuleBot``'s for any model. ``bids="model"`` takes
the auction's decisions from the model (``RuleBot``'s for a play-phase model), ``bids="rule"``
from ``RuleBot``, the others included.

Why ``others="rule"``: a model trained in self-play may show its hand where a search opponent
profits from it. TWOP's shipped model chooses 明牌开始 before every deal: its hand is then open to
the opponent's search for the whole hand, and a shower becomes the landlord when nobody calls,
whatever its own bids decided. ``RuleBot`` never shows before the deal.

``NeuralSearchBot.shipped(variant)`` is the strongest search measured for a variant: its shipped
model with ``STRONGEST``'s settings for it.

The budget is counted, never timed (``worlds``, ``node_limit``, ``rollout_worlds``,
``bid_worlds``), so a decision depends only on the game, the seed and the model, never on the
machine's load. ``last`` records what the last decision did (``"how"``: ``"single"``, ``"exact"``,
``"rollouts"`` or ``"bid"``; the nodes the solver searched, the deals played out; after rollouts
``"values"``, each candidate's blended value by token; after the exact search ``"wins"``). The solver
counts the visit that finds its budget spent, so a deal's search reports at most
``node_limit + 1`` nodes.
"""
from __future__ import annotations

import os
from collections import Counter
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

from .. import _core
from ..core.args import int_arg, number_arg
from ..core.cards import deck_ids
from ..core.errors import ArgumentError
from ..search.rule_bot import Bot, RuleBot
from ..search.sample import _BY_SEATS, _word, sample_deals
from ..search.search_bot import _canonical, _position, _token
from .bot import NeuralBot, _seat_of
from .model import NeuralModel
from .nets import acting_value

__all__ = ["NeuralSearchBot", "BIDS", "OTHERS", "STRONGEST", "strongest_settings", "exact_wins"]

#: How a ``NeuralSearchBot`` makes its auction decisions.
BIDS = ("search", "model", "rule")
#: Who takes a ``NeuralSearchBot``'s decisions outside the play and the calls, bids and robs.
OTHERS = ("model", "rule")

#: Each variant's settings of the strongest ``NeuralSearchBot`` measured over its shipped model
#: against SearchBot at 4,000 nodes (docs/models.md, "The search over the network"): CLASSIC3
#: 0.636 / +0.75 and TWOP 0.491 / +1.46 over 2,000 deals, BENGBU4 0.677 / +0.76 over the first
#: 980. Why they differ: a wider search paid in CLASSIC3 and TWOP; in BENGBU4 a higher bar and
#: ``RuleBot``'s grabs and shows did (the shipped decisions network grabs wherever it may, a seat
#: SearchBot's three farmers beat). ``NeuralSearchBot.shipped`` and ``strongest_settings`` read it.
STRONGEST: Dict[str, Dict[str, Any]] = {
    "classic": {"rollout_worlds": 1000, "topk": 0, "node_limit": 16000, "worlds": 48, "call_at": 0.7, "rob_at": 0.85},
    "two_player": {"rollout_worlds": 1000, "topk": 0, "node_limit": 16000, "worlds": 48, "call_at": 0.75,
                   "rob_at": 0.85},
    "bengbu": {"others": "rule", "call_at": 0.8},
}


def strongest_settings(rules: Any) -> Dict[str, Any]:
    """The keyword arguments of the strongest ``NeuralSearchBot`` measured for the variant of
    ``rules`` (a ``Rules`` value, a variant name or an alias): a copy of ``STRONGEST``'s entry."""
    from .shipped import variant_name
    return dict(STRONGEST.get(variant_name(rules), {}))


# The auction tokens a decision is judged by the landlord's worth p at (the others: the model's).
_CALLS = frozenset({"CALL", "BID1", "ROB"})


def _word_ranks(word: int) -> List[int]:
    """The ranks of a rank-count word, one entry per card."""
    out: List[int] = []
    r = 0
    while word:
        out.extend([r] * (word & 0xF))
        word >>= 4
        r += 1
    return out


def exact_wins(game: Any, seat: int, obs: Dict[str, Any], seed: int, worlds: int, node_limit: int,
               table_mb: float = 16) -> Tuple[Optional[Counter], Dict[str, Any]]:
    """SearchBot's exact search under a node budget: ``worlds`` deals sampled from ``obs`` (seat
    ``seat``'s observation), the most frequent probed first; when the probe completes within
    ``node_limit`` nodes every deal is solved within the same limit. Returns the wins per action
    token (each deal counted with its multiplicity), or None when the probe runs out, and what was
    done (``"how"``, the nodes searched)."""
    rows = sample_deals(obs, worlds, seed=seed)
    distinct = Counter(tuple(int(w) for w in r) for r in rows).most_common()
    sides = [0 if s == obs["landlord"] else 1 for s in range(len(obs["cards_left"]))]
    top, owner, passes, left = _position(game, obs)
    wins: Counter = Counter()
    nodes = solved = most = 0
    for k, (world, mult) in enumerate(distinct):
        res = _core._solve(game.rules, list(world), seat, top, owner, passes, left, sides, True, 0.0,
                           node_limit, table_mb)
        nodes += res[4]
        most = max(most, res[4])
        if not res[0]:
            if k == 0:
                return None, {"how": "probe", "nodes": nodes, "probe_nodes": res[4]}
            continue
        solved += mult
        for m in res[2]:
            wins[_token(m)] += mult
    return wins, {"how": "exact", "nodes": nodes, "most_nodes": most, "solved": solved, "worlds": len(rows),
                  "wins": dict(wins)}


class NeuralSearchBot(Bot):
    """A model's play searched over sampled deals (see the module docstring).

    ``model``: a model file or a ``NeuralModel``. ``worlds`` (1..10,000): deals sampled for the
    exact search; ``node_limit`` (1..2**32): the solver's nodes per deal; ``rollout_worlds``
    (1..100,000): deals each candidate is played out in; ``topk`` (0..1,000): the model's best
    actions that are candidates for the rollouts (0: the rollout policy's candidates, SearchBot's:
    one play of each shape, the one breaking the fewest groups); ``blend`` (0..1): the model's
    weight beside the rollouts; ``bids``: ``"search"``, ``"model"`` or ``"rule"``; ``others``:
    ``"model"`` or ``"rule"``, who takes the decisions that are neither plays nor calls, bids and
    robs (shows, doubles, 明打 / 暗打, the grab); ``bid_worlds`` (1..100,000), ``call_at`` and
    ``rob_at`` (0..1): the auction's play-outs and thresholds; ``seed`` makes the
    sampling reproducible (``ddz.evaluate`` reseeds each hand's copy)."""

    def __init__(self, model: Union[str, "os.PathLike[str]", NeuralModel], *, worlds: int = 32,
                 node_limit: int = 4000, rollout_worlds: int = 500, topk: int = 4, blend: float = 0.5,
                 bids: str = "search", others: str = "model", bid_worlds: int = 256, call_at: float = 0.7,
                 rob_at: float = 0.85, seed: int = 0, table_mb: float = 16, name: Optional[str] = None) -> None:
        self.net = NeuralBot(model)
        self.rules = self.net.rules
        self.worlds = int_arg(worlds, "worlds", 1, 10_000)
        self.node_limit = int_arg(node_limit, "node_limit", 1, 2**32)
        self.rollout_worlds = int_arg(rollout_worlds, "rollout_worlds", 1, 100_000)
        self.topk = int_arg(topk, "topk", 0, 1000)
        self.blend = number_arg(blend, "blend", 0, 1, lo_open=False)
        if bids not in BIDS:
            raise ArgumentError(f"bids must be one of {', '.join(BIDS)}, not {bids!r}")
        self.bids = bids
        if others not in OTHERS:
            raise ArgumentError(f"others must be one of {', '.join(OTHERS)}, not {others!r}")
        self.others = others
        self.bid_worlds = int_arg(bid_worlds, "bid_worlds", 1, 100_000)
        self.call_at = number_arg(call_at, "call_at", 0, 1, lo_open=False)
        self.rob_at = number_arg(rob_at, "rob_at", 0, 1, lo_open=False)
        self.table_mb = number_arg(table_mb, "table_mb", 0, 4096)
        self.name = name or "NeuralSearchBot"
        self._seed = int_arg(seed, "seed", 0, 2**64 - 1)
        self._decisions = 0
        self._rule = RuleBot()
        # a win value to blend: a wp model's Q, or a two-headed model's first head
        self._wp = self.net.model.meta.get("objective") == "wp" or self.net.model.heads == 2
        self.last: Dict[str, Any] = {}

    @classmethod
    def shipped(cls, variant_or_rules: Any, **settings: Any) -> "NeuralSearchBot":
        """The strongest search measured for a variant (``"classic"``, ``"twop"``, ``"bengbu"``,
        any alias, or a ``Rules`` value): the model shipped for it (``ddz.learn.shipped_model``;
        ``ModelError`` when none is) with the variant's ``STRONGEST`` settings, each of which a
        keyword argument overrides (``NeuralSearchBot.shipped("bengbu", seed=7)``)."""
        from .shipped import shipped_model
        return cls(shipped_model(variant_or_rules), **{**strongest_settings(variant_or_rules), **settings})

    def __deepcopy__(self, memo: Dict[int, Any]) -> "NeuralSearchBot":
        twin = object.__new__(NeuralSearchBot)
        twin.__dict__.update(self.__dict__)  # the weights are shared; the counters are the copy's own
        twin.last = {}
        return twin

    def reseed(self, seed: int) -> None:
        """Restarts the bot's sampling from ``seed``."""
        self._seed = int_arg(seed, "seed") % 2**64
        self._decisions = 0

    def _next_seed(self) -> int:
        self._decisions += 1
        return (self._seed * 1_000_003 + self._decisions) % 2**64

    # ---- decisions ----
    def act(self, game: Any, seat: int) -> Any:
        seat = _seat_of(game, seat)
        self.last = {}
        if game.phase != "PLAY":
            return self._decide(game, seat)
        ids, out = self.net.scores(game, seat, heads=True)
        q = acting_value(out, self.net.model.net)
        win = out[:, 0] if self._wp else None  # the win value: +1 won, -1 lost
        best_q = int(ids[int(np.argmax(q))])
        if len(ids) == 1:
            self.last = {"how": "single"}
            return best_q
        obs = game.observation(seat)
        seed = self._next_seed()
        tokens = [_canonical(t, game.rules) for t in game.legal_actions()]  # legal_action_ids' order
        wins = self._exact(game, seat, obs, seed)
        if wins is not None:
            top = max(wins.values(), default=0)
            cand = [i for i, t in enumerate(tokens) if wins.get(t, -1) == top]
            return int(ids[max(cand, key=lambda i: q[i])]) if cand else best_q
        value = self._rollouts(game, seat, obs, seed, tokens, q, win)
        return int(ids[max(value, key=lambda i: (value[i], q[i]))])

    def _exact(self, game: Any, seat: int, obs: Dict[str, Any], seed: int) -> Optional[Counter]:
        """Wins per action token over the sampled deals, or None when the probe runs out."""
        wins, self.last = exact_wins(game, seat, obs, seed, self.worlds, self.node_limit, self.table_mb)
        return wins

    def _rollouts(self, game: Any, seat: int, obs: Dict[str, Any], seed: int, tokens: List[str],
                  q: Any, win: Any) -> Dict[int, float]:
        """The value of each candidate (an index into the legal ids): the rollouts' win rate
        blended with the model's."""
        sides = [0 if s == obs["landlord"] else 1 for s in range(len(obs["cards_left"]))]
        top, owner, passes, left = _position(game, obs)
        rows = sample_deals(obs, self.rollout_worlds, seed=(seed ^ 0x9E3779B97F4A7C15) % 2**64)
        moves: Optional[List[Any]] = None
        if self.topk:
            keep = [int(i) for i in np.argsort(-q, kind="stable")[: self.topk]]
            want = {tokens[i]: i for i in keep}
            moves = []
            for m in game.play_state.legal_moves():
                t = _canonical(_token(m), game.rules)
                if want.pop(t, None) is not None:
                    moves.append(m)
        cands, won, done, _ = _core._pimc(game.rules, rows, seat, top, owner, passes, left, sides, moves, 0.0, 0)
        first = {t: i for i, t in reversed(list(enumerate(tokens)))}  # a token's first legal index
        index = [first[_canonical(_token(m), game.rules)] for m in cands]
        value: Dict[int, float] = {}
        blend = self.blend if win is not None else 0.0
        for i, w in zip(index, won):
            model = (float(win[i]) + 1.0) / 2.0 if win is not None else 0.0
            value[i] = (1.0 - blend) * (w / max(done, 1)) + blend * model
        self.last.update({"how": "rollouts", "rollout_worlds": done, "candidates": len(cands),
                          "rollouts": {tokens[i]: int(w) for i, w in zip(index, won)},
                          "values": {tokens[i]: value[i] for i in index}})
        return value

    # ---- the auction ----
    def _decide(self, game: Any, seat: int) -> Any:
        legal: List[str] = game.legal_actions()
        judged = any(t in _CALLS for t in legal)
        way = self.bids if judged or self.bids == "rule" else self.others
        if way == "model" and self.net.model.whole:
            return self.net.act(game, seat)
        if way != "search":  # RuleBot's, and a play-phase model's auction
            return self._rule.act(game, seat)
        p = self.landlord_worth(game, seat)
        self.last = {"how": "bid", "p": p, "bid_worlds": self.bid_worlds}
        if "ROB" in legal:
            return "ROB" if p >= self.rob_at else "NO_ROB"
        if "CALL" in legal:
            return "CALL" if p >= self.call_at else "NO_CALL"
        # BENGBU4: the highest bid whose threshold p reaches (call_at, then a step of 0.1 a bid)
        for k, bid in ((3, "BID3"), (2, "BID2"), (1, "BID1")):
            if bid in legal and p >= self.call_at + 0.1 * (k - 1):
                return bid
        return "NO_CALL" if "NO_CALL" in legal else self._rule.act(game, seat)

    def landlord_worth(self, game: Any, seat: int) -> float:
        """The share of ``bid_worlds`` sampled deals that ``seat``, given the kitty as the
        landlord, wins when the deal is played out by the rollout policy (leading first)."""
        obs = game.observation(seat)
        rules = game.rules
        n = rules.players
        layout = _BY_SEATS[n]
        seed = self._next_seed()
        rows = sample_deals(obs, self.bid_worlds, seed=seed)
        deck = _word(set(deck_ids(layout.decks)))
        rng = np.random.default_rng(seed)
        sides = [0 if s == seat else 1 for s in range(n)]
        wins = 0
        for row in rows:
            hands = [int(w) for w in row]
            rest = _word_ranks(deck - sum(hands))
            kitty = rng.choice(len(rest), size=layout.kitty, replace=False).tolist() if layout.kitty else []
            hands[seat] += sum(1 << (4 * rest[k]) for k in kitty)
            out, _ = _core._rollout(rules, hands, seat, None, seat, 0, [-1] * n, sides)
            wins += int(out == seat)
        return wins / len(rows)

