"""The input contract of the search, sampling and learning surfaces (``solve``, ``SearchBot``,
``sample_deals``, ``VectorEnv``, the DouZero encoders, ``evaluate``, records, ``settle``):
hostile arguments raise short ``ddz.DdzError``s (the ``…TypeError`` twin for a wrong type)
before any work, limits never hang or overflow, and numpy integers are ints."""
from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

import ddz
from ddz import _core
from ddz.bots import RandomBot, RuleBot, SearchBot
from ddz.core.cards import deck_ids
from ddz.record import read_view
from ddz.rooms import ROOMS, settle

C3 = ddz.Rules.classic()
# A position whose exact search takes about 10,000 nodes (a fraction of a second).
HANDS = ["6247TT8", "242Q376", "T4R8JT5"]


def raises(exc, fn, *a, **kw):
    with pytest.raises(exc) as info:
        fn(*a, **kw)
    assert isinstance(info.value, ddz.DdzError) and isinstance(info.value, ValueError)
    assert len(str(info.value)) < 1000
    return info.value


def typed(exc, fn, *a, **kw):
    """A wrong type: the error's TypeError twin (caught by either except)."""
    e = raises(exc, fn, *a, **kw)
    assert isinstance(e, TypeError), f"{type(e).__name__} is not a TypeError twin"
    return e


def _core_solve(table_mb: float = 16, time_limit: float = 0.0, node_limit: int = 0):
    words = [ddz.Cards(h).word for h in HANDS]
    return _core._solve(C3, words, 0, None, 2, 0, [-1] * 3, [0, 1, 1], False, time_limit, node_limit, table_mb)


# ---- table sizes and world counts ----------------------------------------------------------------

@pytest.mark.timeout(60)
@pytest.mark.parametrize("mb", [1.5 * 2**43, 2**36, 2**50, 1e300, math.inf, -1, -0.0, 0, math.nan, 4096.5])
def test_table_mb_is_bounded(mb):
    raises(ddz.SolveError, ddz.solve, ["3", "4"], C3, table_mb=mb)
    raises(ddz.ArgumentError, SearchBot, table_mb=mb)
    raises(ddz.ArgumentError, _core_solve, table_mb=mb)  # the core refuses it too: no wrap, no UB


def test_table_mb_in_range_solves():
    assert ddz.solve(["3", "4"], C3, table_mb=1e-6).win is True  # the smallest table (two slots) still works
    assert ddz.solve(["3", "4"], C3, table_mb=np.float32(2)).win is True
    assert ddz.solve(["3", "4"], C3, table_mb=np.int64(2)).win is True
    assert SearchBot(table_mb=4096).table_mb == 4096


def test_table_mb_type_checked_at_construction():
    typed(ddz.ArgumentTypeError, SearchBot, table_mb="16")
    typed(ddz.SolveTypeError, ddz.solve, ["3", "4"], C3, table_mb="16")
    typed(ddz.SolveTypeError, ddz.solve, ["3", "4"], C3, table_mb=True)


@pytest.mark.parametrize("name,bad", [("worlds", 2**31), ("worlds", 100_001), ("worlds", 0),
                                      ("rollout_worlds", 2**31), ("rollout_worlds", 0)])
def test_world_counts_are_bounded(name, bad):
    raises(ddz.ArgumentError, SearchBot, **{name: bad})


def test_world_counts_in_range():
    b = SearchBot(worlds=np.int16(100_000 // 4), rollout_worlds=1_000_000)
    assert b.worlds == 25_000 and type(b.worlds) is int


# ---- time limits ------------------------------------------------------------------------------------

@pytest.mark.timeout(60)
@pytest.mark.parametrize("t", [math.inf, 1e10, 1e300, 2**70])
def test_huge_time_limit_is_no_limit(t):
    s = ddz.solve(HANDS, C3, time_limit=t)
    assert s.complete and s.nodes > 1024 and s.win is not None
    res = _core_solve(time_limit=float(t))  # the core's conversion too (seconds past the clock's range)
    assert res[0] is True and res[4] > 1024


def test_bad_time_limits():
    for t in (math.nan, -1, 0, -math.inf):
        raises(ddz.SolveError, ddz.solve, HANDS, C3, time_limit=t)
    raises(ddz.ArgumentError, _core_solve, time_limit=math.nan)
    raises(ddz.ArgumentError, _core_solve, time_limit=-1.0)
    typed(ddz.SolveTypeError, ddz.solve, HANDS, C3, time_limit="1")
    for t in (math.nan, -1, 0):
        raises(ddz.ArgumentError, SearchBot, time_per_move=t)
    typed(ddz.ArgumentTypeError, SearchBot, time_per_move=[1])
    typed(ddz.ArgumentTypeError, SearchBot, time_per_move="0.1")


def test_pimc_huge_time_limit_plays_every_world():
    rules = ddz.Rules.classic()
    g = ddz.Game(rules, seed=5)
    while g.phase != "PLAY":
        g.apply(g.legal_actions()[0])
    obs = g.observation(g.current_seat)
    rows = ddz.sample_deals(obs, 40, seed=1)
    seat = g.current_seat
    n = 3
    sides = [0 if s == g.landlord else 1 for s in range(n)]
    one = [ddz.classify(g.legal_actions()[0][5:], rules)] if g.legal_actions()[0].startswith("PLAY ") else None
    for t in (1e10, 1e300, math.inf):
        cands, wins, done, _ = _core._pimc(rules, rows, seat, None, seat, 0, [-1] * n, sides, one, t, 0)
        assert done == 40, f"time_limit={t} stopped after {done} of 40 worlds"
    raises(ddz.ArgumentError, _core._pimc, rules, rows, seat, None, seat, 0, [-1] * n, sides, one, math.nan, 0)


def test_searchbot_infinite_time_needs_a_node_limit():
    raises(ddz.ArgumentError, SearchBot, time_per_move=math.inf)
    bot = SearchBot(time_per_move=math.inf, node_limit=2000, rollout_worlds=30, seed=3)
    g = ddz.Game(C3, seed=11)
    while g.phase != "PLAY":
        g.apply(RuleBot().act(g, g.current_seat))
    while len(g.legal_actions()) == 1:
        g.apply(g.legal_actions()[0])
    assert bot.act(g, g.current_seat) in g.legal_actions()
    if "rollout_worlds" in bot.last:  # the rollouts are bounded by the world count, not cut by the clock
        assert bot.last["rollout_worlds"] > 1


# ---- solve's arguments ----------------------------------------------------------------------------

def test_solve_node_limit_and_ints():
    raises(ddz.SolveError, ddz.solve, HANDS, C3, node_limit=2**64)
    raises(ddz.SolveError, ddz.solve, HANDS, C3, node_limit=0)
    typed(ddz.SolveTypeError, ddz.solve, HANDS, C3, node_limit=1.5)
    assert ddz.solve(HANDS, C3, node_limit=2**64 - 1).complete
    assert not ddz.solve(HANDS, C3, node_limit=np.uint64(100)).complete
    a = ddz.solve(["KK5543", "225543"], C3, to_move=np.int64(1))
    b = ddz.solve(["KK5543", "225543"], C3, to_move=1)
    assert a.complete and (a.win, a.moves, a.pv) == (b.win, b.moves, b.pv)
    assert ddz.solve(["KK5543", "225543"], C3, sides=[np.int8(0), np.int8(1)],
                     bomb_limits=[np.int32(1), None]).complete
    typed(ddz.SolveTypeError, ddz.solve, ["KK5543", "225543"], C3, to_move=True)
    typed(ddz.SolveTypeError, ddz.solve, ["KK5543", "225543"], C3, to_move=np.bool_(True))
    raises(ddz.SolveError, ddz.solve, ["KK5543", "225543"], C3, to_move=np.int64(2))


def test_solve_prev_within_the_deck():
    e = raises(ddz.CardError, ddz.solve, ["3333", "4"], C3, prev="3")
    assert "prev" in str(e)
    raises(ddz.CardError, ddz.solve, ["BR", "4"], C3, prev="B")
    assert ddz.solve(["333", "4"], C3, prev="3").complete
    raises(ddz.CardError, ddz.solve, ["22223", "4"], ddz.Rules.bengbu(), prev="22222")
    assert ddz.solve(["2222", "4"], ddz.Rules.bengbu(), prev="2222").complete


# ---- SearchBot's arguments ---------------------------------------------------------------------

def test_searchbot_argument_types():
    typed(ddz.ArgumentTypeError, SearchBot, seed="0")
    raises(ddz.ArgumentError, SearchBot, seed=np.int8(-1))
    raises(ddz.ArgumentError, SearchBot, seed=2**64)
    typed(ddz.ArgumentTypeError, SearchBot, worlds="3")
    typed(ddz.ArgumentTypeError, SearchBot, worlds=3.0)
    typed(ddz.ArgumentTypeError, SearchBot, node_limit=1.5)
    typed(ddz.ArgumentTypeError, SearchBot, rollout_worlds=True)
    assert SearchBot(seed=np.uint64(2**64 - 1), node_limit=np.int64(5))._seed == 2**64 - 1


# ---- sample_deals ---------------------------------------------------------------------------------

def _obs(variant="classic", seed=1, steps=12, seat=0):
    g = ddz.Game(ddz.Rules(variant), seed)
    rng = random.Random(seed)
    while len(g.history) < steps and not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
    return g.observation(seat)


def _deck_ok(rows, decks):
    for r in rows:
        total = ddz.Cards("", decks)
        for w in r:
            total = total + ddz.Cards.from_word(int(w), decks)  # raises CardError past the deck


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_real_observations_are_accepted_all_hand_long(variant):
    for k in range(6):
        g = ddz.Game(ddz.Rules(variant), k)
        rng = random.Random(k)
        while True:
            for seat in range(g.num_players):
                o = g.observation(seat)
                if o["phase"] == "PRE_DEAL":
                    continue
                rows = ddz.sample_deals(o, 3, seed=k)
                _deck_ok(rows, g.rules.decks)
            if g.is_over:
                break
            g.apply(rng.choice(g.legal_actions()))


def test_kitty_repeating_own_cards():
    obs = _obs()  # seat 0 is the landlord of this hand
    assert obs["landlord"] == 0
    other = _obs(seat=1)
    bad = dict(other, kitty=other["cards"][:3])  # the farmer's own cards as the landlord's kitty
    raises(ddz.SampleError, ddz.sample_deals, bad, 5, 0)
    bad = dict(obs, kitty=[c for c in deck_ids() if ddz.card_name(c) not in obs["cards"]][:3])
    bad["kitty"] = [ddz.card_name(c) for c in bad["kitty"]]
    raises(ddz.SampleError, ddz.sample_deals, bad, 5, 0)  # the landlord's kitty not in its hand or plays
    raises(ddz.SampleError, ddz.sample_deals, dict(obs, kitty=obs["kitty"][:2]), 5, 0)


def test_shown_beyond_the_deck():
    obs = _obs()
    bad = dict(obs, shown={1: list(obs["cards"])})  # seat 1 "shows" seat 0's own cards
    raises(ddz.SampleError, ddz.sample_deals, bad, 5, 0)
    raises(ddz.SampleError, ddz.sample_deals, dict(obs, shown={5: []}), 5, 0)
    typed(ddz.SampleTypeError, ddz.sample_deals, dict(obs, shown={"a": []}), 5, 0)
    typed(ddz.SampleTypeError, ddz.sample_deals, dict(obs, shown={1: "3s"}), 5, 0)
    typed(ddz.SampleTypeError, ddz.sample_deals, dict(obs, shown=None), 5, 0)


@pytest.mark.parametrize("field,value,exc", [
    ("seat", -1, ddz.SampleError), ("seat", 3, ddz.SampleError), ("seat", True, ddz.SampleTypeError),
    ("seat", "1", ddz.SampleTypeError), ("seat", None, ddz.SampleTypeError), ("seat", 1.0, ddz.SampleTypeError),
    ("landlord", -1, ddz.SampleError), ("landlord", 3, ddz.SampleError), ("landlord", False, ddz.SampleTypeError),
    ("cards_left", [None, 15, 17], ddz.SampleTypeError), ("cards_left", None, ddz.SampleTypeError),
    ("cards_left", [12, 15], ddz.SampleError), ("cards_left", [12, -1, 17], ddz.SampleError),
    ("cards_left", [12, 15, 18], ddz.SampleError), ("cards", None, ddz.SampleTypeError),
    ("cards", "3h3c", ddz.SampleTypeError), ("history", None, ddz.SampleTypeError),
    ("history", [[0, "CALL", 1]], ddz.SampleError), ("history", [[-1, "CALL"]], ddz.SampleError),
    ("history", [[0, 3]], ddz.SampleTypeError), ("history", [5], ddz.SampleTypeError),
    ("history", [[True, "CALL"]], ddz.SampleTypeError), ("kitty", "4d7hKs", ddz.SampleTypeError),
])
def test_bad_observation_fields(field, value, exc):
    obs = _obs()
    before = json.dumps(obs, sort_keys=True)
    e = raises(exc, ddz.sample_deals, dict(obs, **{field: value}), 5, 0)
    if exc is ddz.SampleTypeError:
        assert isinstance(e, TypeError)
    assert json.dumps(obs, sort_keys=True) == before


def test_history_plays_beyond_the_deck():
    obs = _obs()
    plays = [t for s, t in obs["history"] if t.startswith("PLAY ")]
    hist = list(obs["history"]) + [[1, plays[0]]]  # the same cards played twice
    raises(ddz.SampleError, ddz.sample_deals, dict(obs, history=hist), 5, 0)
    hist = list(obs["history"]) + [[1, "PLAY " + obs["cards"][0]]]  # seat 1 plays seat 0's card
    raises(ddz.SampleError, ddz.sample_deals, dict(obs, history=hist), 5, 0)


def test_sample_numpy_ints_and_n_range():
    obs = _obs()
    a = ddz.sample_deals(dict(obs, seat=np.int64(0), landlord=np.int8(0),
                              cards_left=[np.int32(x) for x in obs["cards_left"]]), np.uint8(4), np.uint64(9))
    assert (a == ddz.sample_deals(obs, 4, 9)).all()
    raises(ddz.SampleError, ddz.sample_deals, obs, 2**64, 0)
    raises(ddz.SampleError, ddz.sample_deals, obs, 1_000_001, 0)
    raises(ddz.ArgumentError, _core._sample_deals, 1, [True, False], [0, 1], [1, 0], [0, 0], False, 2**40, 0)
    typed(ddz.SampleTypeError, ddz.sample_deals, obs, np.float64(2), 0)
    typed(ddz.SampleTypeError, ddz.sample_deals, obs, 2, np.bool_(True))


# ---- VectorEnv's deals ---------------------------------------------------------------------------

def test_vector_env_kitty_in_the_landlords_hand():
    # a full deck split 20 / 17 / 17, the kitty (3 cards) taken by seat 0
    deck = [r for r in "3456789TJQKA2" for _ in range(4)] + ["B", "R"]
    random.Random(3).shuffle(deck)
    h = ["".join(deck[:20]), "".join(deck[20:37]), "".join(deck[37:])]
    words = np.array([[ddz.Cards(x).word for x in h]], dtype=np.uint64)
    ok = ddz.Cards(h[0][:3]).word
    env = ddz.VectorEnv(C3, 1, deals=words, landlords=np.array([0]), kitty=np.array([ok], dtype=np.uint64),
                        auction=False)
    assert env.reset().obs.shape[0] == 1
    not_held = next(r for r in "3456789TJQKA2" if h[0].count(r) == 0)
    bad = ddz.Cards(not_held + h[0][:2]).word
    e = raises(ddz.CardError, ddz.VectorEnv, C3, 1, auction=False, deals=words, landlords=np.array([0]),
               kitty=np.array([bad], dtype=np.uint64))
    assert "landlord" in str(e)
    # a kitty of three 3s beside hands that hold all four 3s (none of them the landlord's)
    four = np.array([[ddz.Cards("3333456789TJQKA2B").word, ddz.Cards("4456789TJQKA2R").word,
                      ddz.Cards("556789TJQKA2").word]], dtype=np.uint64)
    raises(ddz.CardError, ddz.VectorEnv, C3, 1, auction=False, deals=four, landlords=np.array([1]),
           kitty=np.array([ddz.Cards("333").word], dtype=np.uint64))


# ---- records -------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", ["_preset", "variant", "self", "nonsense"])
def test_record_options_are_only_real_options(key):
    g = ddz.Game(C3, 1)
    g.apply(g.legal_actions()[0])
    rec = json.loads(g.to_json())
    rec["rules"]["options"][key] = "classic_douzero"
    raises(ddz.RecordError, ddz.Game.from_json, json.dumps(rec))
    view = json.loads(g.view_json(0)) if hasattr(g, "view_json") else None
    if view is not None:
        view["rules"]["options"][key] = "classic_douzero"
        raises(ddz.RecordError, read_view, json.dumps(view))
    assert ddz.Game.from_json(g.to_json()).rules == g.rules


# ---- encoders ------------------------------------------------------------------------------------

def test_douzero_legal_lists():
    ps = ddz.PlayState(["33", "44", "55"], 0, ddz.Rules.classic_douzero())
    typed(ddz.ArgumentTypeError, ddz.encode.douzero, ps, [[[3]]])
    typed(ddz.ArgumentTypeError, ddz.encode.douzero, ps, [3])
    typed(ddz.ArgumentTypeError, ddz.encode.douzero, ps, "33")
    typed(ddz.ArgumentTypeError, ddz.encode.douzero, ps, [[3.0]])
    raises(ddz.ArgumentError, ddz.encode.douzero, ps, [[2]])
    raises(ddz.ArgumentError, ddz.encode.douzero, ps, [])
    raises(ddz.ArgumentError, ddz.encode.douzero_batch, [ps, ps], [[[3]], []])
    typed(ddz.ArgumentTypeError, ddz.encode.compact_batch, [ps], 1.5)
    typed(ddz.ArgumentTypeError, ddz.encode.compact_batch, [ps], np.zeros((1, 1), dtype=np.int64))
    assert ddz.encode.douzero(ps, [[np.int64(3)], []])["x_batch"].shape[0] == 2


def test_douzero_expand_position():
    ps = ddz.PlayState(["33", "44", "55"], 0, ddz.Rules.classic_douzero())
    b = ddz.encode.douzero_batch([ps])
    for bad in ("x", 1.5, None, True):
        typed(ddz.ArgumentTypeError, b.expand, bad)
    for bad in (2**40, -1, 3):
        raises(ddz.ArgumentError, b.expand, bad)
    x, _ = b.expand(np.int8(0))
    assert x.shape[1] == 373


# ---- evaluate ------------------------------------------------------------------------------------

def test_evaluate_deals():
    agents = [RandomBot(), RandomBot(), RandomBot()]
    typed(ddz.ArgumentTypeError, ddz.evaluate, agents, C3, games=1, deals=5)
    typed(ddz.ArgumentTypeError, ddz.evaluate, agents, C3, games=1, deals="x")
    typed(ddz.ArgumentTypeError, ddz.evaluate, agents, C3, games=1, deals=["x"])
    raises(ddz.ArgumentError, ddz.evaluate, agents, C3, games=1, deals=[{"bogus": 1}])
    raises(ddz.ArgumentError, ddz.evaluate, agents, C3, games=2, deals=[{}, {"first_bidder": 7}])
    raises(ddz.ArgumentError, ddz.evaluate, agents, C3, games=10**8)
    res = ddz.evaluate(agents, C3, games=np.int64(1), seed=np.uint64(3), deals=[{"first_bidder": np.int8(1)}])
    assert res.scores.shape == (1, 3, 3)


# ---- settle ---------------------------------------------------------------------------------------

def test_settle_coin_types():
    g = ddz.Game(C3, 2)
    while not g.is_over:
        g.apply(RuleBot().act(g, g.current_seat))
    room = ROOMS["classic-novice"] if "classic-novice" in ROOMS else next(r for r in ROOMS.values()
                                                                         if r.variant == "classic")
    typed(ddz.ArgumentTypeError, settle, g.result, room, [1.5, 1000, 1000])
    typed(ddz.ArgumentTypeError, settle, g.result, room, [True, 1000, 1000])
    typed(ddz.ArgumentTypeError, settle, g.result, room, "abc")
    s = settle(g.result, room, [np.int64(10**6), 10**6, 10**6])
    assert s.coins_before == (10**6,) * 3


# ---- numpy integers are ints ----------------------------------------------------------------------

def test_numpy_integers_everywhere():
    i = np.int64
    ps = ddz.PlayState(["33", "44", "55"], i(0), C3)
    assert str(ps.hand(i(1))) == "44"
    assert ps.bombs_played(np.uint8(1)) == 0
    g = ddz.Game(C3, i(3), first_bidder=np.int8(1))
    assert g.observation(i(1))["seat"] == 1
    g.apply(g.legal_actions()[0])
    assert g.elapsed(np.float64(0.5)) is None and g.elapsed(i(1)) is None
    g.escape(i(2))
    json.loads(g.to_json())  # every seat stored as a plain int
    assert ddz.deal(C3, i(1), np.uint16(2)) == ddz.deal(C3, 1, 2)
    assert ddz.Cards.from_word(np.uint64(ddz.Cards("33").word)) == ddz.Cards("33")
    assert C3.move_from_id(i(3)) == C3.move_from_id(3)
    assert ddz.card_name(np.int16(3)) == ddz.card_name(3)
    env = ddz.VectorEnv(C3, np.int32(2), np.uint64(1), threads=np.int8(1), auction=False)
    assert env.reset(i(4)).obs.shape[0] == 2
    assert ddz.bots.RandomBot(seed=i(2)).act(ddz.Game(C3, 1), 0)
    r = ddz.Rules.classic(single_kicker_rank_cap=i(3), max_redeals=np.uint8(2))
    assert type(r.options["single_kicker_rank_cap"]) is int and pickle_round_trip(r) == r
    for bad in (np.bool_(True), True, 1.0):
        typed(ddz.ArgumentTypeError, ddz.PlayState, ["33", "44", "55"], bad, C3)
        typed(ddz.ArgumentTypeError, g.observation, bad)
    raises(ddz.ArgumentError, ddz.Game(C3, 1).elapsed, math.nan)
    typed(ddz.ArgumentTypeError, ddz.bots.RandomBot, "x")


def pickle_round_trip(x):
    import pickle
    return pickle.loads(pickle.dumps(x))


def test_evaluate_refuses_agents_of_the_wrong_arity():
    class NoSeat:
        def act(self, game):  # act(game, seat) is the protocol
            return game.legal_actions()[0]

    for bad in ([lambda: None] * 3, [lambda obs, extra: 0] * 3, [NoSeat()] * 3):
        typed(ddz.ArgumentTypeError, ddz.evaluate, bad, C3, games=1)
    assert ddz.evaluate([RandomBot(), RandomBot(), lambda obs, *rest: obs["legal_action_ids"][0]],
                        C3, games=1).scores.shape == (1, 3, 3)


def test_sample_deals_takes_card_ids():
    obs = _obs()
    ids = [ddz.card_id(c) for c in obs["cards"]]
    assert (ddz.sample_deals(dict(obs, cards=ids), 3, 1) == ddz.sample_deals(obs, 3, 1)).all()
