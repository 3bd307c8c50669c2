"""Compressed audio without a file signature, recognised by a chain of its frame headers: MPEG audio
(MP1/MP2/MP3, ISO/IEC 11172-3 2.4.2.3 and 13818-3, with the MPEG-2.5 extension) and AAC in ADTS
(ISO/IEC 13818-7 6.2 and 14496-3 1.A.2).

Such a stream starts with a frame header: 11 or 12 sync bits, then fields that give the frame's length, so
the next header's place is known. One header is weak evidence (two PCM samples can look like one: -1, 144
is ``FF FF 90 00``); :data:`CHAIN` headers in a row, each where the previous frame's length puts it and
each of the same stream (version, layer, sample rate), are not something speech samples do.
"""

from __future__ import annotations

from dataclasses import dataclass

CHAIN = 3
"""Consecutive frame headers that make a body MPEG audio or ADTS (2 when the body ends before a third)."""

MPEG_RATES = {3: (44100, 48000, 32000), 2: (22050, 24000, 16000), 0: (11025, 12000, 8000)}
"""Version bits (3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5) -> Hz of sample rate indices 0, 1, 2 (3 is reserved)."""

MPEG_KBPS = {
    (3, 3): (32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448),
    (3, 2): (32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384),
    (3, 1): (32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320),
    (2, 3): (32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256),
    (2, 2): (8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
    (2, 1): (8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
}
"""(MPEG-1 3 or MPEG-2/2.5 2, layer bits: 3 Layer I, 2 Layer II, 1 Layer III) -> kbit/s of bitrate indices
1..14 (0 is "free format", whose length no header gives; 15 is forbidden). ISO/IEC 11172-3 Table 2.4.2.3 and
13818-3 Table 2.4.2.3."""


@dataclass(frozen=True)
class Frame:
    """One frame header: ``kind`` (``mp3`` or ``aac``), ``stream`` (the fields every frame of one stream
    shares) and ``length`` (bytes from this header to the next)."""

    kind: str
    stream: tuple[int, ...]
    length: int


def mpeg_frame(head: bytes) -> Frame | None:
    """The MPEG audio frame header at the start of ``head`` (4 bytes), or None."""
    if len(head) < 4 or head[0] != 0xFF or head[1] & 0xE0 != 0xE0:
        return None
    version, layer, index = (head[1] >> 3) & 3, (head[1] >> 1) & 3, head[2] >> 4
    rate_index, padding = (head[2] >> 2) & 3, (head[2] >> 1) & 1
    if version == 1 or layer == 0 or index in (0, 15) or rate_index == 3:
        return None
    rate = MPEG_RATES[version][rate_index]
    bits_per_s = 1000 * MPEG_KBPS[(3 if version == 3 else 2, layer)][index - 1]
    if layer == 3:  # Layer I: slots of 4 bytes
        length = (12 * bits_per_s // rate + padding) * 4
    else:  # Layer III of MPEG-2 and 2.5 holds 576 samples a frame, the others 1152
        length = (72 if layer == 1 and version != 3 else 144) * bits_per_s // rate + padding
    return Frame("mp3", (version, layer, rate_index), length)


def adts_frame(head: bytes) -> Frame | None:
    """The ADTS frame header at the start of ``head`` (7 bytes), or None."""
    if len(head) < 7 or head[0] != 0xFF or head[1] & 0xF6 != 0xF0:
        return None
    rate_index = (head[2] >> 2) & 0xF
    length = ((head[3] & 3) << 11) | (head[4] << 3) | (head[5] >> 5)
    header = 7 if head[1] & 1 else 9  # protection_absent 0: a CRC follows
    if rate_index > 12 or length <= header:
        return None
    channels = ((head[2] & 1) << 2) | (head[3] >> 6)
    return Frame("aac", ((head[1] >> 3) & 1, head[2] >> 6, rate_index, channels), length)


def frame_at(data: bytes, offset: int) -> Frame | None:
    """The MPEG or ADTS frame header at ``offset`` of ``data``, or None."""
    head = data[offset : offset + 7]
    return mpeg_frame(head) or adts_frame(head)


def frame_chain(head: bytes, complete: bool) -> str | None:
    """``mp3`` or ``aac`` when ``head`` starts with :data:`CHAIN` frame headers of one stream in a row (or 2,
    ``complete`` and the body ending before a third); ``""`` when it does not; None when more bytes would
    tell (``complete`` False)."""
    first = frame_at(head, 0)
    if first is None:
        return "" if len(head) >= 7 or complete else None
    offset, found = first.length, 1
    while found < CHAIN:
        if len(head) < offset + 7:  # the body goes on past what has come, or ended before another header
            return None if not complete else first.kind if found >= 2 else ""
        frame = frame_at(head, offset)
        if frame is None or (frame.kind, frame.stream) != (first.kind, first.stream):
            return ""
        offset, found = offset + frame.length, found + 1
    return first.kind
