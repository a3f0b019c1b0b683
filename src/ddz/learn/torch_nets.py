"""The Q networks in torch (training), the same functions and array names as ``ddz.learn.nets``."""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

import numpy as np
import torch
from torch import nn

from .nets import acting_value, heads_of, param_shapes

__all__ = ["QNet", "QModel"]


class QNet(nn.Module):
    """One position's Q network (see ``ddz.learn.nets`` for the shape)."""

    def __init__(self, cfg: Mapping[str, Any], state_dim: int, action_dim: int, group_dim: int) -> None:
        super().__init__()
        self.cfg = dict(cfg)
        hidden: List[int] = cfg["hidden"]
        self.s0 = nn.Linear(state_dim, hidden[0])
        self.a0 = nn.Linear(action_dim, hidden[0], bias=False)
        self.lstm: Optional[nn.LSTM] = None
        if cfg["arch"] == "lstm":
            self.lstm = nn.LSTM(group_dim, cfg["lstm"], batch_first=True)
            self.h0 = nn.Linear(cfg["lstm"], hidden[0], bias=False)
        self.layers = len(hidden)
        self.res = cfg["arch"] == "res"
        for k in range(1, len(hidden)):
            if self.res:
                setattr(self, f"b{k}a", nn.Linear(hidden[k], hidden[k]))
                setattr(self, f"b{k}b", nn.Linear(hidden[k], hidden[k]))
            else:
                setattr(self, f"l{k}", nn.Linear(hidden[k - 1], hidden[k]))
        self.out = nn.Linear(hidden[-1], heads_of(cfg))

    def forward(self, state: torch.Tensor, actions: torch.Tensor, state_index: Optional[torch.Tensor] = None,
                history: Optional[torch.Tensor] = None) -> torch.Tensor:
        """The value each action is chosen by (``ddz.learn.nets.acting_value``), (rows,)."""
        return acting_value(self.heads(state, actions, state_index, history), self.cfg)

    def heads(self, state: torch.Tensor, actions: torch.Tensor, state_index: Optional[torch.Tensor] = None,
              history: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Every head's output, (rows, heads)."""
        hs = self.s0(state)
        if self.lstm is not None:
            assert history is not None
            out, _ = self.lstm(history)
            hs = hs + self.h0(out[:, -1])
        if state_index is not None:
            hs = hs[state_index]
        x = torch.relu(hs + self.a0(actions))
        for k in range(1, self.layers):
            if self.res:
                h = torch.relu(getattr(self, f"b{k}a")(x))
                x = torch.relu(x + getattr(self, f"b{k}b")(h))
            else:
                x = torch.relu(getattr(self, f"l{k}")(x))
        return self.out(x)


class QModel(nn.Module):
    """One QNet per position (0 the landlord, 1 the seat after it, ...)."""

    def __init__(self, cfg: Mapping[str, Any], positions: int, state_dim: int, action_dim: int,
                 group_dim: int) -> None:
        super().__init__()
        self.nets = nn.ModuleList([QNet(cfg, state_dim, action_dim, group_dim) for _ in range(positions)])
        expected = param_shapes(cfg, state_dim, action_dim, group_dim)
        got = {k: tuple(v.shape) for k, v in self.nets[0].state_dict().items()}
        assert got == expected, (got, expected)  # the numpy forward pass reads the same names

    def arrays(self) -> Dict[str, np.ndarray]:
        """Every weight as a float32 numpy array, ``p{position}.{name}``."""
        return {f"p{i}.{k}": v.detach().cpu().numpy().astype(np.float32, copy=True)
                for i, net in enumerate(self.nets) for k, v in net.state_dict().items()}
