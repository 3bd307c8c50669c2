"""The generator's training forward pass (VITS, Kim et al., ICML 2021, sec. 2 and fig. 1a).

Text encoder -> prior ``(m_p, logs_p)``; posterior encoder on the linear spectrogram
-> ``z``; flow -> ``z_p``; monotonic alignment search between ``z_p`` and the prior
(in float32, no gradient); duration loss from the alignment's durations; the prior
expanded to frames; the decoder on a random segment of ``z``.

Changes from Piper's ``SynthesizerTrn.forward`` that keep the numbers the same:

- compact alignment: the search gives one text index per frame (``[B, T_y]``, no
  dense ``[B, T_y, T_x]`` path); durations are counted from the indices with a
  scatter-add, and the prior is expanded with a gather (in float32, so under bf16
  autocast a phoneme's gradient accumulates over its frames in float32) instead
  of a path-by-prior matrix product;
- segments are cut with one gather instead of a loop over the batch;
- random numbers are drawn directly on the device (on the CPU the same stream as
  Piper's, in Piper's order, so the same seed gives the same result).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from trainer.align import search_indices


@dataclass
class GeneratorOutput:
    """What the losses need from one generator forward.

    Attributes:
        audio: decoded segment ``[B, 1, segment_frames * hop_length]``.
        l_length: duration loss per item ``[B]`` (already divided by the batch's text frames).
        ids_slice: first frame of each item's segment ``[B]`` int64.
        x_mask, y_mask: ``[B, 1, T_x]``, ``[B, 1, T_y]``.
        z, z_p: posterior latent and its flow image ``[B, C, T_y]``.
        m_p, logs_p: prior expanded to frames ``[B, C, T_y]`` float32; m_q, logs_q: posterior ``[B, C, T_y]``.
        indices: text position of each frame ``[B, T_y]`` int64 (the alignment).
        durations: frames per text position ``[B, 1, T_x]`` float32.
    """

    audio: torch.Tensor
    l_length: torch.Tensor
    ids_slice: torch.Tensor
    x_mask: torch.Tensor
    y_mask: torch.Tensor
    z: torch.Tensor
    z_p: torch.Tensor
    m_p: torch.Tensor
    logs_p: torch.Tensor
    m_q: torch.Tensor
    logs_q: torch.Tensor
    indices: torch.Tensor
    durations: torch.Tensor


def neg_cross_entropy(z_p: torch.Tensor, m_p: torch.Tensor, logs_p: torch.Tensor) -> torch.Tensor:
    """log N(z_p[:, :, y]; m_p[:, :, x], exp(logs_p[:, :, x])) summed over channels: ``[B, T_y, T_x]`` float32.

    (Glow-TTS, Kim et al. 2020, eq. 7, expanded into four terms as in the VITS code.)
    """
    z_p, m_p, logs_p = z_p.float(), m_p.float(), logs_p.float()
    s_p_sq_r = torch.exp(-2 * logs_p)
    neg_cent1 = torch.sum(-0.5 * math.log(2 * math.pi) - logs_p, [1], keepdim=True)
    neg_cent2 = torch.matmul(-0.5 * (z_p**2).transpose(1, 2), s_p_sq_r)
    neg_cent3 = torch.matmul(z_p.transpose(1, 2), m_p * s_p_sq_r)
    neg_cent4 = torch.sum(-0.5 * (m_p**2) * s_p_sq_r, [1], keepdim=True)
    return neg_cent1 + neg_cent2 + neg_cent3 + neg_cent4


def align(
    z_p: torch.Tensor,
    m_p: torch.Tensor,
    logs_p: torch.Tensor,
    x_lengths: torch.Tensor,
    y_mask: torch.Tensor,
    search: Callable = search_indices,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Monotonic alignment in float32 without gradient: (indices ``[B, T_y]`` int64, durations ``[B, 1, T_x]`` float32).

    ``search(value [B, T_y, T_x], y_lengths [B], x_lengths [B]) -> indices [B, T_y]`` is
    a ``trainer.align`` back-end; durations count the frames inside ``y_mask`` that
    each text position holds. Raises what ``search`` raises (ValueError when an item
    has more text positions than frames).
    """
    with torch.no_grad(), torch.autocast(z_p.device.type, enabled=False):
        y_lengths = y_mask.sum((1, 2)).long()
        indices = search(neg_cross_entropy(z_p, m_p, logs_p), y_lengths, x_lengths)
        return indices, count_frames(indices, y_mask, m_p.shape[2])


def count_frames(indices: torch.Tensor, y_mask: torch.Tensor, text_length: int) -> torch.Tensor:
    """Frames per text position ``[B, 1, T_x]`` float32 from ``indices`` ``[B, T_y]``.

    Frames outside ``y_mask`` are not counted; one scatter-add on ``indices``' device.
    """
    counts = torch.zeros(indices.shape[0], text_length, device=indices.device)
    return counts.scatter_add_(1, indices, y_mask[:, 0].float()).unsqueeze(1)


def expand(stats: torch.Tensor, indices: torch.Tensor, y_mask: torch.Tensor) -> torch.Tensor:
    """Per-phoneme ``[B, C, T_x]`` -> per-frame ``[B, C, T_y]`` float32 through one text index per frame.

    Gathered in float32 (cast first): gather's backward sums the gradients of a
    phoneme's frames, and under bf16 autocast that sum stays in float32.
    """
    index = indices.unsqueeze(1).expand(-1, stats.shape[1], -1)
    return stats.float().gather(2, index) * y_mask


def duration_loss(model, x: torch.Tensor, x_mask: torch.Tensor, w: torch.Tensor, g) -> torch.Tensor:
    """Duration loss per item ``[B]`` for durations ``w`` ``[B, 1, T_x]``, divided by the batch's text positions.

    Stochastic predictor: its variational NLL bound (VITS, sec. 2.3); deterministic: the
    squared error of log-durations (Piper's ``SynthesizerTrn.forward``).
    """
    if model.config.use_sdp:
        return model.dp(x, x_mask, w, g=g) / torch.sum(x_mask)
    logw = torch.log(w + 1e-6) * x_mask
    return torch.sum((model.dp(x, x_mask, g=g) - logw) ** 2, [1, 2]) / torch.sum(x_mask)


def random_segments(
    x: torch.Tensor, lengths: torch.Tensor, frames: int, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """A random window of ``frames`` frames per item: ``x`` ``[B, C, T]`` -> (``[B, C, frames]``, starts ``[B]``).

    Starts are drawn as Piper draws them (``torch.rand([B]) * (length - frames + 1)``), but on
    ``x``'s device (on the CPU the same numbers; on a GPU no host-to-device copy);
    past an item's end the window holds zeros. ``generator`` must be on ``x``'s device.
    """
    draws = torch.rand([x.shape[0]], generator=generator, device=x.device)
    starts = (draws * (lengths - frames + 1)).long()
    return slice_segments(x, starts, frames), starts


def slice_segments(x: torch.Tensor, starts: torch.Tensor, frames: int) -> torch.Tensor:
    """Windows ``x[b, :, starts[b] : starts[b] + frames]`` as one gather ``[B, C, frames]`` (zeros past the end)."""
    starts = starts.clamp_min(0)
    x = F.pad(x, (0, frames))
    index = (starts[:, None] + torch.arange(frames, device=x.device)[None, :]).unsqueeze(1)
    return x.gather(2, index.expand(-1, x.shape[1], -1))


def generator_forward(
    model,
    phoneme_ids: torch.Tensor,
    phoneme_lengths: torch.Tensor,
    spec: torch.Tensor,
    spec_lengths: torch.Tensor,
    sid: torch.Tensor | None,
    segment_frames: int,
    search: Callable = search_indices,
) -> GeneratorOutput:
    """One training forward of an ``engines.torch.vits.models.Synthesizer``.

    Args:
        phoneme_ids: ``[B, T_x]`` int64; phoneme_lengths ``[B]``.
        spec: linear spectrogram ``[B, n_fft // 2 + 1, T_y]``; spec_lengths ``[B]``.
        sid: speaker ids ``[B]`` or None.
        segment_frames: decoder window (Piper: ``segment_size // hop_length`` = 32).
        search: the compact MAS back-end (``trainer.align.search_indices`` signature).
    Raises:
        ValueError: from the search, when an item has more phonemes than frames.
    """
    x, m_p, logs_p, x_mask = model.enc_p(phoneme_ids, phoneme_lengths)
    g = model.emb_g(sid).unsqueeze(-1) if model.config.num_speakers > 1 else None
    z, m_q, logs_q, y_mask = model.enc_q(spec, spec_lengths, g=g)
    z_p = model.flow(z, y_mask, g=g)
    indices, w = align(z_p, m_p, logs_p, phoneme_lengths, y_mask, search)
    l_length = duration_loss(model, x, x_mask, w, g)
    m_p, logs_p = expand(m_p, indices, y_mask), expand(logs_p, indices, y_mask)
    z_slice, ids_slice = random_segments(z, spec_lengths, segment_frames)
    audio = model.dec(z_slice, g=g)
    return GeneratorOutput(audio, l_length, ids_slice, x_mask, y_mask, z, z_p, m_p, logs_p, m_q, logs_q, indices, w)
