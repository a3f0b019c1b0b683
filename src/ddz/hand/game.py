"""A whole hand, from the shuffle to the score, for each variant (docs/rules.md §6–§9).

``ddz.Game(rules, seed)`` deals real suited cards, runs the variant's bidding and doubling
decisions, plays the play phase, scores the hand and keeps a record that replays it. The
hand's state lives in one C++ object (``_core._WholeHand``: the deal, the suited cards, the
auction as the core's phase table, the ``PlayState``, the history); ``Game`` is a thin typed
object over it that checks arguments, words the errors, turns the core's outcome into a
``GameResult`` (``ddz.hand.outcome``) and keeps the table's state (bots, the move clock). ``clone()`` is one C++ copy. Every phase answers one protocol: ``phase``, ``current_seat``,
``legal_actions()``, ``apply(action)`` (an illegal action raises ``IllegalAction`` and
changes nothing), ``is_over``, ``result``, ``observation(seat)``.
"""
from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import _core
from ..core import action_space
from .._core import CardError, Cards, IllegalAction, Move, PlayState
from ..core.rules import MAX_OPTION_VALUE, Rules
from .outcome import factors_of, result_of, stake_of
from .scoring import GameResult, PlaySummary, kitty_factor
from ..core.cards import RANKS, card_name, card_rank, deck_ids, ranks_of
from .record import RECORD_FORMAT, RECORD_VERSION, read_game, view_record
from .table import TablePolicy
from ..core.variants import VARIANT
from ..core.args import int_arg, is_int
from ..core.errors import ArgumentError, ArgumentTypeError, IllegalCode, illegal, shown

__all__ = ["Game", "GameResult", "RECORD_FORMAT", "RECORD_VERSION", "kitty_factor"]




class _Spec:
    """What never changes in a hand besides its seed (the core holds it), shared by a Game and its
    clones, and by every seeded hand of one Rules value at the stakes of 1 (``_common_spec``): the
    rules and what follows from them, the room's stakes and the scripted deals (as given, for the
    record)."""

    __slots__ = ("rules", "variant", "n", "decks", "pass_id", "base", "initial_multiplier", "scripted", "stake",
                 "bomb_limits")

    def __init__(self, rules: Rules, base: int, initial_multiplier: int, scripted: Tuple[Dict[str, Any], ...]) -> None:
        self.rules = rules
        self.variant, self.n, self.decks, self.pass_id, self.bomb_limits = _facts(rules)
        self.base = base
        self.initial_multiplier = initial_multiplier
        self.scripted = scripted
        self.stake = stake_of(rules, base, initial_multiplier)  # every score is a multiple of it (ddz.hand.outcome)


def _common_spec(rules: Rules) -> _Spec:
    """The spec of a seeded hand at the stakes of 1, once per Rules value (kept in it)."""
    spec = rules.__dict__.get("_hand_spec")
    if spec is None:
        spec = rules.__dict__["_hand_spec"] = _Spec(rules, 1, 1, ())
    return spec


def _facts(rules: Rules) -> Tuple[str, int, int, int, bool]:
    """What a hand reads of its rules' variant, once per Rules value (kept in it)."""
    facts = rules.__dict__.get("_hand_facts")
    if facts is None:
        v = VARIANT[rules.variant]
        facts = rules.__dict__["_hand_facts"] = (v.name, v.players, v.decks, rules.pass_id, v.bomb_limits)
    return facts


def _is_play_form(action: Any) -> bool:
    """An action shaped like a play or a pass (checked against the phase, not parsed)."""
    if isinstance(action, (Move, list, tuple)):
        return True
    if isinstance(action, str):
        t = action.strip().upper()
        return t == "PASS" or t.startswith("PLAY") or (bool(t) and all(ch in RANKS or ch in "SHCD' ," for ch in t))
    return False


class Game:
    """One hand of ``rules.variant``, from the shuffle to the score: ``Game(rules, seed)``. See the
    module docstring and docs/game.md."""

    # the hand (_core._WholeHand), what never changes (_Spec), the table policy (ddz.hand.table:
    # bots, clock), the result once over, caches (not part of a clone: the factors, the play
    # state's view) and an instance dict (empty: vars(game) works), which clone() does not copy
    __slots__ = ("_core", "_spec", "_policy", "_result", "_fcache", "_play_view", "__dict__")

    def __init__(self, rules: Rules, seed: Optional[int] = None, *, hands: Optional[Sequence[str]] = None,
                 kitty: Optional[str] = None, aside: Optional[str] = None, first_bidder: Optional[int] = None,
                 first_to_decide: Optional[int] = None, base: int = 1, initial_multiplier: int = 1,
                 _deals: Optional[List[Dict[str, Any]]] = None) -> None:
        if not isinstance(rules, Rules):
            raise ArgumentTypeError("Game(rules, ...) needs a ddz.Rules")
        self._policy: Optional[TablePolicy] = None  # made when first asked for (table_policy)
        self._result: Optional[GameResult] = None
        self._fcache: Optional[Tuple[Tuple[Any, ...], Tuple[Dict[str, Any], int]]] = None
        self._play_view: Optional[PlayState] = None
        if (type(seed) is int and 0 <= seed < 2**64 and hands is None and _deals is None and first_bidder is None
                and first_to_decide is None and kitty is None and aside is None and type(base) is int and base == 1
                and type(initial_multiplier) is int and initial_multiplier == 1):
            # the common case, a seeded hand at the stakes of 1: nothing more to check
            self._spec = _common_spec(rules)
            self._core = _core._new_hand(rules, rules.options, seed)
            return
        variant, n = rules.variant, rules.players
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        if not is_int(seed):
            raise ArgumentTypeError(f"seed must be an int, not {type(seed).__name__}")
        seed = int(seed)
        if not 0 <= seed < 2**64:
            text = str(seed) if seed.bit_length() <= 128 else f"an integer of {seed.bit_length()} bits"
            raise ArgumentError(f"seed must be in 0..2**64-1, not {text}")
        # the room's stakes: 1..10**12, as records hold them (docs/rules.md §11, "Numeric ranges")
        base = int_arg(base, "base", 1, MAX_OPTION_VALUE)
        initial_multiplier = int_arg(initial_multiplier, "initial_multiplier", 1, MAX_OPTION_VALUE)
        if first_bidder is not None:
            first_bidder = int_arg(first_bidder, "first_bidder", 0, n - 1)
        if first_to_decide is not None:
            first_to_decide = int_arg(first_to_decide, "first_to_decide", 0, n - 1)
        if not VARIANT[variant].stakes and (base != 1 or initial_multiplier != 1):
            raise ArgumentError("base= and initial_multiplier= are CLASSIC3's room stakes (docs/rules.md §6); TWOP's "
                                "initial multiplier is the option twop_initial_multiplier, BENGBU4's base is the bid")
        if first_to_decide is not None and not VARIANT[variant].coin_toss:
            raise ArgumentError("first_to_decide exists only in TWOP (the PRE_DEAL phase, docs/rules.md §7)")
        self._spec = _Spec(rules, base, initial_multiplier, ())  # _injected_deal reads the rules' facts
        scripted: List[Dict[str, Any]] = [dict(d) for d in _deals] if _deals else []
        if hands is not None:
            if _deals:
                raise ArgumentError("give hands or a recorded deal list, not both")
            scripted = [self._injected_deal(seed, hands, kitty, aside, first_bidder, first_to_decide)]
        elif kitty is not None or aside is not None:
            raise ArgumentError("kitty= and aside= need hands=")
        deals = tuple({"hands": [list(h) for h in d["hands"]], "kitty": list(d["kitty"]),
                       "aside": list(d.get("aside") or []), "first_bidder": d["first_bidder"],
                       "first_to_decide": d.get("first_to_decide")} for d in scripted)
        given = [([c for h in d["hands"] for c in h] + d["kitty"] + d["aside"], d["first_bidder"],
                  d["first_to_decide"]) for d in deals]  # each deal's card ids in part order (the core's)
        self._spec = _Spec(rules, base, initial_multiplier, deals)
        overrides = (first_bidder, first_to_decide) if hands is None else (None, None)
        self._core = _core._WholeHand(rules, rules.options, seed, given,
                                      -1 if overrides[0] is None else overrides[0],
                                      -1 if overrides[1] is None else overrides[1], base, initial_multiplier)

    # ---- what never changes ---------------------------------------------------------
    @property
    def _rules(self) -> Rules:
        return self._spec.rules

    @property
    def _variant(self) -> str:
        return self._spec.variant

    @property
    def _n(self) -> int:
        return self._spec.n

    @property
    def _decks(self) -> int:
        return self._spec.decks

    @property
    def _pass_id(self) -> int:
        return self._spec.pass_id

    @property
    def _seed(self) -> int:
        return self._core.seed

    @property
    def _base(self) -> int:
        return self._spec.base

    @property
    def _initial_multiplier(self) -> int:
        return self._spec.initial_multiplier

    # ---- dealing ----------------------------------------------------------------
    def _injected_deal(self, seed: int, hands: Sequence[str], kitty: Optional[str], aside: Optional[str],
                       first_bidder: Optional[int], first_to_decide: Optional[int]) -> Dict[str, Any]:
        v = self._variant
        order, first_seat, coin = _core.deal_order(self._rules, seed, 0)  # what deal 0 of the seed draws
        if isinstance(hands, str) or not isinstance(hands, (list, tuple)):
            raise ArgumentTypeError(f"hands must be a list of {self._n} hands (str or Cards), one per seat, "
                                    f"not {shown(hands)}")
        if len(hands) != self._n:
            raise ArgumentError(f"hands must list {self._n} hands, one per seat, not {len(hands)}")
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
        elif VARIANT[v].aside:  # TWOP: three of the cards left, in the order the dealer shuffled them
            left = set(rest)
            kit = take(ranks_of([c for c in order if c in left][:VARIANT[v].kitty]), "the kitty")
        else:
            kit = rest
        rest = sorted(c for ids in pool.values() for c in ids)
        if VARIANT[v].aside:
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
                if VARIANT[v].coin_toss else None}

    @property
    def _deals(self) -> List[Dict[str, Any]]:
        """Every deal the hand has used (the record's): the scripted ones as given, then the
        seed's, as dicts of card ids, the first bidder and TWOP's first to decide."""
        scripted = self._spec.scripted
        out = []
        for i in range(self._core.deals):
            if i < len(scripted):
                out.append(scripted[i])
            else:
                hands, kitty, aside, fb, ftd = self._core.deal(i)
                out.append({"hands": hands, "kitty": kitty, "aside": aside, "first_bidder": fb,
                            "first_to_decide": ftd})
        return out

    @property
    def _hands(self) -> _core.PhysicalHands:
        """A copy of the current deal's suited cards, as played so far."""
        return self._core.physical()

    @property
    def _ps(self) -> Optional[PlayState]:
        """The play state (a view of the hand's), None before the play phase."""
        ps = self._play_view
        if ps is None:
            ps = self._play_view = self._core.play_state
        return ps

    @property
    def _phase(self) -> str:
        return self._core.phase

    @property
    def _seat(self) -> Optional[int]:
        """The seat to decide in an auction phase, else None."""
        return self._core.seat

    @property
    def _landlord(self) -> Optional[int]:
        return self._core.landlord

    @property
    def _redeals(self) -> int:
        return self._core.redeals

    @property
    def _history(self) -> List[Tuple[Optional[int], str]]:
        return self._core.history()

    @property
    def _decisions(self) -> List[Tuple[int, str]]:
        """This deal's decisions, for the encoders."""
        return self._core.decisions()

    @property
    def _kitty_revealed(self) -> bool:
        return self._core.kitty_revealed

    def _final_result(self) -> GameResult:
        """The result of a hand the core has ended (a void, 天炸/天尊 at the deal, the end of the
        play), as the core scores it."""
        if self._core.result_kind == "escape":  # a snapshot's replay ended it: the last entry is the escape
            seat = self._core.history()[-1][0]
            assert seat is not None, "an escape is a seat's"
            return self._escape_result(seat)
        spec = self._spec
        return result_of(self._core.outcome(), spec.rules, spec.base, spec.initial_multiplier)

    def _escape_result(self, seat: int) -> GameResult:
        """The result of ``seat`` escaping now (in a variant where an escape ends the hand)."""
        spec = self._spec
        return result_of(self._core.escape_outcome(seat), spec.rules, spec.base, spec.initial_multiplier)

    # ---- protocol ---------------------------------------------------------------
    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def phase(self) -> str:
        return self._core.phase

    @property
    def current_seat(self) -> Optional[int]:
        return self._core.current_seat

    @property
    def is_over(self) -> bool:
        return self._core.is_over

    @property
    def result(self) -> Optional[GameResult]:
        """How the hand ended, once it is over (None before): made from the core's outcome on
        first use and kept."""
        result = self._result
        if result is None and self._core.is_over:
            result = self._result = self._final_result()
        return result

    @property
    def landlord(self) -> Optional[int]:
        return self._core.landlord

    @property
    def first_bidder(self) -> int:
        return self._core.first_bidder

    @property
    def redeals(self) -> int:
        return self._core.redeals

    @property
    def deal_number(self) -> int:
        return self._core.deals - 1

    @property
    def history(self) -> List[Tuple[Optional[int], str]]:
        return self._core.history()

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

    def _acting(self) -> int:
        seat = self.current_seat
        assert seat is not None, "nobody is to act"
        return seat

    def hand(self, seat: int) -> Cards:
        """A seat's cards by rank (server view; empty before the deal)."""
        seat = self._check_seat(seat)
        return self._core.cards(seat) if self._dealt() else Cards("", decks=self._decks)

    def cards(self, seat: int) -> List[str]:
        """A seat's physical cards (server view; empty before the deal)."""
        seat = self._check_seat(seat)
        return self._core.names(seat) if self._dealt() else []

    @property
    def kitty(self) -> Optional[Cards]:
        """The kitty (server view); None before the deal (TWOP's PRE_DEAL)."""
        return self._core.kitty_cards if self._dealt() else None

    @property
    def bomb_limits(self) -> Optional[List[Optional[int]]]:
        """BENGBU4: the bomb plays each seat may make (None = unlimited; docs/rules.md §8), known
        once the bidding has ended; None before that and in the other variants. Public
        information: it follows from the bid log."""
        return self._core.limits if self._spec.bomb_limits and self._core.landlord is not None else None

    @property
    def multiplier(self) -> int:
        """The product of the factors so far (BENGBU4: 1; its score is the bid's)."""
        return self._factors_now()[1]

    @property
    def factors(self) -> Dict[str, Any]:
        """The factors so far by name (docs/rules.md §6–§8), as the core counts them."""
        return dict(self._factors_now()[0])

    def _check_seat(self, seat: Any) -> int:
        """The seat as an int (numpy integers taken); a bool or another type is no seat."""
        if not is_int(seat):
            raise ArgumentTypeError(f"no seat {shown(seat)}: a seat is an int 0..{self._n - 1}")
        if not 0 <= seat < self._n:
            raise ArgumentError(f"no seat {shown(seat)}: seats are 0..{self._n - 1}")
        return int(seat)

    def legal_actions(self) -> List[str]:
        """The actions of the seat to act, as tokens: decisions (``"CALL"``, ``"BID2"``, …) in
        the bidding phases, ``"PLAY <ranks>"`` and ``"PASS"`` in the play phase; ``[]`` once
        the hand is over."""
        return self._core.legal_tokens()

    # ---- action ids (ddz.action_space: plays, PASS, then the decisions) ----------------
    def legal_action_ids(self) -> List[int]:
        """The ids of ``legal_actions()`` in the same order (``Rules.num_actions`` ids: plays
        by ``Move.id``, PASS at ``rules.pass_id``, decision k at ``pass_id + 1 + k``)."""
        return self._core.legal_action_ids()

    def legal_action_mask(self) -> "np.ndarray":
        """A numpy bool array of length ``rules.num_actions``, True at ``legal_action_ids()``."""
        return action_space.legal_mask(self)

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
        """Applies an action of the seat to act and returns the token recorded for it: a token
        (``"CALL"``, ``"PLAY 33"``, ``"PLAY 3s 3h"``, ``"PASS"``), a Move, a list of card ids, or
        an action id (a Python int, see ``legal_action_ids``). With
        ``seat`` (a server always passes it) an action by any other seat raises
        ``IllegalAction`` with code ``NOT_YOUR_TURN``. An illegal action raises the
        ``IllegalAction`` that ``check`` returns and changes nothing."""
        core = self._core
        if seat is None:  # the common case, an action id: one call into the core
            token = core.apply_id(action)
            if token is not None:
                return token
        if core.phase == "PLAY":  # the core checks and plays real cards in one step
            # only a Python int equal to the seat to act passes unchecked: True, 1.0 or an
            # array equal to it is no seat (_check_turn raises the TypeError twin)
            if seat is not None and (type(seat) is not int or seat != core.current_seat):
                self._check_turn(seat)
            if type(action) is not int or not 0 <= action <= self._spec.pass_id:
                if isinstance(action, (int, np.integer)):
                    action = self._id_action(action)
            try:
                token = core.play(action)
            except IllegalAction as e:
                raise self._play_error(action, e) from None
        else:
            decided = core.decide_id(action, seat)  # an offered decision's id: the common case
            if decided is None:  # anything else: the whole check, with its errors
                token = self._apply(self._validate(action, seat))
            else:
                token = decided
        return token

    def _play_checked(self, action: Any) -> str:
        """Plays a play or pass (cards, a Move, a token or a play's id) that the core checks as it
        applies it (raising IllegalAction, nothing changed); the core records (seat, token) in
        the history, ends the hand or enters TWOP's 翻身 decision."""
        return self._core.play(action)

    def _id_action(self, aid: Any) -> Any:
        """What an action id stands for: in the play phase a play's or PASS's id stays an int
        (the core plays it, checking the reading it names); any other id (a decision's, one out
        of range, a bool) is resolved by ``action_space``, which raises its errors."""
        if self._core.phase == "PLAY" and not isinstance(aid, bool) and 0 <= aid <= self._pass_id:
            return int(aid)
        return action_space.resolve(self, aid)

    def _check_turn(self, seat: Any) -> None:
        seat = self._check_seat(seat)
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
        phase = self._core.phase
        if phase == "OVER":
            raise illegal(IllegalCode.HAND_OVER, "the hand is over: no action is legal")
        acting = self._acting()
        if seat is not None:
            self._check_turn(seat)
        if isinstance(action, (int, np.integer)):
            action = self._id_action(action)
        if phase == "PLAY":
            why = self._core.check_play(action)
            if why is not None:
                raise self._play_error(action, why)
            return ("play", action)
        if not isinstance(action, str):
            if _is_play_form(action):
                raise illegal(IllegalCode.WRONG_PHASE, f"a play during phase {phase}: legal actions are "
                                                       f"{', '.join(self._decision_actions())}")
            raise illegal(IllegalCode.MALFORMED, f"a decision is one of the tokens of docs/rules.md §1 (a str), "
                                                 f"not {shown(action)}", type_error=True)
        token = action.strip().upper()
        legal = list(self._decision_actions())
        if token not in legal:
            what = shown(action.strip() or action, 40)
            code = (IllegalCode.NOT_OFFERED if token in VARIANT[self._variant].decisions
                    else IllegalCode.WRONG_PHASE if _is_play_form(action) else IllegalCode.MALFORMED)
            raise illegal(code, f"{what} is not legal for seat {acting} in phase {phase}: "
                                f"legal actions are {', '.join(legal)}")
        return ("decide", token)

    def _apply(self, prepared: Any) -> str:
        what, arg = prepared
        if what == "play":
            return self._play_checked(arg)
        self._decide(arg)
        return arg

    def _decide(self, token: str) -> None:
        """Applies a checked decision of the seat to act: the core records it and takes the
        transition of its phase table (re-dealing when the auction says so)."""
        self._core.decide(token)

    def _finish(self, result: GameResult) -> None:
        """Ends the hand with ``result`` (an escape)."""
        self._core.end()
        self._result = result

    # ---- observation --------------------------------------------------------------
    def _visible_seats(self) -> set:
        """The seats whose hands are face up."""
        shown = self._core.shown
        return {s for s in range(self._n) if shown >> s & 1}

    def _dealt(self) -> bool:
        """False while the cards are not dealt yet (TWOP's PRE_DEAL comes before the deal)."""
        return self._core.dealt

    def observation(self, seat: Optional[int], *, history_from: int = 0) -> Dict[str, Any]:
        """What ``seat`` may see now, and nothing else (docs/rules.md §3, and the kitty and the shown hands of §6–§8).
        ``seat=None`` is the public view (a spectator's): no own hand, no legal actions.
        ``history_from``: its ``history`` from that entry on (an int ≥ 0; past the end: empty), for
        a caller that holds the first entries already (a server sending each event's new ones):
        the entries are built for the tail alone."""
        if seat is not None:
            seat = self._check_seat(seat)
        core = self._core
        history = core.history(history_from)  # checks history_from (ArgumentError / ArgumentTypeError)
        dealt = core.dealt
        names = lambda s: core.names(s) if dealt else []  # noqa: E731
        to_act = core.current_seat
        return {
            "seat": seat,
            "phase": core.phase,
            "current_seat": to_act,
            "landlord": core.landlord,
            "first_bidder": self.first_bidder if dealt else None,
            "hand": str(core.cards(seat)) if dealt and seat is not None else "",
            "cards": names(seat) if seat is not None else [],
            "shown": {s: names(s) for s in sorted(self._visible_seats()) if s != seat},
            "kitty": core.kitty_names if core.kitty_revealed else None,
            "cards_left": [core.count(s) if dealt else 0 for s in range(self._n)],
            "history": [[s, t] for s, t in history],
            "multiplier": self.multiplier,
            "factors": dict(self._factors_now()[0]),
            "top": self._public_top(),
            "bots": self._policy.bot_seats if self._policy is not None else [],
            "legal_actions": self.legal_actions() if to_act == seat else [],
        }

    def encode(self, seat: int, out: Optional["np.ndarray"] = None) -> "np.ndarray":
        """The compact encoding (int8, ``ddz.encode.compact_layout(rules)``; docs/encodings.md) of
        what ``seat`` may see now, written by the core from the whole hand: the seat's cards and
        the public play, the auction of the current deal, the factors, the face-up hands and the
        kitty once revealed. Into ``out`` (an int8 array of the row's width) when given.
        ``ddz.encode.compact(game, seat)`` is the same row."""
        return self._core.encode(self._check_seat(seat), out)

    def observation_arrays(self, seat: int) -> Dict[str, "np.ndarray"]:
        """``{"observation": encode(seat), "action_mask": ...}`` in one call: the row, and an int8
        mask over ``rules.num_actions`` that marks the seat's legal action ids (all zeros when
        another seat is to act), as PettingZoo's and Gymnasium's environments observe."""
        return self._core.observe(self._check_seat(seat))

    def _factors_now(self) -> Tuple[Dict[str, Any], int]:
        """(the factors by name, the multiplier) now, as the core counts them, computed again only
        when something they read may have changed: a decision or a re-deal, the phase, a
        bomb-class play, the end of the hand (within a phase the factors read nothing else).
        The dict is shared: do not change it."""
        core = self._core
        ps = self._ps
        if ps is not None:
            key: Tuple[Any, ...] = (core.redeals, core.ndecisions, core.phase, ps.bombs_total, ps.is_over)
        else:
            key = (core.redeals, core.ndecisions, core.phase, -1, False)
        cache = self._fcache
        if cache is None or cache[0] != key:
            entries, multiplier = core.factors()
            spec = self._spec
            cache = self._fcache = (key, (factors_of(entries, spec.stake, spec.rules.options), multiplier))
        return cache[1]

    def _public_top(self) -> Optional[List[Any]]:
        """[owner, ranks] of the play to beat in PLAY, else None (public information)."""
        if self._ps is None or self._core.phase not in ("PLAY", "FANSHEN", "YAPO") or self._play.top is None:
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
            "seed": self._seed, "base": self._base, "initial_multiplier": self._initial_multiplier,
            "deals": deals, "actions": self._action_log(),
            "result": result.to_dict() if (result := self.result) is not None else None,
        }, ensure_ascii=False, sort_keys=True)

    def _action_log(self) -> List[Dict[str, Any]]:
        """The record's actions: the history without the dealer's REDEAL entries."""
        return self._core.action_log()

    @classmethod
    def from_json(cls, text: str) -> "Game":
        """Rebuilds a game from its ``ddz-game`` record by replaying every action on the
        recorded deals. The record is checked whole (structure, deals, every action, the
        deals used, the stored result against the replayed one); a broken record raises
        ``ddz.RecordError`` naming what is wrong (see ``ddz.record``)."""
        return read_game(text)

    def view_json(self, seat: Optional[int] = None) -> str:
        """What ``seat`` has seen so far, as a ``ddz-view`` v1 record: its own dealt cards,
        the public actions, its current observation and the result. ``seat=None`` gives a
        spectator's view (public information only). Unlike ``to_json()`` it holds no card
        hidden from that seat, so it is what a server may send to a player. Read it back
        with ``ddz.record.read_view``; ``ddz replay`` prints it."""
        return json.dumps(view_record(self, seat), ensure_ascii=False, sort_keys=True)

    def clone(self) -> "Game":
        """An independent copy of the game at this point: one copy of the C++ hand (the play
        state's log and the history are shared, not copied), the immutable parts shared; the
        caches start empty. Bot seats stay bot seats: the bots are deep-copied, so that a
        clone's bots draw their own random numbers."""
        new = _object_new(self.__class__)
        new._core = self._core.clone()
        new._spec = self._spec
        policy = self._policy
        new._policy = None if policy is None else policy.copy_for(new)  # a search's clones make none
        new._result = self._result  # a GameResult is frozen
        new._fcache = new._play_view = None
        return new

    def restart(self) -> "Game":
        """A new Game at this hand's start: the same rules, seed, room stakes and given deals (a
        record's, or injected hands), before any action; the table's bots and clock are not
        carried over. Replaying this hand's actions on it gives this hand again."""
        return Game._of_core(self._core.restart(), self._spec.rules)

    def __copy__(self) -> "Game":
        return self.clone()

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Game":
        return self.clone()

    def __reduce__(self) -> Tuple[Any, ...]:
        """Pickled as its snapshot (``snapshot()``: replayed by the core on load) plus the table
        state a snapshot does not hold: the bots and the time spent on the current decision."""
        policy = self._policy
        if policy is None:
            return (_game_from_snapshot, (self.snapshot(), None, 0.0))
        return (_game_from_snapshot, (self.snapshot(), policy._bots or None, policy.spent()))

    def snapshot(self) -> bytes:
        """The hand as compact bytes (docs/records.md, "Snapshots"): its rules, seed, stakes, the
        deals it was given and every action, in a versioned format of fixed byte order that the
        core writes and reads. ``Game.from_snapshot`` rebuilds the hand by replaying the actions;
        like a record it holds the hidden cards (the seed deals them), so never send it to a
        player. It holds the hand, not the table: bots and the clock are not in it (a pickle
        adds them)."""
        return self._core.snapshot(self._spec.rules._snapshot_key())

    @classmethod
    def from_snapshot(cls, data: bytes) -> "Game":
        """The game a ``snapshot()`` holds, every action replayed and checked by the core. Bytes
        that are not a snapshot, or whose actions do not replay from their start, raise
        ``ddz.RecordError`` naming what is wrong (``RecordTypeError`` when ``data`` is not
        bytes). The rules are shared: every game loaded from snapshots of equal rules holds the
        same ``Rules`` value (equal to the one saved, not always the same object). A seat that
        escaped a CLASSIC3 hand is given the default bot, as ``escape`` gave it."""
        core, rules = _core._load_snapshot(data)
        return cls._of_core(core, rules)

    @staticmethod
    def _of_core(core: Any, rules: Rules) -> "Game":
        """A Game around a hand the core rebuilt."""
        g: Game = _object_new(Game)
        g._core = core
        base, initial_multiplier = core.stakes
        scripted = tuple(core.scripted())
        g._spec = (_common_spec(rules) if base == initial_multiplier == 1 and not scripted
                   else _Spec(rules, base, initial_multiplier, scripted))
        g._policy = None
        g._result = None
        g._fcache = g._play_view = None
        escaped = core.escaped
        if escaped and not VARIANT[rules.variant].escape_ends:  # CLASSIC3: a bot plays an escaped seat (escape() gave it)
            for seat in range(rules.players):
                if escaped >> seat & 1:
                    g.table_policy.set_bot(seat)
        return g

    def _note_timeout(self) -> None:
        """Records TIMEOUT for the seat to act (its default action follows: ``timeout()``, or a
        record's next action when one is read)."""
        self._core.note(self._acting(), "TIMEOUT")

    # ---- the table policy (ddz.hand.table): the clock, bot seats and escapes ----
    # ``table_policy`` holds them; a Game answers for it, as it always has.

    @property
    def table_policy(self) -> TablePolicy:
        """The table policy of this game (``ddz.hand.table.TablePolicy``): its bot seats, the time
        spent on the current decision, timeouts and escapes. Made when first asked for, so that
        a game nobody times or gives bots (a search's clones) carries none."""
        policy = self._policy
        if policy is None:
            policy = self._policy = TablePolicy(self)
        return policy

    @property
    def move_timeout_s(self) -> float:
        """Seconds each decision has (the rules' ``move_timeout_s``)."""
        return self.table_policy.move_timeout_s

    @property
    def time_left(self) -> Optional[float]:
        """Seconds left for the current decision (the caller reports time with ``elapsed()``);
        None once the hand is over."""
        return self.table_policy.time_left

    def elapsed(self, seconds: float) -> Optional[str]:
        """Reports time spent on the current decision. When the decision's time
        (``move_timeout_s``) runs out, applies ``timeout()`` and returns its token."""
        return self.table_policy.elapsed(seconds)

    def timeout_action(self) -> str:
        """The default action of docs/rules.md §9 "Time" for the seat to act (A8): the
        non-escalating choice, PASS, or the lowest single card when the seat must lead (under
        ``timeout_policy="bot"``: the seat's bot's action)."""
        return self.table_policy.timeout_action()

    def timeout(self) -> str:
        """The seat to act ran out of time: records TIMEOUT(seat) and applies the default action.
        Atomic: a bot that answers an illegal action (``timeout_policy="bot"``) raises its
        ``IllegalAction`` and leaves the game exactly as it was."""
        return self.table_policy.timeout()

    @property
    def bot_seats(self) -> List[int]:
        """The seats a bot plays (``set_bot``), in order."""
        return self.table_policy.bot_seats

    def set_bot(self, seat: int, bot: Any = None) -> None:
        """Hands a seat to a bot (``ddz.bots.RuleBot()`` when ``bot`` is None) from now on;
        ``step_bots()`` then plays it. ``clear_bot(seat)`` gives the seat back."""
        self.table_policy.set_bot(seat, bot)

    def clear_bot(self, seat: int) -> None:
        """Gives a bot's seat back to its player."""
        self.table_policy.clear_bot(seat)

    def step_bots(self, limit: int = 10_000) -> List[str]:
        """Lets bot seats act while one of them is to act; returns the tokens applied."""
        return self.table_policy.step_bots(limit)

    def escape(self, seat: int) -> Optional[GameResult]:
        """A seat leaves the unfinished hand (docs/rules.md §9, decision A9). TWOP and BENGBU4: the
        hand ends at once with the escape settlement (returned). CLASSIC3: a bot takes the seat
        until the hand ends and the hand is settled normally (returns None)."""
        return self.table_policy.escape(seat)

    if TYPE_CHECKING:  # the open table as SVG (ddz.draw.table), for notebooks: the facade sets it
        _repr_svg_: Callable[[], str]

    def __repr__(self) -> str:
        return (f"Game({self._variant}, phase={self.phase}, to act={self.current_seat}, "
                f"landlord={self.landlord}, deal={self.deal_number})")

    def _decision_actions(self) -> Sequence[str]:
        """The tokens offered now, in table order."""
        return self._core.decision_tokens()


def _game_from_snapshot(data: bytes, bots: Optional[Dict[int, Any]], clock: float) -> Game:
    g = Game.from_snapshot(data)
    if bots or clock:
        g._policy = TablePolicy(g, bots or g.table_policy._bots, clock, g._core.history_size)
    return g


# pickles made before snapshots hold the record (replayed on load)
def _game_from_pickle(record: str, bots: Dict[int, Any], clock: float) -> Game:
    g = Game.from_json(record)
    g._policy = TablePolicy(g, bots, clock, g._core.history_size)
    return g

_object_new = object.__new__
