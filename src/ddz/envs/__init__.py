"""Environments for learning agents in the users' frameworks (optional extras).

* ``pettingzoo_env(rules)``: a PettingZoo AEC environment of whole hands (bidding
  included), observations ``ddz.encode.compact`` with an action mask; needs ``pettingzoo``.
* ``gymnasium_env(rules, seat=0, opponents=None)``: one seat against bots, a Gymnasium
  environment; needs ``gymnasium``.
* ``register_rlcard()``: RLCard environments ``ddz-classic``, ``ddz-two-player`` and
  ``ddz-bengbu`` (``rlcard.make("ddz-classic", config={"rules": ddz.Rules.classic_rlcard()})``);
  needs ``rlcard``.

``pip install ".[rl]"`` (in the source tree) installs PettingZoo and Gymnasium.

Each framework is imported only when its function is called.
"""
from __future__ import annotations

from typing import Any

__all__ = ["gymnasium_env", "pettingzoo_env", "register_rlcard"]


def pettingzoo_env(rules: Any, render_mode: Any = None) -> Any:
    """A PettingZoo AEC environment of ``rules``' whole hands (``ddz.envs.aec_env``
    module: ``DdzAECEnv``)."""
    from .aec_env import DdzAECEnv
    return DdzAECEnv(rules, render_mode=render_mode)


def gymnasium_env(rules: Any, seat: int = 0, opponents: Any = None, render_mode: Any = None) -> Any:
    """A Gymnasium environment of one seat of ``rules``' hands, the others played by
    ``opponents`` (default ``ddz.bots.RuleBot``) (``ddz.envs.gym_env`` module: ``DdzGymEnv``)."""
    from .gym_env import DdzGymEnv
    return DdzGymEnv(rules, seat=seat, opponents=opponents, render_mode=render_mode)


def register_rlcard() -> Any:
    """Registers ``ddz-classic``, ``ddz-two-player`` and ``ddz-bengbu`` with RLCard (once;
    calling it again does nothing) and returns RLCard's registry. See ``ddz.envs.rlcard_env``."""
    from .rlcard_env import register
    return register()
