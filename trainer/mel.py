"""Spectrograms as VITS and Piper compute them (always in float32).

The linear spectrogram is the magnitude STFT of audio reflect-padded by
``(n_fft - hop_length) / 2`` on both sides, Hann window, not centred, with 1e-6
added under the square root (``spectrogram_torch`` in the VITS reference code,
Kim et al., ICML 2021, which Piper's trainer keeps). It has ``N // hop_length``
frames for ``N`` samples when ``N`` is a multiple of ``hop_length``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

_WINDOWS: dict[tuple[int, torch.device], torch.Tensor] = {}


def _window(win_length: int, device: torch.device) -> torch.Tensor:
    key = (win_length, device)
    if key not in _WINDOWS:
        _WINDOWS[key] = torch.hann_window(win_length, device=device)
    return _WINDOWS[key]


def spectrogram(audio: torch.Tensor, n_fft: int = 1024, hop_length: int = 256, win_length: int = 1024) -> torch.Tensor:
    """Linear magnitude spectrogram.

    Args:
        audio: ``[B, N]`` samples in [-1, 1] (computed in float32 whatever the dtype).
        n_fft, hop_length, win_length: samples (Piper: 1024, 256, 1024).
    Returns:
        ``[B, n_fft // 2 + 1, frames]`` float32, ``frames = (N + 2 * pad - n_fft) // hop_length + 1``.
    Raises:
        RuntimeError: audio shorter than the padding allows (torch's reflect pad).
    """
    audio = audio.float()
    pad = (n_fft - hop_length) // 2
    padded = F.pad(audio.unsqueeze(1), (pad, pad), mode="reflect").squeeze(1)
    spec = torch.stft(
        padded,
        n_fft,
        hop_length=hop_length,
        win_length=win_length,
        window=_window(win_length, audio.device),
        center=False,
        normalized=False,
        onesided=True,
        return_complex=True,
    )
    return torch.sqrt(spec.real.square() + spec.imag.square() + 1e-6)
