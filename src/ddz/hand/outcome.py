"""A hand's ``GameResult`` from the core's outcome (``csrc/ddz/hand.cpp``, ``HandOutcome``).

The core is the one author of every score: which factors apply, the multiplier, how a hand
ended, who won, each seat's share. What it cannot hold is the room's stake: CLASSIC3's base ×
initial multiplier may pass 64 bits (10**12 × 10**12 × D), and TWOP's initial multiplier may be
fractional (0.5). So the core gives each seat's score as ``coef × stake / den`` (``den`` 2 only
for the farmers' floor(X/2) of a losing landlord under ``classic_landlord_loss_factor=1``), and
``exact_score`` forms it here with Python's numbers. Nothing here decides a rule: the variant's
facts this module reads (which option is the stake, which the point value, the settlement
terms) are the variant table's (``ddz.core.variants``).
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ..core.rules import Rules
from ..core.variants import VARIANT
from .scoring import GameResult

__all__ = ["exact_score", "stake_of", "factors_of", "result_of"]

Number = Union[int, float]

# the factor types of the core's outcome (FactorType)
_INT, _BOOL, _STAKE, _OPTION = range(4)


def exact_score(coef: int, den: int, stake: Number) -> Number:
    """A seat's score from the core's coefficient: ``coef × stake``, floored over ``den`` (2 for a
    CLASSIC3 farmer's ⌊X/2⌋, else 1). Exact for integer stakes of any size; a fractional stake
    (TWOP's initial multiplier) gives a float with one rounding."""
    x = coef * stake
    return x if den == 1 else x // den


def stake_of(rules: Rules, base: int, initial_multiplier: int) -> Number:
    """The stake every score of a hand is a multiple of: the room's base × initial multiplier
    (CLASSIC3's; 1 and 1 elsewhere), times the variant's stake option (TWOP's
    ``twop_initial_multiplier``), if it has one."""
    option = VARIANT[rules.variant].stake_option
    stake: Number = base * initial_multiplier
    return stake * rules.options[option] if option else stake


def factors_of(entries: Sequence[Tuple[str, int, int, Optional[str]]], stake: Number,
               options: Mapping[str, Any]) -> Dict[str, Any]:
    """The factors by name, from the core's (name, value, type, option) entries."""
    out: Dict[str, Any] = {}
    for name, value, kind, option in entries:
        out[name] = (bool(value) if kind == _BOOL else stake if kind == _STAKE
                     else options[option] if kind == _OPTION and option is not None else value)
    return out


def result_of(outcome: Tuple[Any, ...], rules: Rules, base: int = 1, initial_multiplier: int = 1) -> GameResult:
    """The ``GameResult`` of the core's outcome tuple (``_WholeHand.outcome()``,
    ``escape_outcome(seat)``, ``_core._play_outcome``)."""
    (kind, winner_side, landlord, winner_seat, multiplier, unit, coefs, dens, factors, spring, anti_spring,
     robs, bombs, play_detail, missiles, limits, special, landlord_factor, has_terms) = outcome
    n = len(coefs)
    if kind == "void":
        return GameResult(kind="void", winner_side=None, landlord=None, winner_seat=None, multiplier=1, factors={},
                          unit=0, scores=[0] * n)
    v = VARIANT[rules.variant]
    options = rules.options
    stake = stake_of(rules, base, initial_multiplier)
    scores = [exact_score(c, d, stake) for c, d in zip(coefs, dens)]
    point_value = options[v.money_option] if v.money_option else None
    terms = {term: (landlord_factor if option is None else options[option]) for term, option in v.terms}
    holders: Dict[int, List[str]] = {}
    for s, (tianzha, tianzun) in enumerate(special):
        if tianzha or tianzun:
            holders[s] = ["天炸"] * tianzha + (["天尊"] if tianzun else [])
    return GameResult(
        kind=kind, winner_side=winner_side, landlord=landlord, winner_seat=winner_seat, multiplier=multiplier,
        factors=factors_of(factors, stake, options), unit=unit * stake if kind != "special" else 0, scores=scores,
        spring=spring, anti_spring=anti_spring, robs=robs, bombs=bombs,
        missiles=list(missiles) if play_detail else [],
        bomb_limits=list(limits) if v.bomb_limits and landlord is not None else [],
        money=[s * point_value for s in scores] if point_value is not None else [],
        special_holders=holders, terms=terms if has_terms else {})
