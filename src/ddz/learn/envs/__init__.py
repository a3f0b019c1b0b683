"""Environments for learning agents in the users' frameworks (optional extras); the full
reference is docs/environments.md.

* ``pettingzoo_env(rules)``: a PettingZoo AEC environment of whole hands (bidding
  included), observations ``ddz.encode.compact`` with an action mask; needs ``pettingzoo``.
  PettingZoo's module convention: ``from ddz.envs import classic_v0`` (``two_player_v0``,
  ``bengbu_v0``), then ``classic_v0.env()`` (wrapped as PettingZoo's classic games are) or
  ``classic_v0.raw_env()``.
* ``gymnasium_env(rules, seat=0, opponents=None)``: one seat against bots, a Gymnasium
  environment; needs ``gymnasium``. When Gymnasium is installed, importing ``ddz.envs``
  registers the ids of ``GYM_IDS`` (``gymnasium.make("ddz/Classic-v0")``; without the import,
  ``gymnasium.make("ddz.envs:ddz/Classic-v0")``).
* ``gymnasium_vector_env(rules, num_envs)``: a ``gymnasium.vector.VectorEnv`` of whole hands
  over ``ddz.VectorEnv`` (self-play: the seat to act at each table; ``SAME_STEP`` autoreset;
  the mask in ``info``), also ``gymnasium.make_vec("ddz/Classic-v0", num_envs=8)``.
* ``register_rlcard()``: RLCard environments ``ddz-classic``, ``ddz-two-player`` and
  ``ddz-bengbu`` (``rlcard.make("ddz-classic", config={"rules": ddz.Rules.classic_rlcard()})``);
  needs ``rlcard``.

``rules`` is a ``ddz.Rules`` or a name: a variant (``"classic"``, ``"two_player"``,
``"bengbu"`` and their aliases) or a compat preset (``"classic_rlcard"``, ``"classic_douzero"``,
``"classic_openspiel"``). Every environment takes ``reward="score" | "win" | "normalized"``
(``ddz.learn.rewards``). ``pip install ".[rl]"`` (in the source tree) installs PettingZoo and Gymnasium.

PettingZoo and RLCard are imported only when an environment of theirs is made; Gymnasium is
imported with this package (when installed) so that its ids exist.
"""
from __future__ import annotations

import importlib
from typing import Any, Dict

__all__ = ["GYM_IDS", "gymnasium_env", "gymnasium_vector_env", "pettingzoo_env", "register_gymnasium", "register_rlcard",
           "classic_v0", "two_player_v0", "bengbu_v0"]

#: Gymnasium ids -> the rules they play (a name ``ddz.envs`` factories take).
GYM_IDS: Dict[str, str] = {
    "ddz/Classic-v0": "classic",
    "ddz/TwoPlayer-v0": "two_player",
    "ddz/Bengbu-v0": "bengbu",
    "ddz/ClassicRLCard-v0": "classic_rlcard",
    "ddz/ClassicDouZero-v0": "classic_douzero",
    "ddz/ClassicOpenSpiel-v0": "classic_openspiel",
}

_PETTINGZOO_MODULES = ("classic_v0", "two_player_v0", "bengbu_v0")


def pettingzoo_env(rules: Any, render_mode: Any = None, **options: Any) -> Any:
    """A PettingZoo AEC environment of ``rules``' whole hands, unwrapped (``ddz.envs.aec_env``
    module: ``DdzAECEnv``; ``options``: ``reward``, ``render_view``)."""
    from .aec_env import DdzAECEnv
    return DdzAECEnv(rules, render_mode=render_mode, **options)


def gymnasium_env(rules: Any, seat: int = 0, opponents: Any = None, render_mode: Any = None, **options: Any) -> Any:
    """A Gymnasium environment of one seat of ``rules``' hands, the others played by
    ``opponents`` (default ``ddz.bots.RuleBot``) (``ddz.envs.gym_env`` module: ``DdzGymEnv``;
    ``options``: ``reward``, ``illegal_action``, ``max_steps``, ``render_view``)."""
    from .gym_env import DdzGymEnv
    return DdzGymEnv(rules, seat=seat, opponents=opponents, render_mode=render_mode, **options)


def gymnasium_vector_env(rules: Any, num_envs: int = 1, **options: Any) -> Any:
    """A ``gymnasium.vector.VectorEnv`` of ``num_envs`` tables of ``rules``' whole hands
    (``ddz.envs.gym_vector`` module: ``DdzVectorEnv``; ``options``: ``threads``, ``reward``, ``mask``)."""
    from .gym_vector import DdzVectorEnv
    return DdzVectorEnv(rules, num_envs, **options)


def register_gymnasium() -> None:
    """Registers the ids of ``GYM_IDS`` with Gymnasium (once; done when ``ddz.envs`` is
    imported with Gymnasium installed): ``gymnasium.make`` gives the one-seat ``DdzGymEnv``,
    ``gymnasium.make_vec`` the ``DdzVectorEnv`` of whole hands."""
    import gymnasium
    for env_id, rules in GYM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point="ddz.envs.gym_env:DdzGymEnv",
                               vector_entry_point="ddz.envs.gym_vector:DdzVectorEnv", kwargs={"rules": rules})


def register_rlcard() -> Any:
    """Registers ``ddz-classic``, ``ddz-two-player`` and ``ddz-bengbu`` with RLCard (once;
    calling it again does nothing) and returns RLCard's registry. See ``ddz.envs.rlcard_env``."""
    from .rlcard_env import register
    return register()


def __getattr__(name: str) -> Any:
    # classic_v0 & co. import PettingZoo: load them when asked for (`from ddz.envs import classic_v0`)
    if name in _PETTINGZOO_MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


try:
    register_gymnasium()
except ModuleNotFoundError as _missing:  # pragma: no cover - Gymnasium is an optional extra
    if _missing.name != "gymnasium":
        raise
