"""CLASSIC3's auction (docs/rules.md §6): call, rob, the final rob, show; then its score hooks.

The auction is the core's phase table (``csrc/ddz/hand.cpp``: the tokens each phase offers and
the phases each may lead to, interpreted by one C++ function per variant); ``TRANSITIONS``
gives it to Python as data: for each phase, each token offered there, the handler that applies
it and the phases it may lead to (tests/test_auctions.py reads it). The core checks every
transition it takes against the same table.
"""
from __future__ import annotations

from typing import Any, Dict

from . import scoring
from .game import Game, Transitions, auction_transitions
from .scoring import GameResult


class ClassicGame(Game):
    """CLASSIC3 (docs/rules.md §6): call / rob, show, kitty factor, bombs, spring."""

    __slots__ = ()

    # ---- the score ----
    def _auction(self) -> scoring.ClassicAuction:
        robs, showed, kitty_f = self._core.auction()
        spec = self._spec
        return scoring.ClassicAuction(self._core.landlord, robs, showed, kitty_f, spec.base, spec.imult)

    def _current_factors(self) -> Dict[str, Any]:
        return scoring.classic_factors(self._auction(), self._summary(), self._rules.options)

    def _multiplier(self, f: Dict[str, Any]) -> int:
        return scoring.classic_multiplier(f)

    def _score(self) -> GameResult:
        return scoring.classic_score(self._auction(), self._summary(), self._rules.options)


# phase -> token -> (handler, the phases it may lead to); a re-deal starts again at CALL,
# and a hand voided by max_redeals is OVER
TRANSITIONS: Transitions = auction_transitions("classic")
ClassicGame._set_auction("classic", TRANSITIONS)
