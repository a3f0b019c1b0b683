"""Duplicate-deal evaluation (ddz.evaluate) over whole hands, bidding included (RULES.md
§2.1–§2.3, scores of §2.1.9, §2.2.8, §2.3.9), two agents head to head (ddz.head_to_head) and Python policies in ddz.simulate."""
from __future__ import annotations

import itertools
import json
import math
import random

import numpy as np
import pytest

import ddz
from ddz.search.evaluate import Estimate, HeadToHeadResult, deal_seed, seat_assignments
from ddz.search.simulate import _COLUMNS

FACTORY = {"classic": ddz.Rules.classic, "two_player": ddz.Rules.two_player, "bengbu": ddz.Rules.bengbu}


def rulebots(n):
    return [ddz.bots.RuleBot() for _ in range(n)]


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_each_deal_is_played_once_per_rotation(variant):
    """With the same deterministic bot in every seat each rotation is the same hand, so
    agent i's score in rotation r is seat (i + r)'s score of rotation 0: the deal is the
    same in every rotation and the agents move round the seats."""
    rules = FACTORY[variant]()
    n = rules.players
    res = ddz.evaluate(rulebots(n), rules, games=4, seed=11)
    assert res.scores.shape == res.role.shape == res.won.shape == (4, n, n)
    for r in range(n):
        for i in range(n):
            np.testing.assert_array_equal(res.scores[:, r, i], res.scores[:, 0, (i + r) % n])
            np.testing.assert_array_equal(res.role[:, r, i], res.role[:, 0, (i + r) % n])


def test_every_agent_plays_every_seat_of_every_deal():
    seen = []

    class Recorder(ddz.bots.RuleBot):
        def __init__(self, tag):
            super().__init__()
            self.tag = tag

        def act(self, game, seat):
            deal = json.dumps(json.loads(game.to_json())["deals"][0], sort_keys=True)
            seen.append((game.seed, self.tag, seat, deal))
            return super().act(game, seat)

    ddz.evaluate([Recorder(0), Recorder(1), Recorder(2)], ddz.Rules.classic(), games=3, seed=4)
    seats, deals = {}, {}
    for seed, tag, seat, deal in seen:
        seats.setdefault(seed, set()).add((tag, seat))
        deals.setdefault(seed, set()).add(deal)
    assert len(seats) == 3  # one Game seed per deal, whatever the rotation
    for pairs in seats.values():
        assert pairs == {(tag, seat) for tag in range(3) for seat in range(3)}
    assert all(len(d) == 1 for d in deals.values())  # the same cards in every rotation


def test_statistics_are_those_of_the_arrays():
    rules = ddz.Rules.classic()
    res = ddz.evaluate([ddz.bots.RuleBot(), ddz.bots.RandomBot(), ddz.bots.RandomBot()], rules, games=12, seed=3)
    assert res.names == ("RuleBot", "RandomBot", "RandomBot#2")
    np.testing.assert_array_equal(res.scores.sum(axis=2), 0)  # §2.1.9: CLASSIC3 scores are zero-sum
    for i, a in enumerate(res.agents):
        for k, role in enumerate(("landlord", "farmer")):
            mask = res.role[:, :, i] == k
            s = getattr(a, role)
            assert s.hands == int(mask.sum()) and s.wins == int(res.won[:, :, i][mask].sum())
            assert s.mean_score == pytest.approx(res.scores[:, :, i][mask].mean())
        assert a.landlord.hands + a.farmer.hands == a.overall.hands == 36
        per_deal = res.scores[:, :, i].mean(axis=1)
        half = 1.959963984540054 * per_deal.std(ddof=1) / math.sqrt(12)
        assert a.overall.mean_score_ci == pytest.approx((per_deal.mean() - half, per_deal.mean() + half))
    assert res["RuleBot"] is not None and "landlord" in res.table()


def test_wilson_interval():
    from ddz.search.evaluate import _wilson
    lo, hi = _wilson(5, 10)  # the textbook value for 5 of 10
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert _wilson(0, 20)[0] == 0.0 and _wilson(20, 20)[1] == 1.0


def test_deterministic_and_split_deals_join_exactly():
    rules = ddz.Rules.two_player()
    agents = [ddz.bots.RuleBot(), ddz.bots.RandomBot(seed=9)]
    whole = ddz.evaluate(agents, rules, games=6, seed=8)
    again = ddz.evaluate(agents, rules, games=6, seed=8)
    a = ddz.evaluate(agents, rules, games=2, seed=8)
    b = ddz.evaluate(agents, rules, games=4, seed=8, first_deal=2)
    for field in ("scores", "role", "won"):
        np.testing.assert_array_equal(getattr(whole, field), getattr(again, field))
        np.testing.assert_array_equal(getattr(whole, field), np.concatenate([getattr(a, field), getattr(b, field)]))
    assert repr(whole.agents) == repr(again.agents)


def test_callable_agents_get_the_observation_and_legal_ids():
    rules = ddz.Rules.bengbu()
    calls = []

    def first_id(obs):
        assert set(obs["legal_action_ids"]) <= set(range(rules.num_actions))
        assert [rules.action_token(i) for i in obs["legal_action_ids"]] == obs["legal_actions"]
        assert "samples" not in obs
        for s, cards in obs["shown"].items():  # nothing of a hidden seat but what is shown
            assert s != obs["seat"]
        calls.append(obs["seat"])
        return obs["legal_action_ids"][-1]

    res = ddz.evaluate([first_id] + rulebots(3), rules, games=2, seed=5)
    assert calls and res.names[0] == "first_id"
    assert set(calls) == {0, 1, 2, 3}


def test_agents_that_want_samples_get_consistent_worlds():
    """ddz.sample_deals worlds for agents that ask (wants_samples): own hand fixed, the
    cards left per seat as observed."""
    rules = ddz.Rules.classic()
    got = []

    class Sampler:
        wants_samples = 5

        def __call__(self, obs):
            if obs["phase"] == "PLAY":
                w = obs["samples"]
                assert w.shape == (5, 3) and w.dtype == np.uint64
                seat = obs["seat"]
                assert all(ddz.Cards.from_word(int(x)) == ddz.Cards(obs["hand"]) for x in w[:, seat])
                assert all(len(ddz.Cards.from_word(int(x))) == obs["cards_left"][s]
                           for row in w for s, x in enumerate(row))
                got.append(w)
            else:
                assert "samples" not in obs
            return obs["legal_action_ids"][0]

    ddz.evaluate([Sampler(), ddz.bots.RuleBot(), ddz.bots.RuleBot()], rules, games=1, seed=2)
    assert got


def test_injected_deals_are_played():
    rules = ddz.Rules.classic()
    deck = list("3456789TJQKA2" * 4 + "BR")
    random.Random(1).shuffle(deck)
    hands = ["".join(deck[0:17]), "".join(deck[17:34]), "".join(deck[34:51])]
    deal = {"hands": hands, "kitty": "".join(deck[51:]), "first_bidder": 2}
    firsts = []

    class Spy(ddz.bots.RuleBot):
        def act(self, game, seat):
            if not game.history:
                firsts.append((seat, str(game.hand(seat))))
            return super().act(game, seat)

    ddz.evaluate([Spy(), Spy(), Spy()], rules, games=1, seed=0, deals=[deal])
    assert {s for s, _ in firsts} == {2}  # the first bidder of the deal acts first in every rotation
    assert {h for _, h in firsts} == {str(ddz.Cards(hands[2]))}


def test_special_deals_count_without_roles():
    """§2.3.2: a 天炸/天尊 deal ends at construction; it has scores but no roles."""
    rules = ddz.Rules.bengbu()
    seed = next(s for s in range(5000) if ddz.Game(rules, deal_seed(0, s)).is_over)
    res = ddz.evaluate(rulebots(4), rules, games=1, seed=0, first_deal=seed)
    assert (res.role == -1).all() and not res.won.any() and res.scores.any()


def test_bad_arguments():
    rules = ddz.Rules.classic()
    with pytest.raises(ddz.ArgumentError, match="3 agents"):
        ddz.evaluate(rulebots(2), rules, games=1)
    with pytest.raises(ddz.ArgumentTypeError, match="agent 1"):
        ddz.evaluate([ddz.bots.RuleBot(), 5, ddz.bots.RuleBot()], rules, games=1)
    with pytest.raises(ddz.ArgumentError, match="backend"):
        ddz.evaluate(rulebots(3), rules, games=1, backend="spark")
    with pytest.raises(ddz.ArgumentTypeError, match="games"):
        ddz.evaluate(rulebots(3), rules, games=1.5)
    with pytest.raises(ddz.ArgumentError, match="deals"):
        ddz.evaluate(rulebots(3), rules, games=2, deals=[{}])
    with pytest.raises(ddz.ArgumentError, match="more than"):
        ddz.evaluate([lambda obs: "NO_CALL"] * 3, rules, games=1)  # an auction that never ends


# ---- simulate(policy=callable) ----

def test_python_policy_plays_the_core_deals_and_fills_the_columns():
    rules = ddz.Rules.bengbu()

    def lowest(ps):
        return ps.legal_actions()[0]

    res = ddz.simulate(rules, 6, policy=lowest, seed=4, first_game=3)
    core = ddz.simulate(rules, 6, policy="random", seed=4, first_game=3)
    assert res.policy == "lowest" and res.games == 6
    np.testing.assert_array_equal(res.landlord, core.landlord)  # the same deals
    for f in _COLUMNS:
        assert getattr(res, f).dtype == getattr(core, f).dtype and getattr(res, f).shape == (6,)
    for k in range(6):  # replay each game by hand
        hands, landlord = ddz.deal(rules, 4, 3 + k)
        ps = ddz.PlayState(hands, landlord, rules)
        while not ps.is_over:
            ps.apply(ps.legal_actions()[0])
        kinds = [m.kind for _, m in ps.history]
        assert res.actions[k] == len(kinds) and res.plays[k] == sum(not m.is_pass for _, m in ps.history)
        assert res.bombs[k] == sum(m.is_bomb for _, m in ps.history)
        assert res.rockets[k] == kinds.count(ddz.Kind.JOKER_BOMB)
        assert res.winner_side[k] == (0 if ps.winner_side == "landlord" else 1)


def test_python_policy_with_rng_is_reproducible():
    rules = ddz.Rules.classic()

    def uniform(ps, rng):
        legal = ps.legal_actions()
        return legal[int(rng.integers(len(legal)))]

    a = ddz.simulate(rules, 20, policy=uniform, seed=1)
    b = ddz.simulate(rules, 20, policy=uniform, seed=1)
    c = ddz.simulate(rules, 10, policy=uniform, seed=1, first_game=10)
    np.testing.assert_array_equal(a.actions, b.actions)
    np.testing.assert_array_equal(a.actions[10:], c.actions)
    assert 0.1 < a.summary["landlord_win_rate"] < 0.9 or a.games < 30
    with pytest.raises(ddz.IllegalAction):
        ddz.simulate(rules, 1, policy=lambda ps: rules.pass_id)  # PASS at the lead


def test_search_bot_seat_is_reproducible():
    """The built-in SearchBot (a node budget, so no clock decides) plays its seats; each
    hand's copy is reseeded from the hand, so two runs agree exactly."""
    sb = ddz.bots.SearchBot(time_per_move=None, node_limit=3000, worlds=4, rollout_worlds=8)
    rules = ddz.Rules.classic()
    a = ddz.evaluate([sb, ddz.bots.RuleBot(), ddz.bots.RuleBot()], rules, games=2, seed=2)
    b = ddz.evaluate([sb, ddz.bots.RuleBot(), ddz.bots.RuleBot()], rules, games=2, seed=2)
    np.testing.assert_array_equal(a.scores, b.scores)
    assert a.names[0] == "SearchBot" and sb._decisions == 0  # the prototype itself never plays


def test_rlcard_rule_bot_seat_and_agents_that_cannot_be_copied():
    pytest.importorskip("rlcard")
    import threading
    from ddz.peers import RLCardRuleBot

    rules = ddz.Rules.classic_rlcard()
    res = ddz.evaluate([RLCardRuleBot(seed=1), ddz.bots.RuleBot(), ddz.bots.RuleBot()], rules, games=2, seed=1)
    assert res["RLCardRuleBot"].overall.hands == 6

    class Locked(ddz.bots.RuleBot):
        def __init__(self):
            super().__init__()
            self.lock = threading.Lock()

    with pytest.raises(ddz.ArgumentTypeError, match="cannot be copied"):
        ddz.evaluate([Locked(), ddz.bots.RuleBot(), ddz.bots.RuleBot()], rules, games=1)


# ---- head_to_head: two agents under every seat assignment ----

Z95 = 1.959963984540054


def test_seat_assignments_are_every_split_of_the_seats():
    for n, count in ((2, 2), (3, 6), (4, 14)):
        plan = seat_assignments(n)
        assert len(plan) == len(set(plan)) == count == 2**n - 2
        assert {s for s in plan} == {"".join(bits) for bits in itertools.product("AB", repeat=n)} \
            - {"A" * n, "B" * n}
        assert [s.count("A") for s in plan] == sorted(s.count("A") for s in plan)
    assert seat_assignments(3) == ("ABB", "BAB", "BBA", "AAB", "ABA", "BAA")
    assert sum(s.count("A") == 2 for s in seat_assignments(4)) == 6  # BENGBU4 plays 2 + 2 too


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_head_to_head_plays_each_deal_under_every_assignment(variant):
    """Each hand of a deal seats A's and B's copies as its assignment says, on the deal's cards."""
    rules = FACTORY[variant]()
    seen = []

    class Tagged(ddz.bots.RuleBot):
        def __init__(self, tag):
            super().__init__()
            self.tag = tag

        def act(self, game, seat):
            seen.append((game, seat, self.tag))
            return super().act(game, seat)

    res = ddz.head_to_head(Tagged("A"), Tagged("B"), rules, games=3, seed=7)
    assert res.assignments == seat_assignments(rules.players) and res.games == 3 * (2**rules.players - 2)
    assert res.scores.shape == (3, 2**rules.players - 2, rules.players)
    hands = {}
    for game, seat, tag in seen:
        hands.setdefault(id(game), (game, {}))[1].setdefault(seat, set()).add(tag)
    by_deal = {}
    for game, tags in hands.values():
        assert all(len(t) == 1 for t in tags.values())  # one agent per seat
        deal = json.dumps(json.loads(game.to_json())["deals"][0], sort_keys=True)
        by_deal.setdefault(game.seed, []).append((deal, "".join(tags[s].pop() for s in range(rules.players))))
    assert sorted(by_deal) == sorted(deal_seed(7, d) for d in range(3))
    for played in by_deal.values():
        assert len({deal for deal, _ in played}) == 1  # the same cards in every assignment
        assert sorted(s for _, s in played) == sorted(res.assignments)


@pytest.mark.parametrize("variant", ddz.VARIANTS)
@pytest.mark.parametrize("bots", [lambda: (ddz.bots.RuleBot(), ddz.bots.RuleBot()),
                                  lambda: (ddz.bots.RandomBot(seed=1), ddz.bots.RandomBot(seed=2))],
                         ids=["rule", "random"])
def test_equal_agents_are_exactly_at_parity(variant, bots):
    """Equal agents are reseeded by the seat alone, so each assignment of a deal is the same hand:
    the role-balanced WP and the landlord share are exactly 0.5 and the margin exactly 0, interval
    and all, in every variant (TWOP's scores are not zero-sum: its mean score is not 0)."""
    rules = FACTORY[variant]()
    res = ddz.head_to_head(*bots(), rules, games=6, seed=3)
    for g in range(1, len(res.assignments)):  # the same hand under every assignment
        np.testing.assert_array_equal(res.scores[:, g], res.scores[:, 0])
        np.testing.assert_array_equal(res.landlord[:, g], res.landlord[:, 0])
    rb = res.role_balanced_wp
    assert rb.value == 0.5 and rb.roles == ("landlord", "farmers")
    assert rb.ci == pytest.approx((0.5, 0.5), abs=1e-12)
    assert rb.landlord.value == pytest.approx(1 - rb.farmers.value)
    assert rb.landlord_games == rb.farmer_games == 6 - int((res.landlord[:, 0] < 0).sum())
    assert res.score_margin.value == 0.0 and res.score_margin.ci == (0.0, 0.0)
    assert (res.per_deal_margin() == 0).all()
    assert res.landlord_share.value == 0.5
    if (res.landlord[:, 0] >= 0).any():
        assert res.margins().any()  # the margin is 0 over the deal, not hand by hand


def _hand_case():
    """CLASSIC3, three deals by hand (docs: the role of each hand worked out below)."""
    rules = ddz.Rules.classic()
    plan = seat_assignments(3)  # ABB BAB BBA AAB ABA BAA
    landlord = np.array([[0, 0, 0, 0, 0, -1], [1, 1, 2, 2, 0, 0], [0, 2, 1, 2, 1, 0]], dtype=np.int8)
    won = np.array([[1, 1, 0, 0, 1, -1], [0, 1, 1, 0, 1, 0], [0, 0, 1, 1, 0, 1]], dtype=np.int8)
    scores = np.zeros((3, 6, 3))
    scores[0, 3] = [2, -4, 2]   # AAB: A's seats 0, 1 average -1, B's seat 2 has 2: margin -3
    scores[1, 0] = [-2, 4, -2]  # ABB: -2 - (4 - 2) / 2 = -3
    return HeadToHeadResult(rules=rules, deals=3, seed=0, first_deal=0, names=("A", "B"), assignments=plan,
                            scores=scores, landlord=landlord, landlord_won=won)


def test_measures_and_intervals_by_hand():
    """Each deal's counts worked out by hand; the intervals are over the three deals.
    Deal 0: ABB A landlord alone, won; BAB, BBA: B landlord with A among the farmers (mixed);
    AAB, ABA: A landlord with an A farmer (mixed); BAA void.  Deal 1: ABB mixed; BAB, BBA A alone
    landlord, won; AAB, BAA B alone landlord, A's farmers won; ABA mixed.  Deal 2: ABB A alone
    landlord, lost; BAB, BBA mixed; AAB, BAA B alone landlord, A's farmers lost; ABA B alone
    landlord, A's farmers won."""
    res = _hand_case()
    rb = res.role_balanced_wp
    # landlord: wins 1, 2, 0 of 1, 2, 1 hands; farmers: 0, 2, 1 of 0, 2, 3
    assert (rb.landlord_games, rb.landlord_wins, rb.farmer_games, rb.farmer_wins) == (4, 3, 5, 3)
    assert rb.roles == ("landlord", "farmers")
    assert rb.landlord.value == 0.75 and rb.farmers.value == 0.6 and rb.value == pytest.approx(0.675)
    # each deal's deviation: ((y_l - 0.75 n_l) / (4/3) + (y_f - 0.6 n_f) / (5/3)) / 2
    u = [(0.25 / (4 / 3) + 0) / 2, (0.5 / (4 / 3) + 0.8 / (5 / 3)) / 2, (-0.75 / (4 / 3) - 0.8 / (5 / 3)) / 2]
    assert u == pytest.approx([0.09375, 0.4275, -0.52125])
    half = Z95 * math.sqrt(sum(x * x for x in u) / (3 * 2))
    assert rb.ci == pytest.approx((0.675 - half, 0.675 + half))
    ul = [0.25 / (4 / 3), 0.5 / (4 / 3), -0.75 / (4 / 3)]
    half_l = Z95 * math.sqrt(sum(x * x for x in ul) / 6)
    assert rb.landlord.ci == pytest.approx((0.75 - half_l, 0.75 + half_l))
    # landlord share: A holds it in 3 of 5, 3 of 6, 1 of 6 hands
    share = res.landlord_share
    r = 7 / 17
    us = [(a - r * h) / (17 / 3) for a, h in ((3, 5), (3, 6), (1, 6))]
    half_s = Z95 * math.sqrt(sum(x * x for x in us) / 6)
    assert share.value == pytest.approx(r) and share.ci == pytest.approx((r - half_s, r + half_s))
    # seat WP: A's seat-games won, 4, 8 and 3 of 9 (the void hand's two A seats lost)
    seat = res.seat_wp
    per_deal = [4 / 9, 8 / 9, 3 / 9]
    sd = np.std(per_deal, ddof=1)
    assert seat.value == pytest.approx(15 / 27) and seat.ci == pytest.approx(
        (15 / 27 - Z95 * sd / math.sqrt(3), 15 / 27 + Z95 * sd / math.sqrt(3)))
    # margins: every hand 0 but two, -3 each; per deal -3/6, -3/6, 0
    m = res.margins()
    assert m[0, 3] == -3 and m[1, 0] == -3 and np.count_nonzero(m) == 2
    assert res.per_deal_margin().tolist() == [-0.5, -0.5, 0.0]
    sd = np.std([-0.5, -0.5, 0.0], ddof=1)
    assert res.score_margin.value == pytest.approx(-1 / 3)
    assert res.score_margin.ci == pytest.approx((-1 / 3 - Z95 * sd / math.sqrt(3), -1 / 3 + Z95 * sd / math.sqrt(3)))
    s = res.summary()
    assert s["mixed_games"] == 4 + 2 + 2 and s["no_landlord_games"] == 1 and s["role_games"] == {"landlord": 4, "farmers": 5}
    assert s["role_balanced_wp"] == rb.value and s["score_margin_ci"] == list(res.score_margin.ci)


def test_one_role_only_gives_the_win_rate_in_it():
    """A never alone as the landlord against B's farmers: the role-balanced WP is its farmers'."""
    res = _hand_case()
    landlord = res.landlord.copy()
    landlord[1, 1:3] = [0, 0]  # deal 1's BAB, BBA: B landlord, mixed now
    landlord[0, 0] = 1         # deal 0's ABB: B landlord, mixed
    landlord[2, 0] = 1         # deal 2's ABB: B landlord, mixed
    res = HeadToHeadResult(**{**res.__dict__, "landlord": landlord})
    rb = res.role_balanced_wp
    assert rb.roles == ("farmers",) and rb.landlord_games == 0 and math.isnan(rb.landlord.value)
    assert rb.value == rb.farmers.value == 0.6 and rb.ci == rb.farmers.ci
    assert res.summary()["wp_a_landlord"] is None
    assert "n/a in 0 hands" in res.table()


def test_a_better_agent_scores_above_parity_and_the_swap_mirrors_it():
    rules = ddz.Rules.classic()
    res = ddz.head_to_head(ddz.bots.RuleBot(), ddz.bots.RandomBot(), rules, games=12, seed=5)
    rb = res.role_balanced_wp
    assert rb.ci[0] > 0.5 and rb.landlord.value > 0.5 and rb.farmers.value > 0.5
    assert res.score_margin.ci[0] > 0
    # the margin recomputed hand by hand from the seat scores
    per_deal = []
    for d in range(12):
        ms = []
        for g, seats in enumerate(res.assignments):
            a = [res.scores[d, g, s] for s in range(3) if seats[s] == "A"]
            b = [res.scores[d, g, s] for s in range(3) if seats[s] == "B"]
            ms.append(sum(a) / len(a) - sum(b) / len(b))
        per_deal.append(sum(ms) / len(ms))
    mean, sd = np.mean(per_deal), np.std(per_deal, ddof=1)
    assert res.score_margin.value == pytest.approx(mean)
    assert res.score_margin.ci == pytest.approx((mean - Z95 * sd / math.sqrt(12), mean + Z95 * sd / math.sqrt(12)))
    # B against A plays the mirror assignments with the same seat seeds: the same hands, mirrored
    back = ddz.head_to_head(ddz.bots.RandomBot(), ddz.bots.RuleBot(), rules, games=12, seed=5)
    mirror = [res.assignments.index(s.translate(str.maketrans("AB", "BA"))) for s in res.assignments]
    np.testing.assert_array_equal(back.scores, res.scores[:, mirror])
    assert back.role_balanced_wp.value == pytest.approx(1 - rb.value)
    assert back.score_margin.value == pytest.approx(-res.score_margin.value)
    assert back.landlord_share.value == pytest.approx(1 - res.landlord_share.value)
    text = res.table()
    assert all(w in text for w in ("role-balanced WP", "score margin", "landlord share", "seat WP"))
    json.dumps(res.summary(), allow_nan=False)


def test_void_hands_count_only_in_the_margin():
    """Hands voided by max_redeals have no landlord: out of the role-balanced WP and the landlord
    share (nothing left: NaN, None in the summary), lost seat-games, 0 in the margin."""
    rules = ddz.Rules.classic(max_redeals=1)
    res = ddz.head_to_head(lambda obs: "NO_CALL", ddz.bots.RuleBot(), rules, games=0, seed=1)
    assert res.scores.shape == (0, 6, 3) and math.isnan(res.score_margin.value)
    res = ddz.head_to_head(lambda obs: "NO_CALL", lambda obs: "NO_CALL", rules, games=3, seed=1)
    assert (res.landlord == -1).all() and (res.landlord_won == -1).all() and not res.scores.any()
    rb = res.role_balanced_wp
    assert rb.roles == () and math.isnan(rb.value) and math.isnan(res.landlord_share.value)
    assert res.score_margin.value == 0.0 and res.seat_wp.value == 0.0
    s = res.summary()
    assert s["no_landlord_games"] == 18 and s["role_balanced_wp"] is None and s["landlord_share_ci"] == [None, None]
    json.dumps(s, allow_nan=False)


def test_special_deals_count_only_in_the_margin_where_they_cancel():
    """§2.3.2: a BENGBU4 天炸/天尊 deal ends at the deal, the same in every assignment: no roles;
    its scores are the deal's, so A's and B's seats swap between mirror assignments and the
    deal's margin is exactly 0."""
    rules = ddz.Rules.bengbu()
    first = next(s for s in range(5000) if ddz.Game(rules, deal_seed(0, s)).is_over)
    res = ddz.head_to_head(ddz.bots.RuleBot(), ddz.bots.RandomBot(), rules, games=1, seed=0, first_deal=first)
    assert (res.landlord == -1).all() and res.role_balanced_wp.roles == ()
    assert res.margins().any() and res.score_margin.value == 0.0


def test_head_to_head_split_runs_join_and_bad_arguments():
    rules = ddz.Rules.two_player()
    a, b = ddz.bots.RuleBot(), ddz.bots.RandomBot()
    whole = ddz.head_to_head(a, b, rules, games=5, seed=8)
    part = ddz.head_to_head(a, b, rules, games=3, seed=8, first_deal=2)
    np.testing.assert_array_equal(whole.scores[2:], part.scores)
    np.testing.assert_array_equal(whole.landlord[2:], part.landlord)
    with pytest.raises(ddz.ArgumentTypeError, match="agent 1"):
        ddz.head_to_head(a, 5, rules, games=1)
    with pytest.raises(ddz.ArgumentTypeError, match="rules"):
        ddz.head_to_head(a, b, "classic", games=1)
    with pytest.raises(ddz.ArgumentError, match="backend"):
        ddz.head_to_head(a, b, rules, games=1, backend="spark")
    assert isinstance(whole.score_margin, Estimate)
