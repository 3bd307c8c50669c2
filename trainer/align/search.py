"""The torch front ends of MAS and the choice of back-end.

:func:`search_indices` runs one of three back-ends, which give identical paths (ties included):

- ``"triton"`` (:mod:`trainer.align.triton_mas`): on a CUDA device, without a host sync;
- ``"numba"`` (:mod:`trainer.align.numba_mas`): on the CPU, the batch in parallel (scores on a GPU are
  copied to the host and the indices back);
- ``"reference"`` (:mod:`trainer.align.reference`): NumPy, on the CPU.

The back-end is the ``backend`` argument, else the ``VOICE_STUDIO_MAS`` environment variable, else the
fastest one available: Triton for CUDA scores when triton imports, else numba when it imports, else the
reference. numba and triton are imported on first use.
"""

from __future__ import annotations

import functools
import os

import numpy as np

from engines.errors import VoiceStudioError
from engines.imports import importing
from trainer.align.reference import maximum_path_numpy

BACKENDS = ("triton", "numba", "reference")
BACKEND_VARIABLE = "VOICE_STUDIO_MAS"
"""Environment variable that forces a back-end (one of :data:`BACKENDS`), for tests and benchmarks."""


class AlignmentError(VoiceStudioError, ValueError):
    """MAS cannot run: an unknown back-end, or an item whose lengths allow no path."""


@functools.cache
def importable(backend: str) -> bool:
    """Whether the back-end's module (and with it numba or triton) imports; remembered for the process."""
    try:
        if backend == "triton":
            with importing("trainer.align.triton_mas"):
                import trainer.align.triton_mas  # noqa: F401
        elif backend == "numba":
            with importing("trainer.align.numba_mas"):
                import trainer.align.numba_mas  # noqa: F401
    except ImportError:
        return False
    return True


def choose_backend(value, backend: str | None = None) -> str:
    """The back-end for scores ``value`` (a tensor): ``backend``, else ``$VOICE_STUDIO_MAS``, else the fastest
    importable one for value's device. Raises AlignmentError for a name not in :data:`BACKENDS`."""
    name = backend or os.environ.get(BACKEND_VARIABLE) or None
    if name is None:
        if value.is_cuda and importable("triton"):
            return "triton"
        return "numba" if importable("numba") else "reference"
    if name not in BACKENDS:
        where = "" if backend else f" (from the environment variable {BACKEND_VARIABLE})"
        raise AlignmentError(f"Unknown MAS back-end {name!r}{where}: choose one of {', '.join(BACKENDS)}")
    return name


def check_shapes(value, y_lengths, x_lengths) -> None:
    """Raise AlignmentError unless ``value`` is ``[B, T_y, T_x]`` and both lengths are integer ``[B]`` (shapes
    only: no device is waited on)."""
    if value.dim() != 3:
        raise AlignmentError(f"MAS scores must be [B, T_y, T_x], got shape {tuple(value.shape)}")
    for name, lengths in (("y_lengths", y_lengths), ("x_lengths", x_lengths)):
        if tuple(lengths.shape) != (value.shape[0],) or lengths.is_floating_point():
            raise AlignmentError(
                f"MAS {name} must be integers of shape [{value.shape[0]}] (one per batch item), "
                f"got {lengths.dtype} of shape {tuple(lengths.shape)}"
            )


def check_lengths(shape, t_ys: np.ndarray, t_xs: np.ndarray) -> None:
    """Raise AlignmentError naming the first item of a ``[B, T_y, T_x]`` batch whose frames ``t_ys[b]`` and
    text positions ``t_xs[b]`` allow no monotonic path: ``1 <= t_x <= t_y``, ``t_y <= T_y``, ``t_x <= T_x``."""
    _, max_y, max_x = shape
    bad = (t_xs < 1) | (t_xs > t_ys) | (t_ys > max_y) | (t_xs > max_x)
    if bad.any():
        b = int(np.flatnonzero(bad)[0])
        raise AlignmentError(
            f"MAS cannot align batch item {b}: {int(t_xs[b])} text positions (phonemes) and {int(t_ys[b])} "
            f"frames in scores of shape {tuple(shape)}; it needs 1 <= phonemes <= frames within the shape"
        )


def _host_lengths(y_lengths, x_lengths) -> tuple[np.ndarray, np.ndarray]:
    """``[B]`` frames and text positions as C-contiguous int64 host arrays (waits for the device, if any)."""
    t_ys, t_xs = (np.ascontiguousarray(t.detach().cpu().numpy().astype(np.int64)) for t in (y_lengths, x_lengths))
    return t_ys, t_xs


def search_indices(value, y_lengths, x_lengths, *, backend: str | None = None):
    """Compact MAS: one text index per frame ``[B, T_y]`` int64 on ``value``'s device (0 past each item's end).

    Args:
        value: log-likelihoods ``[B, T_y, T_x]`` (any float dtype; searched in float32, not modified).
        y_lengths: ``[B]`` frames per item; x_lengths: ``[B]`` text positions per item (integer tensors).
        backend: ``"triton"``, ``"numba"`` or ``"reference"``; default: see :func:`choose_backend`.
    Raises:
        AlignmentError (a ValueError): an unknown back-end, scores not ``[B, T_y, T_x]`` or lengths not
            integer ``[B]``, or an item with fewer frames than text positions
            (no monotonic surjective path) or lengths beyond ``value``'s shape. Checked wherever the lengths
            are on the CPU (always for the CPU back-ends). Triton with lengths on the GPU does not check
            (that would wait for the GPU): such an item gets ``-1`` in every frame, and its scores are not read.
    """
    check_shapes(value, y_lengths, x_lengths)
    name = choose_backend(value, backend)
    if value.shape[0] == 0:  # an empty batch: nothing to search (each back-end alike)
        return y_lengths.new_zeros(value.shape[:2]).long().to(value.device)
    if name == "triton":
        with importing("trainer.align.triton_mas"):
            from trainer.align.triton_mas import interpreted, search_triton
        if not (value.is_cuda or interpreted()):
            raise AlignmentError("The Triton MAS needs scores on a CUDA device (or TRITON_INTERPRET=1 on the CPU)")
        if not (y_lengths.is_cuda or x_lengths.is_cuda):
            check_lengths(value.shape, *_host_lengths(y_lengths, x_lengths))
        return search_triton(value, y_lengths, x_lengths)
    with importing("torch"):
        import torch

    t_ys, t_xs = _host_lengths(y_lengths, x_lengths)
    check_lengths(value.shape, t_ys, t_xs)
    scores = value.detach().float().cpu().contiguous().numpy()
    if name == "numba":
        with importing("trainer.align.numba_mas"):
            from trainer.align.numba_mas import search_numba
        indices = search_numba(scores, t_ys, t_xs)
    else:
        indices = maximum_path_numpy(scores.copy(), t_ys, t_xs).argmax(-1).astype(np.int64)
    return torch.from_numpy(indices).to(value.device)


def maximum_path(neg_cent, mask):
    """Dense MAS, as VITS calls it: ``neg_cent`` ``[B, T_y, T_x]``, ``mask`` ``[B, T_y, T_x]`` -> path
    ``[B, T_y, T_x]`` (one 1 per frame) on ``neg_cent``'s device and dtype; the NumPy reference, in float32."""
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
