"""ddz: a fast, faithful Dou Dizhu (斗地主) rules engine.

The rules are described in docs/rules.md (in the repository and the sdist, with records,
encodings and peers beside it); the C++ core (``ddz._core``) does cards, classification
and legal-move generation; this package adds the typed facade.
"""
from ._core import (
    CardError,
    Cards,
    IllegalAction,
    Kind,
    Move,
    MoveError,
    PlayState,
    classify,
    count_moves,
    cpu_has_fast_isa,
    deal,
    decode,
    dispatch_level,
    hand_words,
    legal_moves,
    legal_moves_array,
    legal_moves_batch,
    set_dispatch_level,
)
from .core.rules import VARIANTS, Rules
from .core.errors import (ArgumentError, ArgumentTypeError, CardTypeError, DdzError, IllegalActionTypeError,
                          IllegalCode, MoveTypeError, RecordError, RecordTypeError)
from .core.cards import card_id, card_name
from .core import action_space, variants
from .hand.game import Game
from .hand.scoring import GameResult, kitty_factor
from .hand.table import TablePolicy as _TablePolicy
from .rooms import ROOMS, Room, Settlement, settle
from .rooms import MATCH_TIERS, Matchmaker
from .search.simulate import MAX_THREADS, SimulationResult, simulate
from .search.solver import Solution, SolveError, SolveTypeError, solve
from .search.sample import SampleError, SampleTypeError, sample_deals
from .search.evaluate import EvaluationResult, HeadToHeadResult, evaluate, head_to_head
from .search import bots
from .learn.vector_env import VectorEnv
from .learn import encode
from . import _compat

# The composition root: the hand layer's table policy plays a seat given no bot with the
# search layer's RuleBot (the hand never imports the layers above it).
_TablePolicy.default_bot = bots.RuleBot
# the module paths of earlier versions (ddz.game, ddz.bots, ddz.envs, ...) keep working
_compat.install()

from ._version import __version__

__all__ = [
    "ArgumentError", "ArgumentTypeError", "CardTypeError", "DdzError", "IllegalActionTypeError", "IllegalCode",
    "MAX_THREADS",
    "MoveTypeError", "RecordError", "RecordTypeError",
    "encode", "VectorEnv",
    "action_space", "EvaluationResult", "evaluate", "HeadToHeadResult", "head_to_head",
    "bots", "variants", "card_id", "card_name", "CardError", "Cards", "classify", "count_moves", "cpu_has_fast_isa",
    "deal", "decode", "dispatch_level", "Game", "GameResult", "hand_words", "IllegalAction", "Kind",
    "kitty_factor", "legal_moves", "legal_moves_array", "legal_moves_batch", "MATCH_TIERS", "Matchmaker",
    "Move", "MoveError", "PASS", "PlayState", "Room", "ROOMS", "Rules", "sample_deals", "SampleError",
    "SampleTypeError", "set_dispatch_level", "settle", "Settlement", "simulate", "SimulationResult",
    "Solution", "solve", "SolveError", "SolveTypeError", "VARIANTS", "__version__",
]

# Submodules a user may name through the package without importing them first
# (``import ddz; ddz.envs.pettingzoo_env(...)``): loaded on first access, so that
# ``import ddz`` stays light and the optional frameworks are imported only when used.
_LAZY_SUBMODULES = frozenset({"envs", "peers", "openspiel_ids", "record", "draw"})


def __getattr__(name: str) -> object:
    # a deprecated old path (ddz.cards, ...) is imported here, through _compat's finder, which warns
    if name in _LAZY_SUBMODULES or f"{__name__}.{name}" in _compat.DEPRECATED:
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'ddz' has no attribute {name!r}")


PASS = "PASS"  # the pass action token, accepted by PlayState.apply (as is a PASS Move or Rules.pass_id)

Kind.__str__ = lambda self: self.name  # type: ignore[method-assign,attr-defined]  # 'BOMB', not '12'


def _picture(self: object) -> str:
    """The object's drawing as SVG (``ddz.draw.picture``: a Game shows its open table), for
    Jupyter and IPython; the drawing module loads on the first display, not with ``import ddz``."""
    from .draw import picture
    return str(picture(self))


def _give_pictures(*types: type) -> None:
    """Gives each type a ``_repr_svg_`` drawing it, unless the type defines one itself (as a type
    that refuses attributes set from Python, a Cython cdef class, must: calling ddz.draw lazily)."""
    for t in types:
        if "_repr_svg_" not in vars(t):
            setattr(t, "_repr_svg_", _picture)


# Cards, Move and Game show as pictures in a notebook (docs/architecture.md)
_give_pictures(Cards, Move, Game)
