"""Adapters for the peer Dou Dizhu engines used to cross-check ``ddz``.

Every adapter speaks the project's card notation (docs/rules.md §1): a hand or a play is a
string over ``3456789TJQKA2BR``; results are *sets* of canonical strings (sorted by rank
value), pass excluded, each distinct multiset once.

Adapters (module-level singletons):

* ``DOUZERO``   -- douzero 1.1.0 (``douzero.env.move_generator`` & co; no torch needed)
* ``RLCARD``    -- rlcard 1.2.0 (``rlcard.games.doudizhu``)
* ``OPENSPIEL`` -- open_spiel 2.0.2 (``pyspiel.load_game("dou_dizhu")``)

Each exposes ``available()``, ``leads(hand)``, ``follows(hand, prev)`` and
``universe()``; some expose more (raw generator output, action ids, states prepared for
benchmarks). The adapters use nothing of ``ddz``: these are the peers' own answers.

``RLCardRuleBot`` is the other way round: a ``ddz.bots.Bot`` that seats RLCard's rule agent
(``DouDizhuRuleAgentV1``) at a ``ddz.Game`` under ``Rules.classic_rlcard()``, for matches.
Importing this module imports no peer; each peer is imported when first used.

Running ``python -m ddz.peers`` prints the peers' universes and re-checks every row of
the table of docs/peers.md, "How the peers differ" (with the defects listed under "DouZero"
and "OpenSpiel"), against the installed peers.
"""
from __future__ import annotations

import collections
import itertools
import types
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from ..core.rules import Rules
from ..search.bots import Bot
from ..core.errors import ArgumentError, IllegalCode, illegal, shown

ORDER = "3456789TJQKA2BR"
V = {c: i for i, c in enumerate(ORDER)}
CHAIN_TOP = V["A"]  # chains use ranks 3..A (v 0..11)


# --------------------------------------------------------------------------- helpers
def canon(cards) -> str:
    """Canonical form: sorted by rank value. Raises KeyError on unknown characters."""
    return "".join(sorted(cards, key=V.__getitem__))


def counts(cards) -> list:
    c = [0] * 15
    for ch in cards:
        c[V[ch]] += 1
    return c


def from_counts(c) -> str:
    return "".join(ORDER[v] * n for v, n in enumerate(c))


FULL_DECK = "3333444455556666777788889999TTTTJJJJQQQQKKKKAAAA2222BR"


def sub_multisets(cards: str, size: int):
    """All distinct sub-multisets of ``cards`` with ``size`` cards (canonical strings)."""
    c = counts(cards)
    ranks = [v for v in range(15) if c[v]]
    out = []

    def rec(i, left, acc):
        if left == 0:
            out.append(acc)
            return
        if i == len(ranks):
            return
        v = ranks[i]
        for n in range(min(c[v], left), -1, -1):
            rec(i + 1, left - n, acc + ORDER[v] * n)

    rec(0, size, "")
    return out


def chain_only_shape(m: str):
    """If ``m`` is a pure chain (STRAIGHT / PAIR_STRAIGHT / TRIO_STRAIGHT shape: a run of
    consecutive ranks within 3..A, every rank the same count 1/2/3, long enough),
    return (lowest v, count per rank, length); else None."""
    c = counts(m)
    ranks = [v for v in range(15) if c[v]]
    if not ranks or ranks[-1] > CHAIN_TOP:
        return None
    n = c[ranks[0]]
    if n not in (1, 2, 3) or any(c[v] != n for v in ranks):
        return None
    if ranks[-1] - ranks[0] + 1 != len(ranks):
        return None
    if len(ranks) < {1: 5, 2: 3, 3: 2}[n]:
        return None
    return ranks[0], n, len(ranks)


def plane_solo_readings(m: str):
    """Chain lengths k for which ``m`` (4k cards) reads as a trio chain of k ranks
    (3..A, each rank exactly 3 times in m, i.e. no kicker of a body rank) plus k single
    kickers of any shape. (DouZero's generator accepts any such kickers.)"""
    c = counts(m)
    if len(m) % 4:
        return []
    k = len(m) // 4
    out = []
    for lo in range(0, CHAIN_TOP - k + 2):
        if all(c[v] == 3 for v in range(lo, lo + k)):
            out.append(lo)
    return [(k, lo) for lo in out] if k >= 2 else []


def max_trio_rank(m: str) -> int:
    """DouZero's plane comparison key: the highest rank held exactly 3 times in the
    whole move (wings included)."""
    c = counts(m)
    return max(v for v in range(15) if c[v] == 3)


def is_bomb_or_rocket(m: str) -> bool:
    return m == "BR" or (len(m) == 4 and len(set(m)) == 1)


# --------------------------------------------------------------------------- douzero
class _Peer:
    """A peer engine imported lazily by ``_load()``."""

    def _load(self):  # pragma: no cover - overridden
        raise NotImplementedError

    def available(self) -> bool:
        try:
            self._load()
            return True
        except Exception:  # pragma: no cover - depends on the environment
            return False


class DouZeroPeer(_Peer):
    """douzero 1.1.0. Cards are ints: 3..14 = 3..A, 17 = '2', 20 = 'B', 30 = 'R'."""

    name = "douzero"
    TO_INT = {**{ORDER[v]: v + 3 for v in range(12)}, "2": 17, "B": 20, "R": 30}
    TO_CH = {i: ch for ch, i in TO_INT.items()}

    def __init__(self):
        self._mods = None

    def _load(self):
        if self._mods is None:
            from douzero.env import move_detector, move_generator, move_selector
            from douzero.env.game import GameEnv

            self._mods = types.SimpleNamespace(
                md=move_detector, mg=move_generator, ms=move_selector, GameEnv=GameEnv
            )
        return self._mods

    # conversions
    def to_ints(self, cards: str) -> list:
        return sorted(self.TO_INT[ch] for ch in cards)

    def to_str(self, ints) -> str:
        return canon(self.TO_CH[i] for i in ints)

    # raw generator output (a list with repeated entries, as douzero returns it)
    def leads_raw(self, hand: str) -> list:
        return self._load().mg.MovesGener(self.to_ints(hand)).gen_moves()

    def leads(self, hand: str) -> set:
        return {self.to_str(m) for m in self.leads_raw(hand)}

    def follows_raw(self, hand: str, prev: str) -> list:
        """DouZero's own answer path, ``GameEnv.get_legal_card_play_actions`` (detector
        classifies the rival move, the generator builds that type, the selector filters,
        bombs and rocket are appended, then pass). Called on a minimal stand-in object."""
        mods = self._load()
        fake = types.SimpleNamespace(
            info_sets={"p": types.SimpleNamespace(player_hand_cards=self.to_ints(hand))},
            acting_player_position="p",
            card_play_action_seq=[self.to_ints(prev)],
        )
        return mods.GameEnv.get_legal_card_play_actions(fake)

    def follows(self, hand: str, prev: str) -> set:
        return {self.to_str(m) for m in self.follows_raw(hand, prev) if m}

    def detect(self, move: str) -> dict:
        """douzero.env.move_detector.get_move_type on a canonical string."""
        return self._load().md.get_move_type(self.to_ints(move))

    def detector_rejects(self, move: str) -> bool:
        md = self._load().md
        return md.get_move_type(self.to_ints(move))["type"] == md.TYPE_15_WRONG

    def universe(self, max_cards: int = 20) -> set:
        """Leads of the full 54-card deck from douzero's MovesGener, restricted to
        ``max_cards`` cards. The generator enumerates kickers with
        ``itertools.combinations`` over the card *list* (so one multiset comes out many
        times); on a 54-card deck that is tens of millions of lists. For this call only,
        the module's ``select`` is swapped for one that yields each distinct sub-multiset
        once -- the *set* of generated moves is unchanged -- and the plane generators are
        asked only for chain lengths that fit in ``max_cards``."""
        mods = self._load()
        mg_mod = mods.mg
        orig_select = mg_mod.select

        def select_patched(cards, num):
            chars = canon(self.TO_CH[i] for i in cards)
            return [self.to_ints(m) for m in sub_multisets(chars, num)]

        mg_mod.select = select_patched
        try:
            g = mg_mod.MovesGener(self.to_ints(FULL_DECK))
            moves = []
            moves += g.gen_type_1_single() + g.gen_type_2_pair() + g.gen_type_3_triple()
            moves += g.gen_type_4_bomb() + g.gen_type_5_king_bomb()
            moves += g.gen_type_6_3_1() + g.gen_type_7_3_2()
            moves += g.gen_type_8_serial_single() + g.gen_type_9_serial_pair()
            moves += g.gen_type_10_serial_triple()
            for k in range(2, max_cards // 4 + 1):
                moves += g.gen_type_11_serial_3_1(repeat_num=k)
            for k in range(2, max_cards // 5 + 1):
                moves += g.gen_type_12_serial_3_2(repeat_num=k)
            moves += g.gen_type_13_4_2() + g.gen_type_14_4_22()
        finally:
            mg_mod.select = orig_select
        return {self.to_str(m) for m in moves if len(m) <= max_cards}


# --------------------------------------------------------------------------- rlcard
class _RLCard:
    __slots__ = ("rank", "suit")

    def __init__(self, ch):
        if ch in "BR":
            self.rank, self.suit = "", ch + "J"
        else:
            self.rank, self.suit = ch, "S"


class RLCardPeer(_Peer):
    """rlcard 1.2.0 (needs ``termcolor`` for ``import rlcard``)."""

    name = "rlcard"

    def __init__(self):
        self._mods = None

    def _load(self):
        if self._mods is None:
            from rlcard.games.doudizhu import utils
            from rlcard.games.doudizhu.judger import DoudizhuJudger

            self._mods = types.SimpleNamespace(utils=utils, Judger=DoudizhuJudger)
        return self._mods

    def leads_raw(self, hand: str) -> set:
        return self._load().Judger.playable_cards_from_hand(canon(hand))

    def leads(self, hand: str) -> set:
        return {canon(m) for m in self.leads_raw(hand)}

    def follows_raw(self, hand: str, prev: str) -> list:
        """``rlcard.games.doudizhu.utils.get_gt_cards(player, greater_player)``.
        ``prev`` must be in rlcard's action space (KeyError otherwise)."""
        utils = self._load().utils
        player = types.SimpleNamespace(current_hand=[_RLCard(ch) for ch in canon(hand)])
        greater = types.SimpleNamespace(played_cards=canon(prev))
        return utils.get_gt_cards(player, greater)

    def follows(self, hand: str, prev: str) -> set:
        return {canon(m) for m in self.follows_raw(hand, prev) if m != "pass"}

    def action_ids(self) -> list:
        """ID_2_ACTION (27,472 entries: the plays and 'pass')."""
        return list(self._load().utils.ID_2_ACTION)

    def universe(self) -> set:
        return {canon(a) for a in self.action_ids() if a != "pass"}

    def card_types(self, play: str):
        return self._load().utils.CARD_TYPE[0].get(canon(play))


def fixed_auction_action(legal: List[str]) -> str:
    """The auction of the duplicate-deal matches: the first bidder calls (or bids 3), nobody
    robs, shows, turns over or doubles, so the landlord is fixed by the deal and the seat it
    was dealt."""
    for token in ("NORMAL_START", "CALL", "BID3", "NO_ROB", "NO_SHOW", "NO_FANSHEN", "NO_YAPO", "CLOSED"):
        if token in legal:
            return token
    return legal[0]


def _play_ranks(token: str) -> str:
    """'PLAY 7s 7h' or 'PLAY 77' -> '77' (RLCard's notation: ranks in rank order)."""
    body = token[5:]
    return canon(c[0] for c in body.split()) if " " in body or any(ch in "shcd" for ch in body) else canon(body)


class RLCardRuleBot(Bot):
    """RLCard 1.2.0's rule agent ``DouDizhuRuleAgentV1`` playing a seat of a ``ddz.Game``.

    Only under ``Rules.classic_rlcard()`` (RLCard's rules: its plays are exactly the legal
    ones; any other rules raise ``ArgumentError``). At each play decision the seat's
    ``game.observation(seat)`` is turned into the raw observation RLCard's ``DoudizhuEnv``
    would give the agent (``raw_observation``), and the agent's answer is mapped back to a
    ddz token (a play's rank string, ``'pass'`` -> ``PASS``). In the auction it plays
    ``fixed_auction_action``. The agent draws from NumPy's global generator when it cannot
    follow; the bot lends it its own ``RandomState(seed)`` for each decision and puts the
    global state back, so a bot is reproducible and leaves other NumPy users alone.
    """

    _RULES: Optional[Rules] = None

    def __init__(self, seed: int = 0) -> None:
        from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1

        self._agent = DouDizhuRuleAgentV1()
        self._rng = np.random.RandomState(seed)

    def reseed(self, seed: int) -> None:
        """Restarts the bot's random numbers (``ddz.evaluate`` reseeds each hand's copy)."""
        self._rng = np.random.RandomState(seed % 2**32)

    def act(self, game: Any, seat: int) -> str:
        obs = self._observation(game, seat)
        legal: List[str] = obs["legal_actions"]
        if obs["phase"] != "PLAY":
            return fixed_auction_action(legal)
        raw = _raw_observation(obs)
        saved = np.random.get_state()
        np.random.set_state(self._rng.get_state())
        try:
            action = self._agent.step({"raw_obs": raw})
        finally:
            self._rng.set_state(np.random.get_state())
            np.random.set_state(saved)
        token = "PASS" if action == "pass" else f"PLAY {canon(action)}" if isinstance(action, str) else None
        if token not in legal:
            raise illegal(IllegalCode.NOT_OFFERED,
                          f"RLCard's rule agent chose {shown(action)}, which is not legal for seat {seat} here")
        return token

    def raw_observation(self, game: Any, seat: int) -> Dict[str, Any]:
        """What the agent reads of RLCard's raw observation, for ``seat`` at a play decision:
        ``trace`` (the plays so far as (player, rank string or 'pass')), ``current_hand``
        (rank string), ``actions`` (the legal plays as rank strings, 'pass' first when
        legal, in RLCard's order when answering a play), ``landlord`` and ``self``. RLCard
        numbers the players from the landlord (player 0) in the order of play."""
        obs = self._observation(game, seat)
        if obs["phase"] != "PLAY":
            raise ArgumentError(f"seat {seat} is not at a play decision (phase {obs['phase']})")
        return _raw_observation(obs)

    @classmethod
    def _observation(cls, game: Any, seat: int) -> Dict[str, Any]:
        if cls._RULES is None:
            cls._RULES = Rules.classic_rlcard()
        if game.rules != cls._RULES:
            raise ArgumentError(f"RLCardRuleBot plays only under Rules.classic_rlcard() (RLCard's rules), "
                                f"not {shown(game.rules)}")
        obs = game.observation(seat)
        if not obs["legal_actions"]:
            raise ArgumentError(f"seat {seat} has no decision to make now")
        return obs


def _raw_observation(obs: Dict[str, Any]) -> Dict[str, Any]:
    n = len(obs["cards_left"])
    landlord = obs["landlord"]

    def player(seat: int) -> int:
        return (seat - landlord) % n

    trace = [(player(s), "pass" if t == "PASS" else _play_ranks(t))
             for s, t in obs["history"] if t == "PASS" or t.startswith("PLAY ")]
    plays = [canon(t[5:]) for t in obs["legal_actions"] if t != "PASS"]
    if "PASS" in obs["legal_actions"]:
        actions = ["pass"] + sorted(plays, key=_answer_order(canon(obs["top"][1])))
    else:
        actions = plays
    return {"trace": trace, "current_hand": canon(obs["hand"]), "actions": actions,
            "landlord": 0, "self": player(obs["seat"])}


_TYPE_POSITIONS: Dict[str, Dict[str, Tuple[int, int]]] = {}


def _answer_order(target: str) -> Callable[[str], Tuple[int, int]]:
    """A sort key putting answers to ``target`` in the order RLCard's ``get_gt_cards`` lists
    them (the agent takes the first of equal rank, so the order decides its choice): by the
    target's card types (then rocket, then bomb), each in the order of RLCard's
    ``TYPE_CARD`` table, an answer where it first qualifies. An answer RLCard would not list
    goes last."""
    utils = RLCARD._load().utils
    if not _TYPE_POSITIONS:
        for card_type, by_weight in utils.TYPE_CARD.items():
            pos: Dict[str, Tuple[int, int]] = {}
            for weight, cards_list in by_weight.items():
                for cards in cards_list:
                    pos.setdefault(cards, (len(pos), int(weight)))
            _TYPE_POSITIONS[card_type] = pos
    types_: Dict[str, int] = {}
    for card_type, weight in utils.CARD_TYPE[0][target]:
        types_.setdefault(card_type, int(weight))
    types_.setdefault("rocket", -1)
    types_.setdefault("bomb", -1)
    order = list(types_.items())

    def key(cards: str) -> Tuple[int, int]:
        for i, (card_type, weight) in enumerate(order):
            p = _TYPE_POSITIONS[card_type].get(cards)
            if p is not None and p[1] > weight:
                return (i, p[0])
        return (len(order), 0)

    return key


# --------------------------------------------------------------------------- open_spiel
class OpenSpielPeer(_Peer):
    """open_spiel 2.0.2 ``dou_dizhu``.

    Player actions: 0 = pass, 1..3 = bids, 4..26056 = plays (26,053 ids). Chance
    actions share the id space: first 0..50 = position of the face-up card (the player
    dealt that card bids first), then 51 deals ``51 + card`` with card = rank + 13*suit
    for 3..2 (rank 0..12), 52 = B, 53 = R; the k-th dealt card (k = 0..50) goes to seat
    k % 3; the 3 undealt cards are the kitty and go to the landlord.

    States are reached by: face-up position 0 (seat 0 bids first), the deal, seat 0
    bids 3 (landlord at once, 20 cards, on lead), then scripted plays.
    """

    name = "open_spiel"
    PASS = 0
    BID3 = 3
    CARD_BASE = 51

    def __init__(self):
        self._game = None
        self._id2str = None
        self._str2ids = None

    def _load(self):
        if self._game is None:
            import pyspiel

            self._game = pyspiel.load_game("dou_dizhu")
        return self._game

    # ---- action table
    def _table(self):
        if self._id2str is None:
            game = self._load()
            st = game.new_initial_state()
            id2str, raw = {}, {}
            for a in range(4, game.num_distinct_actions()):
                s = st.action_to_string(0, a)
                raw[a] = s
                id2str[a] = canon(s.replace("(BWJ)", "B").replace("(CJ)", "R").replace("-", ""))
            str2ids = collections.defaultdict(list)
            for a, s in id2str.items():
                str2ids[s].append(a)
            self._id2str, self._str2ids, self._raw = id2str, dict(str2ids), raw
        return self._id2str, self._str2ids

    def play_ids(self) -> dict:
        """OpenSpiel play id -> canonical card string (pass and bids excluded)."""
        return dict(self._table()[0])

    def action_string(self, a: int) -> str:
        self._table()
        return self._raw[a]

    def ids_of(self, play: str) -> list:
        return list(self._table()[1].get(canon(play), []))

    def universe(self) -> set:
        return set(self._table()[1])

    def reading_id(self, play: str) -> int:
        """The id of ``play`` under the lead reading of docs/rules.md §4 (largest main
        body, then highest key): matters only for the 383 multisets with several ids
        (trio runs that are also planes with a trio as wings)."""
        ids = self.ids_of(play)
        if not ids:
            raise KeyError(f"{play!r} is not an OpenSpiel play")
        if len(ids) == 1:
            return ids[0]

        def body(a):
            s = self._raw[a]
            if "-" not in s:
                return (len(s), 99)  # a pure chain: every card is body
            chain = s.split("-")[0]
            return (len(chain), V[chain[0]])

        return max(ids, key=body)

    # ---- dealing
    @staticmethod
    def _card_ids(cards: str, taken: set) -> list:
        out = []
        for ch in cards:
            v = V[ch]
            if ch == "B":
                cid = 52
            elif ch == "R":
                cid = 53
            else:
                cid = next(v + 13 * s for s in range(4) if v + 13 * s not in taken)
            taken.add(cid)
            out.append(cid)
        return out

    def _deal(self, seat0: str, seat1: str, seat2: str):
        """Seat 0 gets 20 cards (17 dealt + the kitty), seats 1 and 2 get 17; seat 0
        becomes landlord (bids 3) and is on lead."""
        assert len(seat0) == 20 and len(seat1) == 17 and len(seat2) == 17
        c = counts(seat0 + seat1 + seat2)
        if any(n > 4 for n in c[:13]) or c[13] > 1 or c[14] > 1:
            raise ValueError("seat hands overlap / exceed one deck")
        taken: set = set()
        ids = [self._card_ids(s, taken) for s in (seat0, seat1, seat2)]
        st = self._load().new_initial_state()
        st.apply_action(0)  # face-up card position 0 -> seat 0 bids first
        for k in range(51):
            st.apply_action(self.CARD_BASE + ids[k % 3][k // 3])
        # remaining 3 cards (ids[0][17:]) are the kitty
        st.apply_action(self.BID3)
        return st

    @staticmethod
    def _take(pool: str, n: int, avoid: str = "") -> tuple:
        """Take n cards from pool, preferring ranks not in ``avoid``; returns (taken, rest)."""
        c = counts(pool)
        av = set(avoid)
        order = sorted(range(15), key=lambda v: (ORDER[v] in av, v))
        got: list = []
        for v in order:
            while c[v] and len(got) < n:
                c[v] -= 1
                got.append(ORDER[v])
        if len(got) < n:
            raise ValueError("not enough cards")
        return canon(got), from_counts(c)

    def lead_state(self, hand: str):
        """A state where the current player holds exactly ``hand`` (<= 20 cards) and
        must lead: seat 0 is dealt ``hand`` + filler cards, wins the bidding and sheds
        each filler as a single (the farmers pass)."""
        hand = canon(hand)
        if len(hand) > 20:
            raise ValueError("at most 20 cards")
        rest = _complement(hand)
        fill, rest = self._take(rest, 20 - len(hand))
        st = self._deal(canon(hand + fill), rest[:17], rest[17:])
        for ch in fill:
            st.apply_action(4 + V[ch])  # single: ids 4..18 by rank
            st.apply_action(self.PASS)
            st.apply_action(self.PASS)
        assert st.current_player() == 0
        return st

    def follow_state(self, hand: str, prev: str):
        """A state where the current player (seat 1, a farmer) holds exactly ``hand``
        (<= 17 cards) and must answer ``prev``, just played by seat 0 (the landlord).
        ``hand`` and ``prev`` must fit in one deck together. With fewer than 17 cards,
        seat 1 first sheds its filler cards as singles (it beats seat 0's low single,
        then leads the rest; seat 0 takes the last one back)."""
        hand, prev = canon(hand), canon(prev)
        if len(hand) > 17 or not 1 <= len(prev) <= 19:
            raise ValueError("hand <= 17 cards, 1 <= prev <= 19 cards")
        prev_id = self.reading_id(prev)
        rest = _complement(hand + prev)  # raises if they do not fit one deck
        m = 17 - len(hand)
        script = []
        if m == 0:
            fill0, rest = self._take(rest, 20 - len(prev), avoid=prev)
            seat1 = hand
        else:
            # seat 0: prev + low single a + high single b + fillers; seat 1: hand + m
            # singles strictly between a and b. Trick 1: seat 0 leads a, seat 1 plays
            # f1, pass, pass; seat 1 leads f2..fm (pass, pass after each but the
            # last); seat 0 beats fm with b; pass, pass; seat 0 leads prev.
            if len(prev) > 17:  # seat 0 must keep a card after lo, hi and prev
                raise ValueError("prev too long for a short answering hand")
            rc = counts(rest)
            lo = min(v for v in range(15) if rc[v])
            hi = max(v for v in range(15) if rc[v])
            rc[lo] -= 1
            rc[hi] -= 1
            mids = [v for v in range(lo + 1, hi) for _ in range(rc[v])]
            if len(mids) < m:
                raise ValueError("cannot build a shedding script for this hand")
            f = mids[-m:]  # the highest middle cards
            for v in f:
                rc[v] -= 1
            rest = from_counts(rc)
            seat1 = canon(hand + "".join(ORDER[v] for v in f))
            extra, rest = self._take(rest, 20 - len(prev) - 2, avoid=prev)
            fill0 = canon(ORDER[lo] + ORDER[hi] + extra)
            # seat 0 leads lo; seat 1 answers f1 (and, if more fillers, wins the trick
            # and leads the others one by one); after seat 1's last filler, seat 2
            # passes, seat 0 beats it with hi, both farmers pass: seat 0 is on lead.
            script = [4 + lo, 4 + f[0]]
            if m > 1:
                script += [self.PASS, self.PASS]
                for v in f[1:-1]:
                    script += [4 + v, self.PASS, self.PASS]
                script.append(4 + f[-1])
            script += [self.PASS, 4 + hi, self.PASS, self.PASS]
        st = self._deal(canon(prev + fill0), seat1, rest)
        for a in script:
            st.apply_action(a)
        assert st.current_player() == 0
        st.apply_action(prev_id)
        assert st.current_player() == 1
        return st

    def legal_plays(self, st) -> set:
        id2str = self._table()[0]
        return {id2str[a] for a in st.legal_actions() if a >= 4}

    def leads(self, hand: str) -> set:
        return self.legal_plays(self.lead_state(hand))

    def follows(self, hand: str, prev: str) -> set:
        return self.legal_plays(self.follow_state(hand, prev))


def _complement(cards: str) -> str:
    c = counts(FULL_DECK)
    for ch in cards:
        c[V[ch]] -= 1
        if c[V[ch]] < 0:
            raise ValueError(f"{cards!r} does not fit in one deck")
    return from_counts(c)


DOUZERO = DouZeroPeer()
RLCARD = RLCardPeer()
OPENSPIEL = OpenSpielPeer()
PEERS = {p.name: p for p in (DOUZERO, RLCARD, OPENSPIEL)}


# ------------------------------------------------------ docs/peers.md "How the peers differ"
# Each row: (rule, check(peer) -> bool, docs/peers.md's claim per peer). ``None`` = not stated.
def _lead_has(hand, play):
    return lambda p: canon(play) in p.leads(hand)


def _follow_has(hand, prev, play):
    return lambda p: canon(play) in p.follows(hand, prev)


RULE_ROWS = [
    ("two single wings of one rank (33344455)",
     _lead_has("33344455", "33344455"), {"douzero": True, "rlcard": True, "open_spiel": True}),
    ("a wing of a plane rank (33334445)",
     _lead_has("33334445", "33334445"), {"douzero": False, "rlcard": False, "open_spiel": False}),
    ("rocket as two single wings (333444BR)",
     _lead_has("333444BR", "333444BR"), {"douzero": True, "rlcard": False, "open_spiel": False}),
    ("four + rocket (3333BR)",
     _lead_has("3333BR", "3333BR"), {"douzero": True, "rlcard": False, "open_spiel": False}),
    ("three single wings of one rank (333444555777)",
     _lead_has("333444555777", "333444555777"),
     {"douzero": True, "rlcard": True, "open_spiel": True}),
    ("a wing trio adjacent to the chain (555666777888999A)",
     _lead_has("555666777888999A", "555666777888999A"),
     {"douzero": True, "rlcard": False, "open_spiel": True}),
    ("  ... adjacent wing trio of 2s (JJJQQQKKKAAA2223, rlcard's exception)",
     _lead_has("JJJQQQKKKAAA2223", "JJJQQQKKKAAA2223"),
     {"douzero": True, "rlcard": True, "open_spiel": True}),
    ("a bomb as four single wings (3334445556667777)",
     _lead_has("3334445556667777", "3334445556667777"),
     {"douzero": True, "rlcard": False, "open_spiel": False}),
    ("the same pair twice as plane wings (3334445555)",
     _lead_has("3334445555", "3334445555"), {"douzero": False, "rlcard": False, "open_spiel": False}),
    ("the same pair twice as four-with-two kickers (33335555)",
     _lead_has("33335555", "33335555"), {"douzero": False, "rlcard": False, "open_spiel": False}),
    ("four + two singles forming a pair (333355)",
     _lead_has("333355", "333355"), {"douzero": True, "rlcard": True, "open_spiel": False}),
    ("four with two at all (333345)",
     _lead_has("333345", "333345"), {"douzero": True, "rlcard": True, "open_spiel": False}),
    ("four with two pairs at all (33334455)",
     _lead_has("33334455", "33334455"), {"douzero": True, "rlcard": True, "open_spiel": False}),
    ("chain whose lowest rank is held 4 times (33334567 -> 34567)",
     _lead_has("33334567", "34567"), {"douzero": True, "rlcard": True, "open_spiel": False}),
    ("  ... pair chain (333344556 -> 334455)",
     _lead_has("333344556", "334455"), {"douzero": True, "rlcard": True, "open_spiel": False}),
    ("  ... trio chain (3333444 -> 333444)",
     _lead_has("3333444", "333444"), {"douzero": True, "rlcard": True, "open_spiel": False}),
    ("  ... answering with a chain whose lowest rank is held 4 times "
     "(hand 88889TJQQKKAA22BR, prev 34567 -> 89TJQ)",
     _follow_has("88889TJQQKKAA22BR", "34567", "89TJQ"),
     {"douzero": True, "rlcard": True, "open_spiel": False}),
    ("a bomb answers the rocket (hand 3333..., prev BR)",
     _follow_has("33334456789TJQKA2", "BR", "3333"),
     {"douzero": False, "rlcard": False, "open_spiel": True}),
    ("plane+single wings: 333444555KKK beats 6667778889TJ (wings counted)",
     _follow_has("333444555QQKKKAA2", "6667778889TJ", "333444555KKK"),
     {"douzero": True, "rlcard": False, "open_spiel": False}),
    ("plane+single wings: 666777888+9TJ does NOT beat 333444555+KKK (wings counted)",
     lambda p: "6667778889TJ" not in p.follows("6667778889TJQQAA2", "333444555KKK"),
     {"douzero": True, "rlcard": False, "open_spiel": False}),
]


def check_rule_rows(peers=None):
    """Run every row of docs/peers.md's table (``RULE_ROWS``) on every available peer.
    Returns a list of (rule, peer, claimed, measured)."""
    peers = peers or [p for p in PEERS.values() if p.available()]
    out = []
    for rule, check, claim in RULE_ROWS:
        for p in peers:
            out.append((rule, p.name, claim.get(p.name), bool(check(p))))
    return out


def universe_report():
    """Measured universe sizes: {peer: dict(ids=..., multisets=...)}."""
    rep = {}
    if DOUZERO.available():
        u = DOUZERO.universe()
        rep["douzero"] = dict(ids=None, multisets=len(u),
                              detector_rejects=sum(DOUZERO.detector_rejects(m) for m in u))
    if RLCARD.available():
        ids = [a for a in RLCARD.action_ids() if a != "pass"]
        rep["rlcard"] = dict(ids=len(ids), multisets=len(RLCARD.universe()))
    if OPENSPIEL.available():
        ids = OPENSPIEL.play_ids()
        mult = collections.Counter(len(v) for v in OPENSPIEL._table()[1].values())
        rep["open_spiel"] = dict(ids=len(ids), multisets=len(set(ids.values())),
                                 ids_per_multiset=dict(sorted(mult.items())))
    return rep


if __name__ == "__main__":  # pragma: no cover - a report for humans
    import time

    t = time.perf_counter()
    rep = universe_report()
    for k, v in rep.items():
        print(f"{k:11s} {v}")
    us = {}
    if DOUZERO.available():
        us["douzero"] = DOUZERO.universe()
    if RLCARD.available():
        us["rlcard"] = RLCARD.universe()
    if OPENSPIEL.available():
        us["open_spiel"] = OPENSPIEL.universe()
    for a, b in itertools.permutations(us, 2):
        print(f"|{a} - {b}| = {len(us[a] - us[b])}")
    print()
    for rule, peer, claim, got in check_rule_rows():
        flag = "ok " if claim == got else "DIFF"
        print(f"{flag} {peer:10s} claimed={claim!s:5s} measured={got!s:5s} {rule}")
    print(f"({time.perf_counter() - t:.1f} s)")
