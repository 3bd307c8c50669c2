"""Start points of a training run: scratch, a Piper ``.ckpt``, or a Piper ONNX voice.

- ``.ckpt``: weights only; every tensor whose name and shape match is copied (generator
  and discriminator), the rest is reported.
- ONNX voice (``joe`` is the embedded one): the generator takes the voice's size and weights; its training-only
  parts are recovered from the voice itself (``trainer.start.recovery``; the stage: ``trainer.start.recovery_stage``;
  kept between runs: ``trainer.start.recovery_cache``) and the fresh discriminators are warmed up before the
  generator moves (``trainer.gan.d_warmup``), as are those a ``.ckpt`` does not hold (a generator-only checkpoint).

A start and a dataset of another shape (speakers, symbols, sample rate, size) are
converted in a defined way or refused before training: ``trainer.start.shape`` (its ``fit_to_start``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from trainer.run.errors import RunError

if TYPE_CHECKING:
    from engines.voice import Voice


def resolve_start(start: str) -> tuple[str, Path | None]:
    """``("scratch", None)``, ``("ckpt", path)`` or ``("onnx", path)``; ``joe`` is the embedded voice, other
    voice names (``en_US-joe-medium``, ``default``) are resolved as ``say --voice`` resolves them.

    Raises:
        RunError: not one of those, or the file is missing.
    """
    if start == "scratch":
        return "scratch", None
    if start == "joe" or _is_voice_name(start):
        path = _named_voice(start).model_path
        return ("ckpt" if path.suffix.lower() == ".ckpt" else "onnx"), path
    path = Path(start)
    kind = {".ckpt": "ckpt", ".onnx": "onnx"}.get(path.suffix.lower())
    if kind is None or not path.is_file():
        raise RunError(f"{start}: the start point must be 'scratch', 'joe', or an existing Piper .ckpt or .onnx voice")
    return kind, path


def _is_voice_name(start: str) -> bool:
    from engines.registry import is_voice_name

    return is_voice_name(start)


def _named_voice(start: str):
    """The voice a name means (``joe`` is the embedded voice; others as ``say --voice`` resolves them).

    Raises:
        RunError: no voice by that name.
    """
    from engines.base import VoiceError
    from engines.registry import default_voice, find_voice

    if start == "joe":
        return default_voice()
    try:
        return find_voice(start)
    except VoiceError as exc:
        raise RunError(f"{exc}; the start point must be 'scratch', a voice name or a Piper .ckpt or .onnx") from None


def run_rate(start: str, dataset: Path | str, preset_name: str) -> int:
    """The sample rate (Hz) a run trains at: the start voice's or checkpoint's; from scratch, a training cache's own
    rate, else ``trainer.run.presets.scratch_rate`` of the preset (16,000 Hz for x-low and low, else 22,050).

    Raises:
        RunError: see ``resolve_start``. ValueError: a training cache that cannot be read.
    """
    rate = start_rate(start)
    if rate:
        return rate
    if (Path(dataset) / "cache.json").is_file():
        from trainer.data.preprocess import PreprocessedCache

        return PreprocessedCache(Path(dataset)).settings.sample_rate
    from trainer.run.presets import scratch_rate

    return scratch_rate(preset_name)


def start_rate(start: str) -> int | None:
    """The sample rate (Hz) a start voice or checkpoint speaks at; ``None`` for scratch.

    Raises:
        RunError: see ``resolve_start``.
    """
    kind, path = resolve_start(start)
    if path is None:  # scratch
        return None
    if kind == "ckpt":
        from engines.torch.vits.checkpoint import read_checkpoint

        return read_checkpoint(path).sample_rate
    from engines.voice import load_voice

    return load_voice(path).sample_rate


def start_voice(start: str) -> Voice | None:
    """The ``engines.voice.Voice`` of an ONNX start (``joe`` or a ``.onnx``); ``None`` for scratch or a ``.ckpt``.

    Raises:
        RunError: see ``resolve_start``.
        VoiceError: the voice or its config cannot be read.
    """
    kind, path = resolve_start(start)
    if kind != "onnx" or path is None:
        return None
    from engines.voice import load_voice

    return load_voice(path)  # a voice name is already resolved to its file


def load_start(system, checkpoint_path: Path) -> list[str]:
    """Copy a Piper checkpoint's weights into ``system`` where names and shapes match; returns notes on the rest.

    Discriminators not wholly in the checkpoint (none, as in a generator-only checkpoint, or of another width, or
    the resolution discriminators Piper's lack) start partly or wholly fresh against a trained generator: the
    discriminator warm-up is armed, judged on those (``trainer.gan.d_warmup``). Trained ones need none: they
    already tell the generator's audio from real audio.
    """
    from engines.torch.vits.checkpoint import read_checkpoint

    checkpoint = read_checkpoint(checkpoint_path)
    notes = copy_generator(system, checkpoint.generator, checkpoint_path.name)
    fresh = copy_matching(system.model_d, checkpoint.discriminator, checkpoint_path.name, "discriminator")
    if fresh:  # judged on the discriminators with a fresh tensor (`discriminators.K.…`)
        numbers = {int(name.split(".")[1]) for name in kept_fresh(system.model_d, checkpoint.discriminator)}
        system.d_warmup.arm(fresh=sorted(numbers))
    return notes + fresh


def copy_generator(system, weights: dict, source: str) -> list[str]:
    """:func:`copy_matching` into ``system.model_g``; what stays fresh is left out of the start anchor
    (``trainer.gan.anchor``: nothing to hold a fresh layer to). Returns the notes."""
    notes = copy_matching(system.model_g, weights, source, "generator")
    system.anchor.leave_out(kept_fresh(system.model_g, weights))
    return notes


def copy_matching(module, weights: dict, source: str, name: str) -> list[str]:
    """Load the tensors of ``weights`` whose name and shape match ``module``'s; the rest of ``module`` keeps its
    fresh initialisation (Piper's single- to multi-speaker fine-tune). Returns a note naming what stayed fresh."""
    own = module.state_dict()
    module.load_state_dict({k: v for k, v in weights.items() if k in own and own[k].shape == v.shape}, strict=False)
    left = kept_fresh(module, weights)
    if not left:
        return []
    return [f"{name}: {len(left)} of {len(own)} tensors not in {source} (kept fresh): {left[:3]}"]


def kept_fresh(module, weights: dict) -> list[str]:
    """The names of ``module``'s tensors that ``weights`` has no tensor of the same name and shape for: what
    :func:`copy_matching` leaves at its fresh initialisation (sorted)."""
    own = module.state_dict()
    return sorted(k for k, v in own.items() if k not in weights or weights[k].shape != v.shape)
