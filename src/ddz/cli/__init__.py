"""The command line (``ddz``): ``ddz.cli.main`` parses and runs the subcommands; ``play`` and
``solve`` hold the interactive game and the solver's command, and ``ddz serve`` comes from
``ddz.server.cli``. It is the top layer: it may import every other. See docs/architecture.md."""
from .main import main

__all__ = ["main"]
