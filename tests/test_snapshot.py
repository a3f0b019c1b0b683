"""Snapshots (docs/records.md, "Snapshots"): a hand as compact bytes, written and read by the core,
the actions replayed and checked on load. Round trips on random hands of every variant and many
option sets (escapes, timeouts under both policies, injected and recorded deals, void and special
hands, the largest stakes), pickling through them, the version-1 bytes frozen in tests/data, the
rules interned, and hostile bytes: truncated, mutated, disagreeing with their start."""
from __future__ import annotations

import pickle
import random
from pathlib import Path

import pytest

import ddz
from ddz.hand.game import _game_from_pickle

FROZEN = Path(__file__).parent / "data" / "snapshots"

RULES = [
    ddz.Rules.classic(), ddz.Rules.two_player(), ddz.Rules.bengbu(),
    ddz.Rules.classic(classic_passers_may_rob=True, classic_show_timing="after_kitty", max_redeals=2,
                      timeout_policy="bot", single_kicker_rank_cap=4, kicker_may_share_main_rank=True,
                      kicker_pairs_distinct=False, rocket_as_kickers=True),
    ddz.Rules.two_player(twop_fanshen_point="before_lead", twop_initial_multiplier=0.5, max_redeals=3),
    ddz.Rules.bengbu(bengbu_trio_chain_order="cycle", single_kicker_rank_cap=8, bengbu_four_with_two=True),
    ddz.Rules.classic_douzero(), ddz.Rules.classic_rlcard(), ddz.Rules.classic_openspiel(),
]


def _same(a: ddz.Game, b: ddz.Game) -> None:
    assert a.history == b.history
    assert a.phase == b.phase and a.current_seat == b.current_seat and a.result == b.result
    assert a.legal_actions() == b.legal_actions() and a.legal_action_ids() == b.legal_action_ids()
    for s in [None] + list(range(a.num_players)):
        assert a.observation(s) == b.observation(s)
    assert a.to_json() == b.to_json() and a.rules == b.rules
    assert a.bot_seats == b.bot_seats


def _random_game(rules: ddz.Rules, seed: int, rng: random.Random, **kw) -> ddz.Game:
    g = ddz.Game(rules, seed=seed, **kw)
    stop = rng.choice([0, 1, 5, 20, 40, 10_000])
    while not g.is_over and len(g.history) < stop:
        k = rng.randrange(40)
        if k == 0:
            g.escape(rng.randrange(g.num_players))
        elif k == 1:
            g.elapsed(g.move_timeout_s)  # a timeout: the default action, or the seat's bot
        else:
            g.apply(rng.choice(g.legal_action_ids() if k & 1 else g.legal_actions()))
    return g


@pytest.mark.parametrize("rules", RULES, ids=[repr(r) for r in RULES])
def test_round_trip_on_random_hands(rules):
    rng = random.Random(repr(rules))
    for i in range(60):
        g = _random_game(rules, rng.randrange(2**64), rng)
        data = g.snapshot()
        h = ddz.Game.from_snapshot(data)
        _same(g, h)
        assert h.snapshot() == data
        if not g.is_over:  # the loaded hand plays on as the original does
            for x in (g, h):
                x.apply(x.legal_action_ids()[0])
            _same(g, h)
        p = pickle.loads(pickle.dumps(g))
        _same(g, p)


def test_injected_and_recorded_deals_and_stakes():
    r = ddz.Rules.classic()
    rng = random.Random(5)
    base = ddz.Game(r, seed=9, base=10**12, initial_multiplier=10**12)
    while not base.is_over:
        base.apply(rng.choice(base.legal_actions()))
    for g in (base, ddz.Game.from_json(base.to_json())):  # the record's deals are given deals
        h = ddz.Game.from_snapshot(g.snapshot())
        _same(g, h)
        assert h.result.scores == base.result.scores  # exact beyond 64 bits
    t = ddz.Game(ddz.Rules.two_player(), hands=["3" * 4 + "4" * 4 + "5" * 4 + "6" * 4 + "7777", "8" * 4 + "9" * 4 +
                                                 "T" * 4 + "J" * 4 + "QQQQ"], first_to_decide=1)
    t.apply("NORMAL_START")
    _same(t, ddz.Game.from_snapshot(t.snapshot()))


def test_void_special_and_escaped_hands():
    r = ddz.Rules.classic(max_redeals=1)
    g = ddz.Game(r, seed=5)
    for _ in range(3):
        g.apply("NO_CALL")
    assert g.result.kind == "void"
    _same(g, ddz.Game.from_snapshot(g.snapshot()))
    special = next(g for g in (ddz.Game(ddz.Rules.bengbu(), seed=s) for s in range(3000)) if g.is_over)
    assert special.result.kind == "special"
    _same(special, ddz.Game.from_snapshot(special.snapshot()))
    for rules in (ddz.Rules.two_player(), ddz.Rules.bengbu()):  # an escape ends these hands
        e = ddz.Game(rules, seed=3)
        e.apply(e.legal_actions()[0])
        e.escape(1)
        h = ddz.Game.from_snapshot(e.snapshot())
        _same(e, h)
        assert h.result.kind == "escape"
    c = ddz.Game(ddz.Rules.classic(), seed=3)  # CLASSIC3: a bot plays the escaped seat on
    c.escape(2)
    h = ddz.Game.from_snapshot(c.snapshot())
    assert h.bot_seats == [2] and isinstance(h.table_policy.bot(2), ddz.bots.RuleBot)


def test_rules_are_interned_by_name_and_options():
    g1 = ddz.Game(ddz.Rules.classic(max_redeals=3), seed=1)
    g2 = ddz.Game(ddz.Rules.classic(max_redeals=3), seed=2)
    a, b = ddz.Game.from_snapshot(g1.snapshot()), ddz.Game.from_snapshot(g2.snapshot())
    assert a.rules is b.rules and a.rules == g1.rules
    assert ddz.Game(ddz.Rules.classic(), seed=1).snapshot()[6:14] == b"\x07classic"  # a preset as made: its name


def test_frozen_version_1_snapshots_load():
    """Bytes written by the first version of the format (tests/data/snapshots/make.py) load
    into the same hands for every later version."""
    for path in sorted(FROZEN.glob("*.bin")):
        g = ddz.Game.from_snapshot(path.read_bytes())
        record = path.with_suffix(".json").read_text()
        assert g.to_json() == record, path.name
    assert len(list(FROZEN.glob("*.bin"))) >= 6


def test_pickles_of_records_still_load():
    """A pickle made before snapshots holds the record; it loads as it did."""
    g = ddz.Game(ddz.Rules.bengbu(), seed=4)
    g.apply("BID2")

    class Before:
        def __reduce__(self):
            return (_game_from_pickle, (g.to_json(), {}, 1.5))

    old = pickle.loads(pickle.dumps(Before()))
    _same(g, old)
    assert old.time_left == g.move_timeout_s - 1.5


def _snap(seed=7, steps=40):
    g = ddz.Game(ddz.Rules.classic(), seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if g.is_over:
            break
        g.apply(rng.choice(g.legal_actions()))
    return g.snapshot()


def test_every_truncation_is_refused():
    data = _snap()
    for n in range(len(data)):
        with pytest.raises(ddz.RecordError, match="not a ddz snapshot|does not replay|ends on a TIMEOUT|deals"):
            ddz.Game.from_snapshot(data[:n])
    with pytest.raises(ddz.RecordError, match="bytes after the last action"):
        ddz.Game.from_snapshot(data + b"\x00")


def test_hostile_bytes():
    data = _snap()
    for bad, what in [(b"", "DDZS"), (b"DDZT" + data[4:], "DDZS"), (data[:4] + b"\x09" + data[5:], "version 9"),
                      (data[:5] + b"\x03" + data[6:], "variant 3"),
                      (data[:6] + b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f" + data[7:], "larger than 64 bits|length"),
                      (data[:6] + b"\x05chess" + data[14:], "unknown preset 'chess'")]:
        with pytest.raises(ddz.RecordError, match=what):
            ddz.Game.from_snapshot(bad)
    for bad in ("DDZS", bytearray(data), memoryview(data), None, 5):
        with pytest.raises(ddz.RecordTypeError):
            ddz.Game.from_snapshot(bad)  # type: ignore[arg-type]


def test_a_history_that_disagrees_with_its_start_is_refused():
    g = ddz.Game(ddz.Rules.classic(), seed=7)
    g.apply("CALL")
    data = bytearray(g.snapshot())
    # the last action is (seat, CALL): another seat, or another token, does not replay
    seat_byte = len(data) - 2
    for head in (data[seat_byte] ^ 1, data[seat_byte] ^ 2):
        bad = bytes(data[:seat_byte]) + bytes([head]) + bytes(data[seat_byte + 1:])
        with pytest.raises(ddz.RecordError, match="does not replay"):
            ddz.Game.from_snapshot(bad)
    bad = bytes(data[:-1]) + bytes([2])  # ROB is not offered in CALL
    with pytest.raises(ddz.RecordError, match="ROB is not offered"):
        ddz.Game.from_snapshot(bad)


def test_a_timeout_must_be_followed_by_its_default_action():
    g = ddz.Game(ddz.Rules.classic(), seed=7)
    g.elapsed(g.move_timeout_s)  # TIMEOUT, then NO_CALL (the default)
    data = g.snapshot()
    # the header of default CLASSIC3 rules is 27 bytes; then the action count and the actions
    seat = g.history[0][0]
    assert data[27:] == bytes([2, 0x30 | seat, seat, 1])  # TIMEOUT(seat), DECIDE(seat) NO_CALL
    assert ddz.Game.from_snapshot(data).history == g.history
    with pytest.raises(ddz.RecordError, match="must be the default action"):
        ddz.Game.from_snapshot(data[:-1] + bytes([0]))  # CALL instead of the default NO_CALL
    with pytest.raises(ddz.RecordError, match="ends on a TIMEOUT"):
        ddz.Game.from_snapshot(data[:27] + bytes([1, 0x30 | seat]))
    with pytest.raises(ddz.RecordError, match="two TIMEOUTs"):
        ddz.Game.from_snapshot(data[:27] + bytes([3, 0x30 | seat, 0x30 | seat, seat, 1]))
    bot = ddz.Game(ddz.Rules.classic(timeout_policy="bot"), seed=7)  # a bot may choose anything legal
    bot.set_bot(bot.current_seat, ddz.bots.RuleBot())
    bot.elapsed(bot.move_timeout_s)
    assert ddz.Game.from_snapshot(bot.snapshot()).history == bot.history


def test_an_option_of_another_type_keeps_its_type():
    """twop_initial_multiplier=1.0 equals the default 1 but scores as a float: the snapshot keeps it."""
    g = ddz.Game(ddz.Rules.two_player(twop_initial_multiplier=1.0), seed=19)
    rng = random.Random(1)
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
    h = ddz.Game.from_snapshot(g.snapshot())
    assert type(h.rules.options["twop_initial_multiplier"]) is float
    assert h.result == g.result and [type(s) for s in h.result.scores] == [type(s) for s in g.result.scores]


@pytest.mark.parametrize("rules", RULES[:3], ids=repr)
def test_restart_is_the_hands_start(rules):
    """Game.restart(): the same rules, seed, stakes and given deals before any action; replaying
    the hand's actions on it gives the hand again (the server's audit steps through it)."""
    rng = random.Random(11)
    for g in (_random_game(rules, 7, rng), ddz.Game.from_json(_random_game(rules, 8, rng).to_json())):
        start = g.restart()
        assert start.history == []
        assert start.to_json() == ddz.Game.from_json(json_start(g)).to_json()
        for seat, token in g.history:
            if seat is None:  # the dealer's REDEAL
                continue
            if token == "ESCAPE":
                start.escape(seat)
            elif token == "TIMEOUT":
                start._note_timeout()
            else:
                start.apply(token)
        _same(g, start)


def json_start(g: ddz.Game) -> str:
    """The record of ``g``'s start: its record without actions, the deals it holds cut to the first."""
    import json
    d = json.loads(g.to_json())
    return json.dumps({**d, "actions": [], "result": None, "deals": d["deals"][:1]})
