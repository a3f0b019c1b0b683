"""Everything about the peer engines (DouZero, RLCard, OpenSpiel): the adapters that run them
beside ddz and compare them (``ddz.peers.adapters``), DouZero's checkpoints as ddz agents and ddz
agents in DouZero's evaluator (``ddz.peers.douzero_agents``), OpenSpiel's own action ids
(``ddz.peers.openspiel_ids``), the side-by-side benchmarks (``ddz.peers.bench``), and ddz's
whole hands registered as OpenSpiel games (``ddz.peers.openspiel_game``, imported on demand:
it needs open_spiel). The id order of RLCard's action space is part of the rules, so it is
core data (``ddz.core.rlcard_order``). See docs/architecture.md and docs/peers.md."""
from .adapters import (DouZeroPeer, OpenSpielPeer, RLCardPeer, RLCardRuleBot, check_rule_rows,
                       fixed_auction_action, universe_report)
from .douzero_agents import DouZeroAgent, DouZeroSeat, as_douzero_agent, find_douzero_checkpoints

__all__ = ["DouZeroPeer", "OpenSpielPeer", "RLCardPeer", "RLCardRuleBot", "check_rule_rows",
           "fixed_auction_action", "universe_report", "DouZeroAgent", "DouZeroSeat", "as_douzero_agent",
           "find_douzero_checkpoints"]
