"""The whole-hand speed targets of issue 10, side by side with OpenSpiel's ``dou_dizhu`` in one
run (random legal actions everywhere, chosen by ``random.Random`` inside the timed loop):

* ``ddz.Game`` hands per second (deal, bidding, play, score) against OpenSpiel's full game
  (chance deal, bidding, play), with the actions per hand of both; by action ids (as
  OpenSpiel's loop, which has only ids) and by tokens (``"PLAY 33"``, ddz's text API);
* a Python loop over ``PlayState`` (``legal_actions()`` ids, ``apply``) against OpenSpiel's
  play phase (``legal_actions()``, ``apply_action``) from the same kind of lead;
* ``PlayState.clone()`` + ``apply`` against OpenSpiel's ``clone()`` + ``apply_action``, 40
  actions into a hand, and ``clone()`` after 40 actions against at the start.

    python benchmarks/bench_game.py          # --cpu: CPU time instead of wall time
    python benchmarks/bench_game.py --cpu --rounds 8   # interleaved rounds, the best of each
    python benchmarks/run_all.py --only game.,play.,clone.

The rules: ``Rules.classic()`` for ``Game`` (its bidding is CLASSIC3's), and
``Rules.classic_openspiel()`` for the play-phase loops (OpenSpiel's combination rules).
"""
from __future__ import annotations

import functools
import random
import time
from typing import Callable, List, Tuple

import ddz

# the clock of every timed loop: wall time, or with --cpu this process's CPU time (which
# other jobs sharing the machine's cores inflate much less)
CLOCK: Callable[[], float] = time.perf_counter


def _best(fn: Callable[[], float], repeat: int) -> float:
    fn()  # warm-up
    return min(fn() for _ in range(repeat))


def game_rate(rules: ddz.Rules, hands: int = 1000, seed: int = 2026, repeat: int = 3,
              ids: bool = True) -> Tuple[float, float]:
    """(hands per second, actions per hand) of ddz.Game with random legal actions: action ids
    (``legal_action_ids()``, ``apply(int)``), as OpenSpiel's loop uses, or with ``ids=False``
    the tokens (``legal_actions()``, ``apply(str)``)."""
    actions = [0]

    def run() -> float:
        rng = random.Random(seed)
        n = 0
        t = CLOCK()
        for i in range(hands):
            g = ddz.Game(rules, seed + i)
            legal = g.legal_action_ids if ids else g.legal_actions
            while not g.is_over:
                g.apply(rng.choice(legal()))
                n += 1
        dt = CLOCK() - t
        actions[0] = n
        return dt

    return hands / _best(run, repeat), actions[0] / hands


def _pyspiel():
    try:
        import pyspiel
    except ImportError:
        raise RuntimeError("open_spiel is not installed") from None
    return pyspiel.load_game("dou_dizhu")


def openspiel_game_rate(hands: int = 1000, seed: int = 2026, repeat: int = 3) -> Tuple[float, float]:
    """(hands per second, decisions per hand) of OpenSpiel's full game: chance deal, bidding, play."""
    game = _pyspiel()
    actions = [0]

    def run() -> float:
        rng = random.Random(seed)
        n = 0
        t = CLOCK()
        for _ in range(hands):
            s = game.new_initial_state()
            while not s.is_terminal():
                if s.is_chance_node():
                    outs = s.chance_outcomes()
                    s.apply_action(outs[rng.randrange(len(outs))][0])
                else:
                    s.apply_action(rng.choice(s.legal_actions()))
                    n += 1
        dt = CLOCK() - t
        actions[0] = n
        return dt

    return hands / _best(run, repeat), actions[0] / hands


def _lead_hands(hands: int, seed: int) -> List[str]:
    rng = random.Random(seed)
    deck = list("3456789TJQKA2" * 4 + "BR")
    out = []
    for _ in range(hands):
        rng.shuffle(deck)
        out.append("".join(deck))
    return out


def playstate_loop_rate(hands: int = 1000, seed: int = 2026, repeat: int = 3) -> float:
    """Actions per second of a Python loop over PlayState from a 20-card landlord lead."""
    r = ddz.Rules.classic_openspiel()
    decks = _lead_hands(hands, seed)

    def run() -> float:
        rng = random.Random(seed)
        n = 0
        t = CLOCK()
        for d in decks:
            ps = ddz.PlayState([d[:20], d[20:37], d[37:]], 0, r)
            while not ps.is_over:
                ps.apply(rng.choice(ps.legal_actions()))
                n += 1
        return n / (CLOCK() - t)

    run()
    return max(run() for _ in range(repeat))


def openspiel_play_rate(hands: int = 1000, seed: int = 2026, repeat: int = 3) -> float:
    """Actions per second of OpenSpiel's play phase from a 20-card landlord lead (the same deals)."""
    _pyspiel()
    from ddz.peers import adapters as P

    decks = _lead_hands(hands, seed)
    starts = [P.OPENSPIEL._deal(P.canon(d[:20]), P.canon(d[20:37]), P.canon(d[37:])) for d in decks]

    def run() -> float:
        rng = random.Random(seed)
        n = 0
        states = [s.clone() for s in starts]
        t = CLOCK()
        for s in states:
            while not s.is_terminal():
                s.apply_action(rng.choice(s.legal_actions()))
                n += 1
        return n / (CLOCK() - t)

    run()
    return max(run() for _ in range(repeat))


def _played(ps, rng: random.Random, k: int):
    for _ in range(k):
        if ps.is_over:
            break
        ps.apply(rng.choice(ps.legal_actions()))
    return ps


# the depth of the states that clone_apply_rate times after the start
CLONE_DEPTH = 40


@functools.lru_cache(maxsize=4)
def _clone_pairs(hands: int, seed: int) -> Tuple[list, list]:
    """(starts, states CLONE_DEPTH actions in), each with its first legal action: ``hands``
    hands built once, each start beside its deep copy, and kept for every call. A clone reads
    its source, so where the allocator put the sources changes clone() by up to 2x (states
    built in another call, or played further, lie elsewhere); timing both depths on the same
    objects leaves the depth as the only difference."""
    r = ddz.Rules.classic_openspiel()
    rng = random.Random(seed)
    starts, deeps = [], []
    for d in _lead_hands(hands * 3, seed):
        start = ddz.PlayState([d[:20], d[20:37], d[37:]], 0, r)
        deep = _played(start.clone(), rng, CLONE_DEPTH)
        if not deep.is_over and deep.num_actions == CLONE_DEPTH:
            starts.append((start, start.legal_actions()[0]))
            deeps.append((deep, deep.legal_actions()[0]))
        if len(starts) == hands:
            break
    return starts, deeps


def _clone_states(after: int, hands: int, seed: int) -> list:
    if after not in (0, CLONE_DEPTH):
        raise ValueError(f"after must be 0 or {CLONE_DEPTH}")
    return _clone_pairs(hands, seed)[1 if after else 0]


def clone_apply_rate(after: int = 40, hands: int = 300, seed: int = 2026, repeat: int = 3,
                     apply: bool = True) -> float:
    """(clone + apply of a legal action) per second on PlayStates ``after`` actions into a hand
    (0 or CLONE_DEPTH; ``apply=False``: the clone alone)."""
    states = _clone_states(after, hands, seed)
    reps = 20

    def run() -> float:
        t = CLOCK()
        for _ in range(reps):
            for ps, a in states:
                c = ps.clone()
                if apply:
                    c.apply(a)
        return reps * len(states) / (CLOCK() - t)

    run()
    return max(run() for _ in range(repeat))


def openspiel_clone_apply_rate(after: int = 40, hands: int = 300, seed: int = 2026, repeat: int = 3) -> float:
    _pyspiel()
    from ddz.peers import adapters as P

    rng = random.Random(seed)
    states = []
    for d in _lead_hands(hands * 3, seed):
        s = P.OPENSPIEL._deal(P.canon(d[:20]), P.canon(d[20:37]), P.canon(d[37:]))
        k = 0
        while k < after and not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
            k += 1
        if not s.is_terminal() and k == after:
            states.append((s, s.legal_actions()[0]))
        if len(states) == hands:
            break
    reps = 20

    def run() -> float:
        t = CLOCK()
        for _ in range(reps):
            for s, a in states:
                c = s.clone()
                c.apply_action(a)
        return reps * len(states) / (CLOCK() - t)

    run()
    return max(run() for _ in range(repeat))


# the points of a hand where game_clone_rate and openspiel_clone_rate time clone(), defined for
# both engines: the deal done and nobody has bid; one bid made; 40 actions into the play phase
CLONE_POINTS = ("deal", "bid", "play40")


def _game_at_point(rules: ddz.Rules, seed: int, point: str, rng: random.Random):
    """A ddz.Game of ``rules`` seeded ``seed`` at ``point`` (None when the hand never gets there)."""
    g = ddz.Game(rules, seed)
    if point == "deal":
        return g
    g.apply(rng.choice(g.legal_action_ids()))
    if point == "bid":
        return g if not g.is_over else None
    while not g.is_over and (g.phase != "PLAY" or g.play_state.num_actions < CLONE_DEPTH):
        g.apply(rng.choice(g.legal_action_ids()))
    return g if not g.is_over else None


def _openspiel_at_point(game, point: str, rng: random.Random):
    """An OpenSpiel dou_dizhu state at ``point`` (None when the hand never gets there): the
    chance deal done; then one bid; then the bidding and 40 play actions."""
    s = game.new_initial_state()
    while s.is_chance_node():
        outs = s.chance_outcomes()
        s.apply_action(outs[rng.randrange(len(outs))][0])
    if point == "deal":
        return s
    s.apply_action(rng.choice(s.legal_actions()))
    if point == "bid":
        return s if not s.is_terminal() else None
    played = 0
    while not s.is_terminal() and played < CLONE_DEPTH:
        legal = s.legal_actions()
        bidding = max(legal) <= 3  # the bidding's actions are Pass and Bid 1-3 (ids 0-3)
        s.apply_action(rng.choice(legal))
        if s.is_chance_node():
            return None
        played += not bidding
    return s if not s.is_terminal() else None


@functools.lru_cache(maxsize=8)
def _clone_points(engine: str, point: str, hands: int, seed: int) -> list:
    """``hands`` states of ``engine`` ("ddz" or "openspiel") at ``point``, built once and kept."""
    if point not in CLONE_POINTS:
        raise ValueError(f"point must be one of {CLONE_POINTS}")
    rng = random.Random(seed)
    r = ddz.Rules.classic_openspiel()
    game = _pyspiel() if engine == "openspiel" else None
    out: list = []
    k = 0
    while len(out) < hands:
        x = _game_at_point(r, seed + k, point, rng) if game is None else _openspiel_at_point(game, point, rng)
        k += 1
        if x is not None:
            out.append(x)
    return out


def clone_point_rate(engine: str, point: str, hands: int = 300, seed: int = 2026, repeat: int = 3) -> float:
    """clone() per second of ``engine``'s states ("ddz": ddz.Game under Rules.classic_openspiel();
    "openspiel": OpenSpiel's dou_dizhu) at ``point`` (CLONE_POINTS)."""
    states = _clone_points(engine, point, hands, seed)
    reps = 20

    def run() -> float:
        t = CLOCK()
        for _ in range(reps):
            for s in states:
                s.clone()
        return reps * len(states) / (CLOCK() - t)

    run()
    return max(run() for _ in range(repeat))


# how a state is saved and restored: pickle.dumps + loads (both engines), or the engine's own bytes
# (ddz: Game.snapshot() + Game.from_snapshot(); OpenSpiel: serialize() + game.deserialize_state())
SAVE_WAYS = ("pickle", "bytes")


def save_restore_rate(engine: str, way: str, point: str = "play40", hands: int = 300, seed: int = 2026,
                      repeat: int = 3) -> float:
    """Save + restore round trips per second of ``engine``'s states at ``point`` (``way``: SAVE_WAYS)."""
    import pickle

    states = _clone_points(engine, point, hands, seed)
    if way == "pickle":
        def one(s):
            pickle.loads(pickle.dumps(s))
    elif engine == "openspiel":
        game = _pyspiel()

        def one(s):
            game.deserialize_state(s.serialize())
    else:
        def one(s):
            ddz.Game.from_snapshot(s.snapshot())
    reps = 5

    def run() -> float:
        t = CLOCK()
        for _ in range(reps):
            for s in states:
                one(s)
        return reps * len(states) / (CLOCK() - t)

    run()
    return max(run() for _ in range(repeat))


def main() -> None:
    import argparse
    global CLOCK
    ap = argparse.ArgumentParser(description="issue 10's whole-hand speed targets beside OpenSpiel")
    ap.add_argument("--cpu", action="store_true", help="time by this process's CPU time, not wall time")
    ap.add_argument("--rounds", type=int, default=1,
                    help="rounds of every loop, the engines interleaved, the best of each kept (one timed run a "
                         "loop a round; default: one round of the best of 3)")
    args = ap.parse_args()
    if args.cpu:
        CLOCK = time.process_time
    repeat = 3 if args.rounds <= 1 else 1
    best: dict = {}

    def keep(name: str, rate: float) -> None:
        best[name] = max(best.get(name, 0.0), rate)

    peer = True
    for _ in range(max(1, args.rounds)):
        g, ga = game_rate(ddz.Rules.classic(), repeat=repeat)
        keep("game", g)
        keep("tokens", game_rate(ddz.Rules.classic(), repeat=repeat, ids=False)[0])
        if peer:
            try:
                o, oa = openspiel_game_rate(repeat=repeat)
                keep("os_game", o)
                keep("loop", playstate_loop_rate(repeat=repeat))
                keep("os_loop", openspiel_play_rate(repeat=repeat))
                keep("clone_apply", clone_apply_rate(repeat=repeat))
                keep("os_clone_apply", openspiel_clone_apply_rate(repeat=repeat))
            except RuntimeError as e:
                print(f"(peer skipped: {e})")
                peer = False
        keep("clone0", clone_apply_rate(after=0, repeat=repeat, apply=False))
        keep("clone40", clone_apply_rate(after=40, repeat=repeat, apply=False))
    rows = [("ddz.Game, CLASSIC3, random action ids", best["game"], f"hands/s ({ga:.1f} actions a hand)"),
            ("ddz.Game, CLASSIC3, random tokens", best["tokens"], "hands/s")]
    if peer:
        rows.append(("OpenSpiel dou_dizhu full game", best["os_game"], f"hands/s ({oa:.1f} decisions a hand)  Game "
                     f"ratio {best['game'] / best['os_game']:.2f}x by ids, {best['tokens'] / best['os_game']:.2f}x by "
                     "tokens (target >= 1.5x)"))
        rows.append(("PlayState loop / OpenSpiel play phase", best["loop"],
                     f"actions/s  ratio {best['loop'] / best['os_loop']:.2f}x (target >= 1.3x)"))
        rows.append(("clone+apply / OpenSpiel clone+apply", best["clone_apply"],
                     f"per s  ratio {best['clone_apply'] / best['os_clone_apply']:.2f}x (target >= 2x)"))
    rows.append(("PlayState.clone at the start / after 40", best["clone0"],
                 f"per s  after-40 / start {best['clone40'] / best['clone0']:.2f} (target within 10 %)"))
    for name, rate, unit in rows:
        print(f"{name:<42} {rate:>12,.0f} {unit}")


if __name__ == "__main__":
    main()
