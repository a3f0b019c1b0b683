"""RULES.md §6.1 (pattern classification, P1-P70) and §6.2 (comparison, K1-K28) as
data-driven tests, run against ``ddz`` and against the independent brute-force
reference ``tests/reference.py`` (which validates the reference itself).

All options are at their defaults unless a case says otherwise (§6 conventions).
Keys follow the API contract: v of the main / highest rank (3=0 … A=11, 2=12, B=13,
R=14); BENGBU4 trio chains and plane bodies in ``line`` order: the position 1..14 on
A 2 3 … K A of the top element; ``cycle`` order: v of the arc's last rank;
ROCKET / JOKER_BOMB: 14.  chain_length is 1 for non-chains.
"""
import os
import sys
from collections import Counter

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as ref  # noqa: E402

V = ref.RANK_V
CL, TP, BB = "classic", "two_player", "bengbu"
CYCLE = {"bengbu_trio_chain_order": "cycle"}


def E(kind, key, length=1):
    return (kind, key, length)


# id -> (variant, [(options, input, expected (kind, key, chain_length) or None)])
# §6.1 Pattern classification.
P_VECTORS = {
    "P1": (CL, [({}, "3", E("SOLO", V["3"]))]),
    "P2": (CL, [({}, "33", E("PAIR", V["3"]))]),
    "P3": (CL, [({}, "444", E("TRIO", V["4"]))]),
    "P4": (CL, [({}, "3335", E("TRIO_SOLO", V["3"]))]),
    "P5": (CL, [({}, "44488", E("TRIO_PAIR", V["4"]))]),
    "P6": (CL, [({}, "33344456", E("PLANE_SOLO", V["4"], 2))]),
    "P7": (CL, [({}, "444555666778899", E("PLANE_PAIR", V["6"], 3))]),
    "P8": (CL, [({}, "333444556", None)]),                  # mixed wings
    "P9": (CL, [({}, "34567", E("STRAIGHT", V["7"], 5))]),
    "P10": (CL, [({}, "6789TJQKA", E("STRAIGHT", V["A"], 9))]),
    "P11": (CL, [({}, "334455", E("PAIR_STRAIGHT", V["5"], 3))]),
    "P12": (CL, [({}, "66778899TTJJQQKK", E("PAIR_STRAIGHT", V["K"], 8))]),
    "P13": (CL, [({}, "333444", E("TRIO_STRAIGHT", V["4"], 2))]),
    "P14": (CL, [({}, "JJJQQQKKK", E("TRIO_STRAIGHT", V["K"], 3))]),
    "P15": (CL, [({}, "444436", E("FOUR_TWO_SOLO", V["4"]))]),
    "P16": (CL, [({}, "99993344", E("FOUR_TWO_PAIR", V["9"]))]),
    "P17": (CL, [({}, "6666344", None)]),                   # mixed kickers
    "P18": (CL, [({}, "5555", E("BOMB", V["5"]))]),
    "P19": (CL, [({}, "BR", E("ROCKET", 14))]),
    "P20": (CL, [({}, "JQKA2", None)]),                     # 2 in a chain
    "P21": (CL, [({}, "AAA222", None)]),                    # 2 in a chain
    "P22": (CL, [({}, "3456", None)]),                      # straight < 5
    "P23": (CL, [({}, "3344", None)]),                      # pair straight < 3 pairs
    "P24": (CL, [({}, "333B", E("TRIO_SOLO", V["3"]))]),
    "P25": (CL, [({}, "444455", None)]),                    # A3
    "P26": (CL, [({}, "33344455", None)]),                  # A3
    "P27": (CL, [({}, "3333BR", None)]),                    # A5
    "P28": (CL, [({}, "33334445", None)]),                  # A2
    "P29": (CL, [({}, "33334444", None)]),                  # A4
    "P30": (TP, [({}, "34567", E("STRAIGHT", V["7"], 5))]),
    "P31": (TP, [({}, "3334445566", E("PLANE_PAIR", V["4"], 2))]),
    "P32": (TP, [({}, "333444555678", E("PLANE_SOLO", V["5"], 3))]),
    "P33": (TP, [({}, "555538", E("FOUR_TWO_SOLO", V["5"]))]),
    "P34": (TP, [({}, "44445577", E("FOUR_TWO_PAIR", V["4"]))]),
    "P35": (TP, [({}, "444455", E("FOUR_TWO_SOLO", V["4"]))]),
    "P36": (TP, [({}, "33344455", E("PLANE_SOLO", V["4"], 2))]),
    "P37": (TP, [({}, "333444555666", E("TRIO_STRAIGHT", V["6"], 4))]),   # only reading
    "P38": (TP, [({}, "333444555777", None)]),              # three 7s as single wings
    "P39": (BB, [({}, "TTT", E("TRIO", V["T"]))]),
    "P40": (BB, [({}, "33344", E("TRIO_PAIR", V["3"]))]),
    "P41": (BB, [({}, "3334", None)]),                      # no 三带一
    "P42": (BB, [({}, "34567", None)]),                     # no 单顺
    "P43": (BB, [({}, "334455", E("PAIR_STRAIGHT", V["5"], 3))]),
    "P44": (BB, [({}, "8899TTJJ", E("PAIR_STRAIGHT", V["J"], 4))]),
    "P45": (BB, [({}, "AA2233", None)]),
    "P46": (BB, [({}, "KKAA22", None)]),
    "P47": (BB, [({}, "333444", E("TRIO_STRAIGHT", 4, 2))]),
    "P48": (BB, [({}, "444555666777", E("TRIO_STRAIGHT", 7, 4))]),
    "P49": (BB, [({}, "AAA222333", E("TRIO_STRAIGHT", 3, 3))]),
    "P50": (BB, [({}, "222333444", E("TRIO_STRAIGHT", 4, 3))]),
    "P51": (BB, [({}, "QQQKKKAAA", E("TRIO_STRAIGHT", 14, 3))]),
    "P52": (BB, [({}, "AAA222", E("TRIO_STRAIGHT", 2, 2))]),
    "P53": (BB, [({}, "KKKAAA222", None),
                 (CYCLE, "KKKAAA222", E("TRIO_STRAIGHT", V["2"], 3))]),
    "P54": (BB, [({}, "3334445577", E("PLANE_PAIR", 4, 2))]),
    "P55": (BB, [({}, "333444555668899", E("PLANE_PAIR", 5, 3))]),
    "P56": (BB, [({}, "333444555666778899TT", E("PLANE_PAIR", 6, 4))]),
    "P57": (BB, [({}, "333444556", None)]),                 # single wing; mixed wings
    "P58": (BB, [({}, "BBRR", E("JOKER_BOMB", 14))]),
    "P59": (BB, [({}, "KKKKKKKK", E("BOMB8", V["K"]))]),
    "P60": (BB, [({}, "QQQQQQQ", E("BOMB7", V["Q"]))]),
    "P61": (BB, [({}, "JJJJJJ", E("BOMB6", V["J"]))]),
    "P62": (BB, [({}, "99999", E("BOMB5", V["9"]))]),
    "P63": (BB, [({}, "8888", E("BOMB4", V["8"]))]),
    "P64": (BB, [({}, "33333", E("BOMB5", V["3"]))]),       # never TRIO_PAIR
    "P65": (BB, [({}, "BB", E("PAIR", V["B"])), ({}, "RR", E("PAIR", V["R"]))]),
    "P66": (BB, [({}, "BR", None)]),
    "P67": (BB, [({}, "333BB", E("TRIO_PAIR", V["3"]))]),
    "P68": (BB, [({}, "888899", None)]),                    # no 四带二
    "P69": (BB, [({}, "3334445555", None)]),                # A4
    "P70": (BB, [({}, "333444BBRR", None)]),                # A5
}

# §6.2 Comparison: id -> (variant, top, play, does play beat top?)
K_VECTORS = {
    "K1": (CL, "A", "2", True),
    "K2": (CL, "2", "B", True),
    "K3": (CL, "B", "R", True),
    "K4": (CL, "22", "3333", True),
    "K5": (CL, "3333", "2222", True),
    "K6": (CL, "2222", "BR", True),
    "K7": (CL, "BR", "2222", False),
    "K8": (CL, "34567", "45678", True),
    "K9": (CL, "34567", "456789", False),        # length differs
    "K10": (CL, "3334", "44455", False),         # pattern differs
    "K11": (CL, "33344456", "44455537", True),   # key 5 > 4
    "K12": (CL, "444436", "555537", True),
    "K13": (CL, "444436", "5555", True),         # bomb
    "K14": (CL, "99993344", "TTTT3355", True),
    "K15": (CL, "33", "33", False),              # the other two 3s: equal keys never beat
    "K16": (BB, "2222", "33333", True),          # 5 cards > 4
    "K17": (BB, "33333", "22222", True),
    "K18": (BB, "33333", "2222", False),
    "K19": (BB, "AAAAAAA", "33333333", True),
    "K20": (BB, "22222222", "BBRR", True),
    "K21": (BB, "AAA222333", "222333444", True),
    "K22": (BB, "JJJQQQKKK", "QQQKKKAAA", True),
    "K23": (BB, "QQQKKKAAA", "AAA222333", False),
    "K24": (BB, "22", "BB", True),
    "K25": (BB, "BB", "RR", True),
    "K26": (BB, "334455", "445566", True),
    "K27": (BB, "33344", "444BB", True),
    "K28": (BB, "3334445577", "4445553366", True),  # key pos 5 > 4
}

P_IDS = sorted(P_VECTORS, key=lambda s: int(s[1:]))
K_IDS = sorted(K_VECTORS, key=lambda s: int(s[1:]))


def canon(s):
    return "".join(sorted(s, key=ref.RANK_V.__getitem__))


def test_vector_tables_complete():
    """§6.1 has P1..P70 and §6.2 has K1..K28."""
    assert P_IDS == [f"P{i}" for i in range(1, 71)]
    assert K_IDS == [f"K{i}" for i in range(1, 29)]


# ----------------------------------------------------------------- reference checks

@pytest.mark.parametrize("vid", P_IDS)
def test_classify_reference(vid):
    """§6.1 against tests/reference.py."""
    variant, cases = P_VECTORS[vid]
    for opts, cards, expected in cases:
        rr = ref.RefRules(variant, opts)
        got = ref.classify(cards, rr)
        assert (None if got is None else (got.kind, got.key, got.length)) == expected, (vid, opts, cards)
        if expected is not None:
            # §2.0.4: under these options every listed combination has a single reading
            assert len(ref.interpretations(cards, rr)) == 1, ref.interpretations(cards, rr)


@pytest.mark.parametrize("vid", K_IDS)
def test_beats_reference(vid):
    """§6.2 against tests/reference.py."""
    variant, top, play, expected = K_VECTORS[vid]
    rr = ref.RefRules(variant)
    t, p = ref.classify(top, rr), ref.classify(play, rr)
    assert t is not None and p is not None
    assert ref.beats(p, t, rr) is expected
    if expected:
        assert not ref.beats(t, p, rr)
    # movegen view: `play` (held as a hand) answers `top` iff expected
    assert ((canon(play), p.kind, p.key) in ref.follows(play, rr, top)) is expected


# ----------------------------------------------------------------- ddz checks

@pytest.fixture(scope="module")
def ddz():
    import ddz as mod  # fails loudly when the package is not installed
    return mod


def ddz_rules(ddz, variant, opts=None):
    return getattr(ddz.Rules, variant)(**(opts or {}))


def move_tuple(m):
    return None if m is None else (m.kind.name, m.key, m.chain_length)


@pytest.mark.parametrize("vid", P_IDS)
def test_classify_ddz(ddz, vid):
    """§6.1: ddz.classify gives the expected pattern, key and chain length (None if
    invalid); legal_moves of the input as a hand lists it iff valid, same reading."""
    variant, cases = P_VECTORS[vid]
    for opts, cards, expected in cases:
        r = ddz_rules(ddz, variant, opts)
        m = ddz.classify(cards, r)
        assert move_tuple(m) == expected, (vid, opts, cards)
        if m is not None:
            assert str(m) == canon(cards)
            assert str(m.cards) == canon(cards) and len(m.cards) == len(cards)
        same = [x for x in ddz.legal_moves(cards, r) if str(x) == canon(cards)]
        assert [move_tuple(x) for x in same] == ([] if expected is None else [expected]), (vid, opts, cards)


@pytest.mark.parametrize("vid", K_IDS)
def test_beats_ddz(ddz, vid):
    """§6.2: Move.beats, and legal_moves(play, prev=top) lists `play` iff it beats."""
    variant, top, play, expected = K_VECTORS[vid]
    r = ddz_rules(ddz, variant)
    t, p = ddz.classify(top, r), ddz.classify(play, r)
    assert t is not None and p is not None
    assert p.beats(t) is expected
    if expected:
        assert not t.beats(p)
    for prev in (top, t):
        answers = [str(x) for x in ddz.legal_moves(play, r, prev=prev)]
        assert (canon(play) in answers) is expected, (vid, answers)
        assert ddz.count_moves(play, r, prev=prev) == len(answers)


def test_k15_equal_keys_ddz(ddz):
    """§6.2 K15 / §2.0.5: equal keys never beat — holding the other two 3s (or all
    four 3s split as a pair) gives no PAIR answer to 33."""
    r = ddz.Rules.classic()
    assert ddz.legal_moves("33", r, prev="33") == []
    assert ddz.count_moves("33", r, prev="33") == 0
    assert [str(x) for x in ddz.legal_moves("3333", r, prev="33")] == ["3333"]  # only the bomb


def test_p37_only_reading_ddz(ddz):
    """P37 "(only reading)": in TWOP 333444555666 is never a PLANE_SOLO of 3 (that would
    need three 3s or three 6s as single wings, K2 cap 2), so it cannot answer one."""
    r = ddz.Rules.two_player()
    assert ddz.legal_moves("333444555666", r, prev="333444555678") == []
    assert ddz.legal_moves("333444555666", r, prev="333444555666") == []
    rr = ref.RefRules("two_player")
    assert ref.follows("333444555666", rr, "333444555678") == set()
