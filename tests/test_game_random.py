"""Thousands of random whole hands per variant through ``ddz.Game`` (seeded, random legal
actions in every phase), each checked step by step against an independent referee written
from RULES.md alone:

* bidding / decision state machines (§2.1.3-§2.1.4, §2.2.3-§2.2.5, §2.3.4): the phase, the
  seat to act and the exact legal token set at every decision, re-deals, void hands
  (``max_redeals``);
* the play phase (§2.0.1): the seat to act, the legal plays (recomputed with
  ``ddz.legal_moves`` on the referee's own hands and trick state), bomb limits from the bid log
  (§2.3.6), cards conserved card by card;
* the result (§2.0.6, §2.1.7-§2.1.9, §2.2.7-§2.2.8, §2.3.7-§2.3.9): landlord, winner,
  factors, multiplier, unit, scores, money, missiles, bomb limits, special hands, spring and
  anti-spring, recomputed from the game's history, the recorded deal and the options;
* observations (§2.1.2, §2.2.2, §2.3.3): every physical card name an observation exposes is the
  seat's own, a face-up hand's, the revealed kitty's or a played card; "shown" and "kitty" hold
  exactly what the rules make public;
* records: ``Game.from_json(g.to_json())`` reproduces everything, also from a mid-hand record
  continued with the remaining actions; replaying the recorded actions on a fresh Game gives the
  same states; the same seed and actions give the same game.
"""
from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest

import ddz
from ddz.variants import VARIANT

RANKS = "3456789TJQKA2BR"
RV = {r: i for i, r in enumerate(RANKS)}
LAYOUT = {name: (v.players, v.hand, v.kitty, v.aside) for name, v in VARIANT.items()}  # the package's table
FACTORY = {"classic": ddz.Rules.classic, "two_player": ddz.Rules.two_player, "bengbu": ddz.Rules.bengbu}
CARD_RE = re.compile(r"^(?:[3-9TJQKA2][shcd]|[BR])'?$")
TOKENS = {
    "classic": {"CALL", "NO_CALL", "ROB", "NO_ROB", "SHOW", "NO_SHOW"},
    "two_player": {"SHOW_START", "NORMAL_START", "CALL", "NO_CALL", "FANSHEN", "NO_FANSHEN", "YAPO", "NO_YAPO"},
    "bengbu": {"NO_CALL", "BID1", "BID2", "BID3", "GRAB", "OPEN", "CLOSED"},
}
OBS_KEYS = {"seat", "phase", "current_seat", "landlord", "hand", "cards", "shown", "kitty", "cards_left", "history",
            "multiplier", "legal_actions"}


def rank_of(name: str) -> str:
    return name[0]


def ranks_str(names) -> str:
    return "".join(sorted((rank_of(c) for c in names), key=RV.__getitem__))


def full_deck_names(decks: int):
    return [ddz.card_name(i, decks) for i in range(54 * decks)]


def bomb_class(ranks: str, variant: str):
    """The bomb class of a play (§2.0.2) or None."""
    c = Counter(ranks)
    if variant == "bengbu":
        if sorted(ranks) == sorted("BBRR"):
            return "JOKER_BOMB"
        if len(c) == 1 and len(ranks) >= 4 and ranks[0] not in "BR":
            return f"BOMB{len(ranks)}"
        return None
    if sorted(ranks) == ["B", "R"]:
        return "ROCKET"
    if len(c) == 1 and len(ranks) == 4:
        return "BOMB"
    return None


def specials_of(hand_ranks: Counter):
    """§2.3.2: (number of 天炸 ranks, holds 天尊)."""
    return sum(1 for r in RANKS[:13] if hand_ranks[r] == 8), hand_ranks["B"] == 2 and hand_ranks["R"] == 2


# =====================================================================================
# The referee: RULES.md re-implemented independently of ddz.Game (card patterns and move
# generation come from the already-tested core: ddz.legal_moves).
# =====================================================================================

class Referee:
    def __init__(self, g, rules, base, init):
        self.g, self.rules, self.variant = g, rules, rules.variant
        self.opts = dict(rules.options)
        self.n = rules.players
        self.decks = rules.decks
        self.base, self.init = base, init
        self.deal_idx = 0
        self.allpass_rounds = 0
        self.events = 0  # history entries consumed
        self.last_actor = None
        self.void_at = None
        self.start_deal()

    # ---- deals ----
    def deal_record(self):
        deals = json.loads(self.g.to_json())["deals"]
        assert len(deals) > self.deal_idx, "the record holds every deal"
        return deals[self.deal_idx]

    def start_deal(self):
        v = self.variant
        self._legal = None
        self.landlord = None
        self.hands = None           # physical names per seat, once the referee needs them
        self.kitty = None
        self.kitty_revealed = False
        self.shown = set()
        self.stage = {"classic": "CALL", "two_player": "PRE_DEAL", "bengbu": "BID"}[v]
        self.p0 = None
        self.acted = []             # (seat, token) of this deal's bidding / decisions
        self.played = []            # (seat, ranks, names) plays of this deal
        self.over = False
        # CLASSIC3
        self.caller, self.queue, self.robbers, self.robs, self.showed = None, [], [], 0, False
        # TWOP
        self.pre, self.first_decider, self.G, self.fanshen_done = [], None, 1, False
        # BENGBU4
        self.h, self.holder, self.bid_log, self.base_bid, self.open = 0, None, [], None, None
        self.limits = None
        # play
        self.top, self.owner, self.passes = None, None, 0
        self.to_act = None
        self.plays = Counter()
        self.bombs = Counter()
        self.bomb_kinds = Counter()
        self.missiles = Counter()
        self.winner = None
        if self.deal_idx and self.g.is_over and self.g.result.kind == "void":
            self.stage = "ALLPASS"  # the engine logged the re-deal and then voided the hand
            return
        if v == "bengbu":
            rec = self.deal_record()
            hands = [Counter(rank_of(c) for c in h) for h in rec["hands"]]
            self.special = [specials_of(h) for h in hands]
            if any(t or z for t, z in self.special):
                assert self.g.is_over and self.g.result.kind == "special", "a 天炸/天尊 deal ends at once (§2.3.2)"
                self.stage = "SPECIAL"
                self.over = True

    def load_hands(self):
        rec = self.deal_record()
        self.hands = [set(h) for h in rec["hands"]]
        self.kitty = list(rec["kitty"])
        self.first_bidder_rec = rec.get("first_bidder")

    # ---- predictions ----
    def expected(self):
        """(phase, seat, legal token set or None for PLAY) the rules give now."""
        st, v = self.stage, self.variant
        if st == "CALL":
            return "CALL", self.next_in_order(), {"CALL", "NO_CALL"}
        if st == "ROB":
            return "ROB", self.queue[0], {"ROB", "NO_ROB"}
        if st == "FINAL_ROB":
            return "FINAL_ROB", self.caller, {"ROB", "NO_ROB"}
        if st == "SHOW":
            return "SHOW", self.landlord, {"SHOW", "NO_SHOW"}
        if st == "PRE_DEAL":
            seat = self.first_decider if not self.pre else 1 - self.pre[0][0]
            return "PRE_DEAL", seat, {"SHOW_START", "NORMAL_START"}
        if st == "BID" and v == "two_player":
            return "BID", self.next_in_order(), {"CALL", "NO_CALL"}
        if st == "BID":
            return "BID", self.next_in_order(), {"NO_CALL", "GRAB"} | {f"BID{x}" for x in (1, 2, 3) if x > self.h}
        if st == "OPEN_CHOICE":
            return "OPEN_CHOICE", self.landlord, {"OPEN", "CLOSED"}
        if st == "FANSHEN":
            return "FANSHEN", (self.landlord + 1) % 2, {"FANSHEN", "NO_FANSHEN"}
        if st == "YAPO":
            return "YAPO", self.landlord, {"YAPO", "NO_YAPO"}
        if st == "PLAY":
            return "PLAY", self.to_act, None
        raise AssertionError(st)

    def next_in_order(self):
        return None if self.p0 is None else (self.p0 + len(self.acted)) % self.n

    def hand_ranks(self, s):
        c = Counter(rank_of(x) for x in self.hands[s])
        return "".join(r * c[r] for r in RANKS)

    def legal_plays(self):
        s = self.to_act
        moves = ddz.legal_moves(self.hand_ranks(s), self.rules, prev=self.top)
        out = set()
        for m in moves:
            r = str(m)
            if self.variant == "bengbu" and bomb_class(r, "bengbu"):
                lim = self.limits[s]
                if lim is not None and self.bombs[s] >= lim:
                    continue  # §2.3.6
            out.add("PLAY " + r)
        if self.top is not None:
            out.add("PASS")
        return out

    def current_multiplier(self):
        v = self.variant
        if v == "classic":
            return self.rob_factor() * (2 if self.showed else 1) * self.kitty_factor() * 2 ** self.bombs_counted()
        if v == "two_player":
            return self.show_factor() * self.G * 2 ** self.bombs_counted()
        return 1

    def check_state(self):
        g = self.g
        self._legal = None
        if self.over:
            return
        if self.stage == "ALLPASS":  # only a void hand stops here (max_redeals)
            assert g.is_over and g.result.kind == "void"
            return
        phase, seat, legal = self.expected()
        assert g.phase == phase, (g.phase, phase, self.acted[-3:])
        if seat is None:  # the random first decider / bidder of the deal
            seat = g.current_seat
            if phase == "PRE_DEAL":
                self.first_decider = seat
            else:
                self.p0 = seat
        assert g.current_seat == seat, (phase, g.current_seat, seat)
        got = g.legal_actions()
        assert len(got) == len(set(got))
        if legal is None:
            legal = self._legal = self.legal_plays()
            assert g.multiplier == self.current_multiplier()
        assert set(got) == legal, (phase, sorted(set(got) ^ legal)[:10])
        assert g.landlord == self.landlord
        if phase in ("CALL", "BID") and self.p0 is not None:
            assert g.first_bidder == self.p0
        if self.hands is not None:  # every seat now and then, else the seat that acted last
            for s in (range(self.n) if self.events % 7 == 0 or g.is_over else {self.last_actor}):
                if s is not None:
                    assert set(g.cards(s)) == self.hands[s] and len(g.cards(s)) == len(self.hands[s])
                    assert str(g.hand(s)) == self.hand_ranks(s)

    # ---- events ----
    def feed(self, seat, token):
        self.events += 1
        self.last_actor = seat
        cached, self._legal = self._legal, None  # legal plays computed by check_state for this event
        if seat is None:
            assert token == "REDEAL" or not token.startswith(("PLAY", "PASS")), token
            if token == "REDEAL":
                assert self.stage == "ALLPASS", "a re-deal only follows an all-pass bidding round"
                self.deal_idx += 1
                self.start_deal()
            return
        assert not self.over and self.stage != "ALLPASS", (seat, token)
        phase, want, legal = self.expected()
        if want is None:
            want = seat
            if phase == "PRE_DEAL":
                self.first_decider = seat
            else:
                self.p0 = seat
        assert seat == want, (phase, seat, want, token)
        if legal is not None:
            assert token in legal, (phase, token, legal)
            self.acted.append((seat, token))
            getattr(self, "on_" + self.variant)(seat, token)
        else:
            self.on_play(seat, token, cached)

    def allpass(self):
        self.allpass_rounds += 1
        self.stage = "ALLPASS"

    def on_classic(self, seat, token):
        st = self.stage
        if st == "CALL":
            if token == "CALL":
                self.caller = seat
                if self.opts["classic_passers_may_rob"]:
                    self.queue = [(seat + 1) % 3, (seat + 2) % 3]
                else:  # A12: the seats after C that have not acted yet (between C and P0)
                    self.queue = [s for s in ((seat + 1) % 3, (seat + 2) % 3) if s != self.p0 and
                                  (s - self.p0) % 3 > (seat - self.p0) % 3]
                if self.queue:
                    self.stage = "ROB"
                else:
                    self.set_landlord(seat)
            elif len(self.acted) == 3:
                self.allpass()
        elif st == "ROB":
            self.queue.pop(0)
            if token == "ROB":
                self.robs += 1
                self.robbers.append(seat)
            if not self.queue:
                if self.robbers:
                    self.stage = "FINAL_ROB"
                else:
                    self.set_landlord(self.caller)
        elif st == "FINAL_ROB":
            if token == "ROB":
                self.robs += 1
                self.set_landlord(self.caller)
            else:
                first = self.opts["classic_rob_winner"] == "first"
                self.set_landlord(self.robbers[0] if first else self.robbers[-1])
        elif st == "SHOW":
            self.showed = token == "SHOW"
            if self.showed:
                self.shown.add(self.landlord)
            self.take_kitty()
            self.start_play()

    def on_two_player(self, seat, token):
        st = self.stage
        if st == "PRE_DEAL":
            self.pre.append((seat, token))
            if len(self.pre) == 2:
                self.stage = "BID"
                self.acted = []
                showers = [s for s, t in self.pre if t == "SHOW_START"]
                self.p0 = showers[0] if showers else None  # else the random draw, learned next
                self.shown = set(showers)  # face up from the deal (§2.2.2)
        elif st == "BID":
            if token == "CALL":
                self.set_landlord(seat)
            elif len(self.acted) == 2:
                showers = [s for s, t in self.pre if t == "SHOW_START"]
                if showers:
                    self.set_landlord(showers[0])
                else:
                    self.allpass()
        elif st == "FANSHEN":
            self.fanshen_done = True
            if token == "FANSHEN":
                self.G = 2
                self.stage = "YAPO"
            else:
                self.stage = "PLAY"
        elif st == "YAPO":
            if token == "YAPO":
                self.G = 4
            self.stage = "PLAY"

    def on_bengbu(self, seat, token):
        st = self.stage
        if st == "BID":
            self.bid_log.append((seat, token, self.h))
            if token == "GRAB":
                self.base_bid, self.open = 3, True
                self.set_landlord(seat)
                return
            if token.startswith("BID"):
                self.h, self.holder = int(token[3]), seat
            if len(self.acted) == 4:
                if self.h == 0:
                    self.allpass()
                else:
                    self.base_bid = self.h
                    self.set_landlord(self.holder)
        elif st == "OPEN_CHOICE":
            self.open = token == "OPEN"
            if self.open:
                self.shown.add(self.landlord)
            self.start_play()

    def set_landlord(self, L):
        self.landlord = L
        v = self.variant
        if self.hands is None:
            self.load_hands()
        if v == "classic":
            self.stage = "SHOW"
            if self.opts["classic_show_timing"] == "after_kitty":
                self.take_kitty()
        elif v == "two_player":
            self.take_kitty()
            self.start_play()
            if self.opts["twop_fanshen_point"] == "before_lead":
                self.stage = "FANSHEN"
        else:
            self.take_kitty()
            self.compute_limits()
            if self.open:  # a grab: open, no OPEN_CHOICE
                self.shown.add(L)
                self.start_play()
            else:
                self.stage = "OPEN_CHOICE"

    def take_kitty(self):
        if not self.kitty_revealed:
            self.kitty_revealed = True
            self.hands[self.landlord] |= set(self.kitty)

    def start_play(self):
        self.stage = "PLAY"
        self.to_act = self.landlord

    def compute_limits(self):
        """§2.3.6 from the bid log."""
        lim = [None] * 4
        for s, t, h in self.bid_log:
            if s == self.landlord or t == "GRAB" or t == "BID3":
                continue
            if t in ("BID1", "BID2"):
                lim[s] = 2
            elif t == "NO_CALL":
                lim[s] = None if h == 3 else (2 if h in (1, 2) else 1)
        self.limits = lim

    def on_play(self, seat, token, cached=None):
        n = self.n
        if token == "PASS":
            assert self.top is not None, "a lead cannot pass"
            self.passes += 1
            if self.passes == n - 1:
                self.top, self.passes = None, 0
                self.to_act = self.owner
            else:
                self.to_act = (seat + 1) % n
        else:
            assert token.startswith("PLAY ")
            names = token[5:].split()
            assert len(names) == len(set(names)) and set(names) <= self.hands[seat], (token, seat)
            ranks = ranks_str(names)
            assert "PLAY " + ranks in (cached if cached is not None else self.legal_plays()), (token, self.top)
            self.hands[seat] -= set(names)
            self.played.append((seat, ranks, names))
            self.plays[seat] += 1
            kind = bomb_class(ranks, self.variant)
            if kind:
                self.bombs[seat] += 1
                self.bomb_kinds[kind] += 1
                if kind in ("BOMB7", "BOMB8", "JOKER_BOMB"):
                    self.missiles[seat] += 1
            self.top, self.owner, self.passes = ranks, seat, 0
            if not self.hands[seat]:
                self.over, self.winner, self.stage = True, seat, "OVER"
                return
            self.to_act = (seat + 1) % n
        if (self.variant == "two_player" and not self.fanshen_done and self.to_act != self.landlord
                and self.opts["twop_fanshen_point"] == "farmer_first_turn"):
            self.stage = "FANSHEN"  # the farmer's first turn (A24)

    # ---- factors ----
    def rob_factor(self):
        return min(2 ** self.robs, self.opts["classic_rob_cap"])

    def kitty_factor(self):
        if not self.kitty_revealed:
            return 1
        k = Counter(rank_of(c) for c in self.kitty)
        joker = 4 if (k["B"] and k["R"]) else 2 if (k["B"] or k["R"]) else 1
        rank = 2 if any(v == 3 for r, v in k.items() if r not in "BR") else 2 if k["2"] == 2 else 1
        return joker * rank if self.opts["classic_kitty_combine"] == "product" else max(joker, rank)

    def show_factor(self):
        showers = sum(1 for _, t in self.pre if t == "SHOW_START")
        if not showers:
            return 1
        return 5 ** showers if self.opts["twop_show_start_stacks"] else 5

    def bombs_counted(self):
        if self.variant == "two_player" and not self.opts["twop_rocket_doubles"]:
            return sum(v for k, v in self.bomb_kinds.items() if k != "ROCKET")
        return sum(self.bomb_kinds.values())

    # ---- the result ----
    def check_result(self, r):
        v, n, L = self.variant, self.n, self.landlord
        if self.stage == "SPECIAL":
            assert r.kind == "special" and r.winner_side is None and r.landlord is None
            self.check_special(r)
            return
        if self.stage == "ALLPASS":
            assert r.kind == "void" and r.winner_side is None and r.landlord is None
            assert list(r.scores) == [0] * n
            assert not self.played
            self.void_at = self.allpass_rounds
            return
        assert self.over and r.kind == "normal"
        assert r.landlord == L and r.winner_seat == self.winner
        lw = self.winner == L
        assert r.winner_side == ("landlord" if lw else "farmers")
        farmer_plays = sum(c for s, c in self.plays.items() if s != L)
        spring = v != "bengbu" and lw and farmer_plays == 0
        anti = v != "bengbu" and not lw and self.plays[L] == 1
        assert r.spring == spring and r.anti_spring == anti
        sign = 1 if lw else -1
        if v == "classic":
            D = self.rob_factor() * (2 if self.showed else 1) * self.kitty_factor() * 2 ** self.bombs_counted() \
                * (2 if spring or anti else 1)
            factors = {"rob": self.rob_factor(), "show": 2 if self.showed else 1, "kitty": self.kitty_factor(),
                       "bomb": 2 ** self.bombs_counted(), "spring": 2 if spring or anti else 1}
            assert {k: r.factors[k] for k in factors} == factors
            assert r.robs == self.robs and r.bombs == self.bombs_counted()
            X = self.base * self.init * D
            assert r.multiplier == D and r.unit == X
            scores = [0] * n
            for s in range(n):
                if lw:
                    scores[s] = 2 * X if s == L else -X
                elif self.opts["classic_landlord_loss_factor"] == 2:
                    scores[s] = -2 * X if s == L else X
                else:
                    scores[s] = -X if s == L else X // 2
            assert list(r.scores) == scores
        elif v == "two_player":
            m = self.show_factor() * self.G * 2 ** self.bombs_counted() * (2 if spring or anti else 1)
            factors = {"show_start": self.show_factor(), "fanshen": self.G, "bomb": 2 ** self.bombs_counted(),
                       "spring": 2 if spring or anti else 1}
            assert {k: r.factors[k] for k in factors} == factors
            assert r.bombs == self.bombs_counted()
            X = self.opts["twop_initial_multiplier"] * m
            assert r.multiplier == m and r.unit == X
            role = 1 if self.opts["twop_zero_sum"] else 2
            scores = [0, 0]
            scores[L], scores[1 - L] = sign * role * X, -sign * X
            assert list(r.scores) == scores
        else:
            base = self.base_bid
            assert {k: r.factors[k] for k in ("base", "open")} == {"base": base, "open": self.open}
            assert r.multiplier == 1 and r.unit == base
            miss = [self.missiles[s] for s in range(4)]
            if self.opts["bengbu_missiles_once_per_player"]:
                miss = [min(1, m) for m in miss]
            kw, kl = (3, 2) if self.open else (1, 1)
            scores = [0] * 4
            for i in range(4):
                if i == L:
                    continue
                t = (kw * base if lw else -kl * base) + base * (miss[L] - miss[i])
                t = max(t, 0) if lw else min(t, 0)
                scores[L] += t
                scores[i] = -t
            assert list(r.scores) == scores
            assert list(r.bomb_limits) == self.limits
            for s in range(4):  # nobody exceeded a limit
                assert self.limits[s] is None or self.bombs[s] <= self.limits[s]
            if not self.opts["bengbu_missiles_once_per_player"]:
                assert list(r.missiles) == [self.missiles[s] for s in range(4)]
            assert list(r.money) == [s * self.opts["bengbu_point_value"] for s in scores]

    def check_special(self, r):
        per_instance = self.opts["bengbu_special_per_instance"]
        claim = []
        for tz, zun in self.special:
            tz_amount = 30 * (tz if per_instance else min(tz, 1))
            claim.append(tz_amount + (6 if zun else 0))
        holders = [s for s in range(4) if claim[s]]
        scores = [0] * 4
        for h in holders:
            for s in range(4):
                if s not in holders:
                    scores[h] += claim[h]
                    scores[s] -= claim[h]
        assert list(r.scores) == scores
        assert list(r.money) == [s * self.opts["bengbu_point_value"] for s in scores]
        kinds = {s: ({"天炸"} if self.special[s][0] else set()) | ({"天尊"} if self.special[s][1] else set())
                 for s in holders}
        assert {s: set(k) for s, k in r.special_holders.items()} == kinds


# =====================================================================================
# Observations (§2.1.2, §2.2.2, §2.3.3)
# =====================================================================================

def exposed_names(obj, skip=("hand", "legal_actions")):
    """Every physical card name in an observation (all strings, split on blanks)."""
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in skip:
                continue
            out += exposed_names(k, ()) + exposed_names(v, ())
    elif isinstance(obj, (list, tuple, set)):
        for v in obj:
            out += exposed_names(v, ())
    elif isinstance(obj, str):
        out += [t for t in obj.split() if CARD_RE.match(t)]
    return out


def _flat(x):
    if isinstance(x, (list, tuple)):
        for y in x:
            yield from _flat(y)
    else:
        yield x


def check_observations(g, ref):
    n = ref.n
    played = {c for _, _, names in ref.played for c in names}
    for i in range(n):
        o = g.observation(i)
        assert OBS_KEYS <= set(o), OBS_KEYS - set(o)
        assert o["seat"] == i and o["phase"] == g.phase and o["current_seat"] == g.current_seat
        assert o["landlord"] == g.landlord and o["multiplier"] == g.multiplier
        assert o["legal_actions"] == (g.legal_actions() if i == g.current_seat else [])
        if g.phase == "PRE_DEAL":
            continue  # before the deal: test_twop_pre_deal_observation_has_no_cards
        own = set(g.cards(i))
        assert sorted(o["cards"]) == sorted(own) and o["hand"] == str(g.hand(i))
        assert list(o["cards_left"]) == [len(g.cards(s)) for s in range(n)]
        # face-up hands: exactly the ones the rules make public, with their current cards
        # the seat's own face-up hand may be listed or left to "cards" (a representation choice)
        assert {int(s) for s in o["shown"]} in (ref.shown, ref.shown - {i}), (i, o["shown"].keys(), ref.shown)
        for s, names in o["shown"].items():
            assert sorted(names) == sorted(g.cards(int(s)))
        if ref.kitty_revealed and not ref.stage == "SPECIAL":
            assert o["kitty"] is not None and sorted(o["kitty"]) == sorted(ref.kitty)
        else:
            assert o["kitty"] is None, (g.phase, o["kitty"])
        allowed = own | played
        for s in ref.shown:
            allowed |= set(g.cards(s))
        if ref.kitty_revealed:
            allowed |= set(ref.kitty)
        if o.get("top") is not None:  # an extra key: the play to beat, public; its ranks may be a
            # rank string such as "B" (not a physical name), so it is checked against the trick here
            assert ref.top is not None
            texts = [x for x in _flat(o["top"]) if isinstance(x, str)]
            assert texts and all(x == ref.top or (x.startswith("PLAY ") and ranks_str(x[5:].split()) == ref.top)
                                 or ranks_str(x.split()) == ref.top for x in texts), (o["top"], ref.top)
        elif "top" in o:
            assert ref.top is None or g.is_over
        leak = [c for c in exposed_names({k: v for k, v in o.items() if k != "top"}) if c not in allowed]
        assert not leak, f"seat {i} sees hidden cards {leak} in phase {g.phase}"


# =====================================================================================
# Random games
# =====================================================================================

def random_deal(rng, variant, rig=None):
    """Random injected deal (rank strings), optionally rigged: "special" puts a 天炸 or 天尊 in a
    random hand, "missile" puts 7 of a rank in one, "bombs" a 4-of-a-kind and the rocket."""
    n, size, ksize, aside = LAYOUT[variant]
    copies, jokers = (8, 2) if variant == "bengbu" else (4, 1)
    deck = [r for r in RANKS[:13] for _ in range(copies)] + ["B", "R"] * jokers
    rng.shuffle(deck)
    hands = [[] for _ in range(n)]
    if rig:
        s = rng.randrange(n)
        r = rng.choice(RANKS[:13])
        want = {"special": rng.choice([[r] * 8, ["B", "B", "R", "R"]]), "missile": [r] * 7,
                "bombs": [r] * 4 + ["B", "R"]}[rig]
        for c in want:
            deck.remove(c)
        hands[s] += want
    for s in range(n):
        while len(hands[s]) < size:
            hands[s].append(deck.pop())
    kitty = [deck.pop() for _ in range(ksize)]
    out = dict(hands=["".join(h) for h in hands], kitty="".join(kitty))
    if variant == "two_player" and rng.random() < 0.5:
        out["aside"] = "".join(deck)
    return out


def choose(rng, g, ref, style):
    """A random legal action, in a random one of the accepted input forms (contract: a token,
    "PLAY <ranks>", bare ranks, a ddz.Move, "PLAY <physical cards>", a list of card ids)."""
    legal = g.legal_actions()
    if g.phase != "PLAY":
        passive = [a for a in legal if a in ("NO_CALL", "NO_ROB", "NO_SHOW", "NORMAL_START", "NO_FANSHEN",
                                              "NO_YAPO", "CLOSED")]
        if passive and rng.random() < style["bid_pass"]:
            return rng.choice(passive), None
        return rng.choice(legal), None
    seat = g.current_seat
    bombs = [a for a in legal if a.startswith("PLAY ") and bomb_class(a[5:], ref.variant)]
    if bombs and rng.random() < style["bomb"]:
        a = rng.choice(bombs)
    elif "PASS" in legal and rng.random() < style["pass"][seat]:
        a = "PASS"
    else:
        a = rng.choice(legal)
    if a == "PASS":
        return a, None
    ranks = a[5:]
    form = rng.randrange(5)
    if form == 0:
        return a, None
    if form == 1:
        return ranks, None
    if form == 2:
        return ddz.classify(ranks, ref.rules), None
    mine = list(g.cards(seat))
    rng.shuffle(mine)
    names = []
    for r in ranks:
        c = next(c for c in mine if rank_of(c) == r and c not in names)
        names.append(c)
    if form == 3:
        return "PLAY " + " ".join(names), names
    return [ddz.card_id(c, ref.decks) for c in names], names


CONFIGS = {
    # id: (variant, options, Game kwargs, games, rig probability)
    "classic": ("classic", {}, {}, 2000, 0.2),
    "classic-options": ("classic", {"classic_rob_winner": "last", "classic_passers_may_rob": True,
                                    "classic_kitty_combine": "max", "classic_landlord_loss_factor": 1,
                                    "classic_rob_cap": 4, "classic_show_timing": "after_kitty"},
                        {"base": 25, "initial_multiplier": 3}, 400, 0.2),
    "classic-max_redeals": ("classic", {"max_redeals": 1}, {}, 300, 0.0),
    "two_player": ("two_player", {}, {}, 2000, 0.2),
    "two_player-options": ("two_player", {"twop_zero_sum": True, "twop_show_start_stacks": True,
                                          "twop_fanshen_point": "before_lead", "twop_rocket_doubles": False,
                                          "twop_initial_multiplier": 3}, {}, 400, 0.2),
    "two_player-max_redeals": ("two_player", {"max_redeals": 2}, {}, 300, 0.0),
    "bengbu": ("bengbu", {}, {}, 1500, 0.3),
    "bengbu-options": ("bengbu", {"bengbu_missiles_once_per_player": True, "bengbu_special_per_instance": True,
                                  "bengbu_point_value": 300, "max_redeals": 1}, {}, 400, 0.3),
}


def play_game(cfg_id, k, deep=False):
    """Plays game k of a configuration; returns (game, constructor kwargs, referee, snapshots, applied)."""
    variant, opts, gkw, _, rig_p = CONFIGS[cfg_id]
    rules = FACTORY[variant](**opts)
    rng = random.Random(f"{cfg_id}/{k}")
    kwargs = dict(gkw)
    if rng.random() < 0.5:
        rig = rng.choice(["special", "missile"] if variant == "bengbu" else ["bombs"]) \
            if rng.random() < rig_p else None
        kwargs.update(random_deal(rng, variant, rig))
        if rng.random() < 0.5:
            kwargs["first_bidder"] = rng.randrange(rules.players)
        if variant == "two_player" and rng.random() < 0.5:
            kwargs["first_to_decide"] = rng.randrange(2)
    seed = rng.randrange(2 ** 32)
    g = ddz.Game(rules, seed, **kwargs)
    rec0 = json.loads(g.to_json())
    if "hands" in kwargs:  # the injected deal is the first deal (suits assigned by the engine)
        d0 = rec0["deals"][0]
        assert [ranks_str(h) for h in d0["hands"]] == [str(ddz.Cards(h, rules.decks)) for h in kwargs["hands"]]
        assert ranks_str(d0["kitty"]) == str(ddz.Cards(kwargs["kitty"], rules.decks))
        if "aside" in kwargs:
            assert ranks_str(d0["aside"]) == str(ddz.Cards(kwargs["aside"], rules.decks))
        if "first_bidder" in kwargs:
            assert d0["first_bidder"] == kwargs["first_bidder"]
        if "first_to_decide" in kwargs:
            assert d0["first_to_decide"] == kwargs["first_to_decide"]
    ref = Referee(g, rules, gkw.get("base", 1), gkw.get("initial_multiplier", 1))
    style = {"bid_pass": rng.random() * 0.8, "bomb": rng.random() * 0.6,
             "pass": [rng.random() ** 0.5 for _ in range(rules.players)]}
    snaps, applied = [], []
    for _ in range(3000):
        ref.check_state()
        if deep:
            check_observations(g, ref)
        if g.is_over:
            break
        action, names = choose(rng, g, ref, style)
        seat = g.current_seat
        n_hist = len(g.history)
        g.apply(action)
        new = g.history[n_hist:]
        assert new and new[0][0] == seat, new
        if names is not None:  # exact physical cards were asked for
            assert new[0][1] == "PLAY " + " ".join(names) or sorted(new[0][1][5:].split()) == sorted(names)
        elif not isinstance(action, str) or action not in TOKENS[variant] | {"PASS"}:
            want = str(action) if isinstance(action, ddz.Move) else action.replace("PLAY ", "")
            assert ranks_str(new[0][1][5:].split()) == str(ddz.Cards(want, rules.decks))
        else:
            assert new[0][1] == action
        applied.append(new[0])
        for s, t in new:
            ref.feed(s, t)
        assert ref.events == len(g.history)
        if deep:
            snaps.append(snapshot(g, rules.players))
            if len(applied) % 5 == 0:  # the record restores this very state
                h = ddz.Game.from_json(g.to_json())
                assert snapshot(h, rules.players) == snaps[-1]
                assert all(h.observation(s) == g.observation(s) for s in range(rules.players))
    else:
        raise AssertionError("the game did not end")
    assert g.is_over and g.phase == "OVER" and g.current_seat is None and g.legal_actions() == []
    assert g.redeals == [t for _, t in g.history].count("REDEAL") == ref.deal_idx
    assert g.deal_number == len(json.loads(g.to_json())["deals"]) - 1
    if g.result.kind != "void":
        assert g.deal_number == g.redeals
    ref.check_result(g.result)
    check_record(g, rules, ref)
    return g, seed, kwargs, ref, snaps, applied


def snapshot(g, n):
    return (g.phase, g.current_seat, tuple(g.legal_actions()), g.multiplier, g.landlord, tuple(g.history),
            tuple(tuple(sorted(g.cards(s))) for s in range(n)) if g.phase != "PRE_DEAL" else None,
            g.result)


def check_record(g, rules, ref):
    rec = json.loads(g.to_json())
    assert rec["format"] == "ddz-game" and rec["version"] == 1
    assert rec["rules"]["variant"] == rules.variant
    assert rec["rules"]["options"] == json.loads(json.dumps(dict(rules.options)))
    # the recorded actions: every player action of the history in order; system events (seat
    # null) may be recorded too (the contract allows "seat": null) but need not be, since re-deals
    # follow from the seed
    acts = [(a["seat"], a["action"]) for a in rec["actions"]]
    assert [a for a in acts if a[0] is not None] == [tuple(h) for h in g.history if h[0] is not None]
    assert [a for a in acts if a[0] is None] in ([], [tuple(h) for h in g.history if h[0] is None])
    n, size, ksize, aside = LAYOUT[rules.variant]
    deck = sorted(full_deck_names(rules.decks))
    assert len(rec["deals"]) == g.deal_number + 1 or g.result.kind == "void"
    for d in rec["deals"]:
        assert [len(h) for h in d["hands"]] == [size] * n and len(d["kitty"]) == ksize
        rest = list(d.get("aside") or [])
        assert len(rest) == aside
        assert sorted([c for h in d["hands"] for c in h] + list(d["kitty"]) + rest) == deck
    if ref.deal_idx < len(rec["deals"]):
        assert rec["deals"][ref.deal_idx]["first_bidder"] in range(n)


def check_from_json(g, snaps_applied=None):
    h = ddz.Game.from_json(g.to_json())
    assert json.loads(h.to_json()) == json.loads(g.to_json())
    assert h.history == g.history and h.phase == g.phase and h.result == g.result
    assert h.current_seat == g.current_seat and h.legal_actions() == g.legal_actions()
    assert h.landlord == g.landlord and h.redeals == g.redeals and h.first_bidder == g.first_bidder
    if g.phase != "PRE_DEAL":
        n = len(g.observation(0)["cards_left"])
        for s in range(n):
            assert h.cards(s) == g.cards(s) and h.observation(s) == g.observation(s)
    return h


@pytest.mark.parametrize("cfg_id", list(CONFIGS))
def test_random_games(cfg_id):
    """Every game ends; every step and the result agree with the referee; records round-trip."""
    variant, opts, gkw, games, _ = CONFIGS[cfg_id]
    kinds = Counter()
    voids = Counter()
    outcomes = Counter()
    for k in range(games):
        g, seed, kwargs, ref, _, _ = play_game(cfg_id, k)
        r = g.result
        kinds[r.kind] += 1
        if r.kind == "void":
            voids[ref.void_at] += 1
        elif r.kind == "normal":
            outcomes[r.winner_side] += 1
            outcomes["spring"] += r.spring
            outcomes["anti_spring"] += r.anti_spring
            outcomes["bombs"] += bool(sum(ref.bombs.values()))
            outcomes["missiles"] += bool(sum(ref.missiles.values()))
        if k % 10 == 0:
            check_from_json(g)
        if ref.allpass_rounds and r.kind != "void" and opts.get("max_redeals"):
            voids["non-void rounds %d" % ref.allpass_rounds] += 1
    # the games cover what they claim to
    assert outcomes["landlord"] and outcomes["farmers"], outcomes
    if variant != "bengbu":
        assert outcomes["spring"] and outcomes["anti_spring"] and outcomes["bombs"], outcomes
    else:
        assert kinds["special"] and outcomes["missiles"] and outcomes["bombs"], (kinds, outcomes)
    if opts.get("max_redeals"):
        # §7 max_redeals = n: "after the n-th consecutive re-deal the hand is void". Whether the
        # void comes at the n-th or the (n+1)-th all-pass round is read differently; the engine
        # must pick one and hold to it: every void at the same round count t in {n, n+1}, and no
        # game that went on had reached t all-pass rounds.
        n = opts["max_redeals"]
        void_rounds = {t for t in voids if isinstance(t, int)}
        assert kinds["void"] and len(void_rounds) == 1 and void_rounds <= {n, n + 1}, voids
        t = void_rounds.pop()
        assert all(int(key.split()[-1]) < t for key in voids if isinstance(key, str)), voids
    else:
        assert not kinds["void"]


@pytest.mark.parametrize("cfg_id", ["classic", "classic-options", "two_player", "two_player-options", "bengbu",
                                    "bengbu-options"])
def test_observations_records_and_replay(cfg_id):
    """Observations never expose a hidden card (checked at every step for every seat); the record
    reproduces the game from the end and from a mid-hand point; replaying the recorded actions on
    a fresh Game gives the same state after every action; the same seed and actions give the same
    game."""
    variant, opts, gkw, games, _ = CONFIGS[cfg_id]
    rules = FACTORY[variant](**opts)
    for k in range(games, games + (40 if variant != "bengbu" else 20)):
        g, seed, kwargs, ref, snaps, applied = play_game(cfg_id, k, deep=True)
        check_from_json(g)
        # replay on a fresh game: the same state after every action
        f = ddz.Game(rules, seed, **kwargs)
        assert json.loads(f.to_json())["deals"][0] == json.loads(g.to_json())["deals"][0]
        for i, (s, token) in enumerate(applied):
            assert f.current_seat == s
            f.apply(token)
            assert snapshot(f, rules.players) == snaps[i], (i, token)
        assert f.to_json() == g.to_json()
        # the same seed and the same choices give the same game
        g2 = play_game(cfg_id, k)[0]
        assert g2.to_json() == g.to_json()


@pytest.mark.parametrize("cfg_id", ["classic", "two_player", "bengbu"])
def test_record_restored_mid_hand_continues_identically(cfg_id):
    """A record taken at any point and restored with Game.from_json, then continued with the
    remaining actions, ends as the original game: same deals (re-deals included: they come from
    the seeded RNG, "same seed and same actions -> identical game"), history, result, record.
    Restore points with and without a later re-deal are reported separately."""
    variant = CONFIGS[cfg_id][0]
    bad = {"no later re-deal": [], "a re-deal follows": []}
    total = Counter()
    for k in range(120):
        g, seed, kwargs, ref, _, applied = play_game(cfg_id, 50000 + k)
        f = ddz.Game(FACTORY[variant](), seed, **kwargs)
        mid = random.Random(k).randrange(len(applied) + 1)
        for s, token in applied[:mid]:
            f.apply(token)
        later_redeal = g.redeals > f.redeals
        case = "a re-deal follows" if later_redeal else "no later re-deal"
        total[case] += 1
        h = ddz.Game.from_json(f.to_json())
        try:
            for s, token in applied[mid:]:
                assert h.current_seat == s
                h.apply(token)
            assert h.to_json() == g.to_json() and h.result == g.result
        except (AssertionError, ValueError) as e:
            bad[case].append((k, mid, type(e).__name__))
    assert not bad["no later re-deal"] and not bad["a re-deal follows"], \
        {c: f"{len(v)} of {total[c]} restored games diverge, e.g. {v[:3]}" for c, v in bad.items()}


def test_restored_record_redeals_like_the_original():
    """The smallest case of the above: restore a fresh game's record, then pass every bid: the
    re-deals of the restored game must be those of the original (same seed, same actions)."""
    for variant in FACTORY:
        rules = FACTORY[variant]()
        for seed in range(10):
            a = ddz.Game(rules, seed)
            b = ddz.Game.from_json(a.to_json())
            for g in (a, b):
                while not g.is_over and g.redeals < 3:
                    g.apply(next(x for x in g.legal_actions() if x in ("NO_CALL", "NORMAL_START")))
            assert json.loads(b.to_json())["deals"] == json.loads(a.to_json())["deals"], (variant, seed)
            assert b.history == a.history


def test_twop_pre_deal_observation_has_no_cards():
    """§2.2.3: PRE_DEAL comes before the deal ("还没发牌时，就选择明牌"): no seat may see any card
    yet, its own future hand included (else choosing SHOW_START would not be blind)."""
    for k in range(30):
        g = ddz.Game(ddz.Rules.two_player(), k)
        for step in range(2):
            assert g.phase == "PRE_DEAL"
            for s in range(2):
                o = g.observation(s)
                assert o["cards"] == [] and o["hand"] == "" and o["kitty"] is None and o["shown"] == {}
                assert exposed_names(o, skip=()) == []
            g.apply(random.Random(k * 2 + step).choice(["SHOW_START", "NORMAL_START"]))
        assert g.phase == "BID"


def test_same_seed_same_deals_other_seed_other_deals():
    for variant in FACTORY:
        rules = FACTORY[variant]()
        a = [json.loads(ddz.Game(rules, s).to_json())["deals"][0] for s in range(20)]
        b = [json.loads(ddz.Game(rules, s).to_json())["deals"][0] for s in range(20)]
        assert a == b
        assert len({json.dumps(d["hands"]) for d in a}) == 20


def test_card_names_and_ids():
    """Contract card names: rank char + suit letter, jokers B / R, second deck with a trailing
    apostrophe; ids 0..53 (id = 4v + suit, 52 = B, 53 = R), two decks + 54."""
    for decks in (1, 2):
        names = full_deck_names(decks)
        assert len(set(names)) == 54 * decks
        for i, c in enumerate(names):
            assert ddz.card_id(c, decks) == i
            assert CARD_RE.match(c)
            base = i % 54
            assert c.endswith("'") == (i >= 54)
            want = "B" if base == 52 else "R" if base == 53 else RANKS[base // 4]
            assert rank_of(c) == want
        suits = {c[1] for c in names if c[0] not in "BR"}
        assert suits == {"s", "h", "c", "d"}
