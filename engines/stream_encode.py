"""Encoding synthesized audio for HTTP responses: streamed (as chunks come) or whole.

- ``pcm``: signed 16-bit little-endian mono, no header (OpenAI's ``pcm``); the
  rate travels in the ``X-Sample-Rate`` header and the content type.
- ``wav``: 16-bit PCM RIFF/WAVE. Whole responses carry exact sizes; a streamed
  one carries one header whose RIFF and ``data`` sizes are 0xFFFFFFFF ("unknown",
  as ffmpeg and most streaming servers write them).
- ``flac``, ``mp3``: encoded by libsndfile once the audio is complete; their
  encoders seek back to finish the header, which a stream cannot do.

Audio at another rate than the voice's (``pcm`` at OpenAI's 24 kHz) goes through
:class:`Resampler` chunk by chunk first.
"""

from __future__ import annotations

import io
import struct

import numpy as np

MEDIA_TYPES = {"pcm": "audio/pcm", "wav": "audio/wav", "flac": "audio/flac", "mp3": "audio/mpeg"}
"""Response formats the server writes -> content type."""

STREAMABLE = ("pcm", "wav")
"""Formats sent piece by piece as the audio is synthesized."""

UNKNOWN_SIZE = 0xFFFFFFFF
"""RIFF and ``data`` size in a streamed WAV header."""

_SNDFILE = {"flac": ("FLAC", "PCM_16"), "mp3": ("MP3", "MPEG_LAYER_III")}


def pcm16(audio: np.ndarray) -> bytes:
    """Float32 ``[N]`` in [-1, 1] -> signed 16-bit little-endian bytes (clipped, rounded)."""
    scaled = np.clip(np.asarray(audio, np.float32), -1.0, 1.0) * 32767.0
    return np.rint(scaled).astype("<i2").tobytes()


def wav_header(sample_rate: int, data_bytes: int | None) -> bytes:
    """A 44-byte header for mono 16-bit PCM; ``data_bytes=None`` writes the streaming placeholders.

    Raises:
        ValueError: ``data_bytes`` does not fit a RIFF size field.
    """
    if data_bytes is None:
        riff, data = UNKNOWN_SIZE, UNKNOWN_SIZE
    elif data_bytes + 36 > UNKNOWN_SIZE - 1:
        raise ValueError(f"{data_bytes} bytes of audio do not fit in a WAV file (limit 4 GiB)")
    else:
        riff, data = 36 + data_bytes, data_bytes
    fmt = struct.pack("<HHIIHH", 1, 1, sample_rate, sample_rate * 2, 2, 16)
    return (
        b"RIFF"
        + struct.pack("<I", riff)
        + b"WAVE"
        + b"fmt "
        + struct.pack("<I", len(fmt))
        + fmt
        + b"data"
        + (struct.pack("<I", data))
    )


def stream_start(response_format: str, sample_rate: int) -> bytes:
    """Bytes that open a streamed body (a WAV header with unknown sizes; nothing for ``pcm``)."""
    return wav_header(sample_rate, None) if response_format == "wav" else b""


def stream_piece(audio: np.ndarray) -> bytes:
    """One chunk of a streamed ``pcm`` or ``wav`` body."""
    return pcm16(audio)


def encode_whole(response_format: str, audio: np.ndarray, sample_rate: int) -> bytes:
    """A complete body for ``audio`` (float32 ``[N]``) with exact sizes.

    Raises:
        ValueError: a format not in ``MEDIA_TYPES``.
    """
    if response_format == "pcm":
        return pcm16(audio)
    if response_format == "wav":
        data = pcm16(audio)
        return wav_header(sample_rate, len(data)) + data
    if response_format not in _SNDFILE:
        raise ValueError(f"unsupported response_format '{response_format}'; supported: {', '.join(MEDIA_TYPES)}")
    import soundfile

    file_format, subtype = _SNDFILE[response_format]
    body = io.BytesIO()
    soundfile.write(body, np.clip(audio, -1.0, 1.0), sample_rate, subtype=subtype, format=file_format)
    return body.getvalue()


class Resampler:
    """Streaming resampling of float32 ``[N]`` chunks with soxr (its "HQ" quality), or none when the rates
    match. Chunk boundaries do not change the samples, so a streamed and a whole response stay equal."""

    def __init__(self, in_rate: int, out_rate: int) -> None:
        import soxr

        self._stream = soxr.ResampleStream(in_rate, out_rate, 1, dtype="float32") if in_rate != out_rate else None

    def __call__(self, audio: np.ndarray) -> np.ndarray:
        """The output samples this chunk completes."""
        return audio if self._stream is None else self._stream.resample_chunk(audio)

    def finish(self) -> np.ndarray:
        """The samples still held by the filter (empty without resampling)."""
        empty = np.zeros(0, np.float32)
        return empty if self._stream is None else self._stream.resample_chunk(empty, last=True)
