"""Runs the fuzz targets of ``tests/fuzz/targets.py`` and ``tests/fuzz/targets_*.py``.

    python -m tests.fuzz.run                          # every target, 2,000 inputs each
    python -m tests.fuzz.run --runs 200000            # a long run (see docs/fuzzing.md)
    python -m tests.fuzz.run --target batch --seconds 60
    python -m tests.fuzz.run --engine atheris --target from_json --runs 100000
    python -m tests.fuzz.run --reproduce <hex>  --target cards

The built-in engine is a seeded mutation fuzzer without coverage feedback: it draws random
byte strings and mutates a sample of the inputs it has tried (bit flips, byte changes,
inserts, deletes, splices, interesting bytes); the targets turn bytes into structured
calls (tests/fuzz/provider.py), so random bytes already reach deep paths. atheris, where it
installs (``pip install atheris``), adds Python coverage guidance. Either way a finding
prints the target, the exception and the input as hex, and the run exits with status 1.
"""
from __future__ import annotations

import argparse
import importlib
import pathlib
import random
import sys
import time
import traceback
from typing import Callable, Dict, List, Optional, Tuple

from .targets import TARGETS as _BASE_TARGETS


def load_targets() -> Dict[str, Callable[[bytes], None]]:
    """The targets of tests/fuzz/targets.py and of every tests/fuzz/targets_*.py module (each
    defines a ``TARGETS`` dict); a name defined twice is an error, not a silent override."""
    out: Dict[str, Callable[[bytes], None]] = dict(_BASE_TARGETS)
    here = pathlib.Path(__file__).resolve().parent
    for path in sorted(here.glob("targets_*.py")):
        mod = importlib.import_module(f"{__package__}.{path.stem}")
        for name, fn in getattr(mod, "TARGETS", {}).items():
            if name in out and out[name] is not fn:
                raise RuntimeError(f"fuzz target {name!r} of {path.name} is defined twice")
            out[name] = fn
    return out


TARGETS = load_targets()

INTERESTING = [0, 1, 2, 3, 4, 7, 8, 15, 16, 0x7F, 0x80, 0xFF]


def mutate(rng: random.Random, data: bytes, corpus: List[bytes]) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        k = rng.randrange(7)
        if k == 0 and b:
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        elif k == 1 and b:
            b[rng.randrange(len(b))] = rng.randrange(256)
        elif k == 2:
            b.insert(rng.randint(0, len(b)), rng.randrange(256))
        elif k == 3 and b:
            del b[rng.randrange(len(b))]
        elif k == 4 and corpus:
            other = rng.choice(corpus)
            cut = rng.randint(0, len(b))
            b = b[:cut] + other[rng.randint(0, len(other)):]
        elif k == 5 and b:
            b[rng.randrange(len(b))] = rng.choice(INTERESTING)
        else:
            b += bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    return bytes(b[:4096])


def run_builtin(name: str, fn: Callable[[bytes], None], runs: Optional[int], seconds: Optional[float],
                seed: int, progress: Optional[float] = None) -> Tuple[int, Optional[Tuple[bytes, str]]]:
    """Returns (inputs tried, finding or None). ``progress``: print the count every that many
    seconds (a long run stopped early still tells how far it got)."""
    rng = random.Random(f"{name}:{seed}")
    corpus: List[bytes] = [b""]
    t0 = time.monotonic()
    deadline = t0 + seconds if seconds else None
    next_report = t0 + progress if progress else None
    tried = 0
    while (runs is None or tried < runs) and (deadline is None or time.monotonic() < deadline):
        if next_report is not None and time.monotonic() >= next_report:
            print(f"{name:12s} {tried:>10,d} inputs  {time.monotonic() - t0:8.1f} s  (running)", flush=True)
            next_report += progress  # type: ignore[operator]
        if rng.random() < 0.3 or len(corpus) < 8:
            data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 96)))
        else:
            data = mutate(rng, rng.choice(corpus), corpus)
        tried += 1
        try:
            fn(data)
        except Exception:  # noqa: BLE001 - any exception escaping a target is a finding
            return tried, (data, traceback.format_exc())
        if len(corpus) < 256 and rng.random() < 0.05:
            corpus.append(data)
    return tried, None


def run_atheris(name: str, fn: Callable[[bytes], None], runs: int) -> None:
    import atheris  # optional: pip install atheris

    atheris.instrument_all()
    atheris.Setup([sys.argv[0], f"-runs={runs}", "-max_len=4096"], fn)
    atheris.Fuzz()


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.run", description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", default="all", help=f"one of {', '.join(TARGETS)} or all (default)")
    ap.add_argument("--runs", type=int, default=None, help="inputs per target (default 2000 unless --seconds)")
    ap.add_argument("--seconds", type=float, default=None, help="time per target")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--progress", type=float, default=None, metavar="SECONDS",
                    help="print the count of inputs tried every SECONDS")
    ap.add_argument("--engine", choices=("builtin", "atheris"), default="builtin")
    ap.add_argument("--reproduce", metavar="HEX", help="run one input (as printed by a finding)")
    args = ap.parse_args(argv)
    names = list(TARGETS) if args.target == "all" else [args.target]
    for n in names:
        if n not in TARGETS:
            ap.error(f"unknown target {n!r}")
    if args.reproduce is not None:
        TARGETS[names[0]](bytes.fromhex(args.reproduce))
        print("no finding")
        return 0
    if args.engine == "atheris":
        if len(names) != 1:
            ap.error("atheris runs one target at a time: give --target")
        run_atheris(names[0], TARGETS[names[0]], args.runs or 100_000)
        return 0
    runs = args.runs if args.runs is not None or args.seconds is not None else 2000
    total = 0
    t0 = time.monotonic()
    for n in names:
        t = time.monotonic()
        tried, finding = run_builtin(n, TARGETS[n], runs, args.seconds, args.seed, args.progress)
        total += tried
        dt = time.monotonic() - t
        print(f"{n:12s} {tried:>10,d} inputs  {dt:8.1f} s  {tried / max(dt, 1e-9):>9,.0f}/s", flush=True)
        if finding:
            data, tb = finding
            print(f"FINDING in target {n}: input {data.hex()}\n{tb}", file=sys.stderr)
            return 1
    print(f"{'total':12s} {total:>10,d} inputs  {time.monotonic() - t0:8.1f} s, no finding")
    return 0


if __name__ == "__main__":
    sys.exit(main())
