"""What format an audio response body is in, decided from its bytes and its Content-Type, never from the
format that was asked for.

Some servers answer a ``pcm`` request with a WAV (16-bit, or 32-bit float), or
send MP3 whatever was asked; decoding such a body by the requested format plays
its header as samples, or float bits as 16-bit noise. The first bytes decide
(file signatures: ``RIFF....WAVE``, ``fLaC``, ``OggS``, ``ID3``), then the
Content-Type, then an MPEG audio frame header (not for ``pcm`` requests, whose
samples may look like one), and only then the request. A body found to be in
another format than asked is decoded as what it is, and :attr:`SniffingDecoder.notice`
says so.
"""

from __future__ import annotations

import numpy as np

from engines.remote.decode import BodyDecoder, decoder_for

HEAD_BYTES = 12
"""Bytes needed to recognize every signature (RIFF's is 12: ``RIFF``, size, ``WAVE``)."""

SIGNATURES = ((b"fLaC", "flac"), (b"OggS", "ogg"), (b"ID3", "mp3"))
"""Leading bytes -> format (FLAC's stream marker, an Ogg page, an ID3v2 tag before MPEG audio)."""

CONTENT_TYPES = {
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/wave": "wav",
    "audio/vnd.wave": "wav",
    "audio/flac": "flac",
    "audio/x-flac": "flac",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
    "audio/ogg": "ogg",
    "audio/opus": "ogg",
    "audio/pcm": "pcm",
}
"""Content types (without parameters) -> format. ``audio/L16`` is not here: it is big-endian (RFC 2586)."""


def _mpeg_frame(head: bytes) -> bool:
    """True for a plausible MPEG audio frame header: 11 sync bits, a layer, a bitrate index that is not
    "bad" and a sample rate index that is not reserved (ISO/IEC 11172-3, 2.4.2.3)."""
    if len(head) < 4 or head[0] != 0xFF or head[1] & 0xE0 != 0xE0:
        return False
    layer, bitrate, rate = (head[1] >> 1) & 3, head[2] >> 4, (head[2] >> 2) & 3
    return layer != 0 and bitrate not in (0, 15) and rate != 3


def body_format(head: bytes, content_type: str, requested: str) -> str:
    """The format of a body that starts with ``head``: ``pcm``, ``wav``, ``flac``, ``mp3`` or ``ogg``
    (``requested`` where neither the bytes nor ``content_type`` say)."""
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "wav"
    for signature, name in SIGNATURES:
        if head.startswith(signature):
            return name
    declared = CONTENT_TYPES.get(content_type.split(";")[0].strip().lower())
    if declared:
        return declared
    if requested != "pcm" and _mpeg_frame(head):
        return "mp3"
    return requested


class SniffingDecoder:
    """A decoder for whatever format the body turns out to be; feeds the first ``HEAD_BYTES`` to
    :func:`body_format`, then to the decoder of that format (``engines.remote.decode``).

    Args:
        requested: the ``response_format`` asked for.
        content_type: the response's Content-Type (empty for audio inside server-sent events).
        pcm_rate: Hz of a raw ``pcm`` body (the body does not say).
    """

    def __init__(self, requested: str, content_type: str, pcm_rate: int) -> None:
        self.requested, self.content_type, self.pcm_rate = requested, content_type, pcm_rate
        self.found: str | None = None
        self.inner: BodyDecoder | None = None
        self._head = b""

    @property
    def sample_rate(self) -> int | None:
        """The inner decoder's rate, once known."""
        return self.inner.sample_rate if self.inner is not None else None

    @property
    def notice(self) -> str:
        """A sentence for the user when the body was not in the requested format; empty otherwise."""
        if self.found is None or self.found == self.requested or {self.found, self.requested} == {"ogg", "opus"}:
            return ""
        sent = f" ({self.content_type})" if self.content_type else ""
        return f"asked for {self.requested}, the server sent {self.found}{sent}: played as {self.found}"

    def feed(self, data: bytes) -> np.ndarray:
        """Samples complete after ``data``, float32 ``[N]``.

        Raises:
            DecodeError: the body is not valid audio of the format found.
        """
        if self.inner is not None:
            return self.inner.feed(data)
        self._head += data
        return self._start() if len(self._head) >= HEAD_BYTES else np.zeros(0, np.float32)

    def finish(self) -> np.ndarray:
        """The last samples (a body shorter than ``HEAD_BYTES`` is decided here).

        Raises:
            DecodeError: the body ended too early, or is not valid audio of the format found.
        """
        first = self._start() if self.inner is None else np.zeros(0, np.float32)
        assert self.inner is not None  # _start chose it
        return np.concatenate([first, self.inner.finish()])

    def _start(self) -> np.ndarray:
        self.found = body_format(self._head, self.content_type, self.requested) if self._head else self.requested
        self.inner = inner = decoder_for(self.found, self.pcm_rate)
        head, self._head = self._head, b""
        return inner.feed(head)
