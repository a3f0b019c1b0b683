"""``python -m ddz.cli``: the ``ddz`` command."""
import sys

from .main import main

sys.exit(main())
