"""NeuralSearchBot: the model searched over sampled deals. It keeps its counted budget (solver
nodes, rollout deals), decides the same whatever the cards it cannot see, judges bids by their
worth, and beats RandomBot; the shipped CLASSIC3 model is used (numpy only)."""
from __future__ import annotations

import copy

import pytest

import ddz
from ddz.bots import RandomBot, RuleBot
from ddz.learn import NeuralBot, NeuralSearchBot, shipped_model
from ddz.learn.shipped import SHIPPED, shipped_path
from ddz.search.search_bot import _canonical
from ddz.core.errors import ArgumentError

CLASSIC = ddz.Rules.classic()


@pytest.fixture(scope="module")
def model():
    return shipped_model("classic")


def _endgame(seed, left=18):
    """A CLASSIC3 hand played by RuleBot until at most ``left`` cards are in the hands, with a
    choice to make."""
    g = ddz.Game(CLASSIC, seed=seed)
    rb = RuleBot()
    while not g.is_over:
        ps = g.play_state
        if ps is not None and sum(len(h) for h in ps.hands) <= left and len(g.legal_action_ids()) > 1:
            return g
        g.apply(rb.act(g, g.current_seat))
    return None


def test_the_exact_search_keeps_its_node_budget(model):
    """Where the hands are small the solver decides, within node_limit nodes a sampled deal (the
    core counts the visit that finds the budget spent: node_limit + 1 at most); with a budget too
    small for the probe, the rollouts decide, each candidate played out in at most rollout_worlds
    deals (fewer once no other candidate can catch the leader)."""
    exact = rollouts = 0
    for seed in range(40):
        g = _endgame(seed)
        if g is None:
            continue
        seat = g.current_seat
        bot = NeuralSearchBot(model, worlds=8, node_limit=20_000, rollout_worlds=64, topk=3, seed=1)
        a = bot.act(g, seat)
        assert a in g.legal_action_ids()
        if bot.last["how"] == "exact":
            exact += 1
            assert 0 < bot.last["most_nodes"] <= 20_001 and bot.last["nodes"] <= 8 * 20_001
            assert bot.last["worlds"] == 8
        tiny = NeuralSearchBot(model, worlds=8, node_limit=1, rollout_worlds=64, topk=3, seed=1)
        tiny.act(g, seat)
        assert tiny.last["how"] == "rollouts" and tiny.last["probe_nodes"] <= 2
        assert 1 <= tiny.last["rollout_worlds"] <= 64 and 1 <= tiny.last["candidates"] <= 3
        wide = NeuralSearchBot(model, worlds=8, node_limit=1, rollout_worlds=64, topk=0, seed=1)
        wide.act(g, seat)  # topk=0: the rollout policy's candidates, one play of each shape
        assert wide.last["how"] == "rollouts" and wide.last["candidates"] >= tiny.last["candidates"]
        rollouts += 1
    assert exact >= 5 and rollouts >= 10


def test_a_solved_endgame_is_played_to_a_win():
    """An open two-seat endgame (TWOP: nothing hidden once the hands are known to both) where the
    solver finds a forced win: the bot plays a winning first action."""
    rules = ddz.Rules.two_player()
    model = shipped_model("twop")
    found = 0
    for seed in range(60):
        g = ddz.Game(rules, seed=seed)
        rb = RuleBot()
        while not g.is_over and found < 3:
            ps = g.play_state
            if ps is not None and len(g.legal_action_ids()) > 1 and sum(len(h) for h in ps.hands) <= 12:
                sol = ddz.solve(ps.clone(), all_moves=True)
                if sol.win:
                    bot = NeuralSearchBot(model, worlds=16, node_limit=100_000, seed=3)
                    a = bot.act(g, g.current_seat)
                    if bot.last["how"] == "exact" and bot.last["solved"] == 16 and bot.last["wins"]:
                        won = {str(m) for m in sol.moves}
                        token = g.rules.action_token(a)
                        assert token.removeprefix("PLAY ") in won or (token == "PASS" and "PASS" in won) or \
                            ddz.solve(_after(ps, a)).win is False  # the opponent, to move, loses
                        found += 1
                    break
            g.apply(rb.act(g, g.current_seat))
    assert found >= 1


def _after(ps, action_id):
    s = ps.clone()
    s.apply(action_id)
    return s


def _ranks(token):
    """An action token in rank notation (a play's cards without their suits)."""
    return _canonical(token, CLASSIC) if token.startswith("PLAY ") else token


def _swapped_twin(hands, kitty, first_bidder, history, rng):
    """A deal in which seats 1 and 2 have exchanged one card each, of two ranks that no one has
    played by the end of ``history`` and that are not in the kitty, with ``history`` replayed on
    it; None when no such exchange exists. ``Game`` gives the dealt ranks their suits seat by seat
    from seat 0, so seat 0's cards, the kitty and every card played keep their suits: seat 0 sees
    the very same thing in both deals."""
    from collections import Counter
    played = Counter()
    for _, token in history:
        if token.startswith("PLAY "):
            played.update(_ranks(token)[5:])
    hidden = {s: Counter(hands[s]) for s in (1, 2)}
    free = [r for r in "3456789TJQKA2BR" if not played[r] and r not in kitty]
    pairs = [(x, y) for x in free for y in free if x != y and hidden[1][x] and hidden[2][y]]
    if not pairs:
        return None
    x, y = pairs[int(rng.integers(len(pairs)))]
    twin = [hands[0], hands[1].replace(x, y, 1), hands[2].replace(y, x, 1)]
    g = ddz.Game(CLASSIC, seed=1, hands=twin, kitty=kitty, first_bidder=first_bidder)
    for who, token in history:
        g.apply(token, who)
    return g


def test_decisions_ignore_the_hidden_cards(model):
    """The policy never reads a card its seat cannot see: at every decision of seat 0 in several
    hands, a twin deal in which seats 1 and 2 have exchanged cards they still hold (the same
    history replayed: seat 0's observation is the same, physical cards included) gets the same
    action, from the network alone and from the search over it."""
    import numpy as np
    rng = np.random.default_rng(0)
    rb = RuleBot()
    compared = {"NeuralBot": 0, "NeuralSearchBot": 0}
    deals = 0
    for deal in range(30):
        base = ddz.Game(CLASSIC, seed=100 + deal)
        hands = [base.observation(s)["hand"] for s in range(3)]
        first = base.first_bidder
        g = ddz.Game(CLASSIC, seed=1, hands=hands, first_bidder=first)
        while g.phase != "PLAY":
            g.apply(rb.act(g, g.current_seat))
        if any(who is None for who, _ in g.observation(0)["history"]):
            continue  # nobody called: dealt again
        deals += 1
        if deals > 6:
            break
        kitty = _ranks("PLAY " + " ".join(g.observation(0)["kitty"]))[5:]
        g = ddz.Game(CLASSIC, seed=1, hands=hands, kitty=kitty, first_bidder=first)
        while not g.is_over:
            s = g.current_seat
            if s == 0 and len(g.legal_action_ids()) > 1:
                twin = _swapped_twin(hands, kitty, first, g.observation(0)["history"], rng)
                if twin is not None:
                    assert g.observation(0) == twin.observation(0)
                    if g.play_state is not None:
                        assert g.play_state.hands != twin.play_state.hands
                    for bot in (NeuralBot(model), NeuralSearchBot(model, worlds=8, rollout_worlds=100,
                                                                  bid_worlds=64, seed=5)):
                        twin_bot = copy.deepcopy(bot)
                        assert bot.act(g, 0) == twin_bot.act(twin, 0), type(bot).__name__
                        compared[type(bot).__name__] += 1
            g.apply(rb.act(g, s))
    assert min(compared.values()) >= 15, compared


def test_bids_follow_the_hand_s_worth(model):
    """A hand with the rocket and three bombs is worth far more as the landlord than a hand of
    low singles, and the bot calls with the one and not the other."""
    strong = "BR2222AAAAKKKKQQQ"
    weak = "3456789TJ3456789T"
    g = ddz.Game(CLASSIC, seed=2, hands=[strong, weak, _rest(strong, weak)], first_bidder=0)
    bot = NeuralSearchBot(model, bid_worlds=128, seed=1)
    assert g.phase == "CALL" and g.current_seat == 0
    assert bot.landlord_worth(g, 0) > 0.9 > 0.2 > bot.landlord_worth(g, 1)
    assert bot.act(g, 0) == "CALL" and bot.last["how"] == "bid"
    g2 = ddz.Game(CLASSIC, seed=2, hands=[weak, strong, _rest(strong, weak)], first_bidder=0)
    assert bot.act(g2, 0) == "NO_CALL"


def _rest(*hands):
    """17 of the cards the given hands leave (the kitty keeps the other 3)."""
    from collections import Counter
    deck = Counter({r: 4 for r in "3456789TJQKA2"})
    deck.update({"B": 1, "R": 1})
    for h in hands:
        deck.subtract(Counter(h))
    return "".join(r * n for r, n in deck.items())[:17]


def test_the_same_seed_gives_the_same_hand(model):
    bot = NeuralSearchBot(model, worlds=8, rollout_worlds=64, bid_worlds=32)
    res1 = ddz.head_to_head(bot, RuleBot(), CLASSIC, games=1, seed=4)
    res2 = ddz.head_to_head(bot, RuleBot(), CLASSIC, games=1, seed=4)
    assert (res1.scores == res2.scores).all()


def test_it_beats_randombot(model):
    bot = NeuralSearchBot(model, worlds=8, rollout_worlds=100, bid_worlds=32)
    res = ddz.head_to_head(bot, RandomBot(), CLASSIC, games=6, seed=1)
    assert res.role_balanced_wp.value > 0.8 and res.score_margin.ci[0] > 0


def test_arguments_are_checked(model):
    with pytest.raises(ArgumentError):
        NeuralSearchBot(model, worlds=0)
    with pytest.raises(ArgumentError):
        NeuralSearchBot(model, bids="guess")
    with pytest.raises(ArgumentError):
        NeuralSearchBot(model, call_at=1.5)
    with pytest.raises(ArgumentError, match="others"):
        NeuralSearchBot(model, others="search")


@pytest.mark.parametrize("variant", sorted(SHIPPED))
def test_the_other_decisions_may_be_rulebot_s(variant):
    """``others="rule"`` (spec ``nsearch:others=rule``): every decision that is neither a play nor
    a call, bid or rob (TWOP's 明牌开始 and 翻身 / 压迫, CLASSIC3's 明牌, BENGBU4's 明打 / 暗打 and
    grab) is RuleBot's, the calls are still judged by the hand's worth; with the default
    ``others="model"`` they are the model's. Checked at every such decision of seeded hands,
    where the model and RuleBot disagree somewhere (so the test tells the two apart)."""
    from ddz.learn.agents import agent
    from ddz.learn.nsearch import _CALLS
    rules = ddz.Rules.named(variant)
    net = NeuralBot.shipped(variant)
    ruled = agent("nsearch:8:worlds=2:bid_worlds=16:others=rule", rules)
    own = NeuralSearchBot(net.model, worlds=2, rollout_worlds=8, bid_worlds=16)
    assert ruled.others == "rule" and own.others == "model"
    rb = RuleBot()
    seen = {"other": 0, "differ": 0, "judged": 0}
    for seed in range(12):
        g = ddz.Game(rules, seed=seed)
        while not g.is_over and g.phase != "PLAY":
            s = g.current_seat
            token = dict(zip(g.legal_action_ids(), g.legal_actions()))
            token.update({t: t for t in g.legal_actions()})  # a bot's answer, id or token -> token
            if any(t in _CALLS for t in g.legal_actions()):
                ruled.act(g, s)
                assert ruled.last["how"] == "bid"
                seen["judged"] += 1
            else:
                want, model_says = rb.act(g, s), token[net.act(g, s)]
                assert token[ruled.act(g, s)] == want and ruled.last == {}
                assert token[own.act(g, s)] == model_says
                seen["other"] += 1
                seen["differ"] += want != model_says
            g.apply(rb.act(g, s))
    assert min(seen.values()) > 0, seen


@pytest.mark.parametrize("variant", sorted(SHIPPED))
def test_a_whole_hand_model_may_bid_as_rulebot(variant):
    """``NeuralBot(bids="rule")`` and the specs ``neural:bids=rule`` and ``neural:PATH:bids=rule``:
    under every variant with a shipped (whole-hand) model, every auction decision is RuleBot's and
    every play the model's, in every decision of several seeded hands; the model's own bids differ
    from RuleBot's somewhere in them (so the test can tell the two apart)."""
    from ddz.learn.agents import agent
    rules = ddz.Rules.named(variant)
    own = NeuralBot.shipped(variant)
    assert own.model.whole and own.bids == "model"
    bots = [NeuralBot(own.model, bids="rule"), agent("neural:bids=rule", rules),
            agent(f"neural:{shipped_path(variant)}:bids=rule", rules)]
    assert all(b.bids == "rule" for b in bots) and agent("neural", rules).bids == "model"
    rb = RuleBot()
    seen = {"auction": 0, "play": 0, "own bids differ": 0}
    for seed in range(8):
        g = ddz.Game(rules, seed=seed)
        while not g.is_over:
            s = g.current_seat
            token = dict(zip(g.legal_action_ids(), g.legal_actions()))  # an action id or token -> token
            mine = token.get(own.act(g, s), None)
            want = mine if g.phase == "PLAY" else rb.act(g, s)
            got = [token.get(a, a) for a in (b.act(g, s) for b in bots)]
            assert mine is not None and got == [want] * len(bots), (variant, seed, g.phase)
            if g.phase == "PLAY":
                seen["play"] += 1
            else:
                seen["auction"] += 1
                seen["own bids differ"] += mine != want
            g.apply(want)
    assert min(seen.values()) > 0 and seen["auction"] >= 8 and seen["play"] > 50, seen


def test_neuralbot_bids_are_checked(model):
    with pytest.raises(ArgumentError):
        NeuralBot(model, bids="guess")


# The record of each variant's strongest search against SearchBot (benchmarks/results/), whose
# settings NeuralSearchBot.shipped must play.
STRONGEST_RECORDS = {
    "classic": "ablation-cpu/nsearch-oracle-2h-vs-search4000.json",
    "two_player": "nsearch/twop-nsearch-best-vs-search4000-2000.json",
    "bengbu": "nsearch/bengbu-nsearch-oracle-c80-vs-search4000.json",
}
SETTINGS = ("worlds", "node_limit", "rollout_worlds", "topk", "blend", "bids", "others", "bid_worlds", "call_at",
            "rob_at")


@pytest.mark.parametrize("variant", sorted(STRONGEST_RECORDS))
def test_the_shipped_search_plays_the_settings_measured_strongest(variant):
    """``NeuralSearchBot.shipped(variant)``: the shipped model with the settings of the match
    recorded as the variant's strongest search against SearchBot (its spec read by the same
    parser, ``@PATH`` aside: the shipped model's networks are the ones that played), and the
    ``nsearch:strongest`` spec is the same bot; keyword arguments override a setting."""
    import json
    import os
    from ddz.learn.agents import agent
    from ddz.learn.nsearch import STRONGEST, strongest_settings
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks", "results")
    with open(os.path.join(root, STRONGEST_RECORDS[variant]), encoding="utf-8") as f:
        record = json.load(f)
    assert record["b"] == "search:4000" and record["deals"] >= 300
    rules = ddz.Rules.named(variant)
    measured = agent(record["a"].partition("@")[0], rules)
    bot = NeuralSearchBot.shipped(variant)
    assert bot.net.model is shipped_model(variant)
    for k in SETTINGS:
        assert getattr(bot, k) == getattr(measured, k) == getattr(agent("nsearch:strongest", rules), k), k
    assert strongest_settings(rules) == STRONGEST[variant] and strongest_settings(rules) is not STRONGEST[variant]
    assert NeuralSearchBot.shipped(rules, call_at=0.9, seed=3).call_at == 0.9
    assert agent("nsearch:strongest:call_at=0.9", rules).call_at == 0.9


def test_the_shipped_search_needs_a_shipped_model(monkeypatch):
    import ddz.learn.shipped as S
    from ddz.learn import ModelError
    monkeypatch.setattr(S, "SHIPPED", {v: e for v, e in S.SHIPPED.items() if v != "bengbu"})
    S._load.cache_clear()  # the package as if no BENGBU4 model were shipped
    with pytest.raises(ModelError, match="no model is shipped for bengbu"):
        NeuralSearchBot.shipped("bengbu")
