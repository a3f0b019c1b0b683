"""Bots that can take any seat of a ``ddz.Game`` at any point of a hand.

A bot sees only what its seat may see: ``act(game, seat)`` reads ``game.observation(seat)``
and ``game.rules``, never another seat's hidden cards, and returns one of the seat's legal
action tokens. ``Bot``, ``RandomBot`` and ``RuleBot`` live in ``ddz.search.rule_bot``,
``SearchBot`` (sampling and solving the hidden hands) in ``ddz.search.search_bot``; this
module is where users find them all.
"""
from .rule_bot import Bot, RandomBot, RuleBot, hand_strength
from .search_bot import SearchBot

__all__ = ["Bot", "RandomBot", "RuleBot", "SearchBot", "hand_strength"]
