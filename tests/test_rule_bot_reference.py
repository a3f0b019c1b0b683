"""RuleBot's auction decisions are the core's rule policy (``csrc/ddz/rule_policy.cpp``, one
author, which the vector env's rule seats use too); here they are checked against a readable
reference (tests/reference_rule_bot.py) on every decision of random hands of every variant, at
the default thresholds and at others, and the hand strength on random hands."""
from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

import ddz
from ddz.search.rule_bot import RuleBot, hand_strength

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference_rule_bot as R  # noqa: E402

RULES = [ddz.Rules.classic(), ddz.Rules.two_player(), ddz.Rules.bengbu(),
         ddz.Rules.classic(classic_passers_may_rob=True, classic_show_timing="after_kitty"),
         ddz.Rules.two_player(twop_fanshen_point="before_lead")]


@pytest.mark.parametrize("rules", RULES, ids=repr)
@pytest.mark.parametrize("thresholds", [(7.0, 10.0), (3.0, 5.0), (0.0, 0.0), (12.0, 20.0)])
def test_decisions_are_the_references(rules, thresholds):
    bot = RuleBot(*thresholds)
    rng = random.Random(f"{rules!r}{thresholds}")
    seen = set()
    for seed in range(60):
        g = ddz.Game(rules, seed=seed)
        while not g.is_over:
            seat = g.current_seat
            obs = g.observation(seat)
            if obs["phase"] != "PLAY":
                want = R.decide(obs["phase"], obs["hand"], rules.decks, obs["legal_actions"], *thresholds)
                assert bot.act(g, seat) == want, (obs["phase"], obs["hand"], obs["legal_actions"])
                seen.add(obs["phase"])
            g.apply(rng.choice(g.legal_actions()))
    assert seen >= {"classic": {"CALL", "ROB", "SHOW"}, "two_player": {"PRE_DEAL", "BID"},
                    "bengbu": {"BID", "OPEN_CHOICE"}}[rules.variant]


def test_hand_strength_is_the_references():
    rng = random.Random(5)
    for decks in (1, 2):
        deck = list("3456789TJQKA2" * 4 * decks + "BR" * decks)
        for _ in range(400):
            rng.shuffle(deck)
            hand = "".join(deck[:rng.randrange(1, 34 if decks == 2 else 21)])
            assert hand_strength(hand, decks) == pytest.approx(R.hand_strength(hand, decks), abs=1e-12), hand
