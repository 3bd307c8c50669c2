"""A dataset project's manifest: the versioned record of every clip, and reading and writing it.

``manifest.json`` holds the manifest version, the voice config texts are measured
against, one :class:`ClipEntry` per clip (source, hash, text, status,
measurements, edits) and one :class:`SlicePlan` per long recording sliced or being sliced
(``slicings``; optional: a version 2 manifest without it has none). Older versions
are brought up to date when read (:func:`migrate`); writes are atomic.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engines.files import write_text
from engines.records import read_json_object, record
from trainer.dataset.metadata import MetadataError

MANIFEST_VERSION = 2


@dataclass
class ClipEntry:
    """One clip in the manifest.

    Attributes:
        id: unique within the project.
        source: path of the original recording.
        source_sha256: digest of the original file's bytes.
        text, speaker: transcript and speaker (``None`` when unknown).
        text_origin: where the text came from (``metadata.csv:12``, ``clip.txt``...).
        status: ``ok`` (curated copy written), ``error`` (unreadable), ``excluded`` (by the user).
        error: why the clip could not be read.
        analysis: measurements (``trainer.dataset.analysis.ClipAnalysis`` as a dict).
        audio_sha256: digest of the decoded samples, for duplicate detection.
        edits: what was done to the curated copy or the text, in order.
        reviewed: False for a draft transcript no person has confirmed yet.
        span: ``[start_s, end_s]`` in the source for a clip sliced from a longer recording.
    """

    id: str
    source: str
    source_sha256: str
    text: str | None
    speaker: str | None = None
    text_origin: str = ""
    status: str = "ok"
    error: str | None = None
    analysis: dict[str, Any] | None = None
    audio_sha256: str | None = None
    edits: list[str] = field(default_factory=list)
    reviewed: bool = True
    span: list[float] | None = None

    @property
    def unreadable(self) -> bool:
        """The clip could not be read (status ``error``, or excluded while it was: ``error`` says why)."""
        return self.status == "error" or self.error is not None


@dataclass(kw_only=True)
class SlicePlan:
    """Where a long recording is cut (``trainer.dataset.slicing_run``), recorded before its first draft is made.

    Attributes:
        source, source_sha256: the recording's path and the digest of its bytes.
        base: its clips' name prefix: the clip of ``spans[n - 1]`` is ``BASE_00n`` (``f"{base}_{n:03d}"``).
        spans: ``[start_s, end_s]`` of each utterance, in the recording's order.
        options: the ``trainer.dataset.slicing.SliceOptions`` (as a dict) that found ``spans``.
        complete: set, in the same atomic manifest write as its last draft, once every utterance has its clip;
            until then slicing the recording again drafts the utterances that have none.
    """

    source: str
    source_sha256: str
    base: str
    spans: list[list[float]]
    options: dict[str, Any] = field(default_factory=dict)
    complete: bool = False

    def clip_id(self, index: int) -> str:
        """The id of the clip of ``spans[index]`` (``index`` from 0)."""
        return f"{self.base}_{index + 1:03d}"


def migrate(document: dict[str, Any], path: Path) -> dict[str, Any]:
    """Bring a manifest up to ``MANIFEST_VERSION``; version 1 lacked ``reviewed`` and ``span``.

    Raises:
        ValueError: a version this code does not know (newer, or not a manifest).
    """
    version = document.get("version")
    if version == 1:
        for clip in document.get("clips", []):
            if isinstance(clip, dict):  # others are refused when read
                clip.setdefault("reviewed", True)
            clip.setdefault("span", None)
        document["version"] = version = 2
    if version != MANIFEST_VERSION:
        raise ValueError(f"{path}: manifest version {version!r} is not one this version reads ({MANIFEST_VERSION})")
    return document


class NotAProject(MetadataError):
    """A folder given as a dataset project that has no ``manifest.json`` (nothing was created there).

    ``holds_other_things``: the folder is not empty, so no project is made in it either (its files would be mixed
    with the project's).
    """

    def __init__(self, folder: Path, *, holds_other_things: bool = False) -> None:
        how = (
            "choose an empty folder or a new one"
            if holds_other_things
            else "create one with voice-studio dataset import"
        )
        super().__init__(folder, f"not a dataset project (no manifest.json); {how}")


def read_manifest(path: Path) -> tuple[str | None, dict[str, ClipEntry], list[SlicePlan]]:
    """Read ``manifest.json``, migrated to ``MANIFEST_VERSION``: the voice config path (or ``None``), the clips by
    id, and the slicing plans (:class:`SlicePlan`).

    Raises:
        MetadataError: a manifest that cannot be read (names the file and field).
        ValueError: a manifest version this code does not know (:func:`migrate`).
    """
    raw = read_json_object(path, MetadataError)
    for key in ("clips", "slicings"):
        if not isinstance(raw.get(key, []), list):
            raise MetadataError(path, f"must be a list of {key}", key)
    raw = migrate(raw, path)
    if not isinstance(raw.get("voice_config"), str | None):
        raise MetadataError(path, f"must be a path or null, got {raw['voice_config']!r}", "voice_config")
    clips = [record(ClipEntry, c, path, f"clips[{i}]", MetadataError) for i, c in enumerate(raw.get("clips", []))]
    plans = [record(SlicePlan, p, path, f"slicings[{i}]", MetadataError) for i, p in enumerate(raw.get("slicings", []))]
    return raw.get("voice_config"), {c.id: c for c in clips}, plans


def write_manifest(
    path: Path, voice_config: str | None, clips: dict[str, ClipEntry], slicings: list[SlicePlan] | None = None
) -> None:
    """Write ``manifest.json`` atomically at ``MANIFEST_VERSION`` with the clips in their order (and the slicing
    plans, when there are any)."""
    document: dict[str, Any] = {
        "version": MANIFEST_VERSION,
        "voice_config": voice_config,
        "clips": [asdict(c) for c in clips.values()],
    }
    if slicings:
        document["slicings"] = [asdict(p) for p in slicings]
    write_text(path, json.dumps(document, ensure_ascii=False, indent=1))
