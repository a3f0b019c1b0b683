"""BENGBU4's auction (docs/rules.md §8): 天炸/天尊 at the deal, one round of bids 1/2/3 or a
grab (抢牌), open or closed play, the bomb limits the bids set; then its score hooks.

``TRANSITIONS`` is the core's phase table as data (see ``ddz.hand.auction_classic``); the core
offers in BID only the bids higher than the highest so far.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from . import scoring
from .game import Game, Transitions, auction_transitions
from .scoring import GameResult


class BengbuGame(Game):
    """BENGBU4 (docs/rules.md §8): 天炸/天尊 at the deal, bids 1/2/3 and grab, open or closed
    play, bomb limits from the bid log, missiles."""

    __slots__ = ()

    def _special_holders(self) -> Dict[int, List[str]]:
        """§2.3.2: 天炸 (all 8 of a rank) / 天尊 (BBRR) in a dealt 25-card hand."""
        out: Dict[int, List[str]] = {}
        for s, word in enumerate(self._core.words()):  # 4 bits a rank: 3 .. 2, B, R
            tz = [r for r in range(13) if (word >> (4 * r)) & 15 == 8]
            marks = ["天炸"] * len(tz) + (["天尊"] if (word >> 52) & 15 == 2 and (word >> 56) & 15 == 2 else [])
            if marks:
                out[s] = marks
        return out

    def _special_result(self) -> GameResult:
        return scoring.bengbu_special(self._special_holders(), self._rules.options)

    @property
    def bomb_limits(self) -> Optional[List[Optional[int]]]:
        return self._core.auction()[3] if self._core.landlord is not None else None

    # ---- the score ----
    def _auction(self) -> scoring.BengbuAuction:
        base, high, open_play, limits = self._core.auction()
        landlord = self._core.landlord
        return scoring.BengbuAuction(landlord, base, high, open_play, tuple(limits) if landlord is not None else ())

    def _current_factors(self) -> Dict[str, Any]:
        return scoring.bengbu_factors(self._auction())

    def _multiplier(self, f: Dict[str, Any]) -> int:
        return 1

    def _score(self) -> GameResult:
        return scoring.bengbu_score(self._auction(), self._summary(), self._rules.options)

    def _escape_result(self, seat: int) -> GameResult:
        return scoring.bengbu_escape(self._auction(), seat, self._rules.options)


# phase -> token -> (handler, the phases it may lead to); four bids end the round: the
# landlord chooses open or closed play, or nobody bid and the cards are re-dealt (BID again,
# or OVER when the new deal holds 天炸/天尊 or max_redeals voids the hand)
TRANSITIONS: Transitions = auction_transitions("bengbu")
BengbuGame._set_auction("bengbu", TRANSITIONS)
