"""MAS on the CPU with numba: the batch in parallel (``prange``), one rolling score row and a byte per decision.

The same dynamic programme as :mod:`trainer.align.reference` (VITS's Cython ``maximum_path_c``) in float32,
item by item: the forward keeps only the accumulated rows of the previous and the current frame (swapped
each frame; cells outside the band are never read) and records, for each cell in the band, the backtrack's
own decision ``x != 0 and (x == y or value[y-1, x] < value[y-1, x-1])`` as one byte; the backtrack follows
the bytes from the last frame and the last text position. Ties stay, as in the Cython code. Items whose
lengths do not allow a path (fewer frames than text positions, or lengths outside the array) are skipped
and get ``-1`` in every frame.

Compiled on the first call, for one signature only (``float32 [B, T_y, T_x]`` C-contiguous, ``int64 [B]``
lengths, ``int64 [B, T_y]`` output): :mod:`trainer.align.search` converts to exactly these. The compiled code
is cached on disk where numba can write (next to this file, or numba's user cache directory, or
``NUMBA_CACHE_DIR``); where it can write nowhere, it compiles in memory each run instead of failing.
"""

from __future__ import annotations

import numba
import numpy as np

NEG = np.float32(-1e9)
"""The Cython code's ``max_neg_val``: the score of a move that is not allowed."""
ZERO = np.float32(0.0)


@numba.njit(nogil=True)
def _forward(value, t_y, t_x, decisions):
    """Accumulate scores of ``value`` ``[T_y, T_x]`` over the band; set decision bytes in ``decisions``
    ``[t_y, t_x]`` (zeros on entry). The band's edges are peeled off so that its interior loop has no branch."""
    prev = np.full(t_x, NEG, np.float32)
    cur = np.full(t_x, NEG, np.float32)
    for y in range(t_y):
        lo = max(0, t_x + y - t_y)
        if lo == 0:  # x == 0: no diagonal move (but the start, at y == 0); decision 0
            cur[0] = value[y, 0] + (ZERO if y == 0 else max(NEG, prev[0]))
        for x in range(max(lo, 1), min(t_x, y)):  # 0 < x < y: both moves allowed
            decisions[y, x] = prev[x] < prev[x - 1]
            cur[x] = value[y, x] + max(prev[x - 1], prev[x])
        if 0 < y < t_x:  # x == y: only the diagonal move; decision 1
            decisions[y, y] = 1
            cur[y] = value[y, y] + max(prev[y - 1], NEG)
        prev, cur = cur, prev


@numba.njit(nogil=True)
def _backtrack(decisions, t_y, t_x, out):
    """Text index of each frame into ``out[:t_y]``, from the last text position back (a step per set byte)."""
    index = t_x - 1
    for y in range(t_y - 1, -1, -1):
        out[y] = index
        if decisions[y, index] != 0:
            index -= 1


@numba.njit(parallel=True)
def _search_batch(value, t_ys, t_xs, out):
    """Each item of the batch on its own thread; -1 in every frame of an item whose lengths allow no path."""
    batch, max_y, max_x = value.shape
    for b in numba.prange(batch):
        t_y, t_x = t_ys[b], t_xs[b]
        if t_x < 1 or t_x > t_y or t_y > max_y or t_x > max_x:
            out[b, :] = -1
            continue
        decisions = np.zeros((t_y, t_x), np.uint8)
        _forward(value[b], t_y, t_x, decisions)
        _backtrack(decisions, t_y, t_x, out[b])


def _cache_where_possible() -> None:
    """Cache compiled code on disk when numba finds a writable place; otherwise compile in memory each run."""
    for dispatcher in (_forward, _backtrack, _search_batch):
        try:
            dispatcher.enable_caching()
        except RuntimeError:  # numba: "cannot cache function ...: no locator available"
            pass


_cache_where_possible()


def search_numba(value: np.ndarray, t_ys: np.ndarray, t_xs: np.ndarray) -> np.ndarray:
    """MAS text index of each frame.

    Args:
        value: log-likelihoods ``[B, T_y, T_x]`` float32, C-contiguous (read only).
        t_ys, t_xs: ``[B]`` int64 frames and text positions of each item.
    Returns:
        ``[B, T_y]`` int64: the path's text index per frame, ``0`` past each item's last frame, ``-1`` in
        every frame of an item without a path (``t_x < 1``, ``t_x > t_y``, or lengths beyond the array).
    Raises:
        TypeError: arrays of other dtypes or layouts (they would compile another signature).
    """
    arrays = {"value": (value, np.float32), "t_ys": (t_ys, np.int64), "t_xs": (t_xs, np.int64)}
    for name, (array, dtype) in arrays.items():
        if array.dtype != dtype or not array.flags.c_contiguous:
            raise TypeError(f"search_numba needs {name} as C-contiguous {np.dtype(dtype).name}, got {array.dtype}")
    out = np.zeros(value.shape[:2], np.int64)
    _search_batch(value, t_ys, t_xs, out)
    return out
