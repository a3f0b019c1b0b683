"""The typed score (issue #10 item 6): one pure scoring function per variant whose result
ddz.settle consumes as it is, and every accepted option has its effect or is rejected
(docs/rules.md §6–§9)."""
import random

import pytest

import ddz
from ddz import Game, Rules, settle
from ddz.rooms import ROOMS, Room
from ddz.hand.scoring import play_multiplier


def _finished(rules, seed, want=lambda r: True, tries=300):
    for s in range(seed, seed + tries):
        g = Game(rules, s)
        rng = random.Random(s)
        while not g.is_over:
            g.apply(rng.choice(g.legal_actions()))
        if want(g.result):
            return g
    pytest.fail("no hand of the kind wanted")


def test_twop_room_coefficient_reaches_settlement():
    """§7 / A28: a coin room pays X·A·N; N is the option the hand was played with."""
    rules = Rules.two_player(twop_room_coefficient=50)
    g = _finished(rules, 0, lambda r: r.kind == "normal")
    with pytest.raises(ValueError, match="twop_room_coefficient=50"):
        settle(g.result, ROOMS["coin_junior"], (10**6, 10**6))          # N = 100 there
    room = Room("n50", "two_player", kind="coin", coefficient=50)
    s = settle(g.result, room, (10**6, 10**6))
    loser = 1 - g.result.winner_seat if g.result.winner_side == "farmers" else 1 - g.result.landlord
    assert s.nominal[loser] == g.result.scores[loser] * 50
    assert settle(g.result, ROOMS["score"], (0, 0)).changes == tuple(g.result.scores)  # no N in score rooms


def test_twop_max_win_factor_reaches_settlement():
    rules = Rules.two_player(twop_max_win_factor=2)
    g = _finished(rules, 0, lambda r: r.kind == "normal")
    with pytest.raises(ValueError, match="twop_max_win_factor=2"):
        settle(g.result, ROOMS["coin_junior"], (100, 100))
    room = Room("m2", "two_player", kind="coin", coefficient=100, max_win_factor=2)
    s = settle(g.result, room, (100, 100))
    winner = g.result.winner_seat if g.result.winner_side == "landlord" else 1 - g.result.landlord
    assert s.gross[winner] == min(s.nominal[winner], 200)


def test_bengbu_point_value_reaches_settlement():
    rules = Rules.bengbu(bengbu_point_value=300)
    g = _finished(rules, 0, lambda r: r.kind == "normal")
    assert g.result.money == [x * 300 for x in g.result.scores]
    with pytest.raises(ValueError, match="bengbu_point_value=300"):
        settle(g.result, ROOMS["bengbu"], (0,) * 4)
    assert list(settle(g.result, ROOMS["bengbu_300"], (0,) * 4).changes) == g.result.money
    plain = _finished(Rules.bengbu(), 0, lambda r: r.kind == "normal")
    with pytest.raises(ValueError, match="bengbu_point_value=1"):
        settle(plain.result, ROOMS["bengbu_300"], (0,) * 4)


@pytest.mark.parametrize("rules", [Rules.two_player(), Rules.bengbu()])
@pytest.mark.parametrize("arg", ["base", "initial_multiplier"])
def test_stakes_of_classic_rooms_are_rejected_elsewhere(rules, arg):
    with pytest.raises(ddz.ArgumentError, match="CLASSIC3's room stakes"):
        Game(rules, 1, **{arg: 5})
    Game(rules, 1, **{arg: 1})  # the default is fine


@pytest.mark.parametrize("name", ["classic", "two_player"])
def test_the_cli_summary_and_the_game_share_the_play_multiplier(name):
    """play_multiplier (used by `ddz selfplay`) gives every finished Game's bomb × spring factor."""
    rules = Rules(name, twop_rocket_doubles=False) if name == "two_player" else Rules(name)
    rng = random.Random(3)
    for seed in range(120):
        g = Game(rules, seed)
        while not g.is_over:
            g.apply(rng.choice(g.legal_actions()))
        if g.result.kind != "normal":
            continue
        ps = g.play_state
        got = play_multiplier(name, rules.options, ps.bombs_total, ps.rockets, ps.spring or ps.anti_spring)
        assert got == g.result.factors["bomb"] * g.result.factors["spring"]


def test_results_carry_their_terms():
    assert _finished(Rules.classic(), 0).result.terms == {"loss_factor": 2}
    t = _finished(Rules.two_player(twop_zero_sum=True), 0, lambda r: r.kind == "normal").result.terms
    assert t["landlord_factor"] == 1 and t["room_coefficient"] == 100
    r = _finished(Rules.two_player(twop_zero_sum=True), 0, lambda r: r.kind == "normal").result
    s = settle(r, ROOMS["score"], (0, 0))
    assert sum(s.changes) == 0  # zero-sum settles without being told


@pytest.mark.parametrize("rules", [Rules.classic(), Rules.two_player(), Rules.bengbu()], ids=lambda r: r.variant)
def test_play_summary_reads_every_field_of_the_play_state(rules):
    """PlaySummary.of (one core call) gives what the play state's own properties say, at every
    step of random hands (the fields scoring reads: winner, spring, bombs by kind, missiles)."""
    from ddz.hand.scoring import PlaySummary
    rng = random.Random(7)
    for seed in range(12):
        hands, landlord = ddz.deal(rules, seed, 0)
        ps = ddz.PlayState(hands, landlord, rules)
        while True:
            s = PlaySummary.of(ps)
            assert s == (ps.winner_side, ps.winner_seat, ps.spring, ps.anti_spring, dict(ps.bombs_by_kind),
                         tuple(ps.missiles(i) for i in range(ps.num_players)), ps.bombs_total)
            if ps.is_over:
                break
            ps.apply(rng.choice(ps.legal_actions()))
