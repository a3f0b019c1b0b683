"""CLASSIC3's auction (docs/rules.md §6): call, rob, the final rob, show; then its score hooks.

The auction is the transition table ``TRANSITIONS``: for each phase, each token offered
there, the handler that applies it and the phases it may lead to. ``Game._decide`` looks the
token up, runs the handler and checks that the phase it reached is one the table names, so
the phase graph is data that tests can read (tests/test_auctions.py).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from . import scoring
from .game import Game, Transitions
from .scoring import GameResult, kitty_factor


class ClassicGame(Game):
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

    # ---- the handlers of TRANSITIONS ----
    def _call(self, seat: int) -> None:
        self._caller = seat
        if self._rules.options["classic_passers_may_rob"]:
            self._rob_queue = [(seat + 1) % 3, (seat + 2) % 3]
        else:  # the seats between the caller and P0 going round (A12)
            self._rob_queue = []
            s = (seat + 1) % 3
            while s != self.first_bidder:
                self._rob_queue.append(s)
                s = (s + 1) % 3
        self._next_rob()

    def _no_call(self, seat: int) -> None:
        self._no_calls += 1
        if self._no_calls == 3:
            self._redeal()
        else:
            self._seat = (seat + 1) % 3

    def _rob(self, seat: int) -> None:
        self._robs += 1
        self._robbers.append(seat)
        self._next_rob()

    def _no_rob(self, seat: int) -> None:
        self._next_rob()

    def _final_rob(self, seat: int) -> None:
        self._robs += 1
        self._landlord_known(self._called())

    def _final_no_rob(self, seat: int) -> None:
        first = self._rules.options["classic_rob_winner"] == "first"
        self._landlord_known(self._robbers[0] if first else self._robbers[-1])

    def _show(self, seat: int, showed: bool) -> None:
        self._showed = showed
        if showed:
            self._shown.add(self._landlord)
        if self._rules.options["classic_show_timing"] == "before_kitty":
            self._reveal_kitty()
        self._start_play()

    # ---- helpers ----
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
        self._kitty_f = kitty_factor(self._hands.kitty_cards, self._rules.options["classic_kitty_combine"])
        self._take_kitty()

    # ---- the score ----
    def _auction(self) -> scoring.ClassicAuction:
        return scoring.ClassicAuction(self._landlord, self._robs, self._showed, self._kitty_f, self._base, self._imult)

    def _current_factors(self) -> Dict[str, Any]:
        return scoring.classic_factors(self._auction(), self._summary(), self._rules.options)

    def _multiplier(self, f: Dict[str, Any]) -> int:
        return scoring.classic_multiplier(f)

    def _score(self) -> GameResult:
        return scoring.classic_score(self._auction(), self._summary(), self._rules.options)


# phase -> token -> (handler, the phases it may lead to); a re-deal starts again at CALL,
# and a hand voided by max_redeals is OVER
TRANSITIONS: Transitions = {
    "CALL": {"CALL": (ClassicGame._call, ("ROB", "SHOW")),
             "NO_CALL": (ClassicGame._no_call, ("CALL", "OVER"))},
    "ROB": {"ROB": (ClassicGame._rob, ("ROB", "FINAL_ROB")),
            "NO_ROB": (ClassicGame._no_rob, ("ROB", "FINAL_ROB", "SHOW"))},
    "FINAL_ROB": {"ROB": (ClassicGame._final_rob, ("SHOW",)),
                  "NO_ROB": (ClassicGame._final_no_rob, ("SHOW",))},
    "SHOW": {"SHOW": (lambda g, seat: g._show(seat, True), ("PLAY",)),
             "NO_SHOW": (lambda g, seat: g._show(seat, False), ("PLAY",))},
}
ClassicGame._set_auction("classic", TRANSITIONS)
