"""RULES.md §6 test vectors for a whole hand, driven through the ``ddz.Game`` protocol:
§6.3 CLASSIC3 bidding (B1-B11), §6.4 kitty factor (``product`` and ``max``), §6.5
multiplier / spring (M1-M6), §6.6 TWOP bidding and multipliers (T1-T8), §6.7 TWOP score
room (W3, W5, W6), §6.9 BENGBU4 scoring (G1-G25), §6.10 BENGBU4 bidding and bomb limits
(L1-L11).

Conventions of §6: ``P0`` is the first bidder of the deal and ``Pk = (P0 + k) mod n``;
every vector is run for several injected ``first_bidder`` seats, so the seat arithmetic is
exercised.  When a vector needs specific cards (a kitty, a bomb, a missile, a special hand)
the test injects the whole deal: the named cards go where the vector needs them and the
rest of the deck is spread evenly (``build_deal``), so no unintended bomb, missile or
special hand arises.  The play phase is then driven with simple scripted policies (lead the
lowest single; follow with the lowest / highest single, a bomb, or pass) chosen so that
exactly the vector's situation arises; each test also checks that it did arise (play counts,
winner), so a scenario that drifts fails loudly instead of testing something else.
"""
from __future__ import annotations

from collections import Counter

import pytest

import ddz
from ddz.variants import VARIANT

RANKS = "3456789TJQKA2BR"
RV = {r: i for i, r in enumerate(RANKS)}
# variant -> (players, dealt hand size, kitty size, set-aside size)
LAYOUT = {name: (v.players, v.hand, v.kitty, v.aside) for name, v in VARIANT.items()}  # the package's table
FACTORY = {"classic": ddz.Rules.classic, "two_player": ddz.Rules.two_player, "bengbu": ddz.Rules.bengbu}
INF = None  # an unlimited bomb limit (§2.3.6 "∞")


def Game(*args, **kwargs):
    return ddz.Game(*args, **kwargs)


def full_deck(variant: str) -> Counter:
    copies = 8 if variant == "bengbu" else 4
    jokers = 2 if variant == "bengbu" else 1
    deck = Counter({r: copies for r in RANKS[:13]})
    deck.update({"B": jokers, "R": jokers})
    return deck


def is_special(hand: Counter) -> bool:
    """§2.3.2: 天炸 (8 of a rank) or 天尊 (BBRR) in a dealt BENGBU4 hand."""
    return any(hand[r] == 8 for r in RANKS[:13]) or (hand["B"] == 2 and hand["R"] == 2)


def build_deal(variant: str, p0: int, fixed=None, kitty: str = "", allow_special: bool = False):
    """A whole first deal: ``fixed`` maps P-index k -> ranks seat (p0+k)%n must hold; ``kitty``
    ranks the kitty must hold. The rest of the deck is spread card by card to the container
    holding the fewest copies of that rank (most free room first), so ranks stay spread.
    Returns (hands as rank strings by seat, kitty ranks)."""
    n, size, ksize, aside = LAYOUT[variant]
    fixed = fixed or {}
    rest = full_deck(variant)
    boxes = [Counter() for _ in range(n)] + [Counter(kitty)] + [Counter()]  # seats, kitty, aside
    caps = [size] * n + [ksize, aside]
    for k, cards in fixed.items():
        boxes[(p0 + k) % n].update(cards)
    for b in boxes:
        rest.subtract(b)
    assert all(v >= 0 for v in rest.values()), "the fixed cards exceed the deck"
    for i, b in enumerate(boxes):
        assert sum(b.values()) <= caps[i], "too many fixed cards for one place"
    for r in sorted(rest.elements(), key=RV.__getitem__):
        free = [i for i in range(len(boxes)) if sum(boxes[i].values()) < caps[i]]
        best = min(free, key=lambda i: (boxes[i][r], -(caps[i] - sum(boxes[i].values())), i))
        boxes[best][r] += 1
    for i, b in enumerate(boxes):
        assert sum(b.values()) == caps[i]
    hands = ["".join(sorted(b.elements(), key=RV.__getitem__)) for b in boxes[:n]]
    if variant == "bengbu" and not allow_special:
        assert not any(is_special(Counter(h)) for h in hands), hands
    return hands, "".join(sorted(boxes[n].elements(), key=RV.__getitem__))


def new_game(variant, p0, fixed=None, kitty="", opts=None, seed=7, first_to_decide=None, **kw):
    hands, kit = build_deal(variant, p0, fixed, kitty, allow_special=kw.pop("allow_special", False))
    rules = FACTORY[variant](**(opts or {}))
    extra = {}
    if variant == "two_player":
        extra["first_to_decide"] = p0 if first_to_decide is None else first_to_decide
    return Game(rules, seed=seed, hands=hands, kitty=kit, first_bidder=p0, **extra, **kw)


def seat(p0: int, k: int, n: int) -> int:
    return (p0 + k) % n


def act(g, expected_seat, token):
    """Applies ``token`` after checking that ``expected_seat`` is the seat to act and that the
    token is offered by legal_actions() (§1.5: exactly one seat acts; only listed tokens)."""
    assert g.current_seat == expected_seat, (g.phase, g.current_seat, expected_seat, token)
    legal = g.legal_actions()
    if not token.startswith("PLAY "):
        assert token in legal, (token, legal)
    g.apply(token)


def singles(g):
    """Legal one-card plays of the seat to act, lowest rank first."""
    out = [a[5:] for a in g.legal_actions() if a.startswith("PLAY ") and len(a[5:]) == 1]
    return sorted(out, key=RV.__getitem__)


def is_bomb_ranks(ranks: str, variant: str) -> bool:
    c = Counter(ranks)
    if variant == "bengbu":
        return (len(c) == 1 and len(ranks) >= 4 and ranks[0] not in "BR") or sorted(ranks) == sorted("BBRR")
    return (len(c) == 1 and len(ranks) == 4) or sorted(ranks) == ["B", "R"]


def autoplay(g, n, variant, lf="pass", f1="pass", l_max=10 ** 6, f1_max=10 ** 6,
             fanshen="NO_FANSHEN", yapo="NO_YAPO", max_steps=4000):
    """Plays the hand out. Whoever leads plays his lowest single. Following: the landlord plays
    by ``lf`` (at most ``l_max`` following plays), farmer 1 (the farmer after the landlord) by
    ``f1`` (at most ``f1_max``), every other farmer passes. Modes: "pass", "lowest" / "highest"
    (single that beats), "bomb" (the lowest bomb that beats). TWOP decisions: ``fanshen`` by the
    farmer, ``yapo`` by the landlord."""
    L = g.landlord
    F1 = (L + 1) % n
    done = Counter()
    for _ in range(max_steps):
        if g.is_over:
            return
        ph, s = g.phase, g.current_seat
        if ph == "FANSHEN":
            act(g, (L + 1) % n, fanshen)
            continue
        if ph == "YAPO":
            act(g, L, yapo)
            continue
        assert ph == "PLAY", ph
        legal = g.legal_actions()
        if "PASS" not in legal:  # leading (§2.0.1: a lead cannot pass)
            g.apply("PLAY " + singles(g)[0])
            continue
        mode = "pass"
        if s == L and done[s] < l_max:
            mode = lf
        elif s == F1 and done[s] < f1_max:
            mode = f1
        choice = None
        if mode in ("lowest", "highest"):
            cand = singles(g)
            if cand:
                choice = cand[0] if mode == "lowest" else cand[-1]
        elif mode == "bomb":
            bombs = [a[5:] for a in legal if a.startswith("PLAY ") and is_bomb_ranks(a[5:], variant)]
            if bombs:
                choice = min(bombs, key=lambda b: (len(b), RV[b[0]]))
        if choice is None:
            g.apply("PASS")
        else:
            g.apply("PLAY " + choice)
            done[s] += 1
    raise AssertionError("the hand did not finish")


def apply_script(g, p0, n, script):
    """script: [(k, token)] with k the P-index of the actor."""
    for k, token in script:
        act(g, seat(p0, k, n), token)


def scores_by_k(g, p0, n):
    return [g.result.scores[seat(p0, k, n)] for k in range(n)]


def check_factors(factors, expected):
    for key, value in expected.items():
        assert key in factors, (key, factors)
        assert factors[key] == value, (key, factors[key], value)


# =====================================================================================
# §6.3 CLASSIC3 bidding
# =====================================================================================

B_VECTORS = [
    # id, options, [(k, token)], landlord k, robs, rob factor
    ("B1", {}, [(0, "CALL"), (1, "NO_ROB"), (2, "NO_ROB")], 0, 0, 1),
    ("B2", {}, [(0, "CALL"), (1, "ROB"), (2, "NO_ROB"), (0, "ROB")], 0, 2, 4),
    ("B3", {}, [(0, "CALL"), (1, "ROB"), (2, "NO_ROB"), (0, "NO_ROB")], 1, 1, 2),
    ("B4", {}, [(0, "CALL"), (1, "ROB"), (2, "ROB"), (0, "NO_ROB")], 1, 2, 4),
    ("B4-last", {"classic_rob_winner": "last"}, [(0, "CALL"), (1, "ROB"), (2, "ROB"), (0, "NO_ROB")], 2, 2, 4),
    ("B5", {}, [(0, "CALL"), (1, "ROB"), (2, "ROB"), (0, "ROB")], 0, 3, 8),
    ("B6", {}, [(0, "CALL"), (1, "NO_ROB"), (2, "ROB"), (0, "NO_ROB")], 2, 1, 2),
    ("B7", {}, [(0, "NO_CALL"), (1, "CALL"), (2, "ROB"), (1, "ROB")], 1, 2, 4),
    ("B8", {}, [(0, "NO_CALL"), (1, "CALL"), (2, "NO_ROB")], 1, 0, 1),
    ("B9", {}, [(0, "NO_CALL"), (1, "CALL"), (2, "ROB"), (1, "NO_ROB")], 2, 1, 2),
    ("B10", {}, [(0, "NO_CALL"), (1, "NO_CALL"), (2, "CALL")], 2, 0, 1),
]


def _expected_classic_phase(script, i):
    """The phase in which the i-th scripted action is taken (§2.1.3 state machine)."""
    token = script[i][1]
    if token in ("CALL", "NO_CALL"):
        return "CALL"
    caller = next(k for k, t in script if t == "CALL")
    return "FINAL_ROB" if script[i][0] == caller else "ROB"


@pytest.mark.parametrize("vid, opts, script, landlord_k, robs, rob_factor", B_VECTORS,
                         ids=[v[0] for v in B_VECTORS])
def test_classic_bidding_6_3(vid, opts, script, landlord_k, robs, rob_factor):
    """RULES.md §6.3 / §2.1.3: bidding sequence -> landlord, robs, rob factor min(2^robs, 8)."""
    for p0 in range(3):
        g = new_game("classic", p0, kitty="379", opts=opts, seed=100 + p0)
        assert g.phase == "CALL" and g.first_bidder == p0 and g.landlord is None
        for i, (k, token) in enumerate(script):
            assert g.phase == _expected_classic_phase(script, i), (vid, i, g.phase)
            assert sorted(g.legal_actions()) == sorted(
                ["CALL", "NO_CALL"] if g.phase == "CALL" else ["ROB", "NO_ROB"])
            act(g, seat(p0, k, 3), token)
        L = seat(p0, landlord_k, 3)
        # bidding is over: the landlord decides SHOW / NO_SHOW (§2.1.4); no further bidder is asked
        assert g.phase == "SHOW" and g.current_seat == L and g.landlord == L, vid
        assert sorted(g.legal_actions()) == ["NO_SHOW", "SHOW"]
        assert g.factors["rob"] == rob_factor
        act(g, L, "NO_SHOW")
        assert g.phase == "PLAY" and g.current_seat == L  # the landlord leads (§2.0.1)
        assert g.factors["rob"] == rob_factor and g.multiplier == rob_factor  # kitty 379 -> x1
        autoplay(g, 3, "classic")  # farmers pass: spring
        r = g.result
        assert r.kind == "normal" and r.landlord == L and r.winner_side == "landlord"
        assert r.robs == robs
        check_factors(r.factors, {"rob": rob_factor, "show": 1, "kitty": 1, "bomb": 1, "spring": 2})
        assert r.multiplier == rob_factor * 2


def test_classic_bidding_6_3_B8_seat_that_passed_is_never_asked():
    """B8 (A12): P0 NO_CALL, P1 CALL -> the rob queue is [P2] only; after P2 NO_ROB bidding ends
    with landlord P1 and P0 is never asked. With classic_passers_may_rob = true the queue is the
    two other seats after C: P2 then P0."""
    for p0 in range(3):
        g = new_game("classic", p0, kitty="379", seed=5)
        act(g, seat(p0, 0, 3), "NO_CALL")
        act(g, seat(p0, 1, 3), "CALL")
        assert g.phase == "ROB" and g.current_seat == seat(p0, 2, 3)
        act(g, seat(p0, 2, 3), "NO_ROB")
        assert g.phase == "SHOW" and g.landlord == seat(p0, 1, 3)
        actors = [s for s, t in g.history if t in ("ROB", "NO_ROB")]
        assert actors == [seat(p0, 2, 3)]
        g2 = new_game("classic", p0, kitty="379", seed=5, opts={"classic_passers_may_rob": True})
        act(g2, seat(p0, 0, 3), "NO_CALL")
        act(g2, seat(p0, 1, 3), "CALL")
        act(g2, seat(p0, 2, 3), "NO_ROB")
        assert g2.phase == "ROB" and g2.current_seat == seat(p0, 0, 3)
        act(g2, seat(p0, 0, 3), "ROB")
        assert g2.phase == "FINAL_ROB" and g2.current_seat == seat(p0, 1, 3)


def test_classic_bidding_6_3_B11_redeal_new_random_first_bidder():
    """B11 (§2.1.3, A7): three NO_CALL -> REDEAL, a new deal with a new random P0, unlimited."""
    new_p0 = Counter()
    for s in range(40):
        p0 = s % 3
        g = new_game("classic", p0, kitty="379", seed=1000 + s)
        first_cards = [sorted(g.cards(i)) for i in range(3)]
        for k in range(3):
            act(g, seat(p0, k, 3), "NO_CALL")
        assert (None, "REDEAL") in g.history
        assert g.history[-1] == (None, "REDEAL")
        assert g.redeals == 1 and g.deal_number == 1
        assert g.phase == "CALL" and g.landlord is None and not g.is_over and g.result is None
        assert g.current_seat == g.first_bidder
        assert sorted(g.legal_actions()) == ["CALL", "NO_CALL"]
        assert [sorted(g.cards(i)) for i in range(3)] != first_cards, "a re-deal deals new cards"
        assert all(len(g.cards(i)) == 17 for i in range(3))
        new_p0[g.first_bidder] += 1
        # re-deals are unlimited by default (max_redeals = 0)
        for _ in range(3):
            p = g.first_bidder
            for k in range(3):
                act(g, seat(p, k, 3), "NO_CALL")
        assert g.redeals == 4 and g.deal_number == 4 and g.phase == "CALL"
        assert [t for _, t in g.history].count("REDEAL") == 4
    assert len(new_p0) == 3, f"the re-deal's first bidder is drawn at random: {dict(new_p0)}"


# =====================================================================================
# §6.4 CLASSIC3 kitty factor
# =====================================================================================

KITTY_VECTORS = [  # kitty, product (default), max
    ("379", 1, 1), ("B79", 2, 2), ("R79", 2, 2), ("225", 2, 2), ("777", 2, 2), ("222", 2, 2),
    ("BR5", 4, 4), ("BR2", 4, 4), ("B22", 4, 2), ("R22", 4, 2), ("27B", 2, 2),
]


@pytest.mark.parametrize("combine", ["product", "max"])
@pytest.mark.parametrize("kitty, f_product, f_max", KITTY_VECTORS, ids=[v[0] for v in KITTY_VECTORS])
def test_classic_kitty_factor_6_4(kitty, f_product, f_max, combine):
    """RULES.md §6.4 / §2.1.5 (A15): kitty factor, classic_kitty_combine = product | max."""
    factor = f_product if combine == "product" else f_max
    for p0 in (0, 2):
        g = new_game("classic", p0, kitty=kitty, opts={"classic_kitty_combine": combine}, seed=11)
        assert g.observation(seat(p0, 1, 3))["kitty"] is None  # hidden until revealed (§2.1.2)
        apply_script(g, p0, 3, [(0, "CALL"), (1, "NO_ROB"), (2, "NO_ROB"), (0, "NO_SHOW")])
        L = seat(p0, 0, 3)
        assert g.phase == "PLAY" and g.landlord == L
        assert g.kitty == ddz.Cards(kitty)
        assert len(g.cards(L)) == 20 and ddz.Cards(kitty) in g.hand(L)
        for s in range(3):  # revealed to everyone (§2.1.5)
            seen = g.observation(s)["kitty"]
            assert seen is not None and ddz.Cards("".join(c[0] for c in seen)) == ddz.Cards(kitty)
        assert g.factors["kitty"] == factor
        assert g.multiplier == factor  # robs 0, no show, no bomb yet
        autoplay(g, 3, "classic")
        r = g.result
        check_factors(r.factors, {"rob": 1, "show": 1, "kitty": factor, "bomb": 1, "spring": 2})
        assert r.multiplier == 2 * factor and r.unit == 2 * factor
        assert scores_by_k(g, p0, 3) == [4 * factor, -2 * factor, -2 * factor]


# =====================================================================================
# §6.5 CLASSIC3 multiplier / spring (M1-M6)
# =====================================================================================

SPRING = dict()                                                    # farmers always pass
L_WINS_F1_ONCE = dict(lf="highest", f1="lowest", f1_max=1)         # landlord wins, farmer 1 played once
F_WIN_L_ONCE = dict(lf="pass", f1="lowest")                        # farmer 1 wins, landlord only led
F_WIN_L_TWICE = dict(lf="lowest", l_max=1, f1="lowest")            # farmer 1 wins, landlord played twice

B1 = [(0, "CALL"), (1, "NO_ROB"), (2, "NO_ROB")]

M_VECTORS = [
    pytest.param(dict(bids=[(0, "CALL"), (1, "ROB"), (2, "NO_ROB"), (0, "ROB")], show="SHOW", kitty="B79",
                      fixed={0: "3333R"},
                      prefix=[(0, "PLAY 3333"), (1, "PASS"), (2, "PASS"), (0, "PLAY BR"), (1, "PASS"), (2, "PASS")],
                      mode=SPRING, winner="landlord", spring=True, anti=False, L_plays=None, robs=2, bombs=2,
                      factors=dict(rob=4, show=2, kitty=2, bomb=4, spring=2), D=128,
                      start_multiplier=16), id="M1"),
    pytest.param(dict(bids=[(0, "CALL"), (1, "ROB"), (2, "ROB"), (0, "ROB")], show="NO_SHOW", kitty="379",
                      fixed={0: "R"}, prefix=[], mode=L_WINS_F1_ONCE, winner="landlord", spring=False,
                      anti=False, L_plays=None, robs=3, bombs=0,
                      factors=dict(rob=8, show=1, kitty=1, bomb=1, spring=1), D=8, start_multiplier=8), id="M2"),
    pytest.param(dict(bids=B1, show="NO_SHOW", kitty="379", fixed={}, prefix=[], mode=SPRING, winner="landlord",
                      spring=True, anti=False, L_plays=None, robs=0, bombs=0,
                      factors=dict(rob=1, show=1, kitty=1, bomb=1, spring=2), D=2, start_multiplier=1), id="M3"),
    pytest.param(dict(bids=B1, show="NO_SHOW", kitty="379", fixed={0: "R"}, prefix=[], mode=L_WINS_F1_ONCE,
                      winner="landlord", spring=False, anti=False, L_plays=None, robs=0, bombs=0,
                      factors=dict(rob=1, show=1, kitty=1, bomb=1, spring=1), D=1, start_multiplier=1), id="M4"),
    pytest.param(dict(bids=B1, show="NO_SHOW", kitty="379", fixed={}, prefix=[], mode=F_WIN_L_ONCE,
                      winner="farmers", spring=False, anti=True, L_plays=1, robs=0, bombs=0,
                      factors=dict(rob=1, show=1, kitty=1, bomb=1, spring=2), D=2, start_multiplier=1), id="M5"),
    pytest.param(dict(bids=B1, show="NO_SHOW", kitty="379", fixed={1: "R"}, prefix=[], mode=F_WIN_L_TWICE,
                      winner="farmers", spring=False, anti=False, L_plays=2, robs=0, bombs=0,
                      factors=dict(rob=1, show=1, kitty=1, bomb=1, spring=1), D=1, start_multiplier=1), id="M6"),
]


@pytest.mark.parametrize("v", M_VECTORS)
def test_classic_multiplier_and_spring_6_5(v):
    """RULES.md §6.5 M1-M6 / §2.1.7: D = robF x showF x kittyF x bombF x springF; spring and
    anti-spring (§2.0.6); scores landlord +-2X, farmers -+X with X = base x x x D (§2.1.9)."""
    for p0, base, x in [(0, 1, 1), (1, 25, 2), (2, 100, 3)]:
        g = new_game("classic", p0, fixed=v["fixed"], kitty=v["kitty"], seed=3, base=base, initial_multiplier=x)
        apply_script(g, p0, 3, v["bids"])
        L = seat(p0, 0, 3)
        assert g.landlord == L
        act(g, L, v["show"])
        assert g.phase == "PLAY" and g.current_seat == L
        assert g.multiplier == v["start_multiplier"]
        bombs_seen = 0
        for k, token in v["prefix"]:
            act(g, seat(p0, k, 3), token)
            if token.startswith("PLAY") and is_bomb_ranks(token[5:], "classic"):
                bombs_seen += 1
                assert g.multiplier == v["start_multiplier"] * 2 ** bombs_seen  # each bomb/rocket x2
        autoplay(g, 3, "classic", **v["mode"])
        r = g.result
        ps = g.play_state
        assert r.kind == "normal" and r.landlord == L and r.winner_side == v["winner"]
        assert (r.winner_seat == L) == (v["winner"] == "landlord")
        farmer_plays = ps.plays_made(seat(p0, 1, 3)) + ps.plays_made(seat(p0, 2, 3))
        if v["winner"] == "landlord":
            assert farmer_plays == (0 if v["spring"] else 1)  # M4: one farmer made one play
        if v["L_plays"] is not None:
            assert ps.plays_made(L) == v["L_plays"]
        assert r.spring == v["spring"] and r.anti_spring == v["anti"]
        assert r.robs == v["robs"] and r.bombs == v["bombs"]
        check_factors(r.factors, v["factors"])
        assert r.multiplier == v["D"]
        X = base * x * v["D"]
        assert r.unit == X
        sign = 1 if v["winner"] == "landlord" else -1
        assert scores_by_k(g, p0, 3) == [2 * X * sign, -X * sign, -X * sign]
        assert g.multiplier == v["D"]


# =====================================================================================
# §6.6 TWOP bidding and multipliers (T1-T8)
# =====================================================================================

T_BIDDING = [
    # pre: [(who, token)] with who "S" / "Q" (S = the seat named by the vector, Q = the other);
    # bids: [(who, token)]; expect: landlord who / "redeal", first bidder who, showF
    pytest.param(dict(pre=[("S", "NORMAL_START"), ("Q", "NORMAL_START")], p0="S",
                      bids=[("S", "NO_CALL"), ("Q", "CALL")], landlord="Q", showF=1, opts={}), id="T1"),
    pytest.param(dict(pre=[("S", "NORMAL_START"), ("Q", "NORMAL_START")], p0="S",
                      bids=[("S", "NO_CALL"), ("Q", "NO_CALL")], landlord="redeal", showF=None, opts={}), id="T2"),
    pytest.param(dict(pre=[("S", "SHOW_START"), ("Q", "NORMAL_START")], p0="S",
                      bids=[("S", "NO_CALL"), ("Q", "NO_CALL")], landlord="S", showF=5, opts={}), id="T3"),
    pytest.param(dict(pre=[("Q", "NORMAL_START"), ("S", "SHOW_START")], p0="S",
                      bids=[("S", "NO_CALL"), ("Q", "NO_CALL")], landlord="S", showF=5, opts={}),
                 id="T3-shower-decides-second"),
    pytest.param(dict(pre=[("S", "SHOW_START"), ("Q", "SHOW_START")], p0="S",
                      bids=[("S", "NO_CALL"), ("Q", "NO_CALL")], landlord="S", showF=5, opts={}), id="T4"),
    pytest.param(dict(pre=[("S", "SHOW_START"), ("Q", "SHOW_START")], p0="S",
                      bids=[("S", "NO_CALL"), ("Q", "CALL")], landlord="Q", showF=5, opts={}),
                 id="T4-second-shower-calls"),
    pytest.param(dict(pre=[("S", "SHOW_START"), ("Q", "SHOW_START")], p0="S",
                      bids=[("S", "CALL")], landlord="S", showF=25, opts={"twop_show_start_stacks": True}),
                 id="T4-stacks-option"),
]


@pytest.mark.parametrize("v", T_BIDDING)
def test_twop_bidding_6_6(v):
    """RULES.md §6.6 T1-T4, §2.2.3-§2.2.4: pre-deal show-start, first bidder, landlord, showF.
    A show-start player bids first whatever the random draw would give, so without a shower the
    injected first_bidder is P0 and with one the test injects no first_bidder at all (the draw is
    the seeded RNG's) and runs several seeds."""
    for S in (0, 1):
        Q = 1 - S
        who = {"S": S, "Q": Q}
        showers = [who[w] for w, t in v["pre"] if t == "SHOW_START"]
        for s in range(6 if showers else 1):
            rules = ddz.Rules.two_player(**v["opts"])
            hands, kitty = build_deal("two_player", 0)
            kw = {} if showers else {"first_bidder": who[v["p0"]]}
            g = Game(rules, seed=200 + s, hands=hands, kitty=kitty, first_to_decide=who[v["pre"][0][0]], **kw)
            assert g.phase == "PRE_DEAL"
            for w, token in v["pre"]:
                assert sorted(g.legal_actions()) == ["NORMAL_START", "SHOW_START"]
                act(g, who[w], token)
            assert g.phase == "BID"
            assert g.current_seat == who[v["p0"]] == g.first_bidder  # first shower, else the draw
            for w, token in v["bids"]:
                assert g.phase == "BID" and sorted(g.legal_actions()) == ["CALL", "NO_CALL"]
                act(g, who[w], token)
            if v["landlord"] == "redeal":
                assert g.history[-1] == (None, "REDEAL")
                assert g.redeals == 1 and g.deal_number == 1 and g.landlord is None
                assert g.phase == "PRE_DEAL"  # the pre-deal show phase is repeated (A7)
                assert sorted(g.legal_actions()) == ["NORMAL_START", "SHOW_START"]
                continue
            L = who[v["landlord"]]
            assert g.landlord == L
            assert g.factors["show_start"] == v["showF"]
            assert g.kitty == ddz.Cards(kitty) and len(g.cards(L)) == 23 and len(g.cards(1 - L)) == 20
            # default twop_fanshen_point = farmer_first_turn: the landlord leads first
            assert g.phase == "PLAY" and g.current_seat == L
            for shower in showers:  # a show-start hand is face up for the whole hand (§2.2.2)
                assert sorted(g.observation(1 - shower)["shown"][shower]) == sorted(g.cards(shower))
            autoplay(g, 2, "two_player")
            r = g.result
            check_factors(r.factors, {"show_start": v["showF"], "fanshen": 1, "bomb": 1, "spring": 2})
            assert r.multiplier == v["showF"] * 2 and r.unit == v["showF"] * 2


T_FANSHEN = [
    pytest.param("NO_FANSHEN", None, 1, id="T5"),
    pytest.param("FANSHEN", "NO_YAPO", 2, id="T6"),
    pytest.param("FANSHEN", "YAPO", 4, id="T7"),
]


@pytest.mark.parametrize("fanshen, yapo, G", T_FANSHEN)
def test_twop_fanshen_yapo_6_6(fanshen, yapo, G):
    """RULES.md §6.6 T5-T7, §2.2.5 (A24, A25): G = 1 / 2 / 4; no YAPO decision without FANSHEN."""
    for p0 in (0, 1):
        g = new_game("two_player", p0, kitty="345", seed=9)
        apply_script(g, p0, 2, [(0, "NORMAL_START"), (1, "NORMAL_START"), (0, "CALL")])
        L, F = p0, 1 - p0
        assert g.phase == "PLAY" and g.current_seat == L
        g.apply("PLAY " + singles(g)[0])  # the landlord's opening lead
        assert g.phase == "FANSHEN" and g.current_seat == F
        assert sorted(g.legal_actions()) == ["FANSHEN", "NO_FANSHEN"]
        act(g, F, fanshen)
        if yapo is None:
            assert g.phase == "PLAY" and g.current_seat == F  # T5: no YAPO decision
        else:
            assert g.phase == "YAPO" and g.current_seat == L
            assert sorted(g.legal_actions()) == ["NO_YAPO", "YAPO"]
            act(g, L, yapo)
            assert g.phase == "PLAY" and g.current_seat == F
        assert g.factors["fanshen"] == G and g.multiplier == G
        autoplay(g, 2, "two_player")  # the farmer passes: spring
        r = g.result
        check_factors(r.factors, {"show_start": 1, "fanshen": G, "bomb": 1, "spring": 2})
        assert r.multiplier == 2 * G
        assert [t for _, t in g.history].count("YAPO") + [t for _, t in g.history].count("NO_YAPO") == \
            (0 if yapo is None else 1)


@pytest.mark.parametrize("point", ["farmer_first_turn", "before_lead"], ids=["T8", "T8-before_lead"])
def test_twop_decision_order_6_6_T8(point):
    """RULES.md §6.6 T8 (A24): farmer_first_turn -> landlord lead, farmer FANSHEN?, landlord YAPO?,
    farmer plays; before_lead -> FANSHEN? and YAPO? right after the kitty, then the landlord leads."""
    for p0 in (0, 1):
        hands, kitty = build_deal("two_player", p0)
        g = Game(ddz.Rules.two_player(twop_fanshen_point=point), seed=4, hands=hands, kitty=kitty,
                 first_bidder=p0, first_to_decide=p0)
        apply_script(g, p0, 2, [(0, "NORMAL_START"), (1, "NORMAL_START"), (0, "NO_CALL"), (1, "CALL")])
        L, F = 1 - p0, p0
        assert g.landlord == L
        order = []
        for _ in range(4):
            ph, s = g.phase, g.current_seat
            if ph in ("FANSHEN", "YAPO"):
                token = ph
            elif ph == "PLAY" and s == L and "PASS" not in g.legal_actions():
                token, ph = "PLAY " + singles(g)[0], "LEAD"
            else:
                break
            order.append((s, ph))
            g.apply(token)
        if point == "farmer_first_turn":
            assert order == [(L, "LEAD"), (F, "FANSHEN"), (L, "YAPO")]
        else:
            assert order == [(F, "FANSHEN"), (L, "YAPO"), (L, "LEAD")]
        # then the farmer makes his play action (play or pass) on the landlord's lead
        assert g.phase == "PLAY" and g.current_seat == F and "PASS" in g.legal_actions()
        assert g.factors["fanshen"] == 4


# =====================================================================================
# §6.7 TWOP score room (W3, W5, W6)
# =====================================================================================

W_VECTORS = [
    pytest.param(dict(pre=[(0, "SHOW_START"), (1, "NORMAL_START")], bids=[(0, "CALL")], fixed={0: "34444"},
                      mode=dict(lf="bomb", l_max=1, f1="lowest", f1_max=1), fanshen="FANSHEN", yapo="YAPO",
                      winner="landlord", spring=False, anti=False, X=40,
                      factors=dict(show_start=5, fanshen=4, bomb=2, spring=1), bombs=1), id="W3"),
    pytest.param(dict(pre=[(0, "NORMAL_START"), (1, "NORMAL_START")], bids=[(0, "CALL")], fixed={},
                      mode=dict(), fanshen="NO_FANSHEN", yapo=None, winner="landlord", spring=True, anti=False, X=2,
                      factors=dict(show_start=1, fanshen=1, bomb=1, spring=2), bombs=0), id="W5"),
    pytest.param(dict(pre=[(0, "NORMAL_START"), (1, "NORMAL_START")], bids=[(0, "CALL")], fixed={},
                      mode=dict(lf="pass", f1="lowest"), fanshen="NO_FANSHEN", yapo=None, winner="farmers",
                      spring=False, anti=True, X=2,
                      factors=dict(show_start=1, fanshen=1, bomb=1, spring=2), bombs=0), id="W6"),
]


@pytest.mark.parametrize("v", W_VECTORS)
def test_twop_score_room_6_7(v):
    """RULES.md §6.7 W3/W5/W6, §2.2.7-§2.2.8: X = I x m_act (I = 1); landlord +-2X, farmer -+X."""
    for p0 in (0, 1):
        g = new_game("two_player", p0, fixed=v["fixed"], kitty="9TJ", seed=21)
        apply_script(g, p0, 2, v["pre"] + v["bids"])
        L = p0
        assert g.landlord == L
        autoplay(g, 2, "two_player", fanshen=v["fanshen"], yapo=v["yapo"], **v["mode"])
        r = g.result
        assert r.kind == "normal" and r.landlord == L and r.winner_side == v["winner"]
        assert r.spring == v["spring"] and r.anti_spring == v["anti"] and r.bombs == v["bombs"]
        if v["anti"]:
            assert g.play_state.plays_made(L) == 1
        if not v["spring"] and v["winner"] == "landlord":
            assert g.play_state.plays_made(1 - L) >= 1
        check_factors(r.factors, v["factors"])
        assert r.multiplier == v["X"] and r.unit == v["X"]
        sign = 1 if v["winner"] == "landlord" else -1
        expected = [0, 0]
        expected[L], expected[1 - L] = 2 * v["X"] * sign, -v["X"] * sign
        assert list(r.scores) == expected


# =====================================================================================
# §6.9 BENGBU4 scoring
# =====================================================================================

def bengbu_bidding(p0, how):
    """P0 becomes the landlord: ("grab",) or ("bid", v, "OPEN"|"CLOSED")."""
    if how[0] == "grab":
        return [(0, "GRAB")]
    return [(0, f"BID{how[1]}"), (1, "NO_CALL"), (2, "NO_CALL"), (3, "NO_CALL"), (0, how[2])]


L_WINS = dict()                             # farmers pass; the landlord sheds singles
F_WIN = dict(lf="pass", f1="lowest")        # farmer 1 takes over and goes out

G_TABLE = [  # id, bidding, landlord wins L/F, farmers win L/F
    ("G1", ("bid", 1, "CLOSED"), (3, -1), (-3, 1)),
    ("G2", ("bid", 1, "OPEN"), (9, -3), (-6, 2)),
    ("G3", ("bid", 2, "CLOSED"), (6, -2), (-6, 2)),
    ("G4", ("bid", 2, "OPEN"), (18, -6), (-12, 4)),
    ("G5", ("bid", 3, "CLOSED"), (9, -3), (-9, 3)),
    ("G6", ("bid", 3, "OPEN"), (27, -9), (-18, 6)),
    ("G7", ("grab",), (27, -9), (-18, 6)),
]


@pytest.mark.parametrize("vid, how, lwin, fwin", G_TABLE, ids=[v[0] for v in G_TABLE])
def test_bengbu_score_table_6_9(vid, how, lwin, fwin):
    """RULES.md §6.9 G1-G7 / §2.3.9-A: the base score table, both outcomes."""
    for p0 in (0, 3):
        for outcome, (l_score, f_score), mode in [("landlord", lwin, L_WINS), ("farmers", fwin, F_WIN)]:
            g = new_game("bengbu", p0, seed=31, opts={"bengbu_point_value": 300})
            apply_script(g, p0, 4, bengbu_bidding(p0, how))
            L = seat(p0, 0, 4)
            assert g.phase == "PLAY" and g.landlord == L and g.current_seat == L
            autoplay(g, 4, "bengbu", **mode)
            r = g.result
            assert r.kind == "normal" and r.winner_side == outcome and r.landlord == L
            base = 3 if how[0] == "grab" else how[1]
            is_open = how[0] == "grab" or how[2] == "OPEN"
            check_factors(r.factors, {"base": base, "open": is_open})
            assert r.unit == base and r.multiplier == 1
            assert scores_by_k(g, p0, 4) == [l_score, f_score, f_score, f_score]
            assert list(r.money) == [300 * s for s in r.scores]
            assert list(r.missiles) == [0, 0, 0, 0]
            assert sum(r.scores) == 0


def _passes(*ks):
    return [(k, "PASS") for k in ks]


G_MISSILES = [
    # how, fixed {k: ranks}, kitty, prefix [(k, token)], mode, winner, missiles by k, scores by k, options
    pytest.param(dict(how=("grab",), fixed={0: "3R5555555"}, kitty="",
                      prefix=[(0, "PLAY 5555555")] + _passes(1, 2, 3), mode=L_WINS, winner="landlord",
                      missiles=[1, 0, 0, 0], scores=[36, -12, -12, -12], opts={}), id="G8"),
    pytest.param(dict(how=("grab",), fixed={0: "3R5555555"}, kitty="",
                      prefix=[(0, "PLAY 5555555")] + _passes(1, 2, 3), mode=F_WIN, winner="farmers",
                      missiles=[1, 0, 0, 0], scores=[-9, 3, 3, 3], opts={}), id="G9"),
    pytest.param(dict(how=("grab",), fixed={0: "3R555555566666667777777"}, kitty="",
                      prefix=[(0, "PLAY 5555555")] + _passes(1, 2, 3) + [(0, "PLAY 6666666")] + _passes(1, 2, 3)
                      + [(0, "PLAY 7777777")] + _passes(1, 2, 3), mode=L_WINS, winner="landlord",
                      missiles=[3, 0, 0, 0], scores=[54, -18, -18, -18], opts={}), id="G10"),
    pytest.param(dict(how=("grab",), fixed={0: "3R555555566666667777777"}, kitty="",
                      prefix=[(0, "PLAY 5555555")] + _passes(1, 2, 3) + [(0, "PLAY 6666666")] + _passes(1, 2, 3)
                      + [(0, "PLAY 7777777")] + _passes(1, 2, 3), mode=F_WIN, winner="farmers",
                      missiles=[3, 0, 0, 0], scores=[0, 0, 0, 0], opts={}), id="G11"),
    pytest.param(dict(how=("bid", 2, "CLOSED"), fixed={0: "3R", 1: "9999999"}, kitty="",
                      prefix=[(0, "PLAY 3"), (1, "PLAY 9999999")] + _passes(2, 3, 0),
                      mode=dict(lf="highest"), winner="landlord",
                      missiles=[0, 1, 0, 0], scores=[4, 0, -2, -2], opts={}), id="G12"),
    pytest.param(dict(how=("bid", 2, "CLOSED"), fixed={0: "3R", 1: "9999999"}, kitty="",
                      prefix=[(0, "PLAY 3"), (1, "PLAY 9999999")] + _passes(2, 3, 0),
                      mode=F_WIN, winner="farmers",
                      missiles=[0, 1, 0, 0], scores=[-8, 4, 2, 2], opts={}), id="G13"),
    pytest.param(dict(how=("grab",), fixed={0: "3R55555556666666"}, kitty="",
                      prefix=[(0, "PLAY 5555555")] + _passes(1, 2, 3) + [(0, "PLAY 6666666")] + _passes(1, 2, 3),
                      mode=F_WIN, winner="farmers",
                      missiles=[2, 0, 0, 0], scores=[0, 0, 0, 0], opts={}), id="G14"),
    pytest.param(dict(how=("bid", 1, "CLOSED"), fixed={0: "3R", 1: "9999999TTTTTTT"}, kitty="",
                      prefix=[(0, "PLAY 3"), (1, "PLAY 9999999")] + _passes(2, 3, 0)
                      + [(1, "PLAY TTTTTTT")] + _passes(2, 3, 0),
                      mode=dict(lf="highest"), winner="landlord",
                      missiles=[0, 2, 0, 0], scores=[2, 0, -1, -1], opts={}), id="G15"),
    pytest.param(dict(how=("bid", 1, "CLOSED"), fixed={0: "3R5555555", 1: "9999999"}, kitty="",
                      prefix=[(0, "PLAY 5555555"), (1, "PLAY 9999999")] + _passes(2, 3, 0),
                      mode=dict(lf="highest"), winner="landlord",
                      missiles=[1, 1, 0, 0], scores=[5, -1, -2, -2], opts={}), id="G16"),
    pytest.param(dict(how=("grab",), fixed={0: "3R7777777"}, kitty="",
                      prefix=[(0, "PLAY 7777")] + _passes(1, 2, 3) + [(0, "PLAY 777")] + _passes(1, 2, 3),
                      mode=L_WINS, winner="landlord",
                      missiles=[0, 0, 0, 0], scores=[27, -9, -9, -9], opts={}), id="G17-split"),
    pytest.param(dict(how=("grab",), fixed={0: "3R7777777"}, kitty="", prefix=[],
                      mode=L_WINS, winner="landlord",
                      missiles=[0, 0, 0, 0], scores=[27, -9, -9, -9], opts={}), id="G17-never-whole"),
    pytest.param(dict(how=("grab",), fixed={0: "3R555555566666667777777"}, kitty="",
                      prefix=[(0, "PLAY 5555555")] + _passes(1, 2, 3) + [(0, "PLAY 6666666")] + _passes(1, 2, 3)
                      + [(0, "PLAY 7777777")] + _passes(1, 2, 3), mode=L_WINS, winner="landlord",
                      # the contract leaves open whether result.missiles lists the units played (3) or
                      # the units counted (1) under this option; the vector's claim is the score
                      missiles=None, scores=[36, -12, -12, -12],
                      opts={"bengbu_missiles_once_per_player": True}), id="G18"),
    pytest.param(dict(how=("bid", 1, "CLOSED"), fixed={0: "3RKKKKKK"}, kitty="KK",
                      prefix=[(0, "PLAY KKKKKKKK")] + _passes(1, 2, 3), mode=L_WINS, winner="landlord",
                      missiles=[1, 0, 0, 0], scores=[6, -2, -2, -2], opts={}), id="G19"),
    pytest.param(dict(how=("bid", 1, "CLOSED"), fixed={0: "3BBR"}, kitty="R",
                      prefix=[(0, "PLAY BBRR")] + _passes(1, 2, 3), mode=L_WINS, winner="landlord",
                      missiles=[1, 0, 0, 0], scores=[6, -2, -2, -2], opts={}), id="G19-joker-bomb"),
]


@pytest.mark.parametrize("v", G_MISSILES)
def test_bengbu_missiles_6_9(v):
    """RULES.md §6.9 G8-G19 / §2.3.7, §2.3.9-A (A39, A40): missile units played whole shift each
    landlord-farmer transfer by one base; the losing side never receives (clamp); split or unplayed
    7-of-a-kinds do not count; a 天炸 / 天尊 completed with kitty cards is no deal-time special
    hand but a missile when played whole. Farmer 1 = the farmer after the landlord."""
    for p0 in (0, 1, 3):
        g = new_game("bengbu", p0, fixed=v["fixed"], kitty=v["kitty"], opts=v["opts"], seed=41)
        assert g.phase == "BID" and not g.is_over  # no special hand at the deal (G19)
        apply_script(g, p0, 4, bengbu_bidding(p0, v["how"]))
        L = seat(p0, 0, 4)
        assert g.phase == "PLAY" and g.landlord == L
        apply_script(g, p0, 4, v["prefix"])
        autoplay(g, 4, "bengbu", **v["mode"])
        r = g.result
        assert r.kind == "normal" and r.winner_side == v["winner"] and r.landlord == L
        if v["missiles"] is not None:
            assert [r.missiles[seat(p0, k, 4)] for k in range(4)] == v["missiles"]
        else:
            assert [g.play_state.missiles(seat(p0, k, 4)) for k in range(4)] == [3, 0, 0, 0]
        assert scores_by_k(g, p0, 4) == v["scores"]
        assert sum(r.scores) == 0
        if v["how"][0] == "grab":
            check_factors(r.factors, {"base": 3, "open": True})
        else:
            check_factors(r.factors, {"base": v["how"][1], "open": v["how"][2] == "OPEN"})


G_SPECIAL = [
    # holders {k: ranks} -> expected scores by k, special_holders by k, options
    pytest.param({0: "33333333"}, [90, -30, -30, -30], {0: ["天炸"]}, {}, id="G20"),
    pytest.param({0: "33333333", 1: "44444444"}, [60, 60, -60, -60], {0: ["天炸"], 1: ["天炸"]}, {}, id="G21"),
    pytest.param({0: "BBRR"}, [18, -6, -6, -6], {0: ["天尊"]}, {}, id="G22"),
    pytest.param({0: "BBRR", 1: "44444444"}, [12, 60, -36, -36], {0: ["天尊"], 1: ["天炸"]}, {}, id="G23"),
    pytest.param({0: "BBRR33333333"}, [108, -36, -36, -36], {0: ["天炸", "天尊"]}, {}, id="G24"),
    pytest.param({0: "3333333344444444"}, [90, -30, -30, -30], {0: ["天炸"]}, {}, id="G25"),
    pytest.param({0: "3333333344444444"}, [180, -60, -60, -60], {0: ["天炸"]},
                 {"bengbu_special_per_instance": True}, id="G25-per-instance"),
]


@pytest.mark.parametrize("holders, expected, holder_kinds, opts", G_SPECIAL)
def test_bengbu_special_hands_6_9(holders, expected, holder_kinds, opts):
    """RULES.md §6.9 G20-G25 / §2.3.2, §2.3.9-C (A42, A43): the hand ends at the deal; each
    non-holder pays each 天炸 holder 30 and the 天尊 holder 6; holders never pay each other; per
    holder, not per instance (unless bengbu_special_per_instance)."""
    for p0 in (0, 2):
        g = new_game("bengbu", p0, fixed=holders, opts=dict(opts, bengbu_point_value=300), seed=51,
                     allow_special=True)
        assert g.is_over and g.phase == "OVER" and g.current_seat is None
        assert g.legal_actions() == []
        assert g.landlord is None
        assert not any(t.startswith(("BID", "GRAB", "NO_CALL", "PLAY")) for _, t in g.history)
        r = g.result
        assert r.kind == "special" and r.winner_side is None and r.landlord is None
        assert [r.scores[seat(p0, k, 4)] for k in range(4)] == expected
        assert list(r.money) == [300 * s for s in r.scores]
        # the holders and their kinds (one 天炸 entry or one per rank is a representation choice)
        assert {s: set(kinds) for s, kinds in r.special_holders.items()} == \
            {seat(p0, k, 4): set(kinds) for k, kinds in holder_kinds.items()}
        assert sum(r.scores) == 0


# =====================================================================================
# §6.10 BENGBU4 bidding and bomb limits
# =====================================================================================

L_VECTORS = [
    # id, [(k, token)], landlord k, base, open (True / "choice"), limits by k (None = ∞; landlord None)
    ("L1", [(0, "NO_CALL"), (1, "NO_CALL"), (2, "BID1"), (3, "NO_CALL")], 2, 1, "choice", [1, 1, INF, 2]),
    ("L2", [(0, "BID1"), (1, "BID2"), (2, "BID3"), (3, "GRAB")], 3, 3, True, [2, 2, INF, INF]),
    ("L3", [(0, "BID3"), (1, "NO_CALL"), (2, "NO_CALL"), (3, "NO_CALL")], 0, 3, "choice", [INF, INF, INF, INF]),
    ("L4", [(0, "GRAB")], 0, 3, True, [INF, INF, INF, INF]),
    ("L5", [(0, "NO_CALL"), (1, "BID2"), (2, "GRAB")], 2, 3, True, [1, 2, INF, INF]),
    ("L6", [(0, "BID1"), (1, "NO_CALL"), (2, "NO_CALL"), (3, "NO_CALL")], 0, 1, "choice", [INF, 2, 2, 2]),
    ("L8", [(0, "NO_CALL"), (1, "BID1"), (2, "BID3"), (3, "NO_CALL")], 2, 3, "choice", [1, 2, INF, INF]),
]


def _bengbu_legal(h):
    return sorted(["NO_CALL", "GRAB"] + [f"BID{v}" for v in (1, 2, 3) if v > h])


@pytest.mark.parametrize("choice", ["OPEN", "CLOSED"])
@pytest.mark.parametrize("vid, script, landlord_k, base, is_open, limits", L_VECTORS, ids=[v[0] for v in L_VECTORS])
def test_bengbu_bidding_and_limits_6_10(vid, script, landlord_k, base, is_open, limits, choice):
    """RULES.md §6.10 L1-L8 / §2.3.4, §2.3.6 (A31, A38): landlord, base, open, bomb limits."""
    for p0 in (0, 1, 2, 3):
        g = new_game("bengbu", p0, seed=61)
        h = 0
        for k, token in script:
            assert g.phase == "BID"
            assert sorted(g.legal_actions()) == _bengbu_legal(h)
            act(g, seat(p0, k, 4), token)
            if token.startswith("BID"):
                h = int(token[3])
        L = seat(p0, landlord_k, 4)
        assert g.landlord == L
        assert len(g.cards(L)) == 33  # the landlord takes all 8 kitty cards
        for s in range(4):  # the 8 kitty cards are shown to everyone once taken (A32)
            seen = g.observation(s)["kitty"]
            assert seen is not None and len(seen) == 8
            assert ddz.Cards("".join(c[0] for c in seen), decks=2) == g.kitty
        if is_open == "choice":
            assert g.phase == "OPEN_CHOICE" and g.current_seat == L
            assert sorted(g.legal_actions()) == ["CLOSED", "OPEN"]
            act(g, L, choice)
            want_open = choice == "OPEN"
        else:  # a grab is always open, there is no OPEN_CHOICE (§2.3.4)
            want_open = True
        assert g.phase == "PLAY" and g.current_seat == L
        check_factors(g.factors, {"base": base, "open": want_open})
        expect = [None] * 4
        for k in range(4):
            expect[seat(p0, k, 4)] = None if k == landlord_k else limits[k]
        assert list(g.play_state.bomb_limits) == expect
        shown = g.observation(seat(p0, landlord_k + 1, 4))["shown"]
        assert (L in shown) == want_open
        autoplay(g, 4, "bengbu")
        r = g.result
        assert list(r.bomb_limits) == expect
        check_factors(r.factors, {"base": base, "open": want_open})
        assert r.unit == base


def test_bengbu_all_pass_redeals_6_10_L7():
    """L7 (§2.3.4, A7, A30): four NO_CALL -> REDEAL with a new random P0."""
    new_p0 = Counter()
    for s in range(40):
        p0 = s % 4
        g = new_game("bengbu", p0, seed=700 + s)
        for k in range(4):
            act(g, seat(p0, k, 4), "NO_CALL")
        assert (None, "REDEAL") in g.history and g.redeals == 1 and g.deal_number == 1
        if g.is_over:  # the re-deal may itself hold a special hand (§2.3.2 checked again)
            assert g.result.kind == "special"
            continue
        assert g.phase == "BID" and g.landlord is None and g.current_seat == g.first_bidder
        assert sorted(g.legal_actions()) == _bengbu_legal(0)
        new_p0[g.first_bidder] += 1
    assert len(new_p0) == 4, dict(new_p0)


def test_bengbu_legal_after_bid2_6_10_L9():
    """L9: after P0 BID2, P1 may NO_CALL, BID3 or GRAB."""
    for p0 in range(4):
        g = new_game("bengbu", p0, seed=9)
        act(g, seat(p0, 0, 4), "BID2")
        assert g.current_seat == seat(p0, 1, 4)
        assert sorted(g.legal_actions()) == ["BID3", "GRAB", "NO_CALL"]


def _bomb_actions(g):
    return [a for a in g.legal_actions() if a.startswith("PLAY ") and is_bomb_ranks(a[5:], "bengbu")]


def test_bengbu_limit_one_6_10_L10():
    """L10 (A38): a limit-1 farmer (P0 after L1's bidding) has played one bomb; 99999 is then
    illegal, while 999 and 99 (splitting bomb cards) stay legal."""
    for p0 in range(4):
        g = new_game("bengbu", p0, fixed={2: "3R", 0: "444499999"}, seed=10)
        apply_script(g, p0, 4, [(0, "NO_CALL"), (1, "NO_CALL"), (2, "BID1"), (3, "NO_CALL"), (2, "CLOSED")])
        assert g.play_state.bomb_limits[seat(p0, 0, 4)] == 1
        apply_script(g, p0, 4, [(2, "PLAY 3"), (3, "PASS"), (0, "PLAY 4444")] + _passes(1, 2, 3))
        assert g.current_seat == seat(p0, 0, 4) and "PASS" not in g.legal_actions()  # P0 leads
        assert _bomb_actions(g) == []
        legal = g.legal_actions()
        assert "PLAY 999" in legal and "PLAY 99" in legal and "PLAY 99999" not in legal
        before = (g.to_json(), g.phase, g.current_seat, legal)
        with pytest.raises(ValueError):
            g.apply("PLAY 99999")
        assert (g.to_json(), g.phase, g.current_seat, g.legal_actions()) == before
        g.apply("PLAY 999")
        assert g.history[-1][0] == seat(p0, 0, 4) and g.history[-1][1].startswith("PLAY ")
        assert "".join(sorted(c[0] for c in g.history[-1][1][5:].split())) == "999"


def test_bengbu_limit_two_6_10_L11():
    """L11 (A38): a limit-2 farmer (P1 after L6's bidding) has played 8888 and 99999; any third bomb
    play (JJJJ) is illegal; JJJ stays legal."""
    for p0 in range(4):
        g = new_game("bengbu", p0, fixed={0: "3R", 1: "888899999JJJJ"}, seed=11)
        apply_script(g, p0, 4, [(0, "BID1"), (1, "NO_CALL"), (2, "NO_CALL"), (3, "NO_CALL"), (0, "CLOSED")])
        assert g.play_state.bomb_limits[seat(p0, 1, 4)] == 2
        apply_script(g, p0, 4, [(0, "PLAY 3"), (1, "PLAY 8888")] + _passes(2, 3, 0)
                     + [(1, "PLAY 99999")] + _passes(2, 3, 0))
        assert g.current_seat == seat(p0, 1, 4) and "PASS" not in g.legal_actions()
        assert _bomb_actions(g) == []
        assert "PLAY JJJ" in g.legal_actions() and "PLAY JJJJ" not in g.legal_actions()
        before = (g.to_json(), g.phase, g.current_seat, g.legal_actions())
        with pytest.raises(ValueError):
            g.apply("PLAY JJJJ")
        assert (g.to_json(), g.phase, g.current_seat, g.legal_actions()) == before
        g.apply("PLAY JJJ")
