"""The models shipped with ddz: at most one per variant, as package data in ``ddz/learn/models/``
(``classic.npz``, ``two_player.npz``, ``bengbu.npz``), listed by ``models/index.json``.

``SHIPPED`` maps each variant that has a model to its index entry (the file, its size and
SHA-256, what it was trained on, the command that trained it). ``shipped_model(variant)`` loads
one (checked like any model file, and against its index entry), once per process.
``NeuralBot.shipped(variant)`` is the bot that plays it. A variant without a model raises
``ModelError`` ("no model is shipped for …"). docs/models.md is the model card of each.

``tools/ship_model.py RUN_DIR`` puts a training run's ``model.npz`` here and updates the index.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path
from types import MappingProxyType
from typing import Any, Dict, Mapping, Union

from ..core.errors import ArgumentTypeError, shown
from ..core.rules import Rules
from ..core.variants import VARIANT
from .model import ModelError, NeuralModel

__all__ = ["SHIPPED", "MODELS_DIR", "MAX_MODEL_BYTES", "shipped_model", "shipped_path", "variant_name"]

#: The folder of the shipped models (package data).
MODELS_DIR = Path(__file__).resolve().parent / "models"
#: The index file in ``MODELS_DIR``: ``{"format": …, "models": {variant: entry}}``.
INDEX_FILE = "index.json"
INDEX_FORMAT = "ddz-shipped-models"
#: The largest shipped model file, in bytes (8 MiB): the wheel carries every one of them.
MAX_MODEL_BYTES = 8 * 1024 * 1024


def _read_index() -> Dict[str, Dict[str, Any]]:
    path = MODELS_DIR / INDEX_FILE
    try:
        with open(path, encoding="utf-8") as f:
            index = json.load(f)
    except FileNotFoundError:
        return {}
    if not isinstance(index, dict) or index.get("format") != INDEX_FORMAT:
        raise ModelError(f"{path} is not an index of shipped models")
    models = index.get("models", {})
    return {v: dict(e) for v, e in models.items() if v in VARIANT}


#: The shipped models: variant name -> its index entry (``file``, ``bytes``, ``sha256``, ``rules``,
#: ``whole``, ``net``, ``objective``, ``frames``, ``train_command``, …). Read-only.
SHIPPED: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {v: MappingProxyType(e) for v, e in _read_index().items()})


def variant_name(variant_or_rules: Union[str, Rules]) -> str:
    """The canonical variant name (``"classic"``, ``"two_player"``, ``"bengbu"``) of a variant
    name or alias (``"twop"``, ``"classic3"``, …) or of a ``Rules`` value."""
    if isinstance(variant_or_rules, Rules):
        return variant_or_rules.variant
    if not isinstance(variant_or_rules, str):
        raise ArgumentTypeError(f"a variant is a name such as 'classic' or a ddz.Rules, not {shown(variant_or_rules)}")
    return Rules.named(variant_or_rules).variant


def shipped_path(variant_or_rules: Union[str, Rules]) -> Path:
    """The file of the model shipped for a variant; ``ModelError`` when none is."""
    variant = variant_name(variant_or_rules)
    entry = SHIPPED.get(variant)
    if entry is None:
        have = ", ".join(SHIPPED) or "none"
        raise ModelError(f"no model is shipped for {variant} (shipped: {have}); a model file trained by "
                         f"`ddz train --variant {variant}` plays it")
    return MODELS_DIR / str(entry["file"])


@functools.lru_cache(maxsize=None)
def _load(variant: str) -> NeuralModel:
    path = shipped_path(variant)
    entry = SHIPPED[variant]
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
    except OSError as e:
        raise ModelError(f"the model shipped for {variant} cannot be read ({e}): reinstall ddz") from None
    if size != entry.get("bytes") or digest != entry.get("sha256"):
        raise ModelError(f"{path} is not the file its index lists (size {size}, sha256 {digest[:16]}…): "
                         "reinstall ddz")
    model = NeuralModel.load(path)
    if model.rules.variant != variant:
        raise ModelError(f"{path} is a model for {model.rules.variant}, not {variant}")
    return model


def shipped_model(variant_or_rules: Union[str, Rules]) -> NeuralModel:
    """The model shipped for a variant (name, alias or ``Rules`` value), loaded once per process
    and shared (do not change its arrays). ``ModelError`` when no model is shipped for the variant,
    when the file is not the one indexed, or when the rules given are not ones the model plays
    (``NeuralModel.plays``: its own rules up to the stakes and the clock).

    >>> from ddz.learn import shipped_model
    >>> shipped_model("classic").rules.variant
    'classic'
    """
    model = _load(variant_name(variant_or_rules))
    if isinstance(variant_or_rules, Rules) and not model.plays(variant_or_rules):
        raise ModelError(f"the model shipped for {model.rules.variant} plays {model.rules!r}, "
                         f"not {variant_or_rules!r}")
    return model
