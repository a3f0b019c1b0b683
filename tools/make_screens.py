"""Writes docs/screens/*.txt: what ``ddz play`` prints for a fixed deal and fixed input.

Each screen is the command below with its input piped in (``ddz play`` echoes piped input
after its prompt, so the text reads as the terminal session); the input ends before the
hand does, so each screen ends with the line that says so. ``--check`` writes nothing and
exits 1 naming every screen that differs from what the command prints now
(tests/test_screens.py runs it).

    python tools/make_screens.py          # rewrite the screens
    python tools/make_screens.py --check  # compare only
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from generated_files import write_or_check  # noqa: E402

SCREENS_DIR = ROOT / "docs" / "screens"

# screen name -> (the arguments of ddz play, the lines typed)
SCREENS: Dict[str, Tuple[List[str], List[str]]] = {
    # CLASSIC3: nobody before you calls; you call by number, keep the hand hidden, ask for
    # the legal plays, type cards you do not hold, then lead and answer
    "classic": (["--variant", "classic", "--seed", "3"], ["1", "2", "?", "KK", "3", "6"]),
    # TWOP: a show start (×5), the call, a lead
    "two_player": (["--variant", "two-player", "--seed", "5"], ["1", "1", "3"]),
    # BENGBU4: a bid, the open or closed choice, a lead
    "bengbu": (["--variant", "bengbu", "--seed", "11"], ["bid1", "open", "3"]),
}


def render(args: List[str], lines: List[str]) -> str:
    """What ``ddz play ARGS`` prints with ``lines`` piped in (plain text, 100 columns)."""
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100", TERM="dumb")
    env.pop("FORCE_COLOR", None)
    r = subprocess.run([sys.executable, "-m", "ddz.cli", "play", *args], input="".join(f"{x}\n" for x in lines),
                       capture_output=True, text=True, env=env, timeout=120)
    if r.returncode not in (0, 1):  # 1: the input ended before the hand (the screens stop mid-hand)
        raise SystemExit(f"ddz play {' '.join(args)} failed ({r.returncode}):\n{r.stderr}")
    return r.stdout


def main(argv: List[str] | None = None) -> int:
    return write_or_check({name: (lambda a=args, li=lines: render(a, li)) for name, (args, lines) in SCREENS.items()},
                          SCREENS_DIR, ".txt", "screens", "tools/make_screens.py", argv, __doc__.split("\n\n")[0])


if __name__ == "__main__":
    sys.exit(main())
