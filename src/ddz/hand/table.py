"""Table policy around a hand (docs/rules.md §9): the move timer and its default actions,
bot seats, and escapes.

These are decisions of the table a hand is played at, not rules of the hand: the hand's
state (``ddz.Game``'s core: deal, auction, play, outcome) only applies actions, and this
object decides when a seat's time is up, which action a timeout or a bot takes, and what an
escape does. A ``Game`` is the pair: it holds its ``TablePolicy`` (``Game.table_policy``) and
answers ``g.elapsed(...)``, ``g.set_bot(...)``, ``g.escape(...)`` through it. The policy acts
on the hand only through the game's ``apply``, ``check``, ``legal_actions`` and its record.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional

import copy

import numpy as np

from ..core.errors import ArgumentError, ArgumentTypeError, IllegalCode, illegal, shown
from ..core.variants import VARIANT

if TYPE_CHECKING:
    from .game import Game
    from .scoring import GameResult

__all__ = ["TablePolicy"]


class TablePolicy:
    """The timer, bot seats and escapes of one ``ddz.Game`` (see the module docstring): ``bots``
    by seat, and the time spent on the current decision (``clock`` seconds, valid while the
    game's record is ``clock_at`` events long: every recorded event restarts the clock)."""

    __slots__ = ("game", "_bots", "_clock", "_clock_at")

    # Makes the bot that takes a seat given no bot (``set_bot(seat)``) and that decides a
    # timeout under ``timeout_policy="bot"`` for a seat without one. The bots live in the layer
    # above the hand (``ddz.search``), so the hand never imports them: the package facade
    # (``ddz/__init__.py``) injects ``ddz.search.bots.RuleBot`` here.
    default_bot: Optional[Callable[[], Any]] = None

    def __init__(self, game: "Game", bots: Optional[Dict[int, Any]] = None, clock: float = 0.0,
                 clock_at: int = 0) -> None:
        self.game = game
        self._bots: Dict[int, Any] = dict(bots) if bots else {}
        self._clock = clock
        self._clock_at = clock_at

    def copy_for(self, game: "Game") -> "TablePolicy":
        """This policy for ``game``, a clone of its game: the bots deep-copied, so that a clone's
        bots draw their own random numbers; the clock as it stands."""
        return TablePolicy(game, copy.deepcopy(self._bots) if self._bots else None, self._clock, self._clock_at)

    def _new_default_bot(self) -> Any:
        if TablePolicy.default_bot is None:
            raise ArgumentError("no default bot is set (TablePolicy.default_bot): pass a bot")
        return TablePolicy.default_bot()

    @property
    def move_timeout_s(self) -> float:
        return self.game.rules.options["move_timeout_s"]

    @property
    def time_left(self) -> Optional[float]:
        """Seconds left for the current decision (the caller reports time with elapsed())."""
        return None if self.game.is_over else max(0.0, self.move_timeout_s - self.spent())

    def spent(self) -> float:
        """Seconds spent on the current decision (0 once an event was recorded since)."""
        return self._clock if self._clock_at == self.game._core.history_size else 0.0

    def elapsed(self, seconds: float) -> Optional[str]:
        """Reports time spent on the current decision. When the decision's time
        (``move_timeout_s``) runs out, applies ``timeout()`` and returns its token."""
        if isinstance(seconds, (bool, np.bool_)) or not isinstance(seconds, (int, float, np.integer, np.floating)):
            raise ArgumentTypeError(f"elapsed seconds must be a non-negative number, not {shown(seconds)}")
        if not seconds >= 0:  # NaN too
            raise ArgumentError(f"elapsed seconds must be a non-negative number, not {shown(seconds)}")
        seconds = float(seconds)
        if self.game.is_over:
            raise illegal(IllegalCode.HAND_OVER, "the hand is over: no decision is timed")
        self._clock = self.spent() + seconds
        self._clock_at = self.game._core.history_size
        if self._clock >= self.move_timeout_s:
            return self.timeout()
        return None

    def timeout_action(self) -> str:
        """The default action of docs/rules.md §9 "Time" for the seat to act (A8): the non-escalating choice,
        PASS, or the lowest single card when the seat must lead."""
        g = self.game
        if g.is_over:
            raise illegal(IllegalCode.HAND_OVER, "the hand is over: no decision is timed")
        if g.rules.options["timeout_policy"] == "bot":
            seat = g._acting()
            bot = self._bots.get(seat) or self._new_default_bot()
            return bot.act(g, seat)
        return g._core.timeout_default()  # the core's (a snapshot's replay checks it too)

    def timeout(self) -> str:
        """The seat to act ran out of time: records TIMEOUT(seat) and applies the default action.
        Atomic: the action is checked before anything is recorded, so a bot that answers an
        illegal action (``timeout_policy="bot"``) raises its ``IllegalAction`` and leaves the
        game exactly as it was. A bot must not change the game it is asked about."""
        g = self.game
        token = self.timeout_action()
        error = g.check(token)
        if error is not None:
            raise error
        g._note_timeout()
        return g.apply(token)

    @property
    def bot_seats(self) -> List[int]:
        """The seats a bot plays, in order."""
        return sorted(self._bots)

    def bot(self, seat: int) -> Any:
        """The bot that plays ``seat``, or None."""
        return self._bots.get(seat)

    def set_bot(self, seat: int, bot: Any = None) -> None:
        """Hands a seat to a bot (``ddz.bots.RuleBot()`` when ``bot`` is None) from now on;
        ``step_bots()`` then plays it. ``clear_bot(seat)`` gives the seat back."""
        seat = self.game._check_seat(seat)
        if bot is None:
            bot = self._new_default_bot()
        if not callable(getattr(bot, "act", None)):
            raise ArgumentTypeError("a bot needs an act(game, seat) method")
        self._bots[seat] = bot

    def clear_bot(self, seat: int) -> None:
        """Gives a bot's seat back to its player."""
        seat = self.game._check_seat(seat)
        self._bots.pop(seat, None)

    def step_bots(self, limit: int = 10_000) -> List[str]:
        """Lets bot seats act while one of them is to act; returns the tokens applied."""
        g = self.game
        done: List[str] = []
        while not g.is_over and g.current_seat in self._bots and len(done) < limit:
            done.append(g.apply(self._bots[g.current_seat].act(g, g.current_seat)))
        return done

    def escape(self, seat: int) -> Optional[GameResult]:
        """A seat leaves the unfinished hand (docs/rules.md §9, decision A9). TWOP and BENGBU4: the hand
        ends at once with the escape settlement (returned). CLASSIC3: a bot takes the seat
        until the hand ends and the hand is settled normally (§9 "Time"; returns None)."""
        g = self.game
        seat = g._check_seat(seat)
        if g.is_over:
            raise illegal(IllegalCode.HAND_OVER, "the hand is over: nobody can escape it")
        g._core.note(seat, "ESCAPE")  # recorded: the clock restarts
        if not VARIANT[g.rules.variant].escape_ends:  # CLASSIC3: a bot plays the seat on to the end
            if seat not in self._bots:
                self.set_bot(seat)
            return None
        result = g._escape_result(seat)
        g._finish(result)
        return result
