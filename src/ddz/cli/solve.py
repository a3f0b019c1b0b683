"""``ddz solve``: solve an open-hand position from the command line (registered by ddz.cli)."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from .._core import CardError, MoveError
from .play import VARIANTS, rules_of
from ..search.solver import SolveError, solve


def add_parser(sub: Any) -> None:
    sv = sub.add_parser("solve", help="solve an open-hand endgame (残局): who wins, the winning moves, a line",
                        description="Solve a position with every hand visible: HAND for seat 0, seat 1, … (2 to "
                                    "4 hands). The seat to move (--to-move, default 0) leads, or answers --prev "
                                    "played by the seat before it. Sides: seat 0 against the others, or --sides.")
    sv.add_argument("hands", nargs="+", metavar="HAND", help="cards as 3456789TJQKA2BR characters, e.g. KK5543")
    sv.add_argument("--rules", default=rules_of("classic"), type=rules_of, metavar="NAME",
                    help="combination rules: " + ", ".join(VARIANTS) + " (default classic)")
    sv.add_argument("--prev", default=None, metavar="PLAY", help="the play the seat to move must answer")
    sv.add_argument("--to-move", type=int, default=0, help="the seat to act (default 0)")
    sv.add_argument("--sides", default=None, help="a side id per seat, e.g. 011 (default: seat 0 against the others)")
    sv.add_argument("--all", action="store_true", help="list every winning first move, not only the first found")
    sv.add_argument("--time-limit", type=float, default=None, metavar="S", help="stop after S seconds (default: no limit)")
    sv.set_defaults(func=_cmd_solve)


def _cmd_solve(args: argparse.Namespace) -> int:
    rules = args.rules
    sides = None
    try:
        if args.sides is not None:
            if not args.sides.isdigit():
                raise SolveError(f"--sides takes one digit 0/1 per seat, not {args.sides!r}")
            sides = [int(c) for c in args.sides]
        sol = solve(args.hands, rules, to_move=args.to_move, prev=args.prev, sides=sides, all_moves=args.all,
                    time_limit=args.time_limit)
    except (CardError, MoveError, SolveError) as e:
        print(f"ddz solve: {e}", file=sys.stderr)
        return 2
    n = len(args.hands)
    side_of = sides or [0] + [1] * (n - 1)
    mover = args.to_move
    team = [s for s in range(n) if side_of[s] == side_of[mover]]
    who = f"seat {mover}" if len(team) == 1 else "seats " + "+".join(map(str, team))
    what = f"answers {args.prev}" if args.prev else "leads"
    print(f"{' vs '.join(args.hands)} under {rules!r}: seat {mover} {what}")
    if not sol.complete:
        print(f"unsolved: the time limit stopped the search after {sol.nodes:,} nodes ({sol.seconds:.2f} s)")
        return 1
    verb = ("wins" if sol.win else "loses") if len(team) == 1 else ("win" if sol.win else "lose")
    print(f"result: {who} {verb}" + ("" if sol.win else " against best play"))
    if sol.win:
        label = "winning moves" if args.all else "a winning move"
        print(f"{label}: {', '.join(str(m) for m in sol.moves)}")
    print("line: " + "  ".join(f"{s}:{m}" for s, m in sol.pv))
    print(f"{sol.nodes:,} nodes in {sol.seconds:.3f} s")
    return 0
