"""Each variant's auction is a transition table in the core (csrc/ddz/hand.cpp: kPhaseTokens,
kLeadsTo; docs/rules.md §6–§8), read through ``_core._auction_table``: the table names every
decision token of the variant, its phase graph is closed, and random hands take only
transitions it declares and, between them, every one of its edges."""
import random

import pytest

import ddz
from ddz import _core
from ddz.variants import VARIANT


def _table(name):
    """phase -> token -> the phases it may lead to, as the core defines it."""
    table = {}
    for phase, token, leads in _core._auction_table(VARIANT[name].id):
        table.setdefault(phase, {})[token] = tuple(leads)
    return table


TABLES = {name: _table(name) for name in ("classic", "two_player", "bengbu")}
RULES = {"classic": [ddz.Rules.classic(), ddz.Rules.classic(classic_passers_may_rob=True, max_redeals=2,
                                                             classic_show_timing="after_kitty")],
         "two_player": [ddz.Rules.two_player(), ddz.Rules.two_player(twop_fanshen_point="before_lead",
                                                                     max_redeals=2)],
         "bengbu": [ddz.Rules.bengbu(), ddz.Rules.bengbu(max_redeals=1)]}


@pytest.mark.parametrize("name", list(TABLES))
def test_the_table_holds_every_decision_and_a_closed_graph(name):
    table = TABLES[name]
    tokens = {t for phase in table.values() for t in phase}
    assert tokens == set(VARIANT[name].decisions)
    for phase, row in table.items():
        for token, leads_to in row.items():
            assert leads_to
            assert set(leads_to) <= set(table) | {"PLAY", "OVER"}, (phase, token, leads_to)


@pytest.mark.parametrize("name", list(TABLES))
def test_random_hands_walk_every_edge_and_only_declared_ones(name):
    table = TABLES[name]
    edges = {(p, t, n) for p, row in table.items() for t, leads in row.items() for n in leads}
    seen = set()
    rng = random.Random(name)
    for rules in RULES[name]:
        for seed in range(400):
            g = ddz.Game(rules, seed)
            while not g.is_over:
                phase = g.phase
                legal = g.legal_actions()  # half the time the first choice: passes, so late bids happen
                action = legal[0] if rng.random() < 0.5 else rng.choice(legal)
                g.apply(action)
                if phase in table:
                    seen.add((phase, action, g.phase))
    assert seen <= edges
    # the rare edges: a void hand after max_redeals (OVER) and a re-deal straight into a special
    # hand need many re-deals; everything else is walked
    rare = {e for e in edges if e[2] == "OVER"}
    assert edges - rare <= seen, sorted(edges - rare - seen)
