"""Search and play: the solver, hidden-hand sampling, the bots (``RandomBot``, ``RuleBot``,
``SearchBot``), ``simulate`` and ``evaluate`` (with their Ray backend). It stands on
``ddz.hand`` and ``ddz.core``. See docs/architecture.md."""
