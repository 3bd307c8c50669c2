"""MAS on the GPU with Triton: a forward kernel with a rolling score row that records each decision as a byte,
and a backtracking kernel that follows the bytes; scores, lengths, decisions and the path stay on the device.

One program per batch item. The forward walks the frames ``y < t_y`` with the accumulated score row of the
previous frame in registers (and in a two-row scratch buffer, from which the shifted row ``row[x - 1]`` is
read back after a barrier) and, for every text position ``x < t_x`` of the frame, writes the byte
``x != 0 and (x == y or row[x] < row[x - 1])``: exactly the comparison VITS's Cython ``maximum_path_c``
makes on the same previous row when it walks back (ties stay). In the band, the forward's
``max(diag, stay)`` reads the same two cells, so the value and the decision agree; outside the band the
bytes are never followed. The backtrack starts at ``x = t_x - 1`` in the last frame and steps down one
text position per set byte, writing one text index per frame (int64) and 0 past the item's end.

Shapes never recompile: sizes and strides are runtime arguments, exempt from Triton's value specialization
(``do_not_specialize``: 1 and multiples of 16 would otherwise be compiled in) and from pointer-alignment
specialization. The ``tl.constexpr`` are the text block width ``BLOCK_X`` (next power of two of the padded
``T_x``, at least 16), which also sets the number of warps, and ``ITEMS``, the items per program: 1 on the
GPU; more only under the interpreter, which runs programs one after another. Floating-point fusion is off
(there is nothing to fuse: the forward adds and compares, so its float32 sums are those of the Cython
code). Items without a path (``t_x < 1``, ``t_x > t_y``, or lengths beyond the tensor) are skipped without
reading a score and get ``-1`` in every frame; the kernels read only inside ``[t_y, t_x]`` of valid items.

Under ``TRITON_INTERPRET=1`` (read when the kernels are first built for a launch) the same kernels run on
CPU tensors through Triton's interpreter; that is how the tests check them on machines without a GPU. The
kernels use only Triton's builtins, none of its ``@jit`` library functions (``tl.max``, ``tl.zeros``), which
are built as compiled or interpreted when ``triton.language`` is first imported: so the interpreter works even
where triton was imported before the variable was set. Hence the frame loops run to the padded ``T_y`` with
masks rather than to the longest item; on the GPU the kernel lasts as long as its longest program either way.
"""

from __future__ import annotations

import functools

import torch
import triton
import triton.language as tl
from triton import knobs

NEG: tl.constexpr = tl.constexpr(-1e9)
"""The Cython code's ``max_neg_val``: the score of a move that is not allowed (exact in float32)."""

FORWARD_OPTIONS = {
    "do_not_specialize": ["batch", "max_y", "max_x", "stride_b", "stride_y", "dec_stride_b", "dec_stride_y"],
    "do_not_specialize_on_alignment": ["value_ptr", "y_len_ptr", "x_len_ptr", "dec_ptr", "row_ptr", "frames_ptr"],
}
BACKTRACK_OPTIONS = {
    "do_not_specialize": ["batch", "max_y", "dec_stride_b", "dec_stride_y", "out_stride_b"],
    "do_not_specialize_on_alignment": ["dec_ptr", "frames_ptr", "x_len_ptr", "out_ptr"],
}


def _forward(
    value_ptr, y_len_ptr, x_len_ptr, dec_ptr, row_ptr, frames_ptr,
    batch, max_y, max_x, stride_b, stride_y, dec_stride_b, dec_stride_y,
    BLOCK_X: tl.constexpr, ITEMS: tl.constexpr,
):  # fmt: skip
    """Accumulate the scores ``value[b]`` ``[T_y, T_x]`` (x stride 1) of ``ITEMS`` items frame by frame; write
    decision bytes ``dec[b, y, x]`` for ``y < t_y, x < t_x`` and ``frames[b]`` (``t_y``, or 0 for an item
    without a path). ``row`` ``[B, 2, BLOCK_X]`` float32 is scratch."""
    b = tl.program_id(0).to(tl.int64) * ITEMS + tl.arange(0, ITEMS)
    inside = b < batch
    t_y = tl.load(y_len_ptr + b, mask=inside, other=0).to(tl.int32)
    t_x = tl.load(x_len_ptr + b, mask=inside, other=0).to(tl.int32)
    frames = tl.where((t_x >= 1) & (t_x <= t_y) & (t_y <= max_y) & (t_x <= max_x), t_y, 0)
    tl.store(frames_ptr + b, frames, mask=inside)
    x = tl.arange(0, BLOCK_X)[None, :]
    lanes, first, frames_b = x < t_x[:, None], (t_x - t_y)[:, None], frames[:, None]
    scratch = row_ptr + b[:, None] * (2 * BLOCK_X) + x
    prev = tl.full([ITEMS, BLOCK_X], NEG, tl.float32)
    tl.store(scratch + BLOCK_X, prev, mask=inside[:, None])  # the row "before frame 0"
    tl.debug_barrier()
    scores = value_ptr + b[:, None] * stride_b + x  # frame y of each item (pointers advance: no 32-bit products)
    decisions = dec_ptr + b[:, None] * dec_stride_b + x
    for y in range(0, max_y):  # masked past each item's frames; see the module's docstring for why not max(frames)
        shifted = tl.load(scratch + ((y + 1) % 2) * BLOCK_X - 1, mask=(x >= 1) & inside[:, None], other=NEG)
        stay = tl.where(x == y, NEG, prev)
        diag = tl.where(x == 0, tl.where(y == 0, 0.0, NEG), shifted)
        active = y < frames_b
        band = (x >= first + y) & (x <= y) & lanes & active
        score = tl.load(scores, mask=band, other=0.0)
        prev = tl.where(band, score + tl.maximum(diag, stay), NEG)
        step = (x != 0) & ((x == y) | (stay < diag))
        tl.store(decisions, step.to(tl.uint8), mask=lanes & active)
        tl.store(scratch + (y % 2) * BLOCK_X, prev, mask=inside[:, None])
        tl.debug_barrier()
        scores += stride_y
        decisions += dec_stride_y


def _backtrack(
    dec_ptr, frames_ptr, x_len_ptr, out_ptr,
    batch, max_y, dec_stride_b, dec_stride_y, out_stride_b,
    BLOCK_X: tl.constexpr, ITEMS: tl.constexpr,
):  # fmt: skip
    """Follow the decision bytes of ``ITEMS`` items from ``(t_y - 1, t_x - 1)``; write ``out[b, :]`` int64
    (0 past the item's end, -1 in every frame of an item without a path: ``frames[b] == 0``)."""
    b = tl.program_id(0).to(tl.int64) * ITEMS + tl.arange(0, ITEMS)
    inside = b < batch
    frames = tl.load(frames_ptr + b, mask=inside, other=0)
    t_x = tl.load(x_len_ptr + b, mask=inside & (frames > 0), other=1).to(tl.int32)
    out = out_ptr + b * out_stride_b
    fill = tl.where(frames > 0, 0, -1).to(tl.int64)[:, None]
    for start in range(0, max_y, BLOCK_X):
        tail = start + tl.arange(0, BLOCK_X)[None, :]
        tl.store(out[:, None] + tail, fill, mask=inside[:, None] & (tail >= frames[:, None]) & (tail < max_y))
    decisions = dec_ptr + b * dec_stride_b
    index = t_x - 1
    for i in range(0, max_y):
        y = max_y - 1 - i
        active = y < frames
        tl.store(out + y, index.to(tl.int64), mask=active)
        step = tl.load(decisions + y * dec_stride_y + index, mask=active, other=0)  # y * stride < 2**31
        index -= (step != 0).to(tl.int32)


def interpreted() -> bool:
    """Whether Triton runs kernels in its interpreter (``TRITON_INTERPRET=1``, read now)."""
    return bool(knobs.runtime.interpret)


@functools.cache
def kernels(interpret: bool):
    """(forward, backtrack) as Triton kernels, built once per mode: interpreted (``TRITON_INTERPRET=1``, CPU
    tensors) or compiled. ``interpret`` only keys the cache; Triton reads the variable itself when it builds."""
    return (
        triton.jit(**FORWARD_OPTIONS)(_forward),
        triton.jit(**BACKTRACK_OPTIONS)(_backtrack),
    )


def launch_arguments(value, y_lengths, x_lengths, items: int = 1):
    """The two kernels' arguments for ``value`` ``[B, T_y, T_x]`` and ``items`` items per program: (grid,
    forward args, backtrack args, constants); the output ``indices`` ``[B, T_y]`` int64 is the backtrack's
    fourth argument. Allocates on value's device."""
    batch, max_y, max_x = value.shape
    device = value.device
    block = max(16, triton.next_power_of_2(max_x))
    value = value.detach().float().contiguous()
    y_len = y_lengths.to(device=device, dtype=torch.int64)
    x_len = x_lengths.to(device=device, dtype=torch.int64)
    decisions = torch.empty((batch, max_y, max_x), dtype=torch.uint8, device=device)
    rows = torch.empty((batch, 2, block), dtype=torch.float32, device=device)
    frames = torch.empty((batch,), dtype=torch.int32, device=device)
    indices = torch.empty((batch, max_y), dtype=torch.int64, device=device)
    dec_strides = decisions.stride()[:2]
    forward = (value, y_len, x_len, decisions, rows, frames, batch, max_y, max_x, *value.stride()[:2], *dec_strides)
    backtrack = (decisions, frames, x_len, indices, batch, max_y, *dec_strides, indices.stride(0))
    warps = max(1, min(8, block * items // 128))
    constants = {"BLOCK_X": block, "ITEMS": items, "num_warps": warps, "enable_fp_fusion": False}
    return (triton.cdiv(batch, items),), forward, backtrack, constants


def search_triton(value, y_lengths, x_lengths, items: int = 1):
    """MAS text index of each frame, on value's device without a host sync.

    Args:
        value: log-likelihoods ``[B, T_y, T_x]`` on a CUDA device (or CPU under ``TRITON_INTERPRET=1``);
            any float dtype, searched in float32, not modified.
        y_lengths, x_lengths: ``[B]`` integer frames and text positions per item (any device).
        items: items per program, a power of two. 1 on the GPU (one program per item); the interpreter runs
            programs one after another, so the tests pack many items into one.
    Returns:
        ``[B, T_y]`` int64 on value's device: text index per frame, 0 past each item's last frame, -1 in
        every frame of an item without a path (checked on the device; no error is raised here).
    """
    if value.shape[0] == 0:
        return torch.zeros(value.shape[:2], dtype=torch.int64, device=value.device)
    grid, forward_args, backtrack_args, constants = launch_arguments(value, y_lengths, x_lengths, items)
    forward, backtrack = kernels(interpreted())
    forward[grid](*forward_args, **constants)
    backtrack[grid](*backtrack_args, **constants)
    return backtrack_args[3]
