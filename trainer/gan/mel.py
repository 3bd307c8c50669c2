"""Spectrograms and mel spectrograms as VITS and Piper compute them (always in float32).

The linear spectrogram is the magnitude STFT of audio reflect-padded by
``(n_fft - hop_length) / 2`` on both sides, Hann window, not centred, with 1e-6
added under the square root (``spectrogram_torch`` in the VITS reference code,
Kim et al., ICML 2021, which Piper's trainer keeps). It has ``N // hop_length``
frames for ``N`` samples when ``N`` is a multiple of ``hop_length``.

The mel spectrogram is ``log(max(M @ spec, 1e-5))`` with ``M`` the Slaney-style
mel filterbank (Slaney, "Auditory Toolbox", 1998: linear below 1 kHz, logarithmic
above; each triangle normalized to unit area), which is what ``librosa.filters.mel``
computes by default and what Piper's trainer uses.
"""

from __future__ import annotations

import functools

import numpy as np
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


def _hz_to_mel(hz: np.ndarray | float) -> np.ndarray:
    """Slaney's mel scale: 3 mels per 200 Hz below 1 kHz, then logarithmic (27 mels per factor 6.4)."""
    hz = np.asarray(hz, dtype=np.float64)
    mel = hz / (200.0 / 3)
    log_region = hz >= 1000.0
    return np.where(log_region, 15.0 + np.log(np.maximum(hz, 1e-10) / 1000.0) / (np.log(6.4) / 27.0), mel)


def _mel_to_hz(mel: np.ndarray) -> np.ndarray:
    mel = np.asarray(mel, dtype=np.float64)
    hz = mel * (200.0 / 3)
    return np.where(mel >= 15.0, 1000.0 * np.exp((np.log(6.4) / 27.0) * (mel - 15.0)), hz)


def mel_filterbank(
    sample_rate: int, n_fft: int = 1024, n_mels: int = 80, fmin: float = 0.0, fmax: float | None = None
) -> np.ndarray:
    """Slaney-normalized triangular mel filters ``[n_mels, n_fft // 2 + 1]`` float32 (frequencies in Hz)."""
    fmax = sample_rate / 2 if fmax is None else fmax
    fft_hz = np.linspace(0, sample_rate / 2, n_fft // 2 + 1)
    edges = _mel_to_hz(np.linspace(_hz_to_mel(fmin), _hz_to_mel(fmax), n_mels + 2))
    widths = np.diff(edges)
    ramps = edges[:, None] - fft_hz[None, :]
    lower = -ramps[:-2] / widths[:-1, None]
    upper = ramps[2:] / widths[1:, None]
    weights = np.maximum(0, np.minimum(lower, upper)) * (2.0 / (edges[2:] - edges[:-2]))[:, None]
    return weights.astype(np.float32)


def spec_to_mel(spec: torch.Tensor, sample_rate: int, n_mels: int = 80, fmin: float = 0.0, fmax=None) -> torch.Tensor:
    """Log-mel from a linear spectrogram: ``[B, n_fft // 2 + 1, T]`` -> ``[B, n_mels, T]`` float32."""
    bank = _bank(sample_rate, (spec.shape[1] - 1) * 2, n_mels, fmin, fmax, spec.device)
    return torch.log(torch.clamp(torch.matmul(bank, spec.float()), min=1e-5))


@functools.lru_cache(maxsize=32)
def _bank(sample_rate, n_fft, n_mels, fmin, fmax, device) -> torch.Tensor:
    return torch.from_numpy(mel_filterbank(sample_rate, n_fft, n_mels, fmin, fmax)).to(device)


def mel_spectrogram(
    audio: torch.Tensor,
    sample_rate: int,
    n_fft: int = 1024,
    hop_length: int = 256,
    win_length: int = 1024,
    n_mels: int = 80,
    fmin: float = 0.0,
    fmax: float | None = None,
) -> torch.Tensor:
    """Log-mel spectrogram of audio ``[B, N]`` -> ``[B, n_mels, frames]`` float32 (see :func:`spectrogram`)."""
    return spec_to_mel(spectrogram(audio, n_fft, hop_length, win_length), sample_rate, n_mels, fmin, fmax)
