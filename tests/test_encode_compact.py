"""ddz.encode.compact: the compact observation of every variant (docs/encodings.md,
"Observation tensors"). Each block is checked against a plain Python recomputation from the
Game's public view (RULES.md §2.0.1 item 8: plays, passes, card counts; §2.1.2, §2.2.2, §2.3.3:
shown hands and the kitty), and the encoding must not change when the cards hidden from the seat
are shuffled among their hidden places (the method of tests/test_views.py)."""
from __future__ import annotations

import os
import random
import sys

import numpy as np
import pytest

import ddz
from ddz import encode as E
from ddz.variants import VARIANT

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_views import _random_game, _rebuilt, _shuffled  # noqa: E402

RANKS = "3456789TJQKA2BR"


def _counts(ranks: str):
    return [ranks.count(r) for r in RANKS]


def _ranks(names):
    return "".join(n[0] for n in names)


def _reference(g, seat):
    """The compact row recomputed in Python from observation(seat) and the play state's public
    record (history, top, bomb limits)."""
    r = g.rules
    n = r.players
    obs = g.observation(seat)
    L = E.compact_layout(r)
    row = np.zeros(L["auction"].stop, dtype=np.int8)
    rel = [(seat + k) % n for k in range(n)]

    def put(block, k, values):
        sl = L[block]
        width = len(values)
        row[sl.start + k * width: sl.start + (k + 1) * width] = values

    put("hand", 0, _counts(obs["hand"]))
    played = {s: "" for s in range(n)}
    last = {}
    for s, token in obs["history"]:
        if token == "PASS":
            last[s] = None
        elif token.startswith("PLAY "):
            cards = _ranks(token[5:].split())
            played[s] += cards
            last[s] = cards
    deck = ("3456789TJQKA2" * 4 + "BR") * r.decks
    unseen = _counts(deck)
    for k, s in enumerate(rel):
        row[L["cards_left"].start + k] = obs["cards_left"][s]
        put("played", k, _counts(played[s]))
        if s in last:
            if last[s] is None:
                row[L["last_pass"].start + k] = 1
            else:
                put("last_action", k, _counts(last[s]))
        unseen = [u - c for u, c in zip(unseen, _counts(played[s]))]
        if s in obs["shown"] and s != seat:
            ranks = _ranks(obs["shown"][s])
            put("shown", k, _counts(ranks))
            row[L["shown_flag"].start + k] = 1
            unseen = [u - c for u, c in zip(unseen, _counts(ranks))]
        if s == obs["landlord"]:
            row[L["landlord"].start + k] = 1
        if s == obs["current_seat"]:
            row[L["to_act"].start + k] = 1
    unseen = [u - c for u, c in zip(unseen, _counts(obs["hand"]))]
    put("unseen", 0, unseen)
    if obs["kitty"] is not None:
        put("kitty", 0, _counts(_ranks(obs["kitty"])))
        row[L["kitty_known"].start] = 1
    ps = g.play_state
    for k, s in enumerate(rel):
        bombs = sum(1 for who, m in ps.history if who == s and m.is_bomb) if ps else 0
        row[L["bombs"].start + k] = bombs
        limit = ps.bomb_limits[s] if ps else None
        row[L["bombs_left"].start + k] = -1 if limit is None else max(limit - bombs, 0)
    if ps is not None and ps.top is not None:  # a finished hand keeps its last play on top
        move, owner = ps.top
        assert obs["top"] in (None, [owner, str(move)])
        put("top", 0, _counts(str(move)))
        row[L["top_kind"].start + int(move.kind)] = 1
        row[L["top_owner"].start + (owner - seat) % n] = 1
    coded = {"classic": {"rob": {1: 0, 2: 1, 4: 2, 8: 3}}}
    for k, (name, how) in enumerate(E.FACTOR_SLOTS[r.variant]):
        v = obs["factors"].get(name)
        if v is None:
            continue
        if how == "log2":
            value = coded.get(r.variant, {}).get(name, {}).get(v, int(np.log2(v)))
        elif how == "flag":
            value = 1 if v is True or (v is not False and v != 1) else 0
        else:
            value = v
        row[L["factors"].start + k] = value
    decisions = VARIANT[r.variant].decisions
    steps = []
    for s, token in obs["history"]:
        if token == "REDEAL":
            steps = []
        elif token in decisions:
            steps.append((s, token))
    width = len(decisions) + n
    for i, (s, token) in enumerate(steps[-E.AUCTION_STEPS:]):
        row[L["auction"].start + i * width + decisions.index(token)] = 1
        row[L["auction"].start + i * width + len(decisions) + (s - seat) % n] = 1
    return row


def _games(variant, seeds, stops=(0, 2, 5, 9, 20, 40, 10_000)):
    for seed in seeds:
        for stop in stops:
            yield _random_game(variant, seed, stop)


def test_layout_blocks_are_contiguous_and_sized():
    for variant in ddz.VARIANTS:
        r = ddz.Rules(variant)
        n = r.players
        L = E.compact_layout(r)
        starts = sorted((sl.start, sl.stop) for sl in L.values())
        assert starts[0][0] == 0 and all(a[1] == b[0] for a, b in zip(starts, starts[1:]))
        assert L["played"].stop - L["played"].start == 15 * n
        assert L["top_kind"].stop - L["top_kind"].start == len(ddz.Kind) - 1  # the kinds of a play (no PASS)
        assert L["auction"].stop - L["auction"].start == E.AUCTION_STEPS * (len(VARIANT[variant].decisions) + n)
        assert E.compact(ddz.Game(r, 1), 0).shape == (L["auction"].stop,)


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_blocks_match_a_python_recomputation(variant):
    compared = 0
    for g in _games(variant, range(6)):
        for seat in range(g.num_players):
            got = E.compact(g, seat)
            want = _reference(g, seat)
            if not np.array_equal(got, want):
                L = E.compact_layout(g.rules)
                bad = [name for name, sl in L.items() if not np.array_equal(got[sl], want[sl])]
                pytest.fail(f"{variant} {g.phase} seat {seat}: blocks {bad} differ")
            compared += 1
    assert compared > 80


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_encoding_does_not_depend_on_hidden_cards(variant):
    rng = random.Random(11)
    compared = changed = 0
    for g in _games(variant, range(10), stops=(1, 3, 8, 20, 45, 10_000)):
        if g.is_over:
            continue
        for seat in range(g.num_players):
            h = _rebuilt(_shuffled(g, seat, rng))
            if h is None or h.is_over != g.is_over or h.phase != g.phase:
                continue
            assert np.array_equal(E.compact(g, seat), E.compact(h, seat)), (variant, g.phase, seat)
            changed += any(g.hand(s) != h.hand(s) for s in range(g.num_players) if s != seat)
            compared += 1
    assert compared > 60 and changed >= 20  # the shuffles really moved hidden cards (not only set-aside ones)


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_play_state_encoding_is_the_games_play_blocks(variant):
    """A PlayState knows no auction, shown hands or kitty: those blocks are zero, the rest is the
    Game's encoding (with nothing shown)."""
    game_only = ("shown", "shown_flag", "kitty", "kitty_known", "factors", "auction", "unseen")
    for g in _games(variant, range(3), stops=(20, 40)):
        if g.play_state is None or g.phase != "PLAY":
            continue
        L = E.compact_layout(g.rules)
        for seat in range(g.num_players):
            a, b = E.compact(g, seat), E.compact(g.play_state, seat)
            for name, sl in L.items():
                if name in game_only:
                    continue
                assert np.array_equal(a[sl], b[sl]), (variant, seat, name)
            for name in ("shown", "shown_flag", "kitty", "kitty_known", "factors", "auction"):
                assert not b[L[name]].any()


def test_batch_rows_equal_single_encodings_and_reuse_out():
    r = ddz.Rules.classic()
    games = [g for g in _games("classic", range(4), stops=(3, 20)) if not g.is_over]
    states = games + [g.play_state for g in games if g.play_state is not None]
    seats = [i % 3 for i in range(len(states))]
    out = np.full((len(states), E.compact_layout(r)["auction"].stop), 99, dtype=np.int8)
    res = E.compact_batch(states, seats, out=out)
    assert res is out or np.shares_memory(res, out)
    for i, (st, seat) in enumerate(zip(states, seats)):
        assert np.array_equal(out[i], E.compact(st, seat))


def _log_arrays(states):
    starts, lls, acts, offs, lims = [], [], [], [0], []
    for ps in states:
        w, ll, lim, a = E.play_log(ps)
        starts.append(w)
        lls.append(ll)
        acts += a
        offs.append(len(acts))
        lims.append(lim)
    return (np.array(starts, dtype=np.uint64), np.array(lls), np.array(acts, dtype=np.uint64),
            np.array(offs), np.array(lims))


def test_compact_arrays_equals_compact_of_play_states():
    r = ddz.Rules.bengbu()
    states = [g.play_state for g in _games("bengbu", range(4), stops=(15, 40)) if g.play_state is not None]
    starts, lls, acts, offs, lims = _log_arrays(states)
    seats = np.arange(len(states)) % 4
    rows = E.compact_arrays(r, starts, lls, acts, offs, seats, bomb_limits=lims)
    for i, ps in enumerate(states):
        assert np.array_equal(rows[i], E.compact(ps, int(seats[i])))


def test_bad_arrays_raise_named_errors():
    r = ddz.Rules.classic()
    ps = ddz.PlayState(["3456", "789", "TJQ"], 0, r)
    ps.apply("3")
    starts, lls, acts, offs, _ = _log_arrays([ps])
    seats = np.array([1])
    with pytest.raises(ddz.ArgumentTypeError, match="starts must be an integer array"):
        E.compact_arrays(r, starts.astype(float), lls, acts, offs, seats)
    with pytest.raises(ddz.ArgumentError, match=r"offsets must have shape \(2,\)"):
        E.compact_arrays(r, starts, lls, acts, np.array([0]), seats)
    with pytest.raises(ddz.ArgumentError, match="seats\\[0\\] = 3 is not a seat"):
        E.compact_arrays(r, starts, lls, acts, offs, np.array([3]))
    with pytest.raises(ddz.ArgumentError, match="bomb limits exist only in BENGBU4"):
        E.compact_arrays(r, starts, lls, acts, offs, seats, bomb_limits=np.zeros((1, 3), int))
    bad = np.array([ddz.classify("T", r).encoded], dtype=np.uint64)  # seat 1 holds no T... and must follow 3
    with pytest.raises(ddz.IllegalAction, match="state 0: action 0 .* does not replay: NOT_HELD") as e:
        E.compact_arrays(r, starts, lls, bad, offs, seats)
    assert e.value.code == ddz.IllegalCode.NOT_HELD
    with pytest.raises(ddz.CardError, match="hold 3 'B' together"):
        E.compact_arrays(r, np.array([[ddz.Cards("B").word] * 3], dtype=np.uint64), lls, acts[:0], np.array([0, 0]),
                         seats)
    out = np.zeros((1, 10), dtype=np.int8)
    with pytest.raises(ddz.ArgumentError, match="out must have shape"):
        E.compact_arrays(r, starts, lls, acts, offs, seats, out=out)
    with pytest.raises(ddz.ArgumentTypeError, match="out must have dtype int8"):
        E.compact_arrays(r, starts, lls, acts, offs, seats, out=np.zeros((1, 317), dtype=np.int16))
    with pytest.raises(ddz.ArgumentError, match="no seat 5"):
        E.compact(ps, 5)
    with pytest.raises(ddz.ArgumentTypeError):
        E.compact("33", 0)


def test_the_documented_offsets_are_the_layout():
    """docs/encodings.md's table of blocks gives each block's offset per variant."""
    page = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "encodings.md")
    rows = [line for line in open(page, encoding="utf-8").read().split("\n")
            if line.startswith("| `") and line.count("|") >= 5 and " / " in line.split("|")[3]]
    layouts = [E.compact_layout(ddz.Rules(v)) for v in ("classic", "two_player", "bengbu")]
    documented = {}
    for line in rows:
        cells = [c.strip() for c in line.split("|")]
        documented[cells[1].strip("`")] = [int(x) for x in cells[3].split(" / ")]
    assert set(documented) == set(layouts[0])
    for name, offsets in documented.items():
        assert offsets == [L[name].start for L in layouts], name


# ---- a Game's row against a reference built from observation() ------------------------------

def _reference_game_row(g, seat):
    """The compact row of a Game as the documented blocks say, built independently of the
    fast path: the core part from compact_arrays (the play log, shown hands and kitty taken
    from observation(seat)), the Game blocks filled in Python from the same observation."""
    obs = g.observation(seat)
    r, n = g.rules, g.rules.players
    L = E.compact_layout(r)
    mask = sum(1 << int(s) for s in obs["shown"])
    kitty = ddz.Cards("".join(c[0] for c in obs["kitty"]), decks=r.decks).word if obs["kitty"] is not None else 0
    if g.play_state is not None:
        starts, landlord, limits, actions = E.play_log(g.play_state)
    else:
        starts, landlord, limits, actions = [g.hand(s).word for s in range(n)], -1, [255] * n, []
    row = E.compact_arrays(r, np.array([starts], dtype=np.uint64), np.array([landlord]),
                           np.array(actions, dtype=np.uint64), np.array([0, len(actions)]), np.array([seat]),
                           bomb_limits=np.array([limits]) if r.variant == "bengbu" else None,
                           shown=np.array([mask]), kitty=np.array([kitty], dtype=np.uint64))[0]
    rel = lambda s: (s - seat) % n  # noqa: E731
    row[L["to_act"]] = 0
    if obs["current_seat"] is not None:
        row[L["to_act"].start + rel(obs["current_seat"])] = 1
    if obs["landlord"] is not None:
        row[L["landlord"]] = 0
        row[L["landlord"].start + rel(obs["landlord"])] = 1
    for k, (name, how) in enumerate(E.FACTOR_SLOTS[r.variant]):
        v = obs["factors"].get(name)
        if v is not None:
            row[L["factors"].start + k] = (int(v).bit_length() - 1 if how == "log2"
                                           else int(v is True or (v is not False and v != 1)) if how == "flag" else int(v))
    decisions = VARIANT[r.variant].decisions
    steps = []
    for s, token in obs["history"]:
        if token == "REDEAL":
            steps = []
        elif token in decisions and s is not None:
            steps.append((s, decisions.index(token)))
    width = len(decisions) + n
    for i, (s, t) in enumerate(steps[-E.AUCTION_STEPS:]):
        row[L["auction"].start + width * i + t] = 1
        row[L["auction"].start + width * i + len(decisions) + rel(s)] = 1
    return row


@pytest.mark.parametrize("variant", ["classic", "two_player", "bengbu"])
def test_game_rows_equal_the_reference_at_every_step(variant):
    """docs/encodings.md, compact encoding: a Game's row (every phase, every seat, re-deals and
    TWOP's in-play 翻身/压迫 included) is the one the blocks describe."""
    rng = random.Random(7)
    r = ddz.Rules(variant)
    checked = 0
    for game in range(12):
        g = ddz.Game(r, 500 + game)
        while not g.is_over:
            for seat in range(r.players):
                assert np.array_equal(E.compact(g, seat), _reference_game_row(g, seat)), (game, g.history)
                checked += 1
            g.apply(rng.choice(g.legal_actions()))
    assert checked > 12 * 20 * r.players


def test_bengbu_open_flag_is_set():
    """The FACTORS block's BENGBU4 ``open`` flag is 1 after OPEN (a Python True once coded as 0,
    since True == 1) and 0 after CLOSED (docs/encodings.md, FACTOR_SLOTS)."""
    for choice, flag in (("OPEN", 1), ("CLOSED", 0)):
        g = ddz.Game(ddz.Rules.bengbu(), seed=5)
        while g.phase != "OPEN_CHOICE":
            legal = g.legal_actions()
            g.apply("BID3" if "BID3" in legal else legal[0])
        g.apply(choice)
        L = E.compact_layout(g.rules)
        assert E.compact(g, 0)[L["factors"]].tolist() == [3, flag, 0, 0, 0]
