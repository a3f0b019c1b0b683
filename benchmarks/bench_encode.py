"""The observation encoders side by side with DouZero's on the same states (issue 12):
ddz.encode.douzero_arrays (the factored int8 batch: replays each state's log, generates its legal
moves and writes the state once, the history once and 54 columns per legal action) against
``douzero.env.env.get_obs`` on DouZero's own infosets of the same states (which come with their
legal moves already listed); the expansion to DouZero's float32 arrays in GB/s; the compact
encoder.

    python benchmarks/bench_encode.py              # 2,000 states
    python benchmarks/bench_encode.py --states 500

The same runners feed ``benchmarks/workloads.py`` (``python benchmarks/run_all.py --only encode.``).
"""
from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass
from typing import Any, Callable, List, Tuple

import numpy as np

import ddz
from ddz import encode as E

DZ_CARD = dict(zip("3456789TJQKA2BR", [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30]))
POSITIONS = ("landlord", "landlord_down", "landlord_up")


def _dz(ranks: str) -> List[int]:
    return sorted(DZ_CARD[c] for c in ranks)


@dataclass
class States:
    """Random CLASSIC3 play states under classic_douzero() as play logs, with DouZero's infosets of
    the same states (None when douzero is not installed)."""

    rules: ddz.Rules
    starts: np.ndarray
    landlords: np.ndarray
    actions: np.ndarray
    offsets: np.ndarray
    infosets: Any


def make_states(n: int, seed: int = 2026, with_douzero: bool = True) -> States:
    r = ddz.Rules.classic_douzero()
    try:
        from douzero.env.game import GameEnv
    except ImportError:
        GameEnv = None
    rng = random.Random(seed)
    starts, lls, acts, offs, infos = [], [], [], [0], []
    game = 0
    while len(lls) < n:
        hands, landlord = ddz.deal(r, seed, game)
        game += 1
        ps = ddz.PlayState(hands, landlord, r)
        env = None
        if GameEnv is not None and with_douzero:
            class Seat:
                action: list = []

                def act(self, infoset):
                    return self.action
            seats = {p: Seat() for p in POSITIONS}
            env = GameEnv(seats)
            pos = {(landlord + k) % 3: POSITIONS[k] for k in range(3)}
            env.card_play_init({pos[s]: _dz(str(hands[s])) for s in range(3)}
                               | {"three_landlord_cards": _dz(str(hands[landlord]))[:3]})
        log: List[int] = []
        while not ps.is_over and len(lls) < n:
            starts.append([h.word for h in hands])
            lls.append(landlord)
            acts += log
            offs.append(len(acts))
            if env is not None:
                infos.append(env.game_infoset)
            move = rng.choice(ps.legal_moves())
            if env is not None:
                seats[env.acting_player_position].action = [] if move.is_pass else _dz(str(move))
                env.step()
            log.append(ps.apply(move).encoded)
    return States(r, np.array(starts, dtype=np.uint64), np.array(lls), np.array(acts, dtype=np.uint64),
                  np.array(offs), infos if infos else None)


def best(fn: Callable[[], object], repeat: int = 3) -> float:
    fn()
    t = float("inf")
    for _ in range(repeat):
        a = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - a)
    return t


def douzero_rate(s: States, repeat: int = 3) -> float:
    """get_obs on DouZero's infosets: states per second."""
    from douzero.env.env import get_obs
    return len(s.infosets) / best(lambda: [get_obs(i) for i in s.infosets], repeat)


def factored(s: States, bufs: Any = None) -> E.DouZeroBatch:
    x, z, a = bufs if bufs is not None else (None, None, None)
    return E.douzero_arrays(s.rules, s.starts, s.landlords, s.actions, s.offsets, out_x=x, out_z=z, out_actions=a)


def factored_rate(s: States, repeat: int = 3) -> Tuple[float, float]:
    """douzero_arrays into reused buffers: states per second, and legal actions per state."""
    b = factored(s)
    bufs = (np.empty_like(b.x_no_action), np.empty_like(b.z), np.empty_like(b.actions))
    return len(s.landlords) / best(lambda: factored(s, bufs), repeat), len(b.actions) / len(b)


def expand_rate(s: States, repeat: int = 3) -> Tuple[float, float]:
    """DouZeroBatch.expand of all three positions into reused float32 buffers: GB/s written, and
    the bytes DouZero's arrays take per state."""
    b = factored(s)
    shapes = [b.expand(p) for p in range(3)]
    outs = [(np.empty_like(x), np.empty_like(z)) for x, z in shapes]
    nbytes = sum(x.nbytes + z.nbytes for x, z in shapes)
    t = best(lambda: [b.expand(p, ox, oz) for p, (ox, oz) in enumerate(outs)], repeat)
    return nbytes / t / 1e9, nbytes / len(b)


def compact_rate(s: States, repeat: int = 3) -> float:
    """compact_arrays of the seat to act's view (replay + encode): states per second."""
    seats = ((s.landlords + np.diff(s.offsets)) % 3).astype(np.int64)
    out = np.empty((len(seats), E.compact_layout(s.rules)["auction"].stop), dtype=np.int8)
    return len(seats) / best(lambda: E.compact_arrays(s.rules, s.starts, s.landlords, s.actions, s.offsets, seats,
                                                      out=out), repeat)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--states", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    s = make_states(args.states)
    fr, legal = factored_rate(s, args.repeat)
    gbs, per_state = expand_rate(s, args.repeat)
    print(f"{len(s.landlords)} states of random classic_douzero() games, {legal:.1f} legal actions per state")
    print(f"ddz.encode.douzero_arrays (factored int8)  {fr:>12,.0f} states/s")
    if s.infosets is not None:
        dz = douzero_rate(s, args.repeat)
        print(f"douzero.env.env.get_obs                    {dz:>12,.0f} states/s   ratio {fr / dz:,.0f}x")
    else:
        print("douzero is not installed: no ratio")
    print(f"DouZeroBatch.expand (float32 x/z_batch)    {gbs:>12.2f} GB/s ({per_state / 1e3:.1f} KB per state)")
    print(f"ddz.encode.compact_arrays                  {compact_rate(s, args.repeat):>12,.0f} states/s")


if __name__ == "__main__":
    main()
