"""Recovering the training-only parts of a generator imported from a Piper ONNX voice.

An ONNX voice holds the inference path only. Missing: the posterior encoder
(``enc_q``) and the stochastic duration predictor's training-only part
(``dp.post_pre``, ``dp.post_proj``, ``dp.post_convs``, ``dp.post_flows`` and
``dp.flows.1``, which inference skips). Before fine-tuning they are fitted to the
voice itself, everything else frozen:

1. the voice speaks ``lines`` (the dataset's own texts): for each, its decoder input
   ``z`` ``[C, T]``, the durations ``[T_x]`` its duration predictor chose, and the audio;
2. a warm start: ``enc_q`` learns to map that audio's linear spectrogram to ``z``
   (Gaussian negative log-likelihood of ``z`` under the posterior ``(m_q, logs_q)``) and
   the duration predictor's training-only part learns those durations (its variational
   NLL bound, as in training). Cheap (no decoder), but not the training objective: the
   voice spoke with ``noise_scale`` 0.667, so the posterior learns a spread 0.67-0.73
   of the prior's in the channels the audio says nothing about, and the KL between
   them stays near 31 per frame (joe, 60 lines);
3. the fit proper: the training objective itself (``trainer.gan.generator_losses``: mel L1
   through the frozen decoder, KL to the frozen prior through the frozen flow after
   MAS, the duration NLL), on batches of ``batch_size`` lines. Here the posterior takes
   the prior's spread where the audio carries nothing and stays sharp where it does
   (joe: held-out KL 31 -> about 10 in 60-120 steps, a third of it in a handful of channels).

The fit is reported on held-out lines: the KL the run starts from, mel L1 between the
voice's audio and the audio decoded from the recovered posterior's mean, and the
duration NLL. The discriminators start fresh; the system warms them up before the
generator moves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import torch
import torch.nn.functional as F

from trainer.data.datamodule import Batch, collate
from trainer.gan.generator_losses import generator_losses
from trainer.gan.mel import mel_spectrogram, spectrogram

TRAINING_ONLY = ("dp.post_pre.", "dp.post_proj.", "dp.post_convs.", "dp.post_flows.", "dp.flows.1.")
"""The duration predictor's parameters that inference skips (name prefixes): not in an ONNX voice."""
TRAINABLE = ("enc_q.", *TRAINING_ONLY)
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
    """How well the recovered parts fit held-out lines: ``kl`` (KL(q || p) per frame, as the run's ``val_kl``),
    ``mel_l1`` (posterior mean -> decoder against the voice's audio, log-mel L1) and ``duration_nll`` (per
    text frame); the losses while fitting, first and last: the warm start's NLLs and the training objective."""

    mel_l1: float
    duration_nll: float
    kl: float = float("nan")
    posterior_loss: list[float] = field(default_factory=list)
    duration_loss: list[float] = field(default_factory=list)
    objective: list[float] = field(default_factory=list)


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
    config,
    *,
    warm_steps: int = 300,
    fit_steps: int = 60,
    batch_size: int = 4,
    held_out: int = 4,
    lr: float = 2e-4,
    progress: Progress | None = None,
) -> RecoveryReport:
    """Fit ``enc_q`` and the duration predictor's training-only part to ``examples``; returns the fit.

    Args:
        model: an imported ``Synthesizer``; only parameters under ``TRAINABLE`` change.
        config: the run's ``trainer.run.presets.TrainingConfig`` (loss weights, segment, mel settings; its
            decoder's own losses, ``stft_loss`` and ``prior_mel``, left out: the decoder is held here).
        warm_steps: NLL steps of one line each (the warm start); fit_steps: steps of the training
            objective on ``batch_size`` lines each.
        held_out: examples kept for the report (at least one when there are two or more).
        progress: called before each step (``warm_steps + fit_steps`` in all) and once after them.
    """
    config = vits_objective(config)
    held = max(1, min(held_out, len(examples) // 4)) if len(examples) > 1 else 0
    fit_on, check_on = examples[held:] or examples, examples[:held] or examples
    trainable = [p for name, p in model.named_parameters() if name.startswith(TRAINABLE)]
    for name, parameter in model.named_parameters():
        parameter.requires_grad_(name.startswith(TRAINABLE))
    optimizer = torch.optim.AdamW(trainable, lr, betas=(0.8, 0.99), eps=1e-9)
    report, total = RecoveryReport(0.0, 0.0), warm_steps + fit_steps
    was_training = model.training
    model.train()
    try:
        for step in range(warm_steps):
            if progress:
                progress(step, total)
            _warm_step(model, fit_on[step % len(fit_on)], optimizer, report, last=step == warm_steps - 1)
        for step in range(fit_steps):
            if progress:
                progress(warm_steps + step, total)
            chosen = [fit_on[(step * batch_size + i) % len(fit_on)] for i in range(min(batch_size, len(fit_on)))]
            loss = generator_losses(model, _batch(chosen, model), config).total(config)
            _learn(optimizer, loss)
            if step in (0, fit_steps - 1):
                report.objective.append(float(loss.detach()))
        if progress:
            progress(total, total)
        model.eval()
        report.mel_l1, report.duration_nll = _check(model, check_on, config.sample_rate)
        report.kl = held_out_kl(model, check_on, config)
    finally:
        model.train(was_training)
        for parameter in model.parameters():
            parameter.requires_grad_(True)
    return report


def _warm_step(model, example: Example, optimizer, report: RecoveryReport, *, last: bool) -> None:
    """One NLL step of the warm start on one line (its first and last losses go into ``report``)."""
    posterior, duration = _posterior_nll(model, example), _duration_nll(model, example)
    _learn(optimizer, posterior + duration)
    if last or not report.posterior_loss:
        report.posterior_loss.append(float(posterior.detach()))
        report.duration_loss.append(float(duration.detach()))


def _learn(optimizer, loss: torch.Tensor) -> None:
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()


def _batch(examples: list[Example], model) -> Batch:
    """``examples`` padded into a training ``Batch`` by the data module's own ``collate`` (speaker 0 where the
    voice has several), on the examples' device."""
    hop = examples[0].audio.shape[0] // examples[0].z.shape[-1]
    speaker = 0 if model.config.num_speakers > 1 else None
    items = []
    for index, example in enumerate(examples):
        spec = _spec(example)[0]
        frames = min(spec.shape[-1], example.z.shape[-1])
        items.append((example.phoneme_ids, spec[:, :frames], example.audio[: frames * hop], speaker, index))
    return collate(items).to(examples[0].audio.device)


def vits_objective(config):
    """``config`` without the decoder's own losses (``stft_loss``, ``prior_mel``: ``trainer.gan.decoder_losses``):
    the recovery holds the decoder, so it fits VITS's mel, KL and duration terms only (and its cache stays valid
    whatever those weights are)."""
    return replace(config, stft_loss=0.0, prior_mel=0.0)


@torch.no_grad()
def held_out_kl(model, examples: list[Example], config) -> float:
    """Mean KL(q || p) per frame over ``examples`` (one line each, MAS as in training): the ``val_kl`` a run
    on these lines would start from."""
    config = vits_objective(config)
    kls = [float(generator_losses(model, _batch([e], model), config).kl) for e in examples]
    return sum(kls) / len(kls)


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
