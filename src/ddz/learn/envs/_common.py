"""What the PettingZoo and Gymnasium environments share: a hand's start, the observation
(``ddz.encode.compact`` and the action mask) and its space, sampled worlds."""
from __future__ import annotations

from typing import Any, Dict

import numpy as np

from .. import encode
from ...core.rules import Rules
from ...core.errors import ArgumentTypeError, shown
from ...hand.game import Game
from ...search.sample import sample_deals

__all__ = ["new_game", "observe", "spaces_for", "sample_worlds"]

MAX_SKIPPED = 10_000  # special deals in a row: never reached (about 1 in 30 BENGBU4 deals is one)


def check_rules(rules: Any) -> Rules:
    if not isinstance(rules, Rules):
        raise ArgumentTypeError(f"rules must be a ddz.Rules, not {shown(rules)}")
    return rules


def new_game(rules: Rules, rng: np.random.Generator) -> Game:
    """A new hand seeded from ``rng``. A BENGBU4 deal that ends at the deal (天炸/天尊,
    RULES.md §2.3.2) leaves nobody a decision, which a hand of these frameworks must have:
    it is skipped (the next seed is dealt), so the hands played are those without one."""
    for _ in range(MAX_SKIPPED):
        g = Game(rules, int(rng.integers(2**63)))
        if not g.is_over:
            return g
    raise RuntimeError("no playable deal found")  # pragma: no cover - see MAX_SKIPPED


def spaces_for(rules: Rules) -> Any:
    """(observation space, action space): a Dict of ``observation`` (the compact int8 row)
    and ``action_mask`` (int8, ``rules.num_actions``), and Discrete(``rules.num_actions``)."""
    from gymnasium import spaces
    width = sum(s.stop - s.start for s in encode.compact_layout(rules).values())
    obs = spaces.Dict({
        "observation": spaces.Box(low=-128, high=127, shape=(width,), dtype=np.int8),
        "action_mask": spaces.Box(low=0, high=1, shape=(rules.num_actions,), dtype=np.int8),
    })
    return obs, spaces.Discrete(rules.num_actions)


def observe(game: Game, seat: int) -> Dict[str, np.ndarray]:
    """The seat's observation: ``compact(game, seat)`` (only what the seat may see) and a
    mask of its legal action ids (all zeros when another seat is to act)."""
    return encode._observation(game, seat)  # one core call writes both


def sample_worlds(game: Game, seat: int, n: int, seed: int = 0) -> np.ndarray:
    """``ddz.sample_deals`` for ``seat``: ``n`` deals of the hidden cards consistent with
    what the seat has seen (rows of rank-count words, one column per seat), for search."""
    return sample_deals(game.observation(seat), n, seed)


def bot_action(bot: Any, game: Game, seat: int) -> Any:
    """A bot's (``act(game, seat)``) or a callable's (``f(observation)``) action."""
    if callable(getattr(bot, "act", None)):
        return bot.act(game, seat)
    obs = game.observation(seat)
    obs["legal_action_ids"] = game.legal_action_ids()
    return bot(obs)
