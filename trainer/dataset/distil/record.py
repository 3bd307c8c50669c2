"""``distil.json``: a distilled project's record of its teacher and of each line done.

Layout (version 1)::

    {"version": 1,
     "teacher": {"url": …, "model": …, "voice": …, "date": "2026-12-04", "consent": true, "licence": "…"},
     "planned": ["line", …],                 the lines chosen, in order (a later run with a larger --count adds)
     "lines": [{"text": …, "clip": "distil_0001" | null, "takes": [{…measures…, "rejected": "why" | null}]}]}

A line is done once it is in ``lines`` (its take kept, or every candidate rejected); a later run skips it. The
file is written atomically after each line, so an interruption loses at most the line in progress. The API key
is never written. ``teacher`` is what an exported voice's config carries (``training.teacher``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engines.files import write_text
from engines.records import read_json_object, record
from trainer.dataset.metadata import MetadataError

VERSION = 1
NAME = "distil.json"


@dataclass(frozen=True, kw_only=True)
class Provenance:
    """Where a distilled dataset's audio came from.

    Attributes:
        url, model, voice: the teacher (``trainer.dataset.distil.teacher.TeacherChoice``, without its key).
        date: the first run's day, ISO 8601 (UTC).
        consent: the person running it said they may use this voice (``--i-may-use-this-voice``).
        licence: what they said of the voice's terms, as given (may be empty).
    """

    url: str
    model: str
    voice: str
    date: str
    consent: bool
    licence: str = ""

    def same_teacher(self, other: Provenance) -> bool:
        return (self.url.rstrip("/"), self.model, self.voice) == (other.url.rstrip("/"), other.model, other.voice)

    def describe(self) -> str:
        return f"{self.model} / {self.voice} at {self.url} ({self.date})"


@dataclass(kw_only=True)
class LineDone:
    """One line asked of the teacher: its text, the clip kept (``None``: every take was rejected) and each
    take's measures (``trainer.dataset.distil.judge.Verdict.as_dict``)."""

    text: str
    clip: str | None
    takes: list[dict[str, Any]] = field(default_factory=list)


@dataclass(kw_only=True)
class DistilRecord:
    """The whole of ``distil.json``."""

    teacher: Provenance
    planned: list[str] = field(default_factory=list)
    lines: list[LineDone] = field(default_factory=list)

    def done(self) -> set[str]:
        return {line.text for line in self.lines}

    def kept(self) -> int:
        return sum(1 for line in self.lines if line.clip)


def path_of(folder: Path | str) -> Path:
    return Path(folder) / NAME


def read_record(folder: Path | str) -> DistilRecord | None:
    """The project's ``distil.json``, or ``None`` where it has none (a project never distilled).

    Raises:
        MetadataError: a file that cannot be read, naming it and the field.
    """
    path = path_of(folder)
    if not path.is_file():
        return None
    raw = read_json_object(path, MetadataError)
    if raw.get("version") != VERSION:
        found = raw.get("version")
        raise MetadataError(path, f"version {found!r} is not one this version reads ({VERSION})", "version")
    teacher = record(Provenance, raw.get("teacher"), path, "teacher", MetadataError)
    planned = raw.get("planned", [])
    if not isinstance(planned, list) or not all(isinstance(t, str) for t in planned):
        raise MetadataError(path, "must be a list of lines", "planned")
    lines = raw.get("lines", [])
    if not isinstance(lines, list):
        raise MetadataError(path, "must be a list", "lines")
    done = [record(LineDone, line, path, f"lines[{i}]", MetadataError) for i, line in enumerate(lines)]
    return DistilRecord(teacher=teacher, planned=planned, lines=done)


def write_record(folder: Path | str, document: DistilRecord) -> None:
    """Write ``distil.json`` atomically."""
    body = {"version": VERSION, **asdict(document)}
    write_text(path_of(folder), json.dumps(body, ensure_ascii=False, indent=1))


def teacher_note(folder: Path | str) -> dict[str, Any] | None:
    """What a voice trained on the project in ``folder`` records of its teacher (``url``, ``model``, ``voice``,
    ``date``, ``consent``, ``licence``), or ``None`` for a project not distilled (or a folder that is no project).
    Never raises: a damaged record leaves the note out rather than stopping a training run."""
    try:
        document = read_record(folder)
    except MetadataError:
        return None
    return asdict(document.teacher) if document else None
