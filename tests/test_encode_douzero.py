"""ddz.encode.douzero: DouZero's features for the CLASSIC3 play phase, checked equal to
``douzero.env.env.get_obs`` on DouZero's own infosets. Random games under
``Rules.classic_douzero()`` (RULES.md §7, compat presets; PEERS.md) are played in ddz and, action
for action, in DouZero's ``GameEnv`` (the landlord, the seat after it as ``landlord_down``, the
seat before as ``landlord_up``). Every state compares ``x_no_action``, ``z`` and, row by row in
DouZero's legal order, ``x_batch`` and ``z_batch``; the legal sets themselves must be equal except
in states whose play to beat DouZero misreads (PEERS.md: its plane-comparison bug, and the moves
its own detector rejects)."""
from __future__ import annotations

import random

import numpy as np
import pytest

import ddz
from ddz import encode as E

douzero_env = pytest.importorskip("douzero.env.env")
from douzero.env import move_detector as md  # noqa: E402
from douzero.env.game import GameEnv  # noqa: E402

R = ddz.Rules.classic_douzero()
DZ_CARD = dict(zip("3456789TJQKA2BR", [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30]))
POSITIONS = ("landlord", "landlord_down", "landlord_up")


def dz_cards(ranks: str):
    return sorted(DZ_CARD[c] for c in ranks)


class _Seat:
    """A DouZero player that plays what it is told."""

    action: list = []

    def act(self, infoset):
        return self.action


def _douzero_bug(top):
    """The documented DouZero defect a play to beat triggers, or None (PEERS.md)."""
    if top is None:
        return None
    move = top[0]
    if move.kind == ddz.Kind.PLANE_SOLO:
        return "plane-comparison"  # planes with single wings compared by their highest trio, wings included
    if md.get_move_type(dz_cards(str(move)))["type"] == md.TYPE_15_WRONG:
        return "detector-rejects"  # its detector rejects a move its generator makes: only bombs or pass follow
    return None


def _games(n_states, seed):
    """(ddz state, DouZero infoset) pairs of random games, n_states in all."""
    rng = random.Random(seed)
    game = 0
    out = []
    while len(out) < n_states:
        hands, landlord = ddz.deal(R, seed, game)
        game += 1
        ps = ddz.PlayState(hands, landlord, R)
        seats = {p: _Seat() for p in POSITIONS}
        env = GameEnv(seats)
        pos_of = {(landlord + k) % 3: POSITIONS[k] for k in range(3)}
        env.card_play_init({pos_of[s]: dz_cards(str(hands[s])) for s in range(3)}
                           | {"three_landlord_cards": dz_cards(str(hands[landlord]))[:3]})
        while not ps.is_over:
            assert env.acting_player_position == pos_of[ps.current_seat]
            out.append((ps.clone(), env.game_infoset))
            move = rng.choice(ps.legal_moves())
            seats[env.acting_player_position].action = [] if move.is_pass else dz_cards(str(move))
            env.step()
            ps.apply(move)
        assert env.game_over
    return out


def _compare(ours, theirs, where):
    assert ours["position"] == theirs["position"], where
    for key in ("x_no_action", "z", "x_batch", "z_batch"):
        a, b = ours[key], theirs[key]
        assert a.dtype == b.dtype and a.shape == b.shape, (where, key, a.dtype, b.dtype, a.shape, b.shape)
        if not np.array_equal(a, b):
            cols = np.nonzero((a != b).reshape(-1, a.shape[-1]).any(axis=0))[0]
            pytest.fail(f"{where}: {key} differs in columns {cols[:10].tolist()}")
    assert ours["legal_actions"] == theirs["legal_actions"], where


def test_douzero_features_equal_get_obs_on_10000_states():
    pairs = _games(10_000, seed=12)
    bugs = {"plane-comparison": 0, "detector-rejects": 0}
    positions = set()
    compared_sets = 0
    for start in range(0, len(pairs), 500):
        chunk = pairs[start:start + 500]
        states = [ps for ps, _ in chunk]
        given = E.douzero_batch(states, [info.legal_actions for _, info in chunk])
        own = E.douzero_batch(states)
        for i, (ps, info) in enumerate(chunk):
            where = f"state {start + i} ({ps!r})"
            theirs = douzero_env.get_obs(info)
            positions.add(theirs["position"])
            _compare(given.obs(i, info.legal_actions), theirs, where)
            mine = own.obs(i)
            assert np.array_equal(mine["x_no_action"], theirs["x_no_action"]) and np.array_equal(mine["z"], theirs["z"])
            bug = _douzero_bug(ps.top)
            if bug:
                bugs[bug] += 1
                continue
            assert sorted(map(tuple, mine["legal_actions"])) == sorted(set(map(tuple, info.legal_actions))), where
            compared_sets += 1
    assert positions == set(POSITIONS)
    assert compared_sets > 9_000, (compared_sets, bugs)


def test_single_state_form_and_ddz_order():
    ps = ddz.PlayState(["33345", "66", "BR"], 0, R)
    obs = E.douzero(ps)
    assert obs["position"] == "landlord"
    k = len(ps.legal_moves())
    assert obs["x_batch"].shape == (k, 373) and obs["z_batch"].shape == (k, 5, 162)
    assert obs["legal_actions"][0] == [3] and [3, 3, 3, 4] in obs["legal_actions"]
    ps.apply("3334")
    obs = E.douzero(ps)
    assert obs["position"] == "landlord_down" and obs["x_batch"].shape[1] == 484
    assert obs["legal_actions"] == [[]]  # seat 1 holds 66: it can only pass
    assert obs["z"][4, 108:162].tolist() == [1, 1, 1, 0, 1] + [0] * 49  # the last action: 3334 (3 threes, one four)


def test_expand_gives_douzero_rows_of_one_position():
    pairs = _games(300, seed=5)
    states = [ps for ps, _ in pairs]
    b = E.douzero_batch(states)
    for p in range(3):
        x, z = b.expand(p)
        idx = [i for i in range(len(b)) if b.position[i] == p]
        want_x = np.vstack([b.obs(i)["x_batch"] for i in idx])
        want_z = np.vstack([b.obs(i)["z_batch"] for i in idx])
        assert np.array_equal(x, want_x) and np.array_equal(z, want_z)
        out_x = np.empty_like(x)
        x2, _ = b.expand(p, out_x=out_x)
        assert np.shares_memory(x2, out_x)
    with pytest.raises(ddz.ArgumentError, match="out_x must have shape"):
        b.expand(0, out_x=np.empty((1, 373), np.float32))
    with pytest.raises(ddz.ArgumentError, match="position must be"):
        b.expand(3)


def test_bad_input():
    with pytest.raises(ddz.ArgumentError, match="CLASSIC3 only"):
        E.douzero(ddz.PlayState(["33", "44"], 0, ddz.Rules.two_player()))
    ps = ddz.PlayState(["3", "4", "5"], 0, R)
    ps.apply("3")
    with pytest.raises(ddz.ArgumentError, match="state 0 is over"):
        E.douzero(ps)
    with pytest.raises(ddz.ArgumentError, match="not a DouZero card"):
        E.douzero(ddz.PlayState(["3", "4", "5"], 0, R), [[15]])
    with pytest.raises(ddz.ArgumentTypeError):
        E.douzero_batch(["33"])


def test_the_excluded_states_really_differ_by_douzero_s_plane_bug():
    """PEERS.md: DouZero lets 333444555KKK beat 6667778889TJ (it compares the highest trio,
    wings included); ddz does not (RULES.md §2.0.5: planes compare by the chain)."""
    deck = list("3456789TJQKA2" * 4 + "BR")
    landlord, down = "6667778889TJQQQAA22B", "333444555KKK99TTJ"
    for c in landlord + down:
        deck.remove(c)
    hands = [landlord, down, "".join(deck)]
    ps = ddz.PlayState(hands, 0, R)
    seats = {p: _Seat() for p in POSITIONS}
    env = GameEnv(seats)
    env.card_play_init({"landlord": dz_cards(landlord), "landlord_down": dz_cards(down),
                        "landlord_up": dz_cards(hands[2]), "three_landlord_cards": dz_cards("QQQ")})
    seats["landlord"].action = dz_cards("6667778889TJ")
    env.step()
    ps.apply("6667778889TJ")
    assert _douzero_bug(ps.top) == "plane-comparison"
    theirs = set(map(tuple, env.game_infoset.legal_actions))
    mine = set(map(tuple, E.douzero(ps)["legal_actions"]))
    assert theirs - mine == {tuple(dz_cards("333444555KKK"))}
    _compare(E.douzero(ps, env.game_infoset.legal_actions), douzero_env.get_obs(env.game_infoset), "plane bug state")


def test_states_in_any_order_encode_alike():
    """A batch replays only the new actions when a state's log extends the one before it; in any
    other order every log is replayed from its start: the features are the same."""
    states = [ps for ps, _ in _games(400, seed=8)]
    order = list(range(len(states)))
    random.Random(0).shuffle(order)
    a = E.douzero_batch(states)
    b = E.douzero_batch([states[i] for i in order])
    assert np.array_equal(a.x_no_action[order], b.x_no_action) and np.array_equal(a.z[order], b.z)
    assert np.array_equal(a.position[order], b.position)
    for j, i in enumerate(order[:50]):
        assert np.array_equal(a.obs(i)["x_batch"], b.obs(j)["x_batch"])
