"""Running a range of games as Ray tasks (``backend="ray"`` of ``simulate`` and ``evaluate``).

The game range is cut into consecutive chunks, one task each; every game depends only on
the seed and its own number, so joining the chunks in order gives exactly the local result.
Ray is an optional extra (``pip install ".[ray]"`` in the source tree); without ``ray.init`` first, Ray starts
a local instance (or joins the cluster named by ``RAY_ADDRESS``).
"""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple

from ..core.errors import ArgumentError, ArgumentTypeError, shown

__all__ = ["split_range"]


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ArgumentError("backend='ray' needs Ray: pip install \".[ray]\" in the ddz source tree, or pip install ray") from None
    return ray


def chunk_bounds(first: int, count: int, chunks: int) -> List[Tuple[int, int]]:
    """``chunks`` consecutive (first, count) pieces covering ``first .. first + count - 1``."""
    chunks = max(1, min(chunks, count))
    base, extra = divmod(count, chunks)
    out, start = [], first
    for i in range(chunks):
        size = base + (1 if i < extra else 0)
        out.append((start, size))
        start += size
    return out


def split_range(fn: Callable[..., Any], first: int, count: int, chunks: Optional[int],
                make_args: Callable[[int, int], Tuple[Any, ...]]) -> List[Any]:
    """``[fn(*make_args(f, c)) for (f, c) in chunks]``, each call a Ray task, in order."""
    ray = _ray()
    if chunks is not None and (isinstance(chunks, bool) or not isinstance(chunks, int)):
        raise ArgumentTypeError(f"chunks must be an int, not {shown(chunks)}")
    if chunks is not None and chunks < 1:
        raise ArgumentError(f"chunks must be >= 1, not {chunks}")
    if not ray.is_initialized():
        ray.init()
    if chunks is None:
        chunks = 4 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    if count == 0:
        return []
    task = ray.remote(fn)
    return ray.get([task.remote(*make_args(f, c)) for f, c in chunk_bounds(first, count, chunks)])
