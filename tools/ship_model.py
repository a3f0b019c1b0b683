"""Ships a training run's model with ddz: copies ``RUN_DIR/model.npz`` to
``src/ddz/learn/models/{variant}.npz`` and writes its entry in ``models/index.json``.

    python tools/ship_model.py benchmarks/results/train-classic-whole --hardware "2 shared cores"
    python tools/ship_model.py RUN_DIR --check      # only say whether it could be shipped
    python tools/ship_model.py RUN_DIR --decisions-from OTHER.npz   # OTHER's auction network

``--decisions-from`` ships the run's play networks with another model's decisions network (the
auction, 抢牌, 明打 / 暗打, 翻身 / 压迫): for a run whose play improved while its own decisions
degenerated. The other model must be of the same rules, features, action space and network, and
the entry names it (``decisions_from``).

The model must load (``NeuralModel.load``: this build's action space and encoder) and be at
most ``MAX_MODEL_BYTES`` (8 MiB); ``--float16`` stores its weights as float16 (half the bytes;
``NeuralModel.load`` computes in float32 as always), for a model whose float32 file is larger. The entry records the file's size and SHA-256 (checked at
load), the rules, the network, the feature set, the frames, and from the run's ``config.json``
and ``log.csv`` the seed, the objective, the training and CPU seconds, the last evaluation
against RuleBot and the ``ddz train`` command that reproduces the run. Then update the model
card (docs/models.md) and run tests/test_learn_shipped.py.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import shutil
import sys
import tempfile
from typing import Any, Dict, List, Optional

from ddz.learn import NeuralModel
from ddz.learn.shipped import INDEX_FILE, INDEX_FORMAT, MAX_MODEL_BYTES, MODELS_DIR

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC_MODELS = os.path.join(ROOT, "src", "ddz", "learn", "models")

# config.json keys the command states otherwise (or never: how the run was driven, not what it learned)
_NOT_OPTIONS = {"variant", "seed", "whole", "init", "grow", "frames", "hours", "cpu_hours", "out", "resume",
                "device", "learner_threads"}


def _train_options() -> Dict[str, argparse.Action]:
    """``ddz train``'s options by their config.json key, from the CLI's own parser: its defaults
    are the ones a reproducing command may leave out, and every option it gains is covered."""
    from ddz.cli.train import add_parser
    sub = argparse.ArgumentParser().add_subparsers()
    add_parser(sub)
    return {a.dest: a for a in sub.choices["train"]._actions if a.option_strings and a.dest not in _NOT_OPTIONS}


def _last_rows(path: str) -> List[Dict[str, str]]:
    if not os.path.exists(path):
        return []
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def train_command(variant: str, config: Dict[str, Any], frames: int, out: str, init: Optional[str] = None) -> str:
    """The ``ddz train`` command that reproduces a run of ``config`` (its frame budget given;
    ``init``: the model file it started from, as the reproducing chain names it)."""
    parts = ["ddz", "train", "--variant", config.get("variant", variant)]
    if init is not None:
        parts += ["--init", init] + (["--grow"] if config.get("grow") else [])
    for k, action in _train_options().items():
        v = config.get(k)
        if v is None or v == action.default or k not in config:
            continue
        if isinstance(action, argparse._StoreTrueAction):
            parts.append(action.option_strings[0])
        else:
            parts += [action.option_strings[0], ",".join(map(str, v)) if isinstance(v, list) else str(v)]
    if config.get("whole") is False:
        parts.append("--play-only")
    parts += ["--seed", str(config.get("seed", 0)), "--frames", str(frames), "--out", out]
    return " ".join(parts)


def compose_decisions(play: "NeuralModel", decisions: "NeuralModel") -> "NeuralModel":
    """``play``'s networks with ``decisions``'s decisions network (a whole-hands model's last
    position). Both must be whole-hands models of the same rules, features, action space and
    network; the meta is ``play``'s, with ``decisions_frames``: the other's frames."""
    for what, a, b in (("rules", play.rules, decisions.rules), ("network", play.net, decisions.net),
                       ("features", play.meta.get("encoder"), decisions.meta.get("encoder")),
                       ("action space", play.meta.get("action_space"), decisions.meta.get("action_space"))):
        if a != b:
            raise SystemExit(f"--decisions-from: the models differ in their {what}: {a!r} and {b!r}")
    if not (play.whole and decisions.whole):
        raise SystemExit("--decisions-from: both models must be whole-hands models (play-phase models make no decisions)")
    prefix = f"p{play.rules.players}."  # the decisions network follows the play positions
    arrays = {k: (decisions.arrays[k] if k.startswith(prefix) else v) for k, v in play.arrays.items()}
    return NeuralModel(play.rules, play.net, arrays,
                       meta={**play.meta, "decisions_frames": int(decisions.meta.get("frames", 0))})


def half_copy(src: str, dst: str) -> None:
    """The model file ``src`` written to ``dst`` with its weights as float16."""
    import numpy as np
    m = NeuralModel.load(src)
    NeuralModel(m.rules, m.net, {k: v.astype(np.float16) for k, v in m.arrays.items()},
                meta={**m.meta, "stored": "float16"}).save(dst)


def chain_command(variant: str, run_dirs: List[str], last_config: Dict[str, Any], frames: int,
                  whole: bool) -> str:
    """The commands that reproduce a model trained in steps: each earlier run (``run_dirs``, in
    order; each stopped at its ``model.npz``'s frames, or at ``RUN_DIR@FRAMES``'s) then the last, each after the first
    starting from the one before's model (``--init``)."""
    cmds, init = [], None
    for k, spec in enumerate(run_dirs):
        d, _, at = spec.partition("@")  # RUN_DIR@FRAMES: the run stopped earlier than its model.npz
        with open(os.path.join(d, "config.json"), encoding="utf-8") as f:
            cfg = json.load(f)
        out = f"runs/{variant}-{k + 1}"
        stopped = int(at) if at else int(NeuralModel.load(os.path.join(d, "model.npz")).meta.get("frames", 0))
        cmds.append(train_command(variant, {**cfg, "whole": whole}, stopped, out, init))
        init = f"{out}/model.npz"
    cmds.append(train_command(variant, {**last_config, "whole": whole}, frames, f"runs/{variant}", init))
    return " && ".join(cmds)


def entry_for(run_dir: str, hardware: Optional[str], source: Optional[str] = None,
              src: Optional[str] = None, after: Optional[List[str]] = None,
              decisions_from: Optional[str] = None) -> Dict[str, Any]:
    src = src or os.path.join(run_dir, "model.npz")
    model = NeuralModel.load(src)  # ModelError when this build cannot play it
    size = os.path.getsize(src)
    if size > MAX_MODEL_BYTES:
        raise SystemExit(f"{src} is {size:,} bytes; a shipped model is at most {MAX_MODEL_BYTES:,}")
    with open(src, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    variant = model.rules.variant
    config: Dict[str, Any] = {}
    if os.path.exists(os.path.join(run_dir, "config.json")):
        with open(os.path.join(run_dir, "config.json"), encoding="utf-8") as f:
            config = json.load(f)
    rows = _last_rows(os.path.join(run_dir, "log.csv"))
    timed = [r for r in rows if r.get("train_seconds")]
    evals = [r for r in rows if r.get("eval_wp")]
    frames = int(model.meta.get("frames", 0))
    entry: Dict[str, Any] = {
        "file": f"{variant}.npz", "bytes": size, "sha256": digest,
        "variant": variant, "rules": repr(model.rules), "preset": model.rules.preset,
        "whole": model.whole, "net": model.net, "params": model.num_params,
        "stored": model.meta.get("stored", "float32"),
        "objective": model.meta.get("objective", config.get("objective")), "frames": frames,
        "encoder": model.meta.get("encoder"), "action_space": model.meta.get("action_space"),
        "seed": config.get("seed"), "source": source or os.path.relpath(os.path.abspath(run_dir), ROOT),
        "train_command": chain_command(variant, list(after or []), config, frames, model.whole),
    }
    if after:
        entry["started_from"] = [os.path.relpath(os.path.abspath(d), ROOT) + (f"@{at}" if at else "")
                                 for d, _, at in (a.partition("@") for a in after)]
    if decisions_from:
        entry["decisions_from"] = {"file": os.path.relpath(os.path.abspath(decisions_from), ROOT),
                                   "frames": int(model.meta.get("decisions_frames", 0))}
    if timed:
        entry["train_seconds"] = float(timed[-1]["train_seconds"])
    cpu = [r for r in rows if r.get("cpu_seconds")]  # an evaluation's row has none
    if cpu:
        entry["cpu_seconds"] = float(cpu[-1]["cpu_seconds"])
    if evals and not decisions_from:  # the run's evaluations played its own decisions, not the shipped ones
        e = evals[-1]
        # a role the model never played (nan) is left out: the index stays strict JSON
        entry["eval_vs_rulebot"] = {k: float(e[k]) for k in ("eval_wp", "eval_wp_landlord", "eval_wp_farmer",
                                                             "eval_score", "eval_games")
                                    if e.get(k) and e[k].lower() != "nan"}
    if hardware:
        entry["hardware"] = hardware
    return entry


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir", help="a ddz train --out folder holding model.npz (and config.json, log.csv)")
    ap.add_argument("--hardware", default=None, help="what the run trained on, for the model card (default: unsaid)")
    ap.add_argument("--source", default=None, help="the run's name in the index (default: RUN_DIR from the repository)")
    ap.add_argument("--check", action="store_true", help="only check the model and print its entry")
    ap.add_argument("--after", action="append", default=[], metavar="RUN_DIR",
                    help="an earlier run this one started from (--init), in order, repeatable: the "
                         "reproducing command chains them; RUN_DIR@FRAMES for a run whose model.npz "
                         "went on past the model the next one started from (default: none)")
    ap.add_argument("--decisions-from", default=None, metavar="MODEL",
                    help="ship the run's play networks with MODEL's decisions network (the auction "
                         "and the other decisions; same rules, features and network) (default: the run's own)")
    ap.add_argument("--float16", action="store_true",
                    help="store the weights as float16 (half the size; computed in float32) (default: as trained)")
    args = ap.parse_args(argv)
    tmp = tempfile.mkdtemp()
    src = os.path.join(args.run_dir, "model.npz")
    if args.decisions_from:
        compose_decisions(NeuralModel.load(src), NeuralModel.load(args.decisions_from)).save(
            os.path.join(tmp, "composed.npz"))
        src = os.path.join(tmp, "composed.npz")
    if args.float16:
        half_copy(src, os.path.join(tmp, "model.npz"))
        src = os.path.join(tmp, "model.npz")
    entry = entry_for(args.run_dir, args.hardware, args.source, src, args.after, args.decisions_from)
    print(json.dumps(entry, indent=2))
    if args.check:
        return 0
    os.makedirs(SRC_MODELS, exist_ok=True)
    index_path = os.path.join(SRC_MODELS, INDEX_FILE)
    index: Dict[str, Any] = {"format": INDEX_FORMAT, "models": {}}
    if os.path.exists(index_path):
        with open(index_path, encoding="utf-8") as f:
            index = json.load(f)
    shutil.copyfile(src, os.path.join(SRC_MODELS, entry["file"]))
    shutil.rmtree(tmp, ignore_errors=True)
    index["models"][entry["variant"]] = entry
    index["models"] = dict(sorted(index["models"].items()))
    with open(index_path, "w", encoding="utf-8") as f:
        json.dump(index, f, indent=2, sort_keys=False)
        f.write("\n")
    if os.path.realpath(SRC_MODELS) != os.path.realpath(MODELS_DIR):
        print(f"note: this ddz reads its models from {MODELS_DIR}, not {SRC_MODELS}", file=sys.stderr)
    print(f"shipped {entry['variant']}: {entry['file']} ({entry['bytes']:,} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
