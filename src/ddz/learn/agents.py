"""Agents named by a short spec, for matches (``ddz match``, ``benchmarks/match.py``), and the CPU
time of their decisions.

Specs: ``rule`` (RuleBot), ``random`` (RandomBot), ``search:NODES`` (SearchBot limited by a node
count, no clock: background load changes nothing; default 4000), ``neural`` (the variant's
shipped model) or ``neural:PATH`` (a model file), either with ``:bids=rule`` (RuleBot's bids, the
model's play), and ``nsearch[:ROLLOUT_WORLDS][:KEY=VALUE...][@PATH]``
(``NeuralSearchBot`` over the shipped model or the file PATH; each ``KEY=VALUE`` one of its
keyword arguments: ``nsearch:1000:topk=6:bids=rule``; ``strongest`` among them, the variant's
strongest measured settings, ``nsearch.STRONGEST``, which the parts after it override:
``nsearch:strongest:seed=3``). A path may also be given alone
(``runs/x/model.npz``): ``neural:`` that file.

``Timed(agent)`` measures the CPU time (``time.process_time``) of each of the agent's decisions
that has a choice (two legal actions or more); its per-hand copies (``ddz.evaluate`` and
``ddz.head_to_head`` copy agents for each hand) add to the same list. ``cpu_summary`` gives the
count, median, p99 and mean in milliseconds.
"""
from __future__ import annotations

import copy
import os
import time
from typing import Any, Dict, List, Optional

import numpy as np

from ..core.errors import ArgumentError
from ..core.rules import Rules
from ..search.rule_bot import Bot, RandomBot, RuleBot
from ..search.search_bot import SearchBot
from .shipped import shipped_model

__all__ = ["agent", "SPECS", "Timed", "cpu_summary", "BidsAsRuleBot"]

#: The spec forms ``agent`` reads (for help texts and error messages).
SPECS = ("rule, random, search[:NODES], neural[:PATH][:bids=rule], nsearch[:WORLDS][:strongest][:KEY=VALUE...][@PATH], "
         "or a model file")


def agent(spec: str, rules: Rules) -> Any:
    """The agent a spec names (see the module docstring) for a game under ``rules``; an
    ``ArgumentError`` for a spec it does not know."""
    kind, _, arg = spec.partition(":")
    if kind.startswith("nsearch@"):  # nsearch@PATH: no options
        kind, arg = "nsearch", kind[len("nsearch"):]
    if kind == "rule":
        return RuleBot()
    if kind == "random":
        return RandomBot(0)
    if kind == "search":
        return SearchBot(time_per_move=None, node_limit=int(arg or 4000))
    if kind == "neural":  # neural[:PATH][:bids=rule]
        from .bot import NeuralBot
        path, bids = arg, "model"
        if "bids=" in arg:
            path, _, bids = arg.rpartition("bids=")
            path = path.rstrip(":")
        return NeuralBot(path, bids=bids) if path else NeuralBot(shipped_model(rules), bids=bids)
    if kind == "nsearch":
        from .nsearch import NeuralSearchBot
        body, _, path = arg.partition("@")
        kw: Dict[str, Any] = {}
        for part in (x for x in body.split(":") if x):
            key, eq, val = part.partition("=")
            if part == "strongest":  # the variant's strongest measured settings, later parts overriding
                from .nsearch import strongest_settings
                kw.update(strongest_settings(rules))
            elif not eq:
                kw["rollout_worlds"] = int(part)
            elif key in ("bids", "others"):
                kw[key] = val
            else:
                kw[key] = float(val) if "." in val else int(val)
        return NeuralSearchBot(path or shipped_model(rules), **kw)
    if spec.endswith(".npz") and os.path.exists(spec):
        from .bot import NeuralBot
        return NeuralBot(spec)
    raise ArgumentError(f"unknown agent {spec!r}: {SPECS}")


class BidsAsRuleBot(Bot):
    """A bot whose auction decisions are RuleBot's and whose plays are another bot's (RLCard's rule
    agent, which cannot bid)."""

    def __init__(self, player: Any) -> None:
        self.player, self.bidder = player, RuleBot()
        self.name = getattr(player, "name", type(player).__name__)

    def reseed(self, seed: int) -> None:
        if hasattr(self.player, "reseed"):
            self.player.reseed(seed)

    def act(self, game: Any, seat: int) -> Any:
        return self.player.act(game, seat) if game.phase == "PLAY" else self.bidder.act(game, seat)


class Timed:
    """An agent whose CPU time at every decision with a choice (two legal actions or more) is
    appended to ``times`` (seconds), a list its per-hand copies share."""

    def __init__(self, agent: Any, times: Optional[List[float]] = None) -> None:
        self.agent = agent
        self.times: List[float] = [] if times is None else times
        self.name = getattr(agent, "name", None) or type(agent).__name__

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Timed":
        return Timed(copy.deepcopy(self.agent, memo), self.times)

    def reseed(self, seed: int) -> None:
        if callable(getattr(self.agent, "reseed", None)):
            self.agent.reseed(seed)

    def act(self, game: Any, seat: int) -> Any:
        choice = len(game.legal_action_ids()) > 1
        t = time.process_time()
        out = self.agent.act(game, seat)
        if choice:
            self.times.append(time.process_time() - t)
        return out


def cpu_summary(times: List[float]) -> Dict[str, Any]:
    """The decisions' CPU time: count, median, p99 and mean in milliseconds (None when none)."""
    if not times:
        return {"decisions": 0, "median_ms": None, "p99_ms": None, "mean_ms": None}
    x = np.asarray(times) * 1e3
    return {"decisions": int(x.size), "median_ms": round(float(np.median(x)), 3),
            "p99_ms": round(float(np.percentile(x, 99)), 3), "mean_ms": round(float(x.mean()), 3)}
