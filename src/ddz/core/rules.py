"""Rules presets: every option of docs/rules.md §11, validated, with the combination options
handed to the C++ core (``_core.RulesCore``)."""
from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any, Callable, Dict, Mapping, Tuple, Union

from .. import _core
from . import action_space
from .args import is_int
from .errors import ArgumentError, ArgumentTypeError, shown
from .variants import VARIANT, VARIANTS

__all__ = ["MAX_OPTION_VALUE", "RULES_NAMES", "Rules", "VARIANTS"]



def _bool(name: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise ArgumentTypeError(f"option {name} must be True or False, not {shown(v)}")
    return v


def _choice(*allowed: Any, reserved: Tuple[Any, ...] = ()) -> Callable[[str, Any], Any]:
    def check(name: str, v: Any) -> Any:
        if v in reserved:
            raise ArgumentError(
                f"option {name}={shown(v)} is reserved: the rules do not define it yet (allowed: "
                + ", ".join(repr(a) for a in allowed) + ")")
        if type(v) is not type(allowed[0]) and not (isinstance(v, int) and isinstance(allowed[0], int)
                                                     and not isinstance(v, bool) and not isinstance(allowed[0], bool)):
            raise ArgumentTypeError(f"option {name} must be one of {', '.join(repr(a) for a in allowed)}, not {shown(v)}")
        if v not in allowed:
            raise ArgumentError(f"option {name} must be one of {', '.join(repr(a) for a in allowed)}, not {shown(v)}")
        return v
    return check


#: The largest count or stake any option or room takes (docs/rules.md §11, "Numeric ranges"):
#: Rules, Game, records, pickles and VectorEnv take the same ranges, and the core's counters are
#: wider. The core defines it (kMaxOptionValue).
MAX_OPTION_VALUE: int = _core.MAX_OPTION_VALUE


def _int_range(lo: int, hi: int = MAX_OPTION_VALUE) -> Callable[[str, Any], int]:
    def check(name: str, v: Any) -> int:
        bound = f"{lo}..{hi}" if hi != MAX_OPTION_VALUE else f"{lo}..10**12"
        if not is_int(v):
            raise ArgumentTypeError(f"option {name} must be an integer {bound}, not {shown(v)}")
        if v < lo or v > hi:
            raise ArgumentError(f"option {name} must be an integer {bound}, not {shown(v)}")
        return int(v)  # a numpy integer stored as an int (the options are JSON)
    return check


def _positive(name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ArgumentTypeError(f"option {name} must be a positive number up to 10**12, not {shown(v)}")
    if not 0 < v <= MAX_OPTION_VALUE:  # NaN and infinity too
        raise ArgumentError(f"option {name} must be a positive number up to 10**12, not {shown(v)}")
    return v


_Spec = Tuple[Any, Callable[[str, Any], Any]]

_COMMON: Dict[str, _Spec] = {
    "move_timeout_s": (30, _positive),
    "timeout_policy": ("auto_minimal", _choice("auto_minimal", "bot")),
    "max_redeals": (0, _int_range(0)),
    "kicker_may_share_main_rank": (False, _bool),
    "kicker_pairs_distinct": (True, _bool),
    "rocket_as_kickers": (False, _bool),
}

_PER_VARIANT: Dict[str, Dict[str, _Spec]] = {
    "classic": {
        "single_kicker_rank_cap": (1, _int_range(1, 4)),
        "four_with_two": (True, _bool),
        "kicker_trio_beside_chain": (True, _bool),
        "classic_passers_may_rob": (False, _bool),
        "classic_rob_winner": ("first", _choice("first", "last")),
        "classic_rob_cap": (8, _int_range(1)),
        "classic_show_factor": (2, _choice(2)),
        "classic_show_timing": ("before_kitty", _choice("before_kitty", "after_kitty")),
        "classic_show_start": ("off", _choice("off", reserved=("on",))),
        "classic_kitty_combine": ("product", _choice("product", "max")),
        "classic_landlord_loss_factor": (2, _choice(2, 1)),
        "match_stage2_after_s": (10, _positive),
        "match_stage3_after_s": (20, _positive),
    },
    "two_player": {
        "single_kicker_rank_cap": (2, _int_range(1, 4)),
        "four_with_two": (True, _bool),
        "kicker_trio_beside_chain": (True, _bool),
        "twop_initial_multiplier": (1, _positive),
        "twop_room_coefficient": (100, _positive),
        "twop_show_start_factor": (5, _choice(5)),
        "twop_show_start_stacks": (False, _bool),
        "twop_post_deal_show": ("off", _choice("off", reserved=("on",))),
        "twop_fanshen_point": ("farmer_first_turn", _choice("farmer_first_turn", "before_lead")),
        "twop_rocket_doubles": (True, _bool),
        "twop_zero_sum": (False, _bool),
        "twop_coin_win_factor": (0.9, _choice(0.9)),
        "twop_max_win_factor": (1, _positive),
        "twop_escape_threshold_inclusive": (True, _bool),
        "twop_escape_compensation": ("normal_win", _choice("normal_win", "none")),
    },
    "bengbu": {
        "single_kicker_rank_cap": (2, _int_range(1, 8)),
        "bengbu_first_bidder": ("random", _choice("random")),
        "bengbu_kitty_reveal": (8, _choice(8, reserved=(3,))),
        "bengbu_four_with_two": (False, _bool),
        "bengbu_pair_chain": ("std", _choice("std")),
        "bengbu_trio_chain_order": ("line", _choice("line", "cycle")),
        "bengbu_joker_pairs": (True, _bool),
        "bengbu_missiles_once_per_player": (False, _bool),
        "bengbu_bomb_doubling": (False, _choice(False, reserved=(True,))),
        "bengbu_special_per_instance": (False, _bool),
        "bengbu_escape_scaled": (False, _bool),
        "bengbu_point_value": (1, _positive),
    },
}


# RLCard 1.2.0's play rules (docs/peers.md, "RLCard"); under exactly these options the ids are RLCard's.
_RLCARD_PLAY: Dict[str, Any] = dict(four_with_two=True, single_kicker_rank_cap=3, rocket_as_kickers=False,
                                    kicker_pairs_distinct=True, kicker_may_share_main_rank=False,
                                    kicker_trio_beside_chain=False)
_RLCARD_ORDER: list = []


def _rlcard_order(rules: "Rules") -> Any:
    """RLCard's action ids as an order of the encoded plays: ddz's rule order, with the
    plane sections that follow no rule there taken from ``_rlcard_order`` (generated from
    RLCard's published list by tools/gen_rlcard_order.py)."""
    if not _RLCARD_ORDER:
        import base64
        import zlib

        import numpy as np

        from .rlcard_order import PLANE_SOLO_ORDER

        rules._set_action_order(None)
        space = np.array(rules.action_space_array())
        kinds = space >> np.uint64(56)
        # cards per play: the 13 rank nibbles, then the 2-bit joker counts (docs/engine.md: encoded moves)
        sizes = sum((space >> np.uint64(4 * r)) & np.uint64(15) for r in range(13))
        sizes += ((space >> np.uint64(52)) & np.uint64(3)) + ((space >> np.uint64(54)) & np.uint64(3))
        for length, blob in PLANE_SOLO_ORDER.items():
            order = np.frombuffer(zlib.decompress(base64.b64decode("".join(blob))), dtype="<u2").astype(np.int64)
            section = np.flatnonzero((kinds == int(_core.Kind.PLANE_SOLO)) & (sizes == 4 * length))
            space[section] = space[section][order]
        _RLCARD_ORDER.append(space)
    return _RLCARD_ORDER[0]


class Rules(_core.RulesCore):
    """The rules of one variant: the options of docs/rules.md §11 with their defaults.

    Build with ``Rules.classic(**options)``, ``Rules.two_player(**options)``,
    ``Rules.bengbu(**options)`` or a compat preset (``classic_douzero()``,
    ``classic_openspiel()``, ``classic_rlcard()``). An unknown option or a bad value raises ``ValueError``
    naming it. Rules are immutable values: equal when variant and options are equal.
    """

    variant: str
    preset: str
    options: Mapping[str, Any]

    def __init__(self, variant: str = "classic", *, _preset: str = "", **options: Any) -> None:
        if not isinstance(variant, str):
            raise ArgumentTypeError(f"a variant is a str ({', '.join(VARIANTS)}), not {type(variant).__name__}")
        if variant not in VARIANT:
            raise ArgumentError(f"unknown variant {shown(variant)}: use one of {', '.join(VARIANTS)}")
        specs = {**_COMMON, **_PER_VARIANT[variant]}
        unknown = sorted(set(options) - set(specs))
        if unknown:
            raise ArgumentError(
                f"unknown option{'s' if len(unknown) > 1 else ''} {', '.join(n[:40] for n in unknown[:5])}"
                f"{' ...' if len(unknown) > 5 else ''} for variant {shown(variant)} "
                f"(known: {', '.join(sorted(specs))})")
        values: Dict[str, Any] = {}
        for name, (default, check) in specs.items():
            values[name] = check(name, options[name]) if name in options else default
        if VARIANT[variant].decks == 1 and values["single_kicker_rank_cap"] > 4:
            raise ArgumentError("option single_kicker_rank_cap must be 1..4 with one deck")
        two_decks = VARIANT[variant].decks == 2
        if two_decks:
            core_kw = dict(straight=False, trio_solo=False, four_two=values["bengbu_four_with_two"],
                           trio_chain=1 if values["bengbu_trio_chain_order"] == "line" else 2,
                           joker_pairs=values["bengbu_joker_pairs"])
        else:
            core_kw = dict(straight=True, trio_solo=True, four_two=values["four_with_two"], trio_chain=0,
                           joker_pairs=False, trio_beside=values["kicker_trio_beside_chain"])
        super().__init__(
            variant=VARIANT[variant].id, two_decks=two_decks,
            share=values["kicker_may_share_main_rank"], pairs_distinct=values["kicker_pairs_distinct"],
            rocket_kickers=values["rocket_as_kickers"], cap=values["single_kicker_rank_cap"],
            max_cards=VARIANT[variant].max_hand, **core_kw)
        self.variant = variant
        self.preset = _preset or variant
        self.options = MappingProxyType(values)
        self._set_spec(json.dumps([variant, self.preset if self.preset != variant else "", values], sort_keys=True))
        if variant == "classic" and all(values[k] == v for k, v in _RLCARD_PLAY.items()):
            self._set_action_order(_rlcard_order(self))

    # ---- presets ----
    @classmethod
    def classic(cls, **options: Any) -> "Rules":
        """CLASSIC3: three players, one deck (docs/rules.md §6)."""
        return cls("classic", **options)

    @classmethod
    def two_player(cls, **options: Any) -> "Rules":
        """TWOP: two players, one deck, 20 cards each (docs/rules.md §7)."""
        return cls("two_player", **options)

    @classmethod
    def bengbu(cls, **options: Any) -> "Rules":
        """BENGBU4: four players, two decks (docs/rules.md §8)."""
        return cls("bengbu", **options)

    @classmethod
    def named(cls, name: str, **options: Any) -> "Rules":
        """The rules a name stands for: a factory's name (``"classic"``, ``"two_player"``,
        ``"bengbu"``, ``"classic_douzero"``, ``"classic_openspiel"``, ``"classic_rlcard"``) or an
        alias of one (``"classic3"``, ``"twop"``, ``"two-player"``, ``"bengbu4"``, ``"douzero"``,
        ``"openspiel"``, ``"rlcard"``: ``ddz.core.rules.RULES_NAMES`` lists them all), in any case.
        A variant's name takes its options as keywords; a compat preset takes none (its options are
        the peer's). The command line, the trainer, the environments and the server read names
        through this one function.

        >>> Rules.named("twop", max_redeals=2) == Rules.two_player(max_redeals=2)
        True
        >>> Rules.named("douzero")
        Rules.classic_douzero()
        """
        if not isinstance(name, str):
            raise ArgumentTypeError(f"a rules name is a str ({', '.join(RULES_NAMES)}), not {shown(name)}")
        key = name.strip().lower().replace("-", "_")
        factory = RULES_NAMES.get(key)
        if factory is None:
            raise ArgumentError(f"unknown rules name {shown(name)}: use one of {', '.join(RULES_NAMES)}")
        if factory in _PRESETS and options:
            raise ArgumentError(f"the compat preset {factory} takes no options (its options are the peer's): "
                                f"use Rules.classic(...) to change them")
        return getattr(cls, factory)(**options)

    @classmethod
    def classic_douzero(cls) -> "Rules":
        """The play rules of DouZero's move generator (``douzero.env.move_generator``):
        up to four single wings of one rank (a bomb may serve as four single wings), the
        rocket may be carried as two single wings, kicker pairs distinct. DouZero's own
        defects (comparing a plane with single wings by its highest trio, wings included;
        rejecting some of its own plays) are not reproduced."""
        return cls("classic", _preset="classic_douzero", single_kicker_rank_cap=4, rocket_as_kickers=True,
                   kicker_pairs_distinct=True)

    @classmethod
    def classic_openspiel(cls) -> "Rules":
        """The play rules of OpenSpiel ``dou_dizhu``: no four-with-two, up to three single
        wings of one rank, no rocket as kickers, kicker pairs distinct. OpenSpiel's bug of
        letting a bomb beat the rocket is not reproduced."""
        return cls("classic", _preset="classic_openspiel", four_with_two=False, single_kicker_rank_cap=3,
                   rocket_as_kickers=False, kicker_pairs_distinct=True)

    @classmethod
    def classic_rlcard(cls) -> "Rules":
        """The play rules of RLCard 1.2.0 ``doudizhu``: four-with-two (its two single
        kickers may share a rank), up to three single wings of one rank but never three
        on a rank next to the plane's chain (``222`` beside ``AAA`` is fine: a 2 is never
        in a chain), no rocket as kickers, kicker pairs distinct. Every play has one
        reading (a four-trio run is only a trio chain), 27,471 plays; ``Move.id`` and
        ``move_from_id`` are RLCard's action ids (``rlcard.games.doudizhu.utils.ACTION_2_ID``,
        PASS = 27,471), which follow the action-space order (kind, cards, key, kickers)."""
        return cls("classic", _preset="classic_rlcard", **_RLCARD_PLAY)

    # ---- value semantics ----
    def __repr__(self) -> str:
        defaults = Rules(self.variant).options if self.preset == self.variant else None
        if self.preset != self.variant:
            return f"Rules.{self.preset}()"
        changed = {k: v for k, v in self.options.items() if defaults is not None and defaults[k] != v}
        args = ", ".join(f"{k}={v!r}" for k, v in changed.items())
        return f"Rules.{self.variant}({args})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rules) and self.variant == other.variant and dict(self.options) == dict(other.options)

    def __hash__(self) -> int:
        return hash((self.variant, tuple(sorted(self.options.items()))))

    @property
    def decks(self) -> int:  # type: ignore[override]
        """1 for CLASSIC3 and TWOP, 2 for BENGBU4."""
        return VARIANT[self.variant].decks

    @property
    def players(self) -> int:
        return VARIANT[self.variant].players

    @property
    def max_hand(self) -> int:
        """The largest hand of the variant (the landlord's, kitty included)."""
        return VARIANT[self.variant].max_hand

    # ---- the whole action space, decisions included (ddz.action_space) ----
    @property
    def num_actions(self) -> int:
        """Every action id: the plays (``action_space_size``), PASS (``pass_id``), then the
        variant's decisions, decision k of ``ddz.variants.VARIANT[variant].decisions`` at
        ``pass_id + 1 + k``."""
        return action_space.num_actions(self)

    def action_id(self, token: Union[str, "_core.Move"]) -> int:
        """The id of a decision token, ``'PASS'``, a play (``'PLAY 33344'``, ``'PLAY 3s 3h'``,
        ``'33344'``) or a Move; raises ``MoveError`` for a token that names no action."""
        return action_space.action_id(self, token)

    def action_token(self, id: int) -> str:
        """The token of an action id (``'PLAY <ranks>'``, ``'PASS'`` or a decision); raises
        ``MoveError`` for an id out of range, ``ArgumentTypeError`` for a non-int."""
        return action_space.action_token(self, id)

    def __reduce__(self):  # pickling: rebuild from variant and options
        return (_rebuild, (self.variant, self.preset, dict(self.options)))

    def _snapshot_key(self) -> bytes:
        """The rules' name in a snapshot (docs/records.md): the preset's name, then the options that
        differ from the preset's own as compact JSON after a newline (none for a preset as made).
        Computed once per value."""
        key = self.__dict__.get("_key")
        if key is None:
            base = _preset_rules(self.preset)
            # a value that equals the default in another type (1.0 for 1) is kept: it scores as a float
            diff = {k: v for k, v in self.options.items()
                    if base is None or base.options[k] != v or type(base.options[k]) is not type(v)}
            text = self.preset if not diff else self.preset + "\n" + json.dumps(diff, sort_keys=True, separators=(",", ":"))
            key = self.__dict__["_key"] = text.encode()
        return key


#: The compat presets' factories (they take no options).
_PRESETS = ("classic_douzero", "classic_openspiel", "classic_rlcard")

#: Every name ``Rules.named`` takes, lower case with ``_`` for ``-``, mapped to the factory it
#: calls: the variants' names and aliases (``ddz.variants``), then the compat presets' names and
#: their short spellings.
RULES_NAMES: Mapping[str, str] = MappingProxyType({
    **{alias.replace("-", "_"): v.name for v in VARIANT.values() for alias in (v.name,) + v.aliases},
    **{p: p for p in _PRESETS},
    **{p.split("_", 1)[1]: p for p in _PRESETS},
})


def _preset_rules(preset: str) -> "Rules | None":
    """The rules a preset's factory makes (None for a name no factory has)."""
    factory = RULES_NAMES.get(preset)
    return Rules.named(preset) if factory == preset else None


def _rules_from_key(key: bytes) -> Rules:
    """The rules a snapshot's rules key names (``Rules._snapshot_key``); ``RecordError`` when it
    names none. The core interns the result: one Rules value per key in a process."""
    from .errors import RecordError, DdzError
    try:
        text = key.decode()
        preset, _, options = text.partition("\n")
        base = _preset_rules(preset)
        if base is None:
            raise RecordError(f"the snapshot's rules: unknown preset {shown(preset)}")
        if not options:
            return base
        diff = json.loads(options)
        if not isinstance(diff, dict):
            raise RecordError("the snapshot's rules: the options are not a JSON object")
        values = {**base.options, **diff}
        return Rules(base.variant, _preset="" if preset == base.variant else preset, **values)
    except RecordError:
        raise
    except (DdzError, ValueError, TypeError, RecursionError) as e:
        raise RecordError(f"the snapshot's rules: {shown(str(e), 200)}") from None


_core._set_rules_resolver(_rules_from_key)


def option_names(variant: str) -> frozenset:
    """The names of the options ``Rules(variant, ...)`` takes."""
    return frozenset({**_COMMON, **_PER_VARIANT[variant]})


def _rebuild(variant: str, preset: str, options: Dict[str, Any]) -> Rules:
    return Rules(variant, _preset=preset if preset != variant else "", **options)


_SPEC_RULES: Dict[str, Rules] = {}


def _move_from_spec(encoded: int, spec: str) -> Any:
    """Unpickles a Move: its rules rebuilt from their recipe (one Rules per recipe, so that
    unpickled moves share one action-id table), then the encoding decoded and checked."""
    rules = _SPEC_RULES.get(spec)
    if rules is None:
        variant, preset, options = json.loads(spec)
        rules = _SPEC_RULES.setdefault(spec, Rules(variant, _preset=preset, **options))
    return _core.decode(encoded, rules)
