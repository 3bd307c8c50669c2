"""Reference MAS: VITS's Cython ``maximum_path`` step for step, vectorized over the batch and the text.

Dynamic programme over frames y and text positions x (log-likelihoods ``value[y, x]``,
float32 as the Cython code)::

    value[y, x] += max(value[y-1, x-1], value[y-1, x])     within the band where a path can pass,
                                                            with value[y-1, x] = -1e9 when x == y,
                                                            and value[y-1, -1] = 0 at y == 0 else -1e9

then a walk back from the last frame and the last text position, stepping to the
previous position when ``index == y`` or ``value[y-1, index] < value[y-1, index-1]``
(so a tie keeps the current position). Cells outside the band are never read.
"""

from __future__ import annotations

import numpy as np

NEG = np.float32(-1e9)


def maximum_path_numpy(value: np.ndarray, t_ys: np.ndarray, t_xs: np.ndarray) -> np.ndarray:
    """MAS on ``value`` ``[B, T_y, T_x]`` float32 (modified in place, as the Cython code does).

    Args:
        t_ys, t_xs: ``[B]`` frames and text length of each item.
    Returns:
        ``[B, T_y, T_x]`` int32 path, one 1 per frame (within each item's lengths).
    """
    batch, max_y, max_x = value.shape
    x = np.arange(max_x)[None, :]
    rows = np.arange(batch)
    for y in range(max_y):
        lo, hi = np.maximum(0, t_xs + y - t_ys)[:, None], np.minimum(t_xs, y + 1)[:, None]
        band = (x >= lo) & (x < hi) & (y < t_ys)[:, None]
        if y == 0:
            cur = np.full((batch, max_x), NEG, np.float32)
            prev = np.full((batch, max_x), NEG, np.float32)
            prev[:, 0] = 0
        else:
            cur = np.where(x == y, NEG, value[:, y - 1])
            prev = np.concatenate([np.full((batch, 1), NEG, np.float32), value[:, y - 1, :-1]], axis=1)
        value[:, y] = np.where(band, value[:, y] + np.maximum(prev, cur), value[:, y])
    path = np.zeros(value.shape, np.int32)
    index = t_xs - 1
    for y in range(max_y - 1, -1, -1):
        active = y < t_ys
        path[rows[active], y, index[active]] = 1
        if y == 0:
            break
        left = value[rows, y - 1, np.maximum(index - 1, 0)]
        here = value[rows, y - 1, np.minimum(index, max_x - 1)]
        step = active & (index != 0) & ((index == y) | (here < left))
        index = index - step
    return path
