"""Monotonic alignment search: the reference gives the Cython code's paths exactly, ties included."""

from __future__ import annotations

import numpy as np
import pytest

from trainer.align.reference import maximum_path_numpy

MAX_NEG = np.float32(-1e9)


def cython_maximum_path_each(value: np.ndarray, t_y: int, t_x: int, max_neg_val=MAX_NEG) -> np.ndarray:
    """VITS's monotonic_align/core.pyx ``maximum_path_each``, transcribed loop for loop (float32)."""
    path = np.zeros(value.shape, np.int32)
    index = t_x - 1
    for y in range(t_y):
        for x in range(max(0, t_x + y - t_y), min(t_x, y + 1)):
            v_cur = max_neg_val if x == y else value[y - 1, x]
            if x == 0:
                v_prev = np.float32(0.0) if y == 0 else max_neg_val
            else:
                v_prev = value[y - 1, x - 1]
            value[y, x] = np.float32(value[y, x] + max(v_prev, v_cur))
    for y in range(t_y - 1, -1, -1):
        path[y, index] = 1
        if index != 0 and (index == y or value[y - 1, index] < value[y - 1, index - 1]):
            index = index - 1
    return path


@pytest.mark.parametrize("ties", [False, True], ids=["random", "with-ties"])
def test_reference_equals_cython_transcription(ties):
    """Random batches with ragged lengths (and integer scores, full of ties): identical paths."""
    rng = np.random.default_rng(7)
    for _ in range(30):
        batch = int(rng.integers(1, 5))
        t_xs = rng.integers(1, 12, batch)
        t_ys = np.array([int(rng.integers(tx, tx * 4 + 1)) for tx in t_xs])
        shape = (batch, int(t_ys.max()), int(t_xs.max()))
        scores = rng.integers(-3, 1, shape) if ties else rng.normal(size=shape)
        values = scores.astype(np.float32)
        expected = np.zeros(shape, np.int32)
        for b in range(batch):
            block = values[b].copy()
            expected[b] = cython_maximum_path_each(block, int(t_ys[b]), int(t_xs[b]))
        got = maximum_path_numpy(values.copy(), t_ys, t_xs)
        np.testing.assert_array_equal(got, expected)
        for b in range(batch):  # monotonic, one position per frame, every text position used
            indices = got[b, : t_ys[b], : t_xs[b]].argmax(1)
            assert got[b, : t_ys[b]].sum() == t_ys[b] and indices[0] == 0 and indices[-1] == t_xs[b] - 1
            assert set(np.diff(indices)) <= {0, 1}


def test_torch_front_end_matches_vits_shapes():
    """maximum_path(neg_cent, mask) as VITS calls it: path on the input's device and dtype."""
    torch = pytest.importorskip("torch")
    from trainer.align import maximum_path, path_to_indices

    neg_cent = torch.randn(2, 9, 4)
    mask = torch.zeros(2, 9, 4)
    mask[0, :9, :4] = 1
    mask[1, :6, :3] = 1
    path = maximum_path(neg_cent, mask)
    assert path.dtype == neg_cent.dtype and path.shape == (2, 9, 4)
    assert path[1, 6:].sum() == 0 and path[1, :, 3].sum() == 0
    indices = path_to_indices(path)
    assert indices[0, -1] == 3 and indices[1, 5] == 2
