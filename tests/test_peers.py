"""Cross-checks of ddz against the peer engines (PEERS.md): douzero, open_spiel, rlcard.

* Facts about the peers themselves (universe sizes, the "Rules that differ" table of
  PEERS.md) need only the peer.
* ``ddz.Rules.classic_douzero()`` vs douzero's generator / answer path and
  ``ddz.Rules.classic_openspiel()`` vs OpenSpiel's ``legal_actions()`` on seeded random
  hands, leads and follows. The peers' *documented* defects are modelled explicitly:
  for every case the test computes what the peer must answer given ddz's answer and
  the defect, asserts the peer answers exactly that, and counts the cases in which a
  defect changed the answer (printed with ``-s``; each defect must show up at least
  once, so the exclusions are never vacuous). Nothing is dropped silently.

    douzero  D1 its move lists repeat entries                 -> sets are compared
             D2 its plane-with-single-wings selector compares the highest rank held
                3 times in the whole move, wings included (PEERS.md: lets
                333444555KKK beat 6667778889TJ)               -> 'dz_plane_wings'
             D3 its detector rejects 3,838 multisets its generator makes
                (e.g. 3333444555666777); answering such a move it offers only bombs
                and the rocket                                 -> 'dz_detector_rejects'
    open_spiel O1 a bomb answers the rocket                    -> 'os_bomb_beats_rocket'
             O2 a chain (solo/pair/trio chain without wings) is never offered when
                the player holds 4 cards of its lowest rank   -> 'os_quad_low_chain'

Environment knobs: DDZ_PEERS_SEED (default 20240611), DDZ_PEERS_SCALE (default 1.0,
multiplies the number of random cases).
"""
from __future__ import annotations

import collections
import os
import random
import time

import pytest

from ddz.peers import adapters as P

SEED = int(os.environ.get("DDZ_PEERS_SEED", "20240611"))
SCALE = float(os.environ.get("DDZ_PEERS_SCALE", "1.0"))
# Sizes: ~0.3 s per 1,000 open_spiel cases and ~0.4 s per 1,000 douzero cases on the
# project's 2-core machines; open_spiel takes ~50 s, the whole file about a minute.
N_DZ_LEADS = max(1, int(4000 * SCALE))     # per hand size (17, 20, random 1..20)
N_DZ_FOLLOWS = max(1, int(6000 * SCALE))   # per hand size (17, 20, random 1..20)
N_OS_LEADS = max(1, int(20000 * SCALE))    # per hand size (17, 20, random 1..20)
N_OS_FOLLOWS = max(1, int(100000 * SCALE))  # 17-card answers, 1 in 10 with 1..16 cards
N_RL_LEADS = max(1, int(1000 * SCALE))     # per hand size (17, 20)


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def ddz():
    return pytest.importorskip("ddz")


@pytest.fixture(scope="module")
def dz():
    pytest.importorskip("douzero.env.move_generator")
    assert P.DOUZERO.available()
    return P.DOUZERO


@pytest.fixture(scope="module")
def osp():
    pytest.importorskip("pyspiel")
    assert P.OPENSPIEL.available()
    return P.OPENSPIEL


@pytest.fixture(scope="module")
def rl():
    pytest.importorskip("rlcard")
    assert P.RLCARD.available()
    return P.RLCARD


# --------------------------------------------------------------------------- ddz helpers
def ddz_set(ddz, hand, rules, prev=None) -> set:
    """ddz's plays as a set of canonical strings; also checks each multiset is listed
    once (API contract)."""
    ms = ddz.legal_moves(hand, rules) if prev is None else ddz.legal_moves(hand, rules, prev=prev)
    out = [str(m) for m in ms]
    assert len(out) == len(set(out)), f"ddz lists a multiset twice: hand={hand} prev={prev}"
    return set(out)


_UNIVERSE_CACHE = {}


def ddz_universe(ddz, rules, max_cards=20):
    """(set of canonical strings <= max_cards, number of ids or None). Uses
    ``rules.action_space()`` when the API has it, else the leads of the full deck."""
    key = (repr(sorted(rules.options.items())), rules.variant, max_cards)
    if key in _UNIVERSE_CACHE:
        return _UNIVERSE_CACHE[key]
    if hasattr(rules, "action_space"):
        space = list(rules.action_space())
        strs = [str(m) for m in space]
        ids = [m.id for m in space]
        assert ids == list(range(len(space))), "action_space ids are not 0..n-1 in order"
        if hasattr(rules, "move_from_id"):
            step = max(1, len(space) // 500)
            for i in range(0, len(space), step):
                assert str(rules.move_from_id(i)) == strs[i]
        res = ({s for s in strs if len(s) <= max_cards}, len(space), len(set(strs)))
    else:
        strs = [str(m) for m in ddz.legal_moves(P.FULL_DECK, rules)]
        res = ({s for s in strs if len(s) <= max_cards}, None, len(set(strs)))
    _UNIVERSE_CACHE[key] = res
    return res


def kind_table(ddz, rules, universe) -> dict:
    """kind name -> sorted list of the universe's plays with that lead reading."""
    by = collections.defaultdict(list)
    for s in sorted(universe):
        m = ddz.classify(s, rules)
        by[m.kind.name].append(s)
    return dict(by)


# --------------------------------------------------------------------------- dealing
def deal(rng, n, pool=P.FULL_DECK):
    cards = list(pool)
    rng.shuffle(cards)
    return P.canon(cards[:n]), P.canon(cards[n:])


def plane_rich(rng, n):
    """A hand of n (>= 12) cards holding a run of 2..4 trios (to exercise planes), one
    time in three also a four of a kind (bomb wings, four-with-two); rest random."""
    k = rng.choice((2, 2, 3, 3, 4))
    lo = rng.randrange(0, 12 - k + 1)
    core = "".join(P.ORDER[v] * 3 for v in range(lo, lo + k))
    if rng.random() < 1 / 3 and len(core) + 4 <= n:
        quad = rng.choice([v for v in range(13) if not lo <= v < lo + k])
        core += P.ORDER[quad] * 4
    rest = P._complement(core)
    fill, rest = deal(rng, n - len(core), rest)
    return P.canon(core + fill), rest


def fits(a, b) -> bool:
    c = P.counts(a + b)
    return all(x <= 4 for x in c[:13]) and c[13] <= 1 and c[14] <= 1


def pick_by_kind(rng, plays_by_kind, kinds=None):
    kinds = [k for k in (kinds or sorted(plays_by_kind)) if plays_by_kind.get(k)]
    k = rng.choice(kinds)
    return rng.choice(plays_by_kind[k])


def group_moves(moves):
    by = collections.defaultdict(list)
    for m in moves:
        by[m.kind.name].append(str(m))
    for v in by.values():
        v.sort()
    return by


# --------------------------------------------------------------------------- peer facts
def test_peers_md_rule_table():
    """Every row of PEERS.md 'Rules that differ' for douzero / rlcard / open_spiel
    (the doudizhu column is not checked: that package is not installed here)."""
    avail = [p for p in P.PEERS.values() if p.available()]
    if not avail:
        pytest.skip("no peer installed")
    rows = P.check_rule_rows(avail)
    wrong = [r for r in rows if r[2] is not None and r[2] != r[3]]
    assert not wrong, "PEERS.md claims refuted:\n" + "\n".join(map(repr, wrong))


def test_douzero_universe(dz):
    u = dz.universe()
    assert len(u) == 29_984
    assert all(len(m) <= 20 for m in u)
    rejects = [m for m in u if dz.detector_rejects(m)]
    assert len(rejects) == 3_838
    assert "3333444555666777" in rejects


def test_rlcard_universe(rl):
    ids = rl.action_ids()
    assert len(ids) == 27_472 and ids.count("pass") == 1
    assert len(rl.universe()) == 27_471


def test_openspiel_universe(osp):
    ids = osp.play_ids()
    assert len(ids) == 26_053 and min(ids) == 4 and max(ids) == 26_056
    mult = collections.Counter(len(osp.ids_of(s)) for s in set(ids.values()))
    assert len(set(ids.values())) == 25_661
    # PEERS.md says "a 4-trio run has two ids": measured, 383 multisets have several ids
    # (374 with 2, 9 with 3): a 4-trio run 333444555666 has 3 (the chain and two planes
    # of 3 with a trio as wings), 3334445556667778-like 16-card multisets have 2.
    assert mult == {1: 25_278, 2: 374, 3: 9}
    assert len(osp.ids_of("333444555666")) == 3


def test_peer_universe_relations(dz, rl, osp):
    du, ru, ou = dz.universe(), rl.universe(), osp.universe()
    assert ru <= du and ou <= du
    assert len(du - ru) == 2_513
    extra = ru - ou
    assert len(extra) == 2_184
    # rlcard's extras over open_spiel are exactly its four-with-two plays
    assert all(4 in P.counts(m)[:13] and len(m) in (6, 8) and not P.plane_solo_readings(m)
               for m in extra)
    # PEERS.md does not say it: open_spiel is NOT inside rlcard -- 374 planes with a wing
    # trio adjacent to the chain (rlcard refuses those, open_spiel and douzero allow).
    back = ou - ru
    assert len(back) == 374
    assert all(_adjacent_trio_only(m) for m in back)


def _adjacent_trio_only(m: str) -> bool:
    """m reads only as plane(s) with single wings, each reading having a wing trio of a
    rank adjacent to its chain (other than 2s) -- what rlcard refuses."""
    if P.chain_only_shape(m):
        return False
    rd = P.plane_solo_readings(m)
    if not rd:
        return False
    c = P.counts(m)
    for k, lo in rd:
        adj = [v for v in (lo - 1, lo + k) if 0 <= v < 13 and v != 12 and c[v] == 3]
        if not adj:
            return False
    return True


def test_openspiel_adapter_states(osp):
    """The prepared states really give the seat the hand and the trick we asked for."""
    rng = random.Random(SEED)
    for n in (20, 17, 12, 1):
        hand, _ = deal(rng, n)
        st = osp.lead_state(hand)
        assert st.current_player() == 0
        obs = st.observation_string(0).split("\n")[0]
        got = obs.replace("My hand ", "").replace("(BWJ)", "B").replace("(CJ)", "R")
        assert P.canon(got) == hand
    for n in (17, 15, 10, 3):
        for _ in range(20):
            hand, rest = deal(rng, n)
            prev = rng.choice(sorted(p for p in osp.leads(rest[:20]) if len(p) <= 12))
            try:
                st = osp.follow_state(hand, prev)
            except ValueError:
                continue
            obs = st.observation_string(1).split("\n")[0]
            got = obs.replace("My hand ", "").replace("(BWJ)", "B").replace("(CJ)", "R")
            assert P.canon(got) == hand
            assert osp.action_string(st.history()[-1]).replace("-", "") != ""
            assert 0 in st.legal_actions()  # pass is allowed: we are answering
            break


# --------------------------------------------------------------------------- douzero vs ddz
def test_douzero_leads(ddz, dz):
    """Leads: douzero's generator == classic_douzero (as sets; D1: its lists repeat)."""
    rules = ddz.Rules.classic_douzero()
    rng = random.Random(SEED + 1)
    bad, dup_lists = [], 0
    for size in (17, 20, 0):
        for i in range(N_DZ_LEADS):
            n = size or rng.randint(1, 20)
            hand = (plane_rich(rng, n) if i % 4 == 0 and n >= 12 else deal(rng, n))[0]
            raw = dz.leads_raw(hand)
            got = {dz.to_str(m) for m in raw}
            dup_lists += len(raw) != len(got)
            want = ddz_set(ddz, hand, rules)
            if got != want:
                bad.append((hand, sorted(got - want), sorted(want - got)))
    assert dup_lists > 0  # D1 is real
    assert not bad, _fmt("douzero leads != ddz classic_douzero leads (hand, douzero-only, ddz-only)", bad)


def douzero_model(dz, hand, prev, ddz_fol, ddz_leads_fn):
    """What douzero must answer, given ddz's answer and douzero's documented defects.
    Returns (defect name or None, expected set)."""
    det = dz.detect(prev)
    md = dz._load().md
    bombs = {m for m in ddz_fol if P.is_bomb_or_rocket(m)}
    if det["type"] == md.TYPE_15_WRONG:  # D3
        return "dz_detector_rejects", bombs
    if det["type"] == md.TYPE_11_SERIAL_3_1:  # D2
        k, key = det["len"], P.max_trio_rank(prev)
        planes = {m for m in ddz_leads_fn()
                  if any(kk == k for kk, _ in P.plane_solo_readings(m)) and P.max_trio_rank(m) > key}
        return "dz_plane_wings", planes | bombs
    return None, ddz_fol


def test_douzero_follows(ddz, dz):
    """Answers: douzero's GameEnv.get_legal_card_play_actions == classic_douzero, up to
    D2 and D3 (modelled exactly; every other difference fails)."""
    rules = ddz.Rules.classic_douzero()
    rng = random.Random(SEED + 2)
    uni = ddz_universe(ddz, rules)[0]
    by_kind = kind_table(ddz, rules, {s for s in uni if len(s) <= 19})
    rejects = sorted(m for m in dz.universe() if dz.detector_rejects(m))
    planes_by_len = collections.defaultdict(list)
    for s in by_kind.get("PLANE_SOLO", []):
        planes_by_len[len(s) // 4].append(s)
    # planes whose wings hold a trio above the chain: douzero compares that trio (D2)
    winged = {k: [s for s in v if P.max_trio_rank(s) > ddz.classify(s, rules).key]
              for k, v in planes_by_len.items()}
    rejects_by_shape = collections.defaultdict(list)  # (kind, chain length) -> [(key, play)]
    for s in rejects:
        m = ddz.classify(s, rules)
        if m is not None:  # (None: ddz refuses it -- test_universe_douzero reports that)
            rejects_by_shape[(m.kind.name, m.chain_length)].append((m.key, s))
    bad, affected, kinds, n_cases = [], collections.Counter(), collections.Counter(), 0
    examples = collections.defaultdict(list)
    for size in (17, 20, 0):
        for i in range(N_DZ_FOLLOWS):
            mode = i % 8
            n = size or rng.randint(12 if mode in (5, 6) else 1, 20)
            hand, rest = plane_rich(rng, n) if mode in (5, 6) else deal(rng, n)
            if mode in (0, 1):  # a play of another hand dealt from the rest of the deck
                prev = pick_by_kind(rng, group_moves(ddz.legal_moves(rest[:20], rules)))
            elif mode in (2, 3):  # any play of the universe, kinds uniformly
                prev = pick_by_kind(rng, by_kind)
            elif mode == 4:  # a multiset douzero's detector rejects (D3), random hand
                prev = rng.choice(rejects)
            elif mode == 7:  # D3 again, the hand holding a rejected play that beats it
                shape = rng.choice(sorted(s for s, v in rejects_by_shape.items() if len(v) > 1))
                lo_, hi_ = sorted(rng.sample(rejects_by_shape[shape], 2))
                if lo_[0] == hi_[0]:
                    continue
                prev, core = lo_[1], hi_[1]
                if len(core) > n:
                    continue
                fill, _ = deal(rng, n - len(core), P._complement(core))
                hand = P.canon(core + fill)
            else:  # a plane with single wings as long as the hand's trio run (D2)
                c = P.counts(hand)
                k = max(kk for kk in range(2, 5) if any(
                    all(c[v] >= 3 for v in range(lo, lo + kk)) for lo in range(0, 13 - kk)))
                pool = (winged if mode == 6 else planes_by_len).get(k) or planes_by_len[k]
                prev = rng.choice(pool)
            n_cases += 1
            pm = ddz.classify(prev, rules)
            if pm is None:
                bad.append((hand, prev, "ddz does not read prev as a play", "", ""))
                continue
            kinds[pm.kind.name] += 1
            got = dz.follows(hand, prev)
            want = ddz_set(ddz, hand, rules, prev)
            cat, expect = douzero_model(dz, hand, prev, want, lambda: ddz_set(ddz, hand, rules))
            if got != expect:
                bad.append((hand, prev, sorted(got - expect), sorted(expect - got), cat))
            elif cat and expect != want:
                affected[cat] += 1
                if len(examples[cat]) < 3:
                    examples[cat].append((hand, prev, sorted(expect - want), sorted(want - expect)))
    print(f"\ndouzero follows: {n_cases} cases; prev kinds {dict(kinds)}")
    print(f"  cases changed by a documented douzero defect: {dict(affected)}")
    for cat, ex in examples.items():
        for e in ex:
            print(f"  {cat}: hand={e[0]} prev={e[1]} douzero-only={e[2][:4]} ddz-only={e[3][:4]}")
    assert not bad, _fmt("douzero answers != model (hand, prev, douzero-only, expected-only, defect)", bad)
    assert affected["dz_plane_wings"] > 0 and affected["dz_detector_rejects"] > 0
    assert len(kinds) >= 12


# --------------------------------------------------------------------------- open_spiel vs ddz
def openspiel_lead_model(hand, ddz_leads):
    c = P.counts(hand)
    blocked = set()
    for m in ddz_leads:
        sh = P.chain_only_shape(m)
        # O2; a 4-trio run (12 cards) survives as a plane of 3 with a trio as wings
        if sh and c[sh[0]] == 4 and not (sh[1] == 3 and sh[2] == 4):
            blocked.add(m)
    return ("os_quad_low_chain" if blocked else None), ddz_leads - blocked


def openspiel_follow_model(hand, prev, ddz_fol):
    c = P.counts(hand)
    if prev == "BR":  # O1
        return "os_bomb_beats_rocket", ddz_fol | {P.ORDER[v] * 4 for v in range(13) if c[v] == 4}
    if P.chain_only_shape(prev):  # O2
        blocked = {m for m in ddz_fol
                   if not P.is_bomb_or_rocket(m) and c[P.chain_only_shape(m)[0]] == 4}
        return "os_quad_low_chain", ddz_fol - blocked
    return None, ddz_fol


# The default run checks 40 % of the open_spiel cases (CI's time budget); the full count runs
# under the slow marker: python -m pytest -m slow tests/test_peers.py
OS_PART = [pytest.param(0.4, id="part"), pytest.param(1.0, id="full", marks=pytest.mark.slow)]


@pytest.mark.parametrize("part", OS_PART)
def test_openspiel_leads(ddz, osp, part):
    rules = ddz.Rules.classic_openspiel()
    rng = random.Random(SEED + 3)
    bad, affected = [], collections.Counter()
    t0 = time.perf_counter()
    for size in (17, 20, 0):
        for i in range(int(N_OS_LEADS * part)):
            n = size or rng.randint(1, 20)
            hand = (plane_rich(rng, n) if i % 4 == 0 and n >= 12 else deal(rng, n))[0]
            got = osp.leads(hand)
            want = ddz_set(ddz, hand, rules)
            cat, expect = openspiel_lead_model(hand, want)
            if got != expect:
                bad.append((hand, sorted(got - expect), sorted(expect - got)))
            elif cat:
                affected[cat] += 1
    print(f"\nopen_spiel leads: {3 * int(N_OS_LEADS * part)} hands in {time.perf_counter() - t0:.1f} s; "
          f"changed by O2: {dict(affected)}")
    assert not bad, _fmt("open_spiel leads != model (hand, open_spiel-only, expected-only)", bad)
    assert affected["os_quad_low_chain"] > 0


@pytest.mark.parametrize("part", OS_PART)
def test_openspiel_follows(ddz, osp, part):
    rules = ddz.Rules.classic_openspiel()
    rng = random.Random(SEED + 4)
    uni = ddz_universe(ddz, rules)[0]
    by_kind = kind_table(ddz, rules, {s for s in uni if len(s) <= 19})
    bad, affected, kinds, skipped = [], collections.Counter(), collections.Counter(), 0
    examples = collections.defaultdict(list)
    t0 = time.perf_counter()
    for i in range(int(N_OS_FOLLOWS * part)):
        mode = i % 5
        n = rng.randint(1, 16) if i % 10 == 1 else 17  # short hands: seat 1 sheds fillers first
        hand, rest = plane_rich(rng, 17) if mode == 4 else deal(rng, n)
        if mode in (0, 1, 4):
            plays = group_moves(m for m in ddz.legal_moves(rest[:20], rules) if len(str(m)) <= 19)
            prev = pick_by_kind(rng, plays)
        elif mode == 2:
            for _ in range(50):
                prev = pick_by_kind(rng, by_kind)
                if fits(hand, prev):
                    break
            else:
                skipped += 1
                continue
        else:  # the rocket on the table, or a chain (O1 / O2 exercise)
            if "B" not in hand and "R" not in hand and rng.random() < 0.3:
                prev = "BR"
            else:
                chains = [p for k in ("STRAIGHT", "PAIR_STRAIGHT", "TRIO_STRAIGHT")
                          for p in by_kind.get(k, []) if fits(hand, p)]
                if not chains:
                    skipped += 1
                    continue
                prev = rng.choice(chains)
        try:
            got = osp.follows(hand, prev)
        except ValueError:  # a short hand for which no shedding script exists
            skipped += 1
            continue
        kinds[ddz.classify(prev, rules).kind.name] += 1
        want = ddz_set(ddz, hand, rules, prev)
        cat, expect = openspiel_follow_model(hand, prev, want)
        if got != expect:
            bad.append((hand, prev, sorted(got - expect), sorted(expect - got)))
        elif cat and expect != want:
            affected[cat] += 1
            if len(examples[cat]) < 3:
                examples[cat].append((hand, prev, sorted(expect - want), sorted(want - expect)))
    print(f"\nopen_spiel follows: {sum(kinds.values())} cases in {time.perf_counter() - t0:.1f} s "
          f"(skipped {skipped}); prev kinds {dict(kinds)}")
    print(f"  cases changed by a documented open_spiel defect: {dict(affected)}")
    for cat, ex in examples.items():
        for e in ex:
            print(f"  {cat}: hand={e[0]} prev={e[1]} open_spiel-only={e[2][:4]} ddz-only={e[3][:4]}")
    assert not bad, _fmt("open_spiel answers != model (hand, prev, open_spiel-only, expected-only)", bad)
    assert affected["os_bomb_beats_rocket"] > 0 and affected["os_quad_low_chain"] > 0
    assert len(kinds) >= 10


# --------------------------------------------------------------------------- rlcard vs ddz
def test_rlcard_leads(ddz, rl):
    """rlcard = classic with single_kicker_rank_cap=3, minus planes whose every reading
    has a wing trio adjacent to the chain (2s excepted)."""
    rules = ddz.Rules.classic(single_kicker_rank_cap=3)
    rng = random.Random(SEED + 5)
    bad = []
    for n in (17, 20):
        for i in range(N_RL_LEADS):
            hand = (plane_rich(rng, n) if i % 3 == 0 else deal(rng, n))[0]
            got = rl.leads(hand)
            want = {m for m in ddz_set(ddz, hand, rules) if not _adjacent_trio_only(m)}
            if got != want:
                bad.append((hand, sorted(got - want), sorted(want - got)))
    assert not bad, _fmt("rlcard leads != model (hand, rlcard-only, expected-only)", bad)


# --------------------------------------------------------------------------- universes
def test_universe_douzero(ddz, dz):
    u, n_ids, n_distinct = ddz_universe(ddz, ddz.Rules.classic_douzero())
    peer = dz.universe()
    print(f"\nddz classic_douzero action space: ids={n_ids} distinct={n_distinct} (<=20 cards: {len(u)}); "
          f"douzero {len(peer)}")
    assert u == peer, _fmt("universe (ddz-only, douzero-only)", [(sorted(u - peer)[:20], sorted(peer - u)[:20])])


def test_universe_openspiel(ddz, osp):
    u, n_ids, n_distinct = ddz_universe(ddz, ddz.Rules.classic_openspiel())
    peer = osp.universe()
    print(f"\nddz classic_openspiel action space: ids={n_ids} distinct={n_distinct} (<=20 cards: {len(u)}); "
          f"open_spiel {len(osp.play_ids())} ids / {len(peer)} multisets")
    assert u == peer, _fmt("universe (ddz-only, open_spiel-only)", [(sorted(u - peer)[:20], sorted(peer - u)[:20])])


def test_universe_rlcard(ddz, rl):
    u, n_ids, n_distinct = ddz_universe(ddz, ddz.Rules.classic(single_kicker_rank_cap=3))
    peer = rl.universe()
    want = {m for m in u if not _adjacent_trio_only(m)}
    print(f"\nddz classic(cap=3) action space: ids={n_ids} distinct={n_distinct}; "
          f"minus adjacent-trio planes {len(want)}; rlcard {len(peer)}")
    assert want == peer, _fmt("universe (model-only, rlcard-only)", [(sorted(want - peer)[:20], sorted(peer - want)[:20])])


def test_universe_classic_sizes(ddz, dz, osp, rl):
    """The default CLASSIC3 catalogue sits inside every peer's universe except where the
    peer lacks a rule (open_spiel: four-with-two)."""
    u, n_ids, _ = ddz_universe(ddz, ddz.Rules.classic())
    print(f"\nddz classic action space: ids={n_ids} (<=20 cards: {len(u)})")
    assert u <= dz.universe() and u <= rl.universe()
    no42 = {m for m in u if ddz.classify(m, ddz.Rules.classic()).kind.name not in ("FOUR_TWO_SOLO", "FOUR_TWO_PAIR")}
    assert no42 <= osp.universe()


def _fmt(title, rows, limit=25):
    lines = [f"{title}: {len(rows)} case(s)"]
    for r in rows[:limit]:
        lines.append("  " + " | ".join(str(x) for x in r))
    return "\n".join(lines)
