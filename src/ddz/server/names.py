"""Player names: the rule a new account's name must meet, and the key that makes names
unique regardless of case and width (docs/protocol.md, "Names").

Why each part of the rule: a name is shown to other players, so it must look like what it
is. NFKC form: ``ＡＮＮ`` and ``ann`` differ only in width and would look alike; the
client sees the normalised form refused with the form to send instead, never a name
changed behind its back. No control (Cc), format (Cf: bidi overrides such as U+202E, zero
widths), private-use, unassigned, line or paragraph separator characters, and none of
Unicode's default-ignorable code points (invisible fillers): they hide, reorder or fake
text. Unassigned characters also may gain a normalisation or a case folding in a later
Unicode version, which would move the key. Single inner spaces only: a leading, trailing
or doubled space is invisible on the page.
"""
from __future__ import annotations

import unicodedata
from typing import Optional

__all__ = ["MAX_NAME", "name_problem", "name_key"]

MAX_NAME = 24  # characters (code points) of a new name

_BAD_CATEGORIES = {"Cc": "a control character", "Cf": "a format character", "Cs": "a surrogate",
                   "Co": "a private-use character", "Cn": "an unassigned character",
                   "Zl": "a line separator", "Zp": "a paragraph separator"}

# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt) outside Cf and Cn: shown as
# nothing (fillers, variation selectors, the combining grapheme joiner)
_IGNORABLE = ((0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x3164, 0x3164),
              (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xE0100, 0xE01EF))


def _ignorable(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in _IGNORABLE)


def _describe(ch: str) -> str:
    return f"U+{ord(ch):04X} {unicodedata.name(ch, '(unnamed)')}"


def name_problem(name: str) -> Optional[str]:
    """Why ``name`` cannot be a new account's name (a sentence for the ``bad_name`` error),
    or None when it can. Checks the characters first, so the message names the first one
    that is not allowed."""
    if not name:
        return f"a name is 1 to {MAX_NAME} characters; this one is empty"
    for i, ch in enumerate(name):
        cat = unicodedata.category(ch)
        if cat in _BAD_CATEGORIES:
            return f"a name may not hold {_BAD_CATEGORIES[cat]}: {_describe(ch)} at {i}"
        if cat == "Zs" and ch != " ":
            return f"the only space a name may hold is U+0020: {_describe(ch)} at {i}"
        if _ignorable(ord(ch)):
            return f"a name may not hold an invisible character: {_describe(ch)} at {i}"
    nfkc = unicodedata.normalize("NFKC", name)
    if nfkc != name:
        return f"a name is written in Unicode NFKC form: send {nfkc!r}"
    if name[0] == " " or name[-1] == " " or "  " in name:
        return "a name does not start or end with a space, nor hold two in a row"
    if len(name) > MAX_NAME:
        return f"a name is 1 to {MAX_NAME} characters; this one has {len(name)}"
    if name[0] == "~":
        return "names that start with '~' are the server's bots"
    return None


def name_key(name: str) -> str:
    """The key two names share when they differ only in case or width (NFKC_Casefold as
    ``unicodedata`` computes it): unique among accounts."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
