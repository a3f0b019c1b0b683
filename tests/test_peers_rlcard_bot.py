"""``ddz.peers.RLCardRuleBot``: RLCard's rule agent seated at a ddz game under classic_rlcard().

* The raw observation the adapter builds equals the one RLCard's own ``DoudizhuEnv`` gives
  on the same position (the keys the agent reads: trace, current_hand, actions, landlord,
  self), on every decision of hands replayed move by move in RLCard's game from the same
  deal; the answers to a play come in RLCard's own order (the agent takes the first of
  equal rank), and the agent makes the same choice on both.
* The agent's action is legal in ddz on every decision of hundreds of random hands.
* Only ``Rules.classic_rlcard()``; reproducible per seed; NumPy's global generator left
  alone; ``import ddz`` imports no rlcard.
"""
from __future__ import annotations

import functools
import random
import subprocess
import sys

import pytest

pytest.importorskip("rlcard")
np = pytest.importorskip("numpy")

import rlcard  # noqa: E402
from rlcard.games.doudizhu.judger import DoudizhuJudger  # noqa: E402
from rlcard.games.doudizhu.utils import doudizhu_sort_card  # noqa: E402
from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1  # noqa: E402
from rlcard.utils import init_54_deck  # noqa: E402

import ddz  # noqa: E402
from ddz.bots import RandomBot  # noqa: E402
from ddz.peers import RLCardRuleBot, fixed_auction_action  # noqa: E402

RULES = ddz.Rules.classic_rlcard()
READ_KEYS = ("trace", "current_hand", "landlord", "self")


def auctioned(seed: int) -> ddz.Game:
    g = ddz.Game(RULES, seed=seed, first_bidder=seed % 3)
    while g.phase != "PLAY":
        g.apply(fixed_auction_action(g.legal_actions()))
    return g


def rlcard_env_at(hands_by_player):
    """RLCard's DoudizhuEnv at the start of play with the given hands (player 0 the
    landlord, with 20 cards, on lead)."""
    env = rlcard.make("doudizhu", config={"seed": 0})
    env.reset()
    game = env.game
    deck = init_54_deck()
    for pid, hand in enumerate(hands_by_player):
        cards = []
        for ch in hand:
            want = ("BJ", "") if ch == "B" else ("RJ", "") if ch == "R" else None
            i = next(k for k, c in enumerate(deck)
                     if ((c.suit, c.rank) == want if want else c.rank == ch))
            cards.append(deck.pop(i))
        cards.sort(key=functools.cmp_to_key(doudizhu_sort_card))
        game.players[pid].set_current_hand(cards)
    game.judger = DoudizhuJudger(game.players, game.np_random)
    assert game.round.current_player == 0 and game.round.landlord_id == 0
    return env


def test_raw_observation_equals_rlcard_env():
    agent = DouDizhuRuleAgentV1()
    positions = leads = follows = 0
    for seed in range(12):
        g = auctioned(seed)
        ll = g.landlord
        player = {s: (s - ll) % 3 for s in range(3)}
        env = rlcard_env_at([g.observation((ll + p) % 3)["hand"] for p in range(3)])
        adapter = RLCardRuleBot(seed=seed)
        rng = random.Random(seed)
        bots = {s: (RLCardRuleBot(seed=seed * 3 + s) if rng.random() < 0.5 else RandomBot(seed=seed * 3 + s))
                for s in range(3)}
        while not g.is_over:
            s = g.current_seat
            assert env.game.round.current_player == player[s]
            ours = adapter.raw_observation(g, s)
            theirs = env.get_state(player[s])["raw_obs"]
            for k in READ_KEYS:
                assert ours[k] == theirs[k], (seed, k)
            assert set(ours["actions"]) == set(theirs["actions"]), seed
            if "pass" in theirs["actions"]:
                assert ours["actions"] == theirs["actions"], seed   # RLCard's order of answers
                follows += 1
            else:
                leads += 1
            # the same choice from both (with the same generator state for a random follow)
            np.random.seed(positions)
            a = agent.step({"raw_obs": ours})
            np.random.seed(positions)
            assert agent.step({"raw_obs": theirs}) == a
            positions += 1
            token = bots[s].act(g, s)
            g.apply(token)
            env.step("pass" if token == "PASS" else token[5:], raw_action=True)
        assert env.game.is_over() and env.game.winner_id == player[g.history[-1][0]]
    assert positions >= 300 and leads >= 50 and follows >= 100, (positions, leads, follows)


def test_agent_action_always_legal():
    decisions = 0
    for seed in range(300):
        g = auctioned(1000 + seed)
        rng = random.Random(seed)
        agent_seats = set(rng.sample(range(3), rng.randint(1, 3)))
        bots = {s: RLCardRuleBot(seed=seed * 3 + s) if s in agent_seats else RandomBot(seed=seed * 3 + s)
                for s in range(3)}
        while not g.is_over:
            s = g.current_seat
            legal = g.legal_actions()
            token = bots[s].act(g, s)
            assert token in legal
            decisions += s in agent_seats
            g.apply(token)
        assert g.result.winner_side in ("landlord", "farmers")
    assert decisions > 5000


def test_only_under_classic_rlcard():
    for rules in (ddz.Rules.classic(), ddz.Rules.classic_douzero(), ddz.Rules.bengbu()):
        g = ddz.Game(rules, seed=1)
        before = g.observation(g.current_seat)
        with pytest.raises(ddz.ArgumentError, match="classic_rlcard"):
            RLCardRuleBot().act(g, g.current_seat)
        assert g.observation(g.current_seat) == before


def test_auction_is_the_fixed_one_and_play_is_reproducible():
    def run(seed):
        g = ddz.Game(RULES, seed=seed, first_bidder=2)
        bots = [RLCardRuleBot(seed=s) for s in range(3)]
        while not g.is_over:
            g.apply(bots[g.current_seat].act(g, g.current_seat))
        return g

    np.random.seed(123)
    state = np.random.get_state()
    for seed in range(5):
        a, b = run(seed), run(seed)
        assert a.landlord == 2 and a.history == b.history
    after = np.random.get_state()
    assert np.array_equal(state[1], after[1]) and state[2:] == after[2:]   # the global generator untouched
    with pytest.raises(ddz.ArgumentError, match="not at a play decision"):
        RLCardRuleBot().raw_observation(ddz.Game(RULES, seed=0, first_bidder=0), 0)


def test_import_ddz_imports_no_rlcard():
    code = "import sys, ddz, ddz.peers; assert 'rlcard' not in sys.modules, 'rlcard imported'"
    subprocess.run([sys.executable, "-c", code], check=True)
