"""CLASSIC3 matchmaking (匹配原则): docs/rules.md §9 ("Matchmaking") and DECISION A19.

A :class:`Matchmaker` holds the waiting queue of one room tier (新手场, 中级场 or 高级场)
and seats tables of three. It has no clock and no threads: every call that depends on
time takes ``now`` (seconds, any origin, the same for all calls of one matchmaker) from
the caller, and the same joins at the same times always give the same tables.

Criteria (docs/rules.md §9, every threshold "≤", all three pairs of a table must satisfy
it; rate = won / completed CLASSIC3 hands in percent, 50 % with none completed):

=============  ===========================  ===========================  ============================
Tier           stage 1                      stage 2                      stage 3
=============  ===========================  ===========================  ============================
新手场 novice   rate ≤ 5 AND coins ≤ 2000    rate ≤ 10 OR coins ≤ 5000    no restriction
中级场          rate ≤ 20 AND coins ≤ 5000   rate ≤ 50 OR coins ≤ 10000   rate ≤ 50 OR coins ≤ 50000
高级场          coins ≤ 20000                coins ≤ 100000               (none: stage 2 stays)
=============  ===========================  ===========================  ============================

Stage of a player: 1 from joining, 2 once it has waited ≥ ``stage2_after_s``, 3 once it
has waited ≥ ``stage3_after_s``. Stage of a candidate table: that of its longest waiter.
A matching round seats the first admissible triple in lexicographic order of waiting
rank (longest waiter first; equal join times ordered by join order), removes it, and
repeats until no triple fits.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Dict, List, NamedTuple, Optional, Tuple
from ..core.errors import ArgumentError, ArgumentTypeError, shown
from ..core.variants import VARIANT

__all__ = ["Matchmaker", "MATCH_TIERS"]

# canonical tier name -> Chinese room name (docs/rules.md §9)
MATCH_TIERS: Dict[str, str] = {"novice": "新手场", "intermediate": "中级场", "advanced": "高级场"}
_TIER_ALIASES: Dict[str, str] = {**{k: k for k in MATCH_TIERS}, **{v: k for k, v in MATCH_TIERS.items()}}


class _Criterion(NamedTuple):
    """One cell of the criteria table of this module's docstring (docs/rules.md §9,
    "Matchmaking"): ``rate`` (percentage points) and/or ``coins`` (``None`` = that term is
    absent), joined by ``op`` ("and" / "or"). Both absent means no restriction."""
    rate: Optional[int]
    coins: Optional[int]
    op: str


_NO_RESTRICTION = _Criterion(None, None, "and")

# tier -> (stage 1, stage 2, stage 3 or None when the tier has no third stage)
_CRITERIA: Dict[str, Tuple[_Criterion, _Criterion, Optional[_Criterion]]] = {
    "novice": (_Criterion(5, 2000, "and"), _Criterion(10, 5000, "or"), _NO_RESTRICTION),
    "intermediate": (_Criterion(20, 5000, "and"), _Criterion(50, 10000, "or"), _Criterion(50, 50000, "or")),
    "advanced": (_Criterion(None, 20000, "and"), _Criterion(None, 100000, "and"), None),
}


class _Entry(NamedTuple):
    player_id: str
    coins: int
    won: int        # the rate is 100 * won / completed percent (newcomer: 1 / 2)
    completed: int
    joined_at: float
    seq: int        # join order, breaks ties of equal join times


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_time(name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ArgumentError(f"{name} must be a finite number of seconds, not {shown(v)}")
    return v


def _check_delay(name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
        raise ArgumentError(f"{name} must be a positive number of seconds, not {shown(v)}")
    return v


class Matchmaker:
    """The CLASSIC3 waiting queue of one room tier (docs/rules.md §9, DECISION A19).

    ``Matchmaker(tier, *, stage2_after_s=10, stage3_after_s=20)``; ``tier`` is
    ``"novice"``, ``"intermediate"``, ``"advanced"`` or the room name ``"新手场"``,
    ``"中级场"``, ``"高级场"``. ``Matchmaker.from_rules(rules, tier)`` takes the two delays
    from a CLASSIC3 ``ddz.Rules`` (options ``match_stage2_after_s`` /
    ``match_stage3_after_s``). An unknown tier or a bad delay (not a positive number, or
    stage 3 before stage 2) raises ``ValueError`` naming it. 高级场 has no stage 3; its
    ``stage3_after_s`` is validated but never used.
    """

    __slots__ = ("_tier", "_stage2", "_stage3", "_entries", "_seq")

    def __init__(self, tier: str, *, stage2_after_s: float = 10, stage3_after_s: float = 20) -> None:
        canon = _TIER_ALIASES.get(tier.strip().lower() if isinstance(tier, str) else None)  # type: ignore[arg-type]
        if canon is None:
            raise ArgumentError(f"unknown matchmaking tier {shown(tier)}: use one of "
                             + ", ".join(f"{shown(k)} ({v})" for k, v in MATCH_TIERS.items()))
        s2 = _check_delay("stage2_after_s", stage2_after_s)
        s3 = _check_delay("stage3_after_s", stage3_after_s)
        if s3 < s2:
            raise ArgumentError(f"stage3_after_s ({shown(s3)}) must not be less than stage2_after_s ({shown(s2)})")
        self._tier = canon
        self._stage2 = s2
        self._stage3 = s3
        self._entries: Dict[str, _Entry] = {}
        self._seq = 0

    @classmethod
    def from_rules(cls, rules: Any, tier: str) -> "Matchmaker":
        """A matchmaker for ``tier`` with the delays of a CLASSIC3 ``ddz.Rules``
        (``rules.options["match_stage2_after_s"]`` / ``["match_stage3_after_s"]``,
        docs/rules.md §11)."""
        variant = getattr(rules, "variant", None)
        if not isinstance(variant, str) or variant not in VARIANT or not VARIANT[variant].matchmaking:
            raise ArgumentError(f"matchmaking is defined for CLASSIC3 rules only (docs/rules.md §9), not variant {shown(variant)}")
        opts = rules.options
        try:
            s2, s3 = opts["match_stage2_after_s"], opts["match_stage3_after_s"]
        except KeyError as e:  # pragma: no cover - every classic Rules has both options
            raise ArgumentError(f"rules lack option {e.args[0]}") from None
        try:
            return cls(tier, stage2_after_s=s2, stage3_after_s=s3)
        except ValueError as e:
            msg = str(e).replace("stage2_after_s", "match_stage2_after_s").replace(
                "stage3_after_s", "match_stage3_after_s")
            raise ArgumentError(msg) from None

    # ---- configuration ----
    @property
    def tier(self) -> str:
        """Canonical tier name: ``"novice"``, ``"intermediate"`` or ``"advanced"``."""
        return self._tier

    @property
    def room_name(self) -> str:
        """The Chinese room name (新手场 / 中级场 / 高级场)."""
        return MATCH_TIERS[self._tier]

    @property
    def stage2_after_s(self) -> float:
        return self._stage2

    @property
    def stage3_after_s(self) -> float:
        return self._stage3

    @property
    def has_stage3(self) -> bool:
        """False for 高级场 ("/" in the third table: the second criterion stays, A19)."""
        return _CRITERIA[self._tier][2] is not None

    # ---- queue ----
    def join(self, player_id: str, coins: int, won: int = 0, completed: int = 0, *, now: float) -> None:
        """Put ``player_id`` in the queue at time ``now`` with ``coins`` held and its
        CLASSIC3 record (``won`` of ``completed`` hands; none completed counts as 50 %).

        Raises ``ValueError`` if the player is already waiting, ``coins``, ``won`` or
        ``completed`` is negative or not an integer, ``won > completed``, or ``now`` is
        not a finite number; ``TypeError`` if ``player_id`` is not a string."""
        if not isinstance(player_id, str):
            raise ArgumentTypeError(f"player_id must be a str, not {type(player_id).__name__}")
        if player_id in self._entries:
            raise ArgumentError(f"player {shown(player_id)} is already waiting")
        for name, v in (("coins", coins), ("won", won), ("completed", completed)):
            if not _is_int(v) or v < 0:
                raise ArgumentError(f"{name} of player {shown(player_id)} must be a non-negative integer, not {shown(v)}")
        if won > completed:
            raise ArgumentError(f"player {shown(player_id)}: won ({shown(won)}) must not exceed completed ({shown(completed)})")
        t = _check_time("now", now)
        self._entries[player_id] = _Entry(player_id, coins, won, completed, t, self._seq)
        self._seq += 1

    def leave(self, player_id: str) -> None:
        """Take a waiting player out of the queue; ``KeyError`` if it is not waiting."""
        if player_id not in self._entries:
            raise KeyError(player_id)
        del self._entries[player_id]

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, player_id: object) -> bool:
        return player_id in self._entries

    @property
    def waiting(self) -> Tuple[str, ...]:
        """The queue in waiting order: longest waiter (earliest join time) first, equal
        join times in join order."""
        return tuple(e.player_id for e in self._ordered())

    def win_rate(self, player_id: str) -> Fraction:
        """The rate used for matching, exact, in percent (50 with no completed hand)."""
        e = self._get(player_id)
        return Fraction(100 * e.won, e.completed) if e.completed else Fraction(50)

    def stage_of(self, player_id: str, now: float) -> int:
        """1, 2 or 3: the stage of a waiting player at time ``now``."""
        e = self._get(player_id)
        t = _check_time("now", now)
        self._check_not_before(e, t)
        return self._stage(e, t)

    # ---- matching ----
    def match(self, now: float) -> List[Tuple[str, str, str]]:
        """Run a matching round at time ``now``; return the tables seated, in the
        order seated, each as its players in waiting order. Seated players leave the queue.

        Raises ``ValueError`` if ``now`` is not a finite number or is earlier than the
        join time of a waiting player."""
        t = _check_time("now", now)
        order = self._ordered()
        for e in order:
            self._check_not_before(e, t)
        # One pass in waiting order is the "seat the first admissible triple, repeat"
        # loop: admissibility of a triple depends only on its members (and ``now``), and
        # seating only removes players, so a longest waiter with no admissible triple
        # never gets one later in the round.
        seated = [False] * len(order)
        tables: List[Tuple[str, str, str]] = []
        n = len(order)
        for i in range(n - 2):
            if seated[i]:
                continue
            a = order[i]
            crit = self._criterion(self._stage(a, t))
            partners = [j for j in range(i + 1, n) if not seated[j] and self._fits(crit, a, order[j])]
            found = None
            for x, j in enumerate(partners):
                b = order[j]
                for k in partners[x + 1:]:
                    if self._fits(crit, b, order[k]):
                        found = (j, k)
                        break
                if found:
                    break
            if found:
                j, k = found
                seated[i] = seated[j] = seated[k] = True
                tables.append((a.player_id, order[j].player_id, order[k].player_id))
        for table in tables:
            for pid in table:
                del self._entries[pid]
        return tables

    # ---- internals ----
    def _get(self, player_id: str) -> _Entry:
        try:
            return self._entries[player_id]
        except KeyError:
            raise KeyError(player_id) from None

    def _ordered(self) -> List[_Entry]:
        return sorted(self._entries.values(), key=lambda e: (e.joined_at, e.seq))

    @staticmethod
    def _check_not_before(e: _Entry, now: float) -> None:
        if now < e.joined_at:
            raise ArgumentError(f"now={shown(now)} is earlier than the join time {shown(e.joined_at)} of player {shown(e.player_id)}")

    def _stage(self, e: _Entry, now: float) -> int:
        waited = now - e.joined_at
        if waited >= self._stage3 and self.has_stage3:
            return 3
        if waited >= self._stage2:
            return 2
        return 1

    def _criterion(self, stage: int) -> _Criterion:
        crit = _CRITERIA[self._tier][stage - 1]
        assert crit is not None
        return crit

    @staticmethod
    def _fits(c: _Criterion, a: _Entry, b: _Entry) -> bool:
        if c.coins is not None:
            coins_ok = abs(a.coins - b.coins) <= c.coins
            if c.rate is None:
                return coins_ok
            if coins_ok != (c.op == "and"):  # decided: OR with coins fitting, AND with coins failing
                return coins_ok
        elif c.rate is None:
            return True  # no restriction (新手场 stage 3)
        na, da = (a.won, a.completed) if a.completed else (1, 2)  # a newcomer counts as 50 %
        nb, db = (b.won, b.completed) if b.completed else (1, 2)
        # |100·na/da − 100·nb/db| ≤ rate  ⇔  100·|na·db − nb·da| ≤ rate·da·db  (exact)
        return 100 * abs(na * db - nb * da) <= c.rate * da * db

    def __repr__(self) -> str:
        return (f"<Matchmaker {self._tier} ({self.room_name}) stage2_after_s={self._stage2!r} "
                f"stage3_after_s={self._stage3!r}, {len(self._entries)} waiting>")
