"""The trainer's preprocessed cache on disk, and its reader.

One folder::

    cache.json          version, STFT settings, the voice's map digest, the text front end the texts were
                        normalized with (``frontend``: ``engines.frontend.frontend_id``; absent in caches
                        built before normalization, which read texts as written; with the project
                        lexicon's digest where it had one), the lexicon's path (``lexicon``), the teacher of a
                        project distilled from a voice server (``teacher``: server, model, voice, date, consent,
                        licence; ``null`` for recordings), and per utterance: id, speaker, text and where its
                        arrays lie in the files below
    phoneme_ids.i64     all utterances' phoneme_ids, int64, end to end
    audio.f32           all audio at ``sample_rate``, float32 in [-1, 1], end to end
    spec.f32            all spectrograms, float32, frame-major (``[frames, n_fft // 2 + 1]`` each)

Flat files are memory-mapped by :class:`PreprocessedCache`, so a training run
holds the whole dataset in RAM (the page cache) with no per-item file opens.
``trainer.data.preprocess.build`` writes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engines.base import VoiceError
from engines.frontend.lexicon import Lexicon, read_lexicon
from engines.records import read_json_object, record
from trainer.out_folder import holds_only

CACHE_VERSION = 2
"""``cache.json``'s version; 2 added ``teacher`` (:func:`migrate` brings a version 1 up to date when read)."""
FILES = {
    "phoneme_ids": ("phoneme_ids.i64", np.int64),
    "audio": ("audio.f32", np.float32),
    "spec": ("spec.f32", np.float32),
}


def _said(frontend: str) -> str:
    """A front end's id in words: ``text front end en-us/1``, or ``no text front end (texts as written)``."""
    return f"text front end {frontend}" if frontend else "no text front end (texts as written)"


def is_cache(folder: Path) -> bool:
    """Whether ``folder`` is a training cache we wrote (``cache.json`` and the array files, nothing else)."""
    return (folder / "cache.json").is_file() and holds_only(folder, {"cache.json", *(n for n, _ in FILES.values())})


@dataclass(frozen=True)
class CacheSettings:
    """Audio and STFT settings (Piper's defaults): sample_rate in Hz; n_fft, hop_length, win_length in samples."""

    sample_rate: int = 22050
    n_fft: int = 1024
    hop_length: int = 256
    win_length: int = 1024


@dataclass
class Utterance:
    """One cached utterance: ``phoneme_ids`` / ``audio`` / ``spec`` are ``[offset, length]`` in their files
    (in elements; spec in frames)."""

    id: str
    speaker: str | None
    text: str
    phoneme_ids: list[int]
    audio: list[int]
    spec: list[int]

    @property
    def alignable(self) -> bool:
        """Whether MAS can align it: no more phoneme_ids than spec frames (each text position needs a frame of
        its own). Training leaves other utterances out, on the host, so the GPU search never meets an item
        without a path (``trainer.align.search_indices`` does not check lengths on the GPU)."""
        return self.phoneme_ids[1] <= self.spec[1]


@dataclass(kw_only=True)
class _Manifest:
    """The fields of ``cache.json`` (:func:`_write_manifest`)."""

    version: int
    settings: dict[str, Any]
    spec_channels: int
    voice_config: str
    phoneme_id_map_sha256: str
    speakers: list[str]
    utterances: list[Any]
    frontend: str = ""
    lexicon: str = ""
    lexicon_entries: dict[str, str] = field(default_factory=dict)  # absent in caches built before 2026-12-04
    teacher: dict[str, Any] | None = None


def migrate(document: dict[str, Any], path: Path) -> dict[str, Any]:
    """Bring a ``cache.json`` up to ``CACHE_VERSION``. Version 1 lacked ``teacher``: it is read from the project
    that built the cache (the folder of its ``lexicon``, always the project's ``lexicon.txt``) where that project
    is still there, else ``None`` (a cache built before ``lexicon`` was recorded, or its project gone).

    Raises:
        ValueError: a version this code does not read (newer, or not a cache).
    """
    version = document.get("version")
    if version == 1:
        document["teacher"] = _project_teacher(document.get("lexicon"))
        document["version"] = version = 2
    if version != CACHE_VERSION:
        raise ValueError(f"{path}: cache version {version!r} is not one this version reads ({CACHE_VERSION})")
    return document


def _project_teacher(lexicon: Any) -> dict[str, Any] | None:
    """The teacher of the project whose lexicon path is ``lexicon`` (``None``: no such project, or not distilled)."""
    from trainer.dataset.distil.record import teacher_note

    return teacher_note(Path(lexicon).parent) if isinstance(lexicon, str) and lexicon else None


class PreprocessedCache:
    """A cache folder opened for reading (arrays memory-mapped).

    Raises:
        ValueError: not a cache, or a version this code does not read.
    """

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)
        manifest = self.folder / "cache.json"
        if not manifest.exists():
            raise ValueError(f"{self.folder}: not a preprocessed cache (no cache.json)")
        header = record(_Manifest, migrate(read_json_object(manifest), manifest), manifest, "cache")
        self.settings = record(CacheSettings, header.settings, manifest, "settings")
        self.spec_channels: int = header.spec_channels
        self.phoneme_id_map_sha256: str = header.phoneme_id_map_sha256
        self.voice_config: str = str(self.folder / header.voice_config)  # a relative path is in the cache
        """The voice config (``.onnx.json``) whose phoneme map built the phoneme_ids."""
        self.speakers: list[str] = header.speakers
        self.frontend: str = header.frontend
        """The text front end its phoneme_ids were made with (``engines.frontend.frontend_id``; ``""``: none)."""
        self.lexicon: str = header.lexicon
        """The project's lexicon file the texts were said with (``engines.frontend.lexicon``; ``""``: none)."""
        self.teacher: dict[str, Any] | None = header.teacher
        """The voice server a distilled project's clips came from (``trainer.dataset.distil.record.teacher_note``;
        ``None``: recordings, or not known)."""
        self.utterances = [record(Utterance, u, manifest, f"utterances[{i}]") for i, u in enumerate(header.utterances)]
        self._arrays = {key: self._map(name, dtype) for key, (name, dtype) in FILES.items()}
        self._check_spans(manifest)
        self._check_speakers(manifest)

    def stale_frontend(self) -> str:
        """Why its phoneme_ids are not what this studio's text front end makes of the texts now (another front end
        or version than the voice config's today, or a lexicon edited since), with the way on; ``""`` when they are.

        Raises:
            LexiconError: the cache's lexicon file has a bad line now (naming it).
        """
        from engines.frontend import frontend_id
        from engines.phonemes import language_of
        from engines.voice import load_config

        now = frontend_id(language_of(load_config(Path(self.voice_config))), self.read_lexicon())
        if self.frontend == now:
            return ""
        return (
            f"{self.folder}: its texts were normalized by {_said(self.frontend)}, this studio's is {_said(now)}: "
            "build the cache again (voice-studio dataset cache, or Build training cache… on the Dataset page)"
        )

    def read_lexicon(self) -> Lexicon:
        """The lexicon its project has now (``engines.frontend.lexicon``; empty where it has none).

        Raises:
            LexiconError: the lexicon file has a bad line (naming it).
        """
        return read_lexicon(self.lexicon, missing_ok=True) if self.lexicon else Lexicon()

    def _check_speakers(self, manifest: Path) -> None:
        """Every utterance's speaker is one of ``speakers``; only a cache of at most one speaker may hold
        utterances without one (a multi-speaker cache built before ``no_speaker`` findings existed).

        Raises:
            VoiceError: naming ``utterances[i].speaker`` and the clip.
        """
        for i, u in enumerate(self.utterances):
            if u.speaker in self.speakers or (u.speaker is None and len(self.speakers) <= 1):
                continue
            message = f"clip {u.id}: speaker {u.speaker!r} is not one of the cache's speakers {self.speakers}"
            raise VoiceError(
                manifest, message + "; rebuild the cache (voice-studio dataset cache)", f"utterances[{i}].speaker"
            )

    def _check_spans(self, manifest: Path) -> None:
        """Every ``[offset, length]`` is a pair inside its file (a truncated array file is refused here).

        Raises:
            VoiceError: naming ``utterances[i].KEY``.
        """
        if self.spec_channels <= 0:
            raise VoiceError(manifest, f"must be a positive integer, got {self.spec_channels}", "cache.spec_channels")
        sizes = {key: len(array) // (self.spec_channels if key == "spec" else 1) for key, array in self._arrays.items()}
        for i, utterance in enumerate(self.utterances):
            for key, size in sizes.items():
                span = getattr(utterance, key)
                if len(span) != 2 or min(span) < 0 or span[0] + span[1] > size:
                    message = f"[offset, length] {span} does not lie in {FILES[key][0]} ({size} long)"
                    raise VoiceError(manifest, message, f"utterances[{i}].{key}")

    def _map(self, name: str, dtype) -> np.ndarray:
        path = self.folder / name
        if path.stat().st_size == 0:
            return np.zeros(0, dtype)
        return np.memmap(path, dtype=dtype, mode="r")

    def __len__(self) -> int:
        return len(self.utterances)

    def phoneme_ids(self, index: int) -> np.ndarray:
        """``[L]`` int64."""
        offset, length = self.utterances[index].phoneme_ids
        return self._arrays["phoneme_ids"][offset : offset + length]

    def audio(self, index: int) -> np.ndarray:
        """``[N]`` float32 at ``settings.sample_rate``."""
        offset, length = self.utterances[index].audio
        return self._arrays["audio"][offset : offset + length]

    def spec(self, index: int) -> np.ndarray:
        """``[n_fft // 2 + 1, frames]`` float32 (a transposed view of the frame-major file)."""
        offset, frames = self.utterances[index].spec
        flat = self._arrays["spec"][offset * self.spec_channels : (offset + frames) * self.spec_channels]
        return flat.reshape(frames, self.spec_channels).T
