"""``Rules.classic_rlcard()``: RLCard 1.2.0's play rules and action ids (PEERS.md).

Without rlcard: the preset's action space (27,471 plays, one reading each; no wing trio
beside a plane's chain, RULES-style option ``kicker_trio_beside_chain``), the reference
cross-check covers its plays (tests/test_reference_crosscheck.py). With rlcard installed:
its full action list id by id, ``DoudizhuJudger.playable_cards_from_hand`` on 1,200 hands
and ``utils.get_gt_cards`` on 1,200 answers, against ``legal_moves`` (cards and ids)."""
from __future__ import annotations

import random

import pytest

import ddz
from ddz.peers import adapters as P

N_HANDS = 1200


@pytest.fixture(scope="module")
def rl():
    pytest.importorskip("rlcard")
    assert P.RLCARD.available()
    return P.RLCARD


@pytest.fixture(scope="module")
def rules():
    return ddz.Rules.classic_rlcard()


def test_preset_options_and_space(rules):
    assert repr(rules) == "Rules.classic_rlcard()" and rules.variant == "classic"
    o = rules.options
    assert (o["single_kicker_rank_cap"], o["four_with_two"], o["rocket_as_kickers"], o["kicker_pairs_distinct"],
            o["kicker_may_share_main_rank"], o["kicker_trio_beside_chain"]) == (3, True, False, True, False, False)
    space = rules.action_space()
    assert len(space) == rules.action_space_size == rules.pass_id == 27_471
    assert len({str(m) for m in space}) == 27_471  # one reading per play
    assert [m.id for m in space] == list(range(27_471)) and rules.move_from_id(27_471).is_pass
    # equal options give equal rules with the same ids
    same = ddz.Rules.classic(**{k: o[k] for k in ("single_kicker_rank_cap", "four_with_two", "kicker_trio_beside_chain")})
    assert same == rules and same.move_from_id(20_000) == rules.move_from_id(20_000)


def test_no_wing_trio_beside_the_chain(rules):
    """A wing trio next to the chain (on 3..A) is refused, 222 beside AAA is not; a
    four-trio run is only a trio chain, also when it would answer a plane."""
    assert ddz.classify("333444555777", rules).kind.name == "PLANE_SOLO"
    assert ddz.classify("333444555666", rules).kind.name == "TRIO_STRAIGHT"
    assert ddz.classify("44455566633378", rules) is None
    assert ddz.classify("QQQKKKAAA222", rules).kind.name == "PLANE_SOLO"
    assert [str(m) for m in ddz.legal_moves("333444555666", rules, prev="33344455567T") if len(m) == 12] == []
    assert ddz.classify("333444555666", ddz.Rules.classic(single_kicker_rank_cap=3)).kind.name == "TRIO_STRAIGHT"
    with pytest.raises(ValueError, match="kicker_trio_beside_chain"):
        ddz.Rules.classic(kicker_trio_beside_chain="no")
    with pytest.raises(ValueError, match="kicker_trio_beside_chain"):
        ddz.Rules.bengbu(kicker_trio_beside_chain=False)


def test_action_ids_are_rlcards(rules, rl):
    ids = rl.action_ids()
    assert len(ids) == 27_472 and ids[rules.pass_id] == "pass"
    assert [str(m) for m in rules.action_space()] == ids[:-1]
    a2i = rl._load().utils.ACTION_2_ID
    for i in range(0, 27_471, 97):
        assert a2i[str(rules.move_from_id(i))] == i


def _hand(rng, n):
    cards = list(P.FULL_DECK)
    rng.shuffle(cards)
    if n >= 12 and rng.random() < 0.4:  # a run of trios, so that planes and their wings occur
        k, lo = rng.choice((2, 3, 3, 4)), rng.randrange(0, 10)
        run = ["3456789TJQKA"[v] for v in range(lo, min(lo + k, 12)) for _ in range(3)]
        rest = list(P.FULL_DECK)
        for ch in run:
            rest.remove(ch)
        rng.shuffle(rest)
        return P.canon(run + rest[:max(0, n - len(run))])
    return P.canon(cards[:n])


def test_leads_match_playable_cards_from_hand(rules, rl):
    rng = random.Random(271)
    a2i = rl._load().utils.ACTION_2_ID
    bad, planes = [], 0
    for i in range(N_HANDS):
        hand = _hand(rng, rng.choice((17, 20, 12, 8)))
        moves = ddz.legal_moves(hand, rules)
        got = {str(m) for m in moves}
        want = rl.leads(hand)
        planes += any(m.kind.name == "PLANE_SOLO" for m in moves)
        if got != want or {m.id for m in moves} != {a2i[a] for a in want}:
            bad.append((hand, sorted(want - got)[:5], sorted(got - want)[:5]))
    assert not bad, f"{len(bad)} hands differ, e.g. {bad[:5]}"
    assert planes > N_HANDS // 5


def test_answers_match_get_gt_cards(rules, rl):
    rng = random.Random(272)
    bad, nonempty, kinds = [], 0, set()
    for i in range(N_HANDS):
        hand = _hand(rng, rng.choice((17, 20, 12)))
        other = _hand(rng, 20)
        prev = rng.choice(sorted(rl.leads(other)))
        want = rl.follows(hand, prev)
        moves = ddz.legal_moves(hand, rules, prev=prev)
        got = {str(m) for m in moves}
        kinds.add(ddz.classify(prev, rules).kind.name)
        nonempty += bool(want)
        if got != want or ddz.count_moves(hand, rules, prev=prev) != len(moves):
            bad.append((hand, prev, sorted(want - got)[:5], sorted(got - want)[:5]))
    assert not bad, f"{len(bad)} answers differ, e.g. {bad[:5]}"
    assert nonempty > N_HANDS // 4 and {"PLANE_SOLO", "TRIO_SOLO", "STRAIGHT", "FOUR_TWO_SOLO"} <= kinds
