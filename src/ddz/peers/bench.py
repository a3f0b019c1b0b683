"""Legal-move generation speed: ddz vs the installed peer engines (docs/peers.md; the
figures: docs/benchmarks.md, "Move generation").

The same seeded random deals feed every engine:

* ``lead20``   -- 20-card hands (the landlord's first lead);
* ``lead17``   -- 17-card hands on lead;
* ``answer17`` -- 17-card hands answering a play: a uniformly random legal play of
                  another 20-card hand dealt from the rest of the deck, chosen among
                  plays that every peer knows (CLASSIC3 defaults, no four-with-two, no
                  rocket: those would make some peers fail or answer trivially).

Each peer is timed against ddz under that peer's own rules by default (``classic_douzero``,
``classic_rlcard``, ``classic_openspiel``; ``--rules`` picks one preset for all), and the
distinct legal plays per hand that each engine returned are printed beside each rate, so
the ratios compare the same work. Only the generation call is timed; each engine gets its own input representation built
beforehand (ddz: ``Cards`` / ``Move``, or ``hand_words`` and encoded moves for
``legal_moves_batch``; douzero: int lists and a stand-in for its ``GameEnv``;
rlcard: strings and stand-in players; open_spiel: states prepared by dealing, bidding
and playing -- see ddz/peers/adapters.py). Each measurement runs the whole batch ``--repeat``
times (default 3) with ``time.perf_counter`` and reports the median, in hands per
second, then the ratio ddz / peer.

    python benchmarks/compare_peers.py --hands 2000 --seed 1     (or: ddz bench --peers)
"""
from __future__ import annotations

import argparse
import random
import statistics
import time
import types

from .._core import Cards, classify, count_moves, hand_words, legal_moves, legal_moves_array, legal_moves_batch
from ..core.rules import Rules
from . import adapters as P  # the peer adapters

WORKLOADS = ("lead20", "lead17", "answer17")
PEER_PRESET = {"douzero": "classic_douzero", "rlcard": "classic_rlcard", "open_spiel": "classic_openspiel"}
PRESETS = ("classic", "classic_douzero", "classic_rlcard", "classic_openspiel", "two_player")


# --------------------------------------------------------------------------- deals
def make_deals(n, seed):
    """{workload: list of (hand, prev or None)} -- identical for every engine."""
    rng = random.Random(seed)
    out = {w: [] for w in WORKLOADS}
    deck = list(P.FULL_DECK)
    for size, w in ((20, "lead20"), (17, "lead17")):
        for _ in range(n):
            rng.shuffle(deck)
            out[w].append((P.canon(deck[:size]), None))
    rules = Rules.classic()
    while len(out["answer17"]) < n:
        rng.shuffle(deck)
        hand, other = P.canon(deck[:17]), P.canon(deck[17:37])
        plays = sorted(str(m) for m in legal_moves(other, rules)
                       if m.kind.name not in ("FOUR_TWO_SOLO", "FOUR_TWO_PAIR", "ROCKET"))
        out["answer17"].append((hand, rng.choice(plays)))
    return out


# --------------------------------------------------------------------------- timing
def median_rate(fn, items, repeat, n):
    """Run fn(items) `repeat` times; n hands / the median wall time."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(items)
        times.append(time.perf_counter() - t)
    return n / statistics.median(times)


def ddz_runners(rules):
    """name -> (prepare(deals) -> items, run(items)). Inputs are ddz's native objects,
    built before timing: ``Cards`` hands and ``Move`` prevs for the per-hand
    calls; ``hand_words`` and encoded prevs (uint64) for the batch call."""
    def prep(deals):
        return [(Cards(h), None if p is None else classify(p, rules)) for h, p in deals]

    def run_array(items):
        f = legal_moves_array
        for h, p in items:
            f(h, rules) if p is None else f(h, rules, p)

    def run_count(items):
        f = count_moves
        for h, p in items:
            f(h, rules) if p is None else f(h, rules, p)

    def run_list(items):
        f = legal_moves
        for h, p in items:
            f(h, rules) if p is None else f(h, rules, p)

    r = {
        "ddz legal_moves_array": (prep, run_array),
        "ddz count_moves": (prep, run_count),
        "ddz legal_moves (Move objects)": (prep, run_list),
    }
    import numpy as np

    def prep_batch(deals):
        hands = [h for h, _ in deals]
        hands = hand_words(hands, rules)
        if all(p is None for _, p in deals):
            return hands, None
        return hands, np.array([classify(p, rules).encoded for _, p in deals], dtype=np.uint64)

    def run_batch(args):
        hands, prevs = args
        legal_moves_batch(hands, rules, prevs)

    def run_batch_count(args):
        hands, prevs = args
        legal_moves_batch(hands, rules, prevs, count_only=True)

    r["ddz legal_moves_batch (whole batch)"] = (prep_batch, run_batch)
    r["ddz legal_moves_batch count_only"] = (prep_batch, run_batch_count)
    return r


def peer_runners():
    r = {}
    if P.DOUZERO.available():
        dz = P.DOUZERO
        mods = dz._load()
        MG, get_actions = mods.mg.MovesGener, mods.GameEnv.get_legal_card_play_actions

        def dz_prep(deals):
            items = []
            for h, p in deals:
                if p is None:
                    items.append((dz.to_ints(h), None))
                else:
                    items.append((None, types.SimpleNamespace(
                        info_sets={"p": types.SimpleNamespace(player_hand_cards=dz.to_ints(h))},
                        acting_player_position="p", card_play_action_seq=[dz.to_ints(p)])))
            return items

        def dz_run(items):
            for ints, fake in items:
                if fake is None:
                    MG(ints).gen_moves()
                else:
                    # its selector sorts the rival move in place: harmless to repeat
                    get_actions(fake)

        def dz_plays(items):  # distinct plays per hand (its lists repeat entries)
            out = []
            for ints, fake in items:
                moves = MG(ints).gen_moves() if fake is None else get_actions(fake)
                out.append(len({tuple(sorted(m)) for m in moves if m}))
            return out

        r["douzero"] = (dz_prep, dz_run, dz_plays)
    if P.RLCARD.available():
        mods = P.RLCARD._load()
        playable, gt = mods.Judger.playable_cards_from_hand, mods.utils.get_gt_cards

        def rl_prep(deals):
            items = []
            for h, p in deals:
                if p is None:
                    items.append((h, None, None))
                else:
                    items.append((None,
                                  types.SimpleNamespace(current_hand=[P._RLCard(c) for c in h]),
                                  types.SimpleNamespace(played_cards=p)))
            return items

        def rl_run(items):
            for h, player, greater in items:
                if player is None:
                    playable(h)
                else:
                    gt(player, greater)

        def rl_plays(items):
            return [len(set(playable(h))) if player is None else len(set(gt(player, greater)) - {"pass"})
                    for h, player, greater in items]

        r["rlcard"] = (rl_prep, rl_run, rl_plays)
    if P.OPENSPIEL.available():
        osp = P.OPENSPIEL

        def os_prep(deals):
            return [osp.lead_state(h) if p is None else osp.follow_state(h, p) for h, p in deals]

        def os_run(states):
            for st in states:
                st.legal_actions()

        def os_plays(states):  # distinct card multisets (some have two or three ids)
            return [len(osp.legal_plays(st)) for st in states]

        r["open_spiel"] = (os_prep, os_run, os_plays)
    return r


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=2000, help="hands per workload (default 2000)")
    ap.add_argument("--seed", type=int, default=1, help="deal seed (default 1)")
    ap.add_argument("--repeat", type=int, default=3, help="timed repetitions, median taken (default 3)")
    ap.add_argument("--rules", default=None, choices=PRESETS,
                    help="one ddz rules preset for every peer (default: each peer's own preset)")
    ap.add_argument("--peers", default="douzero,rlcard,open_spiel",
                    help="comma-separated peers to time (default: all installed)")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    deals = make_deals(args.hands, args.seed)
    wanted = [p for p in args.peers.split(",") if p]
    peers = {k: v for k, v in peer_runners().items() if k in wanted}
    print(f"legal-move generation, hands/s (median of {args.repeat}), {args.hands} hands per workload, "
          f"seed {args.seed}; 'plays' = distinct legal plays per hand the engine returned (pass excluded)")
    if not peers:
        print("no peer installed among: " + ", ".join(wanted))
    for peer, (pprep, prun, pplays) in peers.items():
        preset = args.rules or PEER_PRESET[peer]
        rules = getattr(Rules, preset)()
        runners = dict(ddz_runners(rules))
        rates, plays = {}, {}
        for w in WORKLOADS:
            items = pprep(deals[w])
            rates[peer, w] = median_rate(prun, items, args.repeat, len(deals[w]))
            plays[peer, w] = statistics.mean(pplays(items))
            ddz_plays = statistics.mean(count_moves(h, rules) if p is None else count_moves(h, rules, p)
                                        for h, p in deals[w])
            for name, (prep, run) in runners.items():
                rates[name, w] = median_rate(run, prep(deals[w]), args.repeat, len(deals[w]))
                plays[name, w] = ddz_plays
        names = list(runners) + [peer]
        width = max(len(n) for n in names) + 2
        print(f"\n{peer} against ddz under Rules.{preset}()")
        print(f"{'engine':{width}s}" + "".join(f"{w + ' hands/s':>20s}{'plays':>7s}" for w in WORKLOADS))
        for name in names:
            print(f"{name:{width}s}" + "".join(f"{rates[name, w]:>20,.0f}{plays[name, w]:>7.1f}" for w in WORKLOADS))
        print(f"ratio ddz / {peer} (x times faster)")
        for name in runners:
            print(f"{name:{width}s}" + "".join(f"{rates[name, w] / rates[peer, w]:>20.1f}{'':>7s}"
                                               for w in WORKLOADS))
    print(f"\n(total {time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
