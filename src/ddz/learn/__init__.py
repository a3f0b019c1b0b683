"""For learning agents: the encoders (``ddz.learn.encode``), ``VectorEnv``, the framework
environments (``ddz.learn.envs``, also reachable as ``ddz.envs``), and agents that learn: a Deep
Monte-Carlo trainer (``ddz.learn.dmc``, needs torch: ``pip install
".[learn]"``) and ``NeuralBot``, which plays a trained model with numpy only (``NeuralSearchBot``: the model
searched over sampled deals, the exact solver at the end); the models shipped
with ddz, one per variant (``SHIPPED``, ``shipped_model``, ``NeuralBot.shipped``; docs/models.md).

Importing ``ddz.learn`` does not import torch; the trainer's names (``Trainer``,
``TrainConfig``) load it on first use. See docs/learning.md.
"""
from __future__ import annotations

from typing import Any

from .bot import NeuralBot
from .features import ENCODER_VERSION, Features, features_for
from .model import ModelError, NeuralModel
from .nsearch import NeuralSearchBot
from .nets import PRESETS
from .shipped import SHIPPED, shipped_model

__all__ = ["NeuralBot", "NeuralSearchBot", "NeuralModel", "ModelError", "SHIPPED", "shipped_model", "Features", "features_for", "ENCODER_VERSION", "PRESETS",
           "Trainer", "TrainConfig"]


def __getattr__(name: str) -> Any:
    if name in ("Trainer", "TrainConfig"):  # torch is imported here, not by ddz.learn itself
        from . import dmc
        return getattr(dmc, name)
    raise AttributeError(f"module 'ddz.learn' has no attribute {name!r}")
