"""What format an audio response body is in, decided from its bytes before its Content-Type, never from the
format that was asked for.

Some servers answer a ``pcm`` request with a WAV (16-bit, or 32-bit float), or send MP3 whatever was asked,
labelled as what was asked; decoding such a body by the request or the label plays its header as samples, an
MP3 as noise. So the bytes decide first, on every request: file signatures (``RIFF``/``RF64``/``BW64``
``....WAVE``, ``FORM....AIFF``, ``fLaC``, ``OggS``, ``ID3``, an MP4's ``ftyp``), then a chain of MPEG audio or
ADTS frame headers (``engines.remote.frames``), then text (an error page or JSON sent as a 200). Only then the
Content-Type, then a lone MPEG frame header (not for ``pcm`` requests, whose samples may look like one), and
only then the request. A body found to be in another format than asked is decoded as what it is, and
:attr:`SniffingDecoder.notice` says so; one that is recognisably not playable here (AAC, MP4, text) is
refused with a :class:`~engines.remote.decode.DecodeError` naming what it is, never played as PCM.
"""

from __future__ import annotations

import re

import numpy as np

from engines.remote.decode import BodyDecoder, DecodeError, decoder_for
from engines.remote.frames import frame_chain, mpeg_frame
from engines.remote.transport import server_words

HEAD_BYTES = 12
"""Bytes needed to recognize every signature (RIFF's is 12: ``RIFF``, size, ``WAVE``)."""

SIGNATURE = re.compile(
    rb"(?P<flac>fLaC)|(?P<ogg>OggS)|(?P<mp3>ID3)|(?P<wav>RIFF|RF64|BW64)|(?P<aiff>FORM....AIF[FC])|(?P<mp4>....ftyp)",
    re.DOTALL,
)
"""File signatures at the start of a body, each group named after its format: FLAC's stream marker, an Ogg page,
an ID3v2 tag before MPEG audio, a RIFF (a WAV, or another RIFF form, which the WAV decoder refuses by name),
RF64 (EBU Tech 3306) and BW64 (ITU-R BS.2088), WAVs past 4 GB; AIFF and AIFF-C (an IFF ``FORM``); an MP4/M4A's
``ftyp`` box (ISO/IEC 14496-12)."""

UNDECODABLE = {"aac": ("AAC audio in ADTS frames", "AAC"), "mp4": ("an MP4/M4A file", "MP4")}
"""Formats recognised but not decodable here (libsndfile reads neither) -> what the refusal calls them."""

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

TEXT_LIMIT = 4096
"""Bytes of a text answer kept to quote from it."""


def _is_text(head: bytes, content_type: str) -> bool:
    """Whether ``head`` is text (printable ASCII) that its label calls text, or that opens as JSON or markup."""
    if not head or not all(32 <= byte < 127 or byte in b"\t\r\n" for byte in head[:HEAD_BYTES]):
        return False
    mime = content_type.split(";")[0].strip().lower()
    return mime.startswith("text/") or mime.endswith(("json", "xml", "html")) or head.lstrip()[:1] in (b"{", b"<")


def body_format(head: bytes, content_type: str, requested: str, complete: bool = True) -> str | None:
    """The format of a body that starts with ``head``: ``pcm``, ``wav``, ``aiff``, ``flac``, ``mp3``, ``ogg``,
    ``aac``, ``mp4`` or ``text`` (``requested`` where neither the bytes nor ``content_type`` say); None when the
    body goes on (``complete`` False) and more of it is needed to decide."""
    if len(head) < HEAD_BYTES and not complete:
        return None
    signed = SIGNATURE.match(head)
    if signed:
        return signed.lastgroup
    framed = frame_chain(head, complete)
    if framed != "":  # MPEG audio or ADTS frames, or None: more of the body will tell
        return framed
    if _is_text(head, content_type):
        return "text"
    declared = CONTENT_TYPES.get(content_type.split(";")[0].strip().lower())
    if declared:
        return declared
    if requested != "pcm" and mpeg_frame(head):
        return "mp3"
    return requested


class TextBody:
    """A text answer where audio was expected: kept (up to :data:`TEXT_LIMIT` bytes) to be quoted, then refused.

    Args:
        content_type: the answer's label, named in the refusal.
    """

    sample_rate = None

    def __init__(self, content_type: str) -> None:
        self.content_type = content_type
        self._text = b""

    def feed(self, data: bytes) -> np.ndarray:
        """Keep ``data``; no samples ever.

        Raises:
            DecodeError: :data:`TEXT_LIMIT` bytes have come (the answer is quoted).
        """
        self._text += data
        if len(self._text) >= TEXT_LIMIT:
            self.finish()
        return np.zeros(0, np.float32)

    def finish(self) -> np.ndarray:
        """Never returns.

        Raises:
            DecodeError: always, quoting the server's words (``engines.remote.transport.server_words``).
        """
        label = f" ({self.content_type})" if self.content_type else ""
        words = server_words(self._text[:TEXT_LIMIT].decode("utf-8", "replace")) or "(empty)"
        raise DecodeError(f"the server's answer is text, not audio{label}: {words}")


class SniffingDecoder:
    """A decoder for whatever format the body turns out to be; feeds the first bytes (:data:`HEAD_BYTES`, or
    up to three frames of MPEG audio or ADTS) to :func:`body_format`, then to the decoder of that format
    (``engines.remote.decode``).

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
        return f"asked for {self.requested}, the server sent {self.found}{self._label}: played as {self.found}"

    @property
    def _label(self) -> str:
        return f" ({self.content_type})" if self.content_type else ""

    def feed(self, data: bytes) -> np.ndarray:
        """Samples complete after ``data``, float32 ``[N]``.

        Raises:
            DecodeError: the body is not valid audio of the format found, or not audio this client decodes.
        """
        if self.inner is not None:
            return self.inner.feed(data)
        self._head += data
        found = body_format(self._head, self.content_type, self.requested, complete=False)
        return self._start(found) if found else np.zeros(0, np.float32)

    def finish(self) -> np.ndarray:
        """The last samples (a body too short to decide while it came is decided here).

        Raises:
            DecodeError: the body ended too early, or is not valid audio of the format found.
        """
        if self.inner is None:
            found = body_format(self._head, self.content_type, self.requested) if self._head else self.requested
            first = self._start(found or self.requested)
        else:
            first = np.zeros(0, np.float32)
        assert self.inner is not None  # _start chose it
        return np.concatenate([first, self.inner.finish()])

    def _start(self, found: str) -> np.ndarray:
        self.found = found
        if found in UNDECODABLE:
            what, short = UNDECODABLE[found]
            label = f", labelled {self.content_type}," if self.content_type else ""
            raise DecodeError(
                f"the server sent {what}{label} when asked for {self.requested}; this client cannot decode "
                f"{short}: set the server to send pcm, wav, flac, mp3 or opus"
            )
        self.inner = inner = TextBody(self.content_type) if found == "text" else decoder_for(found, self.pcm_rate)
        head, self._head = self._head, b""
        return inner.feed(head)
