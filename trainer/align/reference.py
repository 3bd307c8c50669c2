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

from engines.imports import importing

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


def maximum_path(neg_cent, mask):
    """Torch front end, as VITS calls it: ``neg_cent`` ``[B, T_y, T_x]``, ``mask`` ``[B, T_y, T_x]`` -> path.

    Runs on the CPU in float32; the path comes back on ``neg_cent``'s device and dtype.
    """
    with importing("torch"):
        import torch

    values = neg_cent.detach().float().cpu().numpy().copy()
    t_ys = mask.sum(1)[:, 0].long().cpu().numpy()
    t_xs = mask.sum(2)[:, 0].long().cpu().numpy()
    path = maximum_path_numpy(values, t_ys, t_xs)
    return torch.from_numpy(path).to(device=neg_cent.device, dtype=neg_cent.dtype)


def path_to_indices(path):
    """One text index per frame from a path ``[B, T_y, T_x]`` -> ``[B, T_y]`` int64 (0 past each item's end)."""
    return path.argmax(dim=-1)


def search_indices(value, y_lengths, x_lengths):
    """Compact MAS: one text index per frame ``[B, T_y]`` int64 on ``value``'s device (0 past each item's end).

    Args:
        value: log-likelihoods ``[B, T_y, T_x]`` (any float dtype; searched in float32, not modified).
        y_lengths: ``[B]`` frames per item; x_lengths: ``[B]`` text positions per item (integer tensors).
    Raises:
        ValueError: an item has more text positions than frames (no monotonic surjective path exists).
    """
    with importing("torch"):
        import torch

    t_ys = y_lengths.long().cpu().numpy()
    t_xs = x_lengths.long().cpu().numpy()
    if (t_xs > t_ys).any():
        raise ValueError(f"MAS needs at least as many frames as text positions: frames {t_ys}, text {t_xs}")
    values = value.detach().float().cpu().numpy().copy()
    path = maximum_path_numpy(values, t_ys, t_xs)
    indices = torch.from_numpy(path.argmax(-1).astype(np.int64))
    return indices.to(value.device)
