"""Opening one recording: what it is, and a clear reason when it cannot be used.

Reads WAV (8/16/24/32-bit integer and float), FLAC, OGG and MP3 through
``soundfile`` (libsndfile) at any rate and channel count. Every failure becomes a
:class:`ClipError` whose message names the file and says what is wrong in words
(empty file, not audio, truncated, NaN samples...); the original is only read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engines.errors import VoiceStudioError
from engines.imports import importing


class ClipError(VoiceStudioError, ValueError):
    """A recording that cannot be used; the message names the file."""

    def __init__(self, path: Path | str, message: str) -> None:
        self.path, self.reason = Path(path), message
        super().__init__(f"{self.path}: {message}")

    def __reduce__(self):
        """Pickled whole, so it crosses from a worker process (the cache builder's, the fixes') intact."""
        return type(self), (self.path, self.reason)


@dataclass(frozen=True)
class ClipInfo:
    """A recording's format.

    Attributes:
        sample_rate: Hz.
        channels: channel count.
        frames: samples per channel.
        format, subtype: libsndfile's names, e.g. ``WAV`` / ``PCM_16``.
    """

    path: Path
    sample_rate: int
    channels: int
    frames: int
    format: str
    subtype: str

    @property
    def duration_s(self) -> float:
        """Length in seconds."""
        return self.frames / self.sample_rate


def probe(path: Path | str) -> ClipInfo:
    """The format of a recording, from its header.

    Raises:
        ClipError: missing, empty, or not a readable audio file.
    """
    with importing("soundfile"):
        import soundfile

    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise ClipError(path, "file not found") from None
    if size == 0:
        raise ClipError(path, "empty file (0 bytes)")
    try:
        info = soundfile.info(str(path))
    except (RuntimeError, soundfile.LibsndfileError) as exc:
        raise ClipError(path, f"not a readable audio file ({_reason(exc)})") from None
    if info.samplerate <= 0 or info.channels <= 0:
        raise ClipError(path, f"invalid header: {info.samplerate} Hz, {info.channels} channels")
    return ClipInfo(path, info.samplerate, info.channels, info.frames, info.format, info.subtype)


def load(path: Path | str, allow_nonfinite: bool = False) -> tuple[np.ndarray, ClipInfo]:
    """Read a recording as float32 ``[frames, channels]`` in [-1, 1] (float files may exceed it).

    ``allow_nonfinite``: return NaN or infinite samples as they are (import measures them and the health report
    names them); by default they are refused, so export, the training cache and edits never see them.

    Raises:
        ClipError: see :func:`probe`; also truncated data, no samples, NaN or infinite samples (unless allowed).
    """
    with importing("soundfile"):
        import soundfile

    info = probe(path)
    try:
        audio, _ = soundfile.read(str(info.path), dtype="float32", always_2d=True)
    except (RuntimeError, soundfile.LibsndfileError) as exc:
        raise ClipError(info.path, f"unreadable audio data ({_reason(exc)})") from None
    if len(audio) == 0:
        raise ClipError(info.path, "no audio samples")
    if info.format == "WAV":
        _check_wav_length(info.path)
    if not allow_nonfinite and not np.isfinite(audio).all():
        count = int(audio.size - np.count_nonzero(np.isfinite(audio)))
        raise ClipError(info.path, f"contains {count:,} NaN or infinite samples")
    return audio, info


def _check_wav_length(path: Path) -> None:
    """Refuse a WAV whose ``data`` chunk is shorter than its header says (libsndfile quietly reads what is there).

    Placeholder sizes of streamed WAVs (0 or 0xFFFFFFFF) are accepted.
    """
    import struct

    size = path.stat().st_size
    with path.open("rb") as f:
        header = f.read(12)
        if len(header) < 12 or header[:4] not in (b"RIFF", b"RF64") or header[8:12] != b"WAVE":
            return
        while True:
            chunk = f.read(8)
            if len(chunk) < 8:
                return
            name, length = chunk[:4], struct.unpack("<I", chunk[4:])[0]
            if name == b"data":
                available = size - f.tell()
                if length not in (0, 0xFFFFFFFF) and header[:4] == b"RIFF" and available < length:
                    raise ClipError(
                        path, f"truncated: the header promises {length} bytes of audio, the file holds {available}"
                    )
                return
            f.seek(length + (length & 1), 1)


def _reason(exc: BaseException) -> str:
    text = str(exc).split(":")[-1].strip() or type(exc).__name__
    return text.rstrip(".")
