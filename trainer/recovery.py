"""Recovering the training-only parts of a generator imported from a Piper ONNX voice.

An ONNX voice holds the inference path only. Missing: the posterior encoder
(``enc_q``) and the stochastic duration predictor's training-only part
(``dp.post_pre``, ``dp.post_proj``, ``dp.post_convs``, ``dp.post_flows`` and
``dp.flows.1``, which inference skips). Before fine-tuning they are fitted to the
voice itself, everything else frozen:

1. the voice speaks ``lines`` (the dataset's own texts): for each, its decoder input
   ``z`` ``[C, T]``, the durations ``[T_x]`` its duration predictor chose, and the audio;
2. ``enc_q`` learns to map that audio's linear spectrogram to ``z`` (Gaussian
   negative log-likelihood of ``z`` under the posterior ``(m_q, logs_q)``);
3. the duration predictor's training-only part learns those durations (its
   variational NLL bound, as in training).

The fit is reported on held-out lines: mel L1 between the voice's audio and the
audio decoded from the recovered posterior's mean, and the duration NLL. The
discriminator starts fresh; the system warms it up before the generator moves
(``TrainingConfig.d_warmup_steps``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from trainer.mel import mel_spectrogram, spectrogram

TRAINABLE = ("enc_q.", "dp.post_pre.", "dp.post_proj.", "dp.post_convs.", "dp.post_flows.", "dp.flows.1.")
"""Parameter name prefixes the recovery trains."""

Progress = Callable[[int, int], None]
"""``progress(done, total)``, called before each line spoken or step taken (``recover`` calls it once more
with ``done == total`` before checking the fit on the held-out lines)."""


@dataclass
class Example:
    """One line the voice spoke: ``phoneme_ids`` ``[T_x]``, ``durations`` ``[T_x]`` (frames), ``z`` ``[C, T]``,
    ``audio`` ``[T * hop_length]``."""

    phoneme_ids: torch.Tensor
    durations: torch.Tensor
    z: torch.Tensor
    audio: torch.Tensor


@dataclass
class RecoveryReport:
    """How well the recovered parts fit held-out lines: ``mel_l1`` (posterior -> decoder against the voice's
    audio, log-mel L1) and ``duration_nll`` (per text frame); the losses during fitting, first and last."""

    mel_l1: float
    duration_nll: float
    posterior_loss: list[float] = field(default_factory=list)
    duration_loss: list[float] = field(default_factory=list)


@torch.no_grad()
def speak(
    model, phoneme_ids: list[list[int]], noise_scale: float = 0.667, progress: Progress | None = None
) -> list[Example]:
    """Let the (imported) generator speak each line (speaker 0); keep what the recovery needs."""
    examples = []
    for done, ids in enumerate(phoneme_ids):
        if progress:
            progress(done, len(phoneme_ids))
        x = torch.tensor([ids], device=next(model.parameters()).device)
        prior = model.prior(x, torch.tensor([len(ids)], device=x.device), None, noise_scale, 1.0, 0.8)
        frames = int(prior.y_mask.sum())
        z = model.flow_reverse(prior.z_p[..., :frames], prior.y_mask[..., :frames], prior.g)
        audio = model.decode(z, prior.g)
        examples.append(Example(x[0], prior.durations[0, : len(ids)], z[0], audio[0, 0]))
    return examples


def recover(
    model,
    examples: list[Example],
    sample_rate: int,
    steps: int = 300,
    held_out: int = 4,
    lr: float = 2e-4,
    progress: Progress | None = None,
) -> RecoveryReport:
    """Fit ``enc_q`` and the duration predictor's training-only part to ``examples``; returns the fit.

    Only parameters under ``TRAINABLE`` change. ``held_out`` examples (at least one
    when there are two or more) are kept for the report.
    """
    held = max(1, min(held_out, len(examples) // 4)) if len(examples) > 1 else 0
    fit_on, check_on = examples[held:] or examples, examples[:held] or examples
    trainable = [p for name, p in model.named_parameters() if name.startswith(TRAINABLE)]
    for name, parameter in model.named_parameters():
        parameter.requires_grad_(name.startswith(TRAINABLE))
    optimizer = torch.optim.AdamW(trainable, lr, betas=(0.8, 0.99), eps=1e-9)
    report = RecoveryReport(0.0, 0.0)
    was_training = model.training
    model.train()
    try:
        for step in range(steps):
            if progress:
                progress(step, steps)
            example = fit_on[step % len(fit_on)]
            posterior, duration = _posterior_nll(model, example), _duration_nll(model, example)
            optimizer.zero_grad(set_to_none=True)
            (posterior + duration).backward()
            optimizer.step()
            if step in (0, steps - 1):
                report.posterior_loss.append(float(posterior.detach()))
                report.duration_loss.append(float(duration.detach()))
        if progress:
            progress(steps, steps)
        model.eval()
        report.mel_l1, report.duration_nll = _check(model, check_on, sample_rate)
    finally:
        model.train(was_training)
        for parameter in model.parameters():
            parameter.requires_grad_(True)
    return report


def _spec(example: Example) -> torch.Tensor:
    return spectrogram(example.audio[None])  # [1, n_fft // 2 + 1, T]


def _posterior_nll(model, example: Example) -> torch.Tensor:
    spec = _spec(example)
    frames = min(spec.shape[-1], example.z.shape[-1])
    lengths = torch.tensor([frames], device=spec.device)
    _, m_q, logs_q, _ = model.enc_q(spec[..., :frames], lengths, g=model.speaker(None))
    z = example.z[None, :, :frames]
    return torch.mean(0.5 * ((z - m_q) * torch.exp(-logs_q)) ** 2 + logs_q)


def _duration_nll(model, example: Example) -> torch.Tensor:
    x = example.phoneme_ids[None]
    lengths = torch.tensor([x.shape[1]], device=x.device)
    with torch.no_grad():
        h, _, _, x_mask = model.enc_p(x, lengths)
    w = example.durations[None, None].to(h.dtype)
    return model.dp(h, x_mask, w, g=model.speaker(None)).sum() / x_mask.sum()


@torch.no_grad()
def _check(model, examples: list[Example], sample_rate: int) -> tuple[float, float]:
    mel_l1 = duration = 0.0
    for example in examples:
        spec, g = _spec(example), model.speaker(None)
        _, m_q, _, _ = model.enc_q(spec, torch.tensor([spec.shape[-1]], device=spec.device), g=g)
        audio = model.decode(m_q, g)[0, 0]
        n = min(len(audio), len(example.audio))
        ours, theirs = (
            mel_spectrogram(audio[None, :n], sample_rate),
            mel_spectrogram(example.audio[None, :n], sample_rate),
        )
        mel_l1 += float(F.l1_loss(ours, theirs))
        duration += float(_duration_nll(model, example))
    return mel_l1 / len(examples), duration / len(examples)
