"""Two more losses on the decoder, each weighted by its setting (``TrainingConfig.stft_loss``, ``prior_mel``: 0.5 for
a fine-tune, 0, off, from scratch; ``trainer.run.train``).

VITS trains the decoder on the posterior's latent ``z`` alone (Kim et al. 2021, sec. 2.1), with a mel L1 and the
adversarial losses; at inference it decodes the prior's latent through the reversed flow instead. A fine-tune on
a few hundred clips moves the decoder towards the posterior's latents of those clips, and how clean the voice
stays is set there (docs/benchmarks.md "Fine-tuning quality").

- :func:`multi_resolution_stft`: spectral convergence plus log-magnitude L1 at three STFT resolutions (Yamamoto
  et al. 2020, "Parallel WaveGAN", sec. 2.3, eq. 4-6), a check on spectral detail that the 80-band mel leaves
  free.
- :func:`decoded_from_prior`: the batch's segment decoded from the prior's latent at the batch's own alignment
  (the prior's mean plus its noise, through the reversed flow, without gradient to them), so the decoder is also
  trained on what it is given when the voice speaks; ``generator_losses`` scores it by the same mel L1.
"""

from __future__ import annotations

import torch

from trainer.gan.generator_forward import slice_segments

STFT_RESOLUTIONS = ((512, 128, 512), (1024, 256, 1024), (2048, 512, 2048))
"""``(n_fft, hop, window)`` of each resolution: a quarter-window hop at three sizes around the mel's 1024 (Parallel
WaveGAN's three are 512/1024/2048 with other hops; these measured in docs/benchmarks.md)."""
MAGNITUDE_FLOOR = 1e-7
"""The magnitude floor before the logarithm (of samples in [-1, 1])."""
PRIOR_NOISE_SCALE = 0.667
"""The prior's noise when decoding from it: Piper's default ``noise_scale``, as measured (docs/benchmarks.md
"Fine-tuning quality"). A fine-tune speaks with less (``TrainingConfig.voice_noise_scale``, 0.333: latents nearer
the prior's mean, within the spread trained on here); training at that noise has not been measured."""


def multi_resolution_stft(y_hat: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Spectral convergence ``||S - S_hat||_F / ||S||_F`` plus ``mean |log S - log S_hat|`` (S: STFT
    magnitudes), averaged over :data:`STFT_RESOLUTIONS` (Yamamoto et al. 2020, eq. 4-6).

    Args:
        y_hat, y: generated and real audio ``[B, N]`` float32 (samples).

    Returns:
        A float32 scalar; 0 for identical inputs.
    """
    total = y.new_zeros(())
    for n_fft, hop, win in STFT_RESOLUTIONS:
        window = torch.hann_window(win, device=y.device)
        fake, real = (_magnitude(a, n_fft, hop, win, window) for a in (y_hat, y))
        converge = torch.linalg.norm(real - fake) / torch.linalg.norm(real).clamp_min(MAGNITUDE_FLOOR)
        total = total + converge + torch.mean(torch.abs(fake.log() - real.log()))
    return total / len(STFT_RESOLUTIONS)


def _magnitude(audio: torch.Tensor, n_fft: int, hop: int, win: int, window: torch.Tensor) -> torch.Tensor:
    """``|STFT(audio)|`` ``[B, n_fft // 2 + 1, frames]``, floored at :data:`MAGNITUDE_FLOOR`."""
    spectrum = torch.stft(audio, n_fft, hop, win, window, return_complex=True)
    return spectrum.abs().clamp_min(MAGNITUDE_FLOOR)


def decoded_from_prior(model, out, speaker_ids, segment_frames: int) -> torch.Tensor:
    """The segment ``out`` decoded from the prior instead of the posterior: ``z_p = m_p + eps * exp(logs_p) *
    PRIOR_NOISE_SCALE`` at the alignment the batch found, through the reversed flow (no gradient: only the decoder
    learns from it), cut to the same segment.

    Args:
        model: the ``Synthesizer``. out: the batch's ``trainer.gan.generator_forward.GeneratorOutput`` (``m_p``,
            ``logs_p`` expanded to frames ``[B, C, T_y]``, ``y_mask``, ``ids_slice``). speaker_ids: ``[B]`` or
            ``None``. segment_frames: the segment's length in frames.

    Returns:
        Audio ``[B, 1, segment_frames * hop_length]``.
    """
    g = model.speaker(speaker_ids)
    with torch.no_grad():
        noise = torch.randn_like(out.m_p) * torch.exp(out.logs_p) * PRIOR_NOISE_SCALE
        z_p = (out.m_p + noise) * out.y_mask
        z = model.flow_reverse(z_p, out.y_mask, g) * out.y_mask
    return model.decode(slice_segments(z, out.ids_slice, segment_frames), g)
