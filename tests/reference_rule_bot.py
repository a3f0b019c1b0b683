"""A readable reference of RuleBot's auction decisions, written from the rule policy's intent, for
the tests: ddz's RuleBot asks the core (``csrc/ddz/rule_policy.cpp``), and
``tests/test_rule_bot_reference.py`` checks it against these on the decisions of random hands of
every variant."""
from __future__ import annotations

from collections import Counter
from typing import List


def hand_strength(hand: str, decks: int = 1) -> float:
    """A rough strength of a hand for bidding: high cards, bombs and the rocket count."""
    c = Counter(hand)
    s = 0.0
    s += 3.0 * (c["R"] >= decks) + 2.5 * (c["B"] >= decks)       # jokers (a full joker set of the deck)
    s += 1.0 * c["R"] + 0.8 * c["B"]
    s += 1.2 * c["2"] / decks + 0.5 * c["A"] / decks
    quad = 4 if decks == 1 else 5
    s += 3.0 * sum(1 for r, n in c.items() if r not in "BR" and n >= quad)
    if decks == 1 and c["B"] and c["R"]:
        s += 2.0
    return s


def decide(phase: str, hand: str, decks: int, legal: List[str], call_at: float = 7.0, double_at: float = 10.0) -> str:
    """RuleBot's decision in an auction phase: bid on a strong hand, rob or double on a very strong
    one, show or open on a stronger one; BENGBU4 bids by strength and grabs on the strongest."""
    strength = hand_strength(hand, decks)
    want = strength >= call_at
    strong = strength >= double_at

    def pick(yes: str, no: str, flag: bool) -> str:
        return yes if flag and yes in legal else no

    if phase == "PRE_DEAL":
        return "NORMAL_START"          # no cards are seen before the deal
    if phase in ("CALL", "BID") and "CALL" in legal:
        return pick("CALL", "NO_CALL", want)
    if phase in ("ROB", "FINAL_ROB"):
        return pick("ROB", "NO_ROB", strong)
    if phase == "SHOW":
        return pick("SHOW", "NO_SHOW", strength >= double_at + 4)
    if phase == "FANSHEN":
        return pick("FANSHEN", "NO_FANSHEN", strong)
    if phase == "YAPO":
        return pick("YAPO", "NO_YAPO", strong)
    if phase == "OPEN_CHOICE":
        return pick("OPEN", "CLOSED", strength >= double_at + 4)
    if phase == "BID":  # BENGBU4
        if strength >= double_at + 6 and "GRAB" in legal:
            return "GRAB"
        for bid, at in (("BID3", double_at), ("BID2", call_at + 1.5), ("BID1", call_at)):
            if strength >= at and bid in legal:
                return bid
        return "NO_CALL"
    return legal[-1]
