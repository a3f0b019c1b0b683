"""Table policy around a hand (docs/rules.md §9, §4): the move timer and its default
actions, bot seats, and escapes.

These are decisions of the table a hand is played at, not rules of the hand: the hand's
state machine (``ddz.Game``: deal, auction, play, score) only applies actions, and this
mixin decides when a seat's time is up, which action a timeout or a bot takes, and what
an escape does. ``Game`` inherits it, so the methods read ``g.elapsed(...)``,
``g.set_bot(...)``, ``g.escape(...)``; they act only through the game's own
``apply``, ``legal_actions`` and history.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from ..core.errors import ArgumentError, ArgumentTypeError, IllegalCode, illegal, shown

if TYPE_CHECKING:
    from .scoring import GameResult

__all__ = ["TablePolicy"]


class TablePolicy:
    """The timer, bot seats and escapes of ``ddz.Game`` (see the module docstring)."""

    if not TYPE_CHECKING:  # Game's slots hold the state (mypy reads the declarations below)
        __slots__ = ()

    _bots: Dict[int, Any]
    _clock: float     # seconds spent on the current decision, valid while the history is
    _clock_at: int    # this long: every recorded action (a play, a decision, TIMEOUT, ESCAPE) restarts it

    # Makes the bot that takes a seat given no bot (``set_bot(seat)``) and that decides a
    # timeout under ``timeout_policy="bot"`` for a seat without one. The bots live in the layer
    # above the hand (``ddz.search``), so the hand never imports them: the package facade
    # (``ddz/__init__.py``) injects ``ddz.search.bots.RuleBot`` here.
    default_bot: Optional[Callable[[], Any]] = None

    def _new_default_bot(self) -> Any:
        if TablePolicy.default_bot is None:
            raise ArgumentError("no default bot is set (TablePolicy.default_bot): pass a bot")
        return TablePolicy.default_bot()

    if TYPE_CHECKING:  # what the mixin uses of the game it is mixed into (ddz.Game)
        from .._core import PhysicalHands, _WholeHand
        from ..core.rules import Rules

        _core: _WholeHand
        _result: Optional[GameResult]

        @property
        def _rules(self) -> Rules: ...

        @property
        def is_over(self) -> bool: ...
        @property
        def current_seat(self) -> Optional[int]: ...
        def legal_actions(self) -> List[str]: ...
        def apply(self, action: Any, seat: Optional[int] = None) -> str: ...
        def _acting(self) -> int: ...
        def _check_seat(self, seat: Any) -> int: ...
        def check(self, action: Any, seat: Optional[int] = None) -> Optional[Exception]: ...
        def _finish(self, result: GameResult) -> None: ...
        def _escape_result(self, seat: int) -> GameResult: ...

    @property
    def move_timeout_s(self) -> float:
        return self._rules.options["move_timeout_s"]

    @property
    def time_left(self) -> Optional[float]:
        """Seconds left for the current decision (the caller reports time with elapsed())."""
        return None if self.is_over else max(0.0, self.move_timeout_s - self._spent())

    def _spent(self) -> float:
        """Seconds spent on the current decision (0 once an action was recorded since)."""
        return self._clock if self._clock_at == self._core.history_size else 0.0

    def elapsed(self, seconds: float) -> Optional[str]:
        """Reports time spent on the current decision. When the decision's time
        (``move_timeout_s``) runs out, applies ``timeout()`` and returns its token."""
        if isinstance(seconds, (bool, np.bool_)) or not isinstance(seconds, (int, float, np.integer, np.floating)):
            raise ArgumentTypeError(f"elapsed seconds must be a non-negative number, not {shown(seconds)}")
        if not seconds >= 0:  # NaN too
            raise ArgumentError(f"elapsed seconds must be a non-negative number, not {shown(seconds)}")
        seconds = float(seconds)
        if self.is_over:
            raise illegal(IllegalCode.HAND_OVER, "the hand is over: no decision is timed")
        self._clock = self._spent() + seconds
        self._clock_at = self._core.history_size
        if self._clock >= self.move_timeout_s:
            return self.timeout()
        return None

    def timeout_action(self) -> str:
        """The default action of docs/rules.md §9 "Time" for the seat to act (A8): the non-escalating choice,
        PASS, or the lowest single card when the seat must lead."""
        if self.is_over:
            raise illegal(IllegalCode.HAND_OVER, "the hand is over: no decision is timed")
        if self._rules.options["timeout_policy"] == "bot":
            seat = self._acting()
            bot = self._bots.get(seat) or self._new_default_bot()
            return bot.act(self, seat)
        return self._core.timeout_default()  # the core's (a snapshot's replay checks it too)

    def timeout(self) -> str:
        """The seat to act ran out of time: records TIMEOUT(seat) and applies the default action.
        Atomic: the action is checked before anything is recorded, so a bot that answers an
        illegal action (``timeout_policy="bot"``) raises its ``IllegalAction`` and leaves the
        game exactly as it was. A bot must not change the game it is asked about."""
        token = self.timeout_action()
        error = self.check(token)
        if error is not None:
            raise error
        self._note_timeout()
        return self.apply(token)

    def _note_timeout(self) -> None:
        self._core.note(self._acting(), "TIMEOUT")

    @property
    def bot_seats(self) -> List[int]:
        return sorted(self._bots)

    def set_bot(self, seat: int, bot: Any = None) -> None:
        """Hands a seat to a bot (``ddz.bots.RuleBot()`` when ``bot`` is None) from now on;
        ``step_bots()`` then plays it. ``clear_bot(seat)`` gives the seat back."""
        seat = self._check_seat(seat)
        if bot is None:
            bot = self._new_default_bot()
        if not callable(getattr(bot, "act", None)):
            raise ArgumentTypeError("a bot needs an act(game, seat) method")
        self._bots[seat] = bot

    def clear_bot(self, seat: int) -> None:
        seat = self._check_seat(seat)
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
        until the hand ends and the hand is settled normally (§9 "Time"; returns None)."""
        seat = self._check_seat(seat)
        if self.is_over:
            raise illegal(IllegalCode.HAND_OVER, "the hand is over: nobody can escape it")
        self._core.note(seat, "ESCAPE")  # recorded: the clock restarts
        if not self._core.escape_ends:  # CLASSIC3: a bot plays the seat on (the variant's escape rule)
            if seat not in self._bots:
                self.set_bot(seat)
            return None
        self._finish(self._escape_result(seat))
        return self._result
