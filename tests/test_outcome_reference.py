"""The core's scores against a readable reference (tests/reference_scoring.py, written from
docs/rules.md §4, §6–§8): every frozen record, random hands of every variant and many option sets
(normal ends, escapes of every seat at every phase, 天炸/天尊 at the deal, voids), and stakes at
the edges of their range. The reference's inputs are read from what the hand shows publicly (its
history, its cards, its kitty), not from the core's counts, and the bomb limits of BENGBU4 are
recomputed here from the bid log (§2.3.6)."""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any, List, Optional, Tuple

import pytest

import ddz
from ddz.hand.scoring import play_multiplier

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference_scoring as R  # noqa: E402

FROZEN = sorted((Path(__file__).resolve().parent / "data" / "frozen").glob("*.json"))

RULES = [
    ddz.Rules.classic(), ddz.Rules.two_player(), ddz.Rules.bengbu(),
    ddz.Rules.classic(classic_landlord_loss_factor=1, classic_rob_cap=4, classic_kitty_combine="max",
                      classic_show_timing="after_kitty", classic_passers_may_rob=True, classic_rob_winner="last"),
    ddz.Rules.two_player(twop_zero_sum=True, twop_show_start_stacks=True, twop_rocket_doubles=False,
                         twop_initial_multiplier=0.5, twop_escape_threshold_inclusive=False,
                         twop_escape_compensation="none", twop_fanshen_point="before_lead"),
    ddz.Rules.two_player(twop_initial_multiplier=3),
    ddz.Rules.bengbu(bengbu_missiles_once_per_player=True, bengbu_special_per_instance=True,
                     bengbu_escape_scaled=True, bengbu_point_value=300),
]


def _deal_decisions(g: ddz.Game) -> List[Tuple[int, str]]:
    """The current deal's decisions, from the public history (after the last re-deal)."""
    out: List[Tuple[int, str]] = []
    for seat, token in g.history:
        if seat is None:  # REDEAL
            out = []
        elif not token.startswith("PLAY") and token not in ("PASS", "TIMEOUT", "ESCAPE"):
            out.append((seat, token))
    return out


def _bengbu_limits(g: ddz.Game, bids: List[Tuple[int, str]]) -> Tuple[Optional[int], ...]:
    """§2.3.6: the landlord and whoever bid 3 or grabbed play unlimited; a seat that bid 1 or 2
    may bomb twice; a seat that passed may bomb twice if the highest bid before it was 1 or 2,
    once if nobody had bid, unlimited if it was 3."""
    limits: List[Optional[int]] = [None] * 4
    high = 0
    for seat, token in bids:
        if token in ("OPEN", "CLOSED"):
            continue
        if seat != g.landlord:
            if token in ("BID1", "BID2"):
                limits[seat] = 2
            elif token == "NO_CALL":
                limits[seat] = None if high == 3 else 2 if high else 1
        if token.startswith("BID"):
            high = int(token[3])
    return tuple(limits)


def _auction(g: ddz.Game, base: int, imult: int) -> Any:
    dec = _deal_decisions(g)
    tokens = [t for _, t in dec]
    o = g.rules.options
    if g.rules.variant == "classic":
        kitty = str(g.kitty) if g.landlord is not None and g.observation(None)["kitty"] is not None else ""
        kf = R.kitty_factor(kitty, o["classic_kitty_combine"]) if kitty else 1
        return R.ClassicAuction(g.landlord, tokens.count("ROB"), "SHOW" in tokens, kf, base, imult)
    if g.rules.variant == "two_player":
        return R.TwopAuction(g.landlord, tokens.count("SHOW_START"), "FANSHEN" in tokens, "YAPO" in tokens)
    bids = [int(t[3]) for t in tokens if t.startswith("BID")]
    high = max(bids, default=0)
    if "GRAB" in tokens:
        b: Optional[int] = 3
    else:
        b = high if g.landlord is not None else None
    limits = _bengbu_limits(g, dec) if g.landlord is not None else ()
    return R.BengbuAuction(g.landlord, b, high, "OPEN" in tokens or "GRAB" in tokens, limits)


def _play(g: ddz.Game) -> Any:
    return R.PlaySummary.of(g.play_state) if g.play_state is not None else R.NO_PLAY


def _reference_result(g: ddz.Game, base: int, imult: int) -> dict:
    """The reference's result of a hand that ended by itself (normal, special, void)."""
    o = g.rules.options
    if g.result.kind == "void":
        return ddz.GameResult(kind="void", winner_side=None, landlord=None, winner_seat=None, multiplier=1,
                              factors={}, unit=0, scores=[0] * g.num_players).to_dict()
    if g.result.kind == "special":
        holders = {}
        for s in range(4):
            c = str(g.hand(s))
            marks = ["天炸"] * sum(1 for r in set(c) if c.count(r) == 8) + (["天尊"] if c.count("B") == 2 and
                                                                          c.count("R") == 2 else [])
            if marks:
                holders[s] = marks
        return R.bengbu_special(holders, o).to_dict()
    a = _auction(g, base, imult)
    fn = {"classic": R.classic_score, "two_player": R.twop_score, "bengbu": R.bengbu_score}[g.rules.variant]
    return fn(a, _play(g), o).to_dict()


def _reference_escape(g: ddz.Game, seat: int) -> dict:
    a = _auction(g, 1, 1)
    o = g.rules.options
    if g.rules.variant == "two_player":
        held = [g.hand(s) for s in range(2)] if g.phase != "PRE_DEAL" else None
        return R.twop_escape(a, _play(g), seat, held, o).to_dict()
    return R.bengbu_escape(a, seat, o).to_dict()


def _same(got: dict, want: dict, fractional: bool) -> None:
    if fractional:  # a fractional stake: the same values up to one rounding
        for k in ("scores", "money"):
            assert got[k] == pytest.approx(want[k], rel=1e-12), k
            got, want = {**got, k: None}, {**want, k: None}
    assert got == want


@pytest.mark.parametrize("path", FROZEN, ids=lambda p: p.stem)
def test_every_frozen_record(path):
    record = json.loads(path.read_text(encoding="utf-8"))
    g = ddz.Game.from_json(path.read_text(encoding="utf-8"))
    if g.result.kind == "escape":
        seat, token = g.history[-1]
        assert token == "ESCAPE"
        before = ddz.Game.from_json(json.dumps({**record, "actions": record["actions"][:-1], "result": None}))
        _same(g.result.to_dict(), _reference_escape(before, seat), False)
    else:
        _same(g.result.to_dict(), _reference_result(g, record.get("base", 1), record.get("initial_multiplier", 1)),
              False)


@pytest.mark.parametrize("rules", RULES, ids=repr)
def test_random_hands(rules):
    rng = random.Random(repr(rules))
    fractional = isinstance(rules.options.get("twop_initial_multiplier"), float)
    ends = set()
    for seed in range(150):
        base, imult = ((rng.choice([1, 3, 10**12]), rng.choice([1, 7, 10**12])) if rules.variant == "classic"
                       else (1, 1))
        g = ddz.Game(rules, seed=rng.randrange(2**64), base=base, initial_multiplier=imult)
        while not g.is_over:
            if rules.variant != "classic" and rng.random() < 0.02:  # an escape ends the hand here
                seat = rng.randrange(g.num_players)
                want = _reference_escape(g, seat)
                g.escape(seat)
                _same(g.result.to_dict(), want, fractional)
                break
            g.apply(rng.choice(g.legal_actions()))
            # the factors while the hand runs: as the reference counts them so far
            if rules.variant == "classic":
                f = R.classic_factors(_auction(g, base, imult), _play(g), rules.options)
            elif rules.variant == "two_player":
                f = R.twop_factors(_auction(g, 1, 1), _play(g), rules.options)
            else:
                f = R.bengbu_factors(_auction(g, 1, 1))
            assert g.factors == f
        else:
            _same(g.result.to_dict(), _reference_result(g, base, imult), fractional)
        ends.add(g.result.kind)
    assert "normal" in ends


def test_special_and_void_hands():
    specials = 0
    for seed in range(4000):
        for rules in (ddz.Rules.bengbu(), ddz.Rules.bengbu(bengbu_special_per_instance=True)):
            g = ddz.Game(rules, seed=seed)
            if g.is_over:
                specials += 1
                _same(g.result.to_dict(), _reference_result(g, 1, 1), False)
    assert specials >= 4
    for rules in (ddz.Rules.classic(max_redeals=1), ddz.Rules.two_player(max_redeals=2, twop_initial_multiplier=0.5),
                  ddz.Rules.bengbu(max_redeals=1)):
        g = ddz.Game(rules, seed=3)
        while not g.is_over:
            g.apply(next(t for t in g.legal_actions() if t in ("NO_CALL", "NORMAL_START")))
        assert g.result.kind == "void"
        _same(g.result.to_dict(), _reference_result(g, 1, 1), False)


def test_the_kitty_factor_and_play_multiplier_are_the_cores():
    rng = random.Random(1)
    deck = list("3456789TJQKA2" * 4 + "BR")
    for _ in range(500):
        rng.shuffle(deck)
        kitty = "".join(deck[:3])
        for combine in ("product", "max"):
            assert ddz.kitty_factor(kitty, combine) == R.kitty_factor(kitty, combine), kitty
    for variant, options in (("classic", {}), ("two_player", {"twop_rocket_doubles": False}), ("bengbu", {})):
        rules = ddz.Rules(variant, **options)
        for bombs in range(6):
            for rockets in range(min(bombs, 1) + 1):
                for spring in (False, True):
                    assert (play_multiplier(variant, rules.options, bombs, rockets, spring) ==
                            R.play_multiplier(variant, rules.options, bombs, rockets, spring))
