"""ddz.VectorEnv steps per second: tables stepped with one random legal action per table chosen
with numpy inside the timed loop (the compact observation and the legal id lists are produced
every step), in whole hands (the auction included) and in the play phase alone, against a
Python loop over PlayState (legal_actions() + random.choice + apply) on the same kind of games.

    python benchmarks/bench_vector_env.py                # 1,024 tables, 200 steps, 1 thread, each variant
    python benchmarks/bench_vector_env.py --cpu --threads 2 --tables 4096

The same runners feed ``benchmarks/workloads.py`` (``python benchmarks/run_all.py --only env.``).
"""
from __future__ import annotations

import argparse
import random
import time

import numpy as np

import ddz


# the clock of the timed loops: wall time, or with --cpu this process's CPU time (which other
# jobs sharing the machine's cores inflate much less)
CLOCK = time.perf_counter


def vector_env_rate(rules: ddz.Rules, tables: int = 4096, steps: int = 200, threads: int = 1, seed: int = 2026,
                    repeat: int = 3, auction: bool = False, rule: bool = False) -> float:
    """Environment steps (one table's action) per second, best of ``repeat`` runs; ``auction``:
    whole hands (the default of VectorEnv), else the play phase alone; ``rule``: every table
    plays ``rule_choices()`` (the rule players the trainer's ``--rule-tables`` seats), not a
    random legal action."""
    env = ddz.VectorEnv(rules, tables, seed, threads=threads, auction=auction)
    rng = np.random.default_rng(seed)
    best = float("inf")
    for _ in range(repeat + 1):  # the first run warms up
        st = env.reset()
        t = CLOCK()
        for _ in range(steps):
            if rule:
                pick = st.legal_ids[st.legal_offsets[:-1] + env.rule_choices()]
            else:
                counts = np.diff(st.legal_offsets)
                pick = st.legal_ids[st.legal_offsets[:-1] + (rng.random(tables) * counts).astype(np.int64)]
            st = env.step(pick)
        best = min(best, CLOCK() - t)
    return tables * steps / best


def play_state_loop_rate(rules: ddz.Rules, actions: int = 100_000, seed: int = 2026) -> float:
    """A Python loop over PlayState: legal_actions(), random.choice, apply(id); actions per second."""
    rng = random.Random(seed)
    done, game = 0, 0
    t = CLOCK()
    while done < actions:
        ps = ddz.PlayState(*ddz.deal(rules, seed, game), rules)
        game += 1
        while not ps.is_over:
            ps.apply(rng.choice(ps.legal_actions()))
            done += 1
    return done / (CLOCK() - t)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--cpu", action="store_true", help="time by this process's CPU time (one thread), not wall time")
    args = ap.parse_args(argv)
    global CLOCK
    if args.cpu:
        CLOCK = time.process_time
    print(f"ddz.VectorEnv, {args.tables} tables, {args.threads} thread(s), steps/s")
    for name in ("classic", "two_player", "bengbu"):
        r = ddz.Rules(name)
        whole = vector_env_rate(r, args.tables, args.steps, args.threads, auction=True)
        play = vector_env_rate(r, args.tables, args.steps, args.threads, auction=False)
        rule = vector_env_rate(r, args.tables, args.steps, args.threads, auction=True, rule=True)
        print(f"  {name:<11} whole hands {whole:>12,.0f}   play phase {play:>12,.0f}   ratio {whole / play:.2f}"
              f"   whole hands, rule players {rule:>12,.0f}")
    r = ddz.Rules.classic()
    p = play_state_loop_rate(r)
    print(f"Python loop over PlayState (CLASSIC3) {p:>12,.0f} actions/s")


if __name__ == "__main__":
    main()
