"""Per-action cost of the framework environments (issue 12): ddz's PettingZoo AEC
environment (``env.last()`` with the compact observation and the action mask, a numpy random
legal id from the info's ``legal_action_ids``, ``env.step``) against RLCard's own ``doudizhu`` ``env.step`` (its state encoding
included, a numpy random legal id), and ddz's RLCard environment ``ddz-classic`` under
``Rules.classic_rlcard()`` on the same loop. Whole hands, reset included.

    python benchmarks/bench_envs.py                 # 2,000 actions each (--cpu: CPU time)
    python benchmarks/bench_envs.py --actions 20000
    python benchmarks/bench_envs.py --cpu --rounds 8    # interleaved rounds, the best of each

The PettingZoo loop picks as the RLCard loop does, from a list of legal ids (RLCard's
``state["legal_actions"]``, ddz's ``info["legal_action_ids"]``). A second PettingZoo row picks
from the action mask instead (``nonzero`` over ``rules.num_actions`` entries), with what that
pick alone costs (``mask_pick_rate``): the floor under any environment on that loop.

The same runners feed ``benchmarks/workloads.py`` (``python benchmarks/run_all.py --only env.``).
"""
from __future__ import annotations

import argparse
import random
import time
import warnings

import numpy as np

import ddz

# the clock of the timed loops: wall time, or with --cpu this process's CPU time (which other
# jobs sharing the machine's cores inflate much less)
CLOCK = time.perf_counter


def _picker(seed: int):
    """The loops' random pick of an index below n: the standard library's, because numpy's
    scalar ``Generator.integers`` call costs about 2.6 us here, a fifth of a PettingZoo step
    (the RLCard loop picks the same way)."""
    return random.Random(seed).randrange


def _best(fn, repeat: int) -> float:
    fn()
    best = float("inf")
    for _ in range(repeat):
        t = CLOCK()
        fn()
        best = min(best, CLOCK() - t)
    return best


def rlcard_rate(actions: int = 2000, seed: int = 2026, repeat: int = 3, env_id: str = "doudizhu") -> float:
    """RLCard ``env.step`` actions per second (``env_id`` ``doudizhu``: RLCard's own;
    ``ddz-classic``: ddz's RLCard environment under classic_rlcard())."""
    try:
        import rlcard
    except ImportError:
        raise RuntimeError("rlcard is not installed") from None
    config = {"seed": seed}
    if env_id != "doudizhu":
        from ddz.envs import register_rlcard
        register_rlcard()
        config["rules"] = ddz.Rules.classic_rlcard()
    env = rlcard.make(env_id, config=config)
    pick = _picker(seed)

    def run() -> None:
        state, _ = env.reset()
        for _ in range(actions):
            if env.is_over():
                state, _ = env.reset()
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[pick(len(legal))])

    return actions / _best(run, repeat)


def pettingzoo_rate(rules: ddz.Rules, actions: int = 2000, seed: int = 2026, repeat: int = 3,
                    pick: str = "ids") -> float:
    """ddz's PettingZoo AEC environment: actions per second of last() + a random legal id +
    step(), over whole hands (bidding and dead steps included in the loop, counted as actions
    only when a seat acts). ``pick``: from the info's ``legal_action_ids`` ("ids") or from the
    observation's action mask ("mask")."""
    if pick not in ("ids", "mask"):
        raise ValueError(f"pick is 'ids' or 'mask', not {pick!r}")
    from_mask = pick == "mask"
    try:
        from ddz.envs import pettingzoo_env
        env = pettingzoo_env(rules)
    except ImportError:
        raise RuntimeError("pettingzoo is not installed") from None
    pick_index = _picker(seed)

    def run() -> None:
        env.reset(seed=seed)
        done = 0
        while done < actions:
            if not env.agents:
                env.reset()
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            if from_mask:
                legal = obs["action_mask"].view(np.bool_).nonzero()[0]  # numpy reads a bool mask ~9x faster
            else:
                legal = info["legal_action_ids"]
            env.step(int(legal[pick_index(len(legal))]))
            done += 1

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return actions / _best(run, repeat)


MASK_POOL = 32  # the distinct masks mask_pick_rate reads (about 0.4-0.8 MB)


def mask_pick_rate(rules: ddz.Rules, actions: int = 2000, seed: int = 2026, repeat: int = 3) -> float:
    """The loop of ``pettingzoo_rate`` without the environment: picks per second of a random
    legal id from the action masks of real observations (collected first, then read in the
    timed loop exactly as pettingzoo_rate reads them). Its reciprocal is the loop's own cost
    per action, which no environment can go below: the mask is ``rules.num_actions`` wide.
    The timed loop cycles over MASK_POOL masks, so that they are in the cache as the mask an
    environment has just written is (thousands of them would measure the memory instead)."""
    from ddz.envs import pettingzoo_env
    env = pettingzoo_env(rules)
    env.reset(seed=seed)
    pick = _picker(seed)
    masks = []
    while len(masks) < MASK_POOL:
        if not env.agents:
            env.reset()
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        masks.append(obs)
        legal = obs["action_mask"].view(np.bool_).nonzero()[0]
        env.step(int(legal[pick(len(legal))]))

    masks = (masks * (actions // MASK_POOL + 1))[:actions]

    def run() -> None:
        for obs in masks:
            legal = obs["action_mask"].view(np.bool_).nonzero()[0]
            int(legal[pick(len(legal))])

    return actions / _best(run, repeat)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--actions", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cpu", action="store_true", help="time by this process's CPU time, not wall time")
    ap.add_argument("--rounds", type=int, default=1,
                    help="rounds of every loop, RLCard's and ddz's interleaved, the best of each kept (one timed "
                         "run a loop a round)")
    args = ap.parse_args(argv)
    global CLOCK
    if args.cpu:
        CLOCK = time.process_time
    repeat = args.repeat if args.rounds <= 1 else 1
    variants = (("CLASSIC3", ddz.Rules.classic()), ("TWOP", ddz.Rules.two_player()), ("BENGBU4", ddz.Rules.bengbu()))
    best: dict = {}

    def keep(name: str, rate: float) -> None:
        best[name] = max(best.get(name, 0.0), rate)

    for _ in range(max(1, args.rounds)):
        keep("peer", rlcard_rate(args.actions, repeat=repeat))
        keep("ddz-classic", rlcard_rate(args.actions, repeat=repeat, env_id="ddz-classic"))
        for name, rules in variants:
            keep(name, pettingzoo_rate(rules, args.actions, repeat=repeat))
            keep(name + " mask", pettingzoo_rate(rules, args.actions, repeat=repeat, pick="mask"))
            keep(name + " pick", mask_pick_rate(rules, args.actions, repeat=repeat))
    peer, ours_rl = best["peer"], best["ddz-classic"]
    print(f"RLCard doudizhu env.step            {1e6 / peer:8.1f} us/action")
    print(f"ddz-classic (RLCard env, ddz rules) {1e6 / ours_rl:8.1f} us/action  {ours_rl / peer:5.2f}x RLCard")
    for name, rules in variants:
        pz, mask, pick = best[name], best[name + " mask"], best[name + " pick"]
        print(f"ddz PettingZoo AEC ({name + ')':9s}      {1e6 / pz:8.1f} us/action  {pz / peer:5.2f}x RLCard"
              f"   (picking from info['legal_action_ids'])")
        print(f"  the same, picking from the mask   {1e6 / mask:8.1f} us/action  {mask / peer:5.2f}x RLCard"
              f"   (of which the pick from the {rules.num_actions}-wide mask {1e6 / pick:5.1f} us;"
              f" a free env would be {pick / peer:5.1f}x)")


if __name__ == "__main__":
    main()
