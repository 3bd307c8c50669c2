"""Small tensor helpers shared by the VITS modules."""

from __future__ import annotations

import torch
import torch.nn.functional as F


def sequence_mask(lengths: torch.Tensor, max_length: int | torch.Tensor | None = None) -> torch.Tensor:
    """Boolean mask ``[B, T]``: True where the position is below the sequence's length.

    ``max_length`` may be a tensor (no Python int), so traced exports keep it dynamic.
    """
    if max_length is None:
        max_length = lengths.max()
    # torch's stubs take a number only; a 0-dim tensor works and keeps a traced export's length dynamic
    positions = torch.arange(max_length, dtype=lengths.dtype, device=lengths.device)  # type: ignore[arg-type]
    return positions.unsqueeze(0) < lengths.unsqueeze(1)


def same_padding(kernel_size: int, dilation: int = 1) -> int:
    """Padding that keeps the length of a stride-1 convolution: (k * d - d) / 2."""
    return (kernel_size * dilation - dilation) // 2


def gated_activation(x: torch.Tensor, condition: torch.Tensor | int, channels: int) -> torch.Tensor:
    """WaveNet's gated unit tanh(a) * sigmoid(b) on ``x + condition`` split in halves (van den Oord et al., 2016).

    ``x``: ``[B, 2 * channels, T]``; returns ``[B, channels, T]``.
    """
    summed = x + condition
    return torch.tanh(summed[:, :channels]) * torch.sigmoid(summed[:, channels:])


def alignment_path(durations: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Hard monotonic alignment from integer durations.

    Args:
        durations: frames per phoneme ``[B, 1, T_ph]`` (whole numbers, float dtype).
        mask: ``[B, 1, T_frames, T_ph]``.

    Returns:
        ``[B, 1, T_frames, T_ph]``, 1 where frame t belongs to phoneme i.
    """
    b, _, t_frames, t_ph = mask.shape
    ends = torch.cumsum(durations, -1).view(b * t_ph)
    path = sequence_mask(ends, t_frames).to(mask.dtype).view(b, t_ph, t_frames)
    path = path - F.pad(path, [0, 0, 1, 0])[:, :-1]
    return path.unsqueeze(1).transpose(2, 3) * mask


def durations_to_indices(durations: torch.Tensor, num_frames: int | torch.Tensor) -> torch.Tensor:
    """The phoneme index of each frame ``[B, T_frames]`` (int64) from durations ``[B, T_ph]``.

    One index per frame instead of a dense ``[T_frames, T_ph]`` float path: frame
    t belongs to the number of phonemes that end at or before t. Frames past a
    sequence's end get its last phoneme (callers mask them). Built from
    comparisons and a sum, so it exports to ONNX (which has no searchsorted).
    """
    ends = torch.cumsum(durations, -1)
    frames = torch.arange(num_frames, device=durations.device).to(ends.dtype)  # type: ignore[arg-type]  # as above
    index = (frames.unsqueeze(0).unsqueeze(-1) >= ends.unsqueeze(1)).sum(-1)
    return torch.clamp(index, max=durations.shape[-1] - 1)


def padded_length(n: int, steps_per_octave: int = 8, minimum_step: int = 8) -> int:
    """``n`` rounded up to one of a few sizes per octave: 8, 16, ..., 128, 144, ..., 256, 288, ...

    On the CPU, oneDNN generates (JIT-compiles) a kernel for each new convolution
    shape, about 1-2 ms per convolution and some 30 per decoder length; text and
    chunk lengths vary freely, so without padding most requests would pay that
    (measured: 150 vs 95 ms for a short line). Callers pad to these sizes with
    zeros and a mask, which VITS's layers already honour exactly. The step is
    ``max(minimum_step, 2**floor(log2 n) / steps_per_octave)``, so padding adds
    at most 1/``steps_per_octave`` of the length above the smallest sizes.
    """
    step = max(minimum_step, (1 << (max(n, 1).bit_length() - 1)) // steps_per_octave)
    return -(-n // step) * step
