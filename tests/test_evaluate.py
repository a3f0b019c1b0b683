"""Duplicate-deal evaluation (ddz.evaluate) over whole hands, bidding included (RULES.md
§2.1–§2.3, scores of §2.1.9, §2.2.8, §2.3.9), and Python policies in ddz.simulate."""
from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

import ddz
from ddz.evaluate import deal_seed

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
    from ddz.evaluate import _wilson
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
    for f in ddz._sim._COLUMNS:
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
