"""A whole hand, from the shuffle to the score, for each variant (docs/rules.md §6–§9).

``ddz.Game(rules, seed)`` deals real suited cards, runs the variant's bidding and doubling
decisions, hands the play phase to the C++ ``PlayState``, scores the hand and keeps a record
that replays it. Every phase answers one protocol: ``phase``, ``current_seat``,
``legal_actions()``, ``apply(action)`` (an illegal action raises ``IllegalAction`` and
changes nothing), ``is_over``, ``result``, ``observation(seat)``.
"""
from __future__ import annotations

import copy
import inspect
import json
import random
from collections import Counter
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _core
from ._core import CardError, Cards, IllegalAction, Move, PlayState
from ._rules import Rules
from . import scoring
from .scoring import GameResult, PlaySummary, kitty_factor
from .cards import RANKS, card_name, card_rank, deck_ids, ranks_of
from .variants import VARIANT
from .errors import ArgumentError, ArgumentTypeError, IllegalCode, illegal, shown

__all__ = ["Game", "GameResult", "RECORD_FORMAT", "RECORD_VERSION", "kitty_factor"]

RECORD_FORMAT = "ddz-game"
RECORD_VERSION = 1



def _is_play_form(action: Any) -> bool:
    """An action shaped like a play or a pass (checked against the phase, not parsed)."""
    if isinstance(action, (Move, list, tuple)):
        return True
    if isinstance(action, str):
        t = action.strip().upper()
        return t == "PASS" or t.startswith("PLAY") or (bool(t) and all(ch in RANKS or ch in "SHCD' ," for ch in t))
    return False


class Game:
    """One hand of ``rules.variant``. See the module docstring and README."""

    def __new__(cls, rules: Rules, *args: Any, **kwargs: Any) -> "Game":
        if cls is Game:
            if not isinstance(rules, Rules):
                raise ArgumentTypeError("Game(rules, ...) needs a ddz.Rules")
            cls = _VARIANT_CLASS[rules.variant]
        return object.__new__(cls)

    def __init__(self, rules: Rules, seed: Optional[int] = None, *, hands: Optional[Sequence[str]] = None,
                 kitty: Optional[str] = None, aside: Optional[str] = None, first_bidder: Optional[int] = None,
                 first_to_decide: Optional[int] = None, base: int = 1, initial_multiplier: int = 1,
                 _deals: Optional[List[Dict[str, Any]]] = None) -> None:
        if not isinstance(rules, Rules):
            raise ArgumentTypeError("Game(rules, ...) needs a ddz.Rules")
        self._rules = rules
        self._variant = rules.variant
        self._n = rules.players
        self._decks = rules.decks
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ArgumentTypeError(f"seed must be an int, not {type(seed).__name__}")
        if not 0 <= seed < 2**64:
            text = str(seed) if seed.bit_length() <= 128 else f"an integer of {seed.bit_length()} bits"
            raise ArgumentError(f"seed must be in 0..2**64-1, not {text}")
        for name, v in (("base", base), ("initial_multiplier", initial_multiplier)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ArgumentError(f"{name} must be a positive integer, not {shown(v)}")
        for name, seat_arg in (("first_bidder", first_bidder), ("first_to_decide", first_to_decide)):
            if seat_arg is not None and (isinstance(seat_arg, bool) or not isinstance(seat_arg, int)
                                         or not 0 <= seat_arg < self._n):
                raise ArgumentError(f"{name} must be a seat 0..{self._n - 1}, not {shown(seat_arg)}")
        if self._variant != "classic" and (base != 1 or initial_multiplier != 1):
            raise ArgumentError("base= and initial_multiplier= are CLASSIC3's room stakes (docs/rules.md §6); TWOP's "
                                "initial multiplier is the option twop_initial_multiplier, BENGBU4's base is the bid")
        if first_to_decide is not None and self._variant != "two_player":
            raise ArgumentError("first_to_decide exists only in TWOP (the PRE_DEAL phase, docs/rules.md §7)")
        self._seed = seed
        self._base = base
        self._imult = initial_multiplier
        self._scripted: List[Dict[str, Any]] = [dict(d) for d in _deals] if _deals else []
        if hands is not None:
            if _deals:
                raise ArgumentError("give hands or a recorded deal list, not both")
            self._scripted = [self._injected_deal(hands, kitty, aside, first_bidder, first_to_decide)]
        elif kitty is not None or aside is not None:
            raise ArgumentError("kitty= and aside= need hands=")
        self._first_bidder_override = first_bidder if hands is None else None
        self._first_to_decide_override = first_to_decide if hands is None else None
        self._deals: List[Dict[str, Any]] = []
        self._history: List[Tuple[Optional[int], str]] = []
        self._redeals = 0
        self._result: Optional[GameResult] = None
        self._bots: Dict[int, Any] = {}
        self._clock = 0.0
        self._start_deal()

    # ---- dealing ----------------------------------------------------------------
    def _deal_order(self, deal_index: int) -> Tuple[List[int], int, int]:
        """Deal ``deal_index`` of this game (0, then one per re-deal) is game ``deal_index`` of
        the seed's series in the one dealer that ``ddz.deal`` and ``ddz.simulate`` use: the
        shuffled card ids, the first bidder (simulate's landlord) and TWOP's coin."""
        return _core.deal_order(self._rules, self._seed, deal_index)

    def _injected_deal(self, hands: Sequence[str], kitty: Optional[str], aside: Optional[str],
                       first_bidder: Optional[int], first_to_decide: Optional[int]) -> Dict[str, Any]:
        v = self._variant
        order, first_seat, coin = self._deal_order(0)
        if isinstance(hands, str) or len(hands) != self._n:
            raise ArgumentError(f"hands must list {self._n} hands, one per seat")
        pool: Dict[int, List[int]] = {}
        for cid in deck_ids(self._decks):
            pool.setdefault(card_rank(cid), []).append(cid)

        def take(ranks: str, what: str) -> List[int]:
            ids = []
            for ch in str(Cards(ranks, decks=self._decks)):
                rank = RANKS.index(ch)
                if not pool[rank]:
                    raise CardError(f"{what} needs one more '{ch}' than the deck has left")
                ids.append(pool[rank].pop(0))
            return ids

        dealt = []
        for i, h in enumerate(hands):
            ids = take(h, f"hand of seat {i}")
            if len(ids) != VARIANT[v].hand:
                raise ArgumentError(f"seat {i} must be dealt {VARIANT[v].hand} cards, got {len(ids)}")
            dealt.append(ids)
        rest = sorted(c for ids in pool.values() for c in ids)
        if kitty is not None:
            kit = take(kitty, "the kitty")
            if len(kit) != VARIANT[v].kitty:
                raise ArgumentError(f"the kitty holds {VARIANT[v].kitty} cards, got {len(kit)}")
        elif v == "two_player":  # three of the cards left, in the order the dealer shuffled them
            left = set(rest)
            kit = take(ranks_of([c for c in order if c in left][:VARIANT[v].kitty]), "the kitty")
        else:
            kit = rest
        rest = sorted(c for ids in pool.values() for c in ids)
        if v == "two_player":
            if aside is not None:
                aside_ids = take(aside, "the set-aside cards")
                if len(aside_ids) != VARIANT[v].aside:
                    raise ArgumentError(f"TWOP sets {VARIANT[v].aside} cards aside, got {len(aside_ids)}")
            else:
                aside_ids = rest
        else:
            if aside is not None:
                raise ArgumentError("only TWOP sets cards aside")
            aside_ids = []
        return {"hands": dealt, "kitty": kit, "aside": aside_ids,
                "first_bidder": first_bidder if first_bidder is not None else first_seat,
                "first_to_decide": (first_to_decide if first_to_decide is not None else coin)
                if v == "two_player" else None}

    def _draw_deal(self) -> Dict[str, Any]:
        if self._scripted:
            d = self._scripted.pop(0)
            return {"hands": [list(h) for h in d["hands"]], "kitty": list(d["kitty"]),
                    "aside": list(d.get("aside") or []), "first_bidder": d["first_bidder"],
                    "first_to_decide": d.get("first_to_decide")}
        order, fb, coin = self._deal_order(len(self._deals))
        lay = VARIANT[self._variant]
        k = lay.hand
        hands = [sorted(order[i * k:(i + 1) * k]) for i in range(self._n)]
        off = self._n * k
        kit = sorted(order[off:off + lay.kitty])
        aside = sorted(order[off + lay.kitty:])
        ftd = coin if self._variant == "two_player" else None
        if not self._deals:  # overrides apply to the first deal only
            if self._first_bidder_override is not None:
                fb = self._first_bidder_override
            if self._first_to_decide_override is not None:
                ftd = self._first_to_decide_override
        return {"hands": hands, "kitty": kit, "aside": aside, "first_bidder": fb, "first_to_decide": ftd}

    def _start_deal(self) -> None:
        d = self._draw_deal()
        self._deals.append(d)
        self._hands = _core.PhysicalHands(self._rules, d["hands"], d["kitty"], d["aside"])
        self._kitty_revealed = False
        self._shown: set = set()
        self._landlord: Optional[int] = None
        self._ps: Optional[PlayState] = None
        self._phase = ""
        self._seat: Optional[int] = None
        self._begin_bidding(d)

    def _redeal(self) -> None:
        self._history.append((None, "REDEAL"))
        self._redeals += 1
        limit = self._rules.options["max_redeals"]
        if limit and self._redeals >= limit:  # §7 max_redeals: the hand is void
            self._finish(GameResult(kind="void", winner_side=None, landlord=None, winner_seat=None, multiplier=1,
                                    factors={}, unit=0, scores=[0] * self._n))
            return
        self._start_deal()

    def _take_kitty(self) -> None:
        self._hands.take_kitty(self._ll)
        self._kitty_revealed = True

    # ---- protocol ---------------------------------------------------------------
    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def phase(self) -> str:
        return self._phase

    @property
    def current_seat(self) -> Optional[int]:
        if self._phase == "PLAY":
            return self._play.current_seat
        return self._seat

    @property
    def is_over(self) -> bool:
        return self._phase == "OVER"

    @property
    def result(self) -> Optional[GameResult]:
        return self._result

    @property
    def landlord(self) -> Optional[int]:
        return self._landlord

    @property
    def first_bidder(self) -> int:
        return self._deals[-1]["first_bidder"]

    @property
    def redeals(self) -> int:
        return self._redeals

    @property
    def deal_number(self) -> int:
        return len(self._deals) - 1

    @property
    def history(self) -> List[Tuple[Optional[int], str]]:
        return list(self._history)

    @property
    def play_state(self) -> Optional[PlayState]:
        return self._ps

    @property
    def num_players(self) -> int:
        return self._n

    @property
    def _play(self) -> PlayState:
        """The play state, once the play phase has started."""
        assert self._ps is not None, "the play phase has not started"
        return self._ps

    @property
    def _ll(self) -> int:
        """The landlord seat, once it is known."""
        assert self._landlord is not None, "no landlord yet"
        return self._landlord

    def _acting(self) -> int:
        seat = self.current_seat
        assert seat is not None, "nobody is to act"
        return seat

    def hand(self, seat: int) -> Cards:
        """A seat's cards by rank (server view; empty before the deal)."""
        self._check_seat(seat)
        return self._hands.cards(seat) if self._dealt() else Cards("", decks=self._decks)

    def cards(self, seat: int) -> List[str]:
        """A seat's physical cards (server view; empty before the deal)."""
        self._check_seat(seat)
        return self._hands.names(seat) if self._dealt() else []

    @property
    def kitty(self) -> Optional[Cards]:
        """The kitty (server view); None before the deal (TWOP's PRE_DEAL)."""
        return Cards(ranks_of(self._hands.kitty), decks=self._decks) if self._dealt() else None

    @property
    def multiplier(self) -> int:
        return self._multiplier(self._current_factors())

    @property
    def factors(self) -> Dict[str, Any]:
        return self._current_factors()

    def _summary(self) -> PlaySummary:
        """The play so far, as scoring reads it (nothing before the play phase)."""
        return PlaySummary.of(self._ps) if self._ps is not None else scoring.NO_PLAY

    def _check_seat(self, seat: int) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self._n:
            raise ArgumentError(f"no seat {shown(seat)}: seats are 0..{self._n - 1}")

    def legal_actions(self) -> List[str]:
        """The actions of the seat to act, as tokens: decisions (``"CALL"``, ``"BID2"``, …) in
        the bidding phases, ``"PLAY <ranks>"`` and ``"PASS"`` in the play phase; ``[]`` once
        the hand is over."""
        if self._phase == "OVER":
            return []
        if self._phase == "PLAY":
            return self._play.legal_tokens()
        return self._decision_actions()

    def check(self, action: Any, seat: Optional[int] = None) -> Optional[IllegalAction]:
        """None when ``apply(action, seat)`` would succeed, otherwise the ``IllegalAction`` it
        would raise (returned, not raised), whose ``.code`` (a ``ddz.IllegalCode``) says why:
        ``HAND_OVER``, ``NOT_YOUR_TURN``, ``WRONG_PHASE`` (a play during the bidding or a
        decision during the play), ``NOT_OFFERED`` (a decision of another phase), ``MALFORMED``,
        ``NOT_HELD``, ``NOT_A_COMBINATION``, ``DOES_NOT_BEAT``, ``LEAD_PASS``, ``WRONG_READING``,
        ``BOMB_LIMIT``. Changes nothing."""
        try:
            self._validate(action, seat)
        except IllegalAction as e:
            return e
        return None

    def can_apply(self, action: Any, seat: Optional[int] = None) -> bool:
        """``check(action, seat) is None``."""
        return self.check(action, seat) is None

    def apply(self, action: Any, seat: Optional[int] = None) -> str:
        """Applies an action of the seat to act and returns the token recorded for it. With
        ``seat`` (a server always passes it) an action by any other seat raises
        ``IllegalAction`` with code ``NOT_YOUR_TURN``. An illegal action raises the
        ``IllegalAction`` that ``check`` returns and changes nothing."""
        if self._phase == "PLAY":  # the hot path: the core checks and plays real cards in one step
            ps = self._play
            if seat is not None and seat != ps.current_seat:
                self._check_turn(seat)
            acting = ps.current_seat
            try:
                token = self._hands.play(ps, action)
            except IllegalAction as e:
                raise self._play_error(action, e) from None
            self._played(acting, token)
        else:
            token = self._apply(self._validate(action, seat))
        self._clock = 0.0
        return token

    def _check_turn(self, seat: Any) -> None:
        self._check_seat(seat)
        acting = self._acting()
        if seat != acting:
            raise illegal(IllegalCode.NOT_YOUR_TURN, f"not seat {seat}'s turn: seat {acting} is to act")

    def _play_error(self, action: Any, error: IllegalAction) -> IllegalAction:
        """A decision token offered during the play reads as malformed cards to the core;
        it is an action of the wrong phase."""
        if isinstance(action, str) and action.strip().upper() in VARIANT[self._variant].decisions:
            return illegal(IllegalCode.WRONG_PHASE, f"{shown(action, 40)} is a decision, but the hand is in "
                                                    "its play phase: play cards or PASS")
        return error

    def _validate(self, action: Any, seat: Optional[int]) -> Any:
        """Checks an action completely, raising its IllegalAction; returns what _apply needs
        (card ids, None for PASS, or a decision token)."""
        if self._phase == "OVER":
            raise illegal(IllegalCode.HAND_OVER, "the hand is over: no action is legal")
        acting = self._acting()
        if seat is not None:
            self._check_turn(seat)
        if self._phase == "PLAY":
            why = self._hands.check_play(self._play, action)
            if why is not None:
                raise self._play_error(action, why)
            return ("play", action)
        if not isinstance(action, str):
            if _is_play_form(action):
                raise illegal(IllegalCode.WRONG_PHASE, f"a play during phase {self._phase}: legal actions are "
                                                       f"{', '.join(self._decision_actions())}")
            raise illegal(IllegalCode.MALFORMED, f"a decision is one of the tokens of docs/rules.md §1 (a str), "
                                                 f"not {shown(action)}", type_error=True)
        token = action.strip().upper()
        legal = self._decision_actions()
        if token not in legal:
            what = shown(action.strip() or action, 40)
            code = (IllegalCode.NOT_OFFERED if token in VARIANT[self._variant].decisions
                    else IllegalCode.WRONG_PHASE if _is_play_form(action) else IllegalCode.MALFORMED)
            raise illegal(code, f"{what} is not legal for seat {acting} in phase {self._phase}: "
                                f"legal actions are {', '.join(legal)}")
        return ("decide", token)

    def _apply(self, prepared: Any) -> str:
        what, arg = prepared
        seat = self._acting()
        if what == "play":
            token = self._hands.play(self._play, arg)
            self._played(seat, token)
            return token
        self._history.append((seat, arg))
        self._decide(seat, arg)
        return arg

    # ---- the play phase ------------------------------------------------------------
    def _start_play(self, bomb_limits: Optional[List[Optional[int]]] = None) -> None:
        hands = [self._hands.cards(s) for s in range(self._n)]
        self._ps = PlayState(hands, self._ll, self._rules, bomb_limits=bomb_limits)
        self._phase = "PLAY"
        self._seat = None

    def _played(self, seat: int, token: str) -> None:
        """Records a play or pass the core has applied; ends the hand or runs the hook."""
        self._history.append((seat, token))
        if self._play.is_over:
            self._finish(self._score())
        else:
            self._after_play_action(seat)

    def _after_play_action(self, seat: int) -> None:
        """Hook for decisions inside the play phase (TWOP 翻身/压迫)."""

    def _finish(self, result: GameResult) -> None:
        self._result = result
        self._phase = "OVER"
        self._seat = None

    # ---- observation --------------------------------------------------------------
    def _visible_seats(self) -> set:
        return set(self._shown)

    def _dealt(self) -> bool:
        """False while the cards are not dealt yet (TWOP's PRE_DEAL comes before the deal)."""
        return True

    def observation(self, seat: Optional[int]) -> Dict[str, Any]:
        """What ``seat`` may see now, and nothing else (docs/rules.md §6, §2.2.2, §2.3.3).
        ``seat=None`` is the public view (a spectator's): no own hand, no legal actions."""
        if seat is not None:
            self._check_seat(seat)
        dealt = self._dealt()
        names = lambda s: self._hands.names(s) if dealt else []  # noqa: E731
        to_act = self.current_seat
        return {
            "seat": seat,
            "phase": self._phase,
            "current_seat": to_act,
            "landlord": self._landlord,
            "first_bidder": self.first_bidder if dealt else None,
            "hand": str(self._hands.cards(seat)) if dealt and seat is not None else "",
            "cards": names(seat) if seat is not None else [],
            "shown": {s: names(s) for s in sorted(self._visible_seats()) if s != seat},
            "kitty": [card_name(c, self._decks) for c in self._hands.kitty] if self._kitty_revealed else None,
            "cards_left": [self._hands.count(s) if dealt else 0 for s in range(self._n)],
            "history": [[s, t] for s, t in self._history],
            "multiplier": self.multiplier,
            "factors": self._current_factors(),
            "top": self._public_top(),
            "bots": sorted(self._bots),
            "legal_actions": self.legal_actions() if to_act == seat else [],
        }

    def _public_top(self) -> Optional[List[Any]]:
        """[owner, ranks] of the play to beat in PLAY, else None (public information)."""
        if self._ps is None or self._phase not in ("PLAY", "FANSHEN", "YAPO") or self._play.top is None:
            return None
        move, owner = self._play.top
        return [owner, str(move)]

    # ---- record -------------------------------------------------------------------
    def to_json(self) -> str:
        """The ``ddz-game`` v1 record: rules, seed, every deal (all hands, the kitty and the
        set-aside cards: hidden cards included), every action and the result; ``from_json``
        replays it. It is the server's record: in the middle of a hand it reveals every hidden
        card, so never send it to a player; send ``view_json(seat)`` instead."""
        deals = [{"hands": [[card_name(c, self._decks) for c in h] for h in d["hands"]],
                  "kitty": [card_name(c, self._decks) for c in d["kitty"]],
                  "aside": [card_name(c, self._decks) for c in d["aside"]],
                  "first_bidder": d["first_bidder"], "first_to_decide": d["first_to_decide"]} for d in self._deals]
        return json.dumps({
            "format": RECORD_FORMAT, "version": RECORD_VERSION,
            "rules": {"variant": self._variant, "options": dict(self._rules.options)},
            "seed": self._seed, "base": self._base, "initial_multiplier": self._imult,
            "deals": deals, "actions": self._action_log(),
            "result": self._result.to_dict() if self._result else None,
        }, ensure_ascii=False, sort_keys=True)

    def _action_log(self) -> List[Dict[str, Any]]:
        """The record's actions: the history without the dealer's REDEAL entries."""
        return [{"seat": seat, "action": token} for seat, token in self._history if seat is not None]

    @classmethod
    def from_json(cls, text: str) -> "Game":
        """Rebuilds a game from its ``ddz-game`` record by replaying every action on the
        recorded deals. The record is checked whole (structure, deals, every action, the
        deals used, the stored result against the replayed one); a broken record raises
        ``ddz.RecordError`` naming what is wrong (see ``ddz.record``)."""
        from .record import read_game
        return read_game(text)

    def view_json(self, seat: Optional[int] = None) -> str:
        """What ``seat`` has seen so far, as a ``ddz-view`` v1 record: its own dealt cards,
        the public actions, its current observation and the result. ``seat=None`` gives a
        spectator's view (public information only). Unlike ``to_json()`` it holds no card
        hidden from that seat, so it is what a server may send to a player. Read it back
        with ``ddz.record.read_view``; ``ddz replay`` prints it."""
        from .record import view_record
        return json.dumps(view_record(self, seat), ensure_ascii=False, sort_keys=True)

    def clone(self) -> "Game":
        """An independent copy of the game at this point: the play state is cloned (its
        history is shared, not copied), the other state copied; bots are deep-copied so that a
        clone's bots draw their own random numbers."""
        new = object.__new__(type(self))
        memo: Dict[int, Any] = {id(self._rules): self._rules}
        for k, v in self.__dict__.items():
            if k == "_ps":
                new.__dict__[k] = v.clone() if v is not None else None
            elif k == "_deals":  # deals are never changed once drawn
                new.__dict__[k] = list(v)
            else:
                new.__dict__[k] = copy.deepcopy(v, memo)
        return new

    def __copy__(self) -> "Game":
        return self.clone()

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Game":
        return self.clone()

    def __reduce__(self) -> Tuple[Any, ...]:
        """Pickled as its record (replayed on load) plus the table state a record does not
        hold: the bots and the time spent on the current decision."""
        return (_game_from_pickle, (self.to_json(), dict(self._bots), self._clock))

    def __repr__(self) -> str:
        return (f"Game({self._variant}, phase={self._phase}, to act={self.current_seat}, "
                f"landlord={self._landlord}, deal={self.deal_number})")

    # ---- time, escapes and bots (docs/rules.md §9, §4) ------------------------------------
    @property
    def move_timeout_s(self) -> float:
        return self._rules.options["move_timeout_s"]

    @property
    def time_left(self) -> Optional[float]:
        """Seconds left for the current decision (the caller reports time with elapsed())."""
        return None if self.is_over else max(0.0, self.move_timeout_s - self._clock)

    def elapsed(self, seconds: float) -> Optional[str]:
        """Reports time spent on the current decision. When the decision's time
        (``move_timeout_s``) runs out, applies ``timeout()`` and returns its token."""
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0:
            raise ArgumentError(f"elapsed seconds must be a non-negative number, not {shown(seconds)}")
        if self.is_over:
            raise illegal(IllegalCode.HAND_OVER, "the hand is over: no decision is timed")
        self._clock += seconds
        if self._clock >= self.move_timeout_s:
            return self.timeout()
        return None

    def timeout_action(self) -> str:
        """The default action of §3.6 for the seat to act (A8): the non-escalating choice,
        PASS, or the lowest single card when the seat must lead."""
        if self.is_over:
            raise illegal(IllegalCode.HAND_OVER, "the hand is over: no decision is timed")
        if self._rules.options["timeout_policy"] == "bot":
            from .bots import RuleBot
            seat = self._acting()
            bot = self._bots.get(seat) or RuleBot()
            return bot.act(self, seat)
        legal = self.legal_actions()
        for token in ("NO_CALL", "NO_ROB", "NO_SHOW", "NORMAL_START", "NO_FANSHEN", "NO_YAPO", "CLOSED", "PASS"):
            if token in legal:
                return token
        lowest = min(self._hands.ids(self._acting()), key=lambda c: (card_rank(c), c))
        return "PLAY " + card_name(lowest, self._decks)

    def timeout(self) -> str:
        """The seat to act ran out of time: records TIMEOUT(seat) and applies the default action."""
        token = self.timeout_action()
        self._note_timeout()
        return self.apply(token)

    def _note_timeout(self) -> None:
        seat = self._acting()
        self._history.append((seat, "TIMEOUT"))

    @property
    def bot_seats(self) -> List[int]:
        return sorted(self._bots)

    def set_bot(self, seat: int, bot: Any = None) -> None:
        """Hands a seat to a bot (``ddz.bots.RuleBot()`` when ``bot`` is None) from now on;
        ``step_bots()`` then plays it. ``clear_bot(seat)`` gives the seat back."""
        self._check_seat(seat)
        if bot is None:
            from .bots import RuleBot
            bot = RuleBot()
        if not callable(getattr(bot, "act", None)):
            raise ArgumentTypeError("a bot needs an act(game, seat) method")
        self._bots[seat] = bot

    def clear_bot(self, seat: int) -> None:
        self._check_seat(seat)
        self._bots.pop(seat, None)

    def step_bots(self, limit: int = 10_000) -> List[str]:
        """Lets bot seats act while one of them is to act; returns the tokens applied."""
        done: List[str] = []
        while not self.is_over and self.current_seat in self._bots and len(done) < limit:
            done.append(self.apply(self._bots[self.current_seat].act(self, self.current_seat)))
        return done

    def escape(self, seat: int) -> Optional[GameResult]:
        """A seat leaves the unfinished hand (docs/rules.md §9, decision A9). TWOP and BENGBU4: the hand
        ends at once with the escape settlement (returned). CLASSIC3: a bot takes the seat
        until the hand ends and the hand is settled normally (§3.6; returns None)."""
        self._check_seat(seat)
        if self.is_over:
            raise illegal(IllegalCode.HAND_OVER, "the hand is over: nobody can escape it")
        self._history.append((seat, "ESCAPE"))
        self._clock = 0.0
        if self._variant == "classic":
            if seat not in self._bots:
                self.set_bot(seat)
            return None
        self._finish(self._escape_result(seat))
        return self._result

    def _escape_result(self, seat: int) -> GameResult:
        raise NotImplementedError

    # ---- variant hooks --------------------------------------------------------------
    def _begin_bidding(self, deal: Dict[str, Any]) -> None:
        raise NotImplementedError

    def _decision_actions(self) -> List[str]:
        raise NotImplementedError

    def _decide(self, seat: int, token: str) -> None:
        raise NotImplementedError

    def _current_factors(self) -> Dict[str, Any]:
        raise NotImplementedError

    def _multiplier(self, factors: Dict[str, Any]) -> int:
        raise NotImplementedError

    def _score(self) -> GameResult:
        raise NotImplementedError


class _ClassicGame(Game):
    """CLASSIC3 (docs/rules.md §6): call / rob, show, kitty factor, bombs, spring."""

    def _begin_bidding(self, deal: Dict[str, Any]) -> None:
        self._robs = 0
        self._robbers: List[int] = []
        self._caller: Optional[int] = None
        self._no_calls = 0
        self._rob_queue: List[int] = []
        self._showed = False
        self._kitty_f = 1
        self._phase = "CALL"
        self._seat = deal["first_bidder"]

    def _decision_actions(self) -> List[str]:
        return {"CALL": ["CALL", "NO_CALL"], "ROB": ["ROB", "NO_ROB"], "FINAL_ROB": ["ROB", "NO_ROB"],
                "SHOW": ["SHOW", "NO_SHOW"]}[self._phase]

    def _decide(self, seat: int, token: str) -> None:
        opts = self._rules.options
        p0 = self.first_bidder
        if self._phase == "CALL":
            if token == "CALL":
                self._caller = seat
                if opts["classic_passers_may_rob"]:
                    self._rob_queue = [(seat + 1) % 3, (seat + 2) % 3]
                else:  # the seats between the caller and P0 going round (A12)
                    self._rob_queue = []
                    s = (seat + 1) % 3
                    while s != p0:
                        self._rob_queue.append(s)
                        s = (s + 1) % 3
                self._next_rob()
            else:
                self._no_calls += 1
                if self._no_calls == 3:
                    self._redeal()
                else:
                    self._seat = (seat + 1) % 3
        elif self._phase == "ROB":
            if token == "ROB":
                self._robs += 1
                self._robbers.append(seat)
            self._next_rob()
        elif self._phase == "FINAL_ROB":
            if token == "ROB":
                self._robs += 1
                self._landlord_known(self._called())
            else:
                first = opts["classic_rob_winner"] == "first"
                self._landlord_known(self._robbers[0] if first else self._robbers[-1])
        elif self._phase == "SHOW":
            self._showed = token == "SHOW"
            if self._showed:
                self._shown.add(self._landlord)
            if opts["classic_show_timing"] == "before_kitty":
                self._reveal_kitty()
            self._start_play()

    def _called(self) -> int:
        assert self._caller is not None, "nobody has called"
        return self._caller

    def _next_rob(self) -> None:
        if self._rob_queue:
            self._phase = "ROB"
            self._seat = self._rob_queue.pop(0)
        elif not self._robbers:
            self._landlord_known(self._called())
        else:
            self._phase = "FINAL_ROB"
            self._seat = self._caller

    def _landlord_known(self, seat: int) -> None:
        self._landlord = seat
        if self._rules.options["classic_show_timing"] == "after_kitty":
            self._reveal_kitty()
        self._phase = "SHOW"
        self._seat = seat

    def _reveal_kitty(self) -> None:
        self._kitty_f = kitty_factor(ranks_of(self._hands.kitty), self._rules.options["classic_kitty_combine"])
        self._take_kitty()

    def _auction(self) -> scoring.ClassicAuction:
        return scoring.ClassicAuction(self._landlord, self._robs, self._showed, self._kitty_f, self._base, self._imult)

    def _current_factors(self) -> Dict[str, Any]:
        return scoring.classic_factors(self._auction(), self._summary(), self._rules.options)

    def _multiplier(self, f: Dict[str, Any]) -> int:
        return scoring.classic_multiplier(f)

    def _score(self) -> GameResult:
        return scoring.classic_score(self._auction(), self._summary(), self._rules.options)


class _TwoPlayerGame(Game):
    """TWOP (docs/rules.md §7): show-start ×5, call, 翻身 ×2 / 压迫 ×4, bombs, spring."""

    def _begin_bidding(self, deal: Dict[str, Any]) -> None:
        self._showers: List[int] = []
        self._pre_order = [deal["first_to_decide"], 1 - deal["first_to_decide"]]
        self._pre_done = 0
        self._bid_order: List[int] = []
        self._fanshen: Optional[bool] = None  # None: not decided yet
        self._yapo = False
        self._deal_done = False               # the cards are dealt after PRE_DEAL (§2.2.4)
        self._phase = "PRE_DEAL"
        self._seat = self._pre_order[0]

    @property
    def first_bidder(self) -> int:
        """P0: the first shower if any, else the deal's random draw (docs/rules.md §7)."""
        if getattr(self, "_showers", None):
            return self._showers[0]
        return self._deals[-1]["first_bidder"]

    def _dealt(self) -> bool:
        return self._deal_done

    def _visible_seats(self) -> set:
        # a show-start hand is face up from the deal, which follows PRE_DEAL
        return set(self._showers) if self._dealt() else set()

    def _decision_actions(self) -> List[str]:
        return {"PRE_DEAL": ["SHOW_START", "NORMAL_START"], "BID": ["CALL", "NO_CALL"],
                "FANSHEN": ["FANSHEN", "NO_FANSHEN"], "YAPO": ["YAPO", "NO_YAPO"]}[self._phase]

    def _decide(self, seat: int, token: str) -> None:
        if self._phase == "PRE_DEAL":
            if token == "SHOW_START":
                self._showers.append(seat)
            self._pre_done += 1
            if self._pre_done < 2:
                self._seat = self._pre_order[1]
            else:
                self._deal_done = True
                p0 = self.first_bidder
                self._bid_order = [p0, 1 - p0]
                self._phase = "BID"
                self._seat = p0
        elif self._phase == "BID":
            if token == "CALL":
                self._landlord_known(seat)
            elif seat == self._bid_order[0]:
                self._seat = self._bid_order[1]
            elif self._showers:
                self._landlord_known(self._showers[0])
            else:
                self._redeal()
        elif self._phase == "FANSHEN":
            self._fanshen = token == "FANSHEN"
            if self._fanshen:
                self._phase = "YAPO"
                self._seat = self._landlord
            else:
                self._resume_play()
        elif self._phase == "YAPO":
            self._yapo = token == "YAPO"
            self._resume_play()

    def _landlord_known(self, seat: int) -> None:
        self._landlord = seat
        self._take_kitty()
        self._start_play()
        if self._rules.options["twop_fanshen_point"] == "before_lead":
            self._enter_fanshen()

    def _enter_fanshen(self) -> None:
        self._phase = "FANSHEN"
        self._seat = 1 - self._ll

    def _resume_play(self) -> None:
        self._phase = "PLAY"
        self._seat = None

    def _after_play_action(self, seat: int) -> None:
        # farmer_first_turn: the farmer decides before his first play action (A24)
        if (self._fanshen is None and self._rules.options["twop_fanshen_point"] == "farmer_first_turn"
                and seat == self._landlord and self._play.current_seat != self._landlord):
            self._enter_fanshen()

    def _auction(self) -> scoring.TwopAuction:
        return scoring.TwopAuction(self._landlord, len(self._showers), bool(self._fanshen), bool(self._yapo))

    def _current_factors(self) -> Dict[str, Any]:
        return scoring.twop_factors(self._auction(), self._summary(), self._rules.options)

    def _multiplier(self, f: Dict[str, Any]) -> int:
        return scoring.twop_multiplier(f)

    def _score(self) -> GameResult:
        return scoring.twop_score(self._auction(), self._summary(), self._rules.options)

    def _escape_result(self, seat: int) -> GameResult:
        held = [self._hands.cards(s) for s in range(2)] if self._dealt() else None
        return scoring.twop_escape(self._auction(), self._summary(), seat, held, self._rules.options)


class _BengbuGame(Game):
    """BENGBU4 (docs/rules.md §8): 天炸/天尊 at the deal, bids 1/2/3 and grab, open or closed
    play, bomb limits from the bid log, missiles."""

    def _begin_bidding(self, deal: Dict[str, Any]) -> None:
        self._bids: List[Tuple[int, str, int]] = []  # (seat, token, h when acting)
        self._h = 0
        self._holder: Optional[int] = None
        self._grab = False
        self._open = False
        self._limits: List[Optional[int]] = []
        self._bid_base: Optional[int] = None
        self._phase = "BID"
        self._seat = deal["first_bidder"]
        holders = self._special_holders()
        if holders:
            self._finish(self._special_result(holders))

    def _special_holders(self) -> Dict[int, List[str]]:
        """§2.3.2: 天炸 (all 8 of a rank) / 天尊 (BBRR) in a dealt 25-card hand."""
        out: Dict[int, List[str]] = {}
        for s in range(4):
            c = Counter(RANKS.index(ch) for ch in str(self._hands.cards(s)))
            tz = [r for r in range(13) if c[r] == 8]
            marks = ["天炸"] * len(tz) + (["天尊"] if c[13] == 2 and c[14] == 2 else [])
            if marks:
                out[s] = marks
        return out

    def _special_result(self, holders: Dict[int, List[str]]) -> GameResult:
        return scoring.bengbu_special(holders, self._rules.options)

    def _decision_actions(self) -> List[str]:
        if self._phase == "BID":
            return ["NO_CALL"] + [f"BID{v}" for v in (1, 2, 3) if v > self._h] + ["GRAB"]
        return ["OPEN", "CLOSED"]

    def _decide(self, seat: int, token: str) -> None:
        if self._phase == "BID":
            self._bids.append((seat, token, self._h))
            if token == "GRAB":
                self._grab = self._open = True
                self._landlord_known(seat, 3)
                return
            if token != "NO_CALL":
                self._h = int(token[3])
                self._holder = seat
            if len(self._bids) == 4:
                if self._h == 0:
                    self._redeal()
                else:
                    self._landlord_known(self._bidder(), self._h)
            else:
                self._seat = (seat + 1) % 4
        else:  # OPEN_CHOICE
            self._open = token == "OPEN"
            if self._open:
                self._shown.add(self._landlord)
            self._start_play(self._limits)

    def _landlord_known(self, seat: int, base: int) -> None:
        self._landlord = seat
        self._bid_base = base
        self._limits = self.bomb_limits_from_bids(self._bids, seat)
        self._take_kitty()
        if self._grab:  # a grab is always open play (抢牌直接为明牌打)
            self._shown.add(seat)
            self._start_play(self._limits)
        else:
            self._phase = "OPEN_CHOICE"
            self._seat = seat

    def _bidder(self) -> int:
        assert self._holder is not None, "nobody has bid"
        return self._holder

    @staticmethod
    def bomb_limits_from_bids(bids: Sequence[Tuple[int, str, int]], landlord: int) -> List[Optional[int]]:
        """§2.3.6: per seat, None = unlimited; `bids` = (seat, token, h when it acted)."""
        limits: List[Optional[int]] = [None] * 4
        for seat, token, h in bids:
            if seat == landlord or token in ("BID3", "GRAB"):
                continue
            if token in ("BID1", "BID2"):
                limits[seat] = 2
            elif token == "NO_CALL":
                limits[seat] = None if h == 3 else 2 if h in (1, 2) else 1
        return limits

    def _base_bid(self) -> int:
        assert self._bid_base is not None, "the bidding has not ended"
        return self._bid_base

    def _auction(self) -> scoring.BengbuAuction:
        return scoring.BengbuAuction(self._landlord, self._bid_base, self._h, self._open, tuple(self._limits))

    def _current_factors(self) -> Dict[str, Any]:
        return scoring.bengbu_factors(self._auction())

    def _multiplier(self, f: Dict[str, Any]) -> int:
        return 1

    def _score(self) -> GameResult:
        return scoring.bengbu_score(self._auction(), self._summary(), self._rules.options)

    def _escape_result(self, seat: int) -> GameResult:
        return scoring.bengbu_escape(self._auction(), seat, self._rules.options)


def _game_from_pickle(record: str, bots: Dict[int, Any], clock: float) -> Game:
    g = Game.from_json(record)
    g._bots = dict(bots)
    g._clock = clock
    return g


# help(ddz.Game) and inspect show the real parameters, not those of the dispatching __new__.
Game.__signature__ = inspect.signature(Game.__init__).replace(  # type: ignore[attr-defined]
    parameters=list(inspect.signature(Game.__init__).parameters.values())[1:])

_VARIANT_CLASS = {"classic": _ClassicGame, "two_player": _TwoPlayerGame, "bengbu": _BengbuGame}
