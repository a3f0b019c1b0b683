"""Fuzz targets: one function per public entry point, each taking the fuzzer's bytes.

A target checks the input contract of ddz (docs/engine.md, "Errors"): the call either succeeds and
its result passes the target's consistency checks, or raises a ``ddz.DdzError`` whose
message is short, leaving the object it was called on exactly as it was. Any other
exception escaping a target is a finding (the drivers report it with the input)."""
from __future__ import annotations

import copy
import json
import math
import pickle
import random
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

import ddz
from ddz.core.cards import RANKS, card_rank, parse_card_names
from ddz.rooms import ROOMS, Room, settle
from ddz.variants import VARIANT

from .provider import Data, array

MAX_MESSAGE = 1000

_RULES: List[ddz.Rules] = [
    ddz.Rules.classic(), ddz.Rules.two_player(), ddz.Rules.bengbu(), ddz.Rules.classic_douzero(),
    ddz.Rules.classic_openspiel(),
    ddz.Rules.classic(single_kicker_rank_cap=4, kicker_may_share_main_rank=True, kicker_pairs_distinct=False,
                      rocket_as_kickers=True),
    ddz.Rules.bengbu(single_kicker_rank_cap=8, kicker_may_share_main_rank=True, bengbu_trio_chain_order="cycle"),
]
_DECK1 = [4] * 13 + [1, 1]
_DECK2 = [8] * 13 + [2, 2]


class Finding(AssertionError):
    """A broken contract that raised no exception (a wrong result, a changed state)."""


def guarded(fn: Callable[[], Any]) -> Any:
    """Runs fn; a DdzError is the allowed answer to bad input (returns None); its message must
    be short. Anything else propagates."""
    try:
        return fn()
    except ddz.DdzError as e:
        if len(str(e)) > MAX_MESSAGE:
            raise Finding(f"message of {len(str(e))} characters: {str(e)[:200]}...") from None
        return None


def rejected(fn: Callable[[], Any]) -> bool:
    """True when fn raised a DdzError (a short one), False when it succeeded."""
    try:
        fn()
        return False
    except ddz.DdzError as e:
        if len(str(e)) > MAX_MESSAGE:
            raise Finding(f"message of {len(str(e))} characters: {str(e)[:200]}...") from None
        return True


def rules_of(d: Data) -> ddz.Rules:
    return d.choice(_RULES)


def hand_text(d: Data, rules: ddz.Rules, max_len: int = 20) -> str:
    if d.chance(4):
        return d.text(max_len)
    return d.ranks_from(_DECK2 if rules.decks == 2 else _DECK1, max_len)


def some_arg(d: Data, rules: ddz.Rules) -> Any:
    """A hand-like argument: a str, a Cards (maybe of the wrong deck count) or anything."""
    k = d.int(0, 5)
    if k <= 2:
        return hand_text(d, rules)
    if k == 3:
        return guarded(lambda: ddz.Cards(hand_text(d, rules), decks=d.choice([1, 2]))) or ""
    if k == 4:
        return guarded(lambda: ddz.classify(hand_text(d, rules, 8), rules))  # a Move, or None
    return d.hostile()


# ---- targets --------------------------------------------------------------------------------

def t_cards(data: bytes) -> None:
    d = Data(data)
    text = d.text(60)
    decks = d.choice([1, 1, 2, 2, 0, 3, "1", 1.0, None, True, 2**70])
    c = guarded(lambda: ddz.Cards(text, decks))
    if c is None:
        return
    if ddz.Cards(str(c), c.decks) != c or len(c) > 54 * c.decks:
        raise Finding(f"Cards({text!r}) does not round-trip")
    if pickle.loads(pickle.dumps(c)) != c or copy.deepcopy(c) != c:
        raise Finding("Cards pickle / deepcopy differs")
    other = d.text(10) if d.bool() else d.hostile()
    guarded(lambda: other in c)
    guarded(lambda: c.count(d.choice(["3", "B", "x", "", "33", 3, None])))
    w = guarded(lambda: ddz.Cards.from_word(c.word, c.decks))
    if w != c:
        raise Finding("Cards.from_word(word) differs")
    guarded(lambda: ddz.Cards.from_word(d.choice([d.u64(), -1, 2**64, 1.5, "3"]), d.choice([1, 2, 3])))


def t_classify(data: bytes) -> None:
    d = Data(data)
    rules = rules_of(d)
    arg = some_arg(d, rules)
    m = guarded(lambda: ddz.classify(arg, rules if not d.chance(20) else d.hostile()))
    if m is None:
        return
    again = ddz.classify(str(m), rules)
    if again is None or again.kind != m.kind or again.key != m.key:
        raise Finding(f"classify({m}) is not stable")
    if ddz.decode(m.encoded, rules) != m:
        raise Finding(f"decode(classify({m}).encoded) differs")


def t_legal_moves(data: bytes) -> None:
    d = Data(data)
    rules = rules_of(d)
    hand = some_arg(d, rules)
    prev = None if d.chance(3) else some_arg(d, rules)
    a = guarded(lambda: ddz.legal_moves(hand, rules, prev))
    n = guarded(lambda: ddz.count_moves(hand, rules, prev))
    arr = guarded(lambda: ddz.legal_moves_array(hand, rules, prev))
    if (a is None) != (n is None) or (a is None) != (arr is None):
        raise Finding("legal_moves, count_moves and legal_moves_array disagree on accepting the input")
    if a is None:
        return
    if len(a) != n or len(arr) != n or [m.encoded for m in a] != [int(x) for x in arr]:
        raise Finding(f"legal_moves ({len(a)}), count_moves ({n}), legal_moves_array ({len(arr)}) disagree")
    if len({m.encoded & ((1 << 56) - 1) for m in a}) != len(a):
        raise Finding("a play listed twice")
    held = hand if isinstance(hand, ddz.Cards) else ddz.Cards(hand, rules.decks)
    for m in a[:50]:
        if str(m) not in held:
            raise Finding(f"{m} is not in the hand {held}")
        if prev is not None and not m.beats(prev):
            raise Finding(f"{m} does not beat {prev}")


def t_hand_words(data: bytes) -> None:
    d = Data(data)
    rules = rules_of(d)
    items = [some_arg(d, rules) for _ in range(d.int(0, 6))]
    hands: Any = items if not d.chance(8) else d.hostile()
    w = guarded(lambda: ddz.hand_words(hands, rules))
    if w is not None and (w.dtype != np.uint64 or len(w) != len(list(hands))):
        raise Finding("hand_words returned the wrong shape or dtype")


def t_batch(data: bytes) -> None:
    d = Data(data)
    rules = rules_of(d)
    n = d.int(0, 8)
    texts = [hand_text(d, rules) for _ in range(n)]
    words = [int(x) for x in ddz.hand_words([t for t in texts if guarded(lambda t=t: ddz.Cards(t, rules.decks))
                                             is not None], rules)]
    words += [d.u64() if d.chance(3) else d.int(0, 64) for _ in range(d.int(0, 2))]
    hands = array(d, words) if d.int(0, 3) else (texts if d.bool() else d.hostile())
    prevs: Any = None
    k = d.int(0, 4)
    if k == 1:
        plays = [guarded(lambda: ddz.classify(hand_text(d, rules, 6), rules)) for _ in range(len(words))]
        prevs = array(d, [m.encoded if m is not None else (d.u64() if d.chance(4) else 0) for m in plays])
    elif k == 2:
        prevs = [None if d.bool() else hand_text(d, rules, 6) for _ in range(len(words))]
    elif k == 3:
        prevs = d.hostile()
    out = None
    if d.chance(3):
        out = np.zeros(d.int(0, 3000), dtype=d.choice(["u8", "u8", "i8", "f8"]))
        if d.chance(4):
            out = out[::2]
        if d.chance(6):
            out.setflags(write=False)
    count_only = d.choice([False, False, True, 1, None])
    res = guarded(lambda: ddz.legal_moves_batch(hands, rules, prevs, count_only, out))
    if res is None:
        return
    offsets, moves = res
    if offsets[0] != 0 or (np.diff(offsets) < 0).any():
        raise Finding("offsets are not monotone from 0")
    if count_only is True:
        if len(moves) != len(offsets) - 1:
            raise Finding("counts have the wrong length")
    elif len(moves) != offsets[-1]:
        raise Finding("moves do not match the offsets")


def t_decode(data: bytes) -> None:
    d = Data(data)
    rules = rules_of(d)
    e = d.choice([d.u64(), d.int(0, 1 << 60), (d.int(0, 25) << 56) | d.int(0, (1 << 56) - 1), d.hostile()])
    m = guarded(lambda: ddz.decode(e, rules))
    if m is not None and not m.is_pass:
        if ddz.decode(m.encoded, rules) != m:
            raise Finding("decode is not stable")
    i = d.choice([d.int(-5, rules.pass_id + 5), d.u64(), d.hostile()])
    mv = guarded(lambda: rules.move_from_id(i))
    if mv is not None and (mv.id != i):
        raise Finding(f"move_from_id({i}).id == {mv.id}")


def _state_key(ps: ddz.PlayState) -> Any:
    return (repr(ps), [str(h) for h in ps.hands], ps.num_actions, ps.top and (str(ps.top[0]), ps.top[1]),
            [str(m) for _, m in ps.history], ps.passes, ps.bomb_limits)


def t_playstate(data: bytes) -> None:
    d = Data(data)
    rules = rules_of(d)
    n = VARIANT[rules.variant].players
    if d.chance(4):
        hands: Any = [some_arg(d, rules) for _ in range(d.int(0, 5))]
    else:
        deck = [r for r in range(15) for _ in range((_DECK2 if rules.decks == 2 else _DECK1)[r])]
        random.Random(d.int(0, 2**32)).shuffle(deck)
        size = d.int(1, len(deck) // n)
        hands = ["".join(RANKS[r] for r in deck[i * size:(i + 1) * size]) for i in range(n)]
    landlord = d.choice([0, 1, 2, 3, -1, 4, "0", None, 2**70])
    limits = None if d.int(0, 2) else [d.choice([None, 0, 1, 2, 254, 255, -1, 1.5, "1"]) for _ in range(d.int(3, 5))]
    ps = guarded(lambda: ddz.PlayState(hands, landlord, rules, bomb_limits=limits))
    if ps is None:
        return
    for _ in range(d.int(0, 60)):
        if ps.is_over and d.chance(2):
            break
        op = d.int(0, 9)
        before = _state_key(ps)
        if op <= 5:
            legal = ps.legal_actions()
            a: Any = d.choice(legal) if legal and op <= 4 else d.choice(
                [d.int(-3, rules.pass_id + 3), d.text(8), "PASS", d.hostile(),
                 guarded(lambda: ddz.classify(d.text(5), rules))])
            if rejected(lambda: ps.apply(a)) and _state_key(ps) != before:
                raise Finding(f"a rejected action {a!r} changed the state")
        elif op <= 7:
            if rejected(ps.undo) and _state_key(ps) != before:
                raise Finding("a rejected undo changed the state")
        else:
            c = ps.clone()
            if c != ps:
                raise Finding("clone differs")
            ps = c
    guarded(lambda: ps.hand(d.hostile()))


def _hostile_action(d: Data, g: ddz.Game) -> Any:
    return d.choice([d.text(12), "PLAY " + d.text(8), d.hostile(), d.int(-2, 30000), ["3s", "3s"], ["Zz"],
                     [d.int(0, 120) for _ in range(d.int(0, 4))], "PLAY 3s 3h", "CALLX", " pass "])


def t_game_apply(data: bytes) -> None:
    d = Data(data)
    rules = rules_of(d) if d.chance(2) else ddz.Rules(d.choice(ddz.VARIANTS))
    g = guarded(lambda: ddz.Game(rules, d.choice([d.int(0, 2**20), d.u64(), -1, 10**30, "1"])))
    if g is None:
        return
    rng = random.Random(d.int(0, 2**32))
    for _ in range(d.int(0, 120)):
        if g.is_over:
            break
        op = d.int(0, 15)
        if op <= 10:
            g.apply(rng.choice(g.legal_actions()))
            continue
        before = g.to_json()
        if op <= 12:
            a = _hostile_action(d, g)
            if rejected(lambda: g.apply(a)) and g.to_json() != before:
                raise Finding(f"a rejected action {a!r} changed the game")
        elif op == 13:
            s = d.choice([0.5, 31.0, -1, math_nan(), "1", None])
            guarded(lambda: g.elapsed(s))
        elif op == 14:
            seat = d.choice([0, 1, 2, 3, -1, "0", None])
            guarded(lambda: g.observation(seat))
            if g.to_json() != before:
                raise Finding("observation changed the game")
        else:
            seat = d.choice([0, 1, 2, 3, 9, None])
            guarded(lambda: g.escape(seat))
    again = ddz.Game.from_json(g.to_json())
    if again.history != g.history or again.result != g.result:
        raise Finding("the record of a fuzzed game does not replay to the same game")


def _game_view(g: ddz.Game) -> Any:
    """Everything a game shows: its record, history, phase, the seat to act and its actions,
    every seat's observation and the result."""
    return (g.to_json(), g.history, g.phase, g.current_seat, g.legal_actions(), g.legal_action_ids(),
            [g.observation(s) for s in [None] + list(range(g.num_players))], g.result)


def _evolve(d: Data, g: ddz.Game, rng: random.Random, steps: int) -> None:
    """Random legal actions, with now and then a hostile action (which must change nothing),
    a timeout or an escape."""
    for _ in range(steps):
        if g.is_over:
            return
        op = d.int(0, 19)
        if op <= 15:
            g.apply(rng.choice(g.legal_action_ids() if op & 1 else g.legal_actions()))
        elif op <= 17:
            before = g.to_json()
            a = _hostile_action(d, g)
            if rejected(lambda: g.apply(a)) and g.to_json() != before:
                raise Finding(f"a rejected action {a!r} changed the game")
        elif op == 18:
            guarded(lambda: g.elapsed(g.move_timeout_s + 1))
        else:
            guarded(lambda: g.escape(d.int(0, g.num_players - 1)))


def t_game_clone(data: bytes) -> None:
    """Game.clone() at random points: the clone equals the game, and the two evolve
    independently (neither changes the other; each replays from its record)."""
    d = Data(data)
    rules = rules_of(d) if d.chance(2) else ddz.Rules(d.choice(ddz.VARIANTS))
    g = ddz.Game(rules, d.int(0, 2**32))
    rng = random.Random(d.int(0, 2**32))
    for _ in range(d.int(1, 4)):
        _evolve(d, g, rng, d.int(0, 60))
        c = d.choice([g.clone, lambda: copy.deepcopy(g), lambda: copy.copy(g)])()
        if type(c) is not type(g) or _game_view(c) != _game_view(g):
            raise Finding("a clone differs from its game")
        before = _game_view(g)
        _evolve(d, c, random.Random(d.int(0, 2**32)), d.int(1, 80))
        if _game_view(g) != before:
            raise Finding("evolving a clone changed its game")
        snapshot = _game_view(c)
        _evolve(d, g, rng, d.int(1, 80))
        if _game_view(c) != snapshot:
            raise Finding("evolving a game changed its clone")
        for x in (g, c):
            again = ddz.Game.from_json(x.to_json())
            if again.history != x.history or again.result != x.result or again.phase != x.phase:
                raise Finding("the record of a cloned game does not replay to the same game")


def math_nan() -> float:
    return float("nan")


_RECORDS: Dict[int, str] = {}


def _record(k: int) -> str:
    """A small set of real records: every variant, mid-hand and finished, with escapes and
    timeouts."""
    if k not in _RECORDS:
        variant = ddz.VARIANTS[k % 3]
        g = ddz.Game(ddz.Rules(variant), k)
        rng = random.Random(k)
        stop = [2, 6, 15, 40, 10_000][k // 3 % 5]
        while not g.is_over and len(g.history) < stop:
            x = rng.random()
            if x < 0.03:
                g.timeout()
            elif x < 0.04 and len(g.history) > 3:
                g.escape(rng.randrange(g.num_players))
            else:
                g.apply(rng.choice(g.legal_actions()))
        _RECORDS[k] = g.to_json()
    return _RECORDS[k]


def _mutate_json(d: Data, obj: Any, depth: int = 0) -> Any:
    """Replaces, deletes or duplicates one node somewhere in a parsed record."""
    if isinstance(obj, dict) and obj and depth < 6 and not d.chance(4):
        key = d.choice(sorted(obj, key=str))
        if d.chance(6):
            del obj[key]
        else:
            obj[key] = _mutate_json(d, obj[key], depth + 1)
        return obj
    if isinstance(obj, list) and obj and depth < 6 and not d.chance(4):
        i = d.int(0, len(obj) - 1)
        k = d.int(0, 5)
        if k == 0:
            del obj[i]
        elif k == 1:
            obj.insert(d.int(0, len(obj)), copy.deepcopy(obj[d.int(0, len(obj) - 1)]))
        elif k == 2:
            j = d.int(0, len(obj) - 1)
            obj[i], obj[j] = obj[j], obj[i]
        else:
            obj[i] = _mutate_json(d, obj[i], depth + 1)
        return obj
    if isinstance(obj, int) and not isinstance(obj, bool) and d.bool():
        return obj + d.int(-3, 3)
    if isinstance(obj, str) and d.bool():
        return d.choice(["PASS", "CALL", "ROB", "3s", "B", "R'", "", obj + "x", obj.upper(), "ESCAPE", "TIMEOUT"])
    return d.choice([None, True, 0, 1, -1, 7, 1.5, "", "0", [], {}, [[]], 10**20])


def t_from_json(data: bytes) -> None:
    d = Data(data)
    text = _record(d.int(0, 14))
    if d.chance(5):
        b = bytearray(text.encode())
        for _ in range(d.int(1, 4)):
            if b:
                b[d.int(0, len(b) - 1)] = d.byte()
        text = b.decode("utf-8", errors="replace")
    else:
        obj = json.loads(text)
        for _ in range(d.int(1, 3)):
            obj = _mutate_json(d, obj)
        text = json.dumps(obj)
    g = guarded(lambda: ddz.Game.from_json(text))
    if g is not None:
        again = ddz.Game.from_json(g.to_json())
        if again.history != g.history or again.result != g.result:
            raise Finding("an accepted record does not replay to the same game")


def _finished(k: int) -> Any:
    variant = ddz.VARIANTS[k % 3]
    g = ddz.Game(ddz.Rules(variant), 1000 + k)
    rng = random.Random(k)
    while not g.is_over:
        if rng.random() < 0.02:
            g.escape(rng.randrange(g.num_players))
            if g.is_over:
                break
            continue
        g.apply(rng.choice(g.legal_actions()))
    return g.result


_RESULTS: Dict[int, Any] = {}


def t_settle(data: bytes) -> None:
    d = Data(data)
    k = d.int(0, 11)
    if k not in _RESULTS:
        _RESULTS[k] = _finished(k)
    result = _RESULTS[k]
    if d.chance(3):
        fields = dict(result.to_dict())
        key = d.choice(sorted(fields))
        fields[key] = d.choice([d.hostile(), [d.int(-10**6, 10**6) for _ in range(d.int(0, 5))], None, "landlord"])
        result = guarded(lambda: type(result)(**fields)) or result
    room = d.choice(sorted(set(ROOMS)))
    n = len(result.scores) if isinstance(result.scores, list) else 3
    coins = [d.choice([0, 1, 10, 1000, 10**6, 10**12, -1, 1.5, None]) for _ in range(d.int(n - 1, n + 1))]
    s = guarded(lambda: settle(result, ROOMS[room], coins))
    if s is None:
        return
    if sum(s.changes) + sum(s.rake) != s.house:
        raise Finding(f"coins created or lost: changes {s.changes}, rake {s.rake}, house {s.house}")
    if any(a != b + c for a, b, c in zip(s.coins_after, s.coins_before, s.changes)):
        raise Finding("coins_after != coins_before + changes")


def t_room(data: bytes) -> None:
    d = Data(data)
    fields: Dict[str, Any] = {"name": d.choice(["r", "", None, 3]), "variant": d.choice(list(ddz.VARIANTS) + ["x", 1])}
    for key in ("base", "initial_multiplier", "rake_percent", "cap", "kind", "coefficient", "win_factor",
                "max_win_factor", "point_value"):
        if d.chance(3):
            fields[key] = d.choice([d.hostile(), d.int(-2, 200), "score", "coin", 0.9, 1])
    room = guarded(lambda: Room(**fields))
    if room is not None and room.variant not in ddz.VARIANTS:
        raise Finding("a Room of an unknown variant was accepted")


TARGETS: Dict[str, Callable[[bytes], None]] = {
    "cards": t_cards, "classify": t_classify, "legal_moves": t_legal_moves, "hand_words": t_hand_words,
    "batch": t_batch, "decode": t_decode, "playstate": t_playstate, "game_apply": t_game_apply,
    "from_json": t_from_json, "settle": t_settle, "room": t_room, "game_clone": t_game_clone,
}


# ---- the search, sampling and learning surfaces -----------------------------------------------
# Each input gets a small budget (a node limit, a tiny time per move, one-deal evaluations), so
# a target runs thousands of inputs a minute.

def rare(d: Data, k: int) -> bool:
    """True with probability about 1/k while bytes remain; False once they run out (so a short
    input takes the common, valid path rather than every hostile branch)."""
    return d.left() > 0 and d.chance(k)


_GAMES: Dict[Tuple[int, int], Any] = {}


def _game_at(variant_k: int, k: int) -> Any:
    """A game of one variant stopped k steps into play (every phase: auction, play, over)."""
    key = (variant_k, k)
    if key not in _GAMES:
        variant = ddz.VARIANTS[variant_k % 3]
        g = ddz.Game(ddz.Rules(variant), 500 + k)
        rng = random.Random(k)
        stop = [1, 3, 6, 10, 16, 25, 40, 10_000][k % 8]
        while not g.is_over and len(g.history) < stop:
            g.apply(rng.choice(g.legal_actions()))
        _GAMES[key] = g
    return _GAMES[key]


def _play_game(d: Data, fresh: bool = True) -> Any:
    """A cached game in its play phase (None when the cached one never got there): a copy when
    `fresh`, else the cached game itself (for calls that must not change it, which the caller
    checks)."""
    g = _game_at(d.int(0, 2), d.int(0, 23))
    if g.phase != "PLAY":
        return None
    return ddz.Game.from_json(g.to_json()) if fresh else g


def _deck_counts(decks: int) -> List[int]:
    return _DECK2 if decks == 2 else _DECK1


def _word_counts(w: int) -> List[int]:
    return [(w >> (4 * r)) & 15 for r in range(15)]


_SOLVE_RULES = [ddz.Rules.classic(), ddz.Rules.two_player(), ddz.Rules.bengbu(), _RULES[5]]


def _small_position(d: Data, rules: ddz.Rules) -> List[str]:
    n = d.int(2, 4)
    deck = [r for r in range(15) for _ in range(_deck_counts(rules.decks)[r])]
    random.Random(d.int(0, 2**32)).shuffle(deck)
    sizes = [d.int(1, 6) for _ in range(n)]
    out, at = [], 0
    for s in sizes:
        out.append("".join(RANKS[r] for r in sorted(deck[at:at + s])))
        at += s
    return out


def t_solve(data: bytes) -> None:
    d = Data(data)
    rules = d.choice(_SOLVE_RULES)
    ps = None
    if rare(d, 4):
        g = _play_game(d, fresh=False)
        if g is None or g.is_over:
            return
        ps = g.play_state
        hands: Any = ps
        n = ps.num_players
    else:
        hands = _small_position(d, rules)
        if rare(d, 8):
            hands = d.choice([hands[:1], hands + ["3"] * 3, [d.hostile()] + hands[1:], d.hostile(),
                              [some_arg(d, rules) for _ in hands]])
        n = len(hands) if isinstance(hands, list) else 3
    kw: Dict[str, Any] = {}
    if ps is None:
        if rare(d, 3):
            kw["to_move"] = d.choice([d.int(0, n - 1), d.int(0, n - 1), -1, n, True, np.int64(1), "0", None])
        if rare(d, 3):
            kw["prev"] = d.choice([hand_text(d, rules, 4), some_arg(d, rules), None])
        if rare(d, 4):
            kw["sides"] = d.choice([[d.int(0, 1) for _ in range(n)], [0] + [1] * (n - 1), d.hostile(),
                                    [np.int8(0)] + [1] * (n - 1), [0, 2][:n]])
        if rare(d, 4):
            kw["bomb_limits"] = [d.choice([None, 0, 1, 254, 255, -1, "1", np.uint8(2)]) for _ in range(d.int(n - 1, n))]
    elif rare(d, 4):
        kw["sides"] = [d.int(0, 1) for _ in range(n)]
    kw["all_moves"] = d.choice([False, True, True, 1, None]) if rare(d, 8) else d.bool()
    kw["node_limit"] = d.choice([d.int(1, 3000), d.int(1, 3000), d.int(1, 3000), 0, -1, 2**64, 2**64 - 1, 1.5,
                                 np.int64(500), None]) if rare(d, 6) else d.int(1, 3000)
    if kw["node_limit"] in (None, 2**64 - 1):  # keep every input cheap: a tiny position or a time limit
        kw["time_limit"] = 0.002
    if rare(d, 6):
        kw["time_limit"] = d.choice([0.002, math.inf, 1e300, 2**70, math.nan, -1.0, 0, "1", np.float64(0.001)])
    if kw.get("node_limit") in (None, 2**64 - 1) and kw.get("time_limit") not in (0.002,):
        kw["node_limit"] = 3000  # an infinite or huge time limit with no node limit is an exact search
    if rare(d, 8):
        kw["table_mb"] = d.choice([1, 0.001, 4096.5, 2**43 * 1.5, -1, math.nan, math.inf, 0, "16", True,
                                   np.float32(1)])
    else:
        kw["table_mb"] = 1
    if ps is not None and rare(d, 8):
        kw["rules"] = rules
    before = _state_key(ps) if ps is not None else list(hands) if isinstance(hands, list) else None
    try:
        s = (ddz.solve(hands, **kw) if ps is not None else
             ddz.solve(hands, kw.pop("rules", rules) if not rare(d, 30) else d.hostile(), **kw))
    except ddz.DdzError as e:
        if len(str(e)) > MAX_MESSAGE:
            raise Finding(f"message of {len(str(e))} characters") from None
        s = None
    after = _state_key(ps) if ps is not None else hands if isinstance(hands, list) else None
    if after != before:
        raise Finding("solve changed its input")
    if s is None:
        return
    if s.complete != (s.win is not None) or s.nodes < 1:
        raise Finding(f"an inconsistent Solution: {s!r}")
    if not s.complete:
        return
    if s.win != bool(s.moves):
        raise Finding(f"win={s.win} but moves={s.moves}")
    if s.win and s.pv and s.pv[0][1] not in s.moves:
        raise Finding("the principal variation does not start with a winning move")
    # A re-run under a tiny node limit either stops or agrees; an exact re-run agrees.
    tiny = dict(kw, node_limit=d.int(1, 64), time_limit=None)
    again = ddz.solve(hands, **tiny) if ps is not None else ddz.solve(hands, rules, **tiny)
    if again.complete and again.win != s.win:
        raise Finding(f"a re-run with node_limit={tiny['node_limit']} says win={again.win}, the first {s.win}")


_OBS: Dict[Tuple[int, int, int], Dict[str, Any]] = {}


def _observation(d: Data) -> Tuple[Dict[str, Any], Any]:
    vk, k = d.int(0, 2), d.int(0, 23)
    g = _game_at(vk, k)
    seat = d.int(0, g.num_players - 1)
    key = (vk, k, seat)
    if key not in _OBS:
        _OBS[key] = g.observation(seat)
    return copy.deepcopy(_OBS[key]), g


def _check_deals(rows: Any, obs: Dict[str, Any], n: int, decks: int) -> None:
    seats = len(obs["cards_left"])
    if not isinstance(rows, np.ndarray) or rows.dtype != np.uint64 or rows.shape != (n, seats):
        raise Finding(f"sample_deals returned {type(rows).__name__} {getattr(rows, 'shape', '')}")
    deck = _deck_counts(decks)

    def word(cards: Any) -> int:  # card names or ids, as the sampler reads them
        return sum(1 << (4 * card_rank(c)) for c in parse_card_names(list(cards), decks))

    own = word(obs["cards"])
    played = [0] * 15
    for s, t in obs["history"]:
        if s is None:
            played = [0] * 15
        elif t.startswith("PLAY "):
            played = [a + b for a, b in zip(played, _word_counts(word(t[5:].split())))]
    seat = int(obs["seat"])
    for row in rows:
        if int(row[seat]) != own:
            raise Finding("a sampled deal changes the observing seat's hand")
        for s, cards in obs["shown"].items():
            k = int(s)
            if k != seat and int(row[k]) != word(cards):
                raise Finding("a sampled deal changes a shown hand")
        total = list(played)
        for s in range(seats):
            c = _word_counts(int(row[s]))
            if sum(c) != int(obs["cards_left"][s]):
                raise Finding(f"seat {s} was dealt {sum(c)} cards, cards_left says {obs['cards_left'][s]}")
            total = [a + b for a, b in zip(total, c)]
        if any(t > m for t, m in zip(total, deck)):
            raise Finding(f"a sampled deal holds more copies of a rank than the deck: {total}")


def _snapshot(x: Any) -> Any:
    """The content of nested dicts and lists (other values by identity): equal iff nothing in
    them was replaced, added or removed (repr would fail on an int past the digit limit)."""
    if isinstance(x, dict):
        return ("d", [(_snapshot(k), _snapshot(v)) for k, v in x.items()])
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_snapshot(v) for v in x])
    return ("v", x) if isinstance(x, (int, str, bytes, float)) else ("o", id(x))


def t_sample_deals(data: bytes) -> None:
    d = Data(data)
    obs, g = _observation(d)
    real = not rare(d, 3)
    if not real:
        for _ in range(d.int(1, 3)):
            obs = _mutate_json(d, obs)
    n: Any = d.int(0, 6) if not rare(d, 10) else d.choice([-1, 2**64, 1_000_001, 1.5, True, np.int64(2), "1"])
    seed: Any = d.u64() if not rare(d, 10) else d.choice([-1, 2**64, np.uint64(5), None, 1.0])
    if rare(d, 20):
        obs, real = d.hostile(), False
    before = _snapshot(obs)
    rows = guarded(lambda: ddz.sample_deals(obs, n, seed))
    if _snapshot(obs) != before:
        raise Finding("sample_deals changed the observation")
    if rows is None:
        if real and obs.get("phase") != "PRE_DEAL" and type(n) is int and 0 <= n <= 6 and type(seed) is int \
                and 0 <= seed < 2**64:
            raise Finding(f"a real observation was refused: {obs}")
        return
    _check_deals(rows, obs, int(n), 2 if len(obs["cards_left"]) == 4 else 1)
    if not (ddz.sample_deals(obs, n, seed) == rows).all():
        raise Finding("sample_deals is not reproducible")


_VE_RULES = [ddz.Rules.classic(), ddz.Rules.two_player(), ddz.Rules.bengbu(), ddz.Rules.classic_douzero()]


def _kitty_of(d: Data, hand: ddz.Cards, size: int, decks: int) -> int:
    """A kitty of `size` cards drawn from the landlord's hand (so it is consistent)."""
    counts = _word_counts(hand.word)
    text = d.ranks_from(counts, size)
    return ddz.Cards(text, decks).word if len(text) == size else 0


def _deal_arrays(d: Data, rules: ddz.Rules, games: int) -> Dict[str, Any]:
    n = rules.players
    size = VARIANT[rules.variant].kitty
    deals, landlords, kitty = [], [], []
    for _ in range(games):
        hands, landlord = ddz.deal(rules, d.int(0, 2**20), 0)
        deals.append([h.word for h in hands])
        landlords.append(landlord)
        kitty.append(_kitty_of(d, hands[landlord], size, rules.decks) if d.bool() else 0)
    out: Dict[str, Any] = {}
    words = [w for row in deals for w in row]
    if rare(d, 6):
        words[d.int(0, len(words) - 1)] = d.choice([0, d.u64(), ddz.Cards("3333").word, 1])
    out["deals"] = array(d, words) if rare(d, 8) else np.array(words, dtype=np.uint64).reshape(-1, n)
    out["landlords"] = np.array(landlords) if not rare(d, 8) else array(d, [d.int(0, 5) for _ in landlords])
    if rare(d, 2):
        if rare(d, 6):
            kitty[d.int(0, len(kitty) - 1)] = d.choice([ddz.Cards("333").word, d.u64(), 7])
        out["kitty"] = np.array(kitty, dtype=np.uint64) if not rare(d, 8) else array(d, kitty)
    if rules.variant == "bengbu" and rare(d, 3):
        out["bomb_limits"] = np.array([[d.choice([0, 1, 2, 255, 254]) for _ in range(n)] for _ in landlords])
    if rare(d, 10):
        out[d.choice(["deals", "landlords", "kitty", "bomb_limits"])] = d.hostile()
    return out


def _check_step(st: Any, env: Any, n_envs: int, rules: ddz.Rules) -> None:
    seats = rules.players
    whole = env.auction  # whole hands: decisions among the ids, a role of -1 before the landlord, the variant's scores
    if st.obs.shape != (n_envs, env.layout["auction"].stop if "auction" in env.layout else st.obs.shape[1]) \
            or st.obs.dtype != np.int8:
        raise Finding(f"obs has shape {st.obs.shape}")
    off = st.legal_offsets
    if off.shape != (n_envs + 1,) or off[0] != 0 or (np.diff(off) < 1).any() or off[-1] != len(st.legal_ids):
        raise Finding(f"legal_offsets {off} do not index legal_ids ({len(st.legal_ids)})")
    if len(st.legal_ids) and (st.legal_ids.min() < 0 or st.legal_ids.max() >= env.num_actions):
        raise Finding("a legal id out of range")
    if st.reward.shape != (n_envs, seats) or not np.isfinite(st.reward).all():
        raise Finding(f"rewards out of range: {st.reward}")
    if not whole and (np.abs(st.reward.sum(axis=1)) > 1e-3).any():
        raise Finding(f"play-phase rewards not zero-sum: {st.reward}")
    if (st.reward[~st.done] != 0).any():
        raise Finding("a reward on a table that did not finish")
    if st.seat.min() < 0 or st.seat.max() >= seats or not set(np.unique(st.role)) <= ({-1, 0, 1} if whole else {0, 1}):
        raise Finding(f"seat {st.seat} / role {st.role} out of range")
    t = st.terminal
    if sorted(t.tables.tolist()) != np.flatnonzero(st.done).tolist() or t.obs.shape[1:] != (seats, st.obs.shape[1]):
        raise Finding("the terminal information does not list the finished tables")
    if len(t.tables) and not np.array_equal(t.scores, st.reward[t.tables]):
        raise Finding("the terminal scores differ from the rewards")
    if (st.deal_ends < 0).any() or (not whole and st.deal_ends.any()) or (st.deal_scores[st.deal_ends == 0] != 0).any():
        raise Finding("hands ended at the deal where none can")
    if st.mask is not None:
        counts = st.mask.sum(axis=1)
        if (counts != np.diff(off)).any():
            raise Finding("the mask disagrees with the legal ids")


def t_vector_env(data: bytes) -> None:
    d = Data(data)
    rules = d.choice(_VE_RULES)
    n_envs: Any = d.int(1, 4) if not rare(d, 12) else d.choice([0, -1, 2**40, 1.5, np.int32(2), "2", None])
    kw: Dict[str, Any] = {}
    if rare(d, 3):
        kw.update(_deal_arrays(d, rules, d.int(1, 3)))
    threads: Any = d.choice([1, 1, 1, 2]) if not rare(d, 12) else d.choice([0, -1, 10**6, 1.5, None])
    seed: Any = d.u64() if not rare(d, 12) else d.choice([-1, 2**64, "1", None])
    # whole hands (the default) or the play phase alone; deals need auction=False
    kw["auction"] = (not kw and d.choice([True, False])) if not rare(d, 12) else d.choice([1, None, "yes", True])
    env = guarded(lambda: ddz.VectorEnv(rules, n_envs, seed, threads=threads, **kw))
    if env is None:
        return
    n = env.num_envs
    st = env.reset(mask=rare(d, 4))
    _check_step(st, env, n, rules)
    for _ in range(d.int(0, 10)):
        off, ids = [int(x) for x in st.legal_offsets], st.legal_ids
        legal = [ids[off[i] + d.int(0, off[i + 1] - off[i] - 1)] for i in range(n)]
        if rare(d, 6):
            before = env.games().copy()
            bad: Any = d.choice([
                np.array([d.int(-2, env.num_actions + 1) for _ in range(n)]), legal[:-1] or [0, 0],
                [float(x) for x in legal], [True] * n,
                np.array(legal, dtype=np.float64) + 0.5, d.hostile(), array(d, [int(x) for x in legal] + [0]),
                np.array([rules.pass_id + 1] * n)])
            res = guarded(lambda: env.step(bad))
            if res is None:
                if not (env.games() == before).all():
                    raise Finding("a rejected step moved a table")
                continue  # the tables did not move: the last legal lists still hold
            st = res
        else:
            acts: Any = np.array(legal, dtype=d.choice([np.int64, np.int32, np.uint16]))
            st = env.step(acts if not rare(d, 3) else [int(x) for x in acts], mask=rare(d, 4))
        _check_step(st, env, n, rules)
    if rare(d, 4):
        st = guarded(lambda: env.reset(d.choice([d.u64(), None, -1, 2**64, "x"])))
        if st is not None:
            _check_step(st, env, n, rules)


def t_encoders(data: bytes) -> None:
    d = Data(data)
    g = _play_game(d, fresh=False)
    if g is None:
        return
    rules = g.rules
    ps = g.play_state
    n = g.num_players
    before = (g.to_json(), _state_key(ps))
    k = d.int(0, 6)
    seat: Any = d.int(0, n - 1) if not rare(d, 6) else d.choice([-1, n, True, np.int64(0), "0", None, 1.0])
    if k == 0:
        x = guarded(lambda: ddz.encode.compact(d.choice([g, ps]) if not rare(d, 10) else d.hostile(), seat))
        if x is not None and (x.dtype != np.int8 or x.ndim != 1):
            raise Finding("compact returned the wrong shape or dtype")
    elif k == 1:
        states: Any = [d.choice([g, ps]) for _ in range(d.int(0, 3))]
        seats: Any = [d.int(0, n - 1) for _ in states]
        if rare(d, 4):
            seats = d.choice([seats[:-1], seats + [0], [d.hostile() for _ in states], d.hostile()])
        if rare(d, 6):
            states = d.choice([states + [d.hostile()], d.hostile(), states + [ddz.Game(d.choice(_RULES))]])
        out = None
        if rare(d, 4):
            out = np.zeros((d.int(0, 4), d.int(0, 600)), dtype=d.choice([np.int8, np.int8, np.int16]))
        x = guarded(lambda: ddz.encode.compact_batch(states, seats, out))
        if x is not None:
            one = ddz.encode.compact(states[0], seats[0])
            if x.dtype != np.int8 or x.shape[0] != len(states) or not (x[0] == one).all():
                raise Finding("compact_batch row 0 differs from compact")
    elif k in (2, 3, 4):
        if rules.variant != "classic":
            return
        legal: Any = None
        if rare(d, 2):
            moves = list(ps.legal_moves())[:8]
            legal = [[] if m.is_pass else [ddz.encode._DZ_CARD[RANKS.index(c)] for c in str(m)]
                     for m in moves]
            if rare(d, 3):
                legal = _mutate_json(d, legal)
            if rare(d, 8):
                legal = d.hostile()
        if k == 2:
            o = guarded(lambda: ddz.encode.douzero(ps, legal))
            if o is not None and (o["x_batch"].shape[0] != len(o["legal_actions"]) or
                                  o["z_batch"].shape[1:] != (5, 162)):
                raise Finding("douzero's rows disagree with its legal actions")
        else:
            b = guarded(lambda: ddz.encode.douzero_batch([ps] * d.int(1, 3), None if legal is None else
                                                         [legal] * 1 if rare(d, 4) else None))
            if b is None:
                return
            pos: Any = int(b.position[0]) if not rare(d, 4) else d.choice([0, 1, 2, 3, -1, 2**40, "x", 1.5, None])
            r = guarded(lambda: b.expand(pos))
            if r is not None:
                xs, zs = r
                rows = int(sum(b.action_offsets[i + 1] - b.action_offsets[i] for i in range(len(b))
                               if b.position[i] == int(pos)))
                if xs.shape[0] != rows or zs.shape != (rows, 5, 162):
                    raise Finding(f"expand gave {xs.shape}, {zs.shape} for {rows} rows")
    else:
        starts, landlord, limits, actions = ddz.encode.play_log(ps)
        arrays = {"starts": np.array([starts], dtype=np.uint64), "landlords": np.array([landlord]),
                  "actions": np.array(actions, dtype=np.uint64), "offsets": np.array([0, len(actions)]),
                  "seats": np.array([seat if isinstance(seat, int) and not isinstance(seat, bool) else 0])}
        key = d.choice(sorted(arrays))
        if rare(d, 2):
            vals = [int(x) for x in np.ravel(arrays[key])]
            if vals and d.bool():
                vals[d.int(0, len(vals) - 1)] = d.choice([d.u64() >> 1, 0, 2**62, d.int(0, 60)])
            arrays[key] = array(d, vals) if d.bool() else np.array(vals, dtype=np.int64).reshape(arrays[key].shape) \
                if vals and d.bool() else d.hostile()
        fn = ddz.encode.compact_arrays if k == 5 or rules.variant != "classic" else None
        if fn is not None:
            x = guarded(lambda: fn(rules, arrays["starts"], arrays["landlords"], arrays["actions"], arrays["offsets"],
                                   arrays["seats"]))
            if x is not None and (x.dtype != np.int8 or x.shape[0] != 1):
                raise Finding("compact_arrays returned the wrong shape")
        else:
            guarded(lambda: ddz.encode.douzero_arrays(rules, arrays["starts"], arrays["landlords"],
                                                      arrays["actions"], arrays["offsets"]))
    if (g.to_json(), _state_key(ps)) != before:
        raise Finding("an encoder changed the game or the play state")


_VIEWS: Dict[Tuple[int, int], str] = {}


def t_read_view(data: bytes) -> None:
    d = Data(data)
    k, seat = d.int(0, 14), d.int(-1, 3)
    if (k, seat) not in _VIEWS:
        g = ddz.Game.from_json(_record(k))
        _VIEWS[(k, seat)] = g.view_json(None if seat < 0 or seat >= g.num_players else seat)
    text = _VIEWS[(k, seat)]
    if rare(d, 5):
        b = bytearray(text.encode())
        for _ in range(d.int(1, 4)):
            if b:
                b[d.int(0, len(b) - 1)] = d.byte()
        text = b.decode("utf-8", errors="replace")
    elif not rare(d, 8):
        obj = json.loads(text)
        for _ in range(d.int(1, 3)):
            obj = _mutate_json(d, obj)
        text = json.dumps(obj)
    arg: Any = text if not rare(d, 20) else d.hostile()
    v = guarded(lambda: ddz.record.read_view(arg))
    if v is None:
        return
    if not isinstance(v, dict) or "rules" not in v:
        raise Finding("read_view returned no rules")
    again = ddz.record.read_view(json.dumps(v))
    if again != v:
        raise Finding("an accepted view does not read back the same")


class _SampleReader:
    """An agent that asks for sampled worlds and checks it got them."""

    wants_samples = 2

    def __call__(self, obs: Dict[str, Any]) -> Any:
        if obs["phase"] == "PLAY" and len(obs["legal_actions"]) > 1 and obs.get("samples") is None:
            raise Finding("an agent with wants_samples got no samples")
        return obs["legal_action_ids"][-1]


_AGENTS = [ddz.bots.RandomBot(), ddz.bots.RuleBot(), ddz.bots.RandomBot(seed=3), _SampleReader(),
           lambda obs: obs["legal_action_ids"][0], lambda obs: "PLAY 3333"]


def t_evaluate(data: bytes) -> None:
    d = Data(data)
    rules = d.choice([ddz.Rules.classic(), ddz.Rules.two_player(), ddz.Rules.bengbu()])
    n = rules.players
    agents: Any = [d.choice(_AGENTS) if rare(d, 6) else _AGENTS[0] for _ in range(n)]
    if rare(d, 10):
        agents = d.choice([agents[:-1], agents + [_AGENTS[0]], [d.hostile()] + agents[1:], d.hostile()])
    games: Any = (1 if rare(d, 6) else 0) if not rare(d, 10) else d.choice([-1, 10**8, True, np.int64(1), 1.5, "1"])
    seed: Any = d.u64() if not rare(d, 10) else d.choice([-1, 2**64, np.uint64(3), None])
    kw: Dict[str, Any] = {}
    if rare(d, 4):
        kw["first_deal"] = d.choice([0, 1, 2**40, -1, np.int8(0), None])
    if rare(d, 3):
        deal: Any = {}
        if rare(d, 2):
            deal["first_bidder"] = d.choice([0, n - 1, n, -1, np.int64(1), "0", None])
        if rare(d, 3):
            src = _game_at(ddz.VARIANTS.index(rules.variant), d.int(0, 23))
            obj = json.loads(src.to_json())["deals"][0]
            deal.update({k: v for k, v in obj.items() if k in ("hands", "kitty", "aside")})
        if rare(d, 4):
            deal = _mutate_json(d, deal)
        deals: Any = [deal] * d.int(0, 3)
        if rare(d, 8):
            deals = d.choice([d.hostile(), ["x"], [{"bogus": 1}], 5, [deal, 7]])
        kw["deals"] = deals
    if rare(d, 20):
        kw["backend"] = d.choice(["", "lokal", None, 3])  # never "ray": that would start a cluster
    res = guarded(lambda: ddz.evaluate(agents, rules, games, seed, **kw))
    if res is None:
        return
    g = int(games)
    if res.scores.shape != (g, n, n) or res.role.shape != (g, n, n) or not np.isfinite(res.scores).all():
        raise Finding(f"evaluate returned shapes {res.scores.shape}, {res.role.shape}")
    if not set(np.unique(res.role)) <= {-1, 0, 1} or (res.won & (res.role < 0)).any():
        raise Finding("a hand won without a role")


_BOT_ARGS = {
    "time_per_move": [None, 1e-4, 5e-4, 0.001, 0, -1.0, math.nan, math.inf, "0.1", [1], True],
    "node_limit": [None, 50, 200, 500, 0, -1, 2**64, 1.5, np.int64(100)],
    "worlds": [1, 2, 4, 0, 2**31, "3", np.int8(2), 1.0],
    "rollout_worlds": [1, 5, 20, 0, 2**31, None],
    "table_mb": [1, 0.5, -1, 2**43 * 1.5, math.nan, "16", 4097],
    "seed": [0, 1, 2**64 - 1, -1, 2**64, "0", np.int8(-1), np.uint32(7), None],
}


def t_search_bot(data: bytes) -> None:
    d = Data(data)
    kw: Dict[str, Any] = {"time_per_move": d.choice([1e-4, 5e-4, 0.001]), "worlds": d.int(1, 4),
                          "rollout_worlds": d.int(1, 20), "table_mb": 1, "seed": d.u64()}
    if d.bool():
        kw["node_limit"] = d.int(1, 500)
    for name, values in _BOT_ARGS.items():
        if rare(d, 12):
            kw[name] = d.choice(values)
    if kw.get("time_per_move") in (None, math.inf) and kw.get("node_limit") in (None, 2**64):
        kw["node_limit"] = 200  # keep every input cheap
    bot = guarded(lambda: ddz.bots.SearchBot(**kw))
    if bot is None:
        return
    g = _play_game(d)
    if g is None or g.is_over:
        return
    rng = random.Random(d.int(0, 2**16))
    for _ in range(d.int(0, 3)):
        if g.is_over:
            return
        seat = g.current_seat
        before = g.to_json()
        a = bot.act(g, seat)
        if g.to_json() != before:
            raise Finding("SearchBot.act changed the game")
        if a not in g.legal_actions():
            raise Finding(f"SearchBot played {a!r}, not a legal action {g.legal_actions()[:5]}...")
        g.apply(a)
        for _ in range(d.int(0, 4)):
            if g.is_over:
                return
            g.apply(rng.choice(g.legal_actions()))
    if rare(d, 8):
        guarded(lambda: bot.reseed(d.choice([d.u64(), -1, 2**70, "x", np.int64(3)])))


TARGETS.update({
    "solve": t_solve, "sample_deals": t_sample_deals, "vector_env": t_vector_env, "encoders": t_encoders,
    "read_view": t_read_view, "evaluate": t_evaluate, "search_bot": t_search_bot,
})
