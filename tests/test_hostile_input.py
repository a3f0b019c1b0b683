"""Regression tests for the defects a fuzzing campaign found (one test per defect), and the
input contract of every public entry point: bad input raises a ``ddz.DdzError`` (a
ValueError) whose message names what was wrong and stays short; a value of the wrong Python
type raises a class deriving from that error and from TypeError; the state is unchanged."""
from __future__ import annotations

import copy
import json
import pickle
import random
import threading

import numpy as np
import pytest

import ddz
from ddz.record import read_view

C3 = ddz.Rules.classic()
B4 = ddz.Rules.bengbu()


def raises(exc, fn, *a, **kw):
    with pytest.raises(exc) as info:
        fn(*a, **kw)
    assert isinstance(info.value, ddz.DdzError) and isinstance(info.value, ValueError)
    assert len(str(info.value)) < 1000, "messages stay short (bounded, whatever the input's size)"
    return info.value


def typed(fn, *a, **kw):
    """A wrong-type argument: caught by `except TypeError` and by `except ValueError`."""
    e = raises(TypeError, fn, *a, **kw)
    assert isinstance(e, ValueError)
    return e


# ---- High 1: simulate with absurd thread counts -------------------------------------------

def test_simulate_threads_are_bounded():
    e = raises(ddz.ArgumentError, ddz.simulate, C3, games=40000, threads=40000)
    assert "threads" in str(e) and str(ddz.MAX_THREADS) in str(e)
    raises(ddz.ArgumentError, ddz.simulate, C3, games=10, threads=0)
    typed(ddz.simulate, C3, games=10, threads=1.5)
    typed(ddz.simulate, C3, games="10")
    raises(ddz.ArgumentError, ddz.simulate, C3, games=10, seed=-1)
    raises(ddz.ArgumentError, ddz.simulate, C3, games=10, seed=2**64)
    typed(ddz.simulate, "classic", games=10)
    typed(ddz.simulate, C3, games=10, policy=["random"])


def test_simulate_many_threads_same_result():
    # the maximum thread count works and gives the one-thread result (more threads than games)
    a = ddz.simulate(C3, games=300, seed=5, threads=1)
    b = ddz.simulate(C3, games=300, seed=5, threads=ddz.MAX_THREADS)
    assert (a.winner_side == b.winner_side).all() and (a.actions == b.actions).all()


def test_selfplay_cli_rejects_thread_count(capsys):
    from ddz.cli import main
    assert main(["selfplay", "--games", "10", "--threads", "40000"]) != 0
    assert "--threads" in capsys.readouterr().err


# ---- High 2 / Medium 3: records -----------------------------------------------------------

def _record(variant="classic", seed=3, steps=6):
    g = ddz.Game(ddz.Rules(variant), seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if g.is_over:
            break
        g.apply(rng.choice(g.legal_actions()))
    return g, json.loads(g.to_json())


def test_record_first_bidder_out_of_range_is_rejected_not_hung():
    g, d = _record(steps=0)
    for bad in (7, -1, "0", 0.0, True, None):
        d2 = copy.deepcopy(d)
        d2["deals"][0]["first_bidder"] = bad
        e = raises(ddz.RecordError, ddz.Game.from_json, json.dumps(d2))
        assert "first_bidder" in str(e)


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_record_deals_are_validated(variant):
    g, d = _record(variant, steps=3)
    n = g.num_players

    def bad(mutate, word):
        d2 = copy.deepcopy(d)
        mutate(d2)
        e = raises(ddz.RecordError, ddz.Game.from_json, json.dumps(d2))
        assert word in str(e), str(e)

    def overlap(x):  # seat 1 also holds seat 0's first card, instead of one of its own
        x["deals"][0]["hands"][1][0] = x["deals"][0]["hands"][0][0]

    bad(overlap, "exactly once")
    bad(lambda x: x["deals"][0]["hands"].pop(), "hands")
    bad(lambda x: x["deals"][0]["hands"].append(x["deals"][0]["hands"][0]), "hands")
    bad(lambda x: x["deals"][0].__setitem__("kitty", []), "kitty")
    bad(lambda x: x["deals"][0]["hands"][0].pop(), "seat 0")
    bad(lambda x: x["deals"][0]["hands"][0].__setitem__(0, "Zz"), "card")
    bad(lambda x: x["deals"][0]["hands"][0].__setitem__(0, 5), "card names")
    bad(lambda x: x.__setitem__("deals", []), "no deal")
    bad(lambda x: x.__setitem__("deals", "x"), "deals")
    bad(lambda x: x["deals"].append(copy.deepcopy(x["deals"][0])), "deals")
    for v in (True, 1.0, "1", 2, None):
        bad(lambda x, v=v: x.__setitem__("version", v), "version")
    bad(lambda x: x.__setitem__("seed", 10**30), "seed")
    bad(lambda x: x.__setitem__("seed", "1"), "seed")
    bad(lambda x: x.__setitem__("rules", {"variant": "classic4", "options": {}}), "variant")
    bad(lambda x: x["rules"]["options"].__setitem__("no_such_option", 1), "option")
    bad(lambda x: x.__setitem__("actions", [{"seat": 0}]), "action")
    bad(lambda x: x.__setitem__("actions", [{"seat": n, "action": "PASS"}]), "seat")
    bad(lambda x: x.__setitem__("actions", ["PASS"]), "action 0")
    bad(lambda x: x.pop("result"), "result")
    assert n == g.num_players


def test_record_result_must_match_replay():
    g, d = _record("classic", seed=11, steps=10_000)
    assert g.is_over
    d2 = copy.deepcopy(d)
    d2["result"]["scores"][0] += 1
    e = raises(ddz.RecordError, ddz.Game.from_json, json.dumps(d2))
    assert "result" in str(e)
    d3 = copy.deepcopy(d)
    d3["result"] = None
    raises(ddz.RecordError, ddz.Game.from_json, json.dumps(d3))
    assert ddz.Game.from_json(json.dumps(d)).result == g.result


def test_record_broken_json_and_types():
    raises(ddz.RecordError, ddz.Game.from_json, "[" * 100_000)
    raises(ddz.RecordError, ddz.Game.from_json, "{}")
    raises(ddz.RecordError, ddz.Game.from_json, "null")
    typed(ddz.Game.from_json, b"{}")
    typed(ddz.Game.from_json, None)
    assert issubclass(ddz.RecordTypeError, ddz.RecordError)


def test_record_timeout_must_be_followed_by_default_action():
    g = ddz.Game(C3, 4)
    g.timeout()
    d = json.loads(g.to_json())
    assert [a["action"] for a in d["actions"]] == ["TIMEOUT", "NO_CALL"]
    d["actions"][1]["action"] = "CALL"
    raises(ddz.RecordError, ddz.Game.from_json, json.dumps(d))


def test_rejected_action_changes_nothing_at_every_phase():
    for variant in ddz.VARIANTS:
        for seed in range(4):
            g = ddz.Game(ddz.Rules(variant), seed)
            rng = random.Random(seed)
            while not g.is_over:
                before = g.to_json()
                for bad in ("PLAY ZZ", "CALLX", 10**30, None, ["3s", "3s"], "PLAY 3s 3s", "PASS PASS"):
                    with pytest.raises(ValueError):
                        g.apply(bad)
                    assert g.to_json() == before
                g.apply(rng.choice(g.legal_actions()))


def test_game_seed_range():
    raises(ddz.ArgumentError, ddz.Game, C3, seed=10**5000)
    raises(ddz.ArgumentError, ddz.Game, C3, seed=-1)
    typed(ddz.Game, C3, seed="1")
    typed(ddz.Game, "classic", seed=1)
    g = ddz.Game(C3, seed=2**64 - 1)
    assert ddz.Game.from_json(g.to_json()).seed == 2**64 - 1


# ---- Medium 4: batch word check and impossible encodings ----------------------------------

def test_batch_word_with_nibble_carry_is_rejected():
    raises(ddz.CardError, ddz.legal_moves_batch, np.array([0xD], np.uint64), C3)
    raises(ddz.CardError, ddz.Cards.from_word, 0xD)
    # every nibble value above the deck's limit, at every rank, one and two decks
    for rules, lim_rank, lim_joker in ((C3, 4, 1), (B4, 8, 2)):
        for r in range(15):
            lim = lim_joker if r >= 13 else lim_rank
            for v in range(16):
                w = np.array([v << (4 * r)], np.uint64)
                if v <= lim:
                    ddz.legal_moves_batch(w, rules)
                else:
                    raises(ddz.CardError, ddz.legal_moves_batch, w, rules)


def test_decode_rejects_impossible_encodings():
    # 49 cards read as a STRAIGHT: nibbles over the deck's limit
    e = (int(ddz.Kind.STRAIGHT) << 56) | 0x5555555555555
    raises(ddz.MoveError, ddz.decode, e, C3)
    raises(ddz.MoveError, ddz.decode, (21 << 56) | 1, C3)          # kind 21
    raises(ddz.MoveError, ddz.decode, int(ddz.Kind.SOLO) << 56, C3)  # no cards
    raises(ddz.MoveError, ddz.decode, (int(ddz.Kind.JOKER_BOMB) << 56) | 9, C3)
    raises(ddz.MoveError, ddz.decode, 2**64, C3)
    raises(ddz.MoveError, ddz.decode, -1, C3)
    typed(ddz.decode, "5", C3)
    typed(ddz.decode, 5, "classic")
    m = ddz.classify("34567", C3)
    assert ddz.decode(m.encoded, C3) == m


def test_impossible_prev_never_reaches_the_generator():
    hand = ddz.hand_words(["33344455566677788899"], C3)
    for e in ((int(ddz.Kind.STRAIGHT) << 56) | 0xFFFFFFFFFFFF, (int(ddz.Kind.PASS) << 56), (30 << 56) | 1):
        raises(ddz.MoveError, ddz.legal_moves_batch, hand, C3, prevs=np.array([e], np.uint64))


# ---- Medium 5: no RuntimeError from a failed cast -----------------------------------------

def test_no_runtime_errors_from_casts():
    ps = ddz.PlayState(["3", "4", "5"], 0, C3)
    raises(ddz.IllegalAction, ps.apply, 10**30)
    raises(ddz.IllegalAction, ps.apply, -(10**30))
    typed(ps.apply, 1.5)
    for bad in (1.5, "1", 2**70, -1, [1]):
        with pytest.raises(ValueError) as info:
            ddz.PlayState(["3", "4", "5", "6"], 0, B4, bomb_limits=[bad, None, None, None])
        assert "bomb limit" in str(info.value)
    typed(lambda: 3 in ddz.Cards("33"))
    typed(ps.hand, "0")
    raises(ddz.ArgumentError, ps.hand, 2**70)
    typed(ddz.Cards, 3)
    typed(ddz.Cards, "33", decks="2")
    raises(ddz.ArgumentError, ddz.Cards, "33", decks=3)
    raises(ddz.CardError, ddz.Cards, "\udc80")
    typed(ddz.legal_moves, 33, C3)
    typed(ddz.legal_moves_batch, "333", C3)
    typed(ddz.hand_words, 5, C3)
    typed(ddz.PlayState, 5, 0, C3)
    typed(C3.move_from_id, "1")
    raises(ddz.MoveError, C3.move_from_id, 10**30)
    typed(ddz.set_dispatch_level, "0")


def test_cards_pickle_goes_through_the_constructor():
    c = ddz.Cards("333BR")
    assert pickle.loads(pickle.dumps(c)) == c and copy.deepcopy(c) == c
    c2 = ddz.Cards("3333333", decks=2)
    assert pickle.loads(pickle.dumps(c2)).decks == 2
    assert not hasattr(ddz.Cards, "__setstate__")  # nothing to call on a live object
    cls, args = c.__reduce__()
    with pytest.raises(ValueError):
        cls("333", 7)


# ---- Low 6 -------------------------------------------------------------------------------

def test_batch_arrays_are_not_truncated_or_reshaped():
    typed(ddz.legal_moves_batch, np.array([1.9]), C3)
    typed(ddz.legal_moves_batch, np.array([True]), C3)
    typed(ddz.legal_moves_batch, np.array(["3"]), C3)
    raises(ddz.ArgumentError, ddz.legal_moves_batch, np.zeros((2, 2), np.uint64), C3)
    hands = ddz.hand_words(["3456789", "33"], C3)
    raises(ddz.ArgumentError, ddz.legal_moves_batch, hands, C3, prevs=np.zeros((2, 1), np.uint64))
    typed(ddz.legal_moves_batch, hands, C3, prevs=np.zeros(2, np.float64))
    raises(ddz.ArgumentError, ddz.legal_moves_batch, hands, C3, prevs=np.zeros(3, np.uint64))
    raises(ddz.ArgumentError, ddz.legal_moves_batch, hands, C3, prevs=[None])
    raises(ddz.ArgumentError, ddz.legal_moves_batch, hands, C3, prevs=[None, None, None])
    typed(ddz.legal_moves_batch, hands, C3, count_only=1)
    typed(ddz.legal_moves_batch, hands, C3, out=np.zeros(10, np.int64))
    raises(ddz.ArgumentError, ddz.legal_moves_batch, hands, C3, out=np.zeros((10, 2), np.uint64))
    ro = np.zeros(1000, np.uint64)
    ro.setflags(write=False)
    raises(ddz.ArgumentError, ddz.legal_moves_batch, hands, C3, out=ro)
    # any integer dtype and stride is read exactly
    ref_off, ref = ddz.legal_moves_batch(hands, C3)
    for arr in (hands.astype(np.int64), hands.astype(">u8"), np.repeat(hands, 2)[::2]):
        off, mv = ddz.legal_moves_batch(arr, C3)
        assert (off == ref_off).all() and (mv == ref).all()
    raises(ddz.CardError, ddz.legal_moves_batch, np.array([-1], np.int64), C3)


def test_messages_stay_short_for_huge_inputs():
    big = "3" * 5 + "x" * 10_000_000
    for fn in (lambda: ddz.Cards(big), lambda: ddz.legal_moves(big, C3), lambda: ddz.classify(big, C3)):
        with pytest.raises(ddz.CardError) as info:
            fn()
        assert len(str(info.value)) < 300
    g = ddz.Game(C3, 1)
    with pytest.raises(ValueError) as info:
        g.apply("PLAY " + "Z" * 1_000_000)
    assert len(str(info.value)) < 400


def test_batch_buffer_is_released_after_a_huge_batch():
    # a 200k-hand BENGBU4 batch grows the reused buffer far past 8 MB; the next call starts
    # small again (observable only as memory, so check that repeated huge batches still agree)
    hands = ddz.hand_words([ddz.deal(B4, 1, g)[0][0] for g in range(50)], B4)
    a = ddz.legal_moves_batch(np.tile(hands, 400), B4)
    b = ddz.legal_moves_batch(hands, B4)
    assert (a[1][: b[0][-1]] == b[1]).all()


def test_dispatch_level_first_use_from_threads():
    results = []

    def work():
        results.append(ddz.count_moves("33344455566677788899", C3))

    ts = [threading.Thread(target=work) for _ in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len(set(results)) == 1


# ---- Low 7: what a seat or a spectator may see -----------------------------------------------

def test_error_hierarchy():
    for base, twin in ((ddz.CardError, ddz.CardTypeError), (ddz.MoveError, ddz.MoveTypeError),
                       (ddz.IllegalAction, ddz.IllegalActionTypeError), (ddz.ArgumentError, ddz.ArgumentTypeError),
                       (ddz.RecordError, ddz.RecordTypeError)):
        assert issubclass(base, ddz.DdzError) and issubclass(base, ValueError)
        assert issubclass(twin, base) and issubclass(twin, TypeError)


def test_view_json_round_trip_and_replay_cli(tmp_path, capsys):
    g, _ = _record("classic", seed=2, steps=10_000)
    for seat in (None, 0, 1, 2):
        v = read_view(g.view_json(seat))
        assert v["seat"] == seat and v["result"] == json.loads(json.dumps(g.result.to_dict()))
    p = tmp_path / "view.json"
    p.write_text(g.view_json(1), encoding="utf-8")
    from ddz.cli import main
    assert main(["replay", str(p)]) == 0
    out = capsys.readouterr().out
    assert "seat 1" in out
    raises(ddz.RecordError, read_view, g.to_json())  # a game record is no view
    raises(ddz.RecordError, ddz.Game.from_json, g.view_json(0))


def test_huge_card_lists_are_cut_short():
    g = ddz.Game(C3, 1)
    while g.phase != "PLAY":
        g.apply(g.legal_actions()[0])
    before = g.to_json()
    for bad in (list(range(54)) * 20_000, ["3s"] * 1_000_000, "PLAY " + "3s " * 1_000_000, [object()]):
        with pytest.raises(ValueError) as info:
            g.apply(bad)
        assert len(str(info.value)) < 400
    assert g.to_json() == before
    typed(ddz.card_id, 3)


def test_huge_ints_in_results_and_rooms_give_short_errors():
    """A settlement or matchmaking input holding an int too large to print (past Python's
    digit limit) still raises a DdzError with a short message (found by the settle target)."""
    g, _ = _record("classic", seed=11, steps=10_000)
    r = g.result
    bad = type(r)(**{**r.to_dict(), "scores": [10**5000, -1, -1]})
    raises(ddz.DdzError, ddz.settle, bad, ddz.ROOMS["novice"], [100, 100, 100])
    mm = ddz.Matchmaker("novice")
    raises(ddz.DdzError, mm.join, "x", coins=100, won=10**5000, completed=1, now=0.0)
