"""The ``ddz`` command line: play against bots, self-play at scale, list moves, benchmark,
replay a recorded hand. ``ddz <command> --help`` describes each command."""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import OrderedDict
from typing import Any, Dict, List, Optional, TextIO

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from . import CardError, Game, MoveError, Rules, legal_moves, simulate
from ._sim import concat
from .bots import RandomBot, RuleBot
from .cards import RANKS, card_id, card_rank

_VARIANT_ALIASES = {"classic": "classic", "two-player": "two_player", "two_player": "two_player",
                    "twop": "two_player", "bengbu": "bengbu"}
_VARIANT_CHOICES = ["classic", "two-player", "bengbu"]
_SUIT_SYMBOL = {"s": "♠", "h": "♥", "c": "♣", "d": "♦"}


def _rules(name: str) -> Rules:
    return getattr(Rules, _VARIANT_ALIASES[name])()


def _console(stream: Optional[TextIO] = None) -> Console:
    return Console(file=stream or sys.stdout, highlight=False, soft_wrap=True)


# ---- cards on screen ------------------------------------------------------------------

def _card_markup(name: str) -> str:
    if name.rstrip("'") == "R":
        return "[bold red]R[/]"
    if name.rstrip("'") == "B":
        return "[bold]B[/]"
    suit = name[1]
    sym = _SUIT_SYMBOL[suit]
    return f"[red]{sym}[/]" if suit in "hd" else sym


def show_cards(names: List[str], decks: int) -> str:
    """Cards grouped by rank, suits as symbols: '3♠♥ 4♣ … B R'."""
    groups: "OrderedDict[str, List[str]]" = OrderedDict()
    for n in sorted(names, key=lambda x: (card_rank(card_id(x, decks)), card_id(x, decks))):
        groups.setdefault(RANKS[card_rank(card_id(n, decks))], []).append(n)
    parts = []
    for rank, cards in groups.items():
        if rank in "BR":
            parts.append(" ".join(_card_markup(c) for c in cards))
        else:
            parts.append(f"[bold]{rank}[/]" + "".join(_card_markup(c) for c in cards))
    return " ".join(parts) if parts else "(none)"


def _play_markup(token: str, decks: int) -> str:
    if token.startswith("PLAY "):
        return "plays " + show_cards(token[5:].split(), decks)
    return token.lower().replace("_", " ")


# ---- ddz moves -------------------------------------------------------------------------

def _cmd_moves(args: argparse.Namespace) -> int:
    rules = _rules(args.variant)
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
        ms = sorted(groups[kind], key=lambda m: (m.chain_length, m.key, str(m)))
        print(f"{kind.name} ({len(ms)}): " + " ".join(str(m) for m in ms))
    return 0


# ---- ddz play --------------------------------------------------------------------------

def _role(g: Game, seat: int) -> str:
    if g.landlord is None:
        return ""
    return " (landlord)" if seat == g.landlord else " (farmer)"


def _show_state(con: Console, g: Game, seat: int) -> None:
    obs = g.observation(seat)
    con.print(f"[dim]phase {obs['phase']} · cards left " +
              ", ".join(f"seat {s}: {n}" for s, n in enumerate(obs["cards_left"])) +
              f" · multiplier {obs['multiplier']} {obs['factors']}[/]")
    for s, cards in obs["shown"].items():
        con.print(f"seat {s}{_role(g, s)} shows: {show_cards(cards, g.rules.decks)}")
    if obs["kitty"] is not None:
        con.print(f"kitty: {show_cards(obs['kitty'], g.rules.decks)}")
    if obs["top"] is not None:
        con.print(f"to beat: [bold]{obs['top'][1]}[/] by seat {obs['top'][0]}")
    con.print(f"your hand (seat {seat}{_role(g, seat)}): {show_cards(obs['cards'], g.rules.decks)}")


def _read_action(con: Console, g: Game, seat: int, stdin: TextIO) -> Optional[str]:
    """Asks until the input is legal; returns None at the end of input."""
    legal = g.legal_actions()
    while True:
        if g.phase == "PLAY":
            prompt = "your play (cards like 33344456, 'pass', '?' for the legal plays): "
        else:
            prompt = "choose " + " / ".join(f"{i + 1}={t}" for i, t in enumerate(legal)) + ": "
        con.print(prompt, end="")
        line = stdin.readline()
        if not line:
            return None
        text = line.strip()
        if not stdin.isatty():
            con.print(text)
        if text in ("?", "help"):
            con.print("legal: " + ", ".join(t[5:] if t.startswith("PLAY ") else t for t in legal))
            continue
        if not text:
            continue
        token = text
        if g.phase != "PLAY":
            if text.isdigit() and 1 <= int(text) <= len(legal):
                token = legal[int(text) - 1]
            else:
                token = text.upper().replace(" ", "_")
        elif text.lower() in ("pass", "p"):
            token = "PASS"
        try:
            return g.apply(token)
        except ValueError as e:
            con.print(f"[yellow]not accepted: {e}[/]")


def _cmd_play(args: argparse.Namespace, stdin: Optional[TextIO] = None, stdout: Optional[TextIO] = None) -> int:
    con = _console(stdout)
    stdin = stdin or sys.stdin
    rules = _rules(args.variant)
    g = Game(rules, seed=args.seed)
    if not 0 <= args.seat < g.num_players:
        print(f"ddz play: --seat must be 0..{g.num_players - 1}", file=sys.stderr)
        return 2
    for s in range(g.num_players):
        if s != args.seat:
            g.set_bot(s, RuleBot() if args.bot == "rules" else RandomBot(None if args.seed is None else args.seed + s))
    con.print(f"[bold]ddz {args.variant}[/] · you are seat {args.seat} · seed {g.seed} · bots: {args.bot}")
    shown = 0
    last_phase = None
    while not g.is_over:
        g.step_bots()
        hist = g.history
        for actor, token in hist[shown:]:
            who = "system" if actor is None else f"seat {actor}{_role(g, actor)}"
            con.print(f"{who}: {_play_markup(token, rules.decks)}")
        shown = len(hist)
        if g.is_over:
            break
        if g.phase != last_phase or g.phase == "PLAY":
            _show_state(con, g, args.seat)
            last_phase = g.phase
        if _read_action(con, g, args.seat, stdin) is None:
            con.print("\n[yellow]end of input: the hand is abandoned[/]")
            return 1
    hist = g.history
    for actor, token in hist[shown:]:
        who = "system" if actor is None else f"seat {actor}{_role(g, actor)}"
        con.print(f"{who}: {_play_markup(token, rules.decks)}")
    _print_result(con, g)
    if args.record:
        with open(args.record, "w", encoding="utf-8") as f:
            f.write(g.to_json())
        con.print(f"record written to {args.record}")
    return 0


def _print_result(con: Console, g: Game) -> None:
    r = g.result
    assert r is not None, "the hand is not over"
    con.print(f"[bold]hand over[/]: {r.kind}" + (f", {r.winner_side} win" if r.winner_side else "")
              + (f" (seat {r.winner_seat} went out)" if r.winner_seat is not None else ""))
    con.print(f"multiplier {r.multiplier} = " + " × ".join(f"{k} {v}" for k, v in r.factors.items()))
    if r.spring or r.anti_spring:
        con.print("spring!" if r.spring else "anti-spring!")
    table = Table("seat", "role", "score")
    for s, score in enumerate(r.scores):
        table.add_row(str(s), "landlord" if s == r.landlord else "farmer" if r.landlord is not None else "-",
                      str(score))
    con.print(table)
    con.print("scores: " + " ".join(str(x) for x in r.scores))


# ---- ddz selfplay ----------------------------------------------------------------------

def _cmd_selfplay(args: argparse.Namespace, stdout: Optional[TextIO] = None) -> int:
    con = _console(stdout)
    rules = _rules(args.variant)
    if args.games < 1 or args.threads < 1:
        print("ddz selfplay: --games and --threads must be positive", file=sys.stderr)
        return 2
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
    mult = res.spring.astype(int) + res.anti_spring.astype(int) + 1
    if rules.variant != "bengbu":  # CLASSIC3 / TWOP: bombs and rockets double (no bidding simulated)
        play_mult = float((2.0 ** res.bombs * mult).mean())
    else:
        play_mult = 1.0
    table = Table(title=f"ddz selfplay · {args.variant} · {args.games:,} games · policy {args.policy} · "
                        f"seed {args.seed} · {args.threads} thread(s)")
    table.add_column("figure")
    table.add_column("value", justify="right")
    rows = [
        ("landlord win rate", f"{s['landlord_win_rate']:.4f}"),
        ("average play multiplier (bombs, spring)", f"{play_mult:.3f}"),
        ("actions per game", f"{s['actions_per_game']:.2f}"),
        ("plays per game", f"{s['plays_per_game']:.2f}"),
        ("bombs per game", f"{s['bombs_per_game']:.4f}"),
        ("rockets per game", f"{s['rockets_per_game']:.4f}"),
        ("spring rate", f"{s['spring_rate']:.4f}"),
        ("anti-spring rate", f"{s['anti_spring_rate']:.4f}"),
        ("missiles per game", f"{s['missiles_per_game']:.4f}"),
        ("games/s", f"{args.games / elapsed:,.0f}"),
    ]
    for k, v in rows:
        table.add_row(k, v)
    con.print(table)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            for g in range(res.games):
                f.write(json.dumps({
                    "game": g, "winner_side": "landlord" if res.winner_side[g] == 0 else "farmers",
                    "landlord": int(res.landlord[g]), "actions": int(res.actions[g]), "plays": int(res.plays[g]),
                    "bombs": int(res.bombs[g]), "rockets": int(res.rockets[g]), "spring": bool(res.spring[g]),
                    "anti_spring": bool(res.anti_spring[g]), "missiles_landlord": int(res.missiles_landlord[g]),
                    "missiles_farmers": int(res.missiles_farmers[g])}) + "\n")
        con.print(f"per-game results written to {args.out} (JSON lines)")
    return 0


# ---- ddz bench -------------------------------------------------------------------------

def _cmd_bench(args: argparse.Namespace, stdout: Optional[TextIO] = None) -> int:
    import random as _random

    import numpy as np

    from . import count_moves, hand_words, legal_moves_array, legal_moves_batch

    con = _console(stdout)
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

    def rate(fn, n):
        best = []
        for _ in range(3):
            t = time.perf_counter()
            fn()
            best.append(n / (time.perf_counter() - t))
        return sorted(best)[1]

    table = Table(title=f"ddz bench · {args.hands:,} seeded hands (seed {args.seed}) · median of 3")
    table.add_column("workload")
    table.add_column("per second", justify="right")
    table.add_row("20-card CLASSIC3 leads, legal_moves_batch (hands)",
                  f"{rate(lambda: legal_moves_batch(words, classic, out=out), len(hands)):,.0f}")
    table.add_row("20-card CLASSIC3 leads, legal_moves_array per call (hands)",
                  f"{rate(lambda: [legal_moves_array(h, classic) for h in hands], len(hands)):,.0f}")
    table.add_row("20-card CLASSIC3 lead counts, batch count_only (hands)",
                  f"{rate(lambda: legal_moves_batch(words, classic, count_only=True), len(hands)):,.0f}")
    table.add_row("20-card CLASSIC3 count_moves per call (hands)",
                  f"{rate(lambda: [count_moves(h, classic) for h in hands], len(hands)):,.0f}")
    table.add_row("33-card BENGBU4 lead counts, batch count_only (hands)",
                  f"{rate(lambda: legal_moves_batch(words33, bengbu, count_only=True), len(hands33)):,.0f}")
    for variant in ("classic", "two_player", "bengbu"):
        r = getattr(Rules, variant)()
        table.add_row(f"simulate {variant} random games, 1 thread (games)",
                      f"{rate(lambda: simulate(r, args.games, 'random', args.seed), args.games):,.0f}")
    con.print(table)
    if args.peers:
        from .bench_peers import main as peers_main
        peers_main(["--hands", str(min(args.hands, 2000)), "--seed", str(args.seed)]
                   + (["--rules", args.rules] if args.rules else []))
    return 0


# ---- ddz replay ------------------------------------------------------------------------

def _cmd_replay(args: argparse.Namespace, stdout: Optional[TextIO] = None) -> int:
    con = _console(stdout)
    try:
        with open(args.file, encoding="utf-8") as f:
            text = f.read()
        record = json.loads(text)
        g = Game.from_json(text)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"ddz replay: cannot replay {args.file}: {e}", file=sys.stderr)
        return 2
    decks = g.rules.decks
    con.print(f"[bold]replay[/] {args.file}: {g.rules!r}, seed {record['seed']}, "
              f"{len(record['deals'])} deal(s), {len(record['actions'])} action(s)")
    deal_no = 0
    first = record["deals"][0]
    for s, hand in enumerate(first["hands"]):
        con.print(f"seat {s} dealt: {show_cards(hand, decks)}")
    for n, (actor, token) in enumerate(g.history, 1):
        if token == "REDEAL":
            deal_no += 1
            con.print(f"{n:3d}. system: REDEAL")
            for seat, hand in enumerate(record["deals"][deal_no]["hands"]):
                con.print(f"     seat {seat} dealt: {show_cards(hand, decks)}")
            continue
        con.print(f"{n:3d}. seat {actor}: {_play_markup(token, decks)}")
    if g.is_over:
        _print_result(con, g)
    else:
        con.print(f"(the record stops before the end of the hand: phase {g.phase})")
    return 0


# ---- parser ----------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ddz", description="ddz: a fast, faithful Dou Dizhu (斗地主) rules engine")
    sub = p.add_subparsers(dest="command", required=True, metavar="command")

    pl = sub.add_parser("play", help="play one hand against bots in the terminal",
                        description="Play one seat of a hand against bots. Type cards by rank (33344456), "
                                    "'pass', a decision (call, no_call, …, or its number), '?' for the legal "
                                    "plays. Standard input may be a pipe.")
    pl.add_argument("--variant", default="classic", choices=_VARIANT_CHOICES, help="rule variant (default classic)")
    pl.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    pl.add_argument("--seed", type=int, default=None, help="deal seed (default: random)")
    pl.add_argument("--bot", default="rules", choices=["rules", "random"], help="the other seats' bots")
    pl.add_argument("--record", default=None, metavar="FILE", help="write the game record (JSON) to FILE")
    pl.set_defaults(func=_cmd_play)

    sp = sub.add_parser("selfplay", help="C++ self-play at scale with a progress bar and a summary",
                        description="Deal and play N games in C++ (random landlord, no bidding) and summarise.")
    sp.add_argument("--variant", default="classic", choices=_VARIANT_CHOICES, help="rule variant (default classic)")
    sp.add_argument("--games", type=int, default=10_000, help="number of games (default 10000)")
    sp.add_argument("--threads", type=int, default=1, help="worker threads (default 1)")
    sp.add_argument("--policy", default="random", choices=["random", "greedy"], help="policy of every seat")
    sp.add_argument("--seed", type=int, default=0, help="series seed (default 0)")
    sp.add_argument("--out", default=None, metavar="FILE", help="write per-game results as JSON lines")
    sp.set_defaults(func=_cmd_selfplay)

    mv = sub.add_parser("moves", help="list the legal plays of a hand, grouped by kind",
                        description="List the legal plays of HAND (leads, or the plays that beat --prev).")
    mv.add_argument("hand", help="cards as 3456789TJQKA2BR characters, e.g. 33344456789TJQKA2BR")
    mv.add_argument("--prev", default=None, help="the play to beat (omit to lead)")
    mv.add_argument("--variant", default="classic", choices=sorted(_VARIANT_ALIASES), help="rule variant")
    mv.set_defaults(func=_cmd_moves)

    bn = sub.add_parser("bench", help="engine throughput; --peers adds DouZero / RLCard / OpenSpiel side by side",
                        description="Throughput on standard seeded workloads; with --peers, the ratio table "
                                    "against whichever peers are installed.")
    bn.add_argument("--peers", action="store_true", help="also time the installed peer engines")
    bn.add_argument("--hands", type=int, default=5000, help="hands per workload (default 5000)")
    bn.add_argument("--games", type=int, default=20_000, help="games per simulate workload (default 20000)")
    bn.add_argument("--seed", type=int, default=1)
    bn.add_argument("--rules", default=None, choices=("classic", "classic_douzero", "classic_rlcard",
                                                       "classic_openspiel", "two_player"),
                    help="with --peers: one ddz preset for every peer (default: each peer's own rules)")
    bn.set_defaults(func=_cmd_bench)

    rp = sub.add_parser("replay", help="print a recorded hand move by move with the result",
                        description="Replay a game record written by Game.to_json() or `ddz play --record`.")
    rp.add_argument("file", help="the record (JSON)")
    rp.set_defaults(func=_cmd_replay)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
