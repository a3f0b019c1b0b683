"""The bots of a server's bot seats (``join`` with ``"bots": true``) and of absent players' seats,
chosen by the host per variant: ``RuleBot`` (``"rules"``, the default), ``NeuralBot``
(``"neural"``) playing the model shipped with ddz for the variant or a model file the host gives,
``SearchBot`` (``"search"``, its exact search limited by a node count), or ``NeuralSearchBot``
(``"nsearch"``: the same model searched over sampled deals, the exact solver at the end, within
the same node count). A bot other than ``RuleBot`` thinks off the event loop
(``ddz.server.table.Table._bot_move``).

Why per variant and not per room: a model plays one variant's rules, and the rooms of a variant
differ only in their stakes (``ddz.learn.model.STAKE_OPTIONS``: the same hands, bids and plays),
so the rooms of one variant share one model. The rooms themselves are fixed settlement data
(``ddz.ROOMS``, below ``ddz.learn`` in the layers), which a bot choice does not belong in.

Every model is loaded once per server, when it is built (``Server(config)``), and checked against
the rules of every room of its variant; anything wrong is one ``DdzError`` line (``ddz serve``
prints it and exits 2). One bot serves every table of a room: the bots keep nothing between
calls that a decision depends on (SearchBot's and NeuralSearchBot's counters only vary their
samples' seeds; NeuralSearchBot's ``last`` is a note of a decision, read by nothing here).
"""
from __future__ import annotations

import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from ..core.errors import ArgumentError, ArgumentTypeError, shown
from ..core.variants import VARIANT
from ..learn import ModelError, NeuralBot, NeuralModel, NeuralSearchBot, shipped_model
from ..learn.nsearch import strongest_settings
from ..rooms.room import Room
from ..search.bots import Bot, RuleBot, SearchBot
from ..core.rules import Rules
from .table import room_rules

__all__ = ["BOT_KINDS", "BotChoice", "parse_bot", "room_bots"]

#: What may play a server's bot seats.
BOT_KINDS = ("rules", "neural", "search", "nsearch")

#: The kinds that play a model (the variant's shipped one, or ``--model``).
MODEL_KINDS = ("neural", "nsearch")

#: ``ServerConfig.bot``: one kind for every variant, or a kind per variant name (others: rules).
BotChoice = Union[str, Mapping[str, str]]


def _variant(name: str) -> str:
    return Rules.named(name).variant


def _kind(kind: Any) -> str:
    if kind not in BOT_KINDS:
        raise ArgumentError(f"a bot is one of {', '.join(BOT_KINDS)}, not {shown(kind)}")
    return str(kind)


def parse_bot(specs: Iterable[str]) -> Dict[str, str]:
    """``ddz serve --bot`` values in order, as a kind per variant: ``KIND`` sets every variant,
    ``VARIANT=KIND`` one variant (a later value overrides an earlier one).

    >>> parse_bot(["neural", "bengbu=rules"])
    {'classic': 'neural', 'two_player': 'neural', 'bengbu': 'rules'}
    """
    out: Dict[str, str] = {}
    for spec in specs:
        if "=" in spec:
            variant, kind = spec.split("=", 1)
            out[_variant(variant)] = _kind(kind.strip())
        else:
            kind = _kind(spec.strip())
            out.update({v: kind for v in VARIANT})
    return out


def _kinds(choice: BotChoice) -> Dict[str, str]:
    if isinstance(choice, str):
        return {v: _kind(choice) for v in VARIANT}
    if not isinstance(choice, Mapping):
        raise ArgumentTypeError(f"bot is a kind ({', '.join(BOT_KINDS)}) or a dict of them by variant, "
                                f"not {shown(choice)}")
    kinds = {v: "rules" for v in VARIANT}
    kinds.update({_variant(str(v)): _kind(k) for v, k in choice.items()})
    return kinds


def _load(model: Union[str, "os.PathLike[str]", NeuralModel]) -> NeuralModel:
    if isinstance(model, NeuralModel):
        return model
    if isinstance(model, (str, os.PathLike)):
        return NeuralModel.load(model)
    raise ArgumentTypeError(f"a model is a file path or a NeuralModel, not {shown(model)}")


def room_bots(rooms: Mapping[str, Room], choice: BotChoice = "rules",
              models: Sequence[Union[str, "os.PathLike[str]", NeuralModel]] = (), *,
              search_nodes: int = 4000) -> Dict[str, Bot]:
    """The bot of each room (by room name). ``choice``: ``"rules"``, ``"neural"``, ``"search"``
    or ``"nsearch"`` for every variant, or a kind per variant (``{"classic": "neural"}``; a
    variant left out: rules). ``search_nodes``: the node limit of a ``"search"`` or ``"nsearch"``
    bot's exact search of each sampled deal (``SearchBot(time_per_move=None,
    node_limit=search_nodes)``, ``NeuralSearchBot`` with its variant's strongest measured settings,
    ``ddz.learn.nsearch.STRONGEST``, but ``node_limit=search_nodes``): a decision
    depends on no clock; at 4,000 nine in ten of SearchBot's take under 25 ms of CPU, and an early
    play decision, where no sampled deal is solved within the limit and the candidates are played
    out instead, up to some 0.4 s: it thinks off the event loop).
    ``models``: model files (or ``NeuralModel`` values), each for the variant of its own rules,
    played instead of the model shipped for that variant. ``ModelError`` (one line) when a
    neural or nsearch variant has no model, a model cannot be read or does not play a room's
    rules, or a model is given for a variant whose bots play no model."""
    kinds = _kinds(choice)
    served: Dict[str, List[str]] = {}
    for name, room in rooms.items():
        served.setdefault(room.variant, []).append(name)
    given: Dict[str, NeuralModel] = {}
    for m in models:
        model = _load(m)
        v = model.rules.variant
        where = m if not isinstance(m, NeuralModel) else "a model"
        if v in given:
            raise ModelError(f"two models are given for {v}: {where} and another one")
        if kinds[v] not in MODEL_KINDS:
            raise ModelError(f"{where} is a model for {v}, whose bots play {kinds[v]} "
                             f"(choose neural or nsearch for {v})")
        if v not in served:
            raise ModelError(f"{where} is a model for {v}, and no room of this server plays {v}")
        given[v] = model
    bots: Dict[str, Bot] = {}
    rule_bot = RuleBot()
    search_bot: Optional[SearchBot] = None
    for v, names in served.items():
        if kinds[v] == "search":
            if search_bot is None:
                search_bot = SearchBot(time_per_move=None, node_limit=search_nodes)
            bots.update({n: search_bot for n in names})
            continue
        if kinds[v] not in MODEL_KINDS:
            bots.update({n: rule_bot for n in names})
            continue
        try:
            try:
                model = given[v] if v in given else shipped_model(v)
            except ModelError as e:
                raise ModelError(f"{e}: give it with --model PATH (ServerConfig.models), or let them play rules") \
                    from None
            bot: Bot = NeuralBot(model) if kinds[v] == "neural" else NeuralSearchBot(
                model, **{**strongest_settings(model.rules), "node_limit": search_nodes})
            for n in names:
                model.check_rules(room_rules(rooms[n]))
        except ModelError as e:
            raise ModelError(f"the {kinds[v]} bots of the {v} rooms ({', '.join(names)}): {e}") from None
        bots.update({n: bot for n in names})
    return bots


def bot_kinds(rooms: Mapping[str, Room], choice: BotChoice) -> Dict[str, str]:
    """The kind of bot (``"rules"``, ``"neural"``, ``"search"`` or ``"nsearch"``) each room's bot
    seats get."""
    kinds = _kinds(choice)
    return {name: kinds[room.variant] for name, room in rooms.items()}
