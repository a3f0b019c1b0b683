"""Tricks read from a hand's public history (docs/rules.md §3): which plays and passes form the
trick in progress, and which action closes one (a play followed by a pass of every other
seat; the seat that made the play then leads the next trick).

The history is ``Game.history`` or an observation's ``"history"`` (``[seat, token]`` pairs); the
auction's decisions in it are skipped, and a re-deal starts afresh. ``ddz play`` prints a marker
when a trick closes, and ``ddz.draw`` draws the trick in progress.

>>> t = Tricks(3)
>>> [t.follow(s, a) for s, a in [(0, "PLAY 3s"), (1, "PASS"), (2, "PASS"), (0, "PLAY 4s")]]
[None, None, 0, None]
>>> t.current, t.closed
([(0, 'PLAY 4s')], False)
"""
from __future__ import annotations

from typing import Iterable, List, Optional, Sequence, Tuple

__all__ = ["Tricks"]


class Tricks:
    """Follows the actions of one hand of ``players`` seats, one at a time (``follow``).

    ``current`` holds the actions of the trick in progress as ``(seat, token)``; once a trick
    closes it stays there, with ``closed`` True, until the next lead starts a new one."""

    def __init__(self, players: int, history: Iterable[Sequence] = ()) -> None:
        self.players = players
        self._reset()
        for seat, token in history:
            self.follow(seat, token)

    def _reset(self) -> None:
        self.current: List[Tuple[int, str]] = []
        self.closed = False
        self._owner: Optional[int] = None
        self._passes = 0

    def follow(self, seat: Optional[int], token: str) -> Optional[int]:
        """Takes the next action of the history; returns the seat that leads next when this
        action closes a trick, else None."""
        if seat is None or token == "REDEAL":  # the dealer: a new deal, no trick yet
            self._reset()
            return None
        if token.startswith("PLAY "):
            if self._owner is None or self.closed:
                self.current, self.closed = [], False
            self.current.append((seat, token))
            self._owner, self._passes = seat, 0
        elif token == "PASS" and self._owner is not None and not self.closed:
            self.current.append((seat, token))
            self._passes += 1
            if self._passes == self.players - 1:
                self.closed = True
                return self._owner
        return None
