"""Writes docs/pictures/*.svg: the drawings of ``ddz.draw`` that the docs and the README show,
made from fixed deals and fixed choices.

``--check`` writes nothing and exits 1 naming every picture that differs from what ``ddz.draw``
draws now (tests/test_pictures.py runs it; after a change of the drawings, the dealer or the
engine, run this script again).

    python tools/make_pictures.py          # rewrite the pictures
    python tools/make_pictures.py --check  # compare only
"""
from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Union

ROOT = Path(__file__).resolve().parent.parent
PICTURES_DIR = ROOT / "docs" / "pictures"
sys.path.insert(0, str(ROOT / "tools"))
from generated_files import write_or_check  # noqa: E402

import ddz  # noqa: E402
import ddz.draw  # noqa: E402


class Scene(NamedTuple):
    """A picture and what it shows: the game and the seat of a table (``"open"``, a seat, None),
    or the cards of the others (their names, in any order)."""

    svg: str
    game: Optional[Any] = None
    seat: Union[int, str, None] = "open"
    names: Optional[List[str]] = None


def midway(rules: ddz.Rules, seed: int, actions: int, rng_seed: int = 0) -> ddz.Game:
    """The hand dealt by ``seed`` after ``actions`` actions, each drawn by
    ``random.Random(rng_seed).choice`` among the legal ones (fewer if the hand ends first)."""
    rng = random.Random(rng_seed)
    g = ddz.Game(rules, seed)
    for _ in range(actions):
        if g.is_over:
            break
        g.apply(rng.choice(g.legal_actions()))
    return g


def _table(rules: ddz.Rules, seed: int, actions: int, seat: Union[int, str, None] = "open") -> Scene:
    g = midway(rules, seed, actions)
    return Scene(ddz.draw.table(g, seat=seat), g, seat)


_HAND_GAME = ddz.Game(ddz.Rules.classic(), 3)

# picture name -> what draws it
PICTURES: Dict[str, Callable[[], Scene]] = {
    "cards": lambda: Scene(ddz.draw.cards("3s Th Qc Ad B R"), names=["3s", "Th", "Qc", "Ad", "B", "R"]),
    "hand": lambda: Scene(ddz.draw.hand(_HAND_GAME.cards(0)), names=_HAND_GAME.cards(0)),
    "move": lambda: Scene(ddz.draw.move(ddz.classify("33344456", ddz.Rules.classic())),
                          names=list("33344456")),
    "trick": lambda: Scene(ddz.draw.trick(midway(ddz.Rules.classic(), 3, 14)), midway(ddz.Rules.classic(), 3, 14)),
    "table_classic": lambda: _table(ddz.Rules.classic(), 3, 14),
    "table_classic_seat1": lambda: _table(ddz.Rules.classic(), 3, 14, seat=1),
    "table_two_player": lambda: _table(ddz.Rules.two_player(), 5, 12, seat=0),
    "table_bengbu": lambda: _table(ddz.Rules.bengbu(), 11, 16),
}


def main(argv: Optional[List[str]] = None) -> int:
    return write_or_check({name: (lambda d=draw: str(d().svg)) for name, draw in PICTURES.items()}, PICTURES_DIR,
                          ".svg", "pictures", "tools/make_pictures.py", argv, __doc__.split("\n\n")[0])


if __name__ == "__main__":
    sys.exit(main())
