"""Whole hands in ``ddz.VectorEnv`` (``auction=True``): every table replayed beside a ``ddz.Game`` of
the seed ``hand_seed(seed, game)`` gives the same legal ids in the same order, the same seat to act
and role, the same observation row (``ddz.encode.compact``), the same scores, landlord and result
kind, and the same final rows (docs/rules.md §6 CLASSIC3, §7 TWOP, §8 BENGBU4; the Game is the
reference). Also: terminal information, hands that end at the deal, lists of ids, bad input."""
from __future__ import annotations

import numpy as np
import pytest

import ddz
from ddz.learn import encode
from ddz.learn.rewards import seat_rewards
from ddz.learn.vector_env import RESULT_KINDS, hand_seed
from ddz.core.variants import VARIANT

# (rules, seed): every variant under its defaults and under the options the core's hands read
CASES = [
    (ddz.Rules.classic(), 1),
    (ddz.Rules.classic(classic_passers_may_rob=True, classic_rob_winner="last", classic_show_timing="after_kitty",
                       classic_kitty_combine="max", classic_rob_cap=4, classic_landlord_loss_factor=1,
                       max_redeals=2), 2),
    (ddz.Rules.classic_douzero(), 3),
    (ddz.Rules.classic_openspiel(), 4),
    (ddz.Rules.two_player(), 5),
    (ddz.Rules.two_player(twop_fanshen_point="before_lead", twop_show_start_stacks=True, twop_zero_sum=True,
                          twop_rocket_doubles=False, twop_initial_multiplier=3, max_redeals=3), 6),
    (ddz.Rules.bengbu(), 7),
    (ddz.Rules.bengbu(bengbu_missiles_once_per_player=True, bengbu_special_per_instance=True, max_redeals=2), 8),
    (ddz.Rules.two_player(twop_initial_multiplier=2.5), 9),  # a fractional stake: float rewards, exact here
]


def _new_games(rules, seed, n, table, k, games):
    """The Game of table ``table``'s hand ``k`` onward: hands that end at the deal are skipped
    (returned with their scores summed), as the environment skips them."""
    skipped, scores = 0, np.zeros(rules.players)
    while True:
        g = ddz.Game(rules, seed=hand_seed(seed, k * n + table))
        if not g.is_over:
            games[table] = g
            return k, skipped, scores
        assert g.result.kind == "special"
        skipped += 1
        scores += g.result.scores
        k += 1


@pytest.mark.parametrize("rules,seed", CASES, ids=[f"{r.variant}-{s}" for r, s in CASES])
def test_whole_hands_equal_game(rules, seed):
    N, steps = 6, 420
    env = ddz.VectorEnv(rules, N, seed=seed)
    st = env.reset()
    # the same tables under the other reward conventions (ddz.learn.rewards)
    others = {name: ddz.VectorEnv(rules, N, seed=seed, reward=name) for name in ("win", "normalized")}
    for e in others.values():
        e.reset()
    games = [None] * N
    hand_no = [0] * N
    for i in range(N):
        hand_no[i], skipped, scores = _new_games(rules, seed, N, i, 0, games)
        assert st.deal_ends[i] == skipped
        np.testing.assert_array_equal(st.deal_scores[i], scores)
    rng = np.random.default_rng(seed)
    seen_phases, ended, kinds = set(), 0, set()
    for _ in range(steps):
        assert list(env.hand_seeds()) == [hand_seed(seed, hand_no[i] * N + i) for i in range(N)]
        pick = np.empty(N, dtype=np.int64)
        for i, g in enumerate(games):
            ids = st.legal_ids[st.legal_offsets[i]:st.legal_offsets[i + 1]].tolist()
            assert ids == g.legal_action_ids(), (i, g.phase)
            assert st.seat[i] == g.current_seat
            assert st.role[i] == (-1 if g.landlord is None else 0 if g.current_seat == g.landlord else 1)
            np.testing.assert_array_equal(st.obs[i], encode.compact(g, g.current_seat), err_msg=f"{i} {g.phase}")
            seen_phases.add(g.phase)
            pick[i] = ids[rng.integers(len(ids))]
        st = env.step(pick)
        other = {name: e.step(pick) for name, e in others.items()}
        term = {int(t): k for k, t in enumerate(st.terminal.tables)}
        for i, g in enumerate(games):
            g.apply(int(pick[i]))
            assert bool(st.done[i]) == g.is_over
            if not g.is_over:
                assert not st.reward[i].any() and i not in term
                assert st.deal_ends[i] == 0
                continue
            ended += 1
            k = term[i]
            res = g.result
            kinds.add(res.kind)
            np.testing.assert_array_equal(st.reward[i], res.scores)
            np.testing.assert_array_equal(st.terminal.scores[k], res.scores)
            assert st.terminal.landlord[k] == (-1 if res.landlord is None else res.landlord)
            assert st.terminal.winner[k] == {"landlord": 0, "farmers": 1, None: -1}[res.winner_side]
            for name, o in other.items():
                np.testing.assert_allclose(o.reward[i], seat_rewards(res, rules.variant, name), rtol=1e-6)
            assert RESULT_KINDS[st.terminal.kind[k]] == res.kind
            for p in range(rules.players):
                np.testing.assert_array_equal(st.terminal.obs[k, p], encode.compact(g, p))
            hand_no[i], skipped, scores = _new_games(rules, seed, N, i, hand_no[i] + 1, games)
            assert st.deal_ends[i] == skipped
            np.testing.assert_array_equal(st.deal_scores[i], scores)
        assert len(term) == int(st.done.sum())
    assert ended >= 10
    want = {"classic": {"CALL", "ROB", "SHOW", "PLAY"}, "two_player": {"PRE_DEAL", "BID", "FANSHEN", "PLAY"},
            "bengbu": {"BID", "OPEN_CHOICE", "PLAY"}}[rules.variant]
    assert want <= seen_phases


def test_every_decision_of_the_spec_row_is_in_the_core_auction():
    """The spec row's tokens are exactly those the core's auction table offers, by variant id."""
    for name in ("classic", "two_player", "bengbu"):
        v = VARIANT[name]
        assert {token for _, token, _ in ddz._core._auction_table(int(v.id))} == set(v.decisions)


def test_special_deals_end_at_the_deal():
    """BENGBU4 天炸/天尊 hands: skipped by the tables, counted in deal_ends with their scores."""
    rules, seed, N = ddz.Rules.bengbu(), 11, 1
    special = [k for k in range(400) if ddz.Game(rules, seed=hand_seed(seed, k)).is_over]
    assert special, "no 天炸/天尊 deal among 400: the search range is too small"
    first = special[0]
    env = ddz.VectorEnv(rules, N, seed=seed)
    st = env.reset()
    # play whole hands by the last legal id (GRAB, CLOSED, the largest play or PASS) until the table
    # reaches the special deal
    for _ in range(20000):
        if env.games()[0] > first:
            break
        st = env.step([int(st.legal_ids[-1])])
        if st.deal_ends[0]:
            break
    assert st.deal_ends[0] >= 1
    expect = np.zeros(4)
    for k in range(int(env.games()[0]) - int(st.deal_ends[0]), int(env.games()[0])):
        g = ddz.Game(rules, seed=hand_seed(seed, k))
        assert g.is_over and g.result.kind == "special"
        expect += g.result.scores
    np.testing.assert_array_equal(st.deal_scores[0], expect)
    assert st.deal_scores[0].sum() == 0


def test_reset_reseeds_and_threads_agree():
    r = ddz.Rules.two_player()
    envs = [ddz.VectorEnv(r, 40, 9, threads=t) for t in (1, 3)]
    states = [e.reset() for e in envs]
    rng = np.random.default_rng(0)
    for _ in range(150):
        off, ids = states[0].legal_offsets, states[0].legal_ids
        pick = ids[off[:-1] + (rng.random(40) * np.diff(off)).astype(np.int64)]
        states = [e.step(pick) for e in envs]
        a, b = states
        for f in ("obs", "legal_offsets", "legal_ids", "reward", "done", "seat", "role", "deal_ends"):
            np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
        np.testing.assert_array_equal(a.terminal.obs, b.terminal.obs)
    again = envs[0].reset(seed=9)
    fresh = ddz.VectorEnv(r, 40, 9).reset()
    np.testing.assert_array_equal(again.obs, fresh.obs)
    assert list(envs[0].games()) == list(range(40))


def test_actions_as_lists_and_errors():
    r = ddz.Rules.classic()
    env = ddz.VectorEnv(r, 2, 1)
    st = env.reset(mask=True)
    assert st.mask.shape == (2, r.num_actions) and env.num_actions == r.num_actions
    assert st.mask[0, r.action_id("CALL")] and not st.mask[0, r.pass_id]
    before = env.hand_seeds().copy()
    with pytest.raises(ddz.IllegalAction, match="WRONG_PHASE|not legal"):
        env.step([r.pass_id, r.action_id("CALL")])           # PASS during the call
    with pytest.raises(ddz.IllegalAction, match="out of range"):
        env.step([r.num_actions, r.action_id("CALL")])
    with pytest.raises(ddz.IllegalAction, match="ROB"):
        env.step([r.action_id("ROB"), r.action_id("CALL")])  # not offered in CALL
    with pytest.raises(ddz.ArgumentTypeError):
        env.step([True, r.action_id("CALL")])
    with pytest.raises(ddz.ArgumentTypeError):
        env.step([12655.0, r.action_id("CALL")])
    with pytest.raises(ddz.ArgumentError):
        env.step([r.action_id("CALL")])                      # one id per table
    np.testing.assert_array_equal(env.hand_seeds(), before)
    st2 = env.step([r.action_id("CALL"), np.int64(r.action_id("NO_CALL"))])
    assert st2.seat.tolist() != st.seat.tolist() or st2.obs.tolist() != st.obs.tolist()
    with pytest.raises(ddz.ArgumentError, match="auction=False"):
        ddz.VectorEnv(r, 1, 0, deals=np.array([[1, 16, 256]], np.uint64), landlords=np.array([0]))
    with pytest.raises(ddz.ArgumentTypeError):
        ddz.VectorEnv(r, 1, 0, auction=1)  # type: ignore[arg-type]
    with pytest.raises(ddz.ArgumentError, match="reward must be one of"):
        ddz.VectorEnv(r, 1, 0, reward="points")
    # every valid Rules is a valid environment (one range for each option: docs/rules.md §11); a
    # fractional TWOP multiplier scales the rewards (CASES plays one against Game)
    for rules in (ddz.Rules.classic(max_redeals=2**31, classic_rob_cap=10**12), ddz.Rules.classic(max_redeals=10**12),
                  ddz.Rules.two_player(twop_initial_multiplier=2.5), ddz.Rules.two_player(twop_initial_multiplier=10**12)):
        ddz.VectorEnv(rules, 1, 0).reset()


def test_play_only_mode_has_terminal_information():
    r = ddz.Rules.classic()
    env = ddz.VectorEnv(r, 8, 3, auction=False)
    st = env.reset()
    assert env.num_actions == r.pass_id + 1 and (st.role >= 0).all()
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(200):
        off, ids = st.legal_offsets, st.legal_ids
        pick = ids[off[:-1] + (rng.random(8) * np.diff(off)).astype(np.int64)]
        prev = st
        st = env.step(pick.tolist())
        for k, t in enumerate(st.terminal.tables):
            ended += 1
            np.testing.assert_array_equal(st.terminal.scores[k], st.reward[t])
            assert RESULT_KINDS[st.terminal.kind[k]] == "normal"
            assert st.terminal.obs[k].shape == (3, prev.obs.shape[1])
            # the seat that went out holds no card in its final row
            out = [p for p in range(3) if st.terminal.obs[k, p][env.layout["hand"]].sum() == 0]
            assert len(out) == 1
            landlord = int(st.terminal.landlord[k])
            assert st.reward[t][out[0]] > 0 and (st.reward[t][landlord] > 0) == (landlord == out[0])
    assert ended >= 10
