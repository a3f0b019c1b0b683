"""The command line (``ddz``): ``ddz.cli.main`` parses (``build_parser``) and runs the
subcommands; ``play`` and ``solve`` hold the interactive game and the solver's command, and
``ddz serve`` comes from ``ddz.server.cli``. It is the top layer: it may import every other.
See docs/architecture.md."""
from .main import build_parser, main

__all__ = ["build_parser", "main"]
