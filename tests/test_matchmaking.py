"""CLASSIC3 matchmaking (RULES.md §3.1 tiers, §3.2 criteria, §3.3 algorithm, DECISION A19,
§7 options ``match_stage2_after_s`` / ``match_stage3_after_s``).

Hand-built queues per tier and stage with exact expected tables, the error contract, and
hypothesis properties against an independent, literal reading of §3.3 (scan all triples in
lexicographic order of waiting rank, seat the first admissible one, start again).
"""
from __future__ import annotations

import ast
import itertools
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ddz

from ddz.rooms.matchmaking import MATCH_TIERS, Matchmaker


def queue(tier, players, **timing):
    """A matchmaker with ``players`` = [(id, coins, won, completed, joined_at), ...] joined in
    list order."""
    m = Matchmaker(tier, **timing)
    for pid, coins, won, completed, t in players:
        m.join(pid, coins, won, completed, now=t)
    return m


# ---------------------------------------------------------------- tiers and options

@pytest.mark.parametrize("name, canon, room", [
    ("novice", "novice", "新手场"), ("新手场", "novice", "新手场"),
    ("intermediate", "intermediate", "中级场"), ("中级场", "intermediate", "中级场"),
    ("advanced", "advanced", "高级场"), ("高级场", "advanced", "高级场"),
])
def test_tier_names_english_and_chinese(name, canon, room):
    """§3.1: the three rooms 新手场 / 中级场 / 高级场, by English or Chinese name."""
    m = Matchmaker(name)
    assert m.tier == canon and m.room_name == room
    assert (m.stage2_after_s, m.stage3_after_s) == (10, 20)  # §7 defaults
    assert m.has_stage3 == (canon != "advanced")  # A19: "/" = no third stage
    assert MATCH_TIERS[canon] == room


@pytest.mark.parametrize("bad", ["expert", "", "新手", "Novice room", None, 3])
def test_unknown_tier_raises_naming_it(bad):
    """§3.1 has exactly three tiers; anything else is rejected with its name in the message."""
    with pytest.raises(ValueError) as e:
        Matchmaker(bad)
    assert repr(bad) in str(e.value)


@pytest.mark.parametrize("kw, needle", [
    ({"stage2_after_s": 0}, "stage2_after_s"), ({"stage2_after_s": -1}, "stage2_after_s"),
    ({"stage3_after_s": 0}, "stage3_after_s"), ({"stage2_after_s": True}, "stage2_after_s"),
    ({"stage3_after_s": "20"}, "stage3_after_s"), ({"stage2_after_s": float("nan")}, "stage2_after_s"),
    ({"stage2_after_s": 30, "stage3_after_s": 20}, "stage3_after_s"),
])
def test_bad_timing_raises_naming_it(kw, needle):
    """§3.3 / §7: the delays are positive seconds and stage 3 cannot start before stage 2."""
    with pytest.raises(ValueError) as e:
        Matchmaker("novice", **kw)
    assert needle in str(e.value)


def test_from_rules_reads_the_options():
    """§7: ``match_stage2_after_s`` / ``match_stage3_after_s`` of a CLASSIC3 ``Rules``."""
    m = Matchmaker.from_rules(ddz.Rules.classic(match_stage2_after_s=3, match_stage3_after_s=4.5), "中级场")
    assert (m.tier, m.stage2_after_s, m.stage3_after_s) == ("intermediate", 3, 4.5)
    d = Matchmaker.from_rules(ddz.Rules.classic(), "advanced")
    assert (d.stage2_after_s, d.stage3_after_s) == (10, 20)
    m.join("a", 0, now=0)
    assert [m.stage_of("a", t) for t in (2.99, 3, 4.49, 4.5)] == [1, 2, 2, 3]


def test_from_rules_rejects_other_variants_and_inconsistent_delays():
    """§3 is CLASSIC3 only; a stage-3 delay before the stage-2 delay names the rules option."""
    with pytest.raises(ValueError, match="two_player"):
        Matchmaker.from_rules(ddz.Rules.two_player(), "novice")
    with pytest.raises(ValueError, match="match_stage3_after_s"):
        Matchmaker.from_rules(ddz.Rules.classic(match_stage3_after_s=5), "novice")
    with pytest.raises(ValueError, match="'casual'"):
        Matchmaker.from_rules(ddz.Rules.classic(), "casual")


# ---------------------------------------------------------------- queue contract

def test_join_errors():
    """§3.3: a player waits once, holds a non-negative coin count, and won ≤ completed."""
    m = Matchmaker("novice")
    m.join("a", 100, 3, 5, now=0)
    with pytest.raises(ValueError, match="'a'.*already waiting"):
        m.join("a", 100, now=1)
    with pytest.raises(ValueError, match="coins"):
        m.join("b", -1, now=0)
    with pytest.raises(ValueError, match=r"won \(6\).*completed \(5\)"):
        m.join("b", 0, 6, 5, now=0)
    with pytest.raises(ValueError, match="won"):
        m.join("b", 0, -1, 5, now=0)
    with pytest.raises(ValueError, match="coins"):
        m.join("b", 1.5, now=0)
    with pytest.raises(ValueError, match="now"):
        m.join("b", 0, now=float("inf"))
    with pytest.raises(TypeError):
        m.join(7, 0, now=0)
    with pytest.raises(TypeError):
        m.join("b", 0)  # no clock: the caller must give ``now``
    assert m.waiting == ("a",) and len(m) == 1 and "a" in m and "b" not in m


def test_leave_and_rejoin():
    """§3.3: leaving removes a waiter; a seated player may join again later."""
    m = queue("novice", [("a", 0, 0, 0, 0), ("b", 0, 0, 0, 1), ("c", 0, 0, 0, 2), ("d", 0, 0, 0, 3)])
    m.leave("b")
    assert m.waiting == ("a", "c", "d")
    with pytest.raises(KeyError):
        m.leave("b")
    assert m.match(now=3) == [("a", "c", "d")]
    assert m.waiting == () and m.match(now=4) == []
    m.join("a", 0, now=5)  # seated players are no longer waiting: joining again is fine
    assert m.waiting == ("a",)


def test_win_rate_and_newcomer():
    """§3.3 / A19: rate = won/completed in percent, exact; no completed hand counts as 50 %."""
    m = queue("novice", [("n", 0, 0, 0, 0), ("p", 0, 1, 3, 0), ("z", 0, 0, 4, 0), ("w", 0, 4, 4, 0)])
    assert m.win_rate("n") == 50
    assert m.win_rate("p") == Fraction(100, 3)
    assert (m.win_rate("z"), m.win_rate("w")) == (0, 100)
    with pytest.raises(KeyError):
        m.win_rate("q")


def test_stage_boundaries_are_inclusive():
    """§3.3: stage 2 once waited ≥ stage2_after_s, stage 3 once waited ≥ stage3_after_s;
    高级场 never reaches stage 3 (A19)."""
    for tier, late in (("novice", 3), ("intermediate", 3), ("advanced", 2)):
        m = queue(tier, [("a", 0, 0, 0, 100)])
        assert [m.stage_of("a", 100 + w) for w in (0, 9.999, 10, 19.999, 20, 10**6)] == [1, 1, 2, 2, late, late]
    m = queue("novice", [("a", 0, 0, 0, 0)], stage2_after_s=5, stage3_after_s=5)  # equal delays skip stage 2
    assert [m.stage_of("a", t) for t in (4, 5)] == [1, 3]
    with pytest.raises(ValueError, match="'a'"):
        m.stage_of("a", -1)  # before the player joined
    with pytest.raises(KeyError):
        m.stage_of("b", 10)


def test_match_before_a_join_time_is_an_error():
    """The engine takes time from the caller (§3.3); a round before a waiter joined is a caller error."""
    m = queue("novice", [("a", 0, 0, 0, 0), ("b", 0, 0, 0, 0), ("c", 0, 0, 0, 5)])
    with pytest.raises(ValueError, match="'c'"):
        m.match(now=4)
    assert m.waiting == ("a", "b", "c")


def test_module_has_no_clock_or_threads():
    """§3.3: the matchmaker takes time from the caller; no clock, thread or randomness imports."""
    src = Path(sys.modules[Matchmaker.__module__].__file__).read_text(encoding="utf-8")
    imported = set()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert not imported & {"time", "datetime", "threading", "asyncio", "random", "secrets", "os"}


# ---------------------------------------------------------------- every limit of §3.2

# (tier, stage, rate limit or None, coin limit, "and" / "or") — the cells of the §3.2 tables
LIMITS = [
    ("novice", 1, 5, 2000, "and"), ("novice", 2, 10, 5000, "or"),
    ("intermediate", 1, 20, 5000, "and"), ("intermediate", 2, 50, 10000, "or"),
    ("intermediate", 3, 50, 50000, "or"),
    ("advanced", 1, None, 20000, "and"), ("advanced", 2, None, 100000, "and"),
]


@pytest.mark.parametrize("tier, stage_, r, c, op", LIMITS)
def test_every_coin_limit_is_inclusive(tier, stage_, r, c, op):
    """§3.2 with A19 "≤": a coin difference exactly on the limit fits, one coin more does
    not. In the OR cells the win rates (0 % vs 100 %) fail, so the coins alone decide."""
    now = {1: 0, 2: 10, 3: 20}[stage_]
    for extra, expect in ((0, [("a", "b", "c")]), (1, [])):
        rec = (1, 1) if op == "or" else (0, 0)  # OR: b, c at 100 % against a at 0 %
        m = queue(tier, [("a", 0, 0, 1 if op == "or" else 0, 0),
                         ("b", c + extra, *rec, 0), ("c", c + extra, *rec, 0)])
        assert m.stage_of("a", now) == stage_
        assert m.match(now=now) == expect, (tier, stage_, extra)


@pytest.mark.parametrize("tier, stage_, r, c, op", [lim for lim in LIMITS if lim[2] is not None])
def test_every_rate_limit_is_inclusive_and_exact(tier, stage_, r, c, op):
    """§3.2 / §3.3 with A19 "≤": a win-rate difference of exactly r points fits, r + 0.1
    does not (rates are compared exactly). In the OR cells the coins (c + 1 apart) fail, so
    the rates alone decide; in the AND cells the coins are equal."""
    now = {1: 0, 2: 10, 3: 20}[stage_]
    coins = c + 1 if op == "or" else 0
    for won, completed, expect in ((r, 100, [("a", "b", "c")]), (10 * r + 1, 1000, [])):
        m = queue(tier, [("a", 0, 0, 100, 0), ("b", coins, won, completed, 0), ("c", coins, won, completed, 0)])
        assert m.match(now=now) == expect, (tier, stage_, won, completed)
    # exactness with repeating decimals: 100/3 % and 100/3 + r % differ by exactly r points
    m = queue(tier, [("a", 0, 1, 3, 0), ("b", coins, 100 + 3 * r, 300, 0), ("c", coins, 100 + 3 * r, 300, 0)])
    assert m.match(now=now) == [("a", "b", "c")]


# ---------------------------------------------------------------- 新手场 (novice)

def test_novice_stage1_rate_and_coins_both_inclusive():
    """§3.2 first criterion 新手场: win-rate difference ≤ 5 AND coin difference ≤ 2000 (A19 "≤").

    a–b sit exactly on both limits; d is 2001 coins from a, e is 6 points from a (d and e
    come before b in the queue, so a looser limit would seat them); d and e never match
    (only two remain)."""
    m = queue("新手场", [
        ("a", 10000, 10, 20, 0),   # 50 %
        ("d", 12001, 10, 20, 0),   # 50 %, 2001 coins from a
        ("e", 10000, 14, 25, 0),   # 56 %
        ("b", 12000, 11, 20, 0),   # 55 %
        ("c", 11000, 13, 25, 0),   # 52 %
    ])
    assert m.match(now=0) == [("a", "b", "c")]
    assert m.waiting == ("d", "e")
    assert m.match(now=9) == []


def test_novice_stage2_is_an_or_and_uses_the_longest_waiters_stage():
    """§3.2 second criterion 新手场: rate ≤ 10 OR coins ≤ 5000; §3.3: the table's stage is
    that of its longest waiter, so b–c (themselves still in stage 1) are judged at stage 2.

    a–b fit by rate only (9 points, 50000 coins), b–c by coins only (14 points, 4000 coins),
    a–c by rate only; d fits nobody by either term and never matches."""
    players = [
        ("a", 50000, 1, 2, 0),     # 50 %
        ("d", 0, 5, 5, 1),         # 100 %
        ("b", 100000, 59, 100, 5),  # 59 %
        ("c", 96000, 9, 20, 5),    # 45 %
    ]
    m = queue("novice", players)
    assert m.match(now=9.999) == []  # a still in stage 1: AND of 5 % / 2000 fails everywhere
    assert (m.stage_of("a", 10), m.stage_of("b", 10), m.stage_of("c", 10)) == (2, 1, 1)
    assert m.match(now=10) == [("a", "b", "c")]
    assert m.waiting == ("d",)


def test_novice_stage3_no_restriction():
    """§3.2 third criterion 新手场: 整个新手场, no restriction (A19)."""
    players = [("a", 0, 0, 10, 0), ("b", 10**9, 10, 10, 3), ("c", 5 * 10**8, 0, 0, 3)]
    m = queue("novice", players)
    assert m.match(now=19) == []
    assert m.match(now=20) == [("a", "b", "c")]


def test_newcomer_counts_as_fifty_percent():
    """§3.3 / A19: a player with no completed hand counts as 50 % — in the OR stage it
    matches 41 % and 59 % by rate but not 61 %, and is not a wildcard.

    With the newcomer n as a wildcard the table would be (n, r, p); at 0 % it would be
    (r, p, q)."""
    m = queue("novice", [
        ("n", 0, 0, 0, 0),
        ("r", 300000, 61, 100, 0),
        ("p", 100000, 59, 100, 0),
        ("q", 200000, 11, 20, 0),   # 55 %
    ])
    assert m.match(now=10) == [("n", "p", "q")]
    assert m.waiting == ("r",)


# ---------------------------------------------------------------- 中级场 (intermediate)

def test_intermediate_stage1_and_on_the_limits():
    """§3.2 first criterion 中级场: rate ≤ 20 AND coins ≤ 5000, both inclusive."""
    ok = [("d", 1000, 2, 5, 0), ("e", 6000, 3, 5, 0), ("f", 3000, 0, 0, 0)]  # 40 %, 60 %, newcomer
    assert queue("中级场", ok).match(now=0) == [("d", "e", "f")]
    too_far = [("d", 1000, 2, 5, 0), ("e", 6001, 3, 5, 0), ("f", 3000, 0, 0, 0)]
    assert queue("中级场", too_far).match(now=0) == []
    rate_off = [("d", 1000, 39, 100, 0), ("e", 6000, 3, 5, 0), ("f", 3000, 0, 0, 0)]  # 21 points
    m = queue("intermediate", rate_off)
    assert m.match(now=0) == []
    assert m.match(now=10) == [("d", "e", "f")]  # stage 2: OR, coins ≤ 10000


@pytest.mark.parametrize("now, tables", [(0, []), (9.5, []), (10, []), (19.99, []), (20, [("a", "b", "c")])])
def test_intermediate_stage3_widens_coins_to_50000(now, tables):
    """§3.2 中级场: stage 2 rate ≤ 50 OR coins ≤ 10000; stage 3 rate ≤ 50 OR coins ≤ 50000.

    a–b: 60 points, 30000 coins (only stage 3); a–c: 10 points; b–c: exactly 50 points."""
    m = queue("intermediate", [("a", 100000, 1, 10, 0), ("b", 130000, 7, 10, 0), ("c", 160000, 2, 10, 0)])
    assert m.match(now=now) == tables


def test_intermediate_or_stage_fails_when_both_terms_fail():
    """§3.2 中级场 stage 3: rate ≤ 50 OR coins ≤ 50000 — 51 points and 50001 coins fail."""
    m = queue("intermediate", [("a", 0, 0, 100, 0), ("b", 50001, 51, 100, 0), ("c", 0, 0, 100, 0)])
    assert m.match(now=10**6) == []
    assert m.stage_of("a", 10**6) == 3


# ---------------------------------------------------------------- 高级场 (advanced)

def test_advanced_stages_use_coins_only():
    """§3.2 高级场: coin difference ≤ 20000, then ≤ 100000; win rates play no part."""
    m = queue("高级场", [("a", 0, 0, 50, 0), ("b", 20000, 50, 50, 0), ("c", 40000, 0, 0, 0)])
    assert m.match(now=0) == []       # a–c 40000 > 20000
    assert m.match(now=10) == [("a", "b", "c")]
    m = queue("advanced", [("a", 0, 0, 50, 0), ("b", 20000, 50, 50, 0), ("c", 20000, 0, 0, 0)])
    assert m.match(now=0) == [("a", "b", "c")]  # 0 % and 100 % together, coins on the limit


def test_advanced_has_no_stage3():
    """§3.2 / A19: 高级场 third cell "/" = no third stage, the second criterion stays —
    unlike 新手场, where the same queue is seated at stage 3."""
    players = [("a", 0, 0, 0, 0), ("b", 100000, 0, 0, 0), ("c", 100001, 0, 0, 0)]
    adv = queue("advanced", players)
    assert adv.match(now=10**6) == []
    assert adv.stage_of("a", 10**6) == 2
    assert adv.waiting == ("a", "b", "c")
    assert queue("novice", players).match(now=20) == [("a", "b", "c")]
    # a blocks nobody: with a third player within 100000 of b and c, those three are seated
    adv.join("d", 110000, now=10**6)
    assert adv.match(now=10**6) == [("b", "c", "d")]
    assert adv.waiting == ("a",)


# ---------------------------------------------------------------- order of service

def test_lexicographic_first_admissible_triple_then_repeat():
    """§3.3: the longest waiter with the two earliest partners that fit; seat, repeat.

    Novice stage 1, all 50 % (coins decide): admissible triples include (p1,p2,p4),
    (p1,p3,p4), (p1,p4,p5), (p3,p5,p6) …; p2–p3 differ by 2001, so (p1,p2,p3) is not
    admissible and (p1,p2,p4) is the first; the next round seats (p3,p5,p6)."""
    coins = {"p1": 10000, "p2": 9000, "p3": 11001, "p4": 10000, "p5": 11000, "p6": 12000}
    m = queue("novice", [(p, c, 0, 0, i) for i, (p, c) in enumerate(coins.items())])
    assert m.match(now=6) == [("p1", "p2", "p4"), ("p3", "p5", "p6")]
    assert m.waiting == ()


def test_unmatched_longest_waiter_does_not_block_later_tables():
    """§3.3: when the longest waiter has no admissible triple, the next waiter is served;
    the unmatched player keeps its place at the head of the queue."""
    m = queue("novice", [
        ("x", 90000, 0, 0, 0),
        ("y", 1000, 0, 0, 1), ("z", 2000, 0, 0, 2), ("w", 3000, 0, 0, 3), ("v", 3000, 0, 0, 4),
    ])
    assert m.match(now=4) == [("y", "z", "w")]
    assert m.waiting == ("x", "v")
    m.join("u", 3500, now=5)
    m.join("t", 89000, now=5)
    assert m.match(now=5) == []  # x (stage 1) fits t only; v fits u only
    assert m.match(now=10) == [("x", "v", "u")]  # x in stage 2: OR, every pair of newcomers fits by rate
    assert m.waiting == ("t",)


def test_equal_join_times_are_ordered_by_join_order():
    """§3.3: equal join times are ordered by join order; otherwise by join time, whatever the
    order of the ``join`` calls."""
    m = queue("novice", [("d", 0, 0, 0, 0), ("c", 0, 0, 0, 0), ("b", 0, 0, 0, 0), ("a", 0, 0, 0, 0)])
    assert m.waiting == ("d", "c", "b", "a")
    assert m.match(now=0) == [("d", "c", "b")]
    assert m.waiting == ("a",)
    m = queue("novice", [("p", 0, 0, 0, 5), ("q", 0, 0, 0, 3), ("r", 0, 0, 0, 5), ("s", 0, 0, 0, 3)])
    assert m.waiting == ("q", "s", "p", "r")
    assert m.match(now=5) == [("q", "s", "p")]


def test_equal_join_times_decide_the_lexicographic_choice():
    """§3.3: with equal join times the join order decides which admissible triple is first.

    k fits both i and j, but i–j differ by 2001 coins: the second-joined of i/j is skipped."""
    base = [("h", 10000, 0, 0, 0), ("k", 10000, 0, 0, 0)]
    m1 = queue("novice", base + [("i", 8999, 0, 0, 0), ("j", 11000, 0, 0, 0)])
    m2 = queue("novice", base + [("j", 11000, 0, 0, 0), ("i", 8999, 0, 0, 0)])
    assert m1.match(now=0) == [("h", "k", "i")]
    assert m2.match(now=0) == [("h", "k", "j")]


# ---------------------------------------------------------------- properties

# Independent statement of §3.2 (A19): stage -> (rate, coins, op); None = no restriction.
CRITERIA = {
    "novice": {1: (5, 2000, "and"), 2: (10, 5000, "or"), 3: None},
    "intermediate": {1: (20, 5000, "and"), 2: (50, 10000, "or"), 3: (50, 50000, "or")},
    "advanced": {1: (None, 20000, "coins"), 2: (None, 100000, "coins")},
}


def rate(p):
    _, _, won, completed, _ = p
    return Fraction(100 * won, completed) if completed else Fraction(50)


def stage(tier, p, now, s2, s3):
    waited = now - p[4]
    if tier != "advanced" and waited >= s3:
        return 3
    return 2 if waited >= s2 else 1


def fits(tier, st_, p, q):
    crit = CRITERIA[tier][st_]
    if crit is None:
        return True
    r, c, op = crit
    coin_ok = abs(p[1] - q[1]) <= c
    if op == "coins":
        return coin_ok
    rate_ok = abs(rate(p) - rate(q)) <= r
    return (rate_ok and coin_ok) if op == "and" else (rate_ok or coin_ok)


def admissible(tier, triple, now, s2, s3):
    st_ = stage(tier, triple[0], now, s2, s3)  # triple in waiting order: [0] waited longest
    return all(fits(tier, st_, p, q) for p, q in itertools.combinations(triple, 2))


def oracle_round(tier, waiting, now, s2, s3):
    """§3.3 literally: ``waiting`` = players in waiting order; seat the first admissible
    triple in lexicographic order, remove it, start again."""
    waiting = list(waiting)
    tables = []
    while True:
        for triple in itertools.combinations(waiting, 3):
            if admissible(tier, triple, now, s2, s3):
                tables.append(tuple(p[0] for p in triple))
                waiting = [p for p in waiting if p not in triple]
                break
        else:
            return tables, waiting


TIMINGS = st.sampled_from([(10, 20), (1, 2), (5, 5), (3, 11), (2.5, 7.5)])
SCALE = {"novice": 400, "intermediate": 1500, "advanced": 8000}


@st.composite
def scenarios(draw, max_players=12):
    tier = draw(st.sampled_from(sorted(CRITERIA)))
    s2, s3 = draw(TIMINGS)
    n = draw(st.integers(0, max_players))
    scale = SCALE[tier]
    span = draw(st.sampled_from([0, 4, 20, 50]))  # half-seconds over which players join
    players = []
    for i in range(n):
        coins = draw(st.one_of(st.integers(0, 25).map(lambda k: k * scale), st.integers(0, 40 * scale)))
        completed = draw(st.one_of(st.just(0), st.integers(1, 4), st.integers(0, 40)))
        won = draw(st.one_of(st.integers(0, completed), st.just(completed // 2)))
        t = draw(st.integers(0, span)) / 2  # repeated and out-of-order join times on purpose
        players.append((f"p{i}", coins, won, completed, t))
    last = max((p[4] for p in players), default=0)
    now = last + draw(st.one_of(st.integers(0, 8), st.integers(0, 60))) / 2
    return tier, s2, s3, players, now


SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def waiting_order(players):
    return [p for _, p in sorted(enumerate(players), key=lambda ip: (ip[1][4], ip[0]))]


@SETTINGS
@given(scenarios())
def test_property_round_equals_literal_reading_and_tables_are_admissible(sc):
    """§3.2 / §3.3: every table satisfies, pairwise, the criterion of its longest waiter's
    stage; nobody is seated twice; seated players leave the queue, the rest keep their order;
    no admissible triple is left; the round equals the literal §3.3 loop."""
    tier, s2, s3, players, now = sc
    m = queue(tier, players, stage2_after_s=s2, stage3_after_s=s3)
    order = waiting_order(players)
    assert m.waiting == tuple(p[0] for p in order)
    tables = m.match(now=now)
    by_id = {p[0]: p for p in players}
    seated = [pid for t in tables for pid in t]
    assert len(seated) == len(set(seated)) and set(seated) <= set(by_id)
    rank = {p[0]: i for i, p in enumerate(order)}
    for t in tables:
        assert len(t) == 3 and list(t) == sorted(t, key=rank.__getitem__)
        assert admissible(tier, [by_id[pid] for pid in t], now, s2, s3)
    rest = [p for p in order if p[0] not in set(seated)]
    assert m.waiting == tuple(p[0] for p in rest)
    assert not any(admissible(tier, tr, now, s2, s3) for tr in itertools.combinations(rest, 3))
    assert (tables, rest) == oracle_round(tier, order, now, s2, s3)
    assert m.match(now=now) == []


@SETTINGS
@given(scenarios(max_players=9), st.lists(st.integers(0, 30), min_size=1, max_size=4))
def test_property_deterministic_over_a_session(sc, steps):
    """§3.3: deterministic given the same joins and times — two matchmakers fed the same
    session (joins interleaved with rounds at increasing times) seat the same tables, and
    both agree with the literal §3.3 loop round by round."""
    tier, s2, s3, players, _ = sc
    players = sorted(players, key=lambda p: p[4])  # joins happen as time goes on
    runs = []
    for _ in range(2):
        m = Matchmaker(tier, stage2_after_s=s2, stage3_after_s=s3)
        waiting, log, clock, nxt = [], [], 0.0, 0
        for dt in steps + [10**4]:
            clock += dt / 2
            while nxt < len(players) and players[nxt][4] <= clock:
                m.join(*players[nxt][:4], now=players[nxt][4])
                waiting.append(players[nxt])
                nxt += 1
            tables = m.match(now=clock)
            expect, waiting = oracle_round(tier, waiting_order(waiting), clock, s2, s3)
            assert tables == expect
            assert m.waiting == tuple(p[0] for p in waiting)
            log.append(tables)
        runs.append(log)
    assert runs[0] == runs[1]
