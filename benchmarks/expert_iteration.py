"""Expert iteration: the search over the network (``NeuralSearchBot``) labels states, the network
learns the search's best actions (``distill_search.py fit``), the search runs over the new network,
and again. Each round:

1. ``gen``: ``--hands`` hands with the model's bids and the search's play over the current model
   (``--teacher``, an ``nsearch[...]`` spec), every play decision with a choice labelled with the
   search's best valued actions;
2. ``fit``: the current model's play networks fine-tuned on this round's labels (its bids kept);
3. the new network alone (``neural:``) and the search over it (``TEACHER@model``) each against the
   fixed reference ``--against`` (default ``search:4000``), ``--deals`` deals of ``match.py``.

Every step's output is kept in ``--dir`` and skipped when it is there, so a stopped run resumes.
``rounds.json`` holds a row per round: the states labelled, the CPU seconds of labelling and of
fitting, and both measures; ``rounds.md`` the same as a table.

    python benchmarks/expert_iteration.py --model src/ddz/learn/models/classic.npz --dir runs/expert \\
        --rounds 2 --hands 400 --deals 100 --workers 2
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

import ddz
import distill_search as ds
import match as mt


def _cpu() -> float:
    """CPU seconds of this process and its finished children."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure(spec: str, against: str, rules: ddz.Rules, deals: int, folder: Path, workers: int) -> Dict[str, Any]:
    """``spec`` against ``against`` on ``deals`` deals, played in chunks in ``folder`` (resumable)."""
    out = folder / "result.json"
    if out.exists():
        return dict(json.loads(out.read_text()))
    a, b = mt.make_agent(spec, rules), mt.make_agent(against, rules)
    res = mt.match(a, b, rules, deals, 2026, str(folder), 25)
    assert res is not None
    res.pop("table", None)
    res.update({"a": spec, "b": against})
    out.write_text(json.dumps(res, indent=1) + "\n")
    return res


def main(argv: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="the model of round 0")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--hands", type=int, default=400, help="hands labelled a round (default 400)")
    ap.add_argument("--deals", type=int, default=100, help="deals of each measure (default 100)")
    ap.add_argument("--teacher", default="nsearch", help="the search over the model (default nsearch)")
    ap.add_argument("--against", default="search:4000", help="the fixed reference (default search:4000)")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    root = Path(args.dir)
    root.mkdir(parents=True, exist_ok=True)
    model = str(Path(args.model).resolve())
    rules = ddz.learn.NeuralModel.load(model).rules
    rows: List[Dict[str, Any]] = []
    for r in range(1, args.rounds + 1):
        here = root / f"round{r}"
        here.mkdir(exist_ok=True)
        row: Dict[str, Any] = {"round": r, "from": model}
        data = here / "data"
        if not list(data.glob("gen-*.json")):
            t = _cpu()
            ds.main(["gen", "--model", model, "--out", str(data), "--hands", str(args.hands), "--seed",
                     str(100_000 + r * 10_000), "--workers", str(args.workers), "--teacher", args.teacher])
            (here / "gen-cpu.json").write_text(json.dumps({"cpu_seconds": round(_cpu() - t, 1)}) + "\n")
        row["states"] = int(len(ds.load_data([data])["pos"]))
        row["label_cpu_seconds"] = json.loads((here / "gen-cpu.json").read_text())["cpu_seconds"]
        new = here / "model.npz"
        if not new.exists():
            t = _cpu()
            ds.main(["fit", "--model", model, "--data", str(data), "--out", str(new), "--epochs", str(args.epochs),
                     "--lr", str(args.lr), "--threads", "1"])
            (here / "fit-cpu.json").write_text(json.dumps({"cpu_seconds": round(_cpu() - t, 1)}) + "\n")
        row["fit_cpu_seconds"] = json.loads((here / "fit-cpu.json").read_text())["cpu_seconds"]
        row["fit"] = json.loads(Path(str(new) + ".json").read_text())
        for name, spec in (("network", f"neural:{new}"), ("search", f"{args.teacher}@{new}")):
            res = measure(spec, args.against, rules, args.deals, here / f"vs-{name}", args.workers)
            row[name] = {k: res[k] for k in ("role_balanced_wp", "role_balanced_wp_ci", "score_margin",
                                             "score_margin_ci", "landlord_share", "deals", "cpu_a", "cpu_b")}
        rows.append(row)
        model = str(new.resolve())
        (root / "rounds.json").write_text(json.dumps(rows, indent=1) + "\n")
        lines = ["| round | states labelled | CPU s (label / fit) | network alone: WP, margin | "
                 "search over it: WP, margin |", "|---|---|---|---|---|"]
        for x in rows:
            def cell(m: Dict[str, Any]) -> str:
                lo, hi = m["role_balanced_wp_ci"]
                ci = f" [{lo:.3f}, {hi:.3f}]" if lo is not None else ""
                return f"{m['role_balanced_wp']:.3f}{ci}, {m['score_margin']:+.2f} ({m['deals']} deals)"
            lines.append(f"| {x['round']} | {x['states']:,} | {x['label_cpu_seconds']:,.0f} / "
                         f"{x['fit_cpu_seconds']:,.0f} | {cell(x['network'])} | {cell(x['search'])} |")
        (root / "rounds.md").write_text("\n".join(lines) + "\n")
        print("\n".join(lines), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
