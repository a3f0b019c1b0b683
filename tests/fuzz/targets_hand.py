"""Fuzz targets of the whole hand's edges (the third hostile-input round, docs/fuzzing.md): long
histories and re-deals, stakes and counts at the edges of their ranges, the game's own play state
poked between the game's actions, timeouts decided by hostile bots, and ``NeuralBot.act`` given
hostile arguments.

The contract checked (the conventions of tests/fuzz/targets.py): a call either succeeds and its
result is consistent (a counter equals what was counted, a record replays to the same game, a
score is exact), or raises a short ``ddz.DdzError`` and leaves the game exactly as it was. Any
other exception escaping a target is a finding; a crash or a sanitizer report stops the run."""
from __future__ import annotations

import math
import pickle
import random
from typing import Any, Callable, Dict, List, Optional

import numpy as np

import ddz

from .provider import Data
from .targets import Finding, guarded, rare, rejected

_MAX = 10**12  # the numeric ranges of docs/rules.md §11

# values at and across the edges of a count's or a stake's range, and of other types
_EDGES: List[Any] = [0, 1, 2, 3, 7, 8, 9, 2**15, 2**16, 2**16 + 1, 2**31 - 1, 2**31, 2**32 + 1, _MAX - 1, _MAX,
                     _MAX + 1, 2**53 + 1, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -1, -(2**63), 10**30,
                     np.int64(5), np.uint64(2**63), 0.5, 2.5, 1e12, 1e13, math.inf, math.nan, True, None, "3"]


def _same(a: ddz.Game, b: ddz.Game) -> bool:
    return a.history == b.history and a.result == b.result and a.phase == b.phase and a.redeals == b.redeals


def _replays(g: ddz.Game) -> None:
    again = ddz.Game.from_json(g.to_json())
    if not _same(again, g):
        raise Finding("the record does not replay to the same game")
    back = pickle.loads(pickle.dumps(g))
    if not _same(back, g):
        raise Finding("the pickle does not load to the same game")


def _redeal_token(g: ddz.Game) -> Optional[str]:
    """The decision that passes the deal on (toward a re-deal), when the seat to act has it."""
    for t in ("NO_CALL", "NORMAL_START", "SHOW_START"):
        if t in g.legal_actions():
            return t
    return None


def t_long_history(data: bytes) -> None:
    """Re-deals without number (max_redeals 0) or up to a limit at the range's edges, escapes again
    and again, timeouts: the counters equal what was counted, the deals never repeat, the record
    and the pickle replay, a clone stays independent, and dropping the game frees it."""
    d = Data(data)
    variant = d.choice(ddz.VARIANTS)
    limit = d.choice([0, 0, 0, 1, 2, 5, 2**16, 2**31, 2**32 + 1, _MAX, _MAX + 1, -1])
    rules = guarded(lambda: ddz.Rules(variant, max_redeals=limit))
    if rules is None:
        if 0 <= limit <= _MAX:
            raise Finding(f"max_redeals={limit} is in range but refused")
        return
    g = ddz.Game(rules, seed=d.int(0, 2**64 - 1))
    rng = random.Random(d.int(0, 2**32))
    redeals = 0
    wanted = d.choice([0, 1, 3, 20, 100, d.int(0, 400)])
    if rare(d, 300):  # rarely, past a 16-bit counter (about a second; most inputs take milliseconds)
        wanted = 65_537
    if variant == "classic" and rare(d, 300):  # rarely, a history of a million escapes
        for _ in range(1_000_000):
            g.escape(0)
    clone = None
    for step in range(5 * wanted + 4000):
        if g.is_over or redeals >= wanted:
            break
        before = g.redeals
        op = d.int(0, 15)
        if op == 15 and variant == "classic":
            g.escape(d.int(0, 2))  # CLASSIC3: a bot takes the seat, the hand goes on; again and again
            continue
        if op == 14:
            guarded(lambda: g.elapsed(g.move_timeout_s))
        else:
            token = _redeal_token(g)
            g.apply(token if token is not None else rng.choice(g.legal_actions()))
        if g.redeals not in (before, before + 1):
            raise Finding(f"one action moved the re-deal count from {before} to {g.redeals}")
        redeals += g.redeals - before
        if clone is None and step == 5:
            clone = g.clone()
    if g.redeals != redeals:
        raise Finding(f"{redeals} re-deals counted, the game says {g.redeals}")
    void = g.result is not None and g.result.kind == "void"
    if g.deal_number != redeals - (1 if void else 0):  # the index of the deal in play (a void hand: the last)
        raise Finding(f"deal_number {g.deal_number} after {redeals} re-deals")
    if limit and redeals >= limit and not (g.is_over and g.result.kind == "void"):
        raise Finding(f"{redeals} re-deals under max_redeals={limit}, and the hand is not void")
    if clone is not None and clone.redeals > g.redeals:
        raise Finding("a clone moved with its original")
    if len(g.history) < 5000 and rare(d, 4):  # a long record replays in time linear in it (tested apart)
        _replays(g)
    del g, clone  # a long history is freed here (by a loop, not a recursion)


def _stake(d: Data) -> Any:
    return d.choice(_EDGES) if d.chance(2) else d.int(1, _MAX)


def t_stakes(data: bytes) -> None:
    """Stakes and counts at the edges of their ranges, in Rules, Game, VectorEnv, records and
    pickles: in range, every path takes them and the score is exact; out of range, every path
    refuses them with a DdzError that names the range."""
    d = Data(data)
    variant = d.choice(ddz.VARIANTS)
    options: Dict[str, Any] = {}
    if variant == "classic" and d.bool():
        options["classic_rob_cap"] = _stake(d)
    if variant == "two_player" and d.bool():
        options["twop_initial_multiplier"] = _stake(d)
    if d.chance(3):
        options["max_redeals"] = d.choice([0, 1, 2, 2**31, _MAX, _MAX + 1])
    try:
        rules = ddz.Rules(variant, **options)
    except ddz.DdzError as e:
        if "10**12" not in str(e) and "1..4" not in str(e) and "must be" not in str(e):
            raise Finding(f"a refused option does not name its range: {e}") from None
        return
    env = guarded(lambda: ddz.VectorEnv(rules, 2, d.int(0, 9)))
    if env is None:
        raise Finding(f"VectorEnv refuses Rules that Rules accepts: {rules!r}")
    base, imult = (_stake(d), _stake(d)) if variant == "classic" else (1, 1)
    seed = d.int(0, 2**64 - 1)
    try:
        g = ddz.Game(rules, seed=seed, base=base, initial_multiplier=imult)
    except ddz.DdzError as e:
        ok = [isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and 1 <= v <= _MAX
              for v in (base, imult)]
        if all(ok):
            raise Finding(f"Game refuses stakes in range: base={base!r} initial_multiplier={imult!r}: {e}") from None
        return
    rng = random.Random(d.int(0, 2**32))
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
    res = g.result
    if res.kind == "normal" and variant == "classic":
        if res.unit != base * imult * res.multiplier:
            raise Finding(f"unit {res.unit} is not base x initial multiplier x {res.multiplier}")
        lf = rules.options["classic_landlord_loss_factor"]
        if lf == 2 and sum(res.scores) != 0:
            raise Finding(f"scores {res.scores} do not sum to zero")
    if res.kind == "normal" and variant == "two_player":
        want = rules.options["twop_initial_multiplier"] * res.multiplier
        if res.unit != want:
            raise Finding(f"TWOP unit {res.unit}, want {want}")
    if d.chance(3):
        _replays(g)


def _play_game(d: Data) -> Optional[ddz.Game]:
    rules = ddz.Rules(d.choice(ddz.VARIANTS))
    g = ddz.Game(rules, seed=d.int(0, 2**20))
    rng = random.Random(d.int(0, 2**32))
    while not g.is_over and g.phase != "PLAY":
        g.apply(rng.choice(g.legal_actions()))
    return None if g.is_over else g


def t_play_state_view(data: bytes) -> None:
    """The game's own play state (``Game.play_state``) poked between the game's actions: apply,
    undo and real-card plays on it are refused and change nothing; its copies change freely and
    never move the game; the record replays to the game."""
    d = Data(data)
    g = _play_game(d)
    if g is None:
        return
    rng = random.Random(d.int(0, 2**32))
    copies: List[ddz.PlayState] = []
    for _ in range(d.int(1, 80)):
        if g.is_over:
            break
        op = d.int(0, 9)
        ps = g.play_state
        if op <= 4 or ps is None:
            g.apply(rng.choice(g.legal_action_ids()))
            continue
        before = (g.to_json(), ps.legal_actions(), [ps.cards_left(s) for s in range(ps.num_players)])
        if op == 5:
            a = d.choice([d.choice(ps.legal_actions()), ps.rules.pass_id, -1, "PASS", "3", d.hostile()])
            if not rejected(lambda: ps.apply(a)):
                raise Finding(f"the game's play state took apply({a!r})")
        elif op == 6:
            if not rejected(ps.undo):
                raise Finding("the game's play state took undo()")
        elif op == 7:
            hands = g._hands  # the suited cards, a copy: playing them on the view must be refused
            a = d.choice([d.choice(g.legal_actions()), "PASS", d.hostile()])
            if not rejected(lambda: hands.play(ps, a)):
                raise Finding(f"PhysicalHands.play changed the game's play state with {a!r}")
        else:
            c = d.choice([ps.clone(), pickle.loads(pickle.dumps(ps)), __import__("copy").deepcopy(ps)])
            if c.readonly:
                raise Finding("a copy of the game's play state is read-only")
            if not c.is_over:
                c.apply(d.choice(c.legal_actions()))
                if d.bool():
                    c.undo()
            copies.append(c)
        after = (g.to_json(), ps.legal_actions(), [ps.cards_left(s) for s in range(ps.num_players)])
        if after != before:
            raise Finding("poking the game's play state changed the game")
    _replays(g)


class _HostileBot:
    """A bot whose answer is anything: a legal action, an illegal one, a value of any type, or an
    exception."""

    def __init__(self, d: Data) -> None:
        self.d = d

    def act(self, game: Any, seat: int) -> Any:
        d = self.d
        k = d.int(0, 9)
        if k <= 3:
            return d.choice(game.legal_actions())
        if k == 4:
            return d.choice(game.legal_action_ids())
        if k == 5:
            raise ddz.ArgumentError("the bot gave up")
        if k == 6:
            return d.choice(["PLAY 3", "PASS", "CALL", "BID3", "PLAY 33333", 10**9, -1, ddz.Rules.classic().pass_id])
        return d.hostile()


def t_timeout_bots(data: bytes) -> None:
    """Timeouts under ``timeout_policy="bot"`` decided by hostile bots (set per seat, or the
    default bot): ``timeout()`` and ``elapsed()`` are atomic (an illegal answer raises and records
    nothing, TIMEOUT included), and the record replays."""
    d = Data(data)
    rules = ddz.Rules(d.choice(ddz.VARIANTS), timeout_policy="bot", move_timeout_s=d.choice([1, 5, 30]))
    g = ddz.Game(rules, seed=d.int(0, 2**20))
    rng = random.Random(d.int(0, 2**32))
    for s in range(g.num_players):
        if d.bool():
            g.set_bot(s, _HostileBot(d))
    for _ in range(d.int(1, 60)):
        if g.is_over:
            break
        if d.chance(3):
            g.apply(rng.choice(g.legal_actions()))
            continue
        before = (g.to_json(), g.history)
        call: Callable[[], Any] = d.choice([g.timeout, lambda: g.elapsed(g.move_timeout_s + d.int(0, 3))])
        if rejected(call) and (g.to_json(), g.history) != before:
            raise Finding("a refused timeout changed the game")
    _replays(g)


_NEURAL: Dict[str, Any] = {}


def _neural(variant: str) -> Any:
    bot = _NEURAL.get(variant)
    if bot is None:
        from ddz.learn import NeuralBot
        bot = _NEURAL[variant] = NeuralBot.shipped(variant)
    return bot


def t_neural_act(data: bytes) -> None:
    """``NeuralBot.act`` and ``scores`` given hostile games and seats: a legal action for the seat
    to act, else a short DdzError (its TypeError twin for a wrong type), the game unchanged."""
    d = Data(data)
    variant = d.choice(ddz.VARIANTS)
    bot = _neural(variant)
    g = ddz.Game(ddz.Rules(variant), seed=d.int(0, 2**20))
    rng = random.Random(d.int(0, 2**32))
    for _ in range(d.int(0, 60)):
        if g.is_over:
            break
        g.apply(rng.choice(g.legal_actions()))
    seat: Any = d.choice([g.current_seat, 0, 1, 3, -1, 1.5, None, "0", True, np.int8(0), np.float64(0),
                          np.array([0]), 2**64, d.hostile()])
    game: Any = d.choice([g, g, g, None, "game", g.play_state, ddz.Rules(variant), d.hostile(),
                          ddz.Game(ddz.Rules.classic(), seed=1)])
    before = g.to_json()
    fn = d.choice([bot.act, bot.scores])
    try:
        out = fn(game, seat)
    except ddz.DdzError as e:
        if not isinstance(game, ddz.Game) and not isinstance(e, TypeError):
            raise Finding(f"a wrong type of game raised {type(e).__name__}, not the TypeError twin") from None
        not_a_seat = seat is None or isinstance(seat, (bool, np.bool_, float, np.floating, str, np.ndarray))
        if isinstance(game, ddz.Game) and not_a_seat and not isinstance(e, TypeError):
            raise Finding(f"seat {seat!r} raised {type(e).__name__}, not the TypeError twin") from None
        if g.to_json() != before:
            raise Finding("a refused act changed the game")
        return
    if game is g and fn == bot.act and out not in g.legal_actions() and out not in g.legal_action_ids():
        raise Finding(f"act answered {out!r}, not a legal action")
    if g.to_json() != before:
        raise Finding("act changed the game")


TARGETS: Dict[str, Callable[[bytes], None]] = {
    "long_history": t_long_history, "stakes": t_stakes, "play_state_view": t_play_state_view,
    "timeout_bots": t_timeout_bots, "neural_act": t_neural_act,
}


_SNAPSHOTS: Dict[Any, bytes] = {}


def _snapshot_of(variant_k: int, k: int) -> bytes:
    """The snapshot of a cached random hand of one variant stopped k steps in (escapes, timeouts)."""
    key = (variant_k, k)
    if key not in _SNAPSHOTS:
        rules = [ddz.Rules.classic(), ddz.Rules.two_player(), ddz.Rules.bengbu(),
                 ddz.Rules.classic(timeout_policy="bot", max_redeals=2), ddz.Rules.classic_douzero()][variant_k % 5]
        g = ddz.Game(rules, seed=900 + k, base=7 if rules.variant == "classic" else 1)
        rng = random.Random(k)
        stop = [0, 2, 6, 12, 25, 40, 10_000][k % 7]
        while not g.is_over and len(g.history) < stop:
            if rng.random() < 0.05:
                g.elapsed(g.move_timeout_s)
            elif rng.random() < 0.02:
                g.escape(rng.randrange(g.num_players))
            else:
                g.apply(rng.choice(g.legal_actions()))
        _SNAPSHOTS[key] = g.snapshot()
    return _SNAPSHOTS[key]


def t_snapshot(data: bytes) -> None:
    """Random and mutated snapshots (docs/records.md, "Snapshots"): ``Game.from_snapshot`` raises
    a short RecordError, or returns a game whose own snapshot loads to the same game."""
    d = Data(data)
    if rare(d, 8):
        blob = d.raw(d.int(0, 300))
    else:
        b = bytearray(_snapshot_of(d.int(0, 4), d.int(0, 20)))
        for _ in range(d.int(0, 4)):
            op = d.int(0, 5)
            if op == 0 and b:
                b[d.int(0, len(b) - 1)] ^= 1 << d.int(0, 7)
            elif op == 1 and b:
                b[d.int(0, len(b) - 1)] = d.byte()
            elif op == 2:
                del b[d.int(0, len(b)):]
            elif op == 3:
                b[d.int(0, len(b)):d.int(0, len(b))] = d.raw(d.int(1, 8))
            elif op == 4 and b:
                at = d.int(0, len(b) - 1)
                del b[at:at + d.int(1, 4)]
            else:
                b[d.int(0, len(b)):d.int(0, len(b))] = bytes([0xFF] * d.int(1, 10))
        blob = bytes(b)
    try:
        g = ddz.Game.from_snapshot(blob)
    except ddz.RecordError as e:
        if len(str(e)) > 1000:
            raise Finding(f"a message of {len(str(e))} characters") from None
        return
    again = ddz.Game.from_snapshot(g.snapshot())
    if not _same(again, g) or again.to_json() != g.to_json():
        raise Finding("a loaded snapshot's own snapshot loads to another game")


TARGETS["snapshot"] = t_snapshot
