"""The disk space a run needs, checked before it writes anything (the Train page's Check, ``voice-studio train``).

A run keeps, in its folder: ``last.ckpt`` (weights, both optimizers' moments, and a fine-tune's anchor copy of
its start's inference path: ``trainer.gan.anchor``), the best-k generator checkpoints, the cache it builds (and,
from a Piper folder, the imported copies of its clips), the preview WAVs and the events. Checkpoints are
replaced atomically (``trainer.checkpoints.writer``), so while ``last.ckpt`` is rewritten the old file and the
new one are both on disk, and a new best checkpoint is written before the one it displaces is removed.
"""

from __future__ import annotations

import errno
import shutil
from dataclasses import dataclass
from pathlib import Path

from engines.imports import importing
from engines.shell_command import shell_command
from trainer.run.document import CHECKPOINTS_FOLDER
from trainer.run.errors import RunError
from trainer.run.options import RunOptions

BYTES_PER_PARAMETER_RESUME = 12
"""``last.ckpt``: float32 weights plus AdamW's two moments per parameter (Loshchilov & Hutter, 2019)."""
BYTES_PER_TENSOR = 340
"""``torch.save``'s zip entry and pickle record per tensor (measured on the test preset's generator)."""
PREVIEW_SECONDS = 4.0
"""Seconds of a preview line, at most (the three ``PREVIEW_LINES`` spoke 2.2-3.4 s in a test-preset run)."""
EVENT_BYTES_PER_EPOCH = 8_000
"""``events.jsonl`` per epoch: an epoch record, its progress and ETA lines, checkpoints and previews (about 4 KB
measured on a test-preset run, doubled)."""
GIB = 2**30
NEEDS_SPACE = "checkpoints, the cache and previews"
"""What a new run needs disk space for, as the findings and ``voice-studio train`` say it."""
DISK_FULL = (errno.ENOSPC, errno.EDQUOT)
"""OS errors that more free space cures (no space left; a disk quota reached)."""
UNWRITABLE = (*DISK_FULL, errno.EFBIG, errno.EROFS, errno.EIO)
"""OS errors of a disk that refuses writes: a file the run could not write stops it with the way on."""


@dataclass(frozen=True)
class NetworkSize:
    """Parameters and tensors of a preset's generator and discriminators, and how many best checkpoints it keeps;
    ``anchored``/``anchored_tensors``: the generator's inference path (``trainer.gan.system.inference_named``),
    which a fine-tune's ``last.ckpt`` keeps a second copy of (0 from scratch)."""

    generator: int
    discriminator: int
    generator_tensors: int
    discriminator_tensors: int
    keep_best: int
    anchored: int = 0
    anchored_tensors: int = 0


@dataclass(frozen=True)
class DiskNeed:
    """Bytes a run will write, by kind, and the folder whose disk they go to (``out`` or its nearest existing
    parent)."""

    checkpoints: int
    cache: int
    previews: int
    events: int
    folder: Path

    @property
    def total(self) -> int:
        return self.checkpoints + self.cache + self.previews + self.events


def disk_need(options: RunOptions, cache_seconds: float, rate: int, kind: str) -> DiskNeed:
    """What the run ``options`` ask for will write.

    Args:
        cache_seconds: seconds of audio the cache will hold (``trainer.run.preflight.DatasetSummary.seconds``);
            for a Piper folder (``kind`` ``piper``), its clips are measured here (headers only).
        rate: Hz of the cache (the start voice's): float32 audio and 513-bin float32 spectrogram frames of 256
            samples (Piper's STFT), and the previews' 16-bit WAVs.
        kind: ``cache`` (used as it is: nothing built), ``project`` or ``piper`` (imported into the run first).
    """
    from trainer.run.presets import preset
    from trainer.run.settings import as_run

    size = network_size(run_quality(options), anchored=options.start != "scratch", settings=options.settings)
    last = resume_bytes(size)
    checkpoints = 2 * last + (size.keep_best + 1) * generator_bytes(size)  # old and new during each replace
    imported = 0
    if kind == "piper":
        cache_seconds, imported = _piper_audio(Path(options.dataset))
    cache = 0 if kind == "cache" else int(cache_seconds * rate * 4 * (1 + 513 / 256)) + imported
    config = as_run(preset(options.preset), options.start, options.settings)
    epochs = options.epochs or config.epochs
    previews = preview_bytes(epochs, config.preview_every, rate)
    return DiskNeed(checkpoints, cache, previews, epochs * EVENT_BYTES_PER_EPOCH, _existing(Path(options.out)))


def preview_bytes(epochs: int, every: int, rate: int, first: int = 0) -> int:
    """The preview WAVs of epochs ``first`` to ``epochs - 1`` (``trainer.events.preview_schedule``): each
    ``PREVIEW_LINES`` line, 16-bit at ``rate`` Hz."""
    from trainer.events.preview_lines import PREVIEW_LINES
    from trainer.events.preview_schedule import due_epochs

    due = sum(1 for epoch in due_epochs(epochs, every) if epoch >= first)
    return due * len(PREVIEW_LINES) * int(PREVIEW_SECONDS * rate * 2 + 44)


def free_bytes(folder: Path) -> int:
    """Free bytes on ``folder``'s disk (``shutil.disk_usage``)."""
    return shutil.disk_usage(folder).free


def space_verdict(need: int, folder: Path, what: str) -> tuple[str, str] | None:
    """``("error" | "warning", words)`` where ``folder``'s disk has less than ``need`` bytes free (error) or less than
    twice that (warning: other writers share it), else ``None``; ``what`` names what needs the space."""
    free = free_bytes(folder)
    if free < need:
        return "error", f"{_size(need)} are needed in {folder} for {what}; {_size(free)} are free."
    if free < 2 * need:
        return "warning", f"Disk space is short: {_size(free)} free in {folder}, the run needs {_size(need)}."
    return None


def check_run_space(options: RunOptions, cache_seconds: float, rate: int, kind: str) -> str | None:
    """Refuse a new run whose disk cannot hold what it will write (:func:`disk_need`); the words of a warning where
    little is left to spare, else ``None``.

    Raises:
        RunError: too little free space, naming the folder and both sizes.
    """
    need = disk_need(options, cache_seconds, rate, kind)
    verdict = space_verdict(need.total, need.folder, NEEDS_SPACE)
    if verdict is not None and verdict[0] == "error":
        raise RunError(f"{verdict[1]} Free space there, or choose another --out")
    return verdict[1] if verdict is not None else None


def check_resume_space(run_dir: Path, done: int, epochs: int, preview_every: int, rate: int) -> None:
    """Refuse a resume whose disk cannot hold a new ``last.ckpt`` beside the old one, a best checkpoint and the
    previews left (:func:`resume_need`).

    Raises:
        RunError: naming the folder, both sizes, and what to do.
    """
    verdict = space_verdict(
        resume_need(run_dir, done, epochs, preview_every, rate), run_dir, "a resume's checkpoints and previews"
    )
    if verdict is not None and verdict[0] == "error":
        raise RunError(f"{verdict[1]} Free space there, then resume again")


def stopped_by_write(exc: BaseException, run_dir: Path, resume_epoch: int | None) -> RunError | None:
    """The one line for a run stopped by a file it could not write (a checkpoint, a preview, an event: a full disk
    most often), with the OS's reason and the way on: what the run keeps and how to go on; ``None`` for any
    other error. ``resume_epoch``: the epoch (from 0) of the ``last.ckpt`` this session wrote, if any."""
    from trainer.checkpoints.best import ranked_checkpoints
    from trainer.checkpoints.writer import CheckpointWriteError

    if isinstance(exc, CheckpointWriteError):
        said = str(exc)
    elif isinstance(exc, OSError) and exc.errno in UNWRITABLE:  # a preview, an event, best.json
        said = f"{exc.filename or run_dir}: not written: {exc.strerror or exc}"
    else:
        return None
    cure = "free space on its disk" if exc.errno in DISK_FULL else "once its disk can be written again"
    if (run_dir / "last.ckpt").is_file():
        after = f" (after epoch {resume_epoch + 1})" if resume_epoch is not None else ""
        command = shell_command("voice-studio", "train", "--resume", run_dir)
        way_on = f"the run keeps its resume checkpoint{after}: {cure}, then resume with: {command}"
    elif ranked_checkpoints(run_dir):
        command = shell_command("voice-studio", "train", "--from-best", run_dir)
        way_on = f"no resume checkpoint was written yet: {cure}, then go on with: {command}"
    else:
        return RunError(f"{said}. Training stopped before any checkpoint was written: {cure}, then start it again")
    return RunError(f"{said}. Training stopped; {way_on}")


def resume_need(run_dir: Path, epochs_done: int, epochs: int, preview_every: int, rate: int) -> int:
    """Bytes a resume writes beside what the run holds: a new ``last.ckpt`` beside the old one, a best checkpoint
    beside the others, and the previews and events of the epochs left."""
    last = (run_dir / "last.ckpt").stat().st_size if (run_dir / "last.ckpt").is_file() else 0
    ranked = [p.stat().st_size for p in (run_dir / CHECKPOINTS_FOLDER).glob("*.ckpt")]
    left = max(0, epochs - epochs_done)
    previews = preview_bytes(epochs, preview_every, rate, first=epochs_done)
    return last + max(ranked, default=0) + previews + left * EVENT_BYTES_PER_EPOCH


def run_quality(options: RunOptions) -> str:
    """The preset whose network size the run will have: the start voice's quality when it names one."""
    if options.preset != "test":
        from trainer.start.points import start_voice

        voice = start_voice(options.start)
        quality = voice.config.raw.get("audio", {}).get("quality") if voice is not None else None
        if quality:
            return quality.replace("_", "-")
    return options.preset


def network_size(preset_name: str, anchored: bool = False, settings: tuple[str, ...] = ()) -> NetworkSize:
    """Counted on torch's ``meta`` device: no memory is allocated. ``anchored``: count the inference path a
    fine-tune's anchor keeps (where the preset anchors at all: ``inference_anchor`` above 0). ``settings``: the
    run's ``--set`` (``trainer.run.settings``), over the preset's (``keep_best``, the anchor, the discriminators)."""
    with importing("torch"):
        import torch

    from engines.torch.vits import Synthesizer

    with importing("trainer.gan.discriminators"):
        from trainer.gan.discriminators import MultiPeriodDiscriminator
    from trainer.run.presets import preset
    from trainer.run.settings import apply_settings

    config = apply_settings(preset(preset_name), settings)
    with torch.device("meta"):
        model_g = Synthesizer(config.model)
        generator = model_g.state_dict()
        discriminator = MultiPeriodDiscriminator(
            config.discriminator_width, config.resolution_discriminator
        ).state_dict()
        anchor = _anchored(model_g) if anchored and config.inference_anchor > 0 else {}
    count = lambda state: sum(t.numel() for t in state.values())  # noqa: E731
    return NetworkSize(
        count(generator),
        count(discriminator),
        len(generator),
        len(discriminator),
        config.keep_best,
        anchored=count(anchor),
        anchored_tensors=len(anchor),
    )


def _anchored(model_g) -> dict:
    """The parameters a fine-tune's anchor keeps a copy of (``trainer.gan.system.inference_named``)."""
    with importing("trainer.gan.system"):
        from trainer.gan.system import inference_named

    return inference_named(model_g)


def resume_bytes(size: NetworkSize) -> int:
    """``last.ckpt``: weights and two optimizer moments per parameter, each tensor an entry, and the anchor's copy
    of the start's inference path (float32) where the run anchors one."""
    tensors = size.generator_tensors + size.discriminator_tensors
    optimized = BYTES_PER_PARAMETER_RESUME * (size.generator + size.discriminator) + 3 * BYTES_PER_TENSOR * tensors
    return optimized + 4 * size.anchored + BYTES_PER_TENSOR * size.anchored_tensors


def generator_bytes(size: NetworkSize) -> int:
    """One generator-only checkpoint (``best-*.ckpt``)."""
    return 4 * size.generator + BYTES_PER_TENSOR * size.generator_tensors


def _piper_audio(folder: Path) -> tuple[float, int]:
    """``(seconds, bytes of the imported copies)`` of a Piper folder's clips (``wavs/`` or beside
    ``metadata.csv``), read from their headers: the project keeps a float32 mono copy at each clip's own rate."""
    with importing("soundfile"):
        import soundfile

    base = folder / "wavs" if (folder / "wavs").is_dir() else folder
    seconds, copies = 0.0, 0
    for path in base.iterdir():
        try:
            info = soundfile.info(str(path))
        except (soundfile.LibsndfileError, RuntimeError, OSError):  # metadata.csv, a text file, a folder
            continue
        seconds += info.frames / info.samplerate
        copies += info.frames * 4
    return seconds, copies


def _existing(folder: Path) -> Path:
    """``folder`` or its nearest parent that exists (where a new run folder's disk is)."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def _size(n: int) -> str:
    """``1.2 GiB``, or ``12.3 MiB`` below a GiB."""
    return f"{n / GIB:.1f} GiB" if n >= GIB / 10 else f"{n / 2**20:.1f} MiB"
