"""The rollouts behind SearchBot's early-hand play (csrc/ddz/rollout.cpp, ``_core._pimc`` and
``_core._rollout``): the rollout policy against a plain Python rendition of it on small
positions of every variant, the candidate set against one built from ``legal_moves``, the
PIMC win counts against rollouts replayed one by one, determinism, forced wins, and the
argument checks."""
from __future__ import annotations

import random
from typing import List, Tuple

import numpy as np
import pytest

import ddz
from ddz import _core

VARIANTS = ["classic", "two_player", "bengbu"]


def rank_counts(word: int) -> List[int]:
    return [(word >> (4 * v)) & 15 for v in range(15)]


def cost(hand: int, cards: int) -> int:
    """What playing `cards` out of `hand` costs beyond the cards: a broken group (some but
    not all copies of a rank) 32, plus the rank of each card played."""
    held, used = rank_counts(hand), rank_counts(cards)
    return sum((32 if 0 < u < h else 0) + u * v for v, (u, h) in enumerate(zip(used, held)) if u)


def power(m: ddz.Move) -> int:
    """Weakest bomb first: by size (BOMB4..BOMB8; a one-deck BOMB is 4 cards), then rank;
    the rocket and 天尊 last."""
    if m.kind in (ddz.Kind.ROCKET, ddz.Kind.JOKER_BOMB):
        return 1000
    return (len(m) - 4) * 16 + m.key


def reference_pick(ps: ddz.PlayState, sides: List[int]) -> ddz.Move:
    """The rollout policy, written plainly from its description in rollout.hpp."""
    seat = ps.current_seat
    moves = ps.legal_moves()
    hand = ps.hand(seat).word
    plays = [(i, m) for i, m in enumerate(moves) if not m.is_pass]
    for _, m in plays:
        if m.cards.word == hand:
            return m
    following = ps.top is not None
    passes = [m for m in moves if m.is_pass]
    if following and sides[ps.top[1]] == sides[seat]:
        return passes[0]
    plain = [(i, m) for i, m in plays if not m.is_bomb]
    bombs = [(i, m) for i, m in plays if m.is_bomb]
    weakest = min(bombs, key=lambda im: (power(im[1]), im[0]))[1] if bombs else None
    if plain:
        if following:
            return min(plain, key=lambda im: (im[1].key, cost(hand, im[1].cards.word), im[0]))[1]
        return min(plain, key=lambda im: (im[1].key, -len(im[1]), cost(hand, im[1].cards.word), im[0]))[1]
    if not following:
        assert weakest is not None
        return weakest
    if weakest is not None and ps.cards_left(ps.top[1]) <= 5:
        return weakest
    return passes[0]


def small_position(rules: ddz.Rules, rng: random.Random, most: int) -> List[int]:
    """Random hands of 1..most cards per seat out of one deal (rank-count words)."""
    hands, _ = _core.deal(rules, rng.randrange(2**32))
    out = []
    for h in hands:
        cards = list(str(h))
        rng.shuffle(cards)
        out.append(ddz.Cards("".join(cards[: rng.randint(1, most)]), decks=rules.decks).word)
    return out


def sides_of(n: int, landlord: int) -> List[int]:
    return [0 if s == landlord else 1 for s in range(n)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_rollout_matches_the_python_reference(variant: str) -> None:
    rules = getattr(ddz.Rules, variant)()
    rng = random.Random(13)
    for _ in range(60):
        words = small_position(rules, rng, 9)
        n = len(words)
        landlord = rng.randrange(n)
        sides = sides_of(n, landlord)
        ps = ddz.PlayState([ddz.Cards.from_word(w, decks=rules.decks) for w in words], landlord, rules)
        out, line = _core._rollout(rules, words, landlord, None, landlord, 0, [-1] * n, sides)
        ref: List[Tuple[int, str]] = []
        while not ps.is_over:
            seat = ps.current_seat
            m = reference_pick(ps, sides)
            ref.append((seat, str(m)))
            ps.apply(m)
        assert [(s, str(m)) for s, m in line] == ref
        assert out == ps.winner_seat


def test_rollout_follows_from_a_trick_and_keeps_bomb_limits() -> None:
    """From a position with a play to beat: the seat after a partner's play passes; a seat
    with no bomb plays left never bombs (BENGBU4 limits, §2.3.6)."""
    rules = ddz.Rules.classic()
    hands = [ddz.Cards(h).word for h in ("345", "QQ3", "KK")]
    # Seat 1 (a farmer) answers seat 2's (its partner's) pair: it passes (QQ would not empty its hand).
    _, line = _core._rollout(rules, hands, 1, ddz.classify("99", rules), 2, 0, [-1] * 3, [0, 1, 1])
    assert str(line[0][1]) == "PASS"
    bengbu = ddz.Rules.bengbu()
    words = [ddz.Cards(h, decks=2).word for h in ("33334", "45", "6", "7")]
    top = ddz.classify("22", bengbu)
    _, line = _core._rollout(bengbu, words, 0, top, 3, 2, [0, -1, -1, -1], [0, 1, 1, 1])
    assert not line[0][1].is_bomb
    _, line = _core._rollout(bengbu, words, 0, top, 3, 2, [1, -1, -1, -1], [0, 1, 1, 1])
    assert line[0][1].is_bomb  # seat 3 holds one card: the bomb is the policy's play


@pytest.mark.parametrize("variant", VARIANTS)
def test_candidates_are_every_shape_with_the_cheapest_kickers(variant: str) -> None:
    rules = getattr(ddz.Rules, variant)()
    rng = random.Random(7)
    for _ in range(25):
        hands, _ = _core.deal(rules, rng.randrange(2**32))
        words = [h.word for h in hands]
        n = len(words)
        cands, _, _, _ = _core._pimc(rules, np.array([words], dtype=np.uint64), 0, None, 0, 0, [-1] * n,
                                     sides_of(n, 0), None, 0.0, 1)
        moves = ddz.legal_moves(hands[0], rules)
        shapes = {}
        for m in moves:
            shapes.setdefault((m.kind, m.key, len(m)), []).append(m)
        assert len(cands) == len(shapes)
        for c in cands:
            group = shapes[(c.kind, c.key, len(c))]
            assert cost(words[0], c.cards.word) == min(cost(words[0], m.cards.word) for m in group)


def test_candidates_include_the_pass_when_following() -> None:
    rules = ddz.Rules.classic()
    words = [ddz.Cards(h).word for h in ("3456", "KK7", "A9")]
    cands, _, _, _ = _core._pimc(rules, np.array([words], dtype=np.uint64), 0, ddz.classify("T", rules), 2, 0,
                                 [-1] * 3, [0, 1, 1], None, 0.0, 1)
    assert [str(c) for c in cands] == ["PASS"]  # nothing of 3456 beats a ten


@pytest.mark.parametrize("variant", VARIANTS)
def test_pimc_counts_are_the_rollouts_of_each_candidate(variant: str) -> None:
    """Every candidate's wins equal the rollouts replayed one world at a time through
    ``_rollout`` from the position after that candidate."""
    rules = getattr(ddz.Rules, variant)()
    rng = random.Random(21)
    for _ in range(8):
        base = small_position(rules, rng, 7)
        n = len(base)
        landlord = rng.randrange(n)
        sides = sides_of(n, landlord)
        seat = rng.randrange(n)
        worlds = []
        for _ in range(6):  # other seats' hands vary, the mover's is fixed
            other = small_position(rules, rng, 7)
            other[seat] = base[seat]
            try:
                _check_world(rules, other)
            except ValueError:
                continue
            worlds.append(other)
        if not worlds:
            continue
        arr = np.array(worlds, dtype=np.uint64)
        cands, wins, done, _ = _core._pimc(rules, arr, seat, None, seat, 0, [-1] * n, sides, None, 0.0, 0)
        expect = [0] * len(cands)
        for w in worlds[:done]:
            for i, c in enumerate(cands):
                if c.cards.word == w[seat]:
                    expect[i] += 1
                    continue
                after = list(w)
                after[seat] -= c.cards.word
                out, _ = _core._rollout(rules, after, (seat + 1) % n, c, seat, 0, [-1] * n, sides)
                expect[i] += sides[out] == sides[seat]
        assert wins == expect
        # Stopping early keeps the leader of the full run.
        full = [0] * len(cands)
        for w in worlds:
            for i, c in enumerate(cands):
                if c.cards.word == w[seat]:
                    full[i] += 1
                    continue
                after = list(w)
                after[seat] -= c.cards.word
                out, _ = _core._rollout(rules, after, (seat + 1) % n, c, seat, 0, [-1] * n, sides)
                full[i] += sides[out] == sides[seat]
        if done < len(worlds):
            assert full.index(max(full)) == wins.index(max(wins)) and full.count(max(full)) == 1


def _check_world(rules: ddz.Rules, words: List[int]) -> None:
    total = ddz.Cards("", decks=rules.decks)
    for w in words:
        total = total + ddz.Cards.from_word(w, decks=rules.decks)  # raises on too many copies of a rank


def test_pimc_finds_the_forced_win() -> None:
    """The landlord holds BR4 and the next farmer one card above a 4: the rocket first wins
    (nothing beats it, then the 4 goes out); any other first play lets the farmer go out
    over a single 4 (led at once, or next after the lone joker), in every world."""
    rules = ddz.Rules.classic()
    rng = random.Random(0)
    worlds = []
    for _ in range(40):
        single = rng.choice("56789TJQKA2")
        rest = [c for c in "3344556677889TTJJQQKKAA22" if c != single]
        rng.shuffle(rest)
        worlds.append([ddz.Cards("BR4").word, ddz.Cards(single).word, ddz.Cards("".join(rest[:4])).word])
    cands, wins, done, _ = _core._pimc(rules, np.array(worlds, dtype=np.uint64), 0, None, 0, 0, [-1] * 3,
                                       [0, 1, 1], None, 0.0, 0)
    by = dict(zip((str(c) for c in cands), wins))
    assert sorted(by) == ["4", "B", "BR", "R"]
    assert by == {"4": 0, "B": 0, "R": 0, "BR": done}
    assert done < 40  # the leader could not be caught any more: it stopped early


def test_pimc_is_deterministic_and_honours_the_world_limit() -> None:
    rules = ddz.Rules.classic()
    g = ddz.Game(rules, seed=3, first_bidder=0)
    while g.phase != "PLAY":
        g.apply("CALL" if "CALL" in g.legal_actions() else g.legal_actions()[-1])
    obs = g.observation(g.current_seat)
    rows = ddz.sample_deals(obs, 50, seed=1)
    n = 3
    sides = sides_of(n, g.landlord)
    args = (rules, rows, g.current_seat, None, g.current_seat, 0, [-1] * n, sides, None, 0.0)
    a = _core._pimc(*args, 10)
    b = _core._pimc(*args, 10)
    assert a[:3] == b[:3] and a[2] <= 10
    assert all(0 <= w <= a[2] for w in a[1])


def test_pimc_rejects_bad_input() -> None:
    rules = ddz.Rules.classic()
    words = [ddz.Cards(h).word for h in ("345", "QQ", "KK")]
    arr = np.array([words], dtype=np.uint64)
    sides = [0, 1, 1]
    with pytest.raises(ValueError, match="shape"):
        _core._pimc(rules, np.array(words, dtype=np.uint64), 0, None, 0, 0, [-1] * 3, sides, None, 0.0, 0)
    other = np.array([words, [ddz.Cards("346").word] + words[1:]], dtype=np.uint64)
    with pytest.raises(ValueError, match="same hand"):
        _core._pimc(rules, other, 0, None, 0, 0, [-1] * 3, sides, None, 0.0, 0)
    with pytest.raises(ValueError, match="copies"):
        _core._pimc(rules, np.array([[ddz.Cards("3333").word, ddz.Cards("3").word, words[2]]], dtype=np.uint64),
                    0, None, 0, 0, [-1] * 3, sides, None, 0.0, 0)
    with pytest.raises(ValueError, match="empty hand"):
        _core._pimc(rules, np.array([[words[0], 0, words[2]]], dtype=np.uint64), 0, None, 0, 0, [-1] * 3, sides,
                    None, 0.0, 0)
    with pytest.raises(ValueError, match="not a legal action"):
        _core._pimc(rules, arr, 0, None, 0, 0, [-1] * 3, sides, [ddz.classify("QQ", rules)], 0.0, 0)
    with pytest.raises(TypeError):
        _core._pimc(rules, arr, 0, None, 0, 0, [-1] * 3, sides, ["345"], 0.0, 0)
    with pytest.raises(ValueError, match="side id"):
        _core._pimc(rules, arr, 0, None, 0, 0, [-1] * 3, [0, 1, 2], None, 0.0, 0)
    with pytest.raises(ValueError, match="to_move"):
        _core._pimc(rules, arr, 3, None, 0, 0, [-1] * 3, sides, None, 0.0, 0)
