"""Transcript files as people save them: UTF-8 (with or without a byte-order mark) or UTF-16 with its mark.

Windows Notepad's "Unicode" is UTF-16 LE with a byte-order mark, and spreadsheets export "Unicode text" the same
way; both are unambiguous by their first two bytes (``FF FE`` or ``FE FF``, Unicode 15, section 23.8), so they are
read as what they are. Anything else must be UTF-8; text that is not is refused naming the line and byte, never
guessed at or read with replacement characters.
"""

from __future__ import annotations

import codecs

from engines.errors import VoiceStudioError


class NotText(VoiceStudioError, ValueError):
    """Bytes that are neither UTF-8 nor UTF-16 with a byte-order mark: ``line`` (1-based) and ``byte`` (offset into
    the file) of the first that is not; ``str`` says it in words."""

    def __init__(self, line: int, byte: int) -> None:
        self.line, self.byte = line, byte
        super().__init__(f"line {line} is not UTF-8 text (byte {byte}); save the file as UTF-8")


def decode_text(data: bytes) -> str:
    """The text of a transcript or metadata file's bytes, without a byte-order mark.

    Raises:
        NotText: not UTF-8, and no UTF-16 byte-order mark (or UTF-16 that does not decode).
    """
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise NotText(data[: exc.start].count("\n".encode("utf-16-le")) + 1, exc.start) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NotText(data[: exc.start].count(b"\n") + 1, exc.start) from None
