"""ddz's whole hands as OpenSpiel games, so that OpenSpiel's algorithms run on ddz.

Importing this module registers three games with OpenSpiel (``pyspiel.register_game``), the
way OpenSpiel's own Python games do; ``register()`` does it again safely (it is idempotent)::

    import pyspiel
    import ddz.peers.openspiel_game          # registers the games
    game = pyspiel.load_game("python_ddz_classic")

=========================  ===========  ====================================================
OpenSpiel name             ddz variant  rules (parameter ``rules``)
=========================  ===========  ====================================================
``python_ddz_classic``     CLASSIC3     ``classic`` (default), or a compat preset:
                                        ``classic_openspiel``, ``classic_douzero``,
                                        ``classic_rlcard``
``python_ddz_two_player``  TWOP         ``two_player``
``python_ddz_bengbu``      BENGBU4      ``bengbu``
=========================  ===========  ====================================================

A state wraps one ``ddz.Game``: the deal, the auction and the play of one hand.

* **The deal is one chance node**, the first node of every game: it picks one of ``deals``
  seeds (a game parameter, 10,000 by default), uniformly, and the hand is
  ``ddz.Game(rules, seed_offset + outcome)``. The seed fixes every deal of the hand, the
  re-deals included (ddz deals them from the seed), so there is no other chance node. This is
  a *sample* of the deals, not all of them, and an honest consequence follows: an algorithm
  that enumerates the ``deals`` chance outcomes can tell the seed from its own hand, and from
  it every hidden card. Algorithms that sample (MCTS, RL, outcome sampling) are unaffected;
  for tabular solvers on information sets, treat the game as a sample of deals.
* **Player nodes** are ddz's own action ids (``ddz.action_space``): a play by its
  ``Move.id``, PASS at ``rules.pass_id``, decision k of the variant at ``pass_id + 1 + k``;
  ``num_distinct_actions()`` is ``rules.num_actions`` and ``legal_actions()`` are
  ``Game.legal_action_ids()`` in ascending order.
* **The game is finite.** The parameter ``max_redeals`` (3 by default, at least 1) sets the
  rules option of that name: the hand is void (every score 0) after that many re-deals.
  ``max_game_length()`` is a true bound: every deal that is re-dealt takes at most 3
  (CLASSIC3) or 4 (TWOP, BENGBU4) decisions; the last deal at most 7, 6 or 5 auction
  decisions; and the play at most ``players × cards`` actions (each play removes at least
  one card, and at most ``players - 1`` passes follow a play).
* **Returns** are the seat scores of the ddz ``GameResult`` (``Game.result.scores``), all
  zero until the hand is over. ``min_utility()`` / ``max_utility()`` are true bounds, not
  tight ones (``utility_bounds``): CLASSIC3 ``±2 × rob × show × kitty × 2**bombs × spring``
  at their largest (14 bomb-class plays at most in one deck); TWOP
  ``±2 × I × show × 4 × 2**bombs × 2`` (11 bomb-class plays in the 43 cards in play);
  BENGBU4 the larger of the play score (base 3, win factor 3, 5 missile units) and the
  天炸/天尊 payments. A BENGBU4 hand can end at the deal (天炸/天尊): the state is then
  terminal right after the chance node (or after the re-deal that dealt it).
* **Observations.** ``observation_tensor(seat)`` and ``information_state_tensor(seat)`` are
  ``ddz.learn.encode.compact(game, seat)`` as floats (width ``compact_layout(rules)``; the
  observer's ``dict`` holds its named blocks); all zero at the chance node. The compact
  encoding is a summary of what the seat sees, **not** a perfect-recall encoding, so the
  information-state tensor is the observation tensor. ``information_state_string(seat)`` is
  perfect recall: the seat's ``ddz-view`` record (its own dealt cards of every deal, every
  public action, what it sees now). ``observation_string(seat)`` is what the seat sees now.
* **Serialization** (``pyspiel.serialize_game_and_state``) is OpenSpiel's for Python games:
  the game string with its parameters, the action history, and the state's attributes
  pickled; the ``ddz.Game`` pickles as its record and replays on load.

The game parameters: ``rules``, ``deals``, ``seed_offset``, ``max_redeals`` and the ddz
rules options that change what is played or scored (``GAME_OPTIONS``; each with the
variant's default). A compat preset fixes its play options (``PLAY_OPTIONS``): the game's
string, ``get_parameters()`` and ``game.rules`` (whose ``preset`` is the preset's name) hold the
preset's values, and a parameter that gives one of them another value is an error. Options that only matter to tables, rooms and escapes are not
parameters (OpenSpiel has no escapes), nor is ``classic_landlord_loss_factor`` (1 would
make CLASSIC3 general-sum; the games are declared zero-sum except TWOP). A bad value
raises ``ddz.ArgumentError`` (a ``ValueError``) naming the parameter. ``pyspiel.load_game``
checks names and types itself first (raising OpenSpiel's ``SpielError``); ``load(variant,
**params)`` checks them with ddz's errors (``ArgumentError`` for an unknown name,
``ArgumentTypeError`` for a wrong type) before it calls ``pyspiel.load_game``.
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("ddz.peers.openspiel_game needs OpenSpiel: pip install open_spiel "
                      "(or pip install 'ddz[openspiel]')") from e

from ..core.errors import ArgumentError, ArgumentTypeError, shown
from ..core.rules import Rules
from ..core.variants import VARIANT
from ..hand.game import Game
from ..hand.record import view_record
from ..learn.encode import compact, compact_layout

__all__ = ["GAME_NAMES", "GAME_OPTIONS", "PLAY_OPTIONS", "PRESETS", "DEFAULT_DEALS", "DEFAULT_MAX_REDEALS",
           "DdzOpenSpielGame", "DdzOpenSpielState", "DdzObserver", "load", "register", "rules_from_params",
           "reported_params",
           "utility_bounds", "max_game_length"]

#: The OpenSpiel short name of each ddz variant.
GAME_NAMES: Mapping[str, str] = {"classic": "python_ddz_classic", "two_player": "python_ddz_two_player",
                                 "bengbu": "python_ddz_bengbu"}
#: The values of the ``rules`` parameter per variant: the variant, then the compat presets.
PRESETS: Mapping[str, Tuple[str, ...]] = {"classic": ("classic", "classic_openspiel", "classic_douzero",
                                                      "classic_rlcard"),
                                          "two_player": ("two_player",), "bengbu": ("bengbu",)}
#: The options a compat preset fixes (what may be played).
PLAY_OPTIONS: Tuple[str, ...] = ("kicker_may_share_main_rank", "kicker_pairs_distinct", "rocket_as_kickers",
                                 "single_kicker_rank_cap", "four_with_two", "kicker_trio_beside_chain")
_COMMON_PLAY = ("kicker_may_share_main_rank", "kicker_pairs_distinct", "rocket_as_kickers", "single_kicker_rank_cap")
#: The ddz rules options each game takes as parameters (their defaults are the variant's).
GAME_OPTIONS: Mapping[str, Tuple[str, ...]] = {
    "classic": _COMMON_PLAY + ("four_with_two", "kicker_trio_beside_chain", "classic_passers_may_rob",
                               "classic_rob_winner", "classic_rob_cap", "classic_show_timing",
                               "classic_kitty_combine"),
    "two_player": _COMMON_PLAY + ("four_with_two", "kicker_trio_beside_chain", "twop_initial_multiplier",
                                  "twop_show_start_stacks", "twop_fanshen_point", "twop_rocket_doubles",
                                  "twop_zero_sum"),
    "bengbu": _COMMON_PLAY + ("bengbu_four_with_two", "bengbu_trio_chain_order", "bengbu_joker_pairs",
                              "bengbu_missiles_once_per_player", "bengbu_special_per_instance"),
}
#: The default number of deal seeds the chance node picks from.
DEFAULT_DEALS = 10_000
#: The largest ``deals`` parameter (the chance node lists every outcome).
MAX_DEALS = 1_000_000
#: The default ``max_redeals`` (the hand is void after that many re-deals).
DEFAULT_MAX_REDEALS = 3
# options whose OpenSpiel parameter is a float (OpenSpiel types a parameter by its default)
_FLOAT_OPTIONS = frozenset({"twop_initial_multiplier"})
# auction decisions of a deal that is re-dealt, and of the deal that is played, at most
_REDEAL_DECISIONS = {"classic": 3, "two_player": 4, "bengbu": 4}
_LAST_DEAL_DECISIONS = {"classic": 7, "two_player": 6, "bengbu": 5}


def _parameter_spec(variant: str) -> Dict[str, Any]:
    """The OpenSpiel parameter specification of a variant's game (name -> default)."""
    defaults = Rules(variant).options
    spec: Dict[str, Any] = {"rules": variant, "deals": DEFAULT_DEALS, "seed_offset": 0,
                            "max_redeals": DEFAULT_MAX_REDEALS}
    for name in GAME_OPTIONS[variant]:
        spec[name] = float(defaults[name]) if name in _FLOAT_OPTIONS else defaults[name]
    return spec


_TYPE_NAMES = {bool: "a bool", int: "an int", float: "a number", str: "a str"}


def _check_type(name: str, value: Any, default: Any) -> Any:
    """``value`` of parameter ``name`` when its type is the one its default has (an int is
    taken for a float, as a float), else ``ArgumentTypeError``."""
    if isinstance(default, bool):
        ok = isinstance(value, (bool, np.bool_))
    elif isinstance(default, int):
        ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    elif isinstance(default, float):
        ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    else:
        ok = isinstance(value, str)
    if not ok:
        raise ArgumentTypeError(f"game parameter {name} must be {_TYPE_NAMES[type(default)]}, "
                                f"not {type(value).__name__} {shown(value)}")
    value = value.item() if isinstance(value, np.generic) else value
    return float(value) if isinstance(default, float) else value


def _checked_params(variant: str, params: Mapping[str, Any]) -> Dict[str, Any]:
    """``params`` with their names and types checked (ints taken for floats made floats)."""
    if variant not in GAME_NAMES:
        raise ArgumentError(f"no OpenSpiel game for variant {shown(variant)}: use one of {', '.join(GAME_NAMES)}")
    spec = _parameter_spec(variant)
    unknown = sorted(set(params) - set(spec))
    if unknown:
        raise ArgumentError(f"unknown game parameter{'s' if len(unknown) > 1 else ''} "
                            f"{', '.join(shown(n, 40) for n in unknown[:5])} for {GAME_NAMES[variant]} "
                            f"(known: {', '.join(sorted(spec))})")
    return {name: _check_type(name, value, spec[name]) for name, value in params.items()}


@dataclass(frozen=True)
class _Config:
    """What a game's states need (immutable; shared, never copied, by clones)."""

    variant: str
    rules: Rules
    deals: int
    seed_offset: int
    width: int
    layout: Tuple[Tuple[str, slice], ...]

    def __copy__(self) -> "_Config":
        return self

    def __deepcopy__(self, memo: Dict[int, Any]) -> "_Config":
        return self


@functools.lru_cache(maxsize=8)
def _outcomes(deals: int) -> List[Tuple[int, float]]:
    """The chance node's outcomes: every deal index, uniform (built once per ``deals``)."""
    p = 1.0 / deals
    return [(k, p) for k in range(deals)]


def rules_from_params(variant: str, params: Mapping[str, Any]) -> Tuple[Rules, int, int]:
    """The ``ddz.Rules``, ``deals`` and ``seed_offset`` that the game parameters ``params`` of
    ``variant``'s game give; parameters not in ``params`` take their defaults. Raises
    ``ArgumentError`` for an unknown parameter or a bad value, ``ArgumentTypeError`` for a
    wrong type."""
    given = _checked_params(variant, params)
    values = {**_parameter_spec(variant), **given}
    preset = values["rules"]
    if preset not in PRESETS[variant]:
        raise ArgumentError(f"game parameter rules must be one of {', '.join(PRESETS[variant])} for "
                            f"{GAME_NAMES[variant]}, not {shown(preset)}")
    deals, offset, max_redeals = values["deals"], values["seed_offset"], values["max_redeals"]
    if not 1 <= deals <= MAX_DEALS:
        raise ArgumentError(f"game parameter deals must be in 1..{MAX_DEALS:,}, not {deals}")
    if not 0 <= offset <= 2**63 - MAX_DEALS:
        raise ArgumentError(f"game parameter seed_offset must be >= 0, not {offset}")
    if max_redeals < 1:
        raise ArgumentError(f"game parameter max_redeals must be >= 1 (0 would let the re-deals go on for "
                            f"ever, and OpenSpiel needs a finite game), not {max_redeals}")
    options = {name: values[name] for name in GAME_OPTIONS[variant]}
    if preset != variant:
        # the preset's own play options. OpenSpiel fills in every parameter not given with its
        # default (the variant's), so a play option at the variant's default or at the preset's
        # value (the game's string holds those) is taken as the preset's; another value clashes
        fixed, default = Rules.named(preset).options, Rules(variant).options
        clash = [n for n in PLAY_OPTIONS if n in given and given[n] not in (fixed[n], default[n])]
        if clash:
            raise ArgumentError(f"rules={preset} fixes the play options "
                                f"({', '.join(f'{n}={fixed[n]}' for n in clash)}); drop "
                                f"{', '.join(clash)} or use rules={variant}")
        options.update({n: fixed[n] for n in PLAY_OPTIONS})
    options["max_redeals"] = max_redeals
    return Rules(variant, _preset="" if preset == variant else preset, **options), deals, offset


def reported_params(rules: Rules, params: Mapping[str, Any]) -> Dict[str, Any]:
    """The parameters a game reports (its string, ``get_parameters()``): ``params`` with the
    play options a compat preset fixes at the preset's values, so that they name the rules the
    hands are played with (and loading the game's string gives the same game)."""
    if rules.preset == rules.variant:
        return dict(params)
    return {**params, **{n: rules.options[n] for n in PLAY_OPTIONS if n in GAME_OPTIONS[rules.variant]}}


def _classic_bound(o: Any, v: Any, bombs: int) -> float:
    rob = min(2 ** 3, o["classic_rob_cap"])                # three robs at most
    d = rob * 2 * 4 * 2 ** bombs * 2                         # show, kitty (4 at most), bombs, spring
    return 2.0 * d                                           # the landlord wins or loses 2X


def _twop_bound(o: Any, v: Any, bombs: int) -> float:
    show = 5 ** 2 if o["twop_show_start_stacks"] else 5
    m = show * 4 * 2 ** bombs * 2                            # show, 翻身 + 压迫, bombs, spring
    return 2.0 * float(o["twop_initial_multiplier"]) * m


def _bengbu_bound(o: Any, v: Any, bombs: int) -> float:
    missiles = 1 if o["bengbu_missiles_once_per_player"] else (v.max_hand - 4) // 7 + 1
    play = 3 * 3 * (3 + missiles)                            # three farmers, base 3, win factor 3
    special = 3 * (30 * 3 + 6 if o["bengbu_special_per_instance"] else 36)
    return float(max(play, special))


# each variant's largest score: its own multipliers (docs/rules.md §6, §7, §8)
_SCORE_BOUND = {"classic": _classic_bound, "two_player": _twop_bound, "bengbu": _bengbu_bound}


def utility_bounds(rules: Rules) -> Tuple[float, float]:
    """True (not tight) bounds ``(min, max)`` of any seat's score in a hand under ``rules``
    (see the module docstring). Escapes cannot happen in OpenSpiel and are not counted."""
    v = VARIANT[rules.variant]
    in_play = v.players * v.hand + v.kitty
    bombs = min(13, (in_play - 2) // (4 * v.decks)) + 1       # four of a kind per rank, and the rocket
    bound = _SCORE_BOUND[v.name](rules.options, v, bombs)
    return -bound, bound


def max_game_length(rules: Rules) -> int:
    """A true bound on the number of player actions of a hand under ``rules`` (whose
    ``max_redeals`` must be at least 1); see the module docstring."""
    redeals = rules.options["max_redeals"]
    if redeals < 1:
        raise ArgumentError("max_redeals must be >= 1 for a finite game")
    v = VARIANT[rules.variant]
    cards = v.players * v.hand + v.kitty
    return (_REDEAL_DECISIONS[v.name] * (redeals - 1) + _LAST_DEAL_DECISIONS[v.name] + v.players * cards)


def _game_type(variant: str) -> Any:
    v = VARIANT[variant]
    zero_sum = v.zero_sum
    return pyspiel.GameType(
        short_name=GAME_NAMES[variant],
        long_name=f"ddz {v.title} (Dou Dizhu)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=v.players,
        min_num_players=v.players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameter_spec(variant),
        default_loadable=True,
        provides_factored_observation_string=False)


class DdzOpenSpielGame(pyspiel.Game):
    """A ddz variant as an OpenSpiel game (``pyspiel.Game``); see the module docstring. The
    subclasses ``ClassicGame``, ``TwoPlayerGame`` and ``BengbuGame`` are what OpenSpiel
    loads; ``rules`` is the ``ddz.Rules`` the hands are played with."""

    variant = "classic"

    def __init__(self, params: Optional[Mapping[str, Any]] = None) -> None:
        params = dict(params or {})
        rules, deals, offset = rules_from_params(self.variant, params)
        low, high = utility_bounds(rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=rules.num_actions,
            max_chance_outcomes=deals,
            num_players=rules.players,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0 if VARIANT[self.variant].zero_sum else None,
            max_game_length=max_game_length(rules))
        super().__init__(_GAME_TYPES[self.variant], info, reported_params(rules, params))
        layout = tuple(sorted(compact_layout(rules).items(), key=lambda kv: kv[1].start))
        self.rules: Rules = rules
        self._config = _Config(self.variant, rules, deals, offset, layout[-1][1].stop, layout)

    def new_initial_state(self) -> "DdzOpenSpielState":
        """The chance node that picks the deal seed."""
        return DdzOpenSpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Optional[Mapping[str, Any]] = None) -> "DdzObserver":
        """The observer OpenSpiel asks for: perfect recall gives the information state."""
        if isinstance(iig_obs_type, dict):  # OpenSpiel calls make_py_observer(params) without a type
            iig_obs_type, params = None, iig_obs_type
        return DdzObserver(self._config, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class ClassicGame(DdzOpenSpielGame):
    """``python_ddz_classic``: CLASSIC3."""

    variant = "classic"


class TwoPlayerGame(DdzOpenSpielGame):
    """``python_ddz_two_player``: TWOP."""

    variant = "two_player"


class BengbuGame(DdzOpenSpielGame):
    """``python_ddz_bengbu``: BENGBU4."""

    variant = "bengbu"


class DdzOpenSpielState(pyspiel.State):
    """One hand: the chance node that picks the deal seed, then a ``ddz.Game`` (``ddz_game``)."""

    def __init__(self, game: DdzOpenSpielGame) -> None:
        super().__init__(game)
        self._config: _Config = game._config
        self._seed: Optional[int] = None
        self._game: Optional[Game] = None

    # ---- what the state holds ----
    @property
    def ddz_game(self) -> Optional[Game]:
        """The ``ddz.Game`` of this hand (None at the chance node). Apply actions through the
        state, not to this game, or the two part ways."""
        return self._game

    @property
    def seed(self) -> Optional[int]:
        """The hand's deal seed (None at the chance node)."""
        return self._seed

    # ---- OpenSpiel's API ----
    def current_player(self) -> int:
        """CHANCE before the deal, TERMINAL once the hand is over, else the seat to act."""
        g = self._game
        if g is None:
            return int(pyspiel.PlayerId.CHANCE)
        if g.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        seat = g.current_seat
        assert seat is not None, "a hand that is not over has a seat to act"
        return seat

    def _legal_actions(self, player: int) -> List[int]:
        """The seat's ddz action ids, ascending (``Game.legal_action_ids()``)."""
        g = self._game
        assert g is not None and player == g.current_seat, "only the seat to act has legal actions"
        return sorted(g.legal_action_ids())

    def chance_outcomes(self) -> List[Tuple[int, float]]:
        """The deal seeds ``0 .. deals-1`` (offset by ``seed_offset``), uniform."""
        assert self._game is None, "only the deal is a chance node"
        return _outcomes(self._config.deals)

    def _apply_action(self, action: int) -> None:
        if self._game is None:
            if not 0 <= action < self._config.deals:
                raise ArgumentError(f"no deal {action}: the chance outcomes are 0..{self._config.deals - 1}")
            self._seed = self._config.seed_offset + int(action)
            self._game = Game(self._config.rules, self._seed)
        else:
            self._game.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"Deal seed {self._config.seed_offset + action}"
        return self._config.rules.action_token(int(action))

    def is_terminal(self) -> bool:
        return self._game is not None and self._game.is_over

    def returns(self) -> List[float]:
        """The ddz result's seat scores once the hand is over, else zeros."""
        g = self._game
        if g is None or g.result is None:
            return [0.0] * self._config.rules.players
        return [float(s) for s in g.result.scores]

    def __str__(self) -> str:
        """The whole state, every hand included (for debugging; OpenSpiel compares it)."""
        g = self._game
        if g is None:
            return (f"{GAME_NAMES[self._config.variant]}: the deal (seed {self._config.seed_offset} + one of "
                    f"{self._config.deals})")
        hands = " | ".join(f"{s}: {g.hand(s)}" for s in range(g.num_players))
        kitty = g.kitty
        lines = [f"seed {self._seed}, deal {g.deal_number}, phase {g.phase}, to act {g.current_seat}, "
                 f"landlord {g.landlord}",
                 f"hands {hands}",
                 f"kitty {kitty if kitty is not None else '-'}",
                 "history " + " ".join(f"{'-' if s is None else s}:{t.replace(' ', '_')}" for s, t in g.history)]
        if g.result is not None:
            lines.append(f"result {g.result.kind} {g.result.scores}")
        return "\n".join(lines)


class DdzObserver:
    """The observer of a ddz OpenSpiel game (OpenSpiel's PyObserver protocol): ``tensor`` is
    the compact encoding as float32, ``dict`` its named blocks (views of ``tensor``);
    ``string_from`` the seat's view (perfect recall: its ``ddz-view`` record; otherwise what
    it sees now)."""

    def __init__(self, config: _Config, iig_obs_type: Any, params: Optional[Mapping[str, Any]]) -> None:
        if params:
            raise ArgumentError(f"the ddz observer takes no parameters, not {shown(dict(params))}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ArgumentError("the ddz observer observes for one seat (private_info=SINGLE_PLAYER, public_info=True)")
        self._config = config
        self.perfect_recall: bool = bool(iig_obs_type.perfect_recall)
        self.tensor = np.zeros(config.width, np.float32)
        self.dict = {name: self.tensor[s] for name, s in config.layout}

    def set_from(self, state: DdzOpenSpielState, player: int) -> None:
        """Writes the compact encoding of ``player``'s view of ``state`` into ``tensor``."""
        g = state._game
        if g is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = compact(g, player)

    def string_from(self, state: DdzOpenSpielState, player: int) -> str:
        """``player``'s view of ``state`` as a JSON string (keys sorted)."""
        g = state._game
        if g is None:
            return f"seat {player}: the deal"
        if self.perfect_recall:
            view = view_record(g, player)
            obs = view["observation"]
            keep = {"seat": player, "deals": view["deals"], "actions": view["actions"],
                    "now": {k: v for k, v in obs.items() if k not in ("bots", "history", "legal_actions")},
                    "result": view["result"]}
        else:
            obs = g.observation(player)
            keep = {k: v for k, v in obs.items() if k not in ("bots", "history", "legal_actions")}
            hist = g.history
            keep["last"] = [list(h) for h in hist[-(g.num_players - 1):]] if hist else []
        return json.dumps(keep, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


_GAME_CLASSES = {"classic": ClassicGame, "two_player": TwoPlayerGame, "bengbu": BengbuGame}
_GAME_TYPES = {variant: _game_type(variant) for variant in GAME_NAMES}


def load(variant: str = "classic", **params: Any) -> Any:
    """``pyspiel.load_game`` of ``variant``'s game (a ddz variant name or alias, or an OpenSpiel
    name ``python_ddz_*``) with the game parameters ``params``, checked by ddz first: an
    unknown parameter or a bad value raises ``ArgumentError``, a wrong type
    ``ArgumentTypeError`` (``pyspiel.load_game`` itself raises OpenSpiel's ``SpielError`` for
    an unknown name or a wrong type, before ddz sees them)."""
    register()
    if not isinstance(variant, str):
        raise ArgumentTypeError(f"variant must be a str, not {type(variant).__name__}")
    names = {name: v for v, name in GAME_NAMES.items()}
    if variant in names:
        variant = names[variant]
    else:
        variant = next((v.name for v in VARIANT.values() if variant in v.aliases or variant == v.name), variant)
    checked = _checked_params(variant, params)
    rules_from_params(variant, checked)
    return pyspiel.load_game(GAME_NAMES[variant], checked)


def register() -> List[str]:
    """Registers the three games with OpenSpiel unless they are registered already (so it may
    be called any number of times; importing this module calls it). Returns their names."""
    known = set(pyspiel.registered_names())
    for variant, name in GAME_NAMES.items():
        if name not in known:
            pyspiel.register_game(_GAME_TYPES[variant], _GAME_CLASSES[variant])
    return list(GAME_NAMES.values())


register()
