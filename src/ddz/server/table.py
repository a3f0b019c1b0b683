"""One table: a ``ddz.Game`` in a room, its seats, the move clock, bots for absent seats,
escapes, and the observations pushed to seats and spectators after every event.

The table never decides a rule: every action goes through ``Game.check`` / ``Game.apply``
with the acting seat, the clock expiry through ``Game.timeout`` (docs/rules.md §9, A8), an escape through
``Game.escape`` (docs/rules.md §9, A9) and the coins through ``ddz.settle``. What the table adds is who may
act for a seat (its random seat token), when (the deadline, as wall-clock time), and who
sees what (``Game.observation(seat)`` for a seat, ``observation(None)`` for spectators).

What goes on the wire after an event is a ``delta`` (protocol version 2): for each receiver
the table remembers what it last sent (the history length and the other fields), and sends
only the new history entries and the fields that changed. A whole observation (``obs``)
goes out when a receiver has nothing to build on: its first message, a ``resume`` whose
``since`` the table no longer knows, a spectator's start, a version-1 client.
"""
from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Set, Tuple

from ..hand.game import Game
from .._core import IllegalAction
from ..core.errors import shown
from ..rooms.room import Room, settle
from ..core.rules import Rules
from ..core.variants import VARIANT
from ..search.bots import Bot, RandomBot, RuleBot
from .protocol import ProtocolError

if TYPE_CHECKING:  # pragma: no cover
    from .app import Session
    from .storage import LiveHand

__all__ = ["Table", "ResumeError", "room_rules", "ledger_of", "seat_view", "SINCE_WINDOW", "START_VERSION",
           "INLINE_BOTS"]

log = logging.getLogger("ddz.server")

# How many events back a ``resume`` may ask for a delta (``since``); older, a delta would
# carry most of the history anyway, so the reply is a snapshot.
SINCE_WINDOW = 100
_UNSENT = object()  # a field the receiver has not been sent
START_VERSION = 1  # the version of the start record (Table.start_record)
# the log's ops that change no game state: a seat's player gone (a bot plays it), back, and the
# table resumed by a server after its predecessor stopped; with the game's actions, TIMEOUT and
# ESCAPE, one op per event of the table, so that its ``seq`` is 1 + the log's length
_MARKS = ("AWAY", "BACK", "RESUMED")
# bots whose decision takes microseconds: they act on the event loop. Any other (SearchBot,
# NeuralBot, a bot of the host's) thinks on the table's ``pool`` (``Table._bot_move``)
INLINE_BOTS = (RuleBot, RandomBot)
_FALLBACK = RuleBot()  # plays a decision whose bot failed

_orjson_dumps: Optional[Callable[[Any], bytes]]
try:  # the server extra installs it: a log row on every action, ten times faster than json's
    from orjson import dumps as _orjson_dumps
except ImportError:  # pragma: no cover - the standard library's encoder
    _orjson_dumps = None


def _log_row(seat: Optional[int], op: str) -> str:
    """An event's row of the hand log: ``[seat, op]`` as JSON (read back by ``Table.restore``)."""
    if _orjson_dumps is not None:
        return _orjson_dumps([seat, op]).decode()
    return json.dumps([seat, op], separators=(",", ":"))


class _Seated:
    """What a table hands its Game for a bot seat (``Game.set_bot``: the seat is a bot's): the
    table's bot, shared. ``Game.clone`` deep-copies the bots a game holds, and the clone a bot
    thinks about (``Table._bot_move``) must not copy a bot: a model's weights are large, and a
    bot of the host's may hold what cannot be copied (a lock, a connection)."""

    __slots__ = ("bot",)

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def act(self, game: Any, seat: int) -> Any:
        return self.bot.act(game, seat)

    def __deepcopy__(self, memo: Dict[int, Any]) -> "_Seated":
        return self


class ResumeError(ValueError):
    """A stored hand that cannot be resumed; the message says why, in one line."""


# the fields of a seat's observation that are not the public view's (seat_view sets them)
_OWN = ("seat", "hand", "cards", "shown", "legal_actions")


class _Sent:
    """What one receiver (a seat's connection, a spectator) was last sent: the base of its
    next delta. ``fields`` is the observation without its history; empty after a ``resume``
    with ``since``, so that the next delta carries every field. ``seq``: the event it was
    last brought up to (-1 after a ``resume``): a receiver up to date with the event before
    gets the public fields that event changed, found once for all receivers. ``own``: what
    the seat's cards were last looked up for (the deal, the phase, its count: ``_seat_delta``)."""

    __slots__ = ("hist", "fields", "info", "seq", "own")

    def __init__(self, hist: int, fields: Dict[str, Any], info: Optional[Dict[str, Any]], seq: int) -> None:
        self.hist = hist
        self.fields = fields
        self.info = info
        self.seq = seq
        self.own: Any = None


_RULES: Dict[Room, Rules] = {}


def room_rules(room: Room) -> Rules:
    """The rules a room's hands are played with (the room's multiplier / point value in them,
    so that ``settle`` finds the result consistent with the room). One ``Rules`` per room,
    shared by its tables (it is immutable): a new one computes its action space on first use
    (``Game`` reads ``pass_id``), 7 to 21 ms, which per table was a third of the server's time
    and held the event loop for seconds when a thousand tables opened at once."""
    rules = _RULES.get(room)
    if rules is None:
        rules = _RULES[room] = _new_rules(room)
    return rules


def _new_rules(room: Room) -> Rules:
    return Rules.named(room.variant, **room.rules_options())


# the ledgers (storage.LEDGERS) other than coins: BENGBU4's points, TWOP's score rooms
_LEDGERS = {("bengbu", None): "bengbu", ("two_player", "score"): "twop_score"}


def ledger_of(room: Room) -> str:
    """Which balance a room's settlements change (storage.LEDGERS)."""
    return _LEDGERS.get((room.variant, room.kind), "coins")


def _bomb_limits(game: Game) -> Optional[List[Optional[int]]]:
    """BENGBU4: each seat's bomb limit (docs/rules.md §8) once the bidding has ended (public: it follows
    from the bid log); None otherwise."""
    return game.bomb_limits


def seat_view(game: Game, public: Dict[str, Any], seat: Optional[int]) -> Dict[str, Any]:
    """``game.observation(seat)``, built from ``public`` (``game.observation(None)`` now): the
    seat's own cards, the shown hands but its own, its legal actions if it is to act. Why:
    the public part (the history, the multiplier and its factors) then costs once per event,
    not once per seat, and that was most of the server's time; the tests check it equals
    ``Game.observation`` at every step of every variant."""
    if seat is None:
        return public
    view = dict(public)
    view["seat"] = seat
    view["hand"] = str(game.hand(seat))
    view["cards"] = game.cards(seat)
    view["shown"] = {s: c for s, c in public["shown"].items() if s != seat}
    view["legal_actions"] = game.legal_actions() if public["current_seat"] == seat else []
    return view


class Table:
    """A live hand. Created by the server once players are matched; ends by ``_finish``.

    It knows no server: ``config`` gives its times (``move_timeout_s``, ``bot_delay_s``,
    ``grace_s``: a ``ServerConfig``), ``bot`` plays its bot seats and absent players' seats,
    ``journal`` stores its log (``ddz.server.journal``; ``MemoryJournal`` for a table without
    a database), ``store`` its result (``Storage.finish_hand``; None: not stored). It reports
    what happens by events: ``on_end(table)`` once its hand has ended and its result is stored
    (or could not be), ``on_lost(table)`` when another process took its hand over,
    ``on_answered(seconds)`` when the update of a player's action went out, ``on_bot(outcome)``
    when a bot's answer was applied, dropped or replaced (``_bot_answered``). ``pool``: where a
    bot that is not one of ``INLINE_BOTS`` thinks, off the event loop (None: every bot acts on
    the loop)."""

    def __init__(self, table_id: str, room: Room, players: List[str], bot_seats: Set[int],
                 coins_before: List[int], *, config: Any, bot: Bot, journal: Any, store: Any = None,
                 seed: Optional[int] = None, tokens: Optional[List[str]] = None,
                 pool: Optional[Executor] = None) -> None:
        self.config = config
        self.pool = pool
        # the decision a bot thinks about off the loop, (decision_seq, escapes, seat), and the
        # clock that bounds its thinking (``_bot_move``)
        self._thinking: Optional[Tuple[int, int, int]] = None
        self._bot_clock: Optional[asyncio.TimerHandle] = None
        self.bot_stale = 0   # answers of bots that came back after their decision had closed: dropped
        self.bot_late = 0    # bot decisions the move clock ran out on (the seat timed out)
        self.bot_failed = 0  # bot decisions that raised or answered an illegal action (RuleBot played them)
        # hears what became of each answer of a bot thinking off the loop: "applied", "late",
        # "stale" or "failed" (a failure of a bot on the loop too): the server's metrics
        self.on_bot: Optional[Callable[[str], None]] = None
        self.journal = journal
        self.store = store
        self.on_end: Optional[Callable[["Table"], None]] = None
        self.on_lost: Optional[Callable[["Table"], None]] = None
        self.id = table_id
        self.room = room
        self.players = list(players)
        self.n = len(players)
        self.rules = room_rules(room)
        self.game = Game(self.rules, seed)
        self.coins_before = list(coins_before)
        self.tokens = list(tokens) if tokens is not None else [secrets.token_urlsafe(18) for _ in players]
        self.sessions: List[Optional["Session"]] = [None] * self.n
        self.spectators: Set["Session"] = set()
        self.robots = set(bot_seats)            # seats of server bot accounts (a bot from the start)
        self.absent: Set[int] = set()           # human seats whose connection is gone (a bot plays)
        self.escaped: Set[int] = set()
        self.seq = 0
        self.decision_seq = 0                   # the event that opened the decision now open (see act)
        self._hist_at: List[int] = []           # the history length after each of the last SINCE_WINDOW events
        self._sent: Dict[Tuple["Session", Optional[int]], _Sent] = {}  # (receiver, seat or None) -> its base
        self._pub: Optional[Dict[str, Any]] = None  # the public view pushed at the last event
        self.deadline: Optional[float] = None   # wall-clock time (epoch seconds) the seat to act must act by
        self.ended = False
        self.result_msg: Optional[Dict[str, Any]] = None
        self._timer: Optional[asyncio.TimerHandle] = None  # the move clock (see _on_clock)
        self._due: Optional[float] = None       # the loop time the seat to act must act by
        self._bot_timer: Optional[asyncio.TimerHandle] = None
        self._grace: Dict[int, asyncio.TimerHandle] = {}
        self._finishing: Optional["asyncio.Task[None]"] = None
        # the hand log (docs/server.md, "Durable hands"): ops appended, ops stored; what the
        # table would send waits while they differ (``_held``), and is sent once they agree
        self.logged = 0
        self.stored = 0
        self._held = False
        self._pushed_seq = 0                    # the event of the last push
        self._hist_pushed = 0                   # the history's length at the last push
        self._caught_up: Optional["asyncio.Future[None]"] = None
        self.frozen = False                     # its server is stopping: nothing more happens here
        self.hold: Set[int] = set()             # seats kept for their players after a resume, no bot yet
        self._extra = 0.0                       # seconds added to the next decision's clock (a resume)
        # when the players' actions applied and not yet answered were read (perf_counter), and who
        # hears how long their answers took (the server's metrics)
        self._asked: List[float] = []
        self.on_answered: Optional[Callable[[float], None]] = None
        self.bot = bot                          # the room's bot: RuleBot or NeuralBot (ServerConfig.bot)
        self._bots: Dict[int, Bot] = {}
        for s in self.robots:
            self._bots[s] = self.bot
            self.game.set_bot(s, _Seated(self.bot))

    # ---- who is who ----
    def seat_of(self, seat_token: str) -> Optional[int]:
        for s, t in enumerate(self.tokens):
            if secrets.compare_digest(t, seat_token):
                return s
        return None

    def info(self) -> Dict[str, Any]:
        return {"table": self.id, "room": self.room.name, "variant": self.room.variant, "players": self.players,
                "phase": self.game.phase, "seq": self.seq}

    # ---- the record of its start, and resuming from it ----
    def start_record(self) -> str:
        """What resumes the hand with its log: the room, the rules, the seed, the seats, the
        stakes and the seat tokens (``storage.start_hand``)."""
        return json.dumps({"v": START_VERSION, "room": self.room.name,
                           "rules": {"variant": self.rules.variant, "options": dict(self.rules.options)},
                           "seed": self.game.seed, "players": self.players, "bots": sorted(self.robots),
                           "coins": self.coins_before, "tokens": self.tokens}, ensure_ascii=False)

    @classmethod
    def restore(cls, hand: "LiveHand", grace_s: float, rooms: Dict[str, Room],
                make: Callable[[Room], Dict[str, Any]]) -> "Table":
        """The table of a stored live hand, its log replayed on ``Game(rules, seed)``: every
        human seat is kept for its player ``grace_s`` seconds, then played by the room's bot
        until its player comes back (never an escape: its player did not leave, the server
        did); the open decision's clock starts again with ``grace_s`` more. Raises
        ``ResumeError`` (one line) for a hand it cannot resume. ``rooms``: the rooms served;
        ``make(room)``: the keyword arguments of its table (``config``, ``bot``, …)."""
        if hand.start is None:
            raise ResumeError("nothing to resume it from: it began before hands were logged (an older ddz), "
                              "or on a server without the hand log")
        try:
            st = json.loads(hand.start)
            if not isinstance(st, dict) or st.get("v") != START_VERSION:
                raise ResumeError(f"its start record is not of version {START_VERSION}")
            room = rooms.get(st["room"])
            if room is None:
                raise ResumeError(f"its room {str(st['room'])[:40]!r} is not served here")
            rules = room_rules(room)
            if st["rules"] != {"variant": rules.variant, "options": dict(rules.options)}:
                raise ResumeError(f"its rules are not those of room {room.name!r} now")
            players, bots, coins, tokens, seed = st["players"], set(st["bots"]), st["coins"], st["tokens"], st["seed"]
            n = room.players
            if (players != hand.players or len(players) != n or len(coins) != n or len(tokens) != n
                    or not bots <= set(range(n)) or not isinstance(seed, int)
                    or not all(isinstance(x, str) for x in tokens) or not all(type(c) is int for c in coins)):
                raise ResumeError("its start record does not fit its room or its seats")
        except ResumeError:
            raise
        except (ValueError, TypeError, KeyError) as e:
            raise ResumeError(f"its start record is broken ({type(e).__name__}: {str(e)[:80]})") from None
        t = cls(hand.id, room, players, bots, coins, seed=seed, tokens=tokens, **make(room))
        g = t.game
        for i, (n_, text) in enumerate(hand.ops, 1):
            if n_ != i:
                raise ResumeError(f"its log lacks event {i} (the next stored is {n_})")
            try:
                seat, op = json.loads(text)
                if seat is not None and (type(seat) is not int or not 0 <= seat < t.n) or not isinstance(op, str):
                    raise ValueError("not [seat, op]")
                if op in _MARKS:
                    continue
                if op == "TIMEOUT":
                    if g.is_over or g.current_seat != seat:
                        raise ValueError(f"seat {seat} has no decision to time out")
                    g.timeout()
                elif op == "ESCAPE":
                    if seat is None:
                        raise ValueError("an escape without its seat")
                    g.escape(seat)
                    t.escaped.add(seat)
                else:
                    g.apply(op, seat=seat)
            except (ValueError, TypeError, IllegalAction) as e:
                raise ResumeError(f"its event {i} ({text[:40]}) does not replay: {str(e)[:80]}") from None
        t.logged = t.stored = len(hand.ops)
        t.seq = t._pushed_seq = 1 + len(hand.ops)
        for seat in range(t.n):
            if seat not in t.robots and seat not in t.escaped:
                t.absent.add(seat)
                t.hold.add(seat)
        t._extra = grace_s
        return t

    def resumed(self, grace_s: float) -> None:
        """Its players' seats are kept ``grace_s`` seconds (``restore``), then a bot plays them."""
        loop = asyncio.get_running_loop()
        for seat in self.hold:
            self._grace[seat] = loop.call_later(grace_s, self._release, seat)
        self._log(None, "RESUMED")
        self._moved()
        self._event()

    def _release(self, seat: int) -> None:
        """A seat kept after a resume, its player not back: the room's bot plays it from now on."""
        self._grace.pop(seat, None)
        if seat not in self.hold or self.frozen or self.ended or self.game.is_over:
            return
        self.hold.discard(seat)
        self.go_absent(seat, escape=False)
        self._log(seat, "AWAY")
        self._event()

    # ---- the log ----
    def _log(self, seat: Optional[int], op: str) -> None:
        """Appends the event's op to the hand's log (``Journal``): what the event changed is
        sent once it is stored."""
        self.logged += 1
        self.journal.append(self.id, self.logged, _log_row(seat, op), self._on_stored, self.lost)

    def _on_stored(self, n: int) -> None:
        self.stored = max(self.stored, n)
        if self.stored < self.logged:
            return
        if self._held:
            self._held = False
            if not self.ended:
                self._push()
        if self._caught_up is not None and not self._caught_up.done():
            self._caught_up.set_result(None)

    async def durable(self) -> None:
        """Returns once every event of the table is stored."""
        if self.stored >= self.logged:
            return
        if self._caught_up is None or self._caught_up.done():
            self._caught_up = asyncio.get_running_loop().create_future()
        await self._caught_up

    def lost(self) -> None:
        """Its rows were refused: the hand is another process's now (a takeover). It stops
        here without a result; the server tells its players where it went."""
        if self.ended:
            return
        log.warning("table %s: its hand was taken over by another process; it stops here", self.id)
        self.freeze()
        self.ended = True
        if self._caught_up is not None and not self._caught_up.done():
            self._caught_up.set_result(None)
        if self.on_lost is not None:
            self.on_lost(self)

    def freeze(self) -> None:
        """Nothing more happens at this table in this process (its server stops, or another
        process took the hand): its timers stop; its stored log is where the hand resumes."""
        self.frozen = True
        self._cancel_timers()
        for h in self._grace.values():
            h.cancel()
        self._grace.clear()

    # ---- starting ----
    def start(self) -> None:
        self._moved()
        self._event()

    # ---- messages ----
    def _extras(self) -> Dict[str, Any]:
        g = self.game
        return {"bomb_limits": _bomb_limits(g), "room": self.room.name, "variant": self.room.variant,
                "players": self.players, "absent": sorted(self.absent | self.escaped),
                "unit": (self.room.base or 1) * (self.room.initial_multiplier or 1)
                if VARIANT[self.room.variant].stakes else None}

    def update_msg(self, sess: "Session", seat: Optional[int], extras: Optional[Dict[str, Any]] = None,
                   obs: Optional[Dict[str, Any]] = None, now: Optional[float] = None) -> Dict[str, Any]:
        """The message that brings ``sess`` (holding ``seat``, None for a spectator) up to
        date: a ``delta`` on what it was last sent, or an ``obs`` snapshot when there is
        nothing to build on. ``obs`` may be given when several receivers share one view."""
        o = obs if obs is not None else self.game.observation(seat)
        info = extras if extras is not None else self._extras()
        t = now if now is not None else time.time()
        hist = o["history"]
        fields = {k: v for k, v in o.items() if k != "history"}
        sent = self._sent.get((sess, seat))
        if sent is None or sess.version < 2:
            self._sent[(sess, seat)] = _Sent(len(hist), fields, info, self.seq)
            return {"type": "obs", "table": self.id, "seq": self.seq, "seat": seat, "obs": o,
                    "deadline": self.deadline, "now": t, "table_info": info}
        msg = {"type": "delta", "table": self.id, "seq": self.seq, "seat": seat, "from": sent.hist,
               "events": hist[sent.hist:], "set": {k: v for k, v in fields.items() if sent.fields.get(k, _UNSENT) != v},
               "deadline": self.deadline, "now": t}
        if info != sent.info:
            msg["table_info"] = info
        sent.hist, sent.fields, sent.info, sent.seq, sent.own = len(hist), fields, info, self.seq, None
        return msg

    def _seat_delta(self, sess: "Session", seat: Optional[int], sent: _Sent, pub: Dict[str, Any],
                    changed: Dict[str, Any], extras: Dict[str, Any], now: float, base: int) -> Dict[str, Any]:
        """``update_msg`` for a receiver up to date with the event before this one: the public
        fields this event changed (``changed``, found once per event) and the seat's own fields
        that changed; the same message, without building and comparing the whole view per
        receiver. ``pub["history"]`` holds the entries from ``base`` on."""
        tail = pub["history"]
        events = tail[sent.hist - base:] if sent.hist >= base else self.game.observation(
            None, history_from=sent.hist)["history"]
        fields = sent.fields
        if seat is None:
            new = changed
        else:
            g = self.game
            new = {k: v for k, v in changed.items() if k not in _OWN}
            own = (g.deal_number, pub["phase"], pub["cards_left"][seat])
            if own != sent.own:  # a seat's cards change only with the deal, the phase or its count
                sent.own = own
                hand, cards = str(g.hand(seat)), g.cards(seat)
                if fields.get("hand", _UNSENT) != hand:
                    new["hand"] = hand
                if fields.get("cards", _UNSENT) != cards:
                    new["cards"] = cards
            if "shown" in changed:
                shown = {s: c for s, c in changed["shown"].items() if s != seat}
                if fields.get("shown", _UNSENT) != shown:
                    new["shown"] = shown
            legal = g.legal_actions() if pub["current_seat"] == seat else []
            if fields.get("legal_actions", _UNSENT) != legal:
                new["legal_actions"] = legal
        fields.update(new)
        msg = {"type": "delta", "table": self.id, "seq": self.seq, "seat": seat, "from": sent.hist,
               "events": events, "set": new, "deadline": self.deadline, "now": now}
        if extras != sent.info:
            msg["table_info"] = extras
            sent.info = extras
        sent.hist, sent.seq = base + len(tail), self.seq
        return msg

    def rebase(self, sess: "Session", seat: Optional[int], since: Optional[int]) -> None:
        """What ``sess`` holds of ``seat``'s view after a ``resume`` (or as a new spectator):
        the view as of event ``since`` if the table still knows it (the next message is a
        delta from there with every field), else nothing (the next message is a snapshot)."""
        self._sent.pop((sess, seat), None)
        top = self._pushed_seq  # the newest event anyone was told of
        if since is not None and 0 < since <= top and top - since < len(self._hist_at):
            self._sent[(sess, seat)] = _Sent(self._hist_at[since - top - 1], {}, None, -1)

    def forget(self, sess: "Session", seat: Optional[int]) -> None:
        """``sess`` no longer receives ``seat``'s view (None: stops watching)."""
        self._sent.pop((sess, seat), None)
        if seat is None:
            self.spectators.discard(sess)

    def watch(self, sess: "Session") -> None:
        """A spectator starts: a snapshot of the public view now, updates after every event."""
        self.spectators.add(sess)
        self.rebase(sess, None, None)
        if not self._held:  # else the push that follows the log's write brings it
            sess.send(self.update_msg(sess, None))

    def _push(self) -> None:
        extras = self._extras()  # the same for every seat of this event
        now = time.time()
        # the history's new entries only: the receivers up to date hold the rest, and building the
        # whole of it at every event was most of the public view's cost late in a hand
        base = self._hist_pushed
        pub = self.game.observation(None, history_from=base)
        total = base + len(pub["history"])
        # one entry per event since the last push (events pushed together were told of at once)
        self._hist_at.extend([total] * min(self.seq - self._pushed_seq, SINCE_WINDOW))
        if len(self._hist_at) > SINCE_WINDOW:
            del self._hist_at[:len(self._hist_at) - SINCE_WINDOW]
        prev = self._pub
        changed = {}  # the public fields this event changed
        for k, v in pub.items():
            if k == "history":
                continue
            if prev is not None and prev[k] == v:
                # the value kept is the one kept since it last changed: the fresh copy is freed now,
                # not kept to the next event (most fields do not change: a table then keeps no new
                # object for the garbage collector to walk)
                pub[k] = prev[k]
            else:
                changed[k] = v
        last = self._pushed_seq
        self._pushed_seq = self.seq
        self._hist_pushed = total
        whole: Optional[Dict[str, Any]] = None  # the public view with the whole history, if a receiver needs it
        for s, sess in enumerate(self.sessions):
            if sess is not None:
                sent = self._sent.get((sess, s))
                if sent is not None and sent.seq == last and sess.version >= 2:
                    sess.send(self._seat_delta(sess, s, sent, pub, changed, extras, now, base))
                else:
                    whole = whole or self._whole(pub, base)
                    sess.send(self.update_msg(sess, s, extras, seat_view(self.game, whole, s), now))
        for sess in list(self.spectators):
            sent = self._sent.get((sess, None))
            if sent is not None and sent.seq == last and sess.version >= 2:
                sess.send(self._seat_delta(sess, None, sent, pub, changed, extras, now, base))
            else:
                whole = whole or self._whole(pub, base)
                sess.send(self.update_msg(sess, None, extras, whole, now))
        del pub["history"]  # sent; kept without it (the next event compares the other fields)
        self._pub = pub
        if self._asked and self.on_answered is not None:
            done = time.perf_counter()
            for t0 in self._asked:
                self.on_answered(done - t0)
            self._asked.clear()

    def _whole(self, pub: Dict[str, Any], base: int) -> Dict[str, Any]:
        """``pub`` (its history from entry ``base`` on) with the whole history: for a receiver
        that is not up to date (a snapshot, or a delta from further back)."""
        whole = dict(pub)
        if base:
            whole["history"] = self.game.observation(None, history_from=0)["history"]
        return whole

    # ---- the flow of the hand ----
    def _moved(self) -> None:
        """The game moved on to a new decision (an action, the clock's default, a bot's move):
        the event about to be pushed opens it. Events that leave the decision where it was (a
        seat handed to a bot or given back, another seat's escape) do not call this."""
        self.decision_seq = self.seq + 1

    def _event(self) -> None:
        """After every change: next sequence number, the clock or a bot for the next seat,
        observations to everyone; the settlement once the hand is over."""
        self.seq += 1
        if self._bot_timer is not None:
            self._bot_timer.cancel()
            self._bot_timer = None
        g = self.game
        if g.is_over:
            self.deadline = self._due = None
            self._stop_thinking()
            self._publish()
            if self._finishing is None:
                self._finishing = asyncio.get_running_loop().create_task(self._finish())
            return
        seat = g.current_seat
        loop = asyncio.get_running_loop()
        if self._thinking is not None and (seat not in g.bot_seats or self._thinking != self._bot_key(seat)):
            self._stop_thinking()  # its answer, when it comes, is dropped
        if seat in g.bot_seats:
            self.deadline = self._due = None
            self._bot_timer = loop.call_later(self.config.bot_delay_s, self._bot_move, self.seq)
        else:
            timeout = (self.config.move_timeout_s or g.move_timeout_s) + self._extra
            self._extra = 0.0
            self.deadline = time.time() + timeout
            self._due = loop.time() + timeout
            if self._timer is None or self._timer.when() > self._due:
                if self._timer is not None:
                    self._timer.cancel()
                self._timer = loop.call_at(self._due, self._on_clock)
        self._publish()

    def _publish(self) -> None:
        """The event's messages: now if the log holds every event, else once it does."""
        if self.stored < self.logged:
            self._held = True
        else:
            self._push()

    def _cancel_timers(self) -> None:
        for t in (self._timer, self._bot_timer, self._bot_clock):
            if t is not None:
                t.cancel()
        self._timer = self._bot_timer = self._bot_clock = None
        self._due = None
        self._thinking = None

    def _on_clock(self) -> None:
        """The move clock's timer. Every event sets a new deadline (``_due``, loop time) but
        does not re-arm the timer: a timer cancelled per event stayed in the loop's heap for
        the whole 30 s, tens of thousands of them at a thousand tables (heap work, and objects
        for every garbage collection to walk). So the timer may fire for a decision answered
        since: then it waits for the current deadline."""
        self._timer = None
        due = self._due
        if due is None or self.game.is_over:
            return
        loop = asyncio.get_running_loop()
        if due - loop.time() > 1e-3:
            self._timer = loop.call_at(due, self._on_clock)
            return
        self.time_out()

    def time_out(self) -> None:
        """The seat to act ran out of time: ``TIMEOUT(seat)`` (docs/rules.md §9) and its default action."""
        seat = self.game.current_seat
        self.game.timeout()
        self._log(seat, "TIMEOUT")
        self._moved()
        self._event()

    def _bot_move(self, seq: int) -> None:
        """A bot seat's turn, ``bot_delay_s`` after the event ``seq`` opened it. An
        ``INLINE_BOTS`` bot acts now, on the loop (microseconds). Any other thinks on ``pool``
        about a copy of the game (``Game.clone``: the loop goes on changing the table's own),
        so that no table waits for it; its answer is applied on the loop if the decision is
        still the one it was asked (``_bot_key``), else dropped. Its thinking is bounded by the
        move clock: past it, the seat times out as a person's would (docs/rules.md §9, A8)."""
        g = self.game
        if seq != self.seq or g.is_over or self.frozen:
            return
        seat = g.current_seat
        if seat not in g.bot_seats:
            return
        assert seat is not None
        bot = self._bots.get(seat) or self.bot
        if self.pool is None or isinstance(bot, INLINE_BOTS):
            try:
                action = bot.act(g, seat)
            except Exception as e:  # noqa: BLE001 - a bot's fault must not stop the table
                self._bot_failed(seat, f"raised {type(e).__name__}: {str(e)[:200]}")
                action = _FALLBACK.act(g, seat)
            self._bot_acts(seat, action)
            return
        key = self._bot_key(seat)
        if self._thinking == key:  # asked already (an event since changed nothing it decides): on its way
            return
        self._stop_thinking()
        self._thinking = key
        loop = asyncio.get_running_loop()
        answer = loop.run_in_executor(self.pool, bot.act, g.clone(), seat)
        answer.add_done_callback(lambda f: self._bot_answered(key, f))
        self._bot_clock = loop.call_later(self.config.move_timeout_s or g.move_timeout_s, self._bot_late, key)

    def _bot_key(self, seat: Optional[int]) -> Tuple[int, int, int]:
        """What a bot's answer answers: the decision open (the event that opened it), the
        escapes so far (another seat's escape adds to the history without a new decision),
        the seat. An answer whose key is not the table's now is stale."""
        return (self.decision_seq, len(self.escaped), -1 if seat is None else seat)

    def _stop_thinking(self) -> None:
        """The decision a bot thinks about off the loop closed (or its seat is a person's
        again): its clock stops, and its answer will be dropped."""
        self._thinking = None
        if self._bot_clock is not None:
            self._bot_clock.cancel()
            self._bot_clock = None

    def _bot_answered(self, key: Tuple[int, int, int], answer: "asyncio.Future[Any]") -> None:
        """A bot's answer from ``pool``, on the loop: applied if it answers the decision open
        now, else dropped (stale); a bot that raised, or answers an illegal action, has its
        decision played by RuleBot."""
        if self._thinking == key:
            self._stop_thinking()
        if answer.cancelled():  # the pool was shut down (the server stops): its table is frozen
            return
        g = self.game
        seat = key[2]
        err = answer.exception()
        if (self.ended or self.frozen or g.is_over or seat not in g.bot_seats
                or self._bot_key(g.current_seat) != key):
            log.debug("table %s: a bot's answer to a decision closed since is dropped", self.id)
            self.bot_stale += 1
            self._bot_event("stale")
            return
        if err is not None:
            self._bot_failed(seat, f"raised {type(err).__name__}: {str(err)[:200]}")
            self._bot_acts(seat, _FALLBACK.act(g, seat))
            return
        self._bot_acts(seat, answer.result(), off_loop=True)

    def _bot_late(self, key: Tuple[int, int, int]) -> None:
        """The move clock ran out while the seat's bot was thinking: the seat times out."""
        self._bot_clock = None
        g = self.game
        if (self._thinking != key or self.ended or self.frozen or g.is_over or key[2] not in g.bot_seats
                or self._bot_key(g.current_seat) != key):
            return
        self._thinking = None
        self.bot_late += 1
        self._bot_event("late")
        log.warning("table %s: the bot of seat %d did not answer within the move clock (%g s): the seat times out",
                    self.id, key[2], self.config.move_timeout_s or g.move_timeout_s)
        self.time_out()

    def _bot_failed(self, seat: int, why: str) -> None:
        self.bot_failed += 1
        self._bot_event("failed")
        log.error("table %s: the bot of seat %d %s; RuleBot plays its decision", self.id, seat, why)

    def _bot_event(self, outcome: str) -> None:
        if self.on_bot is not None:
            self.on_bot(outcome)

    def _bot_acts(self, seat: int, action: Any, off_loop: bool = False) -> None:
        """The bot of ``seat`` plays ``action``; one that is not a legal action (a bot of the
        host's that answers wrong) is replaced by RuleBot's. ``off_loop``: the answer of a bot
        that thought on ``pool`` (counted ``"applied"`` when it is). The log keeps the token
        recorded (a bot may answer an action id; the log replays tokens)."""
        g = self.game
        try:
            token = g.apply(action, seat=seat)
        except Exception as e:  # noqa: BLE001 - apply checks first and changes nothing on an illegal action
            self._bot_failed(seat, f"answered {shown(action, 40)} ({type(e).__name__}: {str(e)[:200]})")
            token = g.apply(_FALLBACK.act(g, seat), seat=seat)
        else:
            if off_loop:
                self._bot_event("applied")
        self._log(seat, token)
        self._moved()
        self._event()

    def act(self, seat: int, action: str, seq: Optional[int] = None) -> Optional[Dict[str, Any]]:
        """A seat's action: None when applied, else the ``illegal`` reply (engine code and
        message). A seat a bot is playing cannot act (its player left for good). ``seq``: the
        event of the view the action answers; an action that answers a decision closed since
        (the clock's default, or a bot, answered it first) is refused with ``STALE`` instead of
        being judged against a decision its player never saw."""
        t0 = time.perf_counter()
        if seq is not None and seq > self.seq:
            raise ProtocolError("bad_field", f"act: seq {seq} is ahead of the table (its latest event is {self.seq})")
        if self.ended or self.game.is_over or self.frozen:
            return {"type": "illegal", "table": self.id, "code": "HAND_OVER", "message": "the hand is over",
                    "action": action}
        if seat in self.escaped:
            return {"type": "illegal", "table": self.id, "code": "ESCAPED",
                    "message": f"seat {seat} left the hand; a bot plays it", "action": action}
        if seq is not None and seq < self.decision_seq:
            return {"type": "illegal", "table": self.id, "code": "STALE",
                    "message": f"the action answers event {seq}, but the decision open now began at event "
                               f"{self.decision_seq}: decide again on the latest view", "action": action}
        try:  # apply checks the action whole and changes nothing when it is illegal (no check() first)
            self.game.apply(action, seat=seat)
        except IllegalAction as err:
            code = err.code.name if err.code is not None else "ILLEGAL"
            return {"type": "illegal", "table": self.id, "code": code, "message": str(err),
                    "action": action}
        if self.on_answered is not None:
            self._asked.append(t0)
        self._log(seat, action)
        self._moved()
        self._event()
        return None

    # ---- connections ----
    def attach(self, seat: int, sess: "Session", since: Optional[int] = None) -> None:
        """A connection takes its seat (first time or back within the grace period): it gets
        the seat's view (a delta from ``since`` if the table knows that event, else a
        snapshot), and the result if the hand is over. A hand that has ended is only shown."""
        self.rebase(sess, seat, since)
        if self.ended and self.result_msg is not None:
            sess.send(self.update_msg(sess, seat))
            assert self.result_msg is not None
            sess.send(self.result_msg)
            self.forget(sess, seat)
            return
        old = self.sessions[seat]
        if old is not None and old is not sess:
            old.seats.pop(self.id, None)
            self.forget(old, seat)
        self.sessions[seat] = sess
        sess.seats[self.id] = seat
        if seat in self.absent and not self.frozen:
            self.absent.discard(seat)
            self.hold.discard(seat)
            h = self._grace.pop(seat, None)
            if h is not None:
                h.cancel()
            if not self.game.is_over and seat not in self.escaped:
                self.game.clear_bot(seat)
                self._log(seat, "BACK")
                self._event()
                return
        if self._held:  # the push that follows the log's write brings its view
            return
        sess.send(self.update_msg(sess, seat))
        if self.result_msg is not None:
            sess.send(self.result_msg)

    def detach(self, seat: int, sess: "Session") -> None:
        """The seat's connection closed: a bot plays it for the grace period, then it is an
        escape (docs/rules.md §9, A9)."""
        if self.sessions[seat] is not sess:
            return
        self.sessions[seat] = None
        self.forget(sess, seat)
        if self.ended or self.frozen or self.game.is_over or seat in self.escaped or seat in self.robots:
            return
        if seat in self.hold:  # kept after a resume: its release comes as planned
            return
        self.go_absent(seat)
        self._log(seat, "AWAY")
        self._event()

    def go_absent(self, seat: int, escape: bool = True) -> None:
        """A bot plays the seat from now on; its player has ``grace_s`` to come back (without
        ``escape``: for as long as the hand lasts, the seat's absence being no fault of its player)."""
        self.absent.add(seat)
        self._bots[seat] = self.bot
        self.game.set_bot(seat, _Seated(self.bot))
        if escape:
            loop = asyncio.get_running_loop()
            self._grace[seat] = loop.call_later(self.config.grace_s, self.escape, seat)

    def escape(self, seat: int) -> None:
        """The seat leaves the hand for good: ``Game.escape`` (TWOP / BENGBU4 end with the
        escape settlement; CLASSIC3 a bot plays on, docs/rules.md §9)."""
        self._grace.pop(seat, None)
        if self.ended or self.frozen or self.game.is_over or seat in self.escaped:
            return
        self.escaped.add(seat)
        self.absent.discard(seat)
        self.hold.discard(seat)
        self.game.escape(seat)
        self._log(seat, "ESCAPE")
        self._event()

    # ---- the end ----
    async def _finish(self) -> None:
        g = self.game
        result = g.result
        assert result is not None
        await self.durable()  # the last event stored (and told) before the result
        if self.frozen:  # its server stops, or the hand went to another process: it resumes there
            return
        for h in self._grace.values():
            h.cancel()
        self._grace.clear()
        s = settle(result, self.room, self.coins_before)
        won = None
        if VARIANT[self.room.variant].matchmaking and result.kind == "normal":  # the tiers' win counts
            won = [x > 0 for x in result.scores]
        try:
            if self.store is not None:
                await self.store.finish_hand(self.id, ledger_of(self.room), g.to_json(), result.to_dict(),
                                             s.to_dict(), won)
        except Exception:  # the hand stays live and becomes void: no coin moved
            log.exception("table %s: storing the finished hand failed", self.id)
            self.result_msg = {"type": "void", "table": self.id, "message": "the hand could not be stored; it is void"}
        else:
            self.result_msg = {"type": "result", "table": self.id, "seq": self.seq, "result": result.to_dict(),
                               "settlement": s.to_dict(), "ledger": ledger_of(self.room),
                               "record": f"/records/{self.id}"}
        self.ended = True
        for sess in self.sessions:
            if sess is not None:
                sess.send(self.result_msg)
        for sess in list(self.spectators):
            sess.send(self.result_msg)
        if self.on_end is not None:
            self.on_end(self)
