"""Encoding synthesized audio for HTTP responses: streamed (as chunks come) or whole.

- ``pcm``: signed 16-bit little-endian mono, no header (OpenAI's ``pcm``); the
  rate travels in the ``X-Sample-Rate`` header and the content type.
- ``wav``: 16-bit PCM RIFF/WAVE. Whole responses carry exact sizes; a streamed
  one carries one header whose RIFF and ``data`` sizes are 0xFFFFFFFF ("unknown",
  as ffmpeg and most streaming servers write them).
- ``flac``, ``mp3``, ``opus`` (Ogg Opus, RFC 7845): encoded by libsndfile once
  the audio is complete; their encoders seek back to finish the header, which a
  stream cannot do. ``opus`` and ``mp3`` are offered where the libsndfile build
  writes them (:func:`response_formats`). ``aac`` is not offered: no AAC encoder
  is at hand without a large new dependency (ffmpeg).

Audio at another rate than the voice's (``pcm`` at OpenAI's 24 kHz, ``opus`` at
48 kHz: :func:`carried_rate`) goes through :class:`Resampler` chunk by chunk first.
"""

from __future__ import annotations

import functools
import io
import struct

import numpy as np

from engines.imports import importing

MEDIA_TYPES = {
    "pcm": "audio/pcm",
    "wav": "audio/wav",
    "flac": "audio/flac",
    "mp3": "audio/mpeg",
    "opus": "audio/ogg; codecs=opus",
}
"""Response formats the server can write -> content type (Ogg Opus: RFC 7845, section 9)."""

STREAMABLE = ("pcm", "wav")
"""Formats sent piece by piece as the audio is synthesized."""

UNKNOWN_SIZE = 0xFFFFFFFF
"""RIFF and ``data`` size in a streamed WAV header."""

NOT_OFFERED = {"aac": "this server has no AAC encoder"}
"""OpenAI response formats the server refuses, and why."""

CARRIED_RATES = {
    "opus": (8000, 12000, 16000, 24000, 48000),
    "mp3": (8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000),
}
"""Hz each format can carry: Opus's input rates (RFC 7845, section 5.1; libopus), MPEG-1/2/2.5 Layer III's."""

OPUS_RATE = 48000
"""Opus codes at 48 kHz (RFC 6716, section 2) and its decoders give 48 kHz back: other rates go there."""

_SNDFILE = {"flac": ("FLAC", "PCM_16"), "mp3": ("MP3", "MPEG_LAYER_III"), "opus": ("OGG", "OPUS")}


@functools.cache
def response_formats() -> tuple[str, ...]:
    """The formats of ``MEDIA_TYPES`` this machine's libsndfile can write (``mp3`` needs libsndfile 1.1,
    ``opus`` a build with Ogg Opus), in ``MEDIA_TYPES`` order."""
    with importing("soundfile"):
        import soundfile

    def writable(name: str) -> bool:
        if name not in _SNDFILE:
            return True
        file_format, subtype = _SNDFILE[name]
        return file_format in soundfile.available_formats() and subtype in soundfile.available_subtypes(file_format)

    return tuple(name for name in MEDIA_TYPES if writable(name))


def carried_rate(response_format: str, rate: int) -> int:
    """Hz at which ``response_format`` carries audio asked for at ``rate``: ``rate`` itself where the format
    can carry it, else 48 kHz for ``opus`` and the next higher MP3 rate (at most 48 kHz) for ``mp3``."""
    rates = CARRIED_RATES.get(response_format)
    if rates is None or rate in rates:
        return rate
    if response_format == "opus":
        return OPUS_RATE
    return min((r for r in rates if r >= rate), default=max(rates))


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
        ValueError: a format not in ``response_formats()``, or a rate it cannot carry (see :func:`carried_rate`).
    """
    if response_format == "pcm":
        return pcm16(audio)
    if response_format == "wav":
        data = pcm16(audio)
        return wav_header(sample_rate, len(data)) + data
    if response_format not in _SNDFILE or response_format not in response_formats():
        raise ValueError(unsupported_message(response_format))
    if carried_rate(response_format, sample_rate) != sample_rate:
        raise ValueError(f"{response_format} cannot carry {sample_rate} Hz audio (resample to a carried rate first)")
    with importing("soundfile"):
        import soundfile

    file_format, subtype = _SNDFILE[response_format]
    body = io.BytesIO()
    soundfile.write(body, np.clip(audio, -1.0, 1.0), sample_rate, subtype=subtype, format=file_format)
    return body.getvalue()


def unsupported_message(response_format: str) -> str:
    """Why ``response_format`` is refused, listing the formats this server writes."""
    reason = NOT_OFFERED.get(response_format, "")
    if response_format in MEDIA_TYPES:
        reason = "this machine's libsndfile cannot write it"
    return (
        f"unsupported response_format '{response_format}'{f' ({reason})' if reason else ''}; "
        f"supported: {', '.join(response_formats())}"
    )


class Resampler:
    """Streaming resampling of float32 ``[N]`` chunks with soxr (its "HQ" quality), or none when the rates
    match. Chunk boundaries do not change the samples, so a streamed and a whole response stay equal."""

    def __init__(self, in_rate: int, out_rate: int) -> None:
        with importing("soxr"):
            import soxr

        self._stream = soxr.ResampleStream(in_rate, out_rate, 1, dtype="float32") if in_rate != out_rate else None

    def __call__(self, audio: np.ndarray) -> np.ndarray:
        """The output samples this chunk completes."""
        return audio if self._stream is None else self._stream.resample_chunk(audio)

    def finish(self) -> np.ndarray:
        """The samples still held by the filter (empty without resampling)."""
        empty = np.zeros(0, np.float32)
        return empty if self._stream is None else self._stream.resample_chunk(empty, last=True)
