"""Writes tests/data/frozen/*.json: recorded hands that freeze today's whole-hand behaviour
(every variant and phase path) before the whole-hand pipeline is rebuilt.

    python tests/data/make_frozen.py     # rewrites the files; run only to add paths

Each file is a ``ddz-game`` v1 record of one hand, picked from seeded random hands played
with a policy biased towards one path (or, for 天炸/天尊, an injected deal), and named by
the path it covers. tests/test_frozen_records.py replays every file and checks its result,
and checks that every path listed in PATHS below has a file. Records hold their deals, so
they replay the same whatever the dealer does with a seed.
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Callable, Dict, List, Optional

import ddz

OUT = Path(__file__).resolve().parent / "frozen"


def features(g: ddz.Game) -> set:
    """The paths a finished (or stopped) hand went through."""
    tokens = [t for _, t in g.history]
    f = set(tokens) - {"PASS"}
    f = {t for t in f if not t.startswith("PLAY ")}
    r = g.result
    if r is not None:
        f.add(f"result:{r.kind}")
        if r.spring:
            f.add("spring")
        if r.anti_spring:
            f.add("anti_spring")
        if r.kind == "normal" and r.bombs:
            f.add("bombs")
        if any(r.missiles or []):
            f.add("missiles")
        if r.bomb_limits and any(x is not None for x in r.bomb_limits):
            ps = g.play_state
            if ps is not None and any(x is not None and ps.bombs_played(s) >= x
                                      for s, x in enumerate(r.bomb_limits)):
                f.add("bomb_limit_reached")
        if r.kind == "normal" and g.rules.variant == "classic" and r.robs >= 2:
            f.add("two_robs")
    return f


def play(rules: ddz.Rules, seed: int, prefer: List[str], p: float, timeout_rate: float = 0.0,
         escape_at: Optional[int] = None, passer: Optional[str] = None, **game_kw) -> ddz.Game:
    """A biased random hand: `prefer` tokens with probability p; `passer` ("farmers" or
    "landlord") passes whenever it may (for springs and anti-springs)."""
    g = ddz.Game(rules, seed, **game_kw)
    rng = random.Random(seed * 7 + 1)
    n = 0
    while not g.is_over:
        if escape_at is not None and n == escape_at:
            g.escape(rng.randrange(g.num_players))
            n += 1
            continue
        if rng.random() < timeout_rate:
            g.timeout()
        else:
            legal = g.legal_actions()
            seat = g.current_seat
            role = None if g.landlord is None else ("landlord" if seat == g.landlord else "farmers")
            if passer is not None and role == passer and "PASS" in legal:
                g.apply("PASS")
                g.step_bots()
                n += 1
                continue
            wanted = [a for a in legal if a in prefer or any(a.startswith(w) for w in prefer if w.endswith(" "))]
            if wanted and rng.random() < p:
                g.apply(rng.choice(wanted))
            elif "PASS" in legal and len(legal) > 1 and rng.random() < 0.5:
                g.apply(rng.choice([a for a in legal if a != "PASS"]))
            else:
                g.apply(rng.choice(legal))
        g.step_bots()
        n += 1
    return g


# name -> (rules, policy kwargs, required features)
PATHS: Dict[str, tuple] = {
    "classic-plain": (ddz.Rules.classic(), dict(prefer=[], p=0), {"result:normal"}),
    "classic-redeal": (ddz.Rules.classic(), dict(prefer=["NO_CALL"], p=0.9), {"REDEAL", "result:normal"}),
    "classic-void": (ddz.Rules.classic(max_redeals=1), dict(prefer=["NO_CALL"], p=1.0), {"result:void"}),
    "classic-rob-final": (ddz.Rules.classic(), dict(prefer=["CALL", "ROB"], p=0.9), {"two_robs", "SHOW"}),
    "classic-show-after-kitty": (ddz.Rules.classic(classic_show_timing="after_kitty", classic_rob_winner="last"),
                                 dict(prefer=["CALL", "ROB", "SHOW"], p=0.9), {"SHOW", "ROB"}),
    "classic-bombs-spring": (ddz.Rules.classic(), dict(prefer=["CALL"], p=0.5, passer="farmers"),
                             {"bombs", "spring"}),
    "classic-anti-spring": (ddz.Rules.classic(), dict(prefer=["CALL"], p=0.5, passer="landlord"), {"anti_spring"}),
    "classic-timeouts": (ddz.Rules.classic(), dict(prefer=[], p=0, timeout_rate=0.15), {"TIMEOUT", "result:normal"}),
    "classic-escape-bot": (ddz.Rules.classic(), dict(prefer=[], p=0, escape_at=8), {"ESCAPE", "result:normal"}),
    "classic-options": (ddz.Rules.classic(classic_passers_may_rob=True, classic_kitty_combine="max",
                                          classic_landlord_loss_factor=1, classic_rob_cap=4,
                                          kicker_may_share_main_rank=True),
                        dict(prefer=["CALL", "ROB"], p=0.7), {"ROB", "result:normal"}),
    "twop-plain": (ddz.Rules.two_player(), dict(prefer=["NORMAL_START", "NO_FANSHEN"], p=1.0), {"result:normal"}),
    "twop-show-start": (ddz.Rules.two_player(), dict(prefer=["SHOW_START"], p=1.0), {"SHOW_START", "result:normal"}),
    "twop-fanshen-yapo": (ddz.Rules.two_player(), dict(prefer=["FANSHEN", "YAPO", "NORMAL_START"], p=1.0),
                          {"FANSHEN", "YAPO"}),
    "twop-fanshen-before-lead": (ddz.Rules.two_player(twop_fanshen_point="before_lead", twop_show_start_stacks=True),
                                 dict(prefer=["FANSHEN", "SHOW_START"], p=1.0), {"FANSHEN", "SHOW_START"}),
    "twop-redeal": (ddz.Rules.two_player(), dict(prefer=["NO_CALL", "NORMAL_START"], p=0.95), {"REDEAL"}),
    "twop-escape": (ddz.Rules.two_player(), dict(prefer=[], p=0, escape_at=10), {"ESCAPE", "result:escape"}),
    "twop-timeouts": (ddz.Rules.two_player(), dict(prefer=[], p=0, timeout_rate=0.15), {"TIMEOUT"}),
    "twop-spring": (ddz.Rules.two_player(twop_zero_sum=True, twop_initial_multiplier=3),
                    dict(prefer=["CALL"], p=0.5, passer="farmers"), {"spring"}),
    "bengbu-plain": (ddz.Rules.bengbu(), dict(prefer=["BID1", "CLOSED"], p=0.8), {"CLOSED", "result:normal"}),
    "bengbu-grab": (ddz.Rules.bengbu(), dict(prefer=["GRAB"], p=1.0), {"GRAB", "result:normal"}),
    "bengbu-open": (ddz.Rules.bengbu(), dict(prefer=["BID3", "OPEN"], p=1.0), {"OPEN", "BID3"}),
    "bengbu-redeal": (ddz.Rules.bengbu(), dict(prefer=["NO_CALL"], p=1.0), {"REDEAL"}),
    "bengbu-bomb-limit": (ddz.Rules.bengbu(), dict(prefer=["BID1", "NO_CALL"], p=0.7), {"bomb_limit_reached"}),
    "bengbu-missiles": (ddz.Rules.bengbu(bengbu_missiles_once_per_player=True, bengbu_point_value=300),
                        dict(prefer=["BID2"], p=0.6), {"missiles"}),
    "bengbu-escape": (ddz.Rules.bengbu(bengbu_escape_scaled=True), dict(prefer=["BID2"], p=0.8, escape_at=9),
                      {"ESCAPE", "result:escape"}),
    "bengbu-timeouts": (ddz.Rules.bengbu(), dict(prefer=[], p=0, timeout_rate=0.1), {"TIMEOUT"}),
    "bengbu-cycle": (ddz.Rules.bengbu(bengbu_trio_chain_order="cycle", single_kicker_rank_cap=8),
                     dict(prefer=["BID2", "OPEN"], p=0.8), {"result:normal"}),
}

# Deals that end at the deal (RULES.md §2.3.2): injected hands.
_TZ = "3333333344444444555555556"          # 天炸 (all eight 3s, eight 4s, eight 5s) + 6
_TIANZUN = "BBRR666666677777778888888"     # 天尊 (BBRR) with no eight of a rank
SPECIAL = {
    "bengbu-tianzha": ([_TZ, "", "", ""], {"result:special"}),
    "bengbu-tianzun": ([_TIANZUN, "", "", ""], {"result:special"}),
}


def search(name: str, rules: ddz.Rules, kw: dict, need: set, tries: int = 4000) -> ddz.Game:
    for seed in range(tries):
        g = play(rules, seed, **kw)
        if need <= features(g):
            return g
    raise SystemExit(f"no seed under {tries} gives {name}: {need}")


def special(hand0: str) -> ddz.Game:
    """A BENGBU4 deal whose seat 0 holds hand0; the other seats share the rest of both decks."""
    rules = ddz.Rules.bengbu()
    deck = "".join(r * 8 for r in "3456789TJQKA2") + "BBRR"
    left = list(deck)
    for ch in hand0:
        left.remove(ch)
    rng = random.Random(5)
    rng.shuffle(left)
    hands = [hand0] + ["".join(left[i * 25:(i + 1) * 25]) for i in range(3)]
    kitty = "".join(left[75:])
    return ddz.Game(rules, 1, hands=hands, kitty=kitty, first_bidder=0)


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    for name, (rules, kw, need) in PATHS.items():
        g = search(name, rules, kw, need)
        (OUT / f"{name}.json").write_text(g.to_json() + "\n", encoding="utf-8")
        print(name, sorted(features(g)))
    for name, (hand0, need) in SPECIAL.items():
        g = special(hand0[0])
        assert need <= features(g), (name, features(g))
        (OUT / f"{name}.json").write_text(g.to_json() + "\n", encoding="utf-8")
        print(name, sorted(features(g)))


if __name__ == "__main__":
    main()
