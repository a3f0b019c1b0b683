"""BENGBU4's auction (docs/rules.md §8): 天炸/天尊 at the deal, one round of bids 1/2/3 or a
grab (抢牌), open or closed play, the bomb limits the bids set; then its score hooks.

``TRANSITIONS`` is the phase graph as data (see ``ddz.hand.auction_classic``); the bids offered
in BID are filtered by the highest bid so far (``_offered``).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import scoring
from .game import Game, Transitions
from .scoring import GameResult


def bomb_limits_from_bids(bids: Sequence[Tuple[int, str, int]], landlord: int) -> List[Optional[int]]:
    """§2.3.6: bomb plays allowed per seat, None = unlimited; ``bids`` = (seat, token, the
    highest bid when it acted)."""
    limits: List[Optional[int]] = [None] * 4
    for seat, token, h in bids:
        if seat == landlord or token in ("BID3", "GRAB"):
            continue
        if token in ("BID1", "BID2"):
            limits[seat] = 2
        elif token == "NO_CALL":
            limits[seat] = None if h == 3 else 2 if h in (1, 2) else 1
    return limits


class BengbuGame(Game):
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
            word = self._hands.cards(s).word  # 4 bits a rank: 3 .. 2, B, R
            tz = [r for r in range(13) if (word >> (4 * r)) & 15 == 8]
            marks = ["天炸"] * len(tz) + (["天尊"] if (word >> 52) & 15 == 2 and (word >> 56) & 15 == 2 else [])
            if marks:
                out[s] = marks
        return out

    def _special_result(self, holders: Dict[int, List[str]]) -> GameResult:
        return scoring.bengbu_special(holders, self._rules.options)

    @property
    def bomb_limits(self) -> Optional[List[Optional[int]]]:
        return list(self._limits) if self._landlord is not None else None

    _FILTERS_OFFERS = True  # a bid must be higher than the highest so far

    def _offered(self, token: str) -> bool:
        return not token.startswith("BID") or int(token[3]) > self._h

    # ---- the handlers of TRANSITIONS ----
    def _bid(self, seat: int, token: str) -> None:
        self._bids.append((seat, token, self._h))
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

    def _grab_hand(self, seat: int) -> None:
        self._bids.append((seat, "GRAB", self._h))
        self._grab = self._open = True
        self._landlord_known(seat, 3)

    def _open_choice(self, seat: int, open_play: bool) -> None:
        self._open = open_play
        if open_play:
            self._shown.add(self._landlord)
        self._start_play(self._limits)

    # ---- helpers ----
    def _landlord_known(self, seat: int, base: int) -> None:
        self._landlord = seat
        self._bid_base = base
        self._limits = bomb_limits_from_bids(self._bids, seat)
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

    def _base_bid(self) -> int:
        assert self._bid_base is not None, "the bidding has not ended"
        return self._bid_base

    # ---- the score ----
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


def _bid_handler(token: str):
    return lambda g, seat: g._bid(seat, token)


# phase -> token -> (handler, the phases it may lead to); four bids end the round: the
# landlord chooses open or closed play, or nobody bid and the cards are re-dealt (BID again,
# or OVER when the new deal holds 天炸/天尊 or max_redeals voids the hand)
_AFTER_BID = ("BID", "OPEN_CHOICE", "OVER")
TRANSITIONS: Transitions = {
    "BID": {"NO_CALL": (_bid_handler("NO_CALL"), _AFTER_BID),
            "BID1": (_bid_handler("BID1"), _AFTER_BID),
            "BID2": (_bid_handler("BID2"), _AFTER_BID),
            "BID3": (_bid_handler("BID3"), _AFTER_BID),
            "GRAB": (BengbuGame._grab_hand, ("PLAY",))},
    "OPEN_CHOICE": {"OPEN": (lambda g, seat: g._open_choice(seat, True), ("PLAY",)),
                    "CLOSED": (lambda g, seat: g._open_choice(seat, False), ("PLAY",))},
}
BengbuGame._set_auction("bengbu", TRANSITIONS)
