"""Shared seeded deals for the benchmarks (the same deals every run)."""
from __future__ import annotations

import random

import pytest

import ddz

ONE_DECK = "3456789TJQKA2" * 4 + "BR"
TWO_DECKS = "3456789TJQKA2" * 8 + "BBRR"


def deals(deck: str, size: int, n: int, seed: int = 2026) -> list:
    rng = random.Random(seed)
    cards = list(deck)
    out = []
    for _ in range(n):
        rng.shuffle(cards)
        out.append("".join(cards[:size]))
    return out


@pytest.fixture(scope="session")
def classic20():
    return deals(ONE_DECK, 20, 10_000)


@pytest.fixture(scope="session")
def bengbu33():
    return deals(TWO_DECKS, 33, 2_000)


@pytest.fixture(scope="session")
def rules():
    return {"classic": ddz.Rules.classic(), "bengbu": ddz.Rules.bengbu(), "two_player": ddz.Rules.two_player()}
