"""One action space per variant with the decisions (ddz.action_space): ids of plays, PASS
and every decision token of RULES.md §1.5, round trips, legal ids and masks of random
whole hands (§2.1–§2.3 phases), and the errors of bad ids."""
from __future__ import annotations

import random

import numpy as np
import pytest

import ddz
from ddz.variants import VARIANT

C = ddz.IllegalCode
FACTORY = {"classic": ddz.Rules.classic, "two_player": ddz.Rules.two_player, "bengbu": ddz.Rules.bengbu}
PRESETS = [ddz.Rules.classic_rlcard, ddz.Rules.classic_douzero, ddz.Rules.classic_openspiel]


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_layout_plays_pass_then_decisions(variant):
    """§1.5: the decision tokens follow PASS in the variant table's order."""
    r = FACTORY[variant]()
    decisions = VARIANT[variant].decisions
    assert r.num_actions == r.action_space_size + 1 + len(decisions)
    assert r.pass_id == r.action_space_size
    assert r.action_token(r.pass_id) == "PASS" and r.action_id("PASS") == r.pass_id
    for k, token in enumerate(decisions):
        assert r.action_id(token) == r.pass_id + 1 + k
        assert r.action_id(token.lower()) == r.pass_id + 1 + k
        assert r.action_token(r.pass_id + 1 + k) == token


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_every_id_round_trips(variant):
    r = FACTORY[variant]()
    for i in range(r.num_actions):
        token = r.action_token(i)
        assert r.action_id(token) == i, (i, token)
    for m in r.action_space()[:: max(1, r.action_space_size // 500)]:
        assert r.action_id(m) == m.id and r.action_token(m.id) == f"PLAY {m}"


@pytest.mark.parametrize("preset", PRESETS, ids=lambda f: f.__name__)
def test_ambiguous_presets_round_trip_through_tokens(preset):
    """Under rules where a multiset has two readings a token names the lead reading; the
    token of every id still names its cards, and the id of a Move is its own."""
    r = preset()
    for i in range(r.pass_id):
        token = r.action_token(i)
        j = r.action_id(token)
        assert r.action_token(j) == token
        assert r.move_from_id(j).cards == r.move_from_id(i).cards
        assert r.action_id(r.move_from_id(i)) == i


def _random_hand(rules, seed, check):
    """Plays a whole hand by random legal ids, calling check(game) at every decision."""
    rng = random.Random(seed)
    g = ddz.Game(rules, seed)
    steps = 0
    while not g.is_over and steps < 400:
        check(g)
        g.apply(rng.choice(g.legal_action_ids()))
        steps += 1
    assert g.is_over
    assert g.legal_action_ids() == [] and not g.legal_action_mask().any()
    return g


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_legal_tokens_map_to_legal_ids_and_back(variant):
    rules = FACTORY[variant]()
    phases = set()

    def check(g):
        phases.add(g.phase)
        ids = g.legal_action_ids()
        tokens = g.legal_actions()
        assert len(ids) == len(tokens) == len(set(ids))
        assert [rules.action_id(t) for t in tokens] == ids
        assert [rules.action_token(i) for i in ids] == tokens
        mask = g.legal_action_mask()
        assert mask.dtype == np.bool_ and mask.shape == (rules.num_actions,)
        assert sorted(np.flatnonzero(mask).tolist()) == sorted(ids)
        for i in ids:
            assert g.can_apply(i, g.current_seat)
        # an id and its token apply alike
        i = ids[len(ids) // 2]
        a, b = g.clone(), g.clone()
        assert a.apply(i) == b.apply(rules.action_token(i))
        assert a.to_json() == b.to_json()

    for seed in range(12):
        _random_hand(rules, seed, check)
    expected = {"classic": {"CALL", "PLAY"}, "two_player": {"PRE_DEAL", "BID", "PLAY"},
                "bengbu": {"BID", "PLAY"}}[variant]
    assert expected <= phases


def test_twop_doubling_decisions_have_ids_inside_the_play():
    """§2.2.5: 翻身 and 压迫 are decided during the play phase; their ids are decisions."""
    rules = ddz.Rules.two_player()
    seen = set()

    def check(g):
        if g.phase in ("FANSHEN", "YAPO"):
            seen.update(rules.action_token(i) for i in g.legal_action_ids())

    for seed in range(40):
        _random_hand(rules, seed, check)
        if {"FANSHEN", "NO_FANSHEN", "YAPO", "NO_YAPO"} <= seen:
            break
    assert {"FANSHEN", "NO_FANSHEN", "YAPO", "NO_YAPO"} <= seen


def test_ids_keep_the_reading_under_ambiguous_rules():
    """classic_rlcard() (RLCard's rules): the id applied is the reading played."""
    rules = ddz.Rules.classic_rlcard()

    def check(g):
        if g.phase == "PLAY":
            assert g.legal_action_ids() == g.play_state.legal_actions()

    for seed in range(6):
        g = _random_hand(rules, seed, check)
        played = [m.id for _, m in g.play_state.history]
        assert all(0 <= i <= rules.pass_id for i in played)


def test_a_reading_the_state_does_not_give_is_refused():
    """§2.0.4: under classic_douzero() 333444555666 leads as a trio chain; the id of its
    other reading (a plane with single wings) is refused with WRONG_READING."""
    rules = ddz.Rules.classic_douzero()
    lead = ddz.classify("333444555666", rules)
    others = [m for m in rules.action_space() if m.cards == lead.cards and m.id != lead.id]
    assert others, "the multiset has a second reading under these rules"
    rest = str(ddz.Cards("3456789TJQKA2" * 4 + "BR") - ddz.Cards("333444555666789TJKA2"))
    g = ddz.Game(rules, 1, hands=["333444555666789TJ", rest[0::2], rest[1::2]], kitty="KA2", first_bidder=0)
    for token in ("CALL", "NO_ROB", "NO_ROB", "NO_SHOW"):
        g.apply(rules.action_id(token))
    assert g.phase == "PLAY" and g.current_seat == 0
    before = g.to_json()
    assert g.check(others[0].id).code == C.WRONG_READING
    assert g.to_json() == before
    assert g.apply(lead.id) == g.history[-1][1] and g.play_state.top[0].id == lead.id


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_out_of_range_ids_are_refused_and_change_nothing(variant):
    rules = FACTORY[variant]()
    g = ddz.Game(rules, 7)
    before = g.to_json()
    for bad in (-1, rules.num_actions, rules.num_actions + 5, 10**40):
        e = g.check(bad)
        assert isinstance(e, ddz.IllegalAction) and e.code == C.MALFORMED
        assert "out of range" in str(e) and f"0..{rules.num_actions - 1}" in str(e) and len(str(e)) < 200
        with pytest.raises(ddz.IllegalAction, match="out of range"):
            g.apply(bad)
        assert g.to_json() == before
    with pytest.raises(ddz.MoveError, match="out of range"):
        rules.action_token(rules.num_actions)
    with pytest.raises(ddz.MoveError, match="out of range"):
        rules.action_token(-1)


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_bool_is_not_an_action_id(variant):
    g = ddz.Game(FACTORY[variant](), 3)
    before = g.to_json()
    for b in (True, False):
        e = g.check(b)
        assert isinstance(e, ddz.IllegalActionTypeError) and isinstance(e, TypeError) and e.code == C.MALFORMED
        assert "bool" in str(e)
        with pytest.raises(ddz.IllegalActionTypeError):
            g.apply(b)
    assert g.to_json() == before
    with pytest.raises(ddz.ArgumentTypeError):
        g.rules.action_token(True)
    with pytest.raises(ddz.ArgumentTypeError):
        g.rules.action_id(3)  # an id is not a token


def test_ids_in_the_wrong_phase_and_numpy_ints():
    rules = ddz.Rules.classic()
    g = ddz.Game(rules, 5, first_bidder=0)
    assert g.check(rules.action_id("PLAY 3")).code == C.WRONG_PHASE
    assert g.check(rules.pass_id).code == C.WRONG_PHASE
    assert g.check(rules.action_id("ROB")).code == C.NOT_OFFERED
    assert g.apply(np.int64(rules.action_id("CALL"))) == "CALL"
    while g.phase != "PLAY":
        g.apply(g.legal_action_ids()[-1])
    assert g.check(rules.action_id("CALL")).code == C.WRONG_PHASE
    assert g.check(rules.pass_id).code == C.LEAD_PASS
    # physical cards stay a list of card ids
    seat = g.current_seat
    cid = ddz.card_id(g.cards(seat)[0])
    assert g.apply([cid]).startswith("PLAY ")


def test_a_deal_that_ends_at_construction_has_no_legal_ids():
    """§2.3.2: a 天尊 deal ends the BENGBU4 hand before any decision."""
    rules = ddz.Rules.bengbu()
    for seed in range(5000):
        g = ddz.Game(rules, seed)
        if g.is_over:
            break
    assert g.is_over and g.result.kind == "special"
    assert g.legal_action_ids() == [] and g.legal_action_mask().shape == (rules.num_actions,)
    assert g.check(rules.action_id("BID1")).code == C.HAND_OVER


def test_token_errors_name_the_token():
    rules = ddz.Rules.classic()
    for bad, needle in (("FOO", "FOO"), ("PLAY 34", "not a combination"), ("PLAY", "names no action"),
                        ("PLAY 3s 3s", "twice"), ("GRAB", "GRAB")):
        with pytest.raises(ddz.MoveError, match=needle):
            rules.action_id(bad)


def test_equal_option_sets_share_one_action_space_and_orders_stay_apart():
    """Rules with equal options share one built index (csrc/ddz/actions.hpp
    shared_action_index: a new Rules no longer generates the whole space again), while a
    Rules given its own id order (a peer's, ``_set_action_order``) numbers its plays by that
    order alone: it neither changes the other Rules' ids nor is changed by them; a
    VectorEnv keeps the index it was built with."""
    a = ddz.Rules.classic()
    space = a.action_space_array().copy()
    b = ddz.Rules.classic()
    np.testing.assert_array_equal(b.action_space_array(), space)
    c = ddz.Rules.classic()
    c._set_action_order(space[::-1].copy())
    assert c.move_from_id(0).encoded == int(space[-1]) and c.action_space_size == len(space)
    assert a.move_from_id(0).encoded == int(space[0]) == ddz.Rules.classic().move_from_id(0).encoded
    assert c.action_id(ddz.decode(int(space[5]), c)) == len(space) - 1 - 5
    assert a.action_id(ddz.decode(int(space[5]), a)) == 5
    env = ddz.VectorEnv(c, 4, seed=1, auction=False)
    rev = env.reset(seed=1).legal_ids.copy()
    c._set_action_order(None)  # the env keeps the index it was built with
    np.testing.assert_array_equal(c.action_space_array(), space)
    plain = ddz.VectorEnv(c, 4, seed=1, auction=False).reset(seed=1).legal_ids
    n = len(space)
    np.testing.assert_array_equal(np.where(plain == n, n, n - 1 - plain), rev)  # PASS stays at n
    np.testing.assert_array_equal(env.reset(seed=1).legal_ids, rev)
    with pytest.raises(RuntimeError, match="not a permutation"):
        d = ddz.Rules.classic()
        d._set_action_order(space[:-1].copy())
        d.pass_id


def test_more_option_sets_than_the_cache_keeps_are_rebuilt_the_same():
    """Past the few option sets kept, an evicted space is built again, equal to the first."""
    sets = [dict(single_kicker_rank_cap=cap, kicker_may_share_main_rank=share, four_with_two=fw)
            for cap in (1, 2, 3, 4) for share in (False, True) for fw in (False, True)]  # 16, with the default: 17+
    first = {}
    for opts in sets + [dict(rocket_as_kickers=True), dict(kicker_pairs_distinct=False)]:
        first[tuple(sorted(opts.items()))] = ddz.Rules.classic(**opts).action_space_array().copy()
    for key, space in first.items():
        np.testing.assert_array_equal(ddz.Rules.classic(**dict(key)).action_space_array(), space)
