"""Hypothesis property tests of the ddz move generator and card notation
(RULES.md §1.3 notation, §2.0.1 trick play, §2.0.4 readings, §2.0.5 comparison).

For random valid hands of every variant / preset (and some non-default options):
* every generated move classifies back to itself (same cards; for leads always the
  same kind/key/chain length — leads use the lead reading, as ``classify`` does; for
  follows the same kind/key under default options, where every multiset has exactly
  one reading);
* every follow beats ``prev`` (and ``prev`` does not beat it); follows are leads too;
* no duplicate moves; moves are sub-multisets of the hand;
* ``count_moves == len(legal_moves) == len(legal_moves_array)``;
* ``Cards`` parse/print round-trips (shuffled input -> canonical string).
"""
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ddz
from ddz.variants import VARIANT

RANKS = "3456789TJQKA2BR"
ONE_DECK = [ch for v, ch in enumerate(RANKS) for _ in range(4 if v < 13 else 1)]
TWO_DECKS = [ch for v, ch in enumerate(RANKS) for _ in range(8 if v < 13 else 2)]
MAX_HAND = {name: v.max_hand for name, v in VARIANT.items()}

# id -> (factory, kwargs, default combination options?)
CONFIGS = {
    "classic": ("classic", {}, True),
    "two_player": ("two_player", {}, True),
    "bengbu": ("bengbu", {}, True),
    "classic_douzero": ("classic_douzero", {}, False),
    "classic_openspiel": ("classic_openspiel", {}, False),
    "bengbu_cycle_4w2": ("bengbu", {"bengbu_trio_chain_order": "cycle", "bengbu_four_with_two": True}, False),
    "classic_relaxed": ("classic", {"kicker_may_share_main_rank": True, "kicker_pairs_distinct": False,
                                    "single_kicker_rank_cap": 3}, False),
}

SETTINGS = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def rules(cid):
    factory, kwargs, _ = CONFIGS[cid]
    return getattr(ddz.Rules, factory)(**kwargs)


def canon(s):
    return "".join(sorted(s, key=RANKS.index))


def hands(variant, min_size=1, max_size=None):
    """Valid hands (strings, in random order) of `variant`: a prefix of a shuffled deck;
    sizes are biased towards both small and deal-size hands."""
    deck = TWO_DECKS if variant == "bengbu" else ONE_DECK
    hi = max_size or MAX_HAND[variant]
    size = st.one_of(st.integers(min_size, hi), st.integers(max(min_size, hi - 8), hi))
    return st.tuples(st.permutations(deck), size).map(lambda t: "".join(t[0][: t[1]]))


def as_hand(s, variant):
    return ddz.Cards(s, decks=2) if variant == "bengbu" else s


def is_sub(part, whole):
    return not (Counter(part) - Counter(whole))


def check_list(moves, h, r, prev=None):
    strs = [str(m) for m in moves]
    assert len(strs) == len(set(strs)), "duplicate moves"
    assert ddz.count_moves(h, r, prev=prev) == len(moves)
    assert len(ddz.legal_moves_array(h, r, prev=prev)) == len(moves)
    return strs


@pytest.mark.parametrize("cid", list(CONFIGS))
@SETTINGS
@given(data=st.data())
def test_leads(cid, data):
    r = rules(cid)
    s = data.draw(hands(r.variant), label="hand")
    h = as_hand(s, r.variant)
    moves = ddz.legal_moves(h, r)
    check_list(moves, h, r)
    assert moves, "a non-empty hand always has a lead (every single card)"
    assert {str(m) for m in moves if m.kind.name == "SOLO"} == set(s)
    for m in moves:
        ms = str(m)
        assert ms == canon(ms) and str(m.cards) == ms and len(m.cards) == len(ms)
        assert is_sub(ms, s)
        c = ddz.classify(ms, r)
        assert c is not None and str(c) == ms
        assert (c.kind, c.key, c.chain_length) == (m.kind, m.key, m.chain_length), ms
        assert not m.beats(m) and not m.beats(c), "equal keys never beat"


@pytest.mark.parametrize("cid", list(CONFIGS))
@SETTINGS
@given(data=st.data())
def test_follows(cid, data):
    r = rules(cid)
    default = CONFIGS[cid][2]
    s = data.draw(hands(r.variant), label="hand")
    other = data.draw(hands(r.variant), label="other hand")
    prev_moves = ddz.legal_moves(as_hand(other, r.variant), r)
    prev = data.draw(st.sampled_from(prev_moves), label="prev")
    as_str = data.draw(st.booleans(), label="prev as str")
    p = str(prev) if as_str else prev
    h = as_hand(s, r.variant)
    follows = ddz.legal_moves(h, r, prev=p)
    strs = check_list(follows, h, r, prev=p)
    leads = {str(m) for m in ddz.legal_moves(h, r)}
    assert set(strs) <= leads
    bombs = {"BOMB", "ROCKET", "BOMB4", "BOMB5", "BOMB6", "BOMB7", "BOMB8", "JOKER_BOMB"}
    for f in follows:
        fs = str(f)
        assert is_sub(fs, s)
        assert f.beats(prev), (fs, str(prev))
        assert not prev.beats(f), (fs, str(prev))
        if f.kind.name not in bombs:
            assert f.kind == prev.kind and len(fs) == len(str(prev)) and f.key > prev.key
        c = ddz.classify(fs, r)
        assert c is not None and str(c) == fs
        if default:
            assert (c.kind, c.key, c.chain_length) == (f.kind, f.key, f.chain_length)
    if prev.kind.name in ("ROCKET", "JOKER_BOMB"):
        assert follows == [], "nothing beats a ROCKET / JOKER_BOMB"


@pytest.mark.parametrize("variant", ["classic", "two_player", "bengbu"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_cards_round_trip(variant, data):
    s = data.draw(hands(variant, min_size=0), label="hand")
    shuffled = "".join(data.draw(st.permutations(list(s)), label="order"))
    decks = 2 if variant == "bengbu" else 1
    c = ddz.Cards(shuffled, decks=decks) if decks == 2 else ddz.Cards(shuffled)
    assert str(c) == canon(s) and len(c) == len(s)
    c2 = ddz.Cards(str(c), decks=decks) if decks == 2 else ddz.Cards(str(c))
    assert str(c2) == str(c)


@settings(max_examples=60, deadline=None)
@given(rank=st.sampled_from(RANKS), decks=st.sampled_from([1, 2]), extra=st.integers(1, 3),
       rest=st.permutations(ONE_DECK))
def test_cards_limits(rank, decks, extra, rest):
    """§1.3: more copies than the deck holds, or an unknown character, is malformed."""
    limit = (4 if rank not in "BR" else 1) * decks
    bad = rank * (limit + extra) + "".join(x for x in rest[:5] if x != rank)
    with pytest.raises(ddz.CardError):
        ddz.Cards(bad, decks=decks) if decks == 2 else ddz.Cards(bad)
    assert issubclass(ddz.CardError, ValueError)
    ok = rank * limit
    assert str(ddz.Cards(ok, decks=decks) if decks == 2 else ddz.Cards(ok)) == ok
    with pytest.raises(ddz.CardError):
        ddz.Cards("3X4")
