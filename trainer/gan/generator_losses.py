"""The generator's training losses for one batch: mel L1 on the decoded segment, KL, duration.

One definition serves the GAN step (``trainer.gan.system``) and the recovery of an ONNX
start's training-only parts (``trainer.start.recovery``), which fits them with this same
objective. The target audio and spectrogram are cut to the generator's segment (the
spectrogram before the mel projection, so only the segment is projected); mel L1 and
KL run in float32 whatever the autocast dtype (VITS, Kim et al. 2021, eq. 2-3 and
sec. 2.5; weights ``c_mel`` 45 and ``c_kl`` 1 from ``trainer.run.presets``). Two more losses
on the decoder are added where their weights are set (``trainer.gan.decoder_losses``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from trainer.align import search_indices
from trainer.gan import losses
from trainer.gan.decoder_losses import decoded_from_prior, multi_resolution_stft
from trainer.gan.generator_forward import GeneratorOutput, generator_forward, slice_segments
from trainer.gan.mel import mel_spectrogram, spec_to_mel


@dataclass(frozen=True, kw_only=True)
class GeneratorLosses:
    """One batch's generator forward and losses.

    Attributes:
        out: the forward (``trainer.gan.generator_forward.GeneratorOutput``).
        y, y_hat: real and generated segments ``[B, 1, segment_size]`` (samples).
        mel: mel L1 between them (log-mel, float32 scalar); kl: KL(q || p) per frame; dur: duration loss.
        stft: the multi-resolution STFT loss between them (``trainer.gan.decoder_losses``), where
            ``config.stft_loss`` is set, else ``None``.
        prior_mel: mel L1 between the segment decoded from the prior and the real one, where ``config.prior_mel``
            is set, else ``None``.
    """

    out: GeneratorOutput
    y: torch.Tensor
    y_hat: torch.Tensor
    mel: torch.Tensor
    kl: torch.Tensor
    dur: torch.Tensor
    stft: torch.Tensor | None = None
    prior_mel: torch.Tensor | None = None

    def total(self, config) -> torch.Tensor:
        """``mel * c_mel + kl * c_kl + dur``, plus ``(stft * stft_loss + prior_mel * prior_mel) * c_mel`` where
        those are set (``config``: a ``trainer.run.presets.TrainingConfig``)."""
        total = self.mel * config.c_mel + self.kl * config.c_kl + self.dur
        if self.stft is not None:
            total = total + self.stft * config.stft_loss * config.c_mel
        if self.prior_mel is not None:
            total = total + self.prior_mel * config.prior_mel * config.c_mel
        return total

    def metrics(self) -> dict[str, torch.Tensor]:
        """The losses to log, detached: ``mel``, ``kl``, ``dur``, and ``stft``, ``prior_mel`` where computed."""
        found = {"mel": self.mel, "kl": self.kl, "dur": self.dur, "stft": self.stft, "prior_mel": self.prior_mel}
        return {name: value.detach() for name, value in found.items() if value is not None}


def generator_losses(model, batch, config, search: Callable = search_indices) -> GeneratorLosses:
    """The generator losses of ``batch`` (a ``trainer.data.datamodule.Batch``) for ``model`` (a ``Synthesizer``).

    ``search`` is the MAS back-end (``trainer.align.search_indices``' signature). Raises
    what ``generator_forward`` raises (ValueError: an item with more phonemes than frames).
    """
    c = config
    out = generator_forward(
        model,
        batch.phoneme_ids,
        batch.phoneme_lengths,
        batch.spec,
        batch.spec_lengths,
        batch.speaker_ids,
        c.segment_frames,
        search=search,
    )
    y = slice_segments(batch.audio, out.ids_slice * c.hop_length, c.model.segment_size)
    y_hat = out.audio[..., : y.shape[-1]]
    with torch.autocast(y.device.type, enabled=False):
        spec = slice_segments(batch.spec, out.ids_slice, c.segment_frames)  # crop, then project
        y_mel = spec_to_mel(spec, c.sample_rate, c.n_mels, c.mel_fmin, c.mel_fmax)
        settings = (c.sample_rate, c.n_fft, c.hop_length, c.win_length, c.n_mels, c.mel_fmin, c.mel_fmax)
        y_hat_mel = mel_spectrogram(y_hat.squeeze(1).float(), *settings)
        mel = F.l1_loss(y_hat_mel, y_mel)
        kl = losses.kl_loss(out.z_p, out.logs_q, out.m_p, out.logs_p, out.y_mask)
        dur = torch.sum(out.l_length.float())
        stft = multi_resolution_stft(y_hat.squeeze(1).float(), y.squeeze(1).float()) if c.stft_loss > 0 else None
    prior_mel = None
    if c.prior_mel > 0:
        y_prior = decoded_from_prior(model, out, batch.speaker_ids, c.segment_frames)[..., : y.shape[-1]]
        with torch.autocast(y.device.type, enabled=False):
            prior_mel = F.l1_loss(mel_spectrogram(y_prior.squeeze(1).float(), *settings), y_mel)
    return GeneratorLosses(out=out, y=y, y_hat=y_hat, mel=mel, kl=kl, dur=dur, stft=stft, prior_mel=prior_mel)
