"""Fuzz targets: one function per public entry point, each taking the fuzzer's bytes.

A target checks the input contract of ddz (docs/engine.md, "Errors"): the call either succeeds and
its result passes the target's consistency checks, or raises a ``ddz.DdzError`` whose
message is short, leaving the object it was called on exactly as it was. Any other
exception escaping a target is a finding (the drivers report it with the input)."""
from __future__ import annotations

import copy
import json
import pickle
import random
from typing import Any, Callable, Dict, List

import numpy as np

import ddz
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
        hands = ["".join(ddz.cards.RANKS[r] for r in deck[i * size:(i + 1) * size]) for i in range(n)]
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
    "from_json": t_from_json, "settle": t_settle, "room": t_room,
}
