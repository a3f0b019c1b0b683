"""The public API of the core engine: cards, rules options, errors, encodings, the action
space, the batch path and the ISA dispatch (RULES.md §1.3, §2.0, §7)."""
from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

import ddz

ONE_DECK = "3456789TJQKA2" * 4 + "BR"
TWO_DECKS = "3456789TJQKA2" * 8 + "BBRR"


def deal(rng: random.Random, deck: str, n: int) -> str:
    cards = list(deck)
    rng.shuffle(cards)
    return "".join(cards[:n])


# ---- Cards (§1.3) ----

def test_cards_parse_is_order_insensitive_and_canonical():
    assert str(ddz.Cards("R2A3B33")) == "333A2BR"
    assert ddz.Cards("TJ") == ddz.Cards("JT") == "TJ"
    assert len(ddz.Cards("33344456789TJQKA2BR")) == 19
    assert ddz.Cards("jqk") == "JQK"  # lower case accepted


@pytest.mark.parametrize("bad, needle", [
    ("33X", "'X'"), ("3310", "'1'"), ("33333", "too many '3'"), ("BB", "too many 'B'"), ("RR", "too many 'R'"),
])
def test_cards_errors_name_the_character(bad, needle):
    with pytest.raises(ddz.CardError) as e:
        ddz.Cards(bad)
    assert needle in str(e.value)
    assert isinstance(e.value, ValueError)


def test_two_deck_limits():
    assert str(ddz.Cards("33333333BBRR", decks=2)) == "33333333BBRR"
    with pytest.raises(ddz.CardError, match="too many '3'"):
        ddz.Cards("333333333", decks=2)
    with pytest.raises(ddz.CardError, match="too many 'B'"):
        ddz.Cards("BBB", decks=2)


def test_cards_arithmetic_and_pickle():
    a = ddz.Cards("33344")
    assert "334" in a and "3333" not in a
    assert str(a - ddz.Cards("34")) == "334"
    with pytest.raises(ddz.CardError, match="not enough '5'"):
        a - ddz.Cards("5")
    assert pickle.loads(pickle.dumps(a)) == a
    assert ddz.Cards.from_word(a.word) == a


# ---- Rules options (§7) ----

def test_presets_and_options():
    assert ddz.Rules.classic().options["single_kicker_rank_cap"] == 1
    assert ddz.Rules.two_player().options["single_kicker_rank_cap"] == 2
    assert ddz.Rules.bengbu().options["bengbu_trio_chain_order"] == "line"
    assert ddz.Rules.classic(classic_rob_winner="last").options["classic_rob_winner"] == "last"
    assert ddz.Rules.classic() == ddz.Rules.classic() and ddz.Rules.classic() != ddz.Rules.two_player()
    assert pickle.loads(pickle.dumps(ddz.Rules.bengbu(bengbu_trio_chain_order="cycle"))) == \
        ddz.Rules.bengbu(bengbu_trio_chain_order="cycle")


@pytest.mark.parametrize("factory, kwargs, needle", [
    (ddz.Rules.classic, {"no_such_option": 1}, "no_such_option"),
    (ddz.Rules.classic, {"bengbu_four_with_two": True}, "bengbu_four_with_two"),
    (ddz.Rules.classic, {"single_kicker_rank_cap": 5}, "single_kicker_rank_cap"),
    (ddz.Rules.classic, {"classic_rob_winner": "middle"}, "classic_rob_winner"),
    (ddz.Rules.classic, {"classic_show_start": "on"}, "reserved"),
    (ddz.Rules.two_player, {"twop_post_deal_show": "on"}, "reserved"),
    (ddz.Rules.bengbu, {"bengbu_kitty_reveal": 3}, "reserved"),
    (ddz.Rules.bengbu, {"bengbu_bomb_doubling": True}, "reserved"),
    (ddz.Rules.bengbu, {"bengbu_trio_chain_order": "spiral"}, "bengbu_trio_chain_order"),
    (ddz.Rules.bengbu, {"kicker_pairs_distinct": "yes"}, "kicker_pairs_distinct"),
])
def test_bad_options_raise_naming_them(factory, kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        factory(**kwargs)


# ---- moves and errors ----

def test_move_attributes():
    r = ddz.Rules.classic()
    m = ddz.classify("33344456", r)
    assert m.kind is ddz.Kind.PLANE_SOLO and m.kind.name == "PLANE_SOLO"
    assert (m.key, m.chain_length, str(m), len(m)) == (1, 2, "33344456", 8)
    assert m == ddz.classify("65443433", r) and hash(m) == hash(ddz.classify("65443433", r))
    assert ddz.classify("44455536", r).beats(m) and not m.beats("44455536") and not m.beats(m)
    assert ddz.decode(m.encoded, r) == m


@pytest.mark.parametrize("prev", ["3456", "333444556", "BB", "", "34X"])
def test_prev_that_is_no_combination_raises(prev):
    with pytest.raises(ValueError):
        ddz.legal_moves("33344456789", ddz.Rules.classic(), prev=prev)


def test_deck_mismatch_raises():
    with pytest.raises(ddz.CardError, match="one-deck"):
        ddz.legal_moves(ddz.Cards("33344"), ddz.Rules.bengbu())
    with pytest.raises(ddz.CardError, match="two-deck"):
        ddz.legal_moves(ddz.Cards("33344", decks=2), ddz.Rules.classic())
    with pytest.raises(ddz.CardError, match="too many '3'"):
        ddz.legal_moves("33333", ddz.Rules.classic())
    with pytest.raises(TypeError):
        ddz.legal_moves(12345, ddz.Rules.classic())


def test_follow_basics():
    r = ddz.Rules.classic()
    assert [str(m) for m in ddz.legal_moves("3456789BR", r, prev="34567")] == \
        ["45678", "56789", "BR"]
    assert ddz.legal_moves("2222BR", r, prev="BR") == []
    assert sorted(str(m) for m in ddz.legal_moves("2222BR", r, prev="3333")) == ["2222", "BR"]


def test_ambiguous_reading_follows_rules_2_0_4():
    # single_kicker_rank_cap = 3: 333444555666 leads as a 4-trio chain, follows a
    # 3-plane with single wings as 444555666+333 (key 6).
    r = ddz.Rules.classic(single_kicker_rank_cap=3)
    lead = ddz.classify("333444555666", r)
    assert lead.kind is ddz.Kind.TRIO_STRAIGHT and lead.chain_length == 4
    fol = [m for m in ddz.legal_moves("333444555666", r, prev="333444555789") if str(m) == "333444555666"]
    assert len(fol) == 1 and fol[0].kind is ddz.Kind.PLANE_SOLO and fol[0].key == 3


# ---- numpy paths ----

def test_array_and_batch_agree_with_legal_moves():
    rng = random.Random(7)
    for rules, deck, n in [(ddz.Rules.classic(), ONE_DECK, 20), (ddz.Rules.two_player(), ONE_DECK, 23),
                           (ddz.Rules.bengbu(), TWO_DECKS, 33), (ddz.Rules.classic_douzero(), ONE_DECK, 17)]:
        hands = [deal(rng, deck, n) for _ in range(30)]
        prevs = [str(rng.choice(ddz.legal_moves(deal(rng, deck, n), rules))) for _ in hands]
        off, moves = ddz.legal_moves_batch(hands, rules, prevs=prevs)
        off2, counts = ddz.legal_moves_batch(ddz.hand_words(hands, rules), rules, prevs=prevs, count_only=True)
        assert moves.dtype == np.uint64 and off[0] == 0 and off[-1] == len(moves)
        for i, (h, p) in enumerate(zip(hands, prevs)):
            expect = [m.encoded for m in ddz.legal_moves(h, rules, prev=p)]
            assert list(moves[off[i]:off[i + 1]]) == expect
            assert list(ddz.legal_moves_array(h, rules, prev=p)) == expect
            assert counts[i] == len(expect) == ddz.count_moves(h, rules, prev=p)


def test_encoding_layout():
    r = ddz.Rules.bengbu()
    m = ddz.classify("BBRR", r)
    e = m.encoded
    assert e >> 56 == int(ddz.Kind.JOKER_BOMB)
    assert (e >> 52) & 3 == 2 and (e >> 54) & 3 == 2 and e & ((1 << 52) - 1) == 0
    m = ddz.classify("3334", ddz.Rules.classic())
    assert m.encoded == (int(ddz.Kind.TRIO_SOLO) << 56) | 3 | (1 << 4)


def test_scalar_fallback_matches_fast_path():
    rng = random.Random(3)
    level = ddz.dispatch_level()
    try:
        for rules, deck, n in [(ddz.Rules.classic(), ONE_DECK, 20), (ddz.Rules.bengbu(), TWO_DECKS, 33),
                               (ddz.Rules.two_player(), ONE_DECK, 23)]:
            words = ddz.hand_words([deal(rng, deck, n) for _ in range(200)], rules)
            ddz.set_dispatch_level(0)
            assert ddz.dispatch_level() == 0
            scalar = ddz.legal_moves_batch(words, rules)
            scalar_counts = ddz.legal_moves_batch(words, rules, count_only=True)[1]
            ddz.set_dispatch_level(1)
            fast = ddz.legal_moves_batch(words, rules)
            fast_counts = ddz.legal_moves_batch(words, rules, count_only=True)[1]
            assert np.array_equal(scalar[0], fast[0]) and np.array_equal(scalar[1], fast[1])
            assert np.array_equal(scalar_counts, fast_counts)
            assert np.array_equal(np.diff(scalar[0]), scalar_counts)
    finally:
        ddz.set_dispatch_level(level)


# ---- action space ----

def test_action_space_ids_round_trip():
    for rules in [ddz.Rules.classic(), ddz.Rules.two_player(), ddz.Rules.bengbu()]:
        space = rules.action_space()
        assert len(space) == rules.action_space_size
        assert len({(str(m), m.kind) for m in space}) == len(space)
        for i in range(0, len(space), 97):
            assert space[i].id == i and rules.move_from_id(i) == space[i]
        assert max(len(m) for m in space) <= rules.max_hand
    with pytest.raises(ValueError, match="out of range"):
        ddz.Rules.classic().move_from_id(10**7)


def test_action_space_contains_every_legal_move():
    rng = random.Random(11)
    for rules, deck, n in [(ddz.Rules.classic(), ONE_DECK, 20), (ddz.Rules.bengbu(), TWO_DECKS, 33)]:
        ids = set()
        for _ in range(20):
            for m in ddz.legal_moves(deal(rng, deck, n), rules):
                assert rules.move_from_id(m.id) == m
                ids.add(m.id)
        assert ids


def test_compat_universes_match_the_peers_multiset_counts():
    # PEERS.md: DouZero's universe holds 29,984 multisets, OpenSpiel's play ids cover 25,661.
    assert len({str(m) for m in ddz.Rules.classic_douzero().action_space()}) == 29_984
    assert len({str(m) for m in ddz.Rules.classic_openspiel().action_space()}) == 25_661


# ---- command line ----

def test_cli_moves(capsys):
    from ddz.cli import main
    assert main(["moves", "3334445", "--variant", "classic"]) == 0
    out = capsys.readouterr().out
    assert "TRIO_SOLO (" in out and "3334 " in out and "legal plays" in out
    assert main(["moves", "33X"]) == 2
    assert "unknown card character 'X'" in capsys.readouterr().err


def test_batch_into_caller_buffer():
    rng = random.Random(5)
    r = ddz.Rules.classic()
    words = ddz.hand_words([deal(rng, ONE_DECK, 20) for _ in range(50)], r)
    ref_off, ref_moves = ddz.legal_moves_batch(words, r)
    big = np.zeros(len(ref_moves) + 256, dtype=np.uint64)  # the documented slack
    off, moves = ddz.legal_moves_batch(words, r, out=big)
    assert np.shares_memory(moves, big) and np.array_equal(moves, ref_moves) and np.array_equal(off, ref_off)
    small = np.zeros(3, dtype=np.uint64)  # too small: a fresh array, same contents
    off, moves = ddz.legal_moves_batch(words, r, out=small)
    assert not np.shares_memory(moves, small) and np.array_equal(moves, ref_moves)
    with pytest.raises(ValueError, match="uint64"):
        ddz.legal_moves_batch(words, r, out=np.zeros(10, dtype=np.int32))


def test_openspiel_play_ids_are_every_reading():
    # OpenSpiel numbers 26,053 plays: one id per (cards, kind, key) reading. ddz keeps one
    # id per (cards, kind) because §2.0.4 always reads a play at its highest key; the
    # difference is exactly the lower-key readings (docs/engine.md: the action space).
    import reference as ref

    r = ddz.Rules.classic_openspiel()
    rr = ref.RefRules("classic", dict(r.options), strict=False)
    space = r.action_space()
    readings = sum(len(ref.interpretations(str(m), rr)) for m in {str(m): m for m in space}.values())
    assert readings == 26_053
    assert len(space) == 25_670


def test_compat_presets_do_not_copy_peer_bugs():
    # OpenSpiel lets a bomb beat the rocket; ddz's OpenSpiel preset does not (RULES.md §2.0.5).
    os_rules = ddz.Rules.classic_openspiel()
    assert ddz.legal_moves("2222", os_rules, prev="BR") == []
    assert not ddz.classify("2222", os_rules).beats("BR")
    # OpenSpiel misses a chain whose lowest rank the player holds four of; ddz does not.
    assert "34567" in {str(m) for m in ddz.legal_moves("33334567", os_rules)}
    # DouZero compares a plane with single wings by its highest trio, wings included
    # (PEERS.md): 333444555KKK must not beat 666777888 + 9TJ, and the reverse must.
    dz = ddz.Rules.classic_douzero()
    low_chain = ddz.classify("333444555KKK", dz)
    high_chain = ddz.classify("6667778889TJ", dz)
    assert low_chain.kind is high_chain.kind is ddz.Kind.PLANE_SOLO
    assert high_chain.beats(low_chain) and not low_chain.beats(high_chain)
    # DouZero's extras are legal plays of its preset, illegal in default CLASSIC3.
    for play in ["333444BR", "3333BR", "3334445556667777", "333355"]:
        assert ddz.classify(play, dz) is not None and ddz.classify(play, ddz.Rules.classic()) is None


@pytest.mark.parametrize("rules, word, ok", [
    (ddz.Rules.classic(), 4, True), (ddz.Rules.classic(), 5, False),                 # four 3s / five 3s
    (ddz.Rules.classic(), 1 << 52, True), (ddz.Rules.classic(), 2 << 52, False),     # one B / two B
    (ddz.Rules.classic(), 1 << 60, False),                                           # beyond the 15 nibbles
    (ddz.Rules.bengbu(), 8 << 48, True), (ddz.Rules.bengbu(), 9 << 48, False),       # eight 2s / nine 2s
    (ddz.Rules.bengbu(), 15 << 4, False), (ddz.Rules.bengbu(), 2 << 56, True),       # fifteen 4s / two R
    (ddz.Rules.bengbu(), 3 << 56, False),                                            # three R
])
def test_batch_rejects_words_beyond_the_deck(rules, word, ok):
    arr = np.array([word], dtype=np.uint64)
    if ok:
        assert ddz.legal_moves_batch(arr, rules, count_only=True)[1][0] >= 1
    else:
        with pytest.raises(ddz.CardError, match="hands\\[0\\]"):
            ddz.legal_moves_batch(arr, rules)


def test_namespace_version_and_enum_names():
    """help() and print() are useful on their own (issue: documentation, item 3)."""
    import inspect
    import subprocess
    import sys
    assert str(ddz.Kind.BOMB) == "BOMB" and f"{ddz.Kind.PLANE_SOLO}" == "PLANE_SOLO" and int(ddz.Kind.BOMB) == 12
    assert str(ddz.IllegalCode.NOT_HELD) == "NOT_HELD"
    assert "annotations" not in dir(ddz)
    assert all(hasattr(ddz, name) for name in ddz.__all__)
    params = inspect.signature(ddz.Game).parameters
    assert list(params)[:2] == ["rules", "seed"] and "hands" in params
    assert ddz.Game.legal_actions.__doc__ and ddz.Game.to_json.__doc__
    out = subprocess.run([sys.executable, "-m", "ddz.cli", "--version"], capture_output=True, text=True)
    assert out.stdout.strip() == f"ddz {ddz.__version__}"
    import re
    from importlib.metadata import PackageNotFoundError, version
    assert re.fullmatch(r"\d+\.\d+\.\d+", ddz.__version__)
    try:  # installed: the package metadata carries the same version (pyproject reads _version.py)
        assert version("ddz") == ddz.__version__
    except PackageNotFoundError:  # run from a copy of the source (the sanitizer build)
        pass


def test_import_loads_no_peer_adapter():
    """The peer adapters serve `ddz bench --peers` and the cross-checks only (issue:
    documentation, item 5): importing ddz imports none of them, nor any peer engine."""
    import subprocess
    import sys
    code = ("import sys, ddz; bad = [m for m in sys.modules if m in ('ddz.peers', 'ddz.bench_peers', 'rlcard', "
            "'pyspiel', 'douzero', 'torch')]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_move_objects_survive_reuse_of_their_memory():
    """Move is a lean CPython type with a free list: dead Moves' memory is reused, live
    ones keep their values, and Moves work as dict keys and across threads."""
    import gc
    import threading

    r = ddz.Rules.classic_openspiel()
    hand = "33344455566677789TJQKA2BR"[:20]
    keep = ddz.legal_moves(hand, r)
    want = [(str(m), m.kind, m.key, m.chain_length, m.id, m.encoded) for m in keep]
    for _ in range(50):  # churn: build and drop many moves
        ddz.legal_moves("3456789TJQKA2BR3456", r)
    gc.collect()
    assert [(str(m), m.kind, m.key, m.chain_length, m.id, m.encoded) for m in keep] == want
    d = {m: i for i, m in enumerate(keep)}
    assert all(d[m] == i for i, m in enumerate(ddz.legal_moves(hand, r)))
    out = []
    t = threading.Thread(target=lambda: out.append(ddz.legal_moves(hand, r)))
    t.start()
    t.join()
    assert out[0] == keep and type(out[0][0]) is ddz.Move
    with pytest.raises(TypeError):
        ddz.Move()


def test_help_shows_real_signatures():
    """help() names what each argument should be (not pybind11's 'handle' or 'object')."""
    for f, want in ((ddz.legal_moves, "hand: str | ddz.Cards, rules: ddz.Rules, prev: str | ddz.Move | None = None"),
                    (ddz.count_moves, "hand: str | ddz.Cards"), (ddz.decode, "encoded: int, rules: ddz.Rules"),
                    (ddz.deal, "rules: ddz.Rules, seed: int, game: int = 0"),
                    (ddz.PlayState.apply, "action: ddz.Move | int | str"),
                    (ddz.PlayState.__init__, "hands: Sequence[str | ddz.Cards], landlord: int, rules: ddz.Rules")):
        assert want in f.__doc__.split("\n")[0], (f, f.__doc__.split("\n")[0])
        assert len(f.__doc__.strip().split("\n")) > 1, f"{f} has no description"
    for name in ddz.__all__:
        obj = getattr(ddz, name)
        if callable(obj) and not isinstance(obj, type(ddz)):
            assert obj.__doc__ and "handle" not in obj.__doc__.split("\n")[0], name


# ---- Rules.named: one set of names for every layer ------------------------------------------

def test_rules_named_takes_every_name_and_alias():
    from ddz.core.rules import RULES_NAMES
    factories = {"classic": ddz.Rules.classic(), "two_player": ddz.Rules.two_player(), "bengbu": ddz.Rules.bengbu(),
                 "classic_douzero": ddz.Rules.classic_douzero(), "classic_openspiel": ddz.Rules.classic_openspiel(),
                 "classic_rlcard": ddz.Rules.classic_rlcard()}
    assert set(RULES_NAMES.values()) == set(factories)
    for name, factory in RULES_NAMES.items():
        for spelling in (name, name.upper(), f" {name} ", name.replace("_", "-")):
            r = ddz.Rules.named(spelling)
            assert r == factories[factory] and r.preset == factories[factory].preset, spelling
    # the older spellings every layer used to take
    for old, new in (("douzero", "classic_douzero"), ("openspiel", "classic_openspiel"), ("twop", "two_player"),
                     ("classic3", "classic"), ("bengbu4", "bengbu"), ("two-player", "two_player")):
        assert ddz.Rules.named(old).preset == new
    assert ddz.Rules.named("twop", max_redeals=2) == ddz.Rules.two_player(max_redeals=2)


def test_rules_named_errors():
    with pytest.raises(ddz.ArgumentError, match="unknown rules name 'dou_zero'.*classic_douzero"):
        ddz.Rules.named("dou_zero")
    with pytest.raises(ddz.ArgumentTypeError):
        ddz.Rules.named(3)  # type: ignore[arg-type]
    with pytest.raises(ddz.ArgumentError, match="takes no options"):
        ddz.Rules.named("douzero", max_redeals=2)
    with pytest.raises(ddz.ArgumentError, match="unknown option"):
        ddz.Rules.named("classic", twop_zero_sum=True)


@pytest.mark.parametrize("name", ["classic_douzero", "douzero", "twop", "BENGBU4"])
def test_every_subcommand_takes_every_rules_name(name):
    from ddz.cli.main import build_parser
    want = ddz.Rules.named(name)
    p = build_parser()
    for argv in (["play", "--variant", name], ["selfplay", "--variant", name], ["moves", "3", "--variant", name],
                 ["solve", "3", "4", "--rules", name]):
        args = p.parse_args(argv)
        assert (args.variant if hasattr(args, "variant") else args.rules) == want, argv
    args = p.parse_args(["train", "--variant", name, "--out", "x", "--frames", "100"])
    assert ddz.Rules.named(args.variant) == want
