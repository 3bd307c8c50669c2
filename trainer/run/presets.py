"""Training presets: the generator's size (``engines.torch.vits.config.VitsConfig``) and the training settings.

``test`` is tiny, for tests and smoke runs (a CPU epoch in seconds; its
discriminator is narrower than Piper's, so its checkpoints are not Piper's shape).
``x-low``, ``low``, ``medium`` and ``high`` are Piper's qualities with Piper's
training settings (piper1-gpl ``VitsModel`` defaults: AdamW at 2e-4 / 1e-4, betas
(0.8, 0.99) / (0.5, 0.9), ``c_mel`` 45, ``c_kl`` 1; VITS, Kim et al. 2021, sec. 4), the rates annealed
exponentially per epoch to 5% of their start at the last epoch as piper1-gpl 1.8.0 does (``trainer.gan.lr_schedule``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from engines.torch.vits.config import VitsConfig

QUALITIES = ("x-low", "low", "medium", "high")
PRESETS = ("test", *QUALITIES)
"""Every preset name :func:`preset` takes: ``test`` and Piper's qualities."""
SMOKE_TEST = "smoke test, not a usable voice"
"""How a voice or run of the ``test`` preset is labelled wherever it shows (it only checks the pipeline)."""
ABOUT = {
    "test": "Smoke test only, not a usable voice: 0.14 M parameters, 2 epochs by default, minutes on a CPU.",
    "x-low": "The smallest Piper voice, 16,000 Hz: 7.1 M parameters, 1,000 epochs by default, hours on a GPU.",
    "low": "Piper low, 16,000 Hz: 23.7 M parameters, 1,000 epochs by default, hours on a GPU.",
    "medium": "The usual choice, as the embedded voice: 23.7 M parameters, 1,000 epochs by default, hours on a GPU.",
    "high": "The largest Piper voice: 36.3 M parameters, 1,000 epochs by default, the slowest: hours on a GPU.",
}
"""One line per preset: what it is for, its generator's size (parameters, ``trainer.run.disk.network_size``),
its default epochs (the Epochs field may say others) and the time to expect."""
DETAILS = {
    "test": "It checks the dataset and the pipeline end to end: 16 clips took 2.5 min on 2 shared CPU cores.",
    "x-low": "Fastest to train and to speak; the plainest sound.",
    "medium": "On a 2-core CPU one epoch of 240 clips took 6 to 23 min (docs/benchmarks.md, Fine-tuning quality).",
    "high": "Slowest to train and to speak.",
}
"""More about a preset, for its tooltip."""
START_SIZE = (
    "Starting from a voice, the generator keeps that voice's size and rate whatever the preset (a training cache "
    "keeps its rate too)."
)


def explain(name: str) -> str:
    """A preset's tooltip: its line (``ABOUT``), its details and how a start voice's size wins."""
    return " ".join(part for part in (ABOUT[name], DETAILS.get(name, ""), START_SIZE) if part)


def is_smoke_test(preset_name: str | None) -> bool:
    """Whether a run or voice of ``preset_name`` is a smoke test (the ``test`` preset), not a usable voice."""
    return preset_name == "test"


def trained_preset(voice_config: Mapping[str, Any]) -> str | None:
    """The preset a voice was trained with, as its Piper config records it (``"training": {"preset": …}``,
    written into a run's ``config.json`` and kept by export); ``None`` for a voice that does not say."""
    training = voice_config.get("training")
    return training.get("preset") if isinstance(training, dict) else None


def smoke_note(voice_config: Mapping[str, Any]) -> str:
    """``", smoke test, not a usable voice"`` for a voice trained with the ``test`` preset (added to its label
    wherever voices are listed), else ``""``."""
    return f", {SMOKE_TEST}" if is_smoke_test(trained_preset(voice_config)) else ""


SMOKE_MARK = "⚠ smoke test: "
"""How a smoke-test voice's label begins in voice lists, short enough for a closed picker to show it."""


def smoke_prefix(voice_config: Mapping[str, Any]) -> str:
    """:data:`SMOKE_MARK` for a voice trained with the ``test`` preset (put first in its label wherever voices
    are listed, where a closed combo box cannot cut it off), else ``""``."""
    return SMOKE_MARK if is_smoke_test(trained_preset(voice_config)) else ""


def about(name: str, from_voice: bool) -> str:
    """A preset's line (``ABOUT``) for the start chosen: starting from a voice, the generator keeps that voice's
    size and rate, so the preset's parameter count holds only from scratch and is said so, and its rate is not
    said."""
    line = ABOUT[name]
    if from_voice:
        line = re.sub(r"([\d.]+ M) parameters", r"the start voice's size (from scratch: \1)", line)
        line = line.replace(", 16,000 Hz:", ":")  # a start voice's rate wins too (trainer.start.points.run_rate)
    return line


@dataclass(frozen=True)
class TrainingConfig:
    """How to train (times in epochs, rates in 1/step, audio settings in Hz and samples).

    Attributes:
        model: the generator's hyperparameters.
        discriminator_width: channel multiplier of the discriminators (1.0 = Piper's).
        resolution_discriminator: three resolution discriminators (UnivNet's multi-resolution spectrogram
            discriminator, ``trainer.gan.discriminators.DiscriminatorR``) beside Piper's six, for adversarial
            feedback on spectral detail; they start fresh from any Piper start, so the discriminator warm-up runs
            (judged on them). A checkpoint with them no longer loads strictly into Piper's trainer. An experiment's
            setting (``--set resolution_discriminator=1``); off: Piper's discriminators alone. Measured on the target
            speaker (10 epochs from joe): OVRL at equal similarity the same as without them (3.17 at 0.69, 3.00 at
            0.77), the discriminator step 1.66x as long (docs/benchmarks.md "Fine-tuning quality").
        sample_rate, n_fft, hop_length, win_length, n_mels, mel_fmin, mel_fmax: audio and mel settings.
        batch_size: utterances per step (``None``: chosen from free memory on CUDA, 8 on the CPU).
        epochs: epochs to train.
        learning_rate, learning_rate_d, betas, betas_d, eps: AdamW's, the generator's and the discriminators'.
        lr_final_fraction: both rates at the last epoch as a fraction of their start, annealed exponentially once
            per epoch (``trainer.gan.lr_schedule``; 1.0 keeps them constant); ``None`` in a run made before the
            schedule, which keeps the fixed factors.
        lr_decay, lr_decay_d: fixed factors per epoch (ExponentialLR's ``gamma``; VITS's), used only where
            ``lr_final_fraction`` is ``None``.
        inference_lr_scale: the generator's inference path (``enc_p``, ``flow``, the duration predictor's
            inference part, ``emb_g``: ``trainer.gan.system.inference_named``) learns at this fraction of
            ``learning_rate`` when a run starts from a trained voice (a run from scratch: 1). Measured on joe
            fine-tuned on its own speech, mel + KL + duration losses, 30 steps: at the full rate the prior path
            moved 1.3% and the voice broke (MCD 2.1 -> 3.6 dB, a held-out line silent by step 30); at 0.1 it moved
            0.2% and MCD stayed at 2.9 dB (docs/benchmarks.md "Fine-tuning that keeps the voice").
        inference_anchor: how hard that inference path is pulled back to the start's weights after each step
            (``trainer.gan.anchor``: decoupled L2-SP, the pull per unit of its rate; 0: none, as from scratch). 1000
            holds it about 1/1000 from joe per weight: on the target speaker (10 epochs from joe) WER stayed at
            0.10-0.13 where the unanchored path reached 0.2-0.27, while similarity still rose to 0.83 (the path
            frozen: 0.74); joe on joe kept F0, WER and similarity and its OVRL (docs/benchmarks.md "Fine-tuning
            quality").
        text_lr_scale: the text encoder's (``enc_p``) share of the rate where it differs from the rest of the
            inference path's (``None``: ``inference_lr_scale``; the optimizer then has a third group).
        decoder_lr_scale: the decoder's (``dec``) share of the rate (1.0: the generator's; otherwise it learns in a
            group of its own, the optimizer's last, never anchored; 0 holds it at the start's weights). An
            experiment's setting (``--set decoder_lr_scale=...``): the decoder's adaptation is what costs a
            fine-tune its quality on the target speaker, and also what makes the voice the target's: held (0) for
            10 epochs from joe, similarity rose 0.575 -> 0.603 (the default: 0.763) while OVRL stayed 3.36-3.40
            (docs/benchmarks.md "Fine-tuning quality").
        stft_loss: the weight, times ``c_mel``, of a multi-resolution STFT loss on the decoded segment
            (``trainer.gan.decoder_losses``; Parallel WaveGAN's spectral convergence and log-magnitude terms); 0: off.
        prior_mel: the weight, times ``c_mel``, of the mel L1 of the segment decoded from the prior's latent (at the
            batch's alignment, through the reversed flow; only the decoder learns from it); 0: off. Both 0.5 for a
            fine-tune, 0 from scratch (``trainer.run.train``; not measured there). On the target speaker (30 epochs
            from joe) the run's epochs stayed 0.1-0.3 DNSMOS OVRL cleaner than without them at the same similarity,
            and taken to a strength 0.35-0.5 cleaner (similarity 0.852, WER 0.10, OVRL 3.13 against 2.61-2.75);
            joe on its own speech met every self-consistency target at every epoch; a generator epoch takes about
            35 % longer (docs/benchmarks.md "Fine-tuning quality", "Fine-tuning that keeps the voice").
        voice_noise_scale: the ``noise_scale`` the trained voice is spoken with: written into the run's
            ``config.json`` (``inference``), so its checkpoints, strengths and exports (and piper-tts and
            wyoming-piper reading them) speak with it; ``None``: the start voice's own (Piper's 0.667). 0.333 for a
            fine-tune (the prior's sampling temperature Glow-TTS speaks with: Kim et al. 2020, "Glow-TTS"), ``None``
            from scratch (not measured there). Measured on the target speaker: a fine-tune's renders are up to 0.1
            DNSMOS OVRL cleaner at 0.333 than at 0.667 (mostly 0.05-0.09) at the same similarity and WER, joe's no
            different (docs/benchmarks.md "A fine-tune spoken with less noise").
        lr_warmup_steps: the generator's rate rises linearly from ``1 / lr_warmup_steps`` of the schedule's to all
            of it over its first ``lr_warmup_steps`` steps (``trainer.gan.lr_schedule.ramped``; counted by its
            optimizer, so a resume goes on where it was; 0: none, as from scratch). A fine-tune's AdamW starts with
            empty moments against a trained voice: its first steps move every weight by about the full rate whatever
            its gradient's size (Liu et al. 2020, "On the Variance of the Adaptive Learning Rate and Beyond"). 100:
            ``1 / (1 - betas[1])``, the horizon of Adam's second-moment average (Ma and Yarats 2021 suggest twice
            that untuned). Measured on joe fine-tuned on its own speech (10 epochs): MCD +0.25 dB against +0.39, F0
            within 2.1 Hz against 3.7, the decoder moving half as far; on the target speaker WER stayed within joe's
            + 0.05 (docs/benchmarks.md "Fine-tuning that keeps the voice", "Fine-tuning quality").
        c_mel, c_kl: loss weights.
        grad_clip: clip gradient norms above this (``None``: no clipping).
        val_fraction, max_val: share of utterances held out for validation, and a cap.
        preview_every: epochs between previews once the early ones are done (``trainer.events.preview_schedule``:
            after epochs 1, 2, 4, 8, 16, then every ``preview_every``); checkpoint_every: epochs between resume
            checkpoints.
        keep_best: ranked (best val_mel) generator checkpoints kept.
        seed: random seed for splits, segments and noise.
        d_warmup_min_steps, d_warmup_max_steps, d_warmup_ready_loss: the discriminator warm-up of a start
            with fresh discriminators against a trained generator (an ONNX voice, a ``.ckpt`` without them;
            ``trainer.gan.d_warmup``): the discriminators train alone until their smoothed loss (the sum over the 6
            discriminators, as ``train_disc``) is below ``d_warmup_ready_loss`` (3.0: undecided; where only some
            are fresh, their loss alone against it scaled by their number over 6) after at least
            ``d_warmup_min_steps``, or for ``d_warmup_max_steps`` at most (0: no warm-up). On 24 target-voice
            clips from joe the smoothed loss first went below 2.7 near step 50; on speech the voice itself made
            it stays near 3 (nothing to tell apart), so the cap ends it: 200 steps, the old fixed warm-up's
            length, now not cut to the first epoch.
        d_warmup_max_share: the warm-up's cap as a share of the run's planned steps, where that is fewer than
            ``d_warmup_max_steps`` (a short run must not spend itself warming up: 200 steps are 10 of 10 epochs on
            150 lines at batch 8). 0.2: a fifth of the run, the share the self-consistency bench's capped warm-up
            took (34 of 8 epochs' 152 steps) with the voice kept (docs/benchmarks.md "Fine-tuning that keeps the
            voice").
        recovery_lines, recovery_steps, recovery_fit_steps: budget of the recovery stage for an ONNX start
            (``trainer.start.recovery``): lines the voice speaks, steps of the warm start (one line each), steps of
            the training objective (4 lines each).
    """

    model: VitsConfig = field(default_factory=lambda: VitsConfig.preset("medium"))
    discriminator_width: float = 1.0
    resolution_discriminator: bool = False
    sample_rate: int = 22050
    n_fft: int = 1024
    hop_length: int = 256
    win_length: int = 1024
    n_mels: int = 80
    mel_fmin: float = 0.0
    mel_fmax: float | None = None
    batch_size: int | None = None
    epochs: int = 1000
    learning_rate: float = 2e-4
    learning_rate_d: float = 1e-4
    betas: tuple[float, float] = (0.8, 0.99)
    betas_d: tuple[float, float] = (0.5, 0.9)
    eps: float = 1e-9
    lr_final_fraction: float | None = 0.05
    inference_lr_scale: float = 0.1
    inference_anchor: float = 1000.0
    text_lr_scale: float | None = None
    decoder_lr_scale: float = 1.0
    stft_loss: float = 0.5
    prior_mel: float = 0.5
    voice_noise_scale: float | None = 0.333
    lr_warmup_steps: int = 100
    lr_decay: float = 0.999875
    lr_decay_d: float = 0.9999
    c_mel: float = 45.0
    c_kl: float = 1.0
    grad_clip: float | None = None
    val_fraction: float = 0.05
    max_val: int = 16
    preview_every: int = 25
    checkpoint_every: int = 1
    keep_best: int = 5
    seed: int = 1234
    d_warmup_min_steps: int = 50
    d_warmup_max_steps: int = 200
    d_warmup_ready_loss: float = 2.7
    d_warmup_max_share: float = 0.2
    recovery_lines: int = 300
    recovery_steps: int = 300
    recovery_fit_steps: int = 60

    @property
    def segment_frames(self) -> int:
        """The decoder's training window in frames (``segment_size / hop_length``)."""
        return self.model.segment_size // self.hop_length

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON and checkpoints."""
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> TrainingConfig:
        """Inverse of :meth:`to_dict` (lists become tuples); a config written before a setting existed reads
        with the value it ran with (``BEFORE``); settings of older runs that are gone (``RETIRED``) are left out.

        Raises:
            TypeError: an unknown setting.
        """
        values = {**BEFORE, **{k: v for k, v in values.items() if k not in RETIRED}}
        model = VitsConfig(**_tuples(values.pop("model", {})))
        return cls(model=model, **_tuples(values))


BEFORE: dict[str, Any] = {
    "lr_final_fraction": None,
    "inference_lr_scale": 1.0,
    "inference_anchor": 0.0,
    "text_lr_scale": None,
    "lr_warmup_steps": 0,
    "recovery_fit_steps": 0,
    "stft_loss": 0.0,
    "prior_mel": 0.0,
    "voice_noise_scale": None,
}
"""Settings added to ``TrainingConfig`` since runs were first written (``training.json``'s ``config``, a checkpoint's
``voice_studio`` hyperparameters), and the value a config without them ran with: ``None``, the fixed per-epoch
factors (``trainer.gan.lr_schedule``); the inference path at the full rate; a recovery without the objective's fit; no
warm-up of the generator's rate; none of the decoder's own losses; the start voice's own noise_scale."""
FROM_SCRATCH: dict[str, Any] = {
    "inference_lr_scale": 1.0,
    "inference_anchor": 0.0,
    "lr_warmup_steps": 0,
    "stft_loss": 0.0,
    "prior_mel": 0.0,
    "voice_noise_scale": None,
}
"""A fine-tune's settings a run from scratch sets otherwise (``trainer.run.train``): nothing to keep, so the whole
generator learns at the full rate from its first step, as VITS's does; a prior that means nothing yet for the
decoder's own losses; the start's noise_scale (a fine-tune's 0.333 was not measured from scratch)."""


def as_started(config: TrainingConfig, start: str) -> TrainingConfig:
    """``config`` as a run from ``start`` (``scratch``, or a start voice: ``trainer.run.options.RunOptions.start``)
    trains with it: :data:`FROM_SCRATCH`'s settings over it from scratch, unchanged for a fine-tune (the user's
    ``--set`` then goes over either: ``trainer.run.settings.as_run``)."""
    return replace(config, **FROM_SCRATCH) if start == "scratch" else config


RETIRED = ("d_warmup_steps",)
"""Settings older runs' configs hold that no longer exist: ``d_warmup_steps`` was a fixed warm-up length (at most
the first epoch), which the criterion of ``d_warmup_min_steps``, ``d_warmup_max_steps`` and ``d_warmup_ready_loss``
replaced (an older run's checkpoints say its warm-up is over, or how many of its steps are left:
``trainer.gan.d_warmup.upgrade_state``)."""


def _tuples(values: dict[str, Any]) -> dict[str, Any]:
    def plain(v):
        return tuple(plain(x) for x in v) if isinstance(v, list | tuple) else v

    return {k: plain(v) for k, v in values.items()}


def preset(name: str, num_symbols: int = 256, num_speakers: int = 1, **overrides: Any) -> TrainingConfig:
    """A training preset by name (``test`` or a Piper quality), with overrides of TrainingConfig fields.

    Raises:
        ValueError: an unknown preset.
    """
    if name == "test":
        model = VitsConfig(
            num_symbols=num_symbols,
            num_speakers=num_speakers,
            inter_channels=16,
            hidden_channels=16,
            filter_channels=32,
            n_heads=2,
            n_layers=1,
            resblock="2",
            resblock_kernel_sizes=(3,),
            resblock_dilation_sizes=((1, 2),),
            upsample_rates=(8, 8, 4),
            upsample_initial_channel=16,
            upsample_kernel_sizes=(16, 16, 8),
            gin_channels=16 if num_speakers > 1 else 0,
            segment_size=4096,
        )
        base = TrainingConfig(
            model=model,
            discriminator_width=1 / 16,
            batch_size=4,
            epochs=2,
            preview_every=1,
            recovery_lines=6,
            recovery_steps=4,
            recovery_fit_steps=2,
            d_warmup_min_steps=2,
            d_warmup_max_steps=4,
            d_warmup_max_share=1.0,  # the test runs' few steps warm up as long as the cap says
            lr_warmup_steps=2,
        )
    elif name in QUALITIES or name.replace("_", "-") in QUALITIES:
        model = VitsConfig.preset(name, num_symbols=num_symbols, num_speakers=num_speakers)
        base = TrainingConfig(model=model)
    else:
        raise ValueError(f"unknown preset {name!r}; one of: {', '.join(PRESETS)}")
    return replace(base, **overrides)


def unknown_settings(values: dict[str, Any]) -> list[str]:
    """The names in a written config (``TrainingConfig.to_dict``'s shape) that :meth:`TrainingConfig.from_dict`
    would refuse: neither a setting, nor a retired one (``RETIRED``), nor (under ``model``) a ``VitsConfig`` field.
    Names under ``model`` are given as ``model.NAME``."""
    from dataclasses import fields

    settings = {f.name for f in fields(TrainingConfig)} | set(RETIRED)
    unknown = [name for name in values if name not in settings]
    model = values.get("model", {})
    if isinstance(model, dict):
        unknown += [f"model.{name}" for name in model if name not in {f.name for f in fields(VitsConfig)}]
    return unknown


LOW_RATE_QUALITIES = ("x-low", "low")
"""Piper's qualities whose voices are 16,000 Hz (its medium and high voices, and the test preset, are 22,050 Hz):
rhasspy/piper's VOICES.md lists every x-low and low voice at 16,000 Hz."""


def scratch_rate(name: str) -> int:
    """The sample rate (Hz) a run from scratch with preset ``name`` trains at when its dataset is not already a
    training cache (a cache keeps its own rate): 16,000 for x-low and low, else 22,050."""
    return 16000 if name in LOW_RATE_QUALITIES else 22050
