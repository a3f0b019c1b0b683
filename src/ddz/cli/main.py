"""The ``ddz`` command line: play against bots, self-play at scale, list moves, benchmark,
replay a recorded hand. ``ddz <command> --help`` describes each command."""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from typing import Any, Dict, List, Optional, TextIO, Tuple

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from .._core import CardError, MoveError, legal_moves
from ..hand.game import Game
from ..core.rules import Rules
from ..core.variants import VARIANT
from ..search.simulate import simulate
from . import match as _cli_match
from . import solve as _cli_solve
from . import train as _cli_train
from .play import BOT_KINDS, VARIANTS, play_markup, print_result, rules_of, run_play, show_cards
from ..search.simulate import MAX_THREADS, concat
from ..core.cards import RANKS
from ..hand.record import VIEW_FORMAT, read_view
from ..draw import table
from ..hand.scoring import play_multiplier
from ..peers.bench import PRESETS as PEER_PRESETS

def _console(stream: Optional[TextIO] = None) -> Console:
    return Console(file=stream or sys.stdout, highlight=False, soft_wrap=True)


# ---- ddz moves -------------------------------------------------------------------------

def _cmd_moves(args: argparse.Namespace) -> int:
    rules = args.variant
    try:
        moves = legal_moves(args.hand, rules, prev=args.prev)
    except (CardError, MoveError) as e:
        print(f"ddz moves: {e}", file=sys.stderr)
        return 2
    groups: Dict[Any, list] = {}
    for m in moves:
        groups.setdefault(m.kind, []).append(m)
    what = f"beating {args.prev}" if args.prev else "leads"
    print(f"{len(moves)} legal plays ({what}) for {args.hand} under {rules!r}" + ("; or PASS" if args.prev else ""))
    for kind in sorted(groups):
        # in rank order, kickers too (333-4 before 333-K before 333-2), not alphabetically
        ms = sorted(groups[kind], key=lambda m: (m.chain_length, m.key, [RANKS.index(c) for c in str(m)]))
        print(f"{kind.name} ({len(ms)}): " + " ".join(str(m) for m in ms))
    return 0


# ---- ddz play --------------------------------------------------------------------------

def _cmd_play(args: argparse.Namespace, stdin: Optional[TextIO] = None, stdout: Optional[TextIO] = None) -> int:
    return run_play(args, stdin or sys.stdin, _console(stdout))


# ---- ddz selfplay ----------------------------------------------------------------------

def _cmd_selfplay(args: argparse.Namespace, stdout: Optional[TextIO] = None) -> int:
    con = _console(stdout)
    if args.games < 1 or not 1 <= args.threads <= MAX_THREADS:
        print(f"ddz selfplay: --games must be positive and --threads in 1..{MAX_THREADS}", file=sys.stderr)
        return 2
    try:  # opened before the games, so that a file that cannot be written stops the command at once
        out = open(args.out, "w", encoding="utf-8") if args.out else None
    except OSError as e:
        print(f"ddz selfplay: --out: {e}", file=sys.stderr)
        return 2
    with out or contextlib.nullcontext():
        return _selfplay(args, con, out)


def _selfplay(args: argparse.Namespace, con: Console, out: Optional[TextIO]) -> int:
    rules = args.variant
    chunks = []
    chunk = max(1, min(args.games, max(10_000, args.games // 100)))
    t0 = time.perf_counter()
    with Progress(TextColumn("self-play"), BarColumn(), TextColumn("{task.completed:,}/{task.total:,} games"),
                  TimeRemainingColumn(), console=_console(sys.stderr), transient=True,
                  disable=not sys.stderr.isatty()) as progress:
        task = progress.add_task("games", total=args.games)
        done = 0
        while done < args.games:
            n = min(chunk, args.games - done)
            chunks.append(simulate(rules, n, args.policy, args.seed, args.threads, first_game=done))
            done += n
            progress.update(task, completed=done)
    elapsed = time.perf_counter() - t0
    res = concat(chunks)
    s = res.summary
    # the play's part of the multiplier, by the same function as a Game's score (no bidding simulated)
    # (each distinct (bombs, rockets, spring) once: a run has few of them)
    combos, counts = np.unique(np.stack([res.bombs, res.rockets, res.spring | res.anti_spring], axis=1).astype(np.int64),
                               axis=0, return_counts=True)
    play_mult = float(sum(int(k) * play_multiplier(rules.variant, rules.options, int(b), int(r), bool(sp))
                          for (b, r, sp), k in zip(combos, counts)) / max(1, res.games))
    table = Table(title=f"ddz selfplay · {rules.variant} · {args.games:,} games · policy {args.policy} · "
                        f"seed {args.seed} · {args.threads} thread(s)")
    table.add_column("figure")
    table.add_column("value", justify="right")
    rows = [
        ("landlord win rate", f"{s['landlord_win_rate']:.4f}"),
        ("actions per game", f"{s['actions_per_game']:.2f}"),
        ("plays per game", f"{s['plays_per_game']:.2f}"),
        ("bombs per game", f"{s['bombs_per_game']:.4f}"),
        ("rockets per game", f"{s['rockets_per_game']:.4f}"),
    ]
    if not VARIANT[rules.variant].springs:  # BENGBU4: missiles, and no spring or play multiplier (docs/rules.md §8)
        rows.append(("missiles per game", f"{s['missiles_per_game']:.4f}"))
    else:
        rows += [("average play multiplier (bombs, spring)", f"{play_mult:.3f}"),
                 ("spring rate", f"{s['spring_rate']:.4f}"), ("anti-spring rate", f"{s['anti_spring_rate']:.4f}")]
    rows.append(("games/s", f"{args.games / elapsed:,.0f}"))
    for k, v in rows:
        table.add_row(k, v)
    con.print(table)
    if out is not None:
        for g in range(res.games):
            out.write(json.dumps({
                "game": g, "winner_side": "landlord" if res.winner_side[g] == 0 else "farmers",
                "landlord": int(res.landlord[g]), "actions": int(res.actions[g]), "plays": int(res.plays[g]),
                "bombs": int(res.bombs[g]), "rockets": int(res.rockets[g]), "spring": bool(res.spring[g]),
                "anti_spring": bool(res.anti_spring[g]), "missiles_landlord": int(res.missiles_landlord[g]),
                "missiles_farmers": int(res.missiles_farmers[g])}) + "\n")
        con.print(f"per-game results written to {args.out} (JSON lines)")
    return 0


# ---- ddz bench -------------------------------------------------------------------------

#: The README's headline figures that ``ddz bench`` times quickly: a row names the first cell of
#: the README's row it matches (tests/test_cli.py checks that the README has it), or gives the
#: reason it matches none.
README_BATCH = "move generation, batch path, 20-card CLASSIC3 leads"
README_SIMULATE = "`simulate`, CLASSIC3 random self-play, 1 / 2 threads"
NO_HEADLINE_PER_CALL = "none: one call per hand (the headline is the batch path)"
NO_HEADLINE_COUNT = "none: counts only"


def bench_rows(args: argparse.Namespace) -> List[Tuple[str, float, str]]:
    """``ddz bench``'s rows: (workload, per second, the README headline it matches or
    "none: why")."""
    import random as _random

    from .._core import count_moves, hand_words, legal_moves_array, legal_moves_batch

    rng = _random.Random(args.seed)
    deck = list("3456789TJQKA2" * 4 + "BR")
    hands = []
    for _ in range(args.hands):
        rng.shuffle(deck)
        hands.append("".join(deck[:20]))
    deck2 = list("3456789TJQKA2" * 8 + "BBRR")
    hands33 = []
    for _ in range(args.hands):
        rng.shuffle(deck2)
        hands33.append("".join(deck2[:33]))
    classic, bengbu = Rules.classic(), Rules.bengbu()
    words, words33 = hand_words(hands, classic), hand_words(hands33, bengbu)
    out = np.empty(300 * len(hands), dtype=np.uint64)
    moves = int(legal_moves_batch(words, classic, out=out)[0][-1])  # the leads of every hand

    def rate(fn, n):
        best = []
        for _ in range(3):
            t = time.perf_counter()
            fn()
            best.append(n / (time.perf_counter() - t))
        return sorted(best)[1]

    batch = rate(lambda: legal_moves_batch(words, classic, out=out), len(hands))
    rows = [("20-card CLASSIC3 leads, legal_moves_batch (hands)", batch,
             f"{README_BATCH}: here {1e9 * len(hands) / (batch * moves):.2f} ns a move"),
            ("20-card CLASSIC3 leads, legal_moves_array per call (hands)",
             rate(lambda: [legal_moves_array(h, classic) for h in hands], len(hands)), NO_HEADLINE_PER_CALL),
            ("20-card CLASSIC3 lead counts, batch count_only (hands)",
             rate(lambda: legal_moves_batch(words, classic, count_only=True), len(hands)), NO_HEADLINE_COUNT),
            ("20-card CLASSIC3 count_moves per call (hands)",
             rate(lambda: [count_moves(h, classic) for h in hands], len(hands)), NO_HEADLINE_PER_CALL),
            ("33-card BENGBU4 lead counts, batch count_only (hands)",
             rate(lambda: legal_moves_batch(words33, bengbu, count_only=True), len(hands33)), NO_HEADLINE_COUNT)]
    headline = {"classic": f"{README_SIMULATE}: the 1-thread figure"}  # the README's row is CLASSIC3's
    for variant in VARIANT:  # each variant once (the presets are its option sets)
        r = Rules.named(variant)
        rows.append((f"simulate {variant} random games, 1 thread (games)",
                     rate(lambda: simulate(r, args.games, 'random', args.seed), args.games),
                     headline.get(variant, "none: the headline is CLASSIC3's")))
    return rows


def _cmd_bench(args: argparse.Namespace, stdout: Optional[TextIO] = None) -> int:
    if args.hands < 1 or args.games < 1:
        print("ddz bench: --hands and --games must be positive", file=sys.stderr)
        return 2
    if args.rules is not None and args.rules.preset not in PEER_PRESETS:
        print(f"ddz bench: --rules {args.rules.preset}: no peer plays it; the peers play one of "
              f"{', '.join(PEER_PRESETS)}", file=sys.stderr)
        return 2
    con = _console(stdout)
    table = Table(title=f"ddz bench · {args.hands:,} seeded hands (seed {args.seed}) · median of 3",
                  caption="The README's headline figures come from benchmarks/ (docs/benchmarks.md); a row "
                          "here names the headline it matches, in that headline's unit where it differs.")
    table.add_column("workload")
    table.add_column("per second", justify="right")
    table.add_column("README headline it matches")
    for workload, per_second, headline in bench_rows(args):
        table.add_row(workload, f"{per_second:,.0f}", headline.replace("`", ""))
    con.print(table)
    if args.peers:
        from ..peers.bench import main as peers_main
        peers_main(["--hands", str(min(args.hands, 2000)), "--seed", str(args.seed)]
                   + (["--rules", args.rules.preset] if args.rules else []))
    return 0


# ---- ddz replay ------------------------------------------------------------------------

def _print_view(con: Console, name: str, view: Dict[str, Any]) -> int:
    """A ddz-view record: what one seat (or a spectator) saw; hidden cards are not in it."""
    decks = VARIANT[view["rules"]["variant"]].decks
    seat = view["seat"]
    who = "a spectator" if seat is None else f"seat {seat}"
    con.print(f"[bold]view[/] {name}: what {who} saw, {view['rules']['variant']}, "
              f"{len(view['deals'])} deal(s), {len(view['actions'])} action(s)")
    for i, dl in enumerate(view["deals"]):
        if dl.get("hand") is not None:
            con.print(f"deal {i}: seat {seat} dealt {show_cards(dl['hand'], decks)}")
    for n, a in enumerate(view["actions"], 1):
        con.print(f"{n:3d}. seat {a['seat']}: {play_markup(a['action'], decks)}")
    r = view.get("result")
    if r:
        con.print(f"[bold]hand over[/]: {r['kind']}" + (f", {r['winner_side']} win" if r.get("winner_side") else ""))
        con.print("scores: " + " ".join(str(x) for x in r["scores"]))
    else:
        con.print(f"(the view stops before the end of the hand: phase {view['observation'].get('phase')})")
    return 0


def _print_deal(con: Console, deal: Dict[str, Any], decks: int, indent: str = "") -> None:
    for seat, hand in enumerate(deal["hands"]):
        con.print(f"{indent}seat {seat} dealt: {show_cards(hand, decks)}")
    con.print(f"{indent}kitty: {show_cards(deal['kitty'], decks)}")
    if deal.get("aside"):
        con.print(f"{indent}set aside: {show_cards(deal['aside'], decks)}")


def _cmd_replay(args: argparse.Namespace, stdout: Optional[TextIO] = None, stdin: Optional[TextIO] = None) -> int:
    con = _console(stdout)
    stdin = stdin or sys.stdin
    try:
        with open(args.file, encoding="utf-8") as f:
            text = f.read()
        record = json.loads(text)
        if isinstance(record, dict) and record.get("format") == VIEW_FORMAT:
            if args.svg:
                print(f"ddz replay: --svg draws a game record (ddz-game); {args.file} is a seat's view "
                      f"(draw a view from Python: ddz.draw.table(game, seat=N))", file=sys.stderr)
                return 2
            return _print_view(con, args.file, read_view(text))
        g = Game.from_json(text)
    except (OSError, ValueError) as e:
        print(f"ddz replay: cannot replay {args.file}: {e}", file=sys.stderr)
        return 2
    if args.svg:  # the record's final table, written before the replay is printed
        try:
            table(g).save(args.svg)
        except OSError as e:
            print(f"ddz replay: --svg: {e}", file=sys.stderr)
            return 2
    decks = g.rules.decks
    con.print(f"[bold]replay[/] {args.file}: {g.rules!r}, seed {record['seed']}, "
              f"{len(record['deals'])} deal(s), {len(record['actions'])} action(s)"
              + (" · Enter steps, q quits" if args.step else ""))
    deal_no = 0
    _print_deal(con, record["deals"][0], decks)
    for n, (actor, token) in enumerate(g.history, 1):
        if args.step:
            line = stdin.readline()
            if not line or line.strip().lower() == "q":
                con.print("(stopped)")
                return 0
        if token == "REDEAL":
            deal_no += 1
            con.print(f"{n:3d}. system: REDEAL")
            _print_deal(con, record["deals"][deal_no], decks, indent="     ")
            continue
        con.print(f"{n:3d}. seat {actor}: {play_markup(token, decks)}")
    if g.is_over:
        print_result(con, g)
    else:
        con.print(f"(the record stops before the end of the hand: phase {g.phase})")
    if args.svg:
        con.print(f"final table written to {args.svg} (SVG)")
    return 0


# ---- parser ----------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ddz", description="ddz: a fast, faithful Dou Dizhu (斗地主) rules engine")
    from .._version import __version__
    p.add_argument("--version", action="version", version=f"ddz {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="command")

    pl = sub.add_parser("play", help="play one hand against bots in the terminal",
                        description="Play one seat of a hand against bots. Type cards by rank (33344456), "
                                    "'pass', a decision (call, no_call, …, or its number), '?' for the legal "
                                    "plays. Standard input may be a pipe.")
    pl.add_argument("--variant", default=None, type=rules_of, metavar="NAME",
                    help="rule variant: " + ", ".join(VARIANTS) + " (default classic; with --model, the "
                         "model's rules)")
    pl.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    pl.add_argument("--seed", type=int, default=None, help="deal seed (default: random)")
    pl.add_argument("--bot", default=None, choices=BOT_KINDS,
                    help="the other seats' bots: rules (RuleBot), random, neural (NeuralBot playing the model "
                         "shipped with ddz for the variant, or --model) or nsearch (NeuralSearchBot: the same model "
                         "searched over sampled deals) (default rules; neural with --model)")
    pl.add_argument("--model", default=None, metavar="PATH",
                    help="the model file (.npz, from ddz train) the neural bots play (default: the model shipped "
                         "for the variant, docs/models.md)")
    pl.add_argument("--record", default=None, metavar="FILE", help="write the game record (JSON) to FILE "
                    "(also when the hand is abandoned; default: none written)")
    pl.add_argument("--no-auto-pass", action="store_true",
                    help="ask even when PASS is the only legal action (by default the seat passes by itself)")
    pl.set_defaults(func=_cmd_play)

    sp = sub.add_parser("selfplay", help="C++ self-play at scale with a progress bar and a summary",
                        description="Deal and play N games in C++ (random landlord, no bidding) and summarise.")
    sp.add_argument("--variant", default=rules_of("classic"), type=rules_of, metavar="NAME",
                    help="rule variant: " + ", ".join(VARIANTS) + " (default classic)")
    sp.add_argument("--games", type=int, default=10_000, help="number of games (default 10000)")
    sp.add_argument("--threads", type=int, default=1, help="worker threads (default 1)")
    sp.add_argument("--policy", default="random", choices=["random", "greedy"], help="policy of every seat (default random)")
    sp.add_argument("--seed", type=int, default=0, help="series seed (default 0)")
    sp.add_argument("--out", default=None, metavar="FILE", help="write per-game results as JSON lines (default: none written)")
    sp.set_defaults(func=_cmd_selfplay)

    mv = sub.add_parser("moves", help="list the legal plays of a hand, grouped by kind",
                        description="List the legal plays of HAND (leads, or the plays that beat --prev).")
    mv.add_argument("hand", help="cards as 3456789TJQKA2BR characters, e.g. 33344456789TJQKA2BR")
    mv.add_argument("--prev", default=None, help="the play to beat (omit to lead)")
    mv.add_argument("--variant", default=rules_of("classic"), type=rules_of, metavar="NAME",
                    help="rule variant: " + ", ".join(VARIANTS) + " (default classic)")
    mv.set_defaults(func=_cmd_moves)

    bn = sub.add_parser("bench", help="engine throughput; --peers adds DouZero / RLCard / OpenSpiel side by side",
                        description="Throughput on standard seeded workloads; with --peers, the ratio table "
                                    "against whichever peers are installed.")
    bn.add_argument("--peers", action="store_true", help="also time the installed peer engines")
    bn.add_argument("--hands", type=int, default=5000, help="hands per workload (default 5000)")
    bn.add_argument("--games", type=int, default=20_000, help="games per simulate workload (default 20000)")
    bn.add_argument("--seed", type=int, default=1, help="deal and game seed of every workload (default 1)")
    bn.add_argument("--rules", default=None, type=rules_of, metavar="NAME",
                    help="with --peers: one ddz rules for every peer, a one-deck one the peers play: "
                         + ", ".join(PEER_PRESETS) + " or an alias (default: each peer's own rules)")
    bn.set_defaults(func=_cmd_bench)

    rp = sub.add_parser("replay", help="print a recorded hand move by move with the result",
                        description="Replay a game record written by Game.to_json() or `ddz play --record`, "
                                    "or print a seat's view written by Game.view_json(seat).")
    rp.add_argument("file", help="the record (JSON)")
    rp.add_argument("--step", action="store_true", help="one action per Enter (q quits)")
    rp.add_argument("--svg", default=None, metavar="FILE",
                    help="also write the record's final table, every hand face up, as an SVG picture to FILE "
                         "(default: none written)")
    rp.set_defaults(func=_cmd_replay)

    _cli_solve.add_parser(sub)
    _cli_train.add_parser(sub)
    _cli_match.add_parser(sub)
    from ..server import cli as _server_cli  # imports nothing optional until it runs
    _server_cli.add_parser(sub)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    """Runs one subcommand and returns its exit status (docs/cli.md, "Exit statuses"): 0 done,
    1 stopped short (the input ended, a time limit), 2 a bad command line or input (one line on
    stderr), 130 interrupted by Ctrl-C."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print(f"\nddz {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
