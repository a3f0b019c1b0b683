"""ddz.VectorEnv: many play-phase tables stepped in C++. Every table is replayed beside it on a
``ddz.PlayState`` of the same deal (``ddz.deal``): the legal ids, the observation
(``ddz.encode.compact`` of the seat to act), the seat, the role and, when a hand ends, the
reward recomputed from RULES.md (§2.0.6 spring, §2.1.7 / §2.2.7 bomb doubling, §2.3.9-A missiles,
zero-sum) must agree; results must not depend on the thread count; bad input must raise the
project's errors naming the table and leave every table as it was."""
from __future__ import annotations

import numpy as np
import pytest

import ddz
from ddz import encode as E


def _reward(ps: ddz.PlayState, variant: str):
    """The play-phase score of a finished hand by seat (the units of ddz.VectorEnv's docstring)."""
    n, L = ps.num_players, ps.landlord
    won = ps.winner_side == "landlord"
    if variant == "bengbu":
        out = [0.0] * n
        for f in range(n):
            if f == L:
                continue
            t = (1 if won else -1) + ps.missiles(L) - ps.missiles(f)
            t = max(t, 0) if won else min(t, 0)
            out[f] = -t
            out[L] += t
        return out
    u = 2 ** ps.bombs_total * (2 if ps.spring or ps.anti_spring else 1)
    sign = 1 if won else -1
    return [sign * u * (n - 1) if p == L else -sign * u for p in range(n)]


def _kitty_word(rules, seed, game):
    """The kitty of ddz.deal(rules, seed, game) as a rank-count word (ids: 4·rank + suit, 52 = B,
    53 = R, the second deck's copy + 54)."""
    physical, _, _ = ddz._core.PhysicalHands.deal(rules, seed, game)
    word = 0
    for cid in physical.kitty:
        x = cid % 54
        word += 1 << (4 * (x // 4 if x < 52 else 13 + x - 52))
    return word


def _expected_obs(ps, kitty):
    """compact() of the seat to act, with the kitty revealed as in every variant's play phase."""
    words, landlord, limits, actions = E.play_log(ps)
    return E.compact_arrays(ps.rules, np.array([words], np.uint64), np.array([landlord]),
                            np.array(actions, np.uint64), np.array([0, len(actions)]), np.array([ps.current_seat]),
                            kitty=np.array([kitty], np.uint64))[0]


def _pick(step, rng):
    counts = np.diff(step.legal_offsets)
    return step.legal_ids[step.legal_offsets[:-1] + (rng.random(len(counts)) * counts).astype(np.int64)]


@pytest.mark.parametrize("variant", ddz.VARIANTS)
def test_tables_match_play_states_of_the_same_deals(variant):
    r = ddz.Rules(variant)
    N, seed = 6, 21
    env = ddz.VectorEnv(r, N, seed, auction=False)
    st = env.reset()
    rng = np.random.default_rng(3)
    played = [0] * N
    states = [ddz.PlayState(*ddz.deal(r, seed, i), r) for i in range(N)]
    kitty = [_kitty_word(r, seed, i) for i in range(N)]
    finished = 0
    for _ in range(400 if variant != "bengbu" else 250):
        assert (env.games() == np.array([played[i] * N + i for i in range(N)])).all()
        for i, ps in enumerate(states):
            ids = st.legal_ids[st.legal_offsets[i]:st.legal_offsets[i + 1]].tolist()
            assert ids == ps.legal_actions(), (variant, i)
            assert st.seat[i] == ps.current_seat and st.role[i] == (0 if ps.current_seat == ps.landlord else 1)
            assert np.array_equal(st.obs[i], _expected_obs(ps, kitty[i])), (variant, i)
        actions = _pick(st, rng)
        st = env.step(actions)
        for i, ps in enumerate(states):
            ps.apply(int(actions[i]))
            assert st.done[i] == ps.is_over
            if ps.is_over:
                assert st.reward[i].tolist() == _reward(ps, variant), (variant, i)
                played[i] += 1
                finished += 1
                states[i] = ddz.PlayState(*ddz.deal(r, seed, played[i] * N + i), r)
                kitty[i] = _kitty_word(r, seed, played[i] * N + i)
            else:
                assert not st.reward[i].any()
        assert np.all(st.reward.sum(axis=1) == 0)
    assert finished >= 10


def test_results_do_not_depend_on_threads():
    r = ddz.Rules.classic()
    envs = [ddz.VectorEnv(r, 50, 9, threads=t, auction=False) for t in (1, 3, 8)]
    steps = [e.reset() for e in envs]
    rng = np.random.default_rng(1)
    for _ in range(120):
        for s in steps[1:]:
            for field in ("obs", "legal_offsets", "legal_ids", "reward", "done", "seat", "role"):
                assert np.array_equal(getattr(s, field), getattr(steps[0], field)), field
        a = _pick(steps[0], rng)
        steps = [e.step(a) for e in envs]


def test_reset_seed_restarts_the_series_and_reset_moves_on():
    r = ddz.Rules.two_player()
    env = ddz.VectorEnv(r, 4, 5, auction=False)
    first = env.reset()
    again = env.reset()
    assert (env.games() == np.arange(4) + 4).all()
    assert not np.array_equal(first.obs, again.obs)
    back = env.reset(seed=5)
    assert np.array_equal(back.obs, first.obs) and (env.games() == np.arange(4)).all()


def test_dense_mask_on_request():
    r = ddz.Rules.classic()
    env = ddz.VectorEnv(r, 5, 1, auction=False)
    st = env.reset(mask=True)
    assert st.mask.shape == (5, r.pass_id + 1)
    for i in range(5):
        assert np.flatnonzero(st.mask[i]).tolist() == sorted(st.legal_ids[st.legal_offsets[i]:st.legal_offsets[i + 1]])
    assert env.step(_pick(st, np.random.default_rng(0))).mask is None


def test_supplied_deals_landlords_bomb_limits_and_kitty():
    """BENGBU4 deals from a Python auction: bomb limits (RULES.md §2.3.6) and the revealed kitty."""
    r = ddz.Rules.bengbu()
    deals, landlords, kitty = [], [], []
    for g in range(3):
        hands, landlord = ddz.deal(r, 77, g)
        deals.append([h.word for h in hands])
        landlords.append(landlord)
        kitty.append(ddz.Cards(str(hands[landlord])[:8], decks=2).word)  # any 8 of its cards stand for the kitty
    limits = np.array([[1, 2, 255, 255]] * 3)
    env = ddz.VectorEnv(r, 2, 0, deals=np.array(deals, dtype=np.uint64), landlords=np.array(landlords),
                        bomb_limits=limits, kitty=np.array(kitty, dtype=np.uint64), auction=False)
    st = env.reset()
    L = env.layout
    for i in range(2):
        ps = ddz.PlayState([ddz.Cards.from_word(w, 2) for w in deals[i]], landlords[i], r, [1, 2, None, None])
        seat = ps.current_seat
        want = E.compact_arrays(r, np.array([deals[i]], dtype=np.uint64), np.array([landlords[i]]),
                                np.zeros(0, np.uint64), np.array([0, 0]), np.array([seat]),
                                bomb_limits=limits[:1], kitty=np.array([kitty[i]], dtype=np.uint64))[0]
        assert np.array_equal(st.obs[i], want)
        assert st.obs[i][L["kitty_known"]][0] == 1
        assert ps.legal_actions() == st.legal_ids[st.legal_offsets[i]:st.legal_offsets[i + 1]].tolist()
    st = env.reset()  # the second hand of each table: entries 2 and (3 % 3) = 0
    assert (env.games() == [2, 3]).all()
    assert st.seat[1] == landlords[0]


def test_bad_input_raises_and_moves_no_table():
    r = ddz.Rules.classic()
    env, twin = ddz.VectorEnv(r, 3, 4, auction=False), ddz.VectorEnv(r, 3, 4, auction=False)
    with pytest.raises(ddz.ArgumentError, match="call reset"):
        env.step(np.zeros(3, np.int64))
    st, _ = env.reset(), twin.reset()
    good = _pick(st, np.random.default_rng(0))
    with pytest.raises(ddz.ArgumentError, match=r"actions must have shape \(3,\)"):
        env.step(good[:2])
    with pytest.raises(ddz.ArgumentTypeError, match="integer array"):
        env.step(good.astype(float))
    with pytest.raises(ddz.ArgumentTypeError):  # a list is taken (of ints), not of floats
        env.step([float(x) for x in good])
    bad = good.copy()
    bad[1] = r.pass_id + 1
    with pytest.raises(ddz.IllegalAction, match="table 1: action id .* out of range"):
        env.step(bad)
    bad[1] = r.pass_id  # every table leads its first trick: PASS is not legal
    with pytest.raises(ddz.IllegalAction, match="table 1: .*PASS.*LEAD_PASS.*no table moved") as e:
        env.step(bad)
    assert e.value.code == ddz.IllegalCode.LEAD_PASS
    held = set(st.legal_ids[st.legal_offsets[2]:st.legal_offsets[3]].tolist())
    bad = good.copy()
    bad[2] = next(i for i in range(r.pass_id) if i not in held)
    with pytest.raises(ddz.IllegalAction, match="table 2: action id") as e:
        env.step(bad)
    assert e.value.code in (ddz.IllegalCode.NOT_HELD, ddz.IllegalCode.NOT_OFFERED)
    a, b = env.step(good), twin.step(good)
    for field in ("obs", "legal_ids", "reward", "seat"):
        assert np.array_equal(getattr(a, field), getattr(b, field))
    with pytest.raises(ddz.ArgumentError, match="twop_rocket_doubles=True"):
        ddz.VectorEnv(ddz.Rules.two_player(twop_rocket_doubles=False), 2, 1, auction=False)
    with pytest.raises(ddz.ArgumentError, match="bengbu_missiles_once_per_player=False"):
        ddz.VectorEnv(ddz.Rules.bengbu(bengbu_missiles_once_per_player=True), 2, 1, auction=False)
    with pytest.raises(ddz.ArgumentError, match="num_envs must be in"):
        ddz.VectorEnv(r, 0, 1, auction=False)
    with pytest.raises(ddz.ArgumentTypeError):
        ddz.VectorEnv("classic", 2, 1)  # type: ignore[arg-type]
    with pytest.raises(ddz.ArgumentError, match="bomb limits exist only in BENGBU4"):
        ddz.VectorEnv(r, 2, 1, deals=np.array([[1, 16, 256]], np.uint64), landlords=np.array([0]),
                      bomb_limits=np.zeros((1, 3), int), auction=False)
    with pytest.raises(ddz.CardError, match="deal 0: the hands hold 5 '3' together"):
        ddz.VectorEnv(r, 2, 1, deals=np.array([[0x3, 0x2, 0x100]], np.uint64), landlords=np.array([0]), auction=False)
    with pytest.raises(ddz.ArgumentError, match="deal 0: landlord 3 is not a seat"):
        ddz.VectorEnv(r, 2, 1, deals=np.array([[0x3, 0x1, 0x100]], np.uint64), landlords=np.array([3]), auction=False)


def test_bengbu_missile_shifts_the_reward():
    """RULES.md §2.3.9-A with base 1, closed play: the landlord plays a BOMB7 whole (one missile
    unit, §2.3.7) and goes out: each farmer pays 1 + (1 - 0) = 2."""
    r = ddz.Rules.bengbu()
    words = [ddz.Cards(h, decks=2).word for h in ("33333334", "5", "6", "7")]
    env = ddz.VectorEnv(r, 1, 0, deals=np.array([words], np.uint64), landlords=np.array([0]), auction=False)
    st = env.reset()
    bomb7 = ddz.classify("3333333", r).id
    for action in (bomb7, r.pass_id, r.pass_id, r.pass_id, ddz.classify("4", r).id):
        assert action in st.legal_ids.tolist()
        st = env.step(np.array([action]))
    assert st.done[0] and st.reward[0].tolist() == [6, -2, -2, -2]


def test_steps_release_the_gil_and_refuse_concurrent_use():
    """Two environments step in two Python threads at once (the GIL is released inside); one
    environment used from two threads at once raises instead of blocking."""
    import threading

    r = ddz.Rules.classic()
    envs = [ddz.VectorEnv(r, 2000, s, auction=False) for s in (1, 2)]
    solo = [ddz.VectorEnv(r, 2000, s, auction=False) for s in (1, 2)]
    errors = []

    def run(env, out):
        try:
            st = env.reset()
            rng = np.random.default_rng(0)
            for _ in range(20):
                st = env.step(_pick(st, rng))
            out.append(st)
        except ddz.DdzError as e:  # pragma: no cover - reported below
            errors.append(e)

    results = [[], []]
    threads = [threading.Thread(target=run, args=(envs[k], results[k])) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in range(2):
        want = []
        run(solo[k], want)
        assert np.array_equal(results[k][0].obs, want[0].obs)
    shared = ddz.VectorEnv(r, 20_000, 3, auction=False)
    shared.reset()
    seen = []

    def hammer():
        for _ in range(30):
            try:
                shared.reset()
            except ddz.ArgumentError as e:
                seen.append(str(e))
    ts = [threading.Thread(target=hammer) for _ in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    # a collision may or may not happen; what must never happen is a deadlock (the test would hang)
    assert all("stepping in another thread" in m for m in seen)
