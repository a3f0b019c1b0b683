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


OLD_PICKLES = __import__("pathlib").Path(__file__).parent / "data" / "pickles" / "v0.2.0-before-layers.pickle"


def test_pickles_made_before_the_layers_load():
    """Pickles made by ddz 0.2.0, before its modules moved into layer subpackages, name the old
    paths (ddz.game._game_from_pickle, ddz.bots.RuleBot, ddz._search_bot.SearchBot,
    ddz._rules.Rules, ddz.rooms.Room, ddz.scoring.GameResult): they load into today's classes and
    the hands go on as they would have (tests/data/pickles/make.py wrote the file)."""
    from ddz.hand.game import Game
    from ddz.search.bots import RandomBot, RuleBot, SearchBot
    data = pickle.loads(OLD_PICKLES.read_bytes())
    for variant in ("classic", "two_player", "bengbu"):
        d = data[variant]
        g = d["game"]
        assert isinstance(g, Game) and type(g).__module__.startswith("ddz.hand.")
        assert g.to_json() == d["game_record"]
        assert g.bot_seats == [g.current_seat] and isinstance(g.table_policy.bot(g.current_seat), RuleBot)
        assert g.rules == d["rules"] and type(d["rules"]).__module__ == "ddz.core.rules"
        fresh = Game.from_json(d["game_record"])
        assert fresh.legal_actions() == g.legal_actions()
        assert d["finished"].is_over and d["finished"].result == d["result"]
        assert type(d["result"]).__module__ == "ddz.hand.scoring"
        assert isinstance(d["bot"], RuleBot) and isinstance(d["random_bot"], RandomBot)
        step = g.step_bots()  # the bot seat plays on as before
        assert step and all(isinstance(t, str) for t in step)
    assert isinstance(data["search_bot"], SearchBot)
    assert type(data["room"]).__module__ == "ddz.rooms.room"
    assert data["cards"] == ddz.deal(ddz.Rules.classic(), 4, 0)[0][0]
    assert data["move"] == ddz.classify("33344", ddz.Rules.classic())


def test_old_module_paths_are_the_new_modules():
    """Every module path of the flat layout resolves to the module that holds the code now
    (the same object), imported either way round. The deprecated ones warn on their first
    import (tests/test_compat.py checks the warnings, in a fresh interpreter)."""
    import importlib
    import warnings

    from ddz._compat import OLD_PATHS
    for old, new in OLD_PATHS.items():
        if old.startswith("ddz.envs") or old.startswith("ddz.bench_peers"):
            continue  # they need the optional extras: tested in their own files
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            assert importlib.import_module(old) is importlib.import_module(new), old
    evaluate_module = importlib.import_module("ddz.evaluate")
    assert callable(ddz.evaluate) and evaluate_module.evaluate is ddz.evaluate  # the facade's name wins
    from ddz.game import _game_from_pickle
    from ddz.hand.game import _game_from_pickle as new
    assert _game_from_pickle is new
