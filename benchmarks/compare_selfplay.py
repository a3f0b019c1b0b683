"""Random self-play speed: ddz against OpenSpiel, side by side in one run.

Two workloads:
* a Python-driven loop, identical for both engines: deal, then until the game ends ask
  for the legal actions, pick one with random.choice, apply it (OpenSpiel's chance nodes
  for the deal and its bidding are played the same way, at random);
* ddz.simulate, the C++ loop (random and greedy policies, 1 and 2 threads), all variants.

    python benchmarks/compare_selfplay.py --games 2000
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

import ddz


def ddz_python_loop(rules, games: int, seed: int) -> float:
    rng = random.Random(seed)
    t0 = time.perf_counter()
    for g in range(games):
        hands, landlord = ddz.deal(rules, seed, g)
        ps = ddz.PlayState(hands, landlord, rules)
        while not ps.is_over:
            ps.apply(rng.choice(ps.legal_actions()))
    return games / (time.perf_counter() - t0)


def openspiel_python_loop(games: int, seed: int):
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("dou_dizhu")
    rng = random.Random(seed)
    t0 = time.perf_counter()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choice(outcomes)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    return games / (time.perf_counter() - t0)


def median_rate(fn, repeat: int):
    rates = [fn() for _ in range(repeat)]
    return None if rates[0] is None else statistics.median(rates)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000, help="games per Python-loop measurement")
    ap.add_argument("--sim-games", type=int, default=100_000, help="games per ddz.simulate measurement")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="repetitions, median taken")
    args = ap.parse_args()

    classic = ddz.Rules.classic()
    ours = median_rate(lambda: ddz_python_loop(classic, args.games, args.seed), args.repeat)
    theirs = median_rate(lambda: openspiel_python_loop(args.games, args.seed), args.repeat)
    print(f"Python-driven random games, CLASSIC3 ({args.games} games, median of {args.repeat})")
    print(f"  ddz PlayState        {ours:12,.0f} games/s")
    if theirs is not None:
        print(f"  OpenSpiel dou_dizhu  {theirs:12,.0f} games/s   ratio ddz/OpenSpiel {ours / theirs:.2f}x")
    else:
        print("  OpenSpiel not installed")
    print()
    print(f"ddz.simulate in C++ ({args.sim_games:,} games, median of {args.repeat})")
    print(f"  {'variant':<12}{'policy':<8}{'1 thread':>14}{'2 threads':>14}{'scaling':>9}{'actions/game':>14}")
    for name in ("classic", "two_player", "bengbu"):
        rules = getattr(ddz.Rules, name)()
        for policy in ("random", "greedy"):
            one = median_rate(lambda: ddz.simulate(rules, args.sim_games, policy, args.seed, 1).summary["games_per_second"],
                              args.repeat)
            two = median_rate(lambda: ddz.simulate(rules, args.sim_games, policy, args.seed, 2).summary["games_per_second"],
                              args.repeat)
            apg = ddz.simulate(rules, 2000, policy, args.seed).summary["actions_per_game"]
            print(f"  {name:<12}{policy:<8}{one:>14,.0f}{two:>14,.0f}{two / one:>8.2f}x{apg:>14.1f}")


if __name__ == "__main__":
    main()
