"""Writes src/ddz/server/static/fonts/ddz-cjk.woff: the glyphs of every non-ASCII character in
the browser client's sources (its Chinese labels, the suits, the jokers' 小王/大王, ×, ∞, …),
cut from Noto Sans CJK SC (SIL Open Font License 1.1), so that the page renders them on a
machine with no CJK font. Run it again after adding such a character to static/app.js or
static/index.html (tests/server/test_server_browser.py fails until then).

Needs fontTools (``pip install fonttools``, a developer's tool: the server does not import it)
and Debian's fonts-noto-cjk (or ``--source`` pointing to NotoSansCJK-Regular.ttc)."""
from __future__ import annotations

import argparse
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "src" / "ddz" / "server" / "static"
FAMILY = "ddz page CJK"  # a Modified Version must not carry the Reserved Font Name ("Source")


def page_chars() -> str:
    text = "".join((STATIC / f).read_text(encoding="utf-8") for f in ("app.js", "index.html"))
    return "".join(sorted({ch for ch in text if ord(ch) > 127 and not ch.isspace()}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", default="/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
    ap.add_argument("--out", default=str(STATIC / "fonts" / "ddz-cjk.woff"))
    args = ap.parse_args()
    font = next(f for f in TTCollection(args.source).fonts if f["name"].getDebugName(1) == "Noto Sans CJK SC")
    chars = page_chars()
    missing = [c for c in chars if ord(c) not in font.getBestCmap()]
    if missing:
        raise SystemExit(f"Noto Sans CJK SC has no glyph for {''.join(missing)!r}")
    opts = subset.Options()
    opts.flavor = "woff"
    opts.layout_features = ["*"]
    opts.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]  # keep the copyright and licence entries
    sub = subset.Subsetter(opts)
    sub.populate(text=chars)
    sub.subset(font)
    names = font["name"]
    for rec in list(names.names):
        if rec.nameID in (1, 3, 4, 16):
            rec.string = FAMILY
        elif rec.nameID == 6:
            rec.string = FAMILY.replace(" ", "-")
    names.names = [r for r in names.names if r.nameID not in (16, 17)]
    font.flavor = "woff"
    font.recalcTimestamp = False  # the source's date: the same sources give the same file
    font.save(args.out)
    print(f"{args.out}: {len(chars)} characters, {Path(args.out).stat().st_size} bytes")


if __name__ == "__main__":
    main()
