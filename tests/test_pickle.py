"""Pickling, copy.deepcopy and clone() of the value types and the whole hand (so that
multiprocessing spawn pools and Ray can ship them): every round trip gives an equal object
that behaves the same afterwards (undo included), and clones are independent."""
from __future__ import annotations

import copy
import multiprocessing
import pickle
import random

import pytest

import ddz

RULES = [ddz.Rules.classic(), ddz.Rules.two_player(), ddz.Rules.bengbu(), ddz.Rules.classic_douzero(),
         ddz.Rules.bengbu(bengbu_trio_chain_order="cycle", single_kicker_rank_cap=8)]


def roundtrips(x):
    return [pickle.loads(pickle.dumps(x, protocol=p)) for p in (2, pickle.HIGHEST_PROTOCOL)] + [copy.deepcopy(x)]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.preset)
def test_moves_and_cards(rules):
    hands, _ = ddz.deal(rules, 4, 0)
    for m in ddz.legal_moves(hands[0], rules)[:200] + [rules.move_from_id(rules.pass_id)]:
        for m2 in roundtrips(m):
            assert m2 == m and repr(m2) == repr(m) and m2.kind == m.kind and m2.key == m.key
            assert m2.is_pass or m2.id == m.id
    for c in roundtrips(hands[0]):
        assert c == hands[0] and c.decks == hands[0].decks
    for r in roundtrips(rules):
        assert r == rules and r.preset == rules.preset


@pytest.mark.parametrize("rules", RULES[:3], ids=lambda r: r.preset)
def test_play_state(rules):
    rng = random.Random(2)
    hands, landlord = ddz.deal(rules, 9, 1)
    limits = [None, 1, 2, None] if rules.variant == "bengbu" else None
    ps = ddz.PlayState(hands, landlord, rules, bomb_limits=limits)
    for step in range(400):
        for q in roundtrips(ps):
            assert q == ps and q.history == ps.history and q.bomb_limits == ps.bomb_limits
            if ps.num_actions:
                q.undo()
                p2 = ps.clone()
                p2.undo()
                assert q == p2
        if ps.is_over:
            break
        ps.apply(rng.choice(ps.legal_actions()))
    assert ps.is_over


def test_clones_share_history_but_not_state():
    rules = ddz.Rules.classic()
    hands, landlord = ddz.deal(rules, 1, 0)
    ps = ddz.PlayState(hands, landlord, rules)
    rng = random.Random(0)
    for _ in range(20):
        ps.apply(rng.choice(ps.legal_actions()))
    c = ps.clone()
    hist = ps.history
    c.undo()
    c.undo()
    c.apply(rng.choice(c.legal_actions()))
    assert ps.history == hist and ps.num_actions == 20
    assert c.history[:18] == hist[:18] and len(c.history) == 19
    while ps.num_actions:
        ps.undo()
    assert ps.num_actions == 0 and ps.hands == hands and len(c.history) == 19


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_game(variant):
    rng = random.Random(5)
    for seed in range(6):
        g = ddz.Game(ddz.Rules(variant), seed)
        if seed == 1:
            g.set_bot(0, ddz.bots.RandomBot(3))
        steps = 0
        while True:
            if steps % 7 == 0:
                rows = [ddz.encode.compact(g, s) for s in range(g.num_players)]  # fills the encoder's cache
                for h in roundtrips(g) + [g.clone()]:
                    assert h.to_json() == g.to_json() and h.history == g.history and h.bot_seats == g.bot_seats
                    assert h.observation(0) == g.observation(0)
                    for s, row in enumerate(rows):
                        assert (ddz.encode.compact(h, s) == row).all()
                    if not g.is_over:
                        a = g.legal_actions()[0]
                        h.apply(a)
                        assert h.history != g.history
            if g.is_over:
                break
            g.apply(rng.choice(g.legal_actions()))
            g.step_bots()
            steps += 1


def _finish(record: str) -> list:
    g = ddz.Game.from_json(record) if isinstance(record, str) else record
    rng = random.Random(0)
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
    return g.result.scores


def test_spawn_pool():
    games = [ddz.Game(ddz.Rules(v), s) for v in ddz.VARIANTS for s in range(2)]
    expected = [_finish(g.clone()) for g in games]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        assert pool.map(_finish, games) == expected
