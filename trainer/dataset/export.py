"""Writing a project out in Piper's training layout: ``metadata.csv`` plus mono 16-bit WAVs.

Only clips that are ``ok``, have text and no blocking finding
(``trainer.dataset.health``) are written; the others are listed with the reason.
Audio is resampled to the target rate (soxr) from the curated copies.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engines.audio import write_audio
from engines.files import write_text
from trainer.dataset.analysis import ClipAnalysis
from trainer.dataset.fixes import resample
from trainer.dataset.health import ClipRecord, check
from trainer.dataset.project import DatasetProject

DEFAULT_RATE = 22050


@dataclass
class ExportResult:
    """Clip ids written, and the ones left out with why."""

    written: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)


def records(project: DatasetProject) -> list[ClipRecord]:
    """The project's clips as health-check records (excluded clips left out)."""
    return [
        ClipRecord(
            c.id, c.text, ClipAnalysis(**c.analysis) if c.analysis else None, c.error, c.audio_sha256, c.reviewed
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


def trainable(project: DatasetProject) -> list:
    """The clips (``ClipEntry``) the trainer can use, in manifest order."""
    return selection(project)[0]


def export_piper(project: DatasetProject, out_dir: Path | str, rate: int = DEFAULT_RATE) -> ExportResult:
    """Write ``out_dir/metadata.csv`` and ``out_dir/wavs/ID.wav`` (PCM 16-bit, ``rate`` Hz, mono)."""
    from trainer.dataset.probe import load

    out = Path(out_dir)
    (out / "wavs").mkdir(parents=True, exist_ok=True)
    chosen, skipped = selection(project)
    result, lines = ExportResult(skipped=skipped), []
    multi = len({c.speaker for c in project.clips.values() if c.speaker}) > 1
    for clip in chosen:
        audio, info = load(project.clip_path(clip.id))
        write_audio(out / "wavs" / f"{clip.id}.wav", resample(audio[:, 0], info.sample_rate, rate), rate)
        text = " ".join(clip.text.split())
        lines.append(f"{clip.id}|{clip.speaker or ''}|{text}" if multi else f"{clip.id}|{text}")
        result.written.append(clip.id)
    write_text(out / "metadata.csv", "\n".join(lines) + "\n")
    return result
