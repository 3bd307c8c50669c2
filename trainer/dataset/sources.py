"""Finding recordings and their transcripts in what a user drops: folders, files, archives.

Layouts recognised, per folder:

- LJSpeech/Piper: a ``metadata.csv`` beside the audio or beside a ``wavs/`` folder;
  each entry's audio is ``wavs/ID.ext`` or ``ID.ext`` (``.wav``, ``.flac``, ``.ogg``, ``.mp3``).
- Sidecar transcripts: ``clip.wav`` with ``clip.txt`` or ``clip.lab``.
- Audio without text: listed with ``text=None`` (to be transcribed or typed later).

Archives (zip, tar, tar.gz, tar.xz: ``trainer.dataset.archives``), dropped or lying in a dropped folder,
are unpacked into a folder the caller owns, never beside the archive, with the archives inside them, to a
bounded depth and size. Nothing found is modified.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from trainer.dataset.archives import Budget, archive_stem, is_archive, unpack
from trainer.dataset.metadata import AUDIO_SUFFIXES, MetadataError, read_metadata
from trainer.dataset.text_files import NotText, decode_text


@dataclass(frozen=True)
class SourceClip:
    """One recording found, with its transcript if any.

    Attributes:
        audio: the recording's path.
        text: transcript, or ``None`` when there is none.
        speaker: speaker name from a multi-speaker metadata file.
        origin: where the text came from, e.g. ``metadata.csv:12`` or ``clip.txt``.
    """

    audio: Path
    text: str | None
    speaker: str | None = None
    origin: str = ""


@dataclass
class Scan:
    """What a scan found, and the problems it met (each names the file and, where known, the line)."""

    clips: list[SourceClip] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def scan(paths: list[Path | str], unpack_dir: Path | None = None) -> Scan:
    """Find recordings in files, folders and archives (and archives inside them).

    ``unpack_dir`` receives archive contents (one subfolder per archive); without it,
    archives are reported as problems.
    """
    result = Scan()
    seen: set[Path] = set()
    for path in map(Path, paths):
        before = (len(result.clips), len(result.problems))
        _scan_path(path, unpack_dir, result, seen)
        if (len(result.clips), len(result.problems)) == before:
            result.problems.append(f"{path}: no recordings found; expected {EXPECTED}")
    return result


EXPECTED = (
    "audio files (.wav, .flac, .ogg, .mp3), an LJSpeech folder (metadata.csv beside a wavs/ folder of ID.wav), "
    "or archives of them (.zip, .tar, .tar.gz, .tar.xz)"
)
"""What a scan looks for, as the message of one that finds nothing says it."""


def _scan_path(path: Path, unpack_dir: Path | None, result: Scan, seen: set[Path]) -> None:
    if path.is_dir():
        _scan_archives_in(path, unpack_dir, result, seen)
        _scan_folder(path, result, seen)
    elif is_archive(path):
        _scan_archive(path, unpack_dir / archive_stem(path) if unpack_dir else None, Budget(), result, seen)
    elif path.suffix.lower() in AUDIO_SUFFIXES:
        _add(result, seen, _with_sidecar(path, result.problems))
    elif path.name.lower().endswith(".csv") and path.is_file():
        _scan_metadata(path, result, seen)
    else:
        result.problems.append(f"{path}: not a folder, archive, metadata.csv or recording")


def _add(result: Scan, seen: set[Path], clip: SourceClip) -> None:
    key = clip.audio.absolute()
    if key not in seen:
        seen.add(key)
        result.clips.append(clip)


def _scan_folder(folder: Path, result: Scan, seen: set[Path]) -> None:
    for metadata in sorted(folder.rglob("metadata.csv")):
        _scan_metadata(metadata, result, seen)
    for audio in sorted(p for p in folder.rglob("*") if p.suffix.lower() in AUDIO_SUFFIXES and p.is_file()):
        if audio.absolute() not in seen:
            _add(result, seen, _with_sidecar(audio, result.problems))


def _scan_metadata(path: Path, result: Scan, seen: set[Path]) -> None:
    try:
        metadata = read_metadata(path)
    except MetadataError as exc:
        result.problems.append(str(exc))
        return
    result.problems.extend(f"{path}: line {p.line}: {p.message}" for p in metadata.problems)
    missing = []
    for entry in metadata.entries:
        audio = find_audio(path.parent, entry.id)
        if audio is None:
            missing.append(
                f"{path}: line {entry.line}: no audio file for '{entry.id}' "
                f"(looked for {entry.id}.wav in {path.parent / 'wavs'} and {path.parent})"
            )
            continue
        _add(result, seen, SourceClip(audio, entry.text, entry.speaker, f"{path.name}:{entry.line}"))
    if missing and len(missing) == len(metadata.entries):  # the layout, not a few files: say what was expected
        missing = [
            f"{path}: no audio for {_its_lines(len(missing))}; expected an LJSpeech folder: "
            f"{path.parent / 'wavs'} holding ID.wav (or .flac, .ogg, .mp3) for each line's ID, or the audio beside it"
        ]
    result.problems.extend(missing)


def _its_lines(n: int) -> str:
    """ "its line" or "any of its 12 lines"."""
    return "its line" if n == 1 else f"any of its {n} lines"


def find_audio(folder: Path, utterance_id: str) -> Path | None:
    """The audio of a metadata line in a Piper folder: ``wavs/ID.ext`` or ``ID.ext`` (``AUDIO_SUFFIXES``), or
    ``None``."""
    for base in (folder / "wavs", folder):
        for suffix in AUDIO_SUFFIXES:
            candidate = base / f"{utterance_id}{suffix}"
            if candidate.is_file():
                return candidate
    return None


def _with_sidecar(audio: Path, problems: list[str]) -> SourceClip:
    """The recording with the transcript of its ``.txt`` or ``.lab`` beside it; one that cannot be read as text
    (``trainer.dataset.text_files``) is a problem naming it, and the clip comes without a transcript."""
    for suffix in (".txt", ".lab"):
        sidecar = audio.with_suffix(suffix)
        if sidecar.is_file():
            try:
                text = decode_text(sidecar.read_bytes()).strip()
            except (OSError, NotText) as exc:
                problems.append(f"{sidecar}: {getattr(exc, 'strerror', None) or exc}")
                return SourceClip(audio, None)
            return SourceClip(audio, text or None, None, sidecar.name)
    return SourceClip(audio, None)


def _scan_archives_in(folder: Path, unpack_dir: Path | None, result: Scan, seen: set[Path]) -> None:
    """The archives lying in a dropped folder, each unpacked under ``unpack_dir/FOLDER/`` at its relative place
    (all of them within one ``Budget``)."""
    budget = Budget()
    for archive in sorted(p for p in folder.rglob("*") if is_archive(p) and p.is_file()):
        where = archive.parent.relative_to(folder) / archive_stem(archive)
        _scan_archive(archive, unpack_dir / folder.name / where if unpack_dir else None, budget, result, seen)


def _scan_archive(path: Path, target: Path | None, budget: Budget, result: Scan, seen: set[Path]) -> None:
    """Unpack the archive ``path`` into ``target`` (``None``: no folder given to unpack into) and scan that."""
    if target is None:
        result.problems.append(f"{path}: archives need a folder to unpack into")
    elif unpack(path, target, result.problems, budget):
        _scan_folder(target, result, seen)
