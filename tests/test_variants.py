"""The variant table (docs/rules.md §1): the C++ layout and the Python facts agree with each
other and with what the engine does."""
import random

import pytest

import ddz
from ddz import _core
from ddz.variants import VARIANT, VARIANTS, VariantId, by_alias


def test_the_spec_rows_are_the_cores():
    rows = _core.variant_specs()
    assert [r["name"] for r in rows] == list(VARIANTS)
    for vid, row in enumerate(rows):
        v = VARIANT[row["name"]]
        assert v.id == vid and v.id is VariantId(vid) and v.id.name == v.title
        for key, value in row.items():
            if key != "name":
                assert getattr(v, key) == value, (v.name, key)
    assert [m.name for m in VariantId] == ["CLASSIC3", "TWOP", "BENGBU4"]


@pytest.mark.parametrize("name", VARIANTS)
def test_the_spec_rows_yes_and_no_facts_are_what_the_hand_does(name):
    """escape_ends, bomb_limits, springs, deal_specials and stakes, each against a Game."""
    v = VARIANT[name]
    rules = ddz.Rules(name)
    g = ddz.Game(rules, 1)
    g.escape(0)
    assert g.is_over is v.escape_ends
    try:
        ddz.Game(rules, 1, base=2)
        staked = True
    except ValueError:
        staked = False
    assert staked is v.stakes
    seen_limits = seen_special = seen_spring = False
    rng = random.Random(3)
    for seed in range(2000):
        g = ddz.Game(rules, seed)
        while not g.is_over:
            if g.phase == "PLAY" and not seen_limits:
                seen_limits = any(x is not None for x in g.play_state.bomb_limits)
            acts = g.legal_actions()
            # the largest play half the time: hands end fast, and springs happen
            g.apply(acts[-1] if g.phase == "PLAY" and rng.random() < 0.5 else rng.choice(acts))
        r = g.result
        seen_special = seen_special or r.kind == "special"
        seen_spring = seen_spring or bool(r.spring or r.anti_spring)
        if seen_spring and (seen_limits or not v.bomb_limits) and (seen_special or not v.deal_specials):
            break
    assert seen_limits is v.bomb_limits
    assert seen_spring is v.springs
    if v.deal_specials:
        assert seen_special
    else:
        assert not seen_special


@pytest.mark.parametrize("name", VARIANTS)
def test_layout_accounts_for_every_card(name):
    v = VARIANT[name]
    assert v.players * v.hand + v.kitty + v.aside == 54 * v.decks
    assert v.max_hand == v.hand + v.kitty
    rules = ddz.Rules(name)
    assert (rules.players, rules.decks, rules.max_hand) == (v.players, v.decks, v.max_hand)


@pytest.mark.parametrize("name", VARIANTS)
def test_decisions_are_every_token_the_game_offers(name):
    """Random hands: every decision offered is in the table; most of the table shows up."""
    seen = set()
    rng = random.Random(7)
    for seed in range(60):
        g = ddz.Game(ddz.Rules(name), seed)
        while not g.is_over:
            acts = g.legal_actions()
            if g.phase != "PLAY":
                seen.update(acts)
            g.apply(rng.choice(acts))
    assert seen <= set(VARIANT[name].decisions)
    assert len(VARIANT[name].decisions) == len(set(VARIANT[name].decisions))
    assert len(seen) >= len(VARIANT[name].decisions) - 2


def test_aliases():
    assert by_alias("CLASSIC3").name == "classic"
    assert by_alias("twop").name == "two_player"
    assert by_alias("bengbu4").name == "bengbu"
    with pytest.raises(KeyError):
        by_alias("poker")
