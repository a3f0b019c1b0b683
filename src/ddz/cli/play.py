"""``ddz play``: one seat of a hand against bots, in a terminal or through a pipe.

What the screen shows, and why: the player's hand grouped by rank (second copies of a
two-deck card marked), every seat's action as it happens, a "you lead" or "to beat" line,
a marker when a trick closes, the multiplier as its factors (``×2 rob · ×2 bomb = ×4``),
a tracker of the cards still out by rank, BENGBU4 bomb limits, and each decision explained
when it is offered. A seat whose only legal action is PASS passes by itself (unless
``--no-auto-pass``). Ctrl-C and the end of input end the hand cleanly and still write the
record when ``--record`` was given.
"""
from __future__ import annotations

import argparse
import contextlib
import sys
from collections import Counter, OrderedDict
from typing import Any, Callable, Dict, List, Mapping, Optional, TextIO, Tuple

from rich.console import Console
from rich.table import Table

from ..search.bots import RandomBot, RuleBot
from ..core.cards import RANKS, card_id, card_rank
from ..core.errors import ArgumentError, DdzError
from ..hand.game import Game
from ..hand.tricks import Tricks
from ..draw.words import action_words, format_factors
from ..core.rules import RULES_NAMES, Rules
from ..core.variants import VARIANT

__all__ = ["VARIANTS", "BOT_KINDS", "rules_of", "neural_bot", "show_cards", "play_markup", "format_factors", "print_result", "run_play",
           "DECISION_HELP"]

# One set of rules names for every subcommand: Rules.named's (the variants, the compat presets,
# their aliases).
VARIANTS: Mapping[str, str] = RULES_NAMES
#: ``ddz play --bot``: RuleBot, RandomBot, NeuralBot (a shipped model or ``--model``) or
#: NeuralSearchBot over that model (its variant's strongest measured settings).
BOT_KINDS = ("rules", "random", "neural", "nsearch")


def rules_of(name: str) -> Rules:
    """The rules a name stands for (``Rules.named``), as an argparse type."""
    try:
        return Rules.named(name)
    except DdzError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


_SUIT_SYMBOL = {"s": "♠", "h": "♥", "c": "♣", "d": "♦"}

DECISION_HELP: Dict[str, str] = {
    "CALL": "bid to be the landlord",
    "NO_CALL": "do not bid",
    "ROB": "rob the landlord seat from the caller (doubles the stake)",
    "NO_ROB": "let the caller keep it",
    "SHOW": "play with your hand face up (doubles the stake)",
    "NO_SHOW": "keep your hand hidden",
    "SHOW_START": "show your hand from the deal on (×5), and bid first",
    "NORMAL_START": "start normally, hand hidden",
    "FANSHEN": "翻身: the farmer doubles the stake (×2)",
    "NO_FANSHEN": "no counter-attack",
    "YAPO": "压迫: the landlord doubles back (×4 in all)",
    "NO_YAPO": "accept the ×2",
    "BID1": "bid 1 point",
    "BID2": "bid 2 points",
    "BID3": "bid 3 points (the highest bid)",
    "GRAB": "抢牌: take the landlord seat at 3 points at once, playing open",
    "OPEN": "明打: play with your hand face up (a win pays ×3, a loss ×2)",
    "CLOSED": "暗打: play hidden (×1)",
    "PASS": "do not play to this trick",
}


# ---- cards on screen ------------------------------------------------------------------------

def _card_markup(name: str) -> str:
    second = name.endswith("'")
    base = name.rstrip("'")
    mark = "ʹ" if second else ""  # the second deck's copy
    if base == "R":
        return f"[bold red]R{mark}[/]"
    if base == "B":
        return f"[bold]B{mark}[/]"
    sym = _SUIT_SYMBOL[base[1]]
    return (f"[red]{sym}{mark}[/]" if base[1] in "hd" else f"{sym}{mark}")


def show_cards(names: List[str], decks: int) -> str:
    """Cards grouped by rank, suits as symbols, a second deck's copy marked: '3♠♥ J♠♥♠ʹ B R'."""
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


def play_markup(token: str, decks: int) -> str:
    if token.startswith("PLAY "):
        return "plays " + show_cards(token[5:].split(), decks)
    return action_words(token)


def print_result(con: Console, g: Game) -> None:
    r = g.result
    assert r is not None, "the hand is not over"
    con.print(f"[bold]hand over[/]: {r.kind}" + (f", {r.winner_side} win" if r.winner_side else "")
              + (f" (seat {r.winner_seat} went out)" if r.winner_seat is not None else ""))
    if r.kind in ("normal", "escape"):
        con.print(format_factors(r.factors, r.multiplier))
    if r.spring or r.anti_spring:
        con.print("spring!" if r.spring else "anti-spring!")
    if r.special_holders:
        con.print("at the deal: " + ", ".join(f"seat {s}: {' '.join(m)}" for s, m in r.special_holders.items()))
    table = Table("seat", "role", "score")
    for s, score in enumerate(r.scores):
        table.add_row(str(s), "landlord" if s == r.landlord else "farmer" if r.landlord is not None else "-",
                      str(score))
    con.print(table)
    con.print("scores: " + " ".join(str(x) for x in r.scores))


# ---- the table ----------------------------------------------------------------------------

def _role(g: Game, seat: int) -> str:
    if g.landlord is None:
        return ""
    return " (landlord)" if seat == g.landlord else " (farmer)"


def _cards_out(g: Game, seat: int) -> str:
    """The cards no one has played yet that this seat does not hold, by rank ('out: 3×4 …')."""
    decks = g.rules.decks
    full = Counter({r: (4 * decks if i < 13 else decks) for i, r in enumerate(RANKS)})
    seen = Counter(RANKS[card_rank(card_id(c, decks))] for c in g.observation(seat)["cards"])
    for _, token in g.history:
        if token.startswith("PLAY "):
            seen.update(RANKS[card_rank(card_id(c, decks))] for c in token[5:].split())
    left = [(r, full[r] - seen[r]) for r in RANKS if full[r] - seen[r] > 0]
    return " ".join(f"{r}×{n}" if n > 1 else r for r, n in left) or "(none)"


class _Screen:
    """One person's view of a running hand, printed as it goes."""

    def __init__(self, con: Console, g: Game, seat: int, auto_pass: bool) -> None:
        self.con, self.g, self.seat, self.auto_pass = con, g, seat, auto_pass
        self.shown = 0
        self.last_phase: Optional[str] = None
        self.tricks = Tricks(g.num_players)

    def catch_up(self) -> None:
        """Prints the actions since the last call, and a marker after each one that closed a
        trick (also when the bots close it and lead again before the player acts)."""
        g, decks = self.g, self.g.rules.decks
        hist = g.history
        for actor, token in hist[self.shown:]:
            who = "system" if actor is None else ("you" if actor == self.seat else f"seat {actor}{_role(g, actor)}")
            self.con.print(f"{who}: {play_markup(token, decks)}")
            leader = self.tricks.follow(actor, token)
            if leader is not None:
                self.con.print(f"[dim]── trick to seat {leader} ──[/]")
        self.shown = len(hist)

    def show_state(self) -> None:
        g, seat, con = self.g, self.seat, self.con
        obs = g.observation(seat)
        decks = g.rules.decks
        con.print(f"[dim]phase {obs['phase']} · cards left " +
                  ", ".join(f"seat {s}: {n}" for s, n in enumerate(obs["cards_left"])) +
                  f" · {format_factors(obs['factors'], obs['multiplier'], obs['phase'])}[/]")
        ps = g.play_state
        if ps is not None and VARIANT[g.rules.variant].bomb_limits and any(x is not None for x in ps.bomb_limits):
            con.print("[dim]bomb limits: " + ", ".join(
                f"seat {s}: {'no limit' if x is None else f'{ps.bombs_played(s)}/{x} used'}"
                for s, x in enumerate(ps.bomb_limits)) + "[/]")
        for s, cards in obs["shown"].items():
            con.print(f"seat {s}{_role(g, s)} shows: {show_cards(cards, decks)}")
        if obs["kitty"] is not None:
            con.print(f"kitty: {show_cards(obs['kitty'], decks)}")
        if obs["phase"] == "PLAY":
            if obs["top"] is None:
                con.print("[bold]you lead[/]: play any combination")
            else:
                con.print(f"to beat: [bold]{obs['top'][1]}[/] by seat {obs['top'][0]}")
            con.print(f"[dim]out: {_cards_out(g, seat)}[/]")
        if obs["phase"] == "PRE_DEAL":
            con.print("the cards are dealt after both seats decide how to start")
        else:
            role = _role(g, seat).strip(" ()")
            con.print(f"your hand (seat {seat}{', ' + role if role else ''}): {show_cards(obs['cards'], decks)}")

    def read_action(self, stdin: TextIO) -> Optional[str]:
        """Asks until the input is legal; returns None at the end of input."""
        g, con = self.g, self.con
        legal = g.legal_actions()
        if self.auto_pass and legal == ["PASS"]:
            con.print("[dim]you cannot beat it: pass[/]")
            return g.apply("PASS", seat=self.seat)
        if g.phase != "PLAY":
            for i, t in enumerate(legal, 1):
                con.print(f"  {i} = {t.lower()}: {DECISION_HELP.get(t, '')}")
        while True:
            if g.phase == "PLAY":
                prompt = "your play (cards like 33344456, 'pass', '?' for the legal plays): "
            else:
                prompt = "choose " + " / ".join(f"{i + 1}" for i in range(len(legal))) + " (or the word): "
            con.print(prompt, end="")
            line = stdin.readline()
            if not line:
                return None
            text = line.strip()
            if not stdin.isatty():
                con.print(text)
            if text in ("?", "help"):
                con.print("legal: " + ", ".join(t[5:] if t.startswith("PLAY ") else t.lower() for t in legal))
                if g.phase != "PLAY":
                    for t in legal:
                        con.print(f"  {t.lower()}: {DECISION_HELP.get(t, '')}")
                continue
            if not text:
                continue
            token = text
            if g.phase != "PLAY":
                if text.isdigit() and 1 <= int(text) <= len(legal):
                    token = legal[int(text) - 1]
                elif text.replace(" ", "_").upper() in DECISION_HELP:
                    token = text.replace(" ", "_").upper()
            elif text.lower() in ("pass", "p"):
                token = "PASS"
            error = g.check(token, seat=self.seat)
            if error is None:
                return g.apply(token, seat=self.seat)
            con.print(f"[yellow]not accepted: {error}[/]")


def neural_bot(rules: Optional[Rules], model: Optional[str]) -> Any:
    """The ``NeuralBot`` of ``ddz play --bot neural``: the model file ``model``, or the model shipped
    for ``rules``' variant (default CLASSIC3). ``ModelError`` (one line) when there is none, the
    file is not a model this ddz plays, or it plays other rules than ``rules``."""
    from ..learn import ModelError, NeuralBot, NeuralModel  # numpy only; loaded when a neural bot is asked for
    if model is None:
        try:
            return NeuralBot.shipped(rules if rules is not None else Rules.classic())
        except ModelError as e:
            raise ModelError(f"{e}: give it with --model PATH") from None
    bot = NeuralBot(NeuralModel.load(model))
    if rules is not None:
        bot.model.check_rules(rules)
    return bot


def _bots(args: argparse.Namespace) -> Tuple[Rules, str, Callable[[int], Any]]:
    """The rules, the bot kind and a seat -> bot function of ``ddz play``'s options; ``DdzError``
    (one line) for options that do not go together or a model that cannot be played."""
    kind = args.bot or ("neural" if args.model is not None else "rules")
    if args.model is not None and kind not in ("neural", "nsearch"):
        raise ArgumentError(f"--model is the neural bots' model: it does not go with --bot {kind}")
    if kind == "neural":
        bot = neural_bot(args.variant, args.model)
        return args.variant or bot.rules, kind, lambda seat: bot
    if kind == "nsearch":  # the search over the model (ddz.learn.NeuralSearchBot), its variant's strongest settings
        from ..learn import NeuralSearchBot
        from ..learn.nsearch import strongest_settings
        net = neural_bot(args.variant, args.model)
        settings = strongest_settings(net.rules)
        return args.variant or net.rules, kind, lambda seat: NeuralSearchBot(net.model, **settings,
                                                                             seed=(args.seed or 0) + seat)
    rules = args.variant or Rules.classic()
    if kind == "rules":
        return rules, kind, lambda seat: RuleBot()
    return rules, kind, lambda seat: RandomBot(None if args.seed is None else args.seed + seat)


def run_play(args: argparse.Namespace, stdin: TextIO, con: Console) -> int:
    """Plays the hand; the exit status: 0 when it is over, 1 when the input ended first, 2 for
    options it cannot play (one line on stderr), 130 when Ctrl-C ended it."""
    try:
        rules, kind, bot_for = _bots(args)
        g = Game(rules, seed=args.seed)
        if not 0 <= args.seat < g.num_players:
            raise ArgumentError(f"--seat must be 0..{g.num_players - 1}, not {args.seat}")
        # opened now, so that a record that cannot be written stops the command before the hand
        record = open(args.record, "w", encoding="utf-8") if args.record else None
    except (DdzError, OSError) as e:
        print(f"ddz play: {e}", file=sys.stderr)
        return 2
    with record or contextlib.nullcontext():
        status = _play_hand(args, g, kind, bot_for, stdin, con)
        if record is not None:
            record.write(g.to_json())
            con.print(f"record written to {args.record}" + ("" if g.is_over else " (the hand is unfinished)"))
    return status


def _play_hand(args: argparse.Namespace, g: Game, kind: str, bot_for: Callable[[int], Any], stdin: TextIO,
               con: Console) -> int:
    rules = g.rules
    for s in range(g.num_players):
        if s != args.seat:
            g.set_bot(s, bot_for(s))
    con.print(f"[bold]ddz {rules.variant}[/] · you are seat {args.seat} · seed {g.seed} · bots: {kind}")
    table = _Screen(con, g, args.seat, not args.no_auto_pass)
    status = 0
    try:
        while not g.is_over:
            g.step_bots()
            table.catch_up()
            if g.is_over:
                break
            if g.phase != table.last_phase or g.phase == "PLAY":
                table.show_state()
                table.last_phase = g.phase
            if table.read_action(stdin) is None:
                con.print("\n[yellow]end of input: the hand is abandoned[/]")
                status = 1
                break
    except KeyboardInterrupt:
        con.print("\n[yellow]interrupted: the hand is abandoned[/]")
        status = 130
    if g.is_over:
        table.catch_up()
        print_result(con, g)
    return status
