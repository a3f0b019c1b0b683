"""Acting in ``ray`` mode: ``actors`` Ray actors, on this machine or the cluster ``RAY_ADDRESS``
names (``pip install ".[ray]"``), each with its own tables and a CPU copy of the networks. Each
plays ``sync_every`` steps with the weights it was sent and returns its finished frames, and is
sent the learner's current weights for its next steps. Not reproducible."""
from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

import torch

from ..core.rules import Rules
from .actor import Actor
from .config import TrainConfig, mix_seed
from .features import GROUP, features_for
from .nets import net_config
from .torch_nets import QModel

if TYPE_CHECKING:
    from .dmc import Trainer

__all__ = ["RaySource"]


class _RayActor:
    """One Ray actor: its own tables and a CPU copy of the networks; ``run`` loads the learner's
    weights and exploration, plays ``steps`` steps and returns the frames of the hands that ended."""

    def __init__(self, config: Dict[str, Any], k: int, seed: int) -> None:
        torch.set_num_threads(1)
        cfg = TrainConfig.from_dict(config)
        rules = Rules.named(cfg.variant)
        feats = features_for(rules, cfg.whole)
        net = net_config(cfg.net, cfg.hidden)
        positions = rules.players + (1 if cfg.whole else 0)
        self.model = QModel(net, positions, feats.state_dim, feats.action_dim, GROUP * feats.move_dim)
        self.actor = Actor(rules, feats, cfg.tables, cfg.objective, cfg.epsilon, net["arch"] == "lstm",
                           cfg.rule_tables, cfg.bid_epsilon, cfg.oracle_cards, cfg.oracle_nodes,
                           oracle_play_only=cfg.oracle_play_only)
        self.actor.reset(seed)

    def run(self, weights: Dict[str, Any], steps: int, eps: Tuple[float, float]) -> List[Any]:
        self.model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
        self.actor.epsilon, self.actor.bid_epsilon = eps
        out: List[Any] = []
        for _ in range(steps):
            out += self.actor.step(self.model)
        return out


class RaySource:
    """Ray actors, each answered with the current weights when its frames arrive (see
    ``ddz.learn.dmc.FrameSource``)."""

    def __init__(self, trainer: "Trainer") -> None:
        from ..search.ray_backend import _ray
        self.ray = ray = _ray()
        self.trainer = trainer
        cfg = trainer.config
        if not ray.is_initialized():
            ray.init()
        remote = ray.remote(num_cpus=1)(_RayActor)
        self.actors = [remote.remote(asdict(cfg), k, mix_seed(cfg.seed, 5, k, trainer.segment, trainer.updates))
                       for k in range(cfg.actors)]
        self.w = self._weights()
        self.pending = {a.run.remote(self.w, cfg.sync_every, trainer.scheduled()[1:]): a for a in self.actors}
        self.answer: Optional[Any] = None  # the actor whose frames were handed over last

    def _weights(self) -> Any:
        return self.ray.put({k: v.detach().cpu().numpy() for k, v in self.trainer.model.state_dict().items()})

    def new_segment(self) -> None:
        pass

    def frames(self) -> List[Any]:
        if self.answer is not None:  # the actor that sent the last frames goes on with the current weights
            a, self.answer = self.answer, None
            self.pending[a.run.remote(self.w, self.trainer.config.sync_every, self.trainer.scheduled()[1:])] = a
        ready, _ = self.ray.wait(list(self.pending), num_returns=1, timeout=0.5)
        if not ready:
            return []
        self.answer = self.pending.pop(ready[0])
        return list(self.ray.get(ready[0]))

    def learning(self) -> Any:
        from .act_single import _nothing
        return _nothing

    def updated(self) -> None:
        self.w = self._weights()

    def close(self) -> None:
        for a in self.actors:
            self.ray.kill(a)
