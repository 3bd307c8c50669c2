"""Start points of a training run: scratch, a Piper ``.ckpt``, or a Piper ONNX voice.

- ``.ckpt``: weights only; every tensor whose name and shape match is copied (generator
  and discriminator), the rest is reported.
- ONNX voice (``joe`` is the embedded one): the generator takes the voice's size and
  weights; its training-only parts are recovered from the voice itself
  (``trainer.recovery``) and the fresh discriminators are warmed up before the
  generator moves.

A start whose sample rate or phoneme map differs from the dataset's is refused
with the fix.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

from trainer.presets import TrainingConfig


class RunError(ValueError):
    """A run cannot start: the message says what to change."""


def resolve_start(start: str) -> tuple[str, Path | None]:
    """``("scratch", None)``, ``("ckpt", path)`` or ``("onnx", path)``; ``joe`` is the embedded voice.

    Raises:
        RunError: not one of those, or the file is missing.
    """
    if start == "scratch":
        return "scratch", None
    if start == "joe":
        from engines.registry import default_voice

        return "onnx", default_voice().model_path
    path = Path(start)
    kind = {".ckpt": "ckpt", ".onnx": "onnx"}.get(path.suffix.lower())
    if kind is None or not path.is_file():
        raise RunError(f"{start}: the start point must be 'scratch', 'joe', or an existing Piper .ckpt or .onnx voice")
    return kind, path


def start_rate(start: str) -> int | None:
    """The sample rate (Hz) a start voice or checkpoint speaks at; ``None`` for scratch.

    Raises:
        RunError: see ``resolve_start``.
    """
    kind, path = resolve_start(start)
    if kind == "ckpt":
        from engines.vits.checkpoint import read_checkpoint

        return read_checkpoint(path).sample_rate
    voice = start_voice(start)
    return None if voice is None else voice.sample_rate


def start_voice(start: str):
    """The ``engines.voice.Voice`` of an ONNX start (``joe`` or a ``.onnx``); ``None`` for scratch or a ``.ckpt``.

    Raises:
        RunError: see ``resolve_start``.
        VoiceError: the voice or its config cannot be read.
    """
    kind, path = resolve_start(start)
    if kind != "onnx":
        return None
    if start == "joe":
        from engines.registry import default_voice

        return default_voice()
    from engines.voice import load_voice

    return load_voice(path)


def fit_to_start(start: str, config: TrainingConfig, cache) -> TrainingConfig:
    """The preset with the start's generator size; refuses a start that does not fit the dataset."""
    from dataclasses import replace

    from engines.vits.checkpoint import read_checkpoint
    from engines.voice import load_voice
    from trainer.preprocess import map_digest

    kind, path = resolve_start(start)
    if kind == "scratch":
        return config
    if kind == "ckpt":
        checkpoint = read_checkpoint(path)
        model, rate = checkpoint.config, checkpoint.sample_rate
    else:
        from engines.vits.onnx_import import load_onnx_generator

        voice = load_voice(path)
        model, rate = load_onnx_generator(path, voice.config.num_speakers)[0].config, voice.config.sample_rate
        if map_digest(voice.config.phoneme_id_map) != cache.phoneme_id_map_sha256:
            raise RunError(f"{path}: its phoneme map is not the one the dataset was prepared with")
    if rate != cache.settings.sample_rate:
        raise RunError(
            f"{path} speaks at {rate} Hz but the dataset is prepared at {cache.settings.sample_rate} Hz: "
            f"rebuild it with `voice-studio dataset cache PROJECT --out DIR --rate {rate}`"
        )
    if model.num_symbols != config.model.num_symbols:
        raise RunError(
            f"{path}: {model.num_symbols} symbols, but the dataset's voice map has {config.model.num_symbols}"
        )
    return replace(config, model=replace(model, segment_size=config.model.segment_size))


def recover_onnx_start(system, voice_path: Path, data, phonemizer, log, accelerator: str) -> None:
    """Load an ONNX voice into the generator, recover its training-only parts, arm the discriminator warm-up."""
    import torch

    from engines.vits.onnx_import import load_onnx_generator
    from trainer.preprocess import training_phoneme_ids
    from trainer.recovery import recover, speak

    config = system.config
    imported, _ = load_onnx_generator(voice_path, config.model.num_speakers)
    system.model_g.load_state_dict(imported.state_dict())
    device = "cuda" if accelerator == "gpu" else "cpu"
    model = system.model_g.to(device)
    cache = data.train_set.cache
    texts = [cache.utterances[i].text for i in data.train_set.indices][: config.recovery_lines]
    stage = _StageLog(log, "recovery", f"recovering the training-only parts of {voice_path.name}")
    stage.say(f"{len(texts)} lines to speak, then {config.recovery_steps} fitting steps")
    torch.manual_seed(config.seed)
    ids = [training_phoneme_ids(phonemizer, t) for t in texts]
    examples = speak(model, ids, progress=lambda done, total: stage.every(f"speaking line {done + 1} of {total}"))
    report = recover(
        model,
        examples,
        config.sample_rate,
        config.recovery_steps,
        progress=lambda done, total: stage.every(f"fitting step {done + 1} of {total}"),
    )
    system.model_g.to("cpu")
    steps_per_epoch = max(1, len(data.train_set) // data.batch_size)
    system.d_warmup_left.fill_(min(config.d_warmup_steps, steps_per_epoch))  # at most the first epoch
    if log is not None:
        log.emit("recovery", part="enc_q", metric="mel_l1_vs_voice", value=report.mel_l1)
        log.emit("recovery", part="dp", metric="duration_nll", value=report.duration_nll)


def load_start(system, checkpoint_path: Path) -> list[str]:
    """Copy a Piper checkpoint's weights into ``system`` where names and shapes match; returns notes on the rest."""
    from engines.vits.checkpoint import read_checkpoint

    checkpoint = read_checkpoint(checkpoint_path)
    notes = []
    for module, weights, name in (
        (system.model_g, checkpoint.generator, "generator"),
        (system.model_d, checkpoint.discriminator, "discriminator"),
    ):
        own = module.state_dict()
        fitting = {k: v for k, v in weights.items() if k in own and own[k].shape == v.shape}
        module.load_state_dict(fitting, strict=False)
        left = sorted(set(own) - set(fitting))
        if left:
            notes.append(
                f"{name}: {len(left)} of {len(own)} tensors not in {checkpoint_path.name} (kept fresh): {left[:3]}"
            )
    return notes


class _StageLog:
    """``stage`` events for one long setup step: its first message, then progress at most every ``interval_s``."""

    def __init__(self, log, name: str, title: str, interval_s: float = 5.0) -> None:
        self.log, self.name, self.title, self.interval_s = log, name, title, interval_s
        self._last = -math.inf

    def say(self, detail: str) -> None:
        """Emit ``TITLE: DETAIL`` now."""
        self._last = time.monotonic()
        if self.log is not None:
            self.log.emit("stage", name=self.name, message=f"{self.title}: {detail}")

    def every(self, detail: str) -> None:
        """Emit ``TITLE: DETAIL`` if ``interval_s`` have passed since the last message."""
        if time.monotonic() - self._last >= self.interval_s:
            self.say(detail)
