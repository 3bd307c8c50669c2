"""Incremental decoding of audio response bodies, whatever their byte boundaries.

An HTTP body arrives in pieces of any size: a piece may end inside a sample,
inside a WAV header or inside a server-sent event. Each decoder here takes the
pieces in order (``feed``) and returns the samples that are complete so far,
as mono float32 ``[N]`` in [-1, 1]; ``finish`` returns the rest or raises when
the body ended too early.

- ``pcm``: raw signed 16-bit little-endian mono (OpenAI's ``pcm``).
- ``wav``: RIFF/WAVE (Microsoft's "Multimedia Programming Interface and Data
  Specifications 1.0", 1991, and the WAVE_FORMAT_EXTENSIBLE note). A streamed
  WAV's sizes may be placeholders: a ``data`` size of 0xFFFFFFFF or 0 means
  "to the end of the body". A known ``data`` size is honoured, and chunks
  other than ``fmt `` and ``data`` (``LIST``, ``fact``…) are skipped, before or
  after the audio, so no non-audio byte is ever played.
  RF64 and BW64 (WAVs past 4 GB: EBU Tech 3306, ITU-R BS.2088) are read the
  same way, their ``data`` size taken from the ``ds64`` chunk.
- ``flac``, ``mp3``, ``opus`` (and ``aiff``): decoded with libsndfile once the
  body is complete (:class:`BufferedDecoder`).

Server-sent events around these bodies (OpenAI's ``stream_format: "sse"``): ``engines.remote.sse``.
"""

from __future__ import annotations

import io
import struct
from typing import Protocol

import numpy as np

from engines.errors import VoiceStudioError
from engines.imports import importing

PLACEHOLDER_SIZES = (0xFFFFFFFF, 0)
"""``data`` chunk sizes that mean "unknown, to the end of the body" in a streamed WAV."""

RIFF_IDS = (b"RIFF", b"RF64", b"BW64")
"""The first four bytes of a WAV: RIFF, or RF64/BW64, whose 32-bit sizes are 0xFFFFFFFF and whose ``ds64``
chunk holds the 64-bit ones."""

_FORMAT_PCM, _FORMAT_FLOAT, _FORMAT_EXTENSIBLE = 1, 3, 0xFFFE


class DecodeError(VoiceStudioError, ValueError):
    """The body is not valid audio of the expected format, or ended too early."""


class BodyDecoder(Protocol):
    """What every decoder here offers (:func:`decoder_for` returns one)."""

    @property
    def sample_rate(self) -> int | None:
        """Hz; None until the body has said it."""

    def feed(self, data: bytes) -> np.ndarray:
        """Samples complete after ``data``, float32 ``[N]``."""

    def finish(self) -> np.ndarray:
        """The last samples, float32 ``[N]``; raises DecodeError when the body ended too early."""


def _to_mono(frames: np.ndarray, channels: int) -> np.ndarray:
    """``[N * channels]`` interleaved float32 -> ``[N]`` mono (channel mean)."""
    if channels == 1:
        return frames.astype(np.float32, copy=False)
    return frames.reshape(-1, channels).mean(axis=1, dtype=np.float32)


def _samples(data: bytes, bits: int, is_float: bool) -> np.ndarray:
    """Little-endian sample bytes (whole samples only) -> float32 in [-1, 1]."""
    if is_float:
        return np.frombuffer(data, "<f4" if bits == 32 else "<f8").astype(np.float32)
    if bits == 8:  # 8-bit WAV is unsigned
        return (np.frombuffer(data, np.uint8).astype(np.float32) - 128.0) / 128.0
    if bits == 16:
        return np.frombuffer(data, "<i2").astype(np.float32) / 32768.0
    if bits == 24:
        raw = np.frombuffer(data, np.uint8).reshape(-1, 3).astype(np.int32)
        value = raw[:, 0] | (raw[:, 1] << 8) | (raw[:, 2] << 16)
        return (np.where(value >= 1 << 23, value - (1 << 24), value) / float(1 << 23)).astype(np.float32)
    return (np.frombuffer(data, "<i4").astype(np.float64) / 2147483648.0).astype(np.float32)


class PcmDecoder:
    """Raw signed 16-bit little-endian PCM; a byte split across pieces waits for its partner.

    Args:
        sample_rate: Hz, from the response headers or the engine settings (the body does not say).
        channels: interleaved channels, downmixed to mono.
    """

    def __init__(self, sample_rate: int, channels: int = 1) -> None:
        self.sample_rate = sample_rate
        self.channels = channels
        self._rest = b""

    def feed(self, data: bytes) -> np.ndarray:
        """Samples complete after ``data``, float32 ``[N]``."""
        data = self._rest + data
        frame = 2 * self.channels
        usable = len(data) - len(data) % frame
        self._rest = data[usable:]
        return _to_mono(_samples(data[:usable], 16, False), self.channels)

    def finish(self) -> np.ndarray:
        """Nothing is left for whole frames; a dangling partial sample is dropped (it cannot be played)."""
        self._rest = b""
        return np.zeros(0, np.float32)


class WavDecoder:
    """A RIFF/WAVE body parsed as it arrives; ``sample_rate`` is known once ``fmt `` has been read.

    Integer PCM of 8, 16, 24 or 32 bits and IEEE float of 32 or 64 bits, any
    channel count (downmixed), plain or WAVE_FORMAT_EXTENSIBLE.
    """

    def __init__(self) -> None:
        self.sample_rate: int | None = None
        self._buffer = b""
        self._state = "riff"
        self._skip = 0  # bytes of an ignored chunk still to drop
        self._left: int | None = None  # data bytes still to come (None: to the end)
        self._format: tuple[int, int, bool] | None = None  # channels, bits, is_float
        self._pad = 0  # the pad byte after an odd-sized data chunk
        self._ds64_data = 0  # an RF64's data size from its ds64 chunk (0: unknown)
        self._received = 0  # bytes fed so far, for the message of a body cut short

    def feed(self, data: bytes) -> np.ndarray:
        """Samples complete after ``data``, float32 ``[N]``.

        Raises:
            DecodeError: not a WAVE body, or an unsupported sample format.
        """
        self._buffer += data
        self._received += len(data)
        out = []
        while True:
            if self._skip:
                dropped = min(self._skip, len(self._buffer))
                self._buffer, self._skip = self._buffer[dropped:], self._skip - dropped
                if self._skip:
                    break
            if self._state == "data":
                out.append(self._take_samples())
                if self._left != 0:
                    break
                self._state = "chunk"
            elif not self._parse_header():
                break
        return np.concatenate(out) if out else np.zeros(0, np.float32)

    def finish(self) -> np.ndarray:
        """Check the body was complete.

        Raises:
            DecodeError: the body ended inside the header or before the ``data`` size it announced.
        """
        if self._state == "riff" or self._format is None:
            raise DecodeError(f"the WAV body ended inside its header ({self._received:,} bytes received)")
        if self._state == "data" and self._left:
            raise DecodeError(f"the WAV body ended {self._left} bytes before the end of its data chunk")
        return np.zeros(0, np.float32)

    def _parse_header(self) -> bool:
        """Read the RIFF header or one chunk header; False when more bytes are needed."""
        if self._state == "riff":
            if len(self._buffer) < 12:
                return False
            if self._buffer[:4] not in RIFF_IDS or self._buffer[8:12] != b"WAVE":
                raise DecodeError(f"not a RIFF/WAVE body (starts with {self._buffer[:12]!r})")
            self._buffer, self._state = self._buffer[12:], "chunk"
            return True
        if len(self._buffer) < 8:
            return False
        chunk_id, size = self._buffer[:4], struct.unpack("<I", self._buffer[4:8])[0]
        if chunk_id == b"fmt ":
            if len(self._buffer) < 8 + size:
                return False
            self._read_format(self._buffer[8 : 8 + size])
            self._buffer, self._skip = self._buffer[8 + size :], size % 2
        elif chunk_id == b"data":
            self._enter_data(size)
        elif chunk_id == b"ds64" and len(self._buffer) < 24:
            return False
        else:
            if chunk_id == b"ds64":  # riffSize, then dataSize (64 bits each): an RF64's real data size
                self._ds64_data = struct.unpack("<Q", self._buffer[16:24])[0]
            self._buffer, self._skip = self._buffer[8:], size + size % 2
        return True

    def _enter_data(self, size: int) -> None:
        """Start the samples of a ``data`` chunk of ``size`` bytes (a placeholder: to the end of the body)."""
        if self._format is None:
            raise DecodeError("the WAV body has a data chunk before its fmt chunk")
        if size == 0xFFFFFFFF and self._ds64_data:
            size = self._ds64_data
        self._buffer, self._state = self._buffer[8:], "data"
        self._left = None if size in PLACEHOLDER_SIZES else size
        self._pad = size % 2 if self._left is not None else 0

    def _read_format(self, fmt: bytes) -> None:
        if len(fmt) < 16:
            raise DecodeError(f"the WAV fmt chunk is {len(fmt)} bytes, expected at least 16")
        tag, channels, rate, _, _, bits = struct.unpack("<HHIIHH", fmt[:16])
        if tag == _FORMAT_EXTENSIBLE and len(fmt) >= 26:
            tag = struct.unpack("<H", fmt[24:26])[0]  # first two bytes of the SubFormat GUID
        is_float = tag == _FORMAT_FLOAT
        if not (tag == _FORMAT_PCM and bits in (8, 16, 24, 32)) and not (is_float and bits in (32, 64)):
            raise DecodeError(f"unsupported WAV sample format (format tag {tag}, {bits} bits)")
        if channels < 1 or rate < 1:
            raise DecodeError(f"invalid WAV fmt chunk: {channels} channels at {rate} Hz")
        self.sample_rate, self._format = rate, (channels, bits, is_float)

    def _take_samples(self) -> np.ndarray:
        assert self._format is not None  # the data state is entered only after the fmt chunk
        channels, bits, is_float = self._format
        frame = channels * bits // 8
        available = len(self._buffer) if self._left is None else min(len(self._buffer), self._left)
        usable = available - available % frame
        if self._left is not None and available == self._left:  # a partial frame ending the chunk is dropped
            usable = available
        samples = _samples(self._buffer[: usable - usable % frame], bits, is_float)
        self._buffer = self._buffer[usable:]
        if self._left is not None:
            self._left -= usable
            if self._left == 0:
                self._skip = self._pad
        return _to_mono(samples, channels)


class BufferedDecoder:
    """A compressed body (FLAC, MP3, Ogg Opus/Vorbis), kept until complete, then decoded by libsndfile."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.sample_rate: int | None = None
        self._body = io.BytesIO()

    def feed(self, data: bytes) -> np.ndarray:
        """Keep ``data``; no samples until the body is complete."""
        self._body.write(data)
        return np.zeros(0, np.float32)

    def finish(self) -> np.ndarray:
        """All samples, float32 ``[N]`` (channels downmixed).

        Raises:
            DecodeError: libsndfile cannot decode the body.
        """
        with importing("soundfile"):
            import soundfile

        self._body.seek(0)
        try:
            audio, self.sample_rate = soundfile.read(self._body, dtype="float32", always_2d=True)
        except (soundfile.LibsndfileError, RuntimeError, TypeError) as exc:
            size = self._body.getbuffer().nbytes
            said = getattr(exc, "error_string", "") or str(exc).split(": ", 1)[-1]  # not "Error opening <BytesIO …>"
            raise DecodeError(f"cannot decode the {self.name} body ({size:,} bytes): {said}") from exc
        return audio.mean(axis=1, dtype=np.float32) if audio.shape[1] > 1 else audio[:, 0]


def decoder_for(response_format: str, pcm_rate: int) -> BodyDecoder:
    """A fresh decoder for an OpenAI ``response_format`` (or ``ogg``); a response body's format is decided by
    ``engines.remote.body_format.SniffingDecoder``, which calls this with the format it found.

    Raises:
        DecodeError: a format this client cannot decode (``aac``).
    """
    if response_format == "pcm":
        return PcmDecoder(pcm_rate)
    if response_format == "wav":
        return WavDecoder()
    if response_format in ("flac", "mp3", "opus", "ogg", "aiff"):
        return BufferedDecoder(response_format)
    raise DecodeError(f"cannot decode response_format '{response_format}'; use pcm, wav, flac, mp3 or opus")
