"""ddz.sample_deals: consistency with the observation, chi-square uniformity against the exact
distribution over the physical unseen cards (small late-hand cases of each variant), the
samples do not depend on the hidden cards, and the BENGBU4 condition of no 天炸/天尊 at the
deal (RULES.md §2.3.2)."""
from __future__ import annotations

import itertools
import random
from collections import Counter
from math import comb
from typing import Dict, List, Tuple

import numpy as np
import pytest

import ddz
from ddz.bots import RandomBot
from ddz.core.cards import card_rank, parse_card_names

RANKS = "3456789TJQKA2BR"


def chi_square_ok(observed: List[int], expected: List[float]) -> Tuple[bool, float, float]:
    """Pearson's statistic against the chi-square critical value at p = 1e-4 (Wilson–Hilferty
    approximation of the quantile; no scipy needed). Returns (passes, statistic, critical)."""
    stat = sum((o - e) ** 2 / e for o, e in zip(observed, expected))
    df = len(observed) - 1
    z = 3.719  # the standard normal quantile at 1 - 1e-4
    crit = df * (1 - 2 / (9 * df) + z * (2 / (9 * df)) ** 0.5) ** 3
    return stat < crit, stat, crit


def word_of_ids(ids) -> int:
    return sum(1 << (4 * card_rank(c)) for c in ids)


def decide(g: ddz.Game) -> None:
    """Finish the auction with fixed choices: the first bidder takes the landlord role."""
    while g.phase != "PLAY" and not g.is_over:
        la = g.legal_actions()
        pref = [t for t in ("NORMAL_START", "CALL", "GRAB", "NO_ROB", "NO_SHOW", "NO_FANSHEN", "NO_YAPO")
                if t in la]
        g.apply(pref[0] if pref else la[0])


def random_game_until(rules, seed: int, observer: int, max_hidden: int) -> ddz.Game:
    """A random game (fixed auction, random plays) stopped once the seats `observer` cannot
    see hold at most `max_hidden` cards in all, with `observer`'s hand and the game going on."""
    for attempt in range(200):
        g = ddz.Game(rules, seed=seed * 1000 + attempt, first_bidder=0)
        decide(g)
        bot = RandomBot(seed + attempt)
        while not g.is_over:
            obs = g.observation(observer)
            hidden = [s for s in range(g.num_players) if s != observer and s not in obs["shown"]]
            if sum(obs["cards_left"][s] for s in hidden) <= max_hidden and g.phase == "PLAY":
                return g
            seat = g.current_seat
            g.apply(bot.act(g, seat))
    raise AssertionError("no game reached the wanted state")


def exact_distribution(g: ddz.Game, observer: int) -> Dict[Tuple[int, ...], float]:
    """P(hidden seats' rank words) from the true game, enumerating every assignment of the
    unseen physical cards (hidden seats' cards and the set-aside cards) to the holders."""
    obs = g.observation(observer)
    decks = g.rules.decks
    n = g.num_players
    hidden = [s for s in range(n) if s != observer and s not in obs["shown"]]
    played = set()
    for s, tok in obs["history"]:
        if tok.startswith("PLAY "):
            played |= set(parse_card_names(tok[5:], decks))
    kitty = set(parse_card_names(obs["kitty"], decks)) if obs["kitty"] else set()
    forced = {s: (kitty - played if s == obs["landlord"] else set()) for s in hidden}
    held = {s: set(parse_card_names(g.cards(s), decks)) for s in hidden}
    rest = set(g._hands.aside) if g.rules.variant == "two_player" else set()  # the true set-aside cards
    pool = sorted(set().union(*(held[s] - forced[s] for s in hidden)) | rest)
    sizes = [len(held[s]) - len(forced[s]) for s in hidden]
    counts: Counter = Counter()
    total = 0

    def assign(i: int, remaining: List[int], words: Tuple[int, ...]):
        nonlocal total
        if i == len(hidden):
            counts[words] += 1
            total += 1
            return
        for pick in itertools.combinations(remaining, sizes[i]):
            left = [c for c in remaining if c not in pick]
            assign(i + 1, left, words + (word_of_ids(set(pick) | forced[hidden[i]]),))

    assign(0, pool, ())
    return {k: v / total for k, v in counts.items()}


@pytest.mark.parametrize("variant,observer,max_hidden,seed", [
    ("classic", 0, 7, 1),      # the observer is the landlord: both farmers hidden
    ("classic", 1, 7, 2),      # a farmer: the landlord hidden, with its unplayed kitty cards known
    ("classic", 2, 6, 3),
    ("two_player", 1, 3, 4),   # TWOP: the landlord's few cards mixed with the 11 set-aside ones
])
def test_chi_square_uniform_over_physical_cards(variant: str, observer: int, max_hidden: int, seed: int) -> None:
    g = random_game_until(getattr(ddz.Rules, variant)(), seed, observer, max_hidden)
    obs = g.observation(observer)
    hidden = [s for s in range(g.num_players) if s != observer and s not in obs["shown"]]
    exact = exact_distribution(g, observer)
    n = 40_000
    rows = ddz.sample_deals(obs, n, seed=seed)
    assert rows.shape == (n, g.num_players) and rows.dtype == np.uint64
    assert (rows[:, observer] == ddz.Cards(obs["hand"]).word).all()
    seen = Counter(tuple(int(w) for w in r[hidden]) for r in rows)
    assert set(seen) <= set(exact), "a sample outside the consistent holdings"
    keys = sorted(exact)
    assert len(keys) >= 3
    ok, stat, crit = chi_square_ok([seen.get(k, 0) for k in keys], [exact[k] * n for k in keys])
    assert ok, (stat, crit, len(keys))


def test_rows_are_consistent_holdings() -> None:
    """Every row: the observer's hand, the hidden seats' card counts, nothing beyond the deck."""
    rules = ddz.Rules.classic()
    for seed in range(20):
        g = ddz.Game(rules, seed=seed)
        bots = RandomBot(seed)
        for _ in range(random.Random(seed).randrange(0, 30)):
            if g.is_over:
                break
            g.apply(bots.act(g, g.current_seat))
        if g.is_over:
            continue
        obs = g.observation(seed % 3)
        if not obs["cards"]:
            continue
        rows = ddz.sample_deals(obs, 200, seed=seed)
        for r in rows:
            hands = [ddz.Cards.from_word(int(w)) for w in r]
            assert [len(h) for h in hands] == obs["cards_left"]
            assert str(hands[seed % 3]) == obs["hand"]
            total = hands[0] + hands[1] + hands[2]  # raises CardError if a rank exceeds the deck
            assert len(total) <= 54


def test_same_seed_same_rows_and_different_seeds_differ() -> None:
    g = ddz.Game(ddz.Rules.classic(), seed=9)
    decide(g)
    obs = g.observation(1)
    a, b = ddz.sample_deals(obs, 500, seed=5), ddz.sample_deals(obs, 500, seed=5)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, ddz.sample_deals(obs, 500, seed=6))


CLASSIC_HANDS = ["33445566778899TTJ", "JQQKKAA22BR345678", "9TJQKA2345678TJQK"]


def test_samples_do_not_depend_on_hidden_cards() -> None:
    """Two games that differ only in cards seat 1 cannot see give it the same observation
    and the same samples for the same seed."""
    rules = ddz.Rules.classic()
    other = list(CLASSIC_HANDS)
    # swap a 9 of seat 0 (the landlord, hidden from seat 1) for a T of seat 2; seat 1 holds
    # neither rank, so even its physical cards are the same in both games
    other[0] = "".join(sorted(CLASSIC_HANDS[0].replace("9", "T", 1), key=RANKS.index))
    other[2] = "".join(sorted(CLASSIC_HANDS[2].replace("T", "9", 1), key=RANKS.index))
    games = []
    for hands in (CLASSIC_HANDS, other):
        g = ddz.Game(rules, seed=1, hands=hands, kitty=_kitty(hands), first_bidder=0)
        decide(g)
        g.apply("PLAY 4")   # the landlord leads a card both hands hold
        g.apply("PASS")
        games.append(g)
    o1, o2 = games[0].observation(1), games[1].observation(1)
    assert o1 == o2
    assert [str(h) for h in games[0].play_state.hands] != [str(h) for h in games[1].play_state.hands]
    assert np.array_equal(ddz.sample_deals(o1, 2000, seed=3), ddz.sample_deals(o2, 2000, seed=3))


def _kitty(hands: List[str]) -> str:
    """The three cards of a one-deck kitty that the hands leave."""
    left = Counter("3456789TJQKA2" * 4 + "BR")
    left.subtract(Counter("".join(hands)))
    return "".join(r * k for r, k in left.items() if k > 0)


def bengbu_special_game(seed: int) -> ddz.Game:
    """BENGBU4: seat 1 holds seven 3s and BB, seat 2 the eighth 3 and RR; seat 0 grabs (open
    play), leads a single, seat 1 bombs with 3333333, everyone passes, seat 1 leads BB."""
    rng = random.Random(seed)
    rest = list("456789TJQKA2" * 8)
    while True:
        rng.shuffle(rest)
        hands = ["".join(rest[16 + 22 + 25:16 + 22 + 50]), "3333333BB" + "".join(rest[:16]),
                 "3RR" + "".join(rest[16:38]), "".join(rest[38:63])]
        kitty = "".join(rest[88:96])
        if not any(max(Counter(h).values()) == 8 for h in hands):
            break
    g = ddz.Game(ddz.Rules.bengbu(), seed=seed, hands=hands, kitty=kitty, first_bidder=0)
    g.apply("GRAB")
    lead = g.observation(0)["hand"][0]
    g.apply(f"PLAY {lead}")
    g.apply("PLAY 3333333")
    for _ in range(3):
        g.apply("PASS")
    g.apply("PLAY BB")
    return g


def test_bengbu_no_tianzha_or_tianzun_at_the_deal() -> None:
    """Seat 1 has played 3333333 and BB: dealt the last 3 it would have held 天炸, dealt RR
    天尊, so no sample gives it either; the R count follows the conditioned hypergeometric law."""
    g = bengbu_special_game(1)
    obs = g.observation(3)
    assert 0 in obs["shown"] and g.play_state.hands[2].count("3") == 1
    n = 30_000
    rows = ddz.sample_deals(obs, n, seed=11)
    seat1 = [ddz.Cards.from_word(int(w), decks=2) for w in rows[:, 1]]
    seat2 = [ddz.Cards.from_word(int(w), decks=2) for w in rows[:, 2]]
    assert all(h.count("3") == 0 for h in seat1)
    assert all(h.count("R") <= 1 for h in seat1)
    assert all(h.count("3") == 1 for h in seat2)
    # P(seat 1 holds k R) ∝ C(2, k) C(U-3, d1-k) over the U-1 unseen cards other than the 3, k in {0, 1}
    d1, d2 = obs["cards_left"][1], obs["cards_left"][2]
    u = d1 + d2
    weights = [comb(2, k) * comb(u - 3, d1 - k) for k in (0, 1)]
    expected = [w / sum(weights) * n for w in weights]
    got = Counter(h.count("R") for h in seat1)
    assert chi_square_ok([got[0], got[1]], expected)[0]
    # without the condition a third of the deals would give seat 1 the 3: the condition is what removes them
    assert d1 / u > 0.2


def test_bad_observations() -> None:
    g = ddz.Game(ddz.Rules.classic(), seed=2)
    obs = g.observation(0)
    with pytest.raises(ddz.SampleTypeError):
        ddz.sample_deals("obs", 1, 0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ddz.sample_deals(obs, 1.5, 0)  # type: ignore[arg-type]
    with pytest.raises(ddz.SampleError, match="n must be"):
        ddz.sample_deals(obs, -1, 0)
    bad = dict(obs)
    del bad["history"]
    with pytest.raises(ddz.SampleError, match="history"):
        ddz.sample_deals(bad, 1, 0)
    bad = dict(obs, cards_left=[17, 30, 17])  # more than a hand holds
    with pytest.raises(ddz.SampleError, match=r"cards_left\[1\]"):
        ddz.sample_deals(bad, 1, 0)
    bad = dict(obs, cards_left=[17, 19, 17])  # more cards than the deck has unseen
    with pytest.raises(ddz.SampleError, match="add up to the deck"):
        ddz.sample_deals(bad, 1, 0)
    bad = dict(obs, cards=obs["cards"] + ["Zz"])
    with pytest.raises(ddz.SampleError, match="cards"):
        ddz.sample_deals(bad, 1, 0)
    twop = ddz.Game(ddz.Rules.two_player(), seed=2)
    with pytest.raises(ddz.SampleError, match="no cards"):
        ddz.sample_deals(twop.observation(0), 1, 0)
    assert ddz.sample_deals(obs, 0, 0).shape == (0, 3)


def test_unplayed_kitty_cards_stay_with_a_hidden_landlord() -> None:
    """The kitty is public once taken: a farmer's samples always give the landlord the kitty
    cards it has not played yet, and never the ones it played."""
    g = ddz.Game(ddz.Rules.classic(), seed=1, hands=CLASSIC_HANDS, kitty=_kitty(CLASSIC_HANDS), first_bidder=0)
    decide(g)
    assert g.landlord == 0
    obs = g.observation(1)
    kitty = ddz.Cards("".join(c[0] for c in obs["kitty"]))
    rows = ddz.sample_deals(obs, 3000, seed=2)
    assert all(kitty in ddz.Cards.from_word(int(w)) for w in rows[:, 0])
    g.apply("PLAY 9d")  # the landlord plays the kitty's 9 itself: the A and 2 stay known, the 9 no longer
    g.apply("PASS")
    obs = g.observation(1)
    rows = ddz.sample_deals(obs, 3000, seed=2)
    hands = [ddz.Cards.from_word(int(w)) for w in rows[:, 0]]
    assert all("A2" in h for h in hands)
    assert any(h.count("9") == 0 for h in hands)
