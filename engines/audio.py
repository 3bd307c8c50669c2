"""Float32 audio helpers: joining chunks, WAV files, level measures.

Audio inside the project is mono float32 in [-1, 1], shape ``[N]``.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from engines import files
from engines.files import atomic_path
from engines.imports import importing


def concat(chunks: Iterable[np.ndarray]) -> np.ndarray:
    """Join audio pieces into one ``[N]`` float32 array (empty if none)."""
    pieces = [np.asarray(c, dtype=np.float32).reshape(-1) for c in chunks]
    return np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.float32)


FORMATS = {".wav": ("WAV", "PCM_16"), ".flac": ("FLAC", "PCM_16"), ".ogg": ("OGG", "VORBIS")}
"""File extension -> (soundfile format, subtype) that ``write_audio`` writes."""


def check_output_path(path: Path | str) -> Path:
    """Check that audio can be written at ``path`` before any work is done.

    Raises:
        ValueError: the extension is not one of ``FORMATS``, the path is a
            folder, or its folder does not exist.
    """
    return files.check_output_path(path, tuple(FORMATS), "audio file")


def write_audio(path: Path | str, audio: np.ndarray, sample_rate: int) -> Path:
    """Write mono audio atomically, in the format its extension names (``FORMATS``; WAV is 16-bit, as Piper's).

    A crash never leaves a half-written file: the audio goes to a temporary file
    beside the target, which then replaces it. The new file gets the usual
    permissions (0666 less the umask), or those of the file it replaces.
    Samples are clipped to [-1, 1].

    The file is encoded in memory first and written by Python, so a disk that fills or a size limit is the OS's
    own ``OSError`` naming the file ("No space left on device"), not libsndfile's bare "System error".

    Raises:
        ValueError: see ``check_output_path``.
        OSError: the folder is not writable, or the file could not be written whole (the OS's reason).
    """
    with importing("soundfile"):
        import soundfile

    path = check_output_path(path)
    file_format, subtype = FORMATS[path.suffix.lower()]
    encoded = io.BytesIO()
    soundfile.write(encoded, np.clip(audio, -1.0, 1.0), sample_rate, subtype=subtype, format=file_format)
    with atomic_path(path) as tmp:
        tmp.write_bytes(encoded.getbuffer())
    return path


def snr_db(reference: np.ndarray, test: np.ndarray) -> float:
    """Signal-to-noise ratio of ``test`` against ``reference`` in dB: 10 log10(sum r^2 / sum (t - r)^2).

    Raises:
        ValueError: lengths differ.
    """
    if len(reference) != len(test):
        raise ValueError(f"lengths differ: {len(reference)} vs {len(test)} samples")
    noise = float(np.sum((np.asarray(test, np.float64) - reference) ** 2))
    signal = float(np.sum(np.asarray(reference, np.float64) ** 2))
    return float("inf") if noise == 0 else 10.0 * np.log10(signal / noise)


def rms_db(audio: np.ndarray) -> float:
    """RMS level in dBFS (-inf for silence)."""
    rms = float(np.sqrt(np.mean(np.square(audio, dtype=np.float64)))) if len(audio) else 0.0
    return 20.0 * np.log10(rms) if rms > 0 else float("-inf")


def envelope(audio: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Min and max of ``audio`` over ``bins`` equal spans, for drawing a waveform cheaply."""
    bins = max(1, min(bins, len(audio)))
    usable = len(audio) - len(audio) % bins
    if usable == 0:
        return np.zeros(0, np.float32), np.zeros(0, np.float32)
    spans = audio[:usable].reshape(bins, -1)
    return spans.min(axis=1), spans.max(axis=1)
