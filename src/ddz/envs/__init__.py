"""Environments for learning agents in the users' frameworks (optional extras).

* ``register_rlcard()``: RLCard environments ``ddz-classic``, ``ddz-two-player`` and
  ``ddz-bengbu`` (``rlcard.make("ddz-classic", config={"rules": ddz.Rules.classic_rlcard()})``);
  needs ``rlcard``.

Each framework is imported only when its function is called.
"""
from __future__ import annotations

from typing import Any

__all__ = ["register_rlcard"]


def register_rlcard() -> Any:
    """Registers ``ddz-classic``, ``ddz-two-player`` and ``ddz-bengbu`` with RLCard (once;
    calling it again does nothing) and returns RLCard's registry. See ``ddz.envs.rlcard_env``."""
    from .rlcard_env import register
    return register()
