"""PettingZoo's module convention for ddz's classic variant: ``env(render_mode=None, **options)``
(wrapped as PettingZoo's classic games are) and ``raw_env(render_mode=None, **options)``; see
``ddz.envs.aec_env`` (``make_env``, ``make_raw``) and docs/environments.md."""
from __future__ import annotations

from typing import Any, Optional

from .aec_env import DdzAECEnv, make_env, make_raw

__all__ = ["env", "raw_env"]


def env(render_mode: Optional[str] = None, **options: Any) -> Any:
    """The classic environment wrapped (``ddz.envs.aec_env.make_env``)."""
    return make_env("classic", render_mode, **options)


def raw_env(render_mode: Optional[str] = None, **options: Any) -> DdzAECEnv:
    """The classic environment unwrapped (``ddz.envs.aec_env.make_raw``)."""
    return make_raw("classic", render_mode, **options)
