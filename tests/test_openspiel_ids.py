"""OpenSpiel's own action ids under Rules.classic_openspiel() (ddz.openspiel_ids).

Without pyspiel: the two tables are consistent (every ddz play has one id and comes back
from it; every OpenSpiel play id names a ddz play; 383 ids are second readings), bad input
raises. With pyspiel: every play id's action string is the ddz play's cards and reading,
and on seeded lead and answer states OpenSpiel's legal ids are the ids of ddz's plays
(apart from OpenSpiel's known bugs, PEERS.md)."""
from __future__ import annotations

import collections
import random

import pytest

import ddz
from ddz.peers import adapters as P
from ddz.openspiel_ids import OPENSPIEL_NUM_ACTIONS, OPENSPIEL_PASS, from_openspiel_id, openspiel_id

R = ddz.Rules.classic_openspiel()


def test_tables_are_consistent():
    space = R.action_space()
    ids = [openspiel_id(m, R) for m in space]
    assert len(set(ids)) == len(space) == 25_670 and min(ids) >= 4 and max(ids) < OPENSPIEL_NUM_ACTIONS
    assert all(from_openspiel_id(a, R) == m for a, m in zip(ids, space))
    back = collections.Counter(from_openspiel_id(a, R).id for a in range(4, OPENSPIEL_NUM_ACTIONS))
    assert len(back) == 25_670 and sum(back.values()) == 26_053
    extra = [i for i, n in back.items() if n > 1]
    assert sum(back[i] - 1 for i in extra) == 383
    assert {space[i].kind.name for i in extra} <= {"PLANE_SOLO", "TRIO_STRAIGHT"}
    assert openspiel_id(R.move_from_id(R.pass_id), R) == OPENSPIEL_PASS == 0
    assert from_openspiel_id(0, R).is_pass


def test_bad_input():
    m = ddz.classify("33344455", R)
    with pytest.raises(ValueError, match="classic_openspiel"):
        openspiel_id(m, ddz.Rules.classic())
    with pytest.raises(ValueError, match="bid"):
        from_openspiel_id(2, R)
    with pytest.raises(ValueError, match="out of range"):
        from_openspiel_id(OPENSPIEL_NUM_ACTIONS, R)
    with pytest.raises(TypeError):
        from_openspiel_id("5", R)
    with pytest.raises(TypeError):
        openspiel_id("33344455", R)
    with pytest.raises(ValueError):  # a four-with-two is no OpenSpiel play
        openspiel_id(ddz.classify("333345", ddz.Rules.classic()), R)


@pytest.fixture(scope="module")
def osp():
    pytest.importorskip("pyspiel")
    assert P.OPENSPIEL.available()
    return P.OPENSPIEL


def test_every_play_id_matches_openspiel(osp):
    plays = osp.play_ids()
    for a in range(4, OPENSPIEL_NUM_ACTIONS):
        s = osp.action_string(a)
        m = from_openspiel_id(a, R)
        assert str(m) == plays[a], (a, s)
        if "-" in s and len(s.split("-")[0]) >= 6:  # a plane: ddz's id is the highest-key body
            body = s.split("-")[0]
            assert m.kind.name in ("PLANE_SOLO", "PLANE_PAIR") and P.V[body[-1]] <= m.key
            assert (openspiel_id(m, R) == a) == (P.V[body[-1]] == m.key)


def test_states_legal_ids(osp):
    rng = random.Random(31)
    checked = 0
    for i in range(300):
        deck = list(P.FULL_DECK)
        rng.shuffle(deck)
        hand = P.canon(deck[:rng.choice((17, 12))] if i % 2 else deck[:rng.choice((20, 17, 12))])
        if i % 2:
            prev = rng.choice(sorted(str(m) for m in ddz.legal_moves(P.canon(deck[20:40]), R) if len(m) <= 19))
            st = osp.follow_state(hand, prev)
            moves = ddz.legal_moves(hand, R, prev=prev)
        else:
            st = osp.lead_state(hand)
            moves = ddz.legal_moves(hand, R)
        legal = set(st.legal_actions())
        os_plays = osp.legal_plays(st)
        mine = {openspiel_id(m, R) for m in moves if str(m) in os_plays}
        assert mine <= legal, (hand, sorted(mine - legal)[:5])
        # every OpenSpiel play names a ddz play, except its bugs (a bomb on the rocket)
        for a in legal - {OPENSPIEL_PASS}:
            m = from_openspiel_id(a, R)
            assert m in moves or (i % 2 and m.is_bomb), (hand, osp.action_string(a))
        checked += len(mine)
    assert checked > 3000
