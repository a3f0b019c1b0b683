"""The ``ddz`` command line."""
from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from . import CardError, MoveError, Rules, legal_moves

_VARIANT_ALIASES = {"classic": "classic", "two-player": "two_player", "two_player": "two_player",
                    "twop": "two_player", "bengbu": "bengbu"}


def _rules(name: str) -> Rules:
    return getattr(Rules, _VARIANT_ALIASES[name])()


def _cmd_moves(args: argparse.Namespace) -> int:
    rules = _rules(args.variant)
    try:
        moves = legal_moves(args.hand, rules, prev=args.prev)
    except (CardError, MoveError) as e:
        print(f"ddz moves: {e}", file=sys.stderr)
        return 2
    groups: dict = {}
    for m in moves:
        groups.setdefault(m.kind, []).append(m)
    what = f"beating {args.prev}" if args.prev else "leads"
    print(f"{len(moves)} legal plays ({what}) for {args.hand} under {rules!r}" + ("; or PASS" if args.prev else ""))
    for kind in sorted(groups):
        ms = sorted(groups[kind], key=lambda m: (m.chain_length, m.key, str(m)))
        print(f"{kind.name} ({len(ms)}): " + " ".join(str(m) for m in ms))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ddz", description="Dou Dizhu rules engine")
    sub = p.add_subparsers(dest="command", required=True)
    mv = sub.add_parser("moves", help="list the legal plays of a hand, grouped by kind",
                        description="List the legal plays of HAND (leads, or the plays that beat --prev).")
    mv.add_argument("hand", help="cards as 3456789TJQKA2BR characters, e.g. 33344456789TJQKA2BR")
    mv.add_argument("--prev", default=None, help="the play to beat (omit to lead)")
    mv.add_argument("--variant", default="classic", choices=sorted(_VARIANT_ALIASES),
                    help="rule variant (default: classic)")
    mv.set_defaults(func=_cmd_moves)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
