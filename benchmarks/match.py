"""Two agents in whole hands, bidding included, on seat-assignment duplicates (the protocol of
docs/models.md, ``ddz.head_to_head``): each seeded deal is played under every assignment of A to
k of the n seats, 1 <= k < n, with B in the others: CLASSIC3 6 hands a deal (A in one seat, then
in two), TWOP 2, BENGBU4 14 (A in one, two or three of the four seats). Three measures, each with
a 95 % interval over deals (the independent unit):

* **role-balanced WP**: the mean of A's win rate alone as landlord against B's farmers and of A's
  farmers' win rate against B alone as landlord (the hands that put both agents on one side, or
  have no landlord, left out); equal agents 0.5. With one role only (A never alone as landlord,
  say), A's win rate in that role; the roles seen and the hands of each are reported.
* **score margin**: per hand, A's mean score per seat minus B's (every hand: bids and multipliers
  counted, a void or BENGBU4 天炸/天尊 hand with the scores the rules give it), averaged per deal,
  then over deals; equal agents 0, zero-sum rules or not.
* **seat WP** (the ``wp`` of earlier versions of this script): A's share of its seat-games won (a
  hand with A seats on both sides counts each seat; a hand without a landlord counts as lost).
  Not 0.5 for equal agents (0.413 in CLASSIC3, 0.433 in BENGBU4 under the earlier protocol):
  compare it only with a ``rule`` against ``rule`` row.

Beside them: A's share of the hands' landlord seats (parity 0.5; a model that overbids shows it)
and A's mean score per seat-game. ``by_configuration`` breaks the seat WP down by A's seat count.

Agents: ``rule`` (RuleBot), ``random``, ``search:NODES`` (SearchBot limited by a node count, no
clock: background load changes nothing), ``neural`` (the shipped model of the variant, when the
package has one) or ``neural:PATH`` (a model file), ``rlcard`` (RLCard's rule agent under
``Rules.classic_rlcard()``; it cannot bid, so its seats bid as RuleBot does), and the model inside
SearchBot's search (``benchmarks/hybrid_agents.py``): ``neural+exact:NODES`` (the model, with the
exact search in the endgame) and ``neural+search:NODES[:TOPK]`` (SearchBot's play, the model's bids
and ties, its TOPK best actions the only candidates when given), either with ``@PATH`` for a model
file instead of the shipped one; ``nsearch[:ROLLOUT_WORLDS][:KEY=VALUE...][@PATH]``
(``ddz.learn.NeuralSearchBot`` over the shipped model or the file PATH, ``KEY=VALUE`` any of its
keyword arguments: ``nsearch:1000:topk=6:bids=rule``); and a bound, not a fair agent:
``peek[:NODES]`` (``hybrid_agents.Peek``: SearchBot that sees every hand, playing a winning action
wherever the exact solver on the true position proves one within NODES nodes, 200,000 by default).

Every decision's CPU time is measured (``time.process_time``) where the agent has a choice (two
legal actions or more); the median and p99 per agent are printed and written. ``--chunks DIR`` plays the deals in chunks of ``--chunk-size``, each saved to
DIR as it ends, and skips the chunks already there: a long match survives being stopped and
resumes where it was.

    python benchmarks/match.py --variant classic --a neural:benchmarks/results/train-classic-whole/model.npz \\
        --b rule --deals 500
    python benchmarks/match.py --variant classic --a search:4000 --b rule --deals 300 --out search_vs_rule.json
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Dict, List, Optional

import numpy as np

import ddz
from ddz.learn.agents import BidsAsRuleBot, Timed, agent, cpu_summary


def make_agent(spec: str, rules: ddz.Rules) -> Any:
    """The agent of a spec: ``ddz.learn.agents.agent``'s, RLCard's rule agent (``rlcard``) and the
    hybrids of ``hybrid_agents`` (``neural+exact:...``, ``neural+search:...``)."""
    kind, _, arg = spec.partition(":")
    if kind in ("neural+exact", "neural+search"):
        import hybrid_agents as H
        nums, _, path = arg.partition("@")
        model = path or _shipped(rules)
        parts = [int(x) for x in nums.split(":") if x]
        if kind == "neural+exact":
            return H.NeuralExact(model, node_limit=parts[0] if parts else 26000)
        return H.NeuralSearch(model, node_limit=parts[0] if parts else 4000, topk=parts[1] if len(parts) > 1 else None)
    if kind == "peek":
        import hybrid_agents as H
        return H.Peek(node_limit=int(arg) if arg else 200_000)
    if kind == "rlcard":
        from ddz.peers import RLCardRuleBot
        return BidsAsRuleBot(RLCardRuleBot())
    try:
        return agent(spec, rules)
    except ddz.ArgumentError as e:
        raise SystemExit(f"{e}; here also rlcard, neural+exact:NODES[@PATH], neural+search:NODES[:TOPK][@PATH], "
                         "peek[:NODES]")


def _shipped(rules: ddz.Rules) -> Any:
    from ddz import learn
    return learn.shipped_model(rules)  # type: ignore[attr-defined]


def configuration(seats: str) -> str:
    """The name of an assignment's configuration, by A's seat count: ``ABB`` (A in one seat),
    ``BAA`` (B in one), ``AB`` (TWOP), ``AABB`` (BENGBU4, two each)."""
    n, k = len(seats), seats.count("A")
    return "B" + "A" * (n - 1) if n > 2 and k == n - 1 else "A" * k + "B" * (n - k)


def by_configuration(res: ddz.HeadToHeadResult) -> Dict[str, Any]:
    """A's seat WP in each configuration alone, its share of seat-games as the landlord and its
    seat WP in those and in the others (a configuration with two A seats: an A landlord has an A
    farmer against it, so those seat-games win exactly half)."""
    a = res.a_seats                                             # (assignments, seats)
    seats = np.arange(res.rules.players)
    lord = seats[None, None, :] == res.landlord[:, :, None]     # (deals, assignments, seats)
    has = (res.landlord_won >= 0)[:, :, None]
    won = has & (lord == (res.landlord_won == 1)[:, :, None])
    out: Dict[str, Any] = {}
    for name in dict.fromkeys(configuration(s) for s in res.assignments):
        mask = np.zeros_like(won)
        for g, s in enumerate(res.assignments):
            if configuration(s) == name:
                mask[:, g, :] = a[g]
        w, ll = won[mask], lord[mask]
        out[name] = {"wp": float(w.mean()) if w.size else None, "seat_games": int(w.size),
                     "landlord_share": float(ll.mean()) if w.size else None,
                     "wp_landlord": float(w[ll].mean()) if ll.any() else None,
                     "wp_farmer": float(w[~ll].mean()) if (~ll).any() else None}
    return out


def chunked(a: Any, b: Any, rules: ddz.Rules, deals: int, seed: int, folder: str, size: int,
            share: Optional[str] = None) -> Optional[ddz.HeadToHeadResult]:
    """``ddz.head_to_head`` over ``deals`` deals in chunks of ``size``, each chunk's hands saved
    in ``folder`` (``chunk-FIRST.npz``, with the decisions' CPU times) and read back instead of
    played when already there; the whole as one result. ``share`` ``"I/K"`` plays only chunks
    ``I, I + K, ...`` (K processes side by side, each given its I) and returns None: a last run
    without it joins them."""
    os.makedirs(folder, exist_ok=True)
    mine = None if share is None else tuple(int(x) for x in share.split("/"))
    parts = []
    for k, first in enumerate(range(0, deals, size)):
        count = min(size, deals - first)
        path = os.path.join(folder, f"chunk-{first:06d}-{count}.npz")
        if mine is not None and k % mine[1] != mine[0]:
            continue
        if not os.path.exists(path):
            ta, tb = len(a.times), len(b.times)
            r = ddz.head_to_head(a, b, rules, games=count, seed=seed, first_deal=first)
            tmp = path + ".tmp.npz"
            np.savez(tmp, scores=r.scores, landlord=r.landlord, landlord_won=r.landlord_won,
                     times_a=np.asarray(a.times[ta:]), times_b=np.asarray(b.times[tb:]))
            os.replace(tmp, path)
            print(f"  deals {first}..{first + count - 1} played", flush=True)
        else:
            with np.load(path) as z:
                a.times.extend(z["times_a"].tolist())
                b.times.extend(z["times_b"].tolist())
        with np.load(path) as z:
            parts.append((z["scores"], z["landlord"], z["landlord_won"]))
    if mine is not None:
        return None
    from ddz.search.evaluate import seat_assignments
    return ddz.HeadToHeadResult(rules=rules, deals=deals, seed=seed, first_deal=0, names=(a.name, b.name),
                                assignments=seat_assignments(rules.players), scores=np.concatenate([p[0] for p in parts]),
                                landlord=np.concatenate([p[1] for p in parts]),
                                landlord_won=np.concatenate([p[2] for p in parts]))


def match(a: Any, b: Any, rules: ddz.Rules, deals: int, seed: int, chunks: Optional[str] = None,
          chunk_size: int = 50, share: Optional[str] = None) -> Optional[Dict[str, Any]]:
    """A against B on ``deals`` deals seeded ``seed`` (``ddz.head_to_head``): its measures as a
    JSON-ready dict, with ``by_configuration`` and each agent's CPU time a decision."""
    a, b = (x if isinstance(x, Timed) else Timed(x) for x in (a, b))
    if chunks:
        joined = chunked(a, b, rules, deals, seed, chunks, chunk_size, share)
        if joined is None:
            return None
        res = joined
    else:
        res = ddz.head_to_head(a, b, rules, games=deals, seed=seed)
    out = res.summary()
    out["cpu_a"], out["cpu_b"] = cpu_summary(a.times), cpu_summary(b.times)
    out["by_configuration"] = by_configuration(res)
    out["table"] = res.table()
    return out


def main(argv: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="classic", help="classic, twop, bengbu or a compat preset (default classic)")
    ap.add_argument("--a", required=True, help="agent A (see the module docstring)")
    ap.add_argument("--b", required=True, help="agent B")
    ap.add_argument("--deals", type=int, default=200, help="seeded deals (default 200)")
    ap.add_argument("--seed", type=int, default=2026, help="deal seed (default 2026)")
    ap.add_argument("--out", default=None, help="write the result as JSON here")
    ap.add_argument("--chunks", default=None, metavar="DIR",
                    help="play in chunks saved to DIR, skipping those already there (resumable)")
    ap.add_argument("--chunk-size", type=int, default=50, help="deals a chunk (default 50)")
    ap.add_argument("--share", default=None, metavar="I/K",
                    help="with --chunks: play only every K-th chunk from the I-th (K processes side by side); "
                         "a run without it then joins the chunks")
    args = ap.parse_args(argv)
    rules = ddz.Rules.named(args.variant)
    a, b = make_agent(args.a, rules), make_agent(args.b, rules)
    t = time.perf_counter()
    res = match(a, b, rules, args.deals, args.seed, args.chunks, args.chunk_size, args.share)
    if res is None:
        print(f"share {args.share} of {args.deals} deals played into {args.chunks}")
        return 0
    res.update({"variant": args.variant, "a": args.a, "b": args.b, "seed": args.seed,
                "seconds": round(time.perf_counter() - t, 1)})
    table = res.pop("table")
    print(f"{args.a} (A) against {args.b} (B), {args.deals} deals, seed {args.seed}, {res['seconds']} s")
    print(table)
    for who in ("a", "b"):
        c = res[f"cpu_{who}"]
        print(f"{who.upper()}'s CPU a decision: median {c['median_ms']} ms, p99 {c['p99_ms']} ms "
              f"({c['decisions']} decisions)")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
