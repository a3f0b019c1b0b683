"""An experiment: teach a trained model SearchBot's play (distillation), then measure it.

The shipped models' play stays well below SearchBot's (docs/models.md, "What more training
bought"): self-play by Deep Monte-Carlo stopped paying at 11-32M frames on two cores. SearchBot's
decisions are better and cheap enough to label many states (``search:4000``: about 5 ms a
decision). Two steps:

    # play hands with the model's bids and SearchBot's play, recording at every play decision with
    # a choice the state, the legal actions and the set SearchBot scores best (its exact search's
    # winning worlds, else its rollouts' wins)
    python benchmarks/distill_search.py gen --model src/ddz/learn/models/classic.npz \\
        --out runs/distill/data --hands 4000 --workers 2 --nodes 4000
    # fine-tune the model's play networks to put its highest Q on that set (cross-entropy of
    # beta * Q over the legal actions against the best set), keeping its bidding network
    python benchmarks/distill_search.py fit --model src/ddz/learn/models/classic.npz \\
        --data runs/distill/data --out runs/distill/model.npz --epochs 3

``--actor student`` plays the model's own choices while SearchBot labels them (DAgger: the states
the model reaches itself); ``teacher`` (the default) plays SearchBot's. ``--teacher nsearch[...]``
labels with the search over the model itself (``NeuralSearchBot``: its best valued actions), one
round of expert iteration (``benchmarks/expert_iteration.py`` runs the rounds). The result is a model file
for ``NeuralBot`` and ``benchmarks/match.py --a neural:PATH``.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing as mp
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

import numpy as np

import ddz
from ddz.bots import SearchBot
from ddz.learn import NeuralBot, NeuralModel, encode


def _best_tokens(teacher: Any) -> Dict[str, float]:
    """The teacher's scores of its last decision: NeuralSearchBot's blended values after its
    rollouts, the rollouts' wins (SearchBot's) when the exact probe ran out, else the worlds each
    action wins in the exact search (empty: nothing won anywhere)."""
    last = teacher.last
    return dict(last.get("values") or last.get("rollouts") or last.get("wins") or {})


def make_teacher(spec: str, model_path: str, nodes: int) -> Any:
    """The teacher: ``search`` (SearchBot at ``nodes`` nodes) or an ``nsearch[...]`` spec, which
    searches over the model being distilled (expert iteration) unless it names its own (``@PATH``)."""
    if spec == "search":
        return SearchBot(time_per_move=None, node_limit=nodes)
    from ddz.learn.agents import agent
    model = NeuralModel.load(model_path)
    return agent(spec if "@" in spec else f"{spec}@{model_path}", model.rules)


def play_hands(job: Tuple[str, int, List[int], str, str]) -> Dict[str, Any]:
    """One worker's hands: the records of every play decision SearchBot tells apart (some
    actions best, not all)."""
    model_path, nodes, seeds, actor, teacher_spec = job
    student = NeuralBot(model_path)
    rules = student.model.rules
    feats = student.model.features
    teacher = make_teacher(teacher_spec, model_path, nodes)
    pos, obs, offsets, ids, best, hand_of = [], [], [0], [], [], []
    for seed in seeds:
        g = ddz.Game(rules, seed=seed)
        teacher.reseed(seed)
        while not g.is_over:
            s = g.current_seat
            if g.phase != "PLAY":
                g.apply(student.act(g, s))
                continue
            legal = g.legal_actions()
            tok = teacher.act(g, s)
            scores = _best_tokens(teacher) if len(legal) > 1 else {}
            if scores:
                top = max(scores.values())
                mark = np.array([scores.get(t, -1) == top for t in legal], dtype=np.uint8)
                if mark.any() and not mark.all():
                    o = encode.compact(g, s)
                    pos.append(int(feats.position(o[None])[0]))
                    obs.append(o)
                    lid = np.asarray(g.legal_action_ids(), dtype=np.int32)
                    ids.append(lid)
                    best.append(mark)
                    offsets.append(offsets[-1] + len(lid))
                    hand_of.append(seed)
            g.apply(student.act(g, s) if actor == "student" else tok)
    return {"pos": np.asarray(pos, dtype=np.int8),
            "obs": np.stack(obs) if obs else np.zeros((0, 0), dtype=np.int8),
            "offsets": np.asarray(offsets, dtype=np.int64),
            "ids": np.concatenate(ids) if ids else np.zeros(0, dtype=np.int32),
            "best": np.concatenate(best) if best else np.zeros(0, dtype=np.uint8),
            "hand": np.asarray(hand_of, dtype=np.int64), "hands": len(seeds)}


def gen(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    seeds = list(range(args.seed, args.seed + args.hands))
    chunk = max(1, args.chunk)
    jobs = [(str(args.model), args.nodes, seeds[i:i + chunk], args.actor, args.teacher)
            for i in range(0, len(seeds), chunk)]
    t0 = time.perf_counter()
    done = states = 0
    # one worker plays in this process (nothing to pickle); more, in forked processes
    pool = mp.get_context("fork").Pool(args.workers) if args.workers > 1 else None
    with pool or contextlib.nullcontext():
        for k, part in enumerate(pool.imap(play_hands, jobs) if pool else map(play_hands, jobs)):
            name = out / f"part-{args.seed}-{k:05d}.npz"
            np.savez(name, **{key: v for key, v in part.items() if isinstance(v, np.ndarray)})
            done += part["hands"]
            states += len(part["pos"])
            print(f"{done} hands, {states} states, {time.perf_counter() - t0:.0f} s", flush=True)
    (out / f"gen-{args.seed}.json").write_text(json.dumps({
        "model": str(args.model), "nodes": args.nodes, "hands": args.hands, "seed": args.seed,
        "actor": args.actor, "teacher": args.teacher, "states": states, "seconds": round(time.perf_counter() - t0, 1)}, indent=1) + "\n")
    return 0


def load_data(folders: List[Path]) -> Dict[str, np.ndarray]:
    """The labelled states of every part file in ``folders``, one set (hands keep their seeds)."""
    parts = [dict(np.load(p)) for folder in folders for p in sorted(folder.glob("part-*.npz"))]
    parts = [p for p in parts if len(p["pos"])]
    if not parts:
        raise SystemExit(f"no data in {', '.join(map(str, folders))}")
    shift = np.cumsum([0] + [int(p["offsets"][-1]) for p in parts[:-1]])
    return {"pos": np.concatenate([p["pos"] for p in parts]).astype(np.int64),
            "obs": np.concatenate([p["obs"] for p in parts]),
            "offsets": np.concatenate([parts[0]["offsets"][:1]] + [p["offsets"][1:] + s for p, s in zip(parts, shift)]),
            "ids": np.concatenate([p["ids"] for p in parts]).astype(np.int64),
            "best": np.concatenate([p["best"] for p in parts]).astype(bool),
            "hand": np.concatenate([p["hand"] for p in parts])}


def _batch(data: Dict[str, np.ndarray], rows: np.ndarray, feats: Any, torch: Any) -> Tuple[Any, ...]:
    """The tensors of the states ``rows``: state features, action features, each action's state,
    the best-set mask, and each action's state as a padded (states, most actions) layout."""
    off = data["offsets"]
    lo, hi = off[rows], off[rows + 1]
    counts = hi - lo
    seg = np.repeat(np.arange(len(rows)), counts)
    col = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    acts = np.repeat(lo, counts) + col  # each action's row in ``ids`` / ``best``
    return (torch.from_numpy(feats.state(data["obs"][rows])), torch.from_numpy(feats.actions(data["ids"][acts])),
            torch.from_numpy(seg), torch.from_numpy(data["best"][acts]), torch.from_numpy(col), int(counts.max()))


def _losses(net: Any, batch: Tuple[Any, ...], beta: float, torch: Any) -> Tuple[Any, Any]:
    """(mean cross-entropy of the best set, share of states whose highest Q is in the set)."""
    sf, af, seg, best, col, width = batch
    q = net(sf, af, seg, None)
    n = int(seg.max()) + 1
    logits = torch.full((n, width), -math.inf)
    logits[seg, col] = beta * q
    good = torch.full((n, width), -math.inf)
    good[seg[best], col[best]] = beta * q[best]
    loss = (torch.logsumexp(logits, 1) - torch.logsumexp(good, 1)).mean()
    pick = logits.argmax(1)
    mask = torch.zeros((n, width), dtype=torch.bool)
    mask[seg[best], col[best]] = True
    agree = mask[torch.arange(n), pick].float().mean()
    return loss, agree


def fit(args: argparse.Namespace) -> int:
    import torch
    from ddz.learn.features import GROUP
    from ddz.learn.torch_nets import QModel

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    m = NeuralModel.load(args.model)
    f = m.features
    model = QModel(m.net, m.positions, f.state_dim, f.action_dim, GROUP * f.move_dim)
    for p, net in enumerate(model.nets):
        net.load_state_dict({k: torch.from_numpy(np.array(m.arrays[f"p{p}.{k}"], dtype=np.float32))
                             for k in net.state_dict()})
    data = load_data([Path(d) for d in args.data])
    rng = np.random.default_rng(args.seed)
    hands = np.unique(data["hand"])
    held = set(rng.choice(hands, size=max(1, int(len(hands) * args.holdout)), replace=False).tolist())
    test = np.isin(data["hand"], list(held))
    report: Dict[str, Any] = {"states": int(len(data["pos"])), "held_out_states": int(test.sum()),
                              "beta": args.beta, "lr": args.lr, "epochs": args.epochs, "batch": args.batch}

    def held_out() -> Dict[str, float]:
        out = {}
        with torch.no_grad():
            for p in range(m.rules.players):
                rows = np.flatnonzero(test & (data["pos"] == p))
                if len(rows):
                    loss, agree = _losses(model.nets[p], _batch(data, rows, f, torch), args.beta, torch)
                    out[f"p{p}"] = {"loss": round(float(loss), 4), "agree": round(float(agree), 4)}
        return out

    report["before"] = held_out()
    print("before", report["before"], flush=True)
    opts = [torch.optim.Adam(model.nets[p].parameters(), lr=args.lr) for p in range(m.rules.players)]
    t0 = time.perf_counter()
    for epoch in range(args.epochs):
        for p in range(m.rules.players):
            rows = np.flatnonzero(~test & (data["pos"] == p))
            rng.shuffle(rows)
            for i in range(0, len(rows), args.batch):
                loss, _ = _losses(model.nets[p], _batch(data, rows[i:i + args.batch], f, torch), args.beta, torch)
                opts[p].zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.nets[p].parameters(), 40.0)
                opts[p].step()
        report[f"epoch{epoch + 1}"] = held_out()
        print(f"epoch {epoch + 1} ({time.perf_counter() - t0:.0f} s)", report[f"epoch{epoch + 1}"], flush=True)
    meta = dict(m.meta)
    meta["distilled"] = {"data": [str(d) for d in args.data], **{k: v for k, v in report.items() if k in ("states", "beta", "lr", "epochs")}}
    NeuralModel(m.rules, m.net, model.arrays(), meta=meta).save(args.out)
    Path(str(args.out) + ".json").write_text(json.dumps(report, indent=1) + "\n")
    return 0


def main(argv: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen", help="label play decisions with SearchBot's best actions")
    g.add_argument("--model", required=True, help="the model whose bids make the auctions (and whose play, --actor student)")
    g.add_argument("--out", required=True)
    g.add_argument("--hands", type=int, default=1000)
    g.add_argument("--seed", type=int, default=100_000)
    g.add_argument("--nodes", type=int, default=4000, help="SearchBot's node limit (default 4000)")
    g.add_argument("--workers", type=int, default=2)
    g.add_argument("--chunk", type=int, default=50, help="hands a part file (default 50)")
    g.add_argument("--actor", choices=("teacher", "student"), default="teacher")
    g.add_argument("--teacher", default="search",
                   help="search (SearchBot at --nodes) or an nsearch[...] spec searching over --model (expert "
                        "iteration; its best actions are those of highest value) (default search)")
    g.set_defaults(func=gen)
    t = sub.add_parser("fit", help="fine-tune a model's play networks on the labels")
    t.add_argument("--model", required=True)
    t.add_argument("--data", required=True, nargs="+", help="folders written by gen")
    t.add_argument("--out", required=True)
    t.add_argument("--epochs", type=int, default=3)
    t.add_argument("--batch", type=int, default=256, help="states a step (default 256)")
    t.add_argument("--lr", type=float, default=1e-4)
    t.add_argument("--beta", type=float, default=10.0, help="the logits are beta * Q (default 10)")
    t.add_argument("--holdout", type=float, default=0.05, help="share of hands held out (default 0.05)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--threads", type=int, default=2)
    t.set_defaults(func=fit)
    args = ap.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
