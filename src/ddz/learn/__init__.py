"""For learning agents: the encoders (``ddz.learn.encode``), ``VectorEnv`` and the framework
environments (``ddz.learn.envs``, also reachable as ``ddz.envs``). It stands on the search,
hand and core layers. See docs/architecture.md."""
