"""Rooms, settlement and matchmaking (docs/rules.md §9): ``Room`` and ``ROOMS``, ``settle``
and ``Settlement`` (``ddz.rooms.room``), ``Matchmaker`` and ``MATCH_TIERS``
(``ddz.rooms.matchmaking``). It stands on ``ddz.hand`` (a hand's ``GameResult``) and
``ddz.core``. See docs/architecture.md."""
from .matchmaking import MATCH_TIERS, Matchmaker
from .room import ROOMS, Room, Settlement, settle

__all__ = ["MATCH_TIERS", "Matchmaker", "ROOMS", "Room", "Settlement", "settle"]
