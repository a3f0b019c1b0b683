"""What a ``Server`` keeps, by owner (issue #41, item 8c): the ``Lobby`` holds the people (their
connections, who waits for which room, the rooms' queues and matchmakers), the ``Tables`` hold
the hands (the live tables, who sits where, the ended tables kept for their absent players, the
stored hands not yet resumed). Each keeps its collections consistent with each other; the
server decides what happens and tells them.
"""
from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Deque, Dict, Iterable, Iterator, List, Mapping, Optional, Set, Tuple

from ..core.variants import VARIANT
from ..rooms.matchmaking import MATCH_TIERS, Matchmaker
from ..rooms.room import Room

if TYPE_CHECKING:  # pragma: no cover
    from .app import Session
    from .storage import LiveHand
    from .table import Table

__all__ = ["Lobby", "Tables"]


class Lobby:
    """The people of one process, by player: ``sessions`` (an account's latest connection),
    ``connections`` (every open one: a logout closes all of an account's), ``waiting`` (the
    room each waiting player waits for), and by room the queues (``queues``: TWOP and BENGBU4,
    in order) and matchmakers (``matchmakers``: CLASSIC3's tiers). In a cluster the shared
    queue decides who waits (``ddz.server.cluster``); ``waiting`` then says only who joined
    through this process."""

    def __init__(self, rooms: Mapping[str, Room], stage2_after_s: float, stage3_after_s: float) -> None:
        self.sessions: Dict[str, "Session"] = {}
        self.connections: Set["Session"] = set()
        self.waiting: Dict[str, str] = {}
        # CLASSIC3's tiers are filled by matchmakers (docs/rules.md §9, "Matchmaking"); other rooms seat as players come
        self.queues: Dict[str, Deque[str]] = {r: deque() for r, room in rooms.items()
                                              if not VARIANT[room.variant].matchmaking}
        self.matchmakers: Dict[str, Matchmaker] = {
            r: Matchmaker(r, stage2_after_s=stage2_after_s, stage3_after_s=stage3_after_s)
            for r, room in rooms.items() if VARIANT[room.variant].matchmaking and r in MATCH_TIERS}

    # ---- connections ----
    def opened(self, sess: "Session") -> None:
        self.connections.add(sess)

    def closed(self, sess: "Session") -> bool:
        """``sess`` closed; True if it was its account's latest connection (the account is
        gone from this process: its waiting ends, its seats pass to bots)."""
        self.connections.discard(sess)
        if sess.name is not None and self.sessions.get(sess.name) is sess:
            del self.sessions[sess.name]
            return True
        return False

    def login(self, name: str, sess: "Session") -> Optional["Session"]:
        """``sess`` is ``name``'s connection from now on; the one it replaces, if any."""
        old = self.sessions.get(name)
        self.sessions[name] = sess
        return old if old is not sess else None

    def of(self, name: str) -> List["Session"]:
        """Every open connection logged in to ``name``."""
        return [c for c in self.connections if c.name == name]

    # ---- waiting ----
    def wait(self, name: str, room: str, coins: int = 0, won: int = 0, completed: int = 0,
             now: float = 0.0) -> None:
        """``name`` waits for ``room`` here: in its matchmaker (CLASSIC3's tiers, which seat by
        coins and record) or its queue."""
        self.waiting[name] = room
        if room in self.matchmakers:
            self.matchmakers[room].join(name, max(coins, 0), won, completed, now=now)
        elif room in self.queues:
            self.queues[room].append(name)

    def unqueue(self, name: str) -> Optional[str]:
        """``name`` waits no more: out of its queue or matchmaker; the room it waited for."""
        room = self.waiting.pop(name, None)
        if room is None:
            return None
        mm = self.matchmakers.get(room)
        if mm is not None:
            if name in mm:
                mm.leave(name)
        else:
            try:
                self.queues[room].remove(name)
            except (KeyError, ValueError):
                pass
        return room

    def match(self, now: float, seats: Mapping[str, int]) -> List[Tuple[str, List[str]]]:
        """The groups seated by this round, (room, players) each: every matched player waits no
        more from now on, before any table opens (opening one yields: a ``leave_queue``
        meanwhile must not be told ``left_queue`` and then be seated). ``seats``: players per
        room."""
        out: List[Tuple[str, List[str]]] = []
        for room, mm in self.matchmakers.items():
            out += [(room, list(trio)) for trio in mm.match(now)]
        for room, q in self.queues.items():
            n = seats[room]
            while len(q) >= n:
                out.append((room, [q.popleft() for _ in range(n)]))
        for _, players in out:
            for p in players:
                self.waiting.pop(p, None)
        return out


class Tables(Mapping[str, "Table"]):
    """The hands of one process, by table and by player. As a mapping: the tables whose hand
    is played here, by id. ``by_player``: the table each player sits at (one at a time).
    ``finished``: tables that have ended, kept for the grace period so that a player away at
    the end can resume and get the result, and ``missed``: such players -> their table.
    ``to_resume``: stored live hands this process is to resume (at its start, or taken over
    in a cluster), by hand, and ``resuming``: their players -> the hand (a player's ``hello``
    resumes its hand first)."""

    def __init__(self) -> None:
        self.live: Dict[str, "Table"] = {}
        self.by_player: Dict[str, "Table"] = {}
        self.finished: Dict[str, "Table"] = {}
        self.missed: Dict[str, "Table"] = {}
        self.to_resume: Dict[str, "LiveHand"] = {}
        self.resuming: Dict[str, str] = {}

    def __getitem__(self, table_id: str) -> "Table":
        return self.live[table_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self.live)

    def __len__(self) -> int:
        return len(self.live)

    def playing(self) -> int:
        """How many hands are in play here (not yet ended)."""
        return sum(1 for t in self.live.values() if not t.ended)

    def find(self, table_id: str) -> Optional["Table"]:
        """A table a seat may still speak to: live, or ended within the grace period."""
        return self.live.get(table_id) or self.finished.get(table_id)

    def of_player(self, name: str) -> Optional["Table"]:
        """The table to name in ``name``'s ``welcome``: the one it sits at, else the ended one
        whose result it missed."""
        t = self.by_player.get(name)
        if t is None or t.ended:
            t = self.missed.get(name)
        return t

    def seated(self, name: str) -> bool:
        """``name`` sits at a table here, or at a stored hand about to resume."""
        return name in self.by_player or name in self.resuming

    def add(self, t: "Table", players: Iterable[str]) -> None:
        """``t`` is played here, ``players`` (its human seats) sit at it."""
        self.live[t.id] = t
        for p in players:
            self.by_player[p] = t

    def forget(self, t: "Table") -> None:
        """``t`` is no longer played here."""
        for p in t.players:
            if self.by_player.get(p) is t:
                del self.by_player[p]
        self.live.pop(t.id, None)

    def ended(self, t: "Table", away: Iterable[str]) -> None:
        """``t``'s hand ended: kept as finished, for ``away`` (its players not connected at the
        end) to get the result when they come back."""
        self.forget(t)
        for p in away:
            self.missed[p] = t
        self.finished[t.id] = t

    def drop_finished(self, t: "Table") -> None:
        """The grace period after ``t``'s end has passed."""
        self.finished.pop(t.id, None)
        for p in t.players:
            if self.missed.get(p) is t:
                del self.missed[p]

    def result_seen(self, name: str, t: "Table") -> None:
        """``name`` resumed ``t`` after its end: it missed nothing any more."""
        if self.missed.get(name) is t:
            del self.missed[name]

    def plan_resume(self, hand: "LiveHand", players: Iterable[str]) -> bool:
        """A stored live hand to resume, its human ``players`` waiting for it; False if it is
        known already."""
        if hand.id in self.live or hand.id in self.to_resume:
            return False
        self.to_resume[hand.id] = hand
        for p in players:
            self.resuming[p] = hand.id
        return True

    def take_resume(self, hand_id: str) -> Optional["LiveHand"]:
        """The stored hand ``hand_id`` is being resumed (or voided): out of the plan."""
        hand = self.to_resume.pop(hand_id, None)
        if hand is not None:
            for p in hand.players:
                if self.resuming.get(p) == hand_id:
                    del self.resuming[p]
        return hand
