"""Text preparation before phonemization: splitting long input into blocks.

Piper hands the whole text to espeak-ng, which splits sentences itself. That is
kept for ordinary input, so our sentences are Piper's. Only texts longer than
``BLOCK_CHARS`` are cut into blocks first, at paragraph breaks and then at
sentence ends, so that phonemizing (which holds the GIL) never stalls the
caller for long and the first sentence of a long text is ready at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

BLOCK_CHARS = 1000
"""Texts up to this many characters go to the phonemizer whole, exactly as in Piper."""

_PARAGRAPH = re.compile(r"\n\s*\n|\r\n\s*\r\n")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+(?=\S)")


def split_blocks(text: str, max_chars: int = BLOCK_CHARS) -> Iterator[str]:
    """Yield pieces of ``text`` of at most about ``max_chars`` characters.

    Cuts at blank lines first, then after sentence-final punctuation followed
    by space; a single sentence longer than ``max_chars`` stays whole. Empty
    pieces are skipped.
    """
    if len(text) <= max_chars:
        if text.strip():
            yield text
        return
    for paragraph in _PARAGRAPH.split(text):
        if len(paragraph) <= max_chars:
            if paragraph.strip():
                yield paragraph
            continue
        yield from _pack(_SENTENCE_END.split(paragraph), max_chars)


def _pack(pieces: list[str], max_chars: int) -> Iterator[str]:
    block = ""
    for piece in pieces:
        if block and len(block) + 1 + len(piece) > max_chars:
            yield block
            block = piece
        else:
            block = f"{block} {piece}" if block else piece
    if block.strip():
        yield block
