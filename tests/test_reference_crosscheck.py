"""Cross-check of ddz's move generator against the brute-force reference
(tests/reference.py, written from RULES.md §2.0 and sharing no code with ddz).

For every configuration (the three variants, the two compat presets and several
non-default option sets of §7) and seeded random hands:

* leads: ``ddz.legal_moves(hand, r)`` == the reference lead set, compared as sets of
  (canonical cards, kind name, key); chain lengths agree; no duplicates;
  ``count_moves`` and ``len(legal_moves_array)`` equal the number of moves;
* follows: for several ``prev`` plays per hand (drawn from the leads of other random
  hands of the same configuration, stratified by kind so bombs, rockets, chains and
  planes all occur, plus some chosen to match a pattern the hand can form) the answer
  sets are equal too, and ``count_moves`` agrees.

Small hands (1..12 cards) are compared against the reference's *plain* enumeration of
every sub-multiset; full deal-size hands against its pruned enumeration, which is
itself checked against the plain one in ``test_reference_pruning_is_exhaustive``.
"""
import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as ref  # noqa: E402

import ddz  # noqa: E402  — the package under test; must be installed
from ddz import _core  # noqa: E402

COMBO_OPTS = tuple(ref.default_options("classic"))

# id -> (ddz factory name, ddz kwargs, reference variant, reference options,
#        number of small hands, number of full hands); full hand sizes in FULL
FULL = {"classic": (17, 20), "two_player": (20, 23), "bengbu": (25, 33)}
CONFIGS = {
    "classic": ("classic", {}, "classic", {}, 400, 400),
    "two_player": ("two_player", {}, "two_player", {}, 400, 400),
    "bengbu": ("bengbu", {}, "bengbu", {}, 400, 400),
    "classic_douzero": ("classic_douzero", {}, "classic", ref.PRESETS["classic_douzero"][1], 400, 400),
    "classic_openspiel": ("classic_openspiel", {}, "classic", ref.PRESETS["classic_openspiel"][1], 400, 400),
    "classic_rlcard": ("classic_rlcard", {}, "classic", ref.PRESETS["classic_rlcard"][1], 300, 300),
    # non-default options (RULES.md §7)
    "bengbu_cycle": ("bengbu", {"bengbu_trio_chain_order": "cycle"}, "bengbu",
                     {"bengbu_trio_chain_order": "cycle"}, 200, 150),
    "bengbu_four_with_two": ("bengbu", {"bengbu_four_with_two": True}, "bengbu",
                             {"bengbu_four_with_two": True}, 200, 150),
    "classic_pairs_not_distinct": ("classic", {"kicker_pairs_distinct": False}, "classic",
                                   {"kicker_pairs_distinct": False}, 200, 150),
    "classic_share_main_rank": ("classic", {"kicker_may_share_main_rank": True}, "classic",
                                {"kicker_may_share_main_rank": True}, 200, 150),
    "two_player_cap3": ("two_player", {"single_kicker_rank_cap": 3}, "two_player",
                        {"single_kicker_rank_cap": 3}, 200, 150),
    "two_player_relaxed": ("two_player", dict(rocket_as_kickers=True, four_with_two=False,
                                              kicker_may_share_main_rank=True, single_kicker_rank_cap=4),
                           "two_player", dict(rocket_as_kickers=True, four_with_two=False,
                                              kicker_may_share_main_rank=True, single_kicker_rank_cap=4),
                           100, 30),
    "classic_all_relaxed": ("classic", dict(kicker_may_share_main_rank=True, kicker_pairs_distinct=False,
                                            rocket_as_kickers=True, single_kicker_rank_cap=4),
                            "classic", dict(kicker_may_share_main_rank=True, kicker_pairs_distinct=False,
                                            rocket_as_kickers=True, single_kicker_rank_cap=4), 160, 120),
    "bengbu_relaxed": ("bengbu", dict(bengbu_four_with_two=True, kicker_may_share_main_rank=True,
                                      kicker_pairs_distinct=False, rocket_as_kickers=True,
                                      single_kicker_rank_cap=3, bengbu_trio_chain_order="cycle"),
                       "bengbu", dict(bengbu_four_with_two=True, kicker_may_share_main_rank=True,
                                      kicker_pairs_distinct=False, rocket_as_kickers=True,
                                      single_kicker_rank_cap=3, bengbu_trio_chain_order="cycle"), 160, 120),
    "bengbu_no_joker_pairs": ("bengbu", dict(bengbu_joker_pairs=False, bengbu_four_with_two=True),
                              "bengbu", dict(bengbu_joker_pairs=False, bengbu_four_with_two=True), 160, 120),
}
MAIN = ("classic", "two_player", "bengbu", "classic_douzero", "classic_openspiel")
PREVS_PER_HAND = 6
MAX_REPORT = 12


def make_rules(cid):
    factory, kwargs, variant, ropts, _, _ = CONFIGS[cid]
    return getattr(ddz.Rules, factory)(**kwargs), ref.RefRules(variant, ropts)


def random_hand(rng, decks, n, dense):
    """A random hand of n cards from `decks` decks; `dense` hands concentrate on a
    window of 3..7 ranks of the cycle 3..K A 2 (plus, half the time, the jokers), so
    trios, bombs, planes and wrap-around trio chains are frequent."""
    full = ref.deck(decks)
    if dense:
        s, w = rng.randrange(13), rng.randint(3, 7)
        ranks = [(s + i) % 13 for i in range(w)] + ([13, 14] if rng.random() < 0.5 else [])
    else:
        ranks = range(15)
    pool = [r for r in ranks for _ in range(full[r])]
    pick = rng.sample(pool, min(n, len(pool)))
    c = [0] * 15
    for r in pick:
        c[r] += 1
    return tuple(c)


def hands_for(cid, seed):
    """[(counts, method)] — small hands (plain enumeration) then full hands (pruned)."""
    _, _, variant, _, n_small, n_full = CONFIGS[cid]
    decks = 2 if variant == "bengbu" else 1
    rng = random.Random(seed)
    out = []
    for i in range(n_small):
        out.append((random_hand(rng, decks, 1 + i % 12, dense=i % 2 == 1), "plain"))
    sizes = FULL[variant]
    for i in range(n_full):
        out.append((random_hand(rng, decks, sizes[i % len(sizes)], dense=i % 5 == 4), "pruned"))
    return out


def ddz_hand(counts, i, decks):
    s = ref.to_str(counts)
    shuffled = "".join(random.Random(i).sample(s, len(s)))
    if i % 2:
        return ddz.Cards(shuffled, decks=decks) if decks == 2 else ddz.Cards(shuffled)
    return shuffled


def ddz_set(moves):
    return {(str(m), m.kind.name, m.key) for m in moves}


def describe(cid, hand, prev, missing, extra):
    _, kwargs, variant, ropts, _, _ = CONFIGS[cid]
    fmt = lambda s: sorted(s, key=lambda t: (len(t[0]), t))[:8]  # noqa: E731
    return (f"[{cid} {variant} {ropts}] hand={ref.to_str(hand)} prev={prev!r}: "
            f"missing in ddz ({len(missing)}) {fmt(missing)}; extra in ddz ({len(extra)}) {fmt(extra)}")


def prev_pool(cid, rr, seed):
    """{(kind, n): [card strings]} from the leads of random other hands."""
    _, _, variant, _, _, _ = CONFIGS[cid]
    decks = 2 if variant == "bengbu" else 1
    rng = random.Random(seed)
    pool = {}
    for i in range(40):
        h = random_hand(rng, decks, FULL[variant][-1], dense=i % 3 == 2)
        for sub, its in ref.valid_plays(h, rr, "pruned").items():
            lead = max(its, key=lambda i: (i.body, i.key))
            pool.setdefault((lead.kind, lead.n), set()).add(ref.to_str(sub))
    return {k: sorted(v) for k, v in pool.items()}


def pick_prevs(rng, pool, hand_plays):
    """PREVS_PER_HAND prev plays: some stratified by kind over the pool, some with a
    (kind, size) the hand itself can form."""
    kinds = sorted({k for k, _ in pool})
    own = sorted({(max(its, key=lambda i: (i.body, i.key)).kind, sum(sub)) for sub, its in hand_plays.items()}
                 & set(pool))
    prevs = []
    for j in range(PREVS_PER_HAND):
        if j % 2 == 1 and own:
            bucket = rng.choice(own)
        else:
            kind = rng.choice(kinds)
            bucket = rng.choice(sorted(b for b in pool if b[0] == kind))
        prevs.append(rng.choice(pool[bucket]))
    return prevs


def test_rule_options_match_contract():
    """The ddz presets carry the combination options the contract / RULES.md §7 name."""
    for cid in CONFIGS:
        r, rr = make_rules(cid)
        assert r.variant == rr.variant
        got = {k: r.options[k] for k in COMBO_OPTS if k in r.options}
        want = {k: rr.opts[k] for k in got}
        assert got == want, cid
        if rr.variant == "bengbu":
            assert {"bengbu_four_with_two", "bengbu_trio_chain_order", "bengbu_joker_pairs"} <= set(got)
        else:
            assert "four_with_two" in got
        assert {"kicker_may_share_main_rank", "kicker_pairs_distinct", "rocket_as_kickers",
                "single_kicker_rank_cap"} <= set(got)


@pytest.mark.parametrize("cid", list(CONFIGS))
def test_crosscheck(cid):
    r, rr = make_rules(cid)
    decks = rr.decks
    seed = sum(map(ord, cid))
    pool = prev_pool(cid, rr, seed + 1)
    rng = random.Random(seed + 2)
    failures = []
    n_hands = n_follow = n_nonempty = 0
    kinds_led, kinds_prev = set(), set()
    for i, (hand, method) in enumerate(hands_for(cid, seed)):
        n_hands += 1
        plays = ref.valid_plays(hand, rr, method)
        h = ddz_hand(hand, i, decks)
        # ---- leads
        want = ref.lead_set(plays)
        moves = ddz.legal_moves(h, r)
        got = ddz_set(moves)
        kinds_led |= {k for _, k, _ in want}
        if got != want:
            failures.append(describe(cid, hand, None, want - got, got - want))
        if len(moves) != len({str(m) for m in moves}):
            failures.append(f"[{cid}] duplicate leads for {ref.to_str(hand)}")
        lengths = {ref.to_str(s): max(its, key=lambda i: (i.body, i.key)).length for s, its in plays.items()}
        bad_len = [(str(m), m.chain_length, lengths.get(str(m))) for m in moves
                   if lengths.get(str(m), m.chain_length) != m.chain_length]
        if bad_len:
            failures.append(f"[{cid}] hand={ref.to_str(hand)} chain_length (move, ddz, ref): {bad_len[:5]}")
        if ddz.count_moves(h, r) != len(moves) or len(ddz.legal_moves_array(h, r)) != len(moves):
            failures.append(f"[{cid}] hand={ref.to_str(hand)} count_moves/legal_moves_array "
                            f"{ddz.count_moves(h, r)}/{len(ddz.legal_moves_array(h, r))} != {len(moves)}")
        # ---- follows
        for j, prev in enumerate(pick_prevs(rng, pool, plays)):
            top = ref.lead_reading(prev, rr)
            kinds_prev.add(top.kind)
            want = ref.follow_set(plays, top, rr)
            p = prev if j % 2 == 0 else ddz.classify(prev, r)
            if p is None:
                failures.append(f"[{cid}] ddz.classify({prev!r}) is None, reference {top}")
                continue
            try:
                moves = ddz.legal_moves(h, r, prev=p)
            except Exception as e:  # noqa: BLE001 — report, do not stop the sweep
                failures.append(f"[{cid}] hand={ref.to_str(hand)} prev={prev!r} (reference {top}): "
                                f"{type(e).__name__}: {e}")
                continue
            got = ddz_set(moves)
            n_follow += 1
            n_nonempty += bool(want)
            if got != want:
                failures.append(describe(cid, hand, prev, want - got, got - want))
            if ddz.count_moves(h, r, prev=p) != len(moves):
                failures.append(f"[{cid}] hand={ref.to_str(hand)} prev={prev} count_moves "
                                f"{ddz.count_moves(h, r, prev=p)} != {len(moves)}")
    assert not failures, f"{len(failures)} mismatches, first ones:\n" + "\n".join(failures[:MAX_REPORT])
    # the sample really covers what it claims to
    assert n_hands >= (300 if cid in MAIN else 100)
    assert n_nonempty >= n_follow // 4
    expected_kinds = ({"BOMB4", "BOMB5", "JOKER_BOMB", "PAIR_STRAIGHT", "TRIO_STRAIGHT", "PLANE_PAIR", "TRIO_PAIR"}
                      if rr.bengbu else
                      {"BOMB", "ROCKET", "STRAIGHT", "PAIR_STRAIGHT", "TRIO_STRAIGHT", "PLANE_SOLO",
                       "PLANE_PAIR", "TRIO_SOLO", "TRIO_PAIR"})
    assert expected_kinds <= kinds_prev, expected_kinds - kinds_prev
    assert expected_kinds <= kinds_led, expected_kinds - kinds_led


@pytest.mark.parametrize("cid", ["classic", "two_player", "bengbu", "classic_douzero", "bengbu_relaxed",
                                 "classic_all_relaxed", "bengbu_cycle"])
def test_reference_pruning_is_exhaustive(cid):
    """Reference self-check: the pruned candidate enumeration finds exactly the valid
    combinations the plain enumeration of every sub-multiset finds (13..16-card hands,
    dense and uniform)."""
    _, _, variant, ropts, _, _ = CONFIGS[cid]
    rr = ref.RefRules(variant, ropts)
    rng = random.Random(99)
    checked = 0
    while checked < 12:
        h = random_hand(rng, rr.decks, rng.randint(13, 16), dense=checked % 2 == 0)
        if ref.n_submultisets(h) > 40000:
            continue
        assert ref.valid_plays(h, rr, "plain") == ref.valid_plays(h, rr, "pruned"), ref.to_str(h)
        checked += 1


def test_reference_known_ambiguities():
    """RULES.md §2.0.4 ambiguity example (single_kicker_rank_cap = 3)."""
    rr = ref.RefRules("classic", {"single_kicker_rank_cap": 3})
    assert ref.lead_reading("333444555666", rr)[:3] == ("TRIO_STRAIGHT", 3, 4)
    top = ref.lead_reading("33344455567T", rr)
    assert top[:3] == ("PLANE_SOLO", 2, 3)
    assert ref.follow_reading("333444555666", rr, top)[:3] == ("PLANE_SOLO", 3, 3)
    r = ddz.Rules.classic(single_kicker_rank_cap=3)
    m = ddz.classify("333444555666", r)
    assert (m.kind.name, m.key, m.chain_length) == ("TRIO_STRAIGHT", 3, 4)
    ans = [(str(x), x.kind.name, x.key) for x in ddz.legal_moves("333444555666", r, prev="33344455567T")
           if len(x.cards) == 12]
    assert ans == [("333444555666", "PLANE_SOLO", 3)]


# Hand-made hard hands: long chains at the top / across A-2-3, quads next to trios,
# jokers, bombs that could be wings.  Leads and answers to a stratified sample of the
# hand's own leads (every (kind, size) present) plus pool picks are compared.
TRICKY_ONE_DECK = [
    "333444555666777888", "3334445556667777BR", "555666777888999A2BR", "33334444555566667",
    "TTTJJJQQQKKKAAA222", "33334444BR22", "3456789TJQKA2BR33", "444555666777888999TT",
    "3333444455556666BR", "KKKKAAAA2222BR3456", "33344455566677788899", "3TTTJJJQQQKKKAAA2BR",
    "3334445556667778889TJQ", "99TTTTJJJJQQQQKKA2BR", "334455667788TTTJJJQQQ",
]
TRICKY_TWO_DECKS = [
    "AAAAAA222222333333KKK", "KKKKKKAAAAAA222222333", "33333333444444445555BBRR",
    "AAA222333444555666777888999TTTJJJ", "KKKAAA222333444BBRR", "333444555666777888999TTTJJJQQQKKK",
    "QQQQKKKKAAAA2222333344445BBRR", "33334444555566667777888899", "KKKKKAAAAA22222333334BBR",
    "3344556677889TTJJQQKKAA22BBRR",
]


@pytest.mark.parametrize("cid", list(CONFIGS))
def test_crosscheck_tricky_hands(cid):
    r, rr = make_rules(cid)
    hands = TRICKY_TWO_DECKS if rr.bengbu else TRICKY_ONE_DECK
    rng = random.Random(7)
    failures = []
    for hs in hands:
        hand = ref.parse(hs)
        plays = ref.valid_plays(hand, rr, "pruned")
        h = ddz.Cards(hs, decks=2) if rr.bengbu else hs
        want = ref.lead_set(plays)
        got = ddz_set(ddz.legal_moves(h, r))
        if got != want:
            failures.append(describe(cid, hand, None, want - got, got - want))
        by_shape = {}
        for sub, its in plays.items():
            lead = max(its, key=lambda i: (i.body, i.key))
            by_shape.setdefault((lead.kind, lead.n), []).append(ref.to_str(sub))
        prevs = [rng.choice(sorted(v)) for _, v in sorted(by_shape.items())]
        for prev in prevs:
            top = ref.lead_reading(prev, rr)
            want = ref.follow_set(plays, top, rr)
            try:
                got = ddz_set(ddz.legal_moves(h, r, prev=prev))
            except Exception as e:  # noqa: BLE001
                failures.append(f"[{cid}] hand={hs} prev={prev!r}: {type(e).__name__}: {e}")
                continue
            if got != want:
                failures.append(describe(cid, hand, prev, want - got, got - want))
    assert not failures, f"{len(failures)} mismatches, first ones:\n" + "\n".join(failures[:MAX_REPORT])


def structured_multiset(rng, decks):
    """A random multiset of the full deck(s) (any size, also larger than any hand)
    built around a chain, one rank group or a trio/quad/big group plus random extra
    singles and pairs, so that valid and near-valid combinations are frequent."""
    full = ref.deck(decks)
    c = [0] * 15
    shape = rng.randrange(4)
    if shape == 0:
        m, length, s = rng.choice([1, 2, 3, 3, 3]), rng.randint(2, 13), rng.randrange(13)
        wrap = rng.random() < 0.5
        for i in range(length):
            r = (s + i) % 13 if wrap else min(s + i, 14)
            c[r] = min(full[r], m)
    elif shape == 1:
        r = rng.randrange(15)
        c[r] = rng.randint(1, full[r])
    else:
        r = rng.randrange(13)
        c[r] = rng.choice([3, 4]) if decks == 1 else rng.randint(3, 8)
    for _ in range(rng.randint(0, 8)):
        r, k = rng.randrange(15), rng.choice([1, 2, 2])
        if c[r] + k <= full[r]:
            c[r] += k
    return tuple(c)


@pytest.mark.parametrize("cid", list(CONFIGS))
def test_classify_and_beats_structured(cid):
    """ddz.classify == reference lead reading (kind, key, chain length; None when
    invalid) on structured random multisets, and Move.beats == reference beats on
    random pairs of the valid ones."""
    r, rr = make_rules(cid)
    rng = random.Random(sum(map(ord, cid)) + 3)
    failures, valid = [], []
    for _ in range(6000):
        c = structured_multiset(rng, rr.decks)
        if not any(c):
            continue
        s = ref.to_str(c)
        want = ref.lead_reading(c, rr)
        m = ddz.classify(ddz.Cards(s, decks=2) if rr.decks == 2 else s, r)
        got = None if m is None else (m.kind.name, m.key, m.chain_length)
        if got != (None if want is None else (want.kind, want.key, want.length)):
            failures.append(f"[{cid}] classify({s}): ddz {got}, reference {want}")
        elif m is not None:
            valid.append((m, want))
    assert len(valid) > 600
    for _ in range(6000):
        (m1, i1), (m2, i2) = rng.choice(valid), rng.choice(valid)
        if rng.random() < 0.5:   # same kind and size more often
            same = [v for v in valid[:400] if v[1].kind == i2.kind and v[1].n == i2.n]
            m1, i1 = rng.choice(same) if same else (m1, i1)
        if m1.beats(m2) != ref.beats(i1, i2, rr):
            failures.append(f"[{cid}] {m1!s}.beats({m2!s}): ddz {m1.beats(m2)}, reference {ref.beats(i1, i2, rr)}")
    assert not failures, f"{len(failures)} mismatches, first ones:\n" + "\n".join(failures[:MAX_REPORT])


def test_pairs_not_distinct_reading():
    """K3 with kicker_pairs_distinct = false: "the same pair rank may be used twice as
    pair kickers".  Read literally (twice, not any number of times) — it only matters
    with two decks, where six cards of a rank could otherwise be three kicker pairs."""
    opts = {"kicker_pairs_distinct": False}
    rr, r = ref.RefRules("bengbu", opts), ddz.Rules.bengbu(**opts)
    for s, kind in [("3334446666", "PLANE_PAIR"), ("3334445556666TT", "PLANE_PAIR"),
                    ("333444555666666", None), ("33344455566667777", None)]:
        want = ref.lead_reading(s, rr)
        assert (want and want.kind) == kind, s
        m = ddz.classify(ddz.Cards(s, decks=2), r)
        assert (m and m.kind.name) == kind, s
    rr, r = ref.RefRules("classic", opts), ddz.Rules.classic(**opts)
    assert ref.lead_reading("3334445555", rr)[:2] == ("PLANE_PAIR", 1)
    assert ref.lead_reading("33334444", rr)[:2] == ("FOUR_TWO_PAIR", 1)   # 4444+33+33 beats 3333+44+44
    assert ddz.classify("3334445555", r).kind.name == "PLANE_PAIR"
    m = ddz.classify("33334444", r)
    assert (m.kind.name, m.key) == ("FOUR_TWO_PAIR", 1)


# --------------------------------------------------------------------------------------
# Every value of every combination option of RULES.md §7 (one changed at a time from the
# variant's defaults) and seeded random combinations of all of them: leads and follows,
# small hands against the plain enumeration of every sub-multiset, deal-size hands
# against the pruned one, under both ISA builds (the generator emits each multiset once
# by construction, so duplicates and count/generation mismatches are asserted directly).

def _one_option_changes():
    out = []
    for variant in ref.VARIANTS:
        defaults = ref.default_options(variant)
        for name, values in ref.option_values(variant).items():
            out += [(variant, {name: v}) for v in values if v != defaults[name]]
    return out


OPTION_CHANGES = _one_option_changes()


def _random_combos(per_variant=8):
    """Seeded random option sets, each changing at least two options from the defaults."""
    out = []
    for j, variant in enumerate(ref.VARIANTS):
        rng = random.Random(9000 + j)
        while sum(v == variant for v, _ in out) < per_variant:
            o = ref.random_options(variant, rng)
            if sum(o[k] != ref.default_options(variant)[k] for k in o) >= 2:
                out.append((variant, o))
    return out


RANDOM_COMBOS = _random_combos()
LEVELS = (0, 1) if ddz.cpu_has_fast_isa() else (0,)


def test_option_sweep_covers_rules_7():
    """Every non-default value of every combination option appears in the sweep, and the
    random combinations change several options at once."""
    for variant in ref.VARIANTS:
        for name, values in ref.option_values(variant).items():
            seen = {o[name] for v, o in OPTION_CHANGES if v == variant and name in o}
            assert seen == set(values) - {ref.default_options(variant)[name]}, (variant, name)
    assert ref.option_values("bengbu")["single_kicker_rank_cap"] == tuple(range(1, 9))
    assert all(sum(o[k] != ref.default_options(v)[k] for k in o) >= 2 for v, o in RANDOM_COMBOS)


def _pool(variant, rr, seed, n=24):
    """{(kind, n): [card strings]}: leads of random other hands (prev candidates)."""
    rng = random.Random(seed)
    pool = {}
    for i in range(n):
        h = random_hand(rng, rr.decks, FULL[variant][-1], dense=i % 3 == 2)
        for sub, its in ref.valid_plays(h, rr, "pruned").items():
            lead = max(its, key=lambda i: (i.body, i.key))
            pool.setdefault((lead.kind, lead.n), set()).add(ref.to_str(sub))
    return {k: sorted(v) for k, v in pool.items()}


def _ddz_answers(r, cases):
    """Per level: [(encoded moves, {(cards, kind, key)}, count_moves)] for each (hand, prev)
    case, and the batch counts of the leads."""
    saved, out = ddz.dispatch_level(), {}
    try:
        for level in LEVELS:
            ddz.set_dispatch_level(level)
            assert ddz.dispatch_level() == level
            got = []
            for h, prev in cases:
                moves = ddz.legal_moves(h, r, prev=prev)
                arr = ddz.legal_moves_array(h, r, prev=prev)
                got.append((list(arr), [m.encoded for m in moves], ddz_set(moves), ddz.count_moves(h, r, prev=prev)))
                # simulate's random policy builds only move i's family: the same move, every i
                picked = [_core._select_move(h, r, prev, i) for i in range(len(arr))]
                assert picked == [int(e) for e in arr], f"select_move differs from the list, level {level}"

            leads = [h for h, p in cases if p is None]
            _, counts = ddz.legal_moves_batch(leads, r, count_only=True)
            off, _ = ddz.legal_moves_batch(leads, r)
            out[level] = (got, list(counts), [int(b - a) for a, b in zip(off[:-1], off[1:])])
    finally:
        ddz.set_dispatch_level(saved)
    return out


def _sweep(variant, opts, seed, n_small, n_full):
    r, rr = getattr(ddz.Rules, variant)(**opts), ref.RefRules(variant, opts)
    pool = _pool(variant, rr, seed + 1)
    rng = random.Random(seed + 2)
    hands = [(random_hand(rng, rr.decks, 1 + i % 12, dense=i % 2 == 1), "plain") for i in range(n_small)]
    sizes = FULL[variant]
    hands += [(random_hand(rng, rr.decks, sizes[i % 2], dense=i % 4 == 3), "pruned") for i in range(n_full)]
    cases, want = [], []
    for i, (hand, method) in enumerate(hands):
        plays = ref.valid_plays(hand, rr, method)
        h = ddz_hand(hand, i, rr.decks)
        cases.append((h, None))
        want.append((hand, None, ref.lead_set(plays)))
        for prev in pick_prevs(rng, pool, plays)[:4]:
            cases.append((h, prev))
            want.append((hand, prev, ref.follow_set(plays, ref.lead_reading(prev, rr), rr)))
    by_level = _ddz_answers(r, cases)
    failures, n_nonempty, kinds = [], 0, set()
    for level, (got, batch_counts, batch_sizes) in by_level.items():
        tag = f"[{variant} {opts} level {level}]"
        for (hand, prev, w), (arr, encs, g, cnt) in zip(want, got):
            kinds |= {k for _, k, _ in g}
            n_nonempty += bool(w)
            if g != w:
                failures.append(f"{tag} hand={ref.to_str(hand)} prev={prev!r}: missing {sorted(w - g)[:6]}, "
                                f"extra {sorted(g - w)[:6]}")
            if len(set(encs)) != len(encs) or len({e & ((1 << 56) - 1) for e in encs}) != len(encs):
                failures.append(f"{tag} hand={ref.to_str(hand)} prev={prev!r}: duplicate moves")
            if not (cnt == len(encs) == len(arr)) or sorted(arr) != sorted(encs):
                failures.append(f"{tag} hand={ref.to_str(hand)} prev={prev!r}: count_moves {cnt}, "
                                f"legal_moves {len(encs)}, legal_moves_array {len(arr)}")
        lead_sizes = [len(encs) for (_, prev, _), (_, encs, _, _) in zip(want, got) if prev is None]
        if batch_counts != lead_sizes or batch_sizes != lead_sizes:
            failures.append(f"{tag} legal_moves_batch counts / sizes differ from legal_moves")
    if len(LEVELS) == 2 and by_level[0][0] != by_level[1][0]:
        failures.append(f"[{variant} {opts}] the scalar and AVX2 builds differ")
    assert not failures, f"{len(failures)} mismatches, first ones:\n" + "\n".join(failures[:MAX_REPORT])
    assert n_nonempty >= len(want) * len(LEVELS) // 3
    return kinds


@pytest.mark.parametrize("variant,opts", OPTION_CHANGES,
                         ids=[f"{v}-{k}={x}" for v, o in OPTION_CHANGES for k, x in o.items()])
def test_crosscheck_every_option_value(variant, opts):
    kinds = _sweep(variant, opts, sum(map(ord, repr(sorted(opts.items())))) + len(variant), 70, 24)
    assert {"PAIR_STRAIGHT", "TRIO_STRAIGHT", "PLANE_PAIR", "TRIO_PAIR"} <= kinds


@pytest.mark.parametrize("variant,opts", RANDOM_COMBOS,
                         ids=[f"{v}-random{i % 8}" for i, (v, _) in enumerate(RANDOM_COMBOS)])
def test_crosscheck_random_option_combinations(variant, opts):
    kinds = _sweep(variant, opts, 777 + RANDOM_COMBOS.index((variant, opts)), 70, 24)
    assert {"PAIR_STRAIGHT", "TRIO_STRAIGHT", "PLANE_PAIR", "TRIO_PAIR"} <= kinds


# Hands where one multiset has readings of several kinds or keys (§2.0.4): a wing trio or
# quad beside a plane's chain, four trio ranks in a row, 4q + 4p, and a four-trio plane
# with pairs whose repeated pair rank extends the chain (a five-trio plane with single
# wings when kickers may share the main rank, pairs may repeat and the cap is >= 2).
CROSS_READING_HANDS = ["33344455566677778899", "3333444456", "333444555666", "3334445556667777",
                       "44455566677789", "33344455577789TT", "KKKAAAA2223", "3334445555666"]
CROSS_READING_RULES = [("two_player", dict(kicker_may_share_main_rank=True, kicker_pairs_distinct=False)),
                       ("classic", dict(kicker_may_share_main_rank=True, kicker_pairs_distinct=False,
                                        single_kicker_rank_cap=2))] + \
    [(v, o) for v, o in OPTION_CHANGES + RANDOM_COMBOS if v != "bengbu"]


def test_crosscheck_cross_kind_readings():
    failures = []
    for variant, opts in CROSS_READING_RULES:
        r, rr = getattr(ddz.Rules, variant)(**opts), ref.RefRules(variant, opts)
        cases, want = [], []
        for hs in CROSS_READING_HANDS:
            plays = ref.valid_plays(ref.parse(hs), rr, "pruned")
            cases.append((hs, None))
            want.append(ref.lead_set(plays))
            shapes = {}
            for sub, its in plays.items():
                lead = max(its, key=lambda i: (i.body, i.key))
                shapes.setdefault((lead.kind, lead.n), ref.to_str(sub))
            for prev in sorted(shapes.values()):
                cases.append((hs, prev))
                want.append(ref.follow_set(plays, ref.lead_reading(prev, rr), rr))
        for level, (got, _, _) in _ddz_answers(r, cases).items():
            for (hs, prev), w, (_, encs, g, cnt) in zip(cases, want, got):
                if g != w or cnt != len(encs) or len(set(encs)) != len(encs):
                    failures.append(f"[{variant} {opts} level {level}] hand={hs} prev={prev!r}: missing "
                                    f"{sorted(w - g)[:4]}, extra {sorted(g - w)[:4]}, count {cnt}/{len(encs)}")
    assert not failures, f"{len(failures)} mismatches, first ones:\n" + "\n".join(failures[:MAX_REPORT])
    # the five-trio reading really is what the lead of the first hand shows
    r = ddz.Rules.two_player(kicker_may_share_main_rank=True, kicker_pairs_distinct=False)
    m = ddz.classify("33344455566677778899", r)
    assert (m.kind.name, m.key, m.chain_length) == ("PLANE_SOLO", 4, 5)
    assert [x.kind.name for x in ddz.legal_moves("33344455566677778899", r) if len(x) == 20] == ["PLANE_SOLO"]


@pytest.mark.parametrize("variant", ref.VARIANTS)
def test_counts_equal_generation_many_hands(variant):
    """Without the reference, on many more hands (every size up to the largest hand) and
    option sets: count_only == the generated sizes, no multiset twice, every move read
    back by classify_as (decode) with its kind, the two ISA builds identical; leads and
    follows (prev = a random move of another hand)."""
    import numpy as np

    rng = random.Random(4242 + len(variant))
    combos = [ref.default_options(variant)] + [ref.random_options(variant, rng) for _ in range(11)]
    decks = 2 if variant == "bengbu" else 1
    saved = ddz.dispatch_level()
    try:
        for opts in combos:
            r = getattr(ddz.Rules, variant)(**{k: v for k, v in opts.items() if k in ref.option_values(variant)})
            hands = [ref.to_str(random_hand(rng, decks, rng.randint(1, FULL[variant][-1]), dense=i % 3 == 0))
                     for i in range(300)]
            words = ddz.hand_words(hands, r)
            results, prevs = [], None
            for level in LEVELS:
                ddz.set_dispatch_level(level)
                off, moves = ddz.legal_moves_batch(words, r)
                if prevs is None:
                    prevs = np.array([moves[rng.randrange(len(moves))] for _ in hands], dtype=np.uint64)
                foff, fmoves = ddz.legal_moves_batch(words, r, prevs)
                _, counts = ddz.legal_moves_batch(words, r, None, True)
                _, fcounts = ddz.legal_moves_batch(words, r, prevs, True)
                assert list(counts) == list(np.diff(off)), (variant, opts)
                assert list(fcounts) == list(np.diff(foff)), (variant, opts)
                for o, mv in ((off, moves), (foff, fmoves)):
                    for i in range(len(hands)):
                        seg = mv[o[i]:o[i + 1]] & np.uint64((1 << 56) - 1)
                        assert len(np.unique(seg)) == len(seg), (variant, opts, hands[i])
                results.append((list(moves), list(fmoves)))
            for e in results[0][0][::7] + results[0][1][::7]:
                assert ddz.decode(int(e), r).kind == (int(e) >> 56)
            assert all(x == results[0] for x in results), (variant, opts)
    finally:
        ddz.set_dispatch_level(saved)
