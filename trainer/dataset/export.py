"""Writing a project out in Piper's training layout: ``metadata.csv`` plus mono 16-bit WAVs.

Only clips that are ``ok``, have text and no blocking finding
(``trainer.dataset.health``) are written; the others are listed with the reason.
Several speakers among the written clips give Piper's ``id|speaker|text`` lines
(a clip without a speaker in such a project is left out: ``no_speaker``).
Audio is resampled to the target rate (soxr) from the curated copies.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from engines.audio import write_audio
from engines.errors import VoiceStudioError
from engines.files import write_text
from engines.words import count
from trainer.dataset.analysis import ClipAnalysis
from trainer.dataset.fixes import resample
from trainer.dataset.health import ClipRecord, check
from trainer.dataset.project import DatasetProject
from trainer.out_folder import holds_only, replace_folder

DEFAULT_RATE = 22050
WHY_LEFT_OUT = {
    "excluded": "excluded",
    "unreadable": "unreadable",
    "no_text": "without a transcript",
    "unreviewed": "draft transcripts no person has confirmed",
    "silent": "silent",
    "too_short": "too short for a training segment",
    "too_long": "too long (over the phoneme_ids limit)",
    "too_fast": "with more phoneme_ids than spectrogram frames",
    "duplicate_text": "duplicates of another clip's text",
    "duplicate_audio": "duplicates of another clip's audio",
    "non_finite": "holding NaN or infinite samples",
    "out_of_range": "holding sample values beyond full scale",
    "no_speaker": "without a speaker in a multi-speaker project",
}
"""Health finding kinds (``trainer.dataset.health``) as words, for why no clip is left to train on."""


class NothingToTrain(VoiceStudioError, ValueError):
    """A project with no clip the trainer can use: the message says why (``nothing_to_train``)."""


@dataclass
class ExportResult:
    """Clip ids written, and the ones left out with why."""

    written: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)


def records(project: DatasetProject) -> list[ClipRecord]:
    """The project's clips as health-check records (excluded clips left out)."""
    return [
        ClipRecord(
            c.id,
            c.text,
            ClipAnalysis(**c.analysis) if c.analysis else None,
            c.error,
            c.audio_sha256,
            c.reviewed,
            c.speaker,
        )
        for c in project.clips.values()
        if c.status != "excluded"
    ]


def selection(project: DatasetProject) -> tuple[list, dict[str, str]]:
    """The clips the trainer can use (``ok``, with text, no blocking finding), and the others with why."""
    blocked: dict[str, str] = {}
    for finding in check(records(project)):
        if finding.blocking:
            blocked.setdefault(finding.clip_id, finding.message)
    chosen, skipped = [], {}
    for clip in project.clips.values():
        reason = "excluded" if clip.status == "excluded" else blocked.get(clip.id)
        if reason:
            skipped[clip.id] = reason
        else:
            chosen.append(clip)
    return chosen, skipped


def left_out(project: DatasetProject) -> dict[str, str]:
    """Clip id -> why the trainer leaves it out, as a health finding kind (``excluded`` for excluded clips;
    a clip's first blocking finding otherwise). ``WHY_LEFT_OUT`` words each kind."""
    kinds = {c.id: "excluded" for c in project.clips.values() if c.status == "excluded"}
    for finding in check(records(project)):
        if finding.blocking:
            kinds.setdefault(finding.clip_id, finding.kind)
    return kinds


def nothing_to_train(project: DatasetProject) -> NothingToTrain:
    """The error for a project none of whose clips can be trained on, counting why, e.g.
    ``PROJECT: no clip can be trained on: all 5 clips are too short for a training segment``."""
    counts, total = Counter(left_out(project).values()), len(project.clips)
    if not total:
        return NothingToTrain(f"{project.folder}: no clip can be trained on: the project has none; import some first")
    if len(counts) == 1:
        why = ("the only clip is " if total == 1 else f"all {total} clips are ") + WHY_LEFT_OUT.get(*counts, *counts)
    else:
        why = f"of {count(total, 'clip')}, " + ", ".join(
            f"{n} {WHY_LEFT_OUT.get(k, k)}" for k, n in counts.most_common()
        )
    return NothingToTrain(f"{project.folder}: no clip can be trained on: {why}")


def trainable(project: DatasetProject) -> list:
    """The clips (``ClipEntry``) the trainer can use, in manifest order."""
    return selection(project)[0]


def project_inputs(project: DatasetProject) -> list[Path]:
    """What an export or a cache of ``project`` reads, which no output may replace or hold: the project folder
    and its source recordings."""
    return [Path(project.folder), *{Path(c.source) for c in project.clips.values() if c.source}]


EXPORT_MARK = ".voice-studio-export"
"""The file :func:`export_piper` writes beside ``metadata.csv``: it tells our export from a user's own Piper
folder of the same layout, which an export must never replace (Piper's tools ignore the file)."""


def is_export(folder: Path) -> bool:
    """Whether ``folder`` is an earlier :func:`export_piper` (its mark, ``metadata.csv`` and ``wavs/``, nothing
    else); a user's own ``metadata.csv`` + ``wavs/`` folder is not."""
    return (folder / EXPORT_MARK).is_file() and holds_only(folder, {EXPORT_MARK, "metadata.csv", "wavs"})


def export_piper(project: DatasetProject, out_dir: Path | str, rate: int = DEFAULT_RATE) -> ExportResult:
    """Write ``out_dir/metadata.csv`` and ``out_dir/wavs/ID.wav`` (PCM 16-bit, ``rate`` Hz, mono).

    The export is written beside ``out_dir`` and replaces it whole (``trainer.out_folder.replace_folder``):
    ``out_dir`` must be absent, empty or an earlier export, and never the project, a source, or hold them.

    Raises:
        NothingToTrain: no clip can be exported (nothing is written; the message counts why).
        OutFolderError: ``out_dir`` may not be replaced (checked before any work; nothing is written).
    """
    chosen, skipped = selection(project)
    if not chosen:
        raise nothing_to_train(project)
    result = ExportResult(skipped=skipped)
    with replace_folder(out_dir, is_export, project_inputs(project), "export folder") as staging:
        _write_export(project, chosen, staging, rate, result)
    return result


def _write_export(project: DatasetProject, chosen: list, out: Path, rate: int, result: ExportResult) -> None:
    """Write the ``chosen`` clips' WAVs and ``metadata.csv`` into ``out``, listing them in ``result.written``."""
    from trainer.dataset.probe import load

    (out / "wavs").mkdir()
    lines = []
    multi = len({c.speaker for c in chosen if c.speaker}) > 1  # then every chosen clip has one (no_speaker)
    for clip in chosen:
        audio, info = load(project.clip_path(clip.id))
        write_audio(out / "wavs" / f"{clip.id}.wav", resample(audio[:, 0], info.sample_rate, rate), rate)
        text = " ".join(clip.text.split())
        lines.append(f"{clip.id}|{clip.speaker or ''}|{text}" if multi else f"{clip.id}|{text}")
        result.written.append(clip.id)
    write_text(out / "metadata.csv", "\n".join(lines) + "\n")
    write_text(out / EXPORT_MARK, f"written by voice-studio dataset export from {project.folder}\n")
