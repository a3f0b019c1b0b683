"""Turns a fuzzer's bytes into typed values, the same way under atheris and under the
built-in mutation fuzzer (so a crashing input found by either reproduces with both).

Each draw consumes bytes from the front; when the bytes run out every draw returns its
smallest value, so any byte string is a valid input."""
from __future__ import annotations

import math
from typing import Any, List, Sequence

import numpy as np

RANK_CHARS = "3456789TJQKA2BR"

# Values of every type, built once (10**5000 is slow to build).
HOSTILE: List[Any] = [
    None, True, False, 0, 1, -1, 2, 3, 7, 2**31, 2**63, 2**64, -(2**64), 10**30, 10**5000, 1.5, -0.0,
    math.nan, math.inf, "", "0", "1", "PASS", "\udc80", b"33", bytearray(b"3"), [], [1], [None], ["3"],
    (), {}, {"a": 1}, set(), object(), np.uint64(3), np.int8(-1), np.float32(1.0), np.array([1]),
    np.array(3), range(3), Ellipsis, 1j, type, lambda: None,
]


class Data:
    def __init__(self, data: bytes) -> None:
        self.b = data
        self.i = 0

    def left(self) -> int:
        return len(self.b) - self.i

    def byte(self) -> int:
        if self.i >= len(self.b):
            return 0
        self.i += 1
        return self.b[self.i - 1]

    def int(self, lo: int, hi: int) -> int:
        """An int in [lo, hi]."""
        span = hi - lo
        if span <= 0:
            return lo
        nbytes = (span.bit_length() + 7) // 8
        v = 0
        for _ in range(nbytes):
            v = (v << 8) | self.byte()
        return lo + v % (span + 1)

    def bool(self) -> bool:
        return bool(self.byte() & 1)

    def chance(self, k: int) -> bool:
        """True with probability about 1/k."""
        return self.int(0, k - 1) == 0

    def choice(self, seq: Sequence[Any]) -> Any:
        return seq[self.int(0, len(seq) - 1)]

    def u64(self) -> int:
        return self.int(0, 2**64 - 1)

    def raw(self, n: int) -> bytes:
        out = self.b[self.i:self.i + n]
        self.i += len(out)
        return out

    def text(self, max_len: int = 40) -> str:
        """Mostly rank characters, sometimes anything (separators, suits, non-ASCII, lone
        surrogates), rarely huge."""
        mode = self.int(0, 9)
        if mode == 0:
            raw = self.raw(self.int(0, max_len))
            return raw.decode("utf-8", errors="surrogateescape")
        if mode == 1:
            return self.choice(["", " ", "PASS", "pass", "PLAY", "PLAY ", "\udc80", "３", "3" * 100_000,
                                "x" * 1_000_000, "3s 3h", "3s'", "B R", "BR", "bbrr", "\x00", "33\n44"])
        n = self.int(0, max_len)
        alphabet = RANK_CHARS if mode < 7 else RANK_CHARS + "shcd' ,tjqkabrxZ0"
        return "".join(self.choice(alphabet) for _ in range(n))

    def ranks_from(self, pool: List[int], max_len: int) -> str:
        """A sub-multiset of a pool of rank counts (a realistic hand)."""
        counts = list(pool)
        out = []
        for _ in range(self.int(0, max_len)):
            live = [r for r in range(15) if counts[r]]
            if not live:
                break
            r = self.choice(live)
            counts[r] -= 1
            out.append(RANK_CHARS[r])
        return "".join(sorted(out, key=RANK_CHARS.index))

    def hostile(self) -> Any:
        """A value of any type: what a hostile caller passes where something else is meant."""
        return self.choice(HOSTILE)


def array(d: Data, values: List[int]) -> Any:
    """A numpy array holding `values` in any dtype, shape or stride (or a plain list)."""
    dt = d.choice(["<u8", ">u8", "<i8", "u4", "i4", "u2", "u1", "i1", "f8", "f4", "?", "O", "U8", "c16"])
    mode = d.int(0, 6)
    try:
        if dt == "U8":
            a = np.array([str(v) for v in values], dtype=dt)
        elif dt == "O":
            a = np.array(values + [None] if d.bool() else values, dtype=object)
        else:
            a = np.array(values, dtype=np.uint64).astype(dt)
    except (OverflowError, ValueError):
        a = np.array(values, dtype=np.int64 if any(v < 0 for v in values) else np.uint64)
    if mode == 0:
        return list(values)
    if mode == 1 and a.size:
        return a.reshape(1, -1) if d.bool() else np.repeat(a, 2)[::2]  # 2-D, or a strided view
    if mode == 2:
        return a[::-1]
    if mode == 3 and a.size:
        return np.asarray(a[0])  # 0-D
    if mode == 4:
        b = a.copy()
        b.setflags(write=False)
        return b
    return a
