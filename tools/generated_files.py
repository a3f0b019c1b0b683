"""What tools/make_screens.py and tools/make_pictures.py share: write the files a script makes
from the code, or (``--check``) compare them with what the code makes now."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional


def write_or_check(files: Dict[str, Callable[[], str]], folder: Path, suffix: str, what: str, script: str,
                   argv: Optional[List[str]], description: str) -> int:
    """``files``: a name -> the text of ``folder/NAME.SUFFIX``. Writes them all; with ``--check``
    in ``argv`` writes nothing and returns 1, naming on stderr every ``what`` that differs."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--check", action="store_true", help=f"compare only; exit 1 when one of the {what} differs")
    a = ap.parse_args(argv)
    folder.mkdir(parents=True, exist_ok=True)
    stale = []
    for name, make in files.items():
        path = folder / f"{name}{suffix}"
        text = make()
        if a.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print(f"stale {what} (python {script} rewrites them): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0
