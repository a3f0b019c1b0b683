"""TWOP's auction (docs/rules.md §7): 明牌开始 before the deal, the call, and 翻身 / 压迫 at the
farmer's first turn (or before the lead); then its score hooks.

``TRANSITIONS`` is the core's phase table as data (see ``ddz.hand.auction_classic``). FANSHEN is
also entered from the play phase: the core enters it when the farmer is first to act after the
landlord's play (A24), before his first play action.
"""
from __future__ import annotations

from typing import Any, Dict

from . import scoring
from .game import Game, Transitions, auction_transitions
from .scoring import GameResult


class TwoPlayerGame(Game):
    """TWOP (docs/rules.md §7): show-start ×5, call, 翻身 ×2 / 压迫 ×4, bombs, spring."""

    __slots__ = ()

    @property
    def first_bidder(self) -> int:
        """P0: the first shower if any, else the deal's random draw (docs/rules.md §7)."""
        showers = self._core.auction()[0]
        return showers[0] if showers else self._core.first_bidder

    # ---- the score ----
    def _auction(self) -> scoring.TwopAuction:
        showers, fanshen, yapo = self._core.auction()
        return scoring.TwopAuction(self._core.landlord, len(showers), bool(fanshen), bool(yapo))

    def _current_factors(self) -> Dict[str, Any]:
        return scoring.twop_factors(self._auction(), self._summary(), self._rules.options)

    def _multiplier(self, f: Dict[str, Any]) -> int:
        return scoring.twop_multiplier(f)

    def _score(self) -> GameResult:
        return scoring.twop_score(self._auction(), self._summary(), self._rules.options)

    def _escape_result(self, seat: int) -> GameResult:
        held = [self._core.cards(s) for s in range(2)] if self._dealt() else None
        return scoring.twop_escape(self._auction(), self._summary(), seat, held, self._rules.options)


# phase -> token -> (handler, the phases it may lead to); a re-deal starts again at PRE_DEAL
TRANSITIONS: Transitions = auction_transitions("two_player")
TwoPlayerGame._set_auction("two_player", TRANSITIONS)
