"""The variant table (docs/rules.md §1): the C++ layout and the Python facts agree with each
other and with what the engine does."""
import random

import pytest

import ddz
from ddz import _core
from ddz.variants import VARIANT, VARIANTS, by_alias


def test_core_and_python_halves_agree():
    layouts = _core.variant_layouts()
    assert [l["name"] for l in layouts] == list(VARIANTS)
    for vid, layout in enumerate(layouts):
        v = VARIANT[layout["name"]]
        assert v.id == vid
        for key, value in layout.items():
            if key != "name":
                assert getattr(v, key) == value, (v.name, key)


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
