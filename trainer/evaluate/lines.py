"""What to compare: the lines candidates speak, and the candidates a run offers.

Lines come from the run previews' lines, typed text, a lines file (plain text or an LJSpeech
``metadata.csv`` whose recordings become references) or the clips a run holds out for validation (with
their recordings as references). A run offers its ranked checkpoints, its last checkpoint, its export
and the voice it started from.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engines.errors import VoiceStudioError
from trainer.evaluate.render import Candidate

AUDIO_SUFFIXES = (".wav", ".flac", ".ogg", ".mp3")
"""Recording file types looked for beside an LJSpeech ``metadata.csv`` (in ``wavs/``, else beside it)."""


class LinesError(VoiceStudioError, ValueError):
    """Lines or candidates that cannot be read (names the file or folder and why)."""


@dataclass(frozen=True, kw_only=True)
class Line:
    """One line to speak.

    Attributes:
        name: shown beside the line: a clip id (``target_0231``) or ``line 3``.
        text: what the candidates speak.
        reference: the recording of this text (a held-out clip), or ``None``.
        no_reference: without a reference where one was looked for (a ``metadata.csv`` row), which files were
            expected; else "".
    """

    name: str
    text: str
    reference: Path | None = None
    no_reference: str = ""

    def reference_audio(self) -> tuple[np.ndarray, int] | None:
        """The reference as float32 mono ``[N]`` and its rate in Hz (channels averaged); ``None`` without one.

        Raises:
            trainer.dataset.probe.ClipError: the recording cannot be read (names the file).
        """
        if self.reference is None:
            return None
        from trainer.dataset.probe import load

        audio, info = load(self.reference)
        return audio.mean(axis=1).astype(np.float32), info.sample_rate


def preview_lines() -> list[Line]:
    """The lines a run's previews speak (``trainer.events.preview_lines.PREVIEW_LINES``), without references; imports
    neither torch nor Lightning."""
    from trainer.events.preview_lines import PREVIEW_LINES

    return [Line(name=f"preview {n}", text=text) for n, text in enumerate(PREVIEW_LINES, start=1)]


def typed_lines(text: str) -> list[Line]:
    """One line per non-empty line of ``text`` (``line 1``, ``line 2``…).

    Raises:
        LinesError: nothing but blank lines, or a line with no letter or digit (named).
    """
    rows = [(number, t.strip()) for number, t in enumerate(text.splitlines(), start=1) if t.strip()]
    if not rows:
        raise LinesError("no line to speak: type at least one line of text")
    lines = [Line(name=f"line {n}", text=t) for n, (_, t) in enumerate(rows, start=1)]
    return _speakable(lines, "the typed text", [number for number, _ in rows])


def read_lines_file(path: Path | str) -> list[Line]:
    """Lines from a file: an LJSpeech ``metadata.csv`` (``id|text`` or ``id|speaker|text``; ``wavs/ID.*`` beside
    it, or ``ID.*`` beside it, become the references) or plain text, one line each (``#`` comments skipped).

    Raises:
        LinesError: the file cannot be read, is not UTF-8, holds no line, or a line with no letter or digit (names
            the file and line).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise LinesError(f"{path}: cannot read lines ({exc})") from None
    every = enumerate(text.splitlines(), start=1)
    numbered = [(n, r) for n, r in every if r.strip() and not r.lstrip().startswith("#")]
    if not numbered:
        raise LinesError(f"{path}: no line to speak in the file")
    numbers, rows = [n for n, _ in numbered], [r for _, r in numbered]
    if path.name.lower() == "metadata.csv" or all("|" in r for r in rows):
        return _speakable(_metadata_lines(path, rows, numbers), str(path), numbers)
    lines = [Line(name=f"line {n}", text=r.strip()) for n, r in enumerate(rows, start=1)]
    return _speakable(lines, str(path), numbers)


def _speakable(lines: list[Line], where: str, numbers: list[int]) -> list[Line]:
    """``lines``, each with a letter or digit to speak; ``numbers``: the line of ``where`` each came from.

    Raises:
        LinesError: a line of punctuation or symbols alone (``?!``, ``...``), named by ``where`` and the line it
            is on there (blank and comment lines counted), before anything is rendered (a voice would find
            nothing to speak in it).
    """
    for line, number in zip(lines, numbers, strict=True):
        if not any(ch.isalnum() for ch in line.text):
            raise LinesError(f"{where}, line {number}: nothing to speak in {line.text!r} (no letter or digit)")
    return lines


def _metadata_lines(path: Path, rows: list[str], numbers: list[int]) -> list[Line]:
    """``id|text`` / ``id|speaker|text`` rows (``numbers``: their lines in the file, which errors name);
    references from ``wavs/`` beside the file, or beside it."""
    lines = []
    for number, fields in zip(numbers, csv.reader(rows, delimiter="|", quoting=csv.QUOTE_NONE), strict=True):
        if len(fields) < 2 or not fields[0].strip() or not fields[-1].strip():
            raise LinesError(f"{path}:{number}: expected id|text, got {'|'.join(fields)!r}")
        clip_id = fields[0].strip()
        reference = _recording(path.parent, clip_id)
        expected = "" if reference else f"no recording {clip_id}.wav in {path.parent / 'wavs'} or {path.parent}"
        lines.append(Line(name=clip_id, text=fields[-1].strip(), reference=reference, no_reference=expected))
    return lines


def _recording(folder: Path, clip_id: str) -> Path | None:
    """``folder/wavs/ID.wav`` (or another audio suffix, or the bare id), else the same beside the metadata
    (``folder/ID.wav``), else ``None``."""
    for where in (folder / "wavs", folder):
        for candidate in (where / clip_id, *(where / f"{clip_id}{s}" for s in AUDIO_SUFFIXES)):
            if candidate.is_file():
                return candidate
    return None


def held_out_lines(folder: Path | str, limit: int | None = 10) -> list[Line]:
    """The clips held out for validation, with their recordings as references, at most ``limit``.

    For a run folder: exactly the clips its training held out (the split of ``trainer.data.split.split`` over
    the run's cache with the run's config). For a dataset project: the clips a run of the default preset would
    hold out, over the project's included clips (a run also leaves out clips shorter than one segment, so its
    split can differ when the project has such clips).

    Raises:
        LinesError: the folder is neither a run nor a dataset project, or holds nothing to hold out.
    """
    folder = Path(folder)
    from trainer.run.document import is_run

    if is_run(folder):
        lines = _run_held_out(folder)
    elif (folder / "manifest.json").is_file():
        lines = _project_held_out(folder)
    else:
        raise LinesError(f"{folder}: neither a run folder (training.json) nor a dataset project (manifest.json)")
    if not lines:
        raise LinesError(f"{folder}: no clip is held out (a dataset needs at least two usable clips)")
    return lines[:limit] if limit is not None else lines


def _run_held_out(run_dir: Path) -> list[Line]:
    """The run's validation clips; references from its dataset project where it has one."""
    from trainer.data.preprocess import PreprocessedCache
    from trainer.data.split import split
    from trainer.run.document import read_run
    from trainer.run.presets import TrainingConfig

    document = read_run(run_dir)
    config = TrainingConfig.from_dict(document.config)
    cache = PreprocessedCache(document.cache)
    usable = [u for u in cache.utterances if u.spec[1] >= config.segment_frames]  # as CacheDataModule.setup
    _, val = split(len(usable), config.val_fraction, config.max_val, config.seed)
    project = _project_of(document.options.dataset, run_dir)
    return [_clip_line(usable[i].id, usable[i].text, project) for i in val]


def _project_of(dataset: Path, run_dir: Path):
    """The dataset project a run was built from: the dataset itself, or ``run/dataset`` for a Piper folder."""
    from trainer.dataset.project import DatasetProject

    for folder in (Path(dataset), run_dir / "dataset"):
        if (folder / "manifest.json").is_file():
            return DatasetProject(folder)
    return None


def _clip_line(clip_id: str, text: str, project) -> Line:
    reference = project.clip_path(clip_id) if project is not None else None
    return Line(name=clip_id, text=text, reference=reference if reference and reference.is_file() else None)


def _project_held_out(folder: Path) -> list[Line]:
    from trainer.data.split import split
    from trainer.dataset.project import DatasetProject
    from trainer.run.presets import TrainingConfig

    project = DatasetProject(folder)
    clips = [c for c in project.clips.values() if c.status == "ok" and c.text]
    defaults = TrainingConfig.from_dict({})
    _, val = split(len(clips), defaults.val_fraction, defaults.max_val, defaults.seed)
    return [_clip_line(clips[i].id, clips[i].text or "", project) for i in val]


def run_candidates(run_dir: Path | str, voices_dir: Path | str | None = None) -> list[Candidate]:
    """What a run offers to compare: its ranked checkpoints (best first, ``epoch 3 · val_mel 0.6120``), its
    last checkpoint (``last``), its checkpoints taken to a strength (``RUN/strengths/``: ``epoch 3 at 70% ·
    val_mel 0.6120``), its export ``voices_dir/<run name>.onnx`` (``export``) and its start voice (``start: joe``;
    none from scratch).

    Raises:
        LinesError: not a run folder, or a run with no checkpoint yet.
        trainer.checkpoints.writer.CheckpointError: an unreadable ranking.
    """
    from trainer.checkpoints.best import ranked_checkpoints
    from trainer.run.document import is_run, read_run

    run_dir = Path(run_dir)
    if not is_run(run_dir):
        raise LinesError(f"{run_dir}: not a run folder (no training.json)")
    found = [Candidate(label=c.label(), model_path=c.path) for c in ranked_checkpoints(run_dir)]
    if (run_dir / "last.ckpt").is_file():
        found.append(Candidate(label="last", model_path=run_dir / "last.ckpt"))
    if not found:
        raise LinesError(f"{run_dir}: the run has no checkpoint yet")
    found += _strength_candidates(run_dir, {c.model_path.name: c.label for c in found})
    export = Path(voices_dir) / f"{run_dir.name}.onnx" if voices_dir is not None else None
    if export is not None and export.is_file():
        found.append(Candidate(label="export", model_path=export))
    start = _start_candidate(read_run(run_dir).options.start)
    return found + ([start] if start else [])


def _strength_candidates(run_dir: Path, labels: dict[str, str]) -> list[Candidate]:
    """The run's checkpoints taken to a strength (``trainer.checkpoints.strength``), in file order, labelled after
    their checkpoint's label (``labels``: file name -> label; a checkpoint no longer ranked, or ``last.ckpt`` as it
    was, by its file name: ``trainer.checkpoints.strength.strength_fallback_label``)."""
    from trainer.checkpoints.strength import strength_fallback_label, strength_label, strength_of
    from trainer.run.document import STRENGTHS_FOLDER

    found = []
    for path in sorted((run_dir / STRENGTHS_FOLDER).glob("*.ckpt")):
        named = strength_of(path)
        if named is not None:
            base, strength = named
            label = strength_label(labels.get(base) or strength_fallback_label(base), strength)
            found.append(Candidate(label=label, model_path=path))
    return found


def file_candidate(model_path: Path | str) -> Candidate:
    """A model file as a candidate, labelled as its run labels it (``epoch 2 · val_mel 0.6171``, ``last``) when
    it is one of a run's checkpoints, else by its file name."""
    from trainer.checkpoints.best import CheckpointError
    from trainer.run.document import run_of

    path = Path(model_path)
    run = run_of(path)
    if run is not None:
        try:
            offered = run_candidates(run)
        except (LinesError, CheckpointError):  # an unreadable ranking: the file name still tells it
            offered = []
        for candidate in offered:
            if candidate.model_path.resolve() == path.resolve():
                return Candidate(label=candidate.label, model_path=path)
    return Candidate(label=path.name, model_path=path)


def _start_candidate(start: str) -> Candidate | None:
    """The voice a run started from, or ``None`` (scratch, or a start no longer on disk)."""
    from trainer.run.errors import RunError
    from trainer.start.points import resolve_start

    try:
        _, path = resolve_start(start)
    except RunError:
        return None
    if path is None:
        return None
    name = start if path != Path(start) else path.name.removesuffix(".onnx").removesuffix(".ckpt")
    return Candidate(label=f"start: {name}", model_path=path)
