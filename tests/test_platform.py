"""Platform rules inside a hand: escapes (RULES.md §4, §6.8, §6.11), the move timer and its
default actions (§3.6, A8), bots taking a seat at any point (§3.6)."""
from __future__ import annotations

import json
import random

import pytest

import ddz
from ddz.bots import RandomBot, RuleBot
from ddz.core.cards import RANKS, card_rank

# TWOP hands without a bomb or rocket: 2 of each rank 3..Q per seat; the rest (K, A, 2, B, R)
# makes the kitty and the 11 set-aside cards.
PLAIN = "33445566778899TTJJQQ"


def twop(hands=(PLAIN, PLAIN), kitty="KKA", **kw):
    return ddz.Game(ddz.Rules.two_player(**kw.pop("options", {})), seed=1, hands=list(hands), kitty=kitty,
                    first_to_decide=0, first_bidder=0, **kw)


def drive(g, *actions):
    for a in actions:
        g.apply(a)
    return g


# ---- TWOP escape, §6.8 (score room, I = 1) ----

def test_e1_landlord_escapes_with_nothing():
    g = drive(twop(), "NORMAL_START", "NORMAL_START", "CALL")
    r = g.escape(0)
    assert r.kind == "escape" and r.factors["m_esc"] == 1 and r.scores == [-20, 1]  # the farmer: A=1, X=1
    assert g.is_over and g.phase == "OVER"


def test_e2_landlord_escapes_after_show_start():
    g = drive(twop(), "SHOW_START", "NORMAL_START", "CALL")
    r = g.escape(0)
    assert r.factors["m_esc"] == 5 and r.scores[0] == -20


def test_e3_held_bomb_counts():
    g = drive(twop(hands=("33445566777788999TTJ", "33445566889TTJJQQKKQ"), kitty="QKA"),
              "SHOW_START", "NORMAL_START", "CALL")
    assert "7777" in str(g.hand(0))
    r = g.escape(0)
    assert r.factors["m_esc"] == 10 and r.factors["E"] == 20 and r.scores[0] == -40  # A27: 10 is "≥ 10"


def test_e3_threshold_exclusive_option():
    g = drive(twop(hands=("33445566777788999TTJ", "33445566889TTJJQQKKQ"), kitty="QKA",
                   options={"twop_escape_threshold_inclusive": False}), "SHOW_START", "NORMAL_START", "CALL")
    assert g.escape(0).scores[0] == -20


def test_e4_fanshen_yapo_and_two_bombs_played():
    g = drive(twop(hands=("33335566778899TTJJQQ", "44445566778899TTJJQQ"), kitty="KKA"),
              "NORMAL_START", "NORMAL_START", "CALL", "PLAY 3333")
    assert g.phase == "FANSHEN" and g.current_seat == 1  # A24: after the landlord's opening lead
    drive(g, "FANSHEN", "YAPO", "PLAY 4444")
    r = g.escape(0)
    assert r.factors["m_esc"] == 16 and r.scores[0] == -64


@pytest.mark.parametrize("vid, setup, m, penalty", [
    ("E5", ("NORMAL_START", "NORMAL_START", "CALL", "PLAY 3333", "FANSHEN", "YAPO"), 8, 10),
    ("E6", ("SHOW_START", "NORMAL_START", "CALL", "PLAY 3333", "NO_FANSHEN"), 10, 20),
    ("E7", ("SHOW_START", "NORMAL_START", "CALL", "PLAY 3333", "FANSHEN", "NO_YAPO"), 20, 40),
])
def test_e5_e7_farmer_escapes(vid, setup, m, penalty):
    g = drive(twop(hands=("33335566778899TTJJQQ", "445566778899TTJJQQKK"), kitty="KAA"), *setup)
    r = g.escape(1)
    assert r.factors["m_esc"] == m and r.scores[1] == -penalty, vid


def test_e8_escape_before_the_game_starts():
    g = twop()
    r = g.escape(1)  # PRE_DEAL: matched, not started
    assert r.factors["m_esc"] == 1 and r.scores[1] == -10 and r.landlord is None
    assert g.observation(0)["cards"] == []  # nothing was dealt


def test_e10_every_bomb_counts_played_or_held():
    g = drive(twop(hands=("33335566778899TTJJQQ", "44445566778899TTJQBR"), kitty="KKA"),
              "SHOW_START", "NORMAL_START", "CALL", "PLAY 3333", "NO_FANSHEN")
    # the farmer holds 4444 and BR unplayed, the landlord played 3333: 3 bombs, m = 5 * 2^3
    r = g.escape(0)
    assert r.factors["m_esc"] == 40 and r.scores[0] == -160


def test_e10_farmer_rate():
    g = drive(twop(hands=("33335566778899TTJJQQ", "44445566778899TTJQBR"), kitty="KKA"),
              "SHOW_START", "NORMAL_START", "CALL", "PLAY 3333", "NO_FANSHEN")
    assert g.escape(1).scores[1] == -80


def test_twop_compensation_and_none_option():
    g = drive(twop(), "NORMAL_START", "NORMAL_START", "CALL")
    assert g.escape(1).scores == [2, -10]  # the landlord is paid as a normal win at X = I*m_esc = 1
    g = drive(twop(options={"twop_escape_compensation": "none"}), "NORMAL_START", "NORMAL_START", "CALL")
    assert g.escape(1).scores == [0, -10]


# ---- BENGBU4 escape, §6.11 ----

def bengbu(**kw):
    return ddz.Game(ddz.Rules.bengbu(**kw), seed=4, first_bidder=0)


def test_x1_landlord_escapes():
    g = drive(bengbu(bengbu_point_value=300), "BID3", "NO_CALL", "NO_CALL", "NO_CALL", "CLOSED")
    r = g.escape(0)
    assert r.scores == [-27, 9, 9, 9] and r.money == [-8100, 2700, 2700, 2700]


def test_x2_fixed_amount_whatever_the_bid():
    g = drive(bengbu(), "BID1", "NO_CALL", "NO_CALL", "NO_CALL", "CLOSED")
    assert g.escape(0).scores == [-27, 9, 9, 9]
    g = drive(bengbu(bengbu_escape_scaled=True), "BID1", "NO_CALL", "NO_CALL", "NO_CALL", "CLOSED")
    assert g.escape(0).scores == [-9, 3, 3, 3]  # option: unit = the base bid


def test_x3_farmer_escapes():
    g = drive(bengbu(), "BID2", "NO_CALL", "NO_CALL", "NO_CALL", "OPEN")
    r = g.escape(2)
    assert r.scores == [15, 6, -27, 6]


def test_x4_escape_during_bidding():
    g = drive(bengbu(), "BID1")
    assert g.escape(0).scores == [-27, 9, 9, 9]
    g = bengbu()
    assert g.escape(3).scores == [9, 9, 9, -27]


# ---- CLASSIC3: a bot plays on ----

def test_classic_escape_hands_the_seat_to_a_bot():
    g = ddz.Game(ddz.Rules.classic(), seed=8, first_bidder=0)
    drive(g, "CALL", "NO_ROB", "NO_ROB", "NO_SHOW")
    assert g.escape(1) is None and not g.is_over and g.bot_seats == [1]
    rng = random.Random(0)
    while not g.is_over:
        g.step_bots()
        if not g.is_over:
            assert g.current_seat != 1
            g.apply(rng.choice(g.legal_actions()))
    assert g.result.kind == "normal" and sum(g.result.scores) == 0  # settled normally
    assert (1, "ESCAPE") in g.history
    again = ddz.Game.from_json(g.to_json())
    assert again.result == g.result and again.history == g.history


@pytest.mark.parametrize("variant", ["classic", "two_player", "bengbu"])
def test_escape_at_every_phase(variant):
    rules = getattr(ddz.Rules, variant)()
    phases = set()
    for seed in range(40):
        rng = random.Random(seed)
        g = ddz.Game(rules, seed=seed)
        steps = rng.randrange(0, 60)
        for _ in range(steps):
            if g.is_over:
                break
            g.apply(rng.choice(g.legal_actions()))
        if g.is_over:
            with pytest.raises(ddz.IllegalAction, match="over"):
                g.escape(0)
            continue
        phases.add(g.phase)
        before_hands = [str(g.hand(s)) for s in range(g.num_players)]
        seat = rng.randrange(g.num_players)
        r = g.escape(seat)
        assert [str(g.hand(s)) for s in range(g.num_players)] == before_hands  # nothing else changes
        if variant == "classic":
            assert r is None and not g.is_over and seat in g.bot_seats
        else:
            assert g.is_over and g.result is r and r.kind == "escape" and r.factors["escapee"] == seat
            assert r.scores[seat] < 0
            if variant == "bengbu":
                assert sum(r.scores) == 0 and r.scores[seat] == -27
            with pytest.raises(ddz.IllegalAction):
                g.apply("PASS")
        assert ddz.Game.from_json(g.to_json()).history == g.history
    assert "PLAY" in phases and len(phases) >= 2


# ---- timer, §3.6 ----

@pytest.mark.parametrize("variant, phase_default", [
    ("classic", {"CALL": "NO_CALL", "ROB": "NO_ROB", "FINAL_ROB": "NO_ROB", "SHOW": "NO_SHOW"}),
    ("two_player", {"PRE_DEAL": "NORMAL_START", "BID": "NO_CALL", "FANSHEN": "NO_FANSHEN", "YAPO": "NO_YAPO"}),
    ("bengbu", {"BID": "NO_CALL", "OPEN_CHOICE": "CLOSED"}),
])
def test_timeout_applies_the_default_action_at_every_phase(variant, phase_default):
    rules = getattr(ddz.Rules, variant)()
    seen = set()
    for seed in range(60):
        rng = random.Random(seed)
        g = ddz.Game(rules, seed=seed)
        while not g.is_over:
            phase, seat = g.phase, g.current_seat
            leading = phase == "PLAY" and g.play_state.top is None
            lowest = str(g.hand(seat))[:1]
            if rng.random() < 0.3:
                assert g.elapsed(10) is None and g.time_left == pytest.approx(20)
                hist = len(g.history)
                token = g.elapsed(25)  # 35 s > 30 s: the timer fires
                assert g.history[hist] == (seat, "TIMEOUT") and g.history[hist + 1] == (seat, token)
                if phase in phase_default:
                    assert token == phase_default[phase]
                elif leading:  # a lead: the single lowest card of the hand
                    assert len(token.split()) == 2 and RANKS[card_rank(
                        ddz.card_id(token.split()[1], rules.decks))] == lowest
                else:  # following: pass
                    assert token == "PASS"
                seen.add(phase)
                assert g.time_left in (None, 30)
            else:
                g.apply(rng.choice(g.legal_actions()))
        assert ddz.Game.from_json(g.to_json()).result == g.result
    assert {"PLAY"} | set(phase_default) >= seen and "PLAY" in seen


def test_timeout_lead_plays_lowest_single():
    g = ddz.Game(ddz.Rules.classic(), seed=3, first_bidder=0)
    drive(g, "CALL", "NO_ROB", "NO_ROB", "NO_SHOW")
    lowest = str(g.hand(0))[0]
    token = g.timeout()
    assert token.startswith(f"PLAY {lowest}") and g.history[-2] == (0, "TIMEOUT")


def test_timer_errors():
    g = ddz.Game(ddz.Rules.classic(move_timeout_s=5), seed=3)
    with pytest.raises(ValueError):
        g.elapsed(-1)
    assert g.elapsed(6) == "NO_CALL"
    g = ddz.Game(ddz.Rules.classic(timeout_policy="bot"), seed=3)
    token = g.timeout()
    assert token in ("CALL", "NO_CALL")


# ---- bots ----

@pytest.mark.parametrize("variant", ["classic", "two_player", "bengbu"])
def test_bots_finish_hands_and_take_over_midway(variant):
    rules = getattr(ddz.Rules, variant)()
    for seed in range(30):
        g = ddz.Game(rules, seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(0, 30)):
            if g.is_over:
                break
            g.apply(rng.choice(g.legal_actions()))
        for s in range(g.num_players):
            g.set_bot(s, RuleBot() if s % 2 == 0 else RandomBot(seed))
        g.step_bots()
        assert g.is_over and g.result is not None
        assert ddz.Game.from_json(g.to_json()).result == g.result


def test_rule_bot_plays_sensibly():
    r = ddz.Rules.classic()
    g = ddz.Game(r, seed=2, first_bidder=0)  # landlord seat 0, farmers 1 and 2
    drive(g, "CALL", "NO_ROB", "NO_ROB", "NO_SHOW")
    bot = RuleBot()
    token = bot.act(g, 0)
    lead = ddz.classify(token[5:], r)
    assert not lead.is_bomb
    keys = [m.key for m in ddz.legal_moves(g.hand(0), r) if not m.is_bomb]
    assert lead.key == min(keys)  # leads low
    g.apply(token)
    follow = bot.act(g, 1)
    if follow != "PASS":
        m = ddz.legal_moves(g.hand(1), r, prev=token[5:])
        plain = [x for x in m if not x.is_bomb]
        assert plain and ddz.classify(follow[5:], r).key == min(x.key for x in plain)  # smallest winning play
    g.apply(follow)
    if follow != "PASS":
        assert bot.act(g, 2) == "PASS"  # never overtakes the other farmer


def test_rule_bot_bids_on_strong_hands_only():
    bot = RuleBot()
    strong = ddz.Game(ddz.Rules.classic(), seed=1, first_bidder=0,
                      hands=["2222BRAAKKQQJJT98", "3333444455556666T", "7777888999TTJJQQK"], kitty="KAA")
    weak = ddz.Game(ddz.Rules.classic(), seed=1, first_bidder=1,
                    hands=["2222BRAAKKQQJJT98", "3333444455556666T", "7777888999TTJJQQK"], kitty="KAA")
    assert bot.act(strong, 0) == "CALL"
    assert bot.act(weak, 1) in ("CALL", "NO_CALL")
    assert RuleBot(call_at=100).act(weak, 1) == "NO_CALL"


def test_rule_bot_beats_random_bot_as_landlord():
    rules = ddz.Rules.classic()
    wins = 0
    games = 150
    for seed in range(games):
        g = ddz.Game(rules, seed=seed, first_bidder=0)
        drive(g, "CALL", "NO_ROB", "NO_ROB", "NO_SHOW")
        g.set_bot(0, RuleBot())
        g.set_bot(1, RandomBot(seed))
        g.set_bot(2, RandomBot(seed + 1))
        g.step_bots()
        wins += g.result.winner_side == "landlord"
    assert wins / games > 0.6  # random farmers win about 60 % against a random landlord (simulate)


def test_observation_shows_top_and_bots_only_public():
    g = ddz.Game(ddz.Rules.classic(), seed=2, first_bidder=0)
    drive(g, "CALL", "NO_ROB", "NO_ROB", "NO_SHOW")
    g.apply(g.legal_actions()[0])
    obs = g.observation(1)
    assert obs["top"][0] == 0 and obs["bots"] == []
    assert json.dumps(obs, ensure_ascii=False)
