"""One seeded dealer (issue #10 item 3; docs/rules.md §1): ddz.Game, ddz.deal and
ddz.simulate deal the same cards for the same seed and game index, and the physical hands
of a Game live once, in the core (item 4)."""
import random

import pytest

import ddz
from ddz import _core
from ddz.core.cards import RANKS, card_rank, parse_card_names, ranks_of
from ddz.variants import VARIANT, VARIANTS


def _deal_of(g: ddz.Game, k: int):
    return g._deals[k]


@pytest.mark.parametrize("name", VARIANTS)
def test_game_deals_what_ddz_deal_deals(name):
    rules = ddz.Rules(name)
    lay = VARIANT[name]
    for seed in range(30):
        g = ddz.Game(rules, seed)
        d = _deal_of(g, 0)
        hands, first = ddz.deal(rules, seed, 0)
        assert d["first_bidder"] == first
        for s in range(lay.players):
            extra = d["kitty"] if s == first else []
            assert ranks_of(d["hands"][s] + extra) == str(hands[s])
        ids = sorted(c for h in d["hands"] for c in h) + d["kitty"] + d["aside"]
        assert sorted(ids) == list(range(54 * lay.decks))


def test_each_redeal_is_the_next_game_of_the_series():
    rules = ddz.Rules.classic()
    for seed in range(200):
        g = ddz.Game(rules, seed)
        for _ in range(3):  # three NO_CALLs re-deal (docs/rules.md §6)
            g.apply("NO_CALL")
        if g.redeals == 1:
            d = _deal_of(g, 1)
            hands, first = ddz.deal(rules, seed, 1)
            assert d["first_bidder"] == first
            assert ranks_of(d["hands"][first] + d["kitty"]) == str(hands[first])
            return
    pytest.fail("no re-deal in 200 seeds")


def test_simulate_plays_the_deals_of_ddz_deal():
    """simulate's landlord per game is ddz.deal's first seat (the same dealer)."""
    rules = ddz.Rules.classic()
    res = ddz.simulate(rules, games=50, seed=11)
    assert [ddz.deal(rules, 11, i)[1] for i in range(50)] == list(res.landlord)


def test_the_shuffle_is_uniform_enough():
    """Chi-square over where the big joker lands (54 positions, 5,400 deals)."""
    rules = ddz.Rules.classic()
    counts = [0] * 54
    for game in range(5400):
        order, _, _ = _core.deal_order(rules, 99, game)
        counts[order.index(53)] += 1
    chi2 = sum((c - 100) ** 2 / 100 for c in counts)
    assert chi2 < 100  # 53 degrees of freedom: p < 1e-4 above ~95


def test_game_keeps_no_shadow_of_the_hands():
    g = ddz.Game(ddz.Rules.classic(), 5)
    assert not any(k in vars(g) for k in ("_held", "_kitty", "_aside"))


@pytest.mark.parametrize("name", VARIANTS)
def test_physical_and_rank_hands_agree_through_random_hands(name):
    """After every action the core's physical hands read as the PlayState's rank hands, and
    every played card left exactly the hand that played it."""
    rng = random.Random(name)
    for seed in range(25):
        g = ddz.Game(ddz.Rules(name), seed)
        while not g.is_over:
            acts = g.legal_actions()
            if g.phase == "PLAY":
                seat = g.current_seat
                before = set(g._hands.ids(seat))
                token = g.apply(rng.choice(acts))
                if token != "PASS":
                    played = set(parse_card_names(token[5:], g.rules.decks))
                    assert played <= before and set(g._hands.ids(seat)) == before - played
                ps = g.play_state
                for s in range(g.num_players):
                    assert g.hand(s) == ps.hand(s)
            else:
                g.apply(rng.choice(acts))


def test_physical_hands_reject_bad_deals():
    r = ddz.Rules.classic()
    hands = [list(range(0, 17)), list(range(17, 34)), list(range(34, 51))]
    _core.PhysicalHands(r, hands, [51, 52, 53], [])
    with pytest.raises(ddz.CardError, match="dealt twice"):
        _core.PhysicalHands(r, [hands[0], hands[0], hands[2]], [51, 52, 53], [])
    with pytest.raises(ddz.ArgumentError, match="must hold 17 cards"):
        _core.PhysicalHands(r, [hands[0][:16], hands[1], hands[2]], [51, 52, 53], [])
    with pytest.raises(ddz.CardError, match="not in 0..53"):
        _core.PhysicalHands(r, hands, [51, 52, 54], [])


def test_two_decks_a_play_by_ranks_takes_the_first_decks_copies_first():
    r = ddz.Rules.bengbu()
    hands, first, _ = _core.PhysicalHands.deal(r, 4, 0)
    ps = ddz.PlayState([hands.cards(s) for s in range(4)], 0, r)
    seat = ps.current_seat
    ids = hands.ids(seat)
    rank = next(v for v in range(13) if sum(1 for c in ids if card_rank(c) == v) >= 2)
    mine = sorted(c for c in ids if card_rank(c) == rank)
    token = hands.play(ps, "PLAY " + RANKS[rank] * 2)
    assert token == "PLAY " + " ".join(ddz.card_name(c, 2) for c in mine[:2])
    assert hands.ids(seat) == [c for c in ids if c not in mine[:2]]
    assert ps.num_actions == 1


def test_play_errors_leave_hands_and_state_unchanged():
    g = ddz.Game(ddz.Rules.classic(), 1, hands=["33344456789TJQKA2", "3456789TJQKA2BR55", "66778899TTJJQQKKA"],
                 kitty="A22", first_bidder=0)
    g.apply("CALL")
    while g.phase != "PLAY":
        g.apply(g.legal_actions()[-1])
    seat = g.current_seat
    before = (g._hands.ids(seat), g.history, str(g.play_state.hand(seat)))
    for bad, code in (("PLAY BR", ddz.IllegalCode.NOT_HELD), ("PLAY 3d 3d", ddz.IllegalCode.MALFORMED),
                      ("PLAY 34", ddz.IllegalCode.NOT_A_COMBINATION), ("PASS", ddz.IllegalCode.LEAD_PASS),
                      ("CALL", ddz.IllegalCode.WRONG_PHASE), ([999], ddz.IllegalCode.MALFORMED),
                      (3.5, ddz.IllegalCode.MALFORMED), ("PLAY ", ddz.IllegalCode.MALFORMED)):
        e = g.check(bad)
        assert e is not None and e.code == code, bad
        with pytest.raises(ddz.IllegalAction) as info:
            g.apply(bad)
        assert info.value.code == code
        assert (g._hands.ids(seat), g.history, str(g.play_state.hand(seat))) == before
    assert isinstance(g.check(3.5), TypeError)
    token = g.apply("PLAY 333")
    assert token == "PLAY 3s 3h 3c"  # the lowest ids of the rank: suits s, h, c before d



def test_physical_play_records_into_a_history_list():
    """PhysicalHands.play(ps, action, history) appends (seat, token) once the play is made;
    an illegal play or a history that is no list appends nothing and changes nothing."""
    rules = ddz.Rules.classic()
    hands, seat, _ = _core.PhysicalHands.deal(rules, 5, 0)
    hands.take_kitty(seat)
    ps = hands.start_play(seat)
    history = []
    with pytest.raises(ddz.IllegalAction):
        hands.play(ps, "PASS", history)  # a lead may not pass
    with pytest.raises(TypeError):
        hands.play(ps, ps.legal_actions()[0], ())
    assert history == [] and ps.num_actions == 0 and hands.count(seat) == 20
    token = hands.play(ps, ps.legal_actions()[0], history)
    assert history == [(seat, token)] and ps.num_actions == 1 and hands.count(seat) < 20
    token2 = hands.play(ps, rules.pass_id, history)
    assert token2 == "PASS" and history[-1] == ((seat + 1) % 3, "PASS")
