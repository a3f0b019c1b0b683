"""Independent brute-force reference for the play rules of RULES.md §2.0.

Pure Python, written straight from the specification; it imports nothing from ``ddz``
and shares no code with it.  It is deliberately simple and slow:

* ``interpretations(cards, rules)`` lists *every* reading of a multiset of cards
  (kind, key, chain length, body size, card count) by trying every possible body
  (§2.0.2 catalogue, §2.0.3 chain domains) and checking the rest against the kicker
  rules K1-K4 (§2.0.4);
* ``lead_reading`` / ``follow_reading`` pick one reading as the ambiguity paragraph of
  §2.0.4 says (lead: largest body in cards, then highest key; follow: the reading that
  beats ``top`` with the highest key);
* ``beats`` is §2.0.5;
* ``leads`` / ``follows`` enumerate sub-multisets of a hand and classify each one.

Enumeration of sub-multisets
----------------------------
``plain_submultisets`` yields every non-empty sub-multiset (product of count ranges) —
used for small hands.  Big hands (17..33 cards) have up to ~10^7 sub-multisets, so
``candidate_submultisets`` yields a superset of all *valid* combinations that is still
built from the hand alone, never from a move generator:

  every catalogue entry is "body + kickers" where the body is
    (a) cards of one rank                         (SOLO, PAIR, TRIO, every bomb),
    (b) a run of ranks with the same count 1/2/3  (STRAIGHT, PAIR_STRAIGHT,
        TRIO_STRAIGHT, ROCKET = B R, JOKER_BOMB = BB RR), the run being an interval of
        v (0..14) or, for trios, an arc of the 13-rank cycle 3..K A 2 (this covers the
        classic domain, the Bengbu trio line and the Bengbu cycle option),
    (c) a trio (1 unit) / a trio run of k ranks (k units) / four of a rank (2 units),
  and the kickers are ``units`` single cards (any sub-multiset of the rest of the hand
  of that size) or ``units`` pairs (a sub-multiset of size 2*units whose counts are all
  even).  The candidate set is every (a), every (b), and every body (c) plus every such
  kicker multiset of the remaining hand.  Each candidate is then classified by
  ``interpretations``, which alone decides validity.  The only variant-dependent skip
  is that single kickers on trio bodies are not generated for BENGBU4, which has no
  TRIO_SOLO and no PLANE_SOLO under any option (§2.0.2 / A33).
  The test-suite checks ``candidate_submultisets`` against ``plain_submultisets``.
"""
from __future__ import annotations

import itertools
from typing import Dict, Iterable, Iterator, List, NamedTuple, Optional, Tuple

RANKS = "3456789TJQKA2BR"          # §1.3, v = 0..14
RANK_V = {ch: v for v, ch in enumerate(RANKS)}
ACE, TWO, SJ, BJ = 11, 12, 13, 14  # v of A, 2, small joker B, big joker R
NR = 15

VARIANTS = ("classic", "two_player", "bengbu")

BOMB_KINDS = frozenset({"BOMB", "ROCKET", "BOMB4", "BOMB5", "BOMB6", "BOMB7", "BOMB8", "JOKER_BOMB"})

Counts = Tuple[int, ...]


def default_options(variant: str) -> dict:
    """The combination options of RULES.md §7 with their defaults for ``variant``."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}")
    return {
        "kicker_may_share_main_rank": False,                       # A2 / K1
        "kicker_pairs_distinct": True,                             # A4 / K3
        "rocket_as_kickers": False,                                # A5 / K4
        "single_kicker_rank_cap": {"classic": 1, "two_player": 2, "bengbu": 2}[variant],  # A3 / K2
        "four_with_two": True,                                     # classic / two_player
        "bengbu_four_with_two": False,                             # A33
        "bengbu_trio_chain_order": "line",                         # A35
        "bengbu_joker_pairs": True,                                # A36
        # RLCard's rule (PEERS.md): false = no rank next to a plane's chain (on 3..A) holds
        # three or more of its single wings
        "kicker_trio_beside_chain": True,
    }


# (variant, overriding options) of the presets of the API contract / RULES.md §7.
PRESETS = {
    "classic": ("classic", {}),
    "two_player": ("two_player", {}),
    "bengbu": ("bengbu", {}),
    "classic_douzero": ("classic", {"single_kicker_rank_cap": 4, "rocket_as_kickers": True,
                                    "kicker_pairs_distinct": True}),
    "classic_openspiel": ("classic", {"four_with_two": False, "single_kicker_rank_cap": 3,
                                      "rocket_as_kickers": False}),
    "classic_rlcard": ("classic", {"four_with_two": True, "single_kicker_rank_cap": 3, "rocket_as_kickers": False,
                                   "kicker_pairs_distinct": True, "kicker_trio_beside_chain": False}),
}


def option_values(variant: str) -> Dict[str, tuple]:
    """Every value RULES.md §7 allows for each combination option of ``variant``
    (single_kicker_rank_cap 1-4, 1-8 with two decks; the BENGBU4 options only there)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}")
    vals: Dict[str, tuple] = {
        "kicker_may_share_main_rank": (False, True),
        "kicker_pairs_distinct": (True, False),
        "rocket_as_kickers": (False, True),
        "single_kicker_rank_cap": tuple(range(1, 9 if variant == "bengbu" else 5)),
    }
    if variant == "bengbu":
        vals.update(bengbu_four_with_two=(False, True), bengbu_trio_chain_order=("line", "cycle"),
                    bengbu_joker_pairs=(True, False))
    else:
        vals["four_with_two"] = (True, False)
        vals["kicker_trio_beside_chain"] = (True, False)
    return vals


def random_options(variant: str, rng) -> dict:
    """A random value for every combination option of ``variant`` (``rng``: random.Random)."""
    return {k: rng.choice(v) for k, v in option_values(variant).items()}


class Interp(NamedTuple):
    """One reading of a multiset."""
    kind: str       # pattern ID of §2.0.2
    key: int        # comparison key (§2.0.5; chains §2.0.3)
    length: int     # ranks in the chain body; 1 for non-chains
    body: int       # cards in the main body (kickers excluded) — for the lead tie-break
    n: int          # total number of cards


# --------------------------------------------------------------------------- cards

def parse(cards) -> Counts:
    """Card string (order-insensitive) or counts -> tuple of 15 counts."""
    if isinstance(cards, tuple) and len(cards) == NR:
        return cards
    c = [0] * NR
    for ch in str(cards):
        if ch not in RANK_V:
            raise ValueError(f"unknown card {ch!r}")
        c[RANK_V[ch]] += 1
    return tuple(c)


def to_str(c: Counts) -> str:
    """Canonical string: sorted by v ascending (§1.3)."""
    return "".join(RANKS[v] * c[v] for v in range(NR))


def deck(decks: int = 1) -> Counts:
    return tuple([4 * decks] * 13 + [decks, decks])


# --------------------------------------------------------------------------- rules

def _line_chains():
    """BENGBU4 trio line (§2.0.3): positions 1..14 = A 2 3 .. K A; runs of 2..12
    consecutive positions not using both 1 and 14; key = top position."""
    pos_rank = [None, ACE, TWO] + list(range(0, 11)) + [ACE]   # index 1..14
    assert len(pos_rank) == 15 and pos_rank[3] == 0 and pos_rank[13] == 10
    out = []
    for m in range(2, 13):
        for p in range(1, 15 - m + 1):
            top = p + m - 1
            if p == 1 and top == 14:
                continue
            out.append((tuple(pos_rank[q] for q in range(p, top + 1)), top))
    return out


def _cycle_chains():
    """BENGBU4 cycle option: arcs of >= 2 ranks of the cycle 3..K A 2 3; key = v of the
    arc's last rank in cycle direction.  (13 ranks = 39 cards never fit a hand.)"""
    out = []
    for m in range(2, 13):
        for s in range(13):
            ranks = tuple((s + i) % 13 for i in range(m))
            out.append((ranks, ranks[-1]))
    return out


def _std_chains(min_len: int):
    """Ranks 3..A (v 0..11), no 2, no jokers, no wrap; key = v of the highest rank."""
    out = []
    for m in range(min_len, 13):
        for lo in range(0, 12 - m + 1):
            ranks = tuple(range(lo, lo + m))
            out.append((ranks, ranks[-1]))
    return out


class RefRules:
    """Variant + combination options.  ``options`` may hold other (non-combination)
    option names when ``strict`` is False (e.g. a full ``ddz.Rules.options`` dict)."""

    def __init__(self, variant: str, options: Optional[dict] = None, *, strict: bool = True):
        opts = default_options(variant)
        for k, v in (options or {}).items():
            if k in opts:
                opts[k] = v
            elif strict:
                raise ValueError(f"unknown combination option {k!r}")
        if opts["bengbu_trio_chain_order"] not in ("line", "cycle"):
            raise ValueError("bengbu_trio_chain_order")
        self.variant = variant
        self.opts = opts
        self.decks = 2 if variant == "bengbu" else 1
        self.bengbu = variant == "bengbu"
        self.share = bool(opts["kicker_may_share_main_rank"])
        self.pairs_distinct = bool(opts["kicker_pairs_distinct"])
        self.rocket_kick = bool(opts["rocket_as_kickers"])
        self.cap = int(opts["single_kicker_rank_cap"])
        self.trio_beside = bool(opts["kicker_trio_beside_chain"])
        self.four_two = bool(opts["bengbu_four_with_two"] if self.bengbu else opts["four_with_two"])
        self.joker_pairs = self.bengbu and bool(opts["bengbu_joker_pairs"])
        if self.bengbu:
            trio = _line_chains() if opts["bengbu_trio_chain_order"] == "line" else _cycle_chains()
        else:
            trio = _std_chains(2)
        # (ranks, key, bitmask)
        self.trio_chains = [(rk, key, sum(1 << r for r in rk)) for rk, key in trio]
        self._within: Dict[int, list] = {}
        self._cache: Dict[Counts, Tuple[Interp, ...]] = {}

    @classmethod
    def preset(cls, name: str) -> "RefRules":
        variant, opts = PRESETS[name]
        return cls(variant, opts)

    def __repr__(self):
        changed = {k: v for k, v in self.opts.items() if v != default_options(self.variant)[k]}
        return f"RefRules({self.variant!r}, {changed})"

    def chains_within(self, mask: int):
        got = self._within.get(mask)
        if got is None:
            got = [ch for ch in self.trio_chains if ch[2] & ~mask == 0]
            self._within[mask] = got
        return got

    def is_pair_rank(self, r: int) -> bool:
        """PAIR ranks (§2.0.2, A36): 3..2; two decks also B and R (bengbu_joker_pairs)."""
        return r <= TWO or (self.joker_pairs and r in (SJ, BJ))


# --------------------------------------------------------------------------- classify

def _kickers_ok(rest: Counts, units: int, pairs: bool, body_ranks, rules: RefRules) -> bool:
    """K1-K4 of §2.0.4 for the kicker multiset ``rest`` of a body with ``units`` kicker
    slots (singles: ``units`` cards; pairs: ``units`` pairs)."""
    n = sum(rest)
    if n != (2 * units if pairs else units):
        return False
    # K1: no kicker of a main-body rank
    if not rules.share and any(rest[r] for r in body_ranks):
        return False
    # K4: not both jokers (one deck) / not all four jokers (two decks)
    if not rules.rocket_kick:
        if rules.decks == 1 and rest[SJ] and rest[BJ]:
            return False
        if rules.decks == 2 and rest[SJ] >= 2 and rest[BJ] >= 2:
            return False
    if pairs:
        for r in range(NR):
            x = rest[r]
            if x == 0:
                continue
            if x % 2 or not rules.is_pair_rank(r):
                return False
            # K3: pairwise different ranks; with kicker_pairs_distinct = false "the same
            # pair rank may be used twice" (read literally: at most twice, which only
            # matters with two decks)
            if x > (2 if rules.pairs_distinct else 4):
                return False
        return True
    # K2: at most `cap` single kickers of one rank
    return max(rest) <= rules.cap


def _interpretations(c: Counts, rules: RefRules) -> Tuple[Interp, ...]:
    n = sum(c)
    if n == 0:
        return ()
    ranks = [r for r in range(NR) if c[r]]
    d = len(ranks)
    bengbu = rules.bengbu

    # ---- bomb classes: "any set of >= 4 cards all of one rank is ONLY a bomb";
    #      BR in one deck is only a ROCKET; BBRR in two decks is the JOKER_BOMB.
    if d == 1 and n >= 4:
        r = ranks[0]
        if not bengbu:
            return (Interp("BOMB", r, 1, n, n),) if n == 4 and r <= TWO else ()
        return (Interp(f"BOMB{n}", r, 1, n, n),) if 4 <= n <= 8 and r <= TWO else ()
    if not bengbu and d == 2 and c[SJ] == 1 and c[BJ] == 1:
        return (Interp("ROCKET", BJ, 1, 2, 2),)
    if bengbu and d == 2 and c[SJ] == 2 and c[BJ] == 2:
        return (Interp("JOKER_BOMB", BJ, 1, 4, 4),)

    out: List[Interp] = []
    # ---- one-rank patterns
    if d == 1:
        r = ranks[0]
        if n == 1:
            out.append(Interp("SOLO", r, 1, 1, 1))
        elif n == 2 and rules.is_pair_rank(r):
            out.append(Interp("PAIR", r, 1, 2, 2))
        elif n == 3 and r <= TWO:
            out.append(Interp("TRIO", r, 1, 3, 3))

    # ---- straights and pair straights: ranks 3..A consecutive (all variants, A34)
    uniform = len({c[r] for r in ranks}) == 1
    if uniform and ranks[-1] <= ACE and ranks[-1] - ranks[0] == d - 1:
        m = c[ranks[0]]
        if m == 1 and d >= 5 and not bengbu:
            out.append(Interp("STRAIGHT", ranks[-1], d, n, n))
        elif m == 2 and d >= 3:
            out.append(Interp("PAIR_STRAIGHT", ranks[-1], d, n, n))

    # ---- trio (+ kickers)
    for r in ranks:
        if c[r] >= 3 and r <= TWO:
            rest = list(c)
            rest[r] -= 3
            rest = tuple(rest)
            if not bengbu and _kickers_ok(rest, 1, False, (r,), rules):
                out.append(Interp("TRIO_SOLO", r, 1, 3, n))
            if _kickers_ok(rest, 1, True, (r,), rules):
                out.append(Interp("TRIO_PAIR", r, 1, 3, n))

    # ---- four with two
    if rules.four_two:
        for r in ranks:
            if c[r] >= 4 and r <= TWO:
                rest = list(c)
                rest[r] -= 4
                rest = tuple(rest)
                if _kickers_ok(rest, 2, False, (r,), rules):
                    out.append(Interp("FOUR_TWO_SOLO", r, 1, 4, n))
                if _kickers_ok(rest, 2, True, (r,), rules):
                    out.append(Interp("FOUR_TWO_PAIR", r, 1, 4, n))

    # ---- trio chains and planes
    tmask = sum(1 << r for r in ranks if c[r] >= 3)
    if tmask & (tmask - 1):
        for chain, key, _ in rules.chains_within(tmask):
            k = len(chain)
            if 3 * k > n:
                continue
            rest = list(c)
            for r in chain:
                rest[r] -= 3
            rest = tuple(rest)
            if n == 3 * k:
                out.append(Interp("TRIO_STRAIGHT", key, k, n, n))
            elif n == 4 * k:
                beside = [r for r in (chain[0] - 1, chain[-1] + 1) if 0 <= r <= ACE]
                if (not bengbu and _kickers_ok(rest, k, False, chain, rules)
                        and (rules.trio_beside or all(rest[r] < 3 for r in beside))):
                    out.append(Interp("PLANE_SOLO", key, k, 3 * k, n))
            elif n == 5 * k:
                if _kickers_ok(rest, k, True, chain, rules):
                    out.append(Interp("PLANE_PAIR", key, k, 3 * k, n))
    return tuple(sorted(set(out)))


def interpretations(cards, rules: RefRules) -> Tuple[Interp, ...]:
    """Every reading of ``cards`` (string or counts) under ``rules``; () if invalid."""
    c = parse(cards)
    got = rules._cache.get(c)
    if got is None:
        got = _interpretations(c, rules)
        rules._cache[c] = got
    return got


def lead_reading(cards, rules: RefRules) -> Optional[Interp]:
    """§2.0.4 ambiguity paragraph: largest body (cards), then highest key."""
    its = interpretations(cards, rules)
    if not its:
        return None
    return max(its, key=lambda i: (i.body, i.key))


classify = lead_reading


def is_bomb(i: Interp) -> bool:
    return i.kind in BOMB_KINDS


def _power(i: Interp, rules: RefRules):
    if rules.bengbu:
        if i.kind == "JOKER_BOMB":
            return (9, 0)
        return (i.n, i.key)
    if i.kind == "ROCKET":
        return (1, 0)
    return (0, i.key)


def beats(p: Interp, t: Interp, rules: RefRules) -> bool:
    """§2.0.5: does play ``p`` beat ``top`` ``t``?"""
    pb, tb = is_bomb(p), is_bomb(t)
    if pb and not tb:
        return True
    if pb and tb:
        return _power(p, rules) > _power(t, rules)
    if tb:
        return False
    return p.kind == t.kind and p.n == t.n and p.key > t.key


def follow_reading(cards, rules: RefRules, top: Interp) -> Optional[Interp]:
    """The reading of ``cards`` that beats ``top`` with the highest key, or None."""
    good = [i for i in interpretations(cards, rules) if beats(i, top, rules)]
    if not good:
        return None
    return max(good, key=lambda i: (i.key, i.body))


# --------------------------------------------------------------------------- enumeration

def n_submultisets(hand: Counts) -> int:
    p = 1
    for x in hand:
        p *= x + 1
    return p - 1


def plain_submultisets(hand: Counts) -> Iterator[Counts]:
    """Every non-empty sub-multiset of ``hand``."""
    for combo in itertools.product(*(range(x + 1) for x in hand)):
        if any(combo):
            yield combo


def submultisets_of_size(c: Counts, size: int, start: int = 0) -> Iterator[Counts]:
    """Every sub-multiset of ``c`` with exactly ``size`` cards."""
    if size == 0:
        yield (0,) * NR
        return
    avail = sum(c[start:])
    if avail < size:
        return

    def rec(r, left, acc):
        if left == 0:
            yield tuple(acc)
            return
        if r == NR:
            return
        for x in range(min(c[r], left), -1, -1):
            acc[r] = x
            yield from rec(r + 1, left - x, acc)
        acc[r] = 0

    yield from rec(0, size, [0] * NR)


def _add(a: Counts, b: Counts) -> Counts:
    return tuple(x + y for x, y in zip(a, b))


def _sub(a: Counts, b: Counts) -> Counts:
    return tuple(x - y for x, y in zip(a, b))


def _runs(hand: Counts):
    """(count m, ranks) of every uniform run a body can use: v-intervals (m = 1, 2, 3)
    of >= 2 ranks and arcs of the cycle 3..K A 2 (m = 3) of >= 2 ranks, with
    hand[r] >= m on every rank."""
    seen = set()
    for m in (1, 2, 3):
        for lo in range(NR):
            hi = lo
            while hi < NR and hand[hi] >= m:
                if hi > lo:
                    seen.add((m, tuple(range(lo, hi + 1))))
                hi += 1
    for s in range(13):
        for length in range(2, 13):
            arc = tuple((s + i) % 13 for i in range(length))
            if all(hand[r] >= 3 for r in arc):
                seen.add((3, arc))
            else:
                break
    return seen


def candidate_submultisets(hand: Counts, rules: RefRules) -> set:
    """A superset of all valid combinations contained in ``hand`` (see module doc)."""
    out = set()
    bodies = []                       # (body counts, kicker units)
    for r in range(NR):
        for m in range(1, hand[r] + 1):
            one = [0] * NR
            one[r] = m
            out.add(tuple(one))
        if hand[r] >= 3:
            one = [0] * NR
            one[r] = 3
            bodies.append((tuple(one), 1))
        if hand[r] >= 4:
            one = [0] * NR
            one[r] = 4
            bodies.append((tuple(one), 2))
    for m, ranks in _runs(hand):
        body = [0] * NR
        for r in ranks:
            body[r] = m
        body = tuple(body)
        out.add(body)
        if m == 3:
            bodies.append((body, len(ranks)))
    for body, units in bodies:
        rest = _sub(hand, body)
        is_trio_body = max(body) == 3
        if not (is_trio_body and rules.bengbu):   # BENGBU4: no TRIO_SOLO / PLANE_SOLO
            for k in submultisets_of_size(rest, units):
                out.add(_add(body, k))
        half = tuple(x // 2 for x in rest)
        for k in submultisets_of_size(half, units):
            out.add(tuple(b + 2 * x for b, x in zip(body, k)))
    return out


def valid_plays(hand, rules: RefRules, method: str = "auto") -> Dict[Counts, Tuple[Interp, ...]]:
    """{sub-multiset: all its readings} for every valid combination inside ``hand``.
    method: 'plain' (every sub-multiset), 'pruned' (candidate_submultisets) or 'auto'
    (plain when the hand has at most 5000 sub-multisets)."""
    hand = parse(hand)
    if method == "auto":
        method = "plain" if n_submultisets(hand) <= 5000 else "pruned"
    if method == "plain":
        source: Iterable[Counts] = plain_submultisets(hand)
    elif method == "pruned":
        source = candidate_submultisets(hand, rules)
    else:
        raise ValueError(method)
    out = {}
    for sub in source:
        its = interpretations(sub, rules)
        if its:
            out[sub] = its
    return out


def lead_set(plays: Dict[Counts, Tuple[Interp, ...]]) -> set:
    """{(canonical cards, kind, key)} of the leads, one per multiset, lead reading."""
    res = set()
    for sub, its in plays.items():
        i = max(its, key=lambda i: (i.body, i.key))
        res.add((to_str(sub), i.kind, i.key))
    return res


def follow_set(plays: Dict[Counts, Tuple[Interp, ...]], top: Interp, rules: RefRules) -> set:
    """{(canonical cards, kind, key)} of the plays beating ``top`` (follow reading)."""
    res = set()
    for sub, its in plays.items():
        good = [i for i in its if beats(i, top, rules)]
        if good:
            i = max(good, key=lambda i: (i.key, i.body))
            res.add((to_str(sub), i.kind, i.key))
    return res


def leads(hand, rules: RefRules, method: str = "auto") -> set:
    return lead_set(valid_plays(hand, rules, method))


def follows(hand, rules: RefRules, top, method: str = "auto") -> set:
    if not isinstance(top, Interp):
        t = lead_reading(top, rules)
        if t is None:
            raise ValueError(f"top {top!r} is not a combination")
        top = t
    return follow_set(valid_plays(hand, rules, method), top, rules)
