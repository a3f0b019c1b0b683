"""TWOP's auction (docs/rules.md §7): 明牌开始 before the deal, the call, and 翻身 / 压迫 at the
farmer's first turn (or before the lead); then its score hooks.

``TRANSITIONS`` is the phase graph as data (see ``ddz.hand.auction_classic``). FANSHEN is also
entered from the play phase, by ``_after_play_action``: the farmer decides before his first
play action (A24).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from . import scoring
from .game import Game, Transitions
from .scoring import GameResult


class TwoPlayerGame(Game):
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

    # ---- the handlers of TRANSITIONS ----
    def _pre_deal(self, seat: int, show: bool) -> None:
        if show:
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

    def _call(self, seat: int) -> None:
        self._landlord_known(seat)

    def _no_call(self, seat: int) -> None:
        if seat == self._bid_order[0]:
            self._seat = self._bid_order[1]
        elif self._showers:  # a shower who is passed by becomes the landlord
            self._landlord_known(self._showers[0])
        else:
            self._redeal()

    def _fanshen_decided(self, seat: int, fanshen: bool) -> None:
        self._fanshen = fanshen
        if fanshen:
            self._phase = "YAPO"
            self._seat = self._landlord
        else:
            self._resume_play()

    def _yapo_decided(self, seat: int, yapo: bool) -> None:
        self._yapo = yapo
        self._resume_play()

    # ---- helpers ----
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

    _play_hook = True

    def _after_play_action(self, seat: int) -> None:
        # farmer_first_turn: the farmer decides before his first play action (A24)
        if (self._fanshen is None and self._rules.options["twop_fanshen_point"] == "farmer_first_turn"
                and seat == self._landlord and self._play.current_seat != self._landlord):
            self._enter_fanshen()

    # ---- the score ----
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


# phase -> token -> (handler, the phases it may lead to); a re-deal starts again at PRE_DEAL
TRANSITIONS: Transitions = {
    "PRE_DEAL": {"SHOW_START": (lambda g, seat: g._pre_deal(seat, True), ("PRE_DEAL", "BID")),
                 "NORMAL_START": (lambda g, seat: g._pre_deal(seat, False), ("PRE_DEAL", "BID"))},
    "BID": {"CALL": (TwoPlayerGame._call, ("PLAY", "FANSHEN")),
            "NO_CALL": (TwoPlayerGame._no_call, ("BID", "PLAY", "FANSHEN", "PRE_DEAL", "OVER"))},
    "FANSHEN": {"FANSHEN": (lambda g, seat: g._fanshen_decided(seat, True), ("YAPO",)),
                "NO_FANSHEN": (lambda g, seat: g._fanshen_decided(seat, False), ("PLAY",))},
    "YAPO": {"YAPO": (lambda g, seat: g._yapo_decided(seat, True), ("PLAY",)),
             "NO_YAPO": (lambda g, seat: g._yapo_decided(seat, False), ("PLAY",))},
}
TwoPlayerGame._set_auction("two_player", TRANSITIONS)
