"""Text preparation before phonemization: splitting long input into blocks.

Piper hands the whole text to espeak-ng, which splits sentences itself. That is
kept for ordinary input, so our sentences are Piper's. Only texts longer than
``BLOCK_CHARS`` are cut into blocks first, at paragraph breaks and then at
sentence ends (``engines.frontend.split_sentences``: never after ``Dr.`` or an
initial), so that phonemizing (which holds the GIL) never stalls the
caller for long and the first sentence of a long text is ready at once. Each
block is prepared (normalized, ``engines.frontend``) as it is reached, so a long
text's first block is not kept waiting for the rest. For
synthesis (``cut_long``), a single sentence longer than a block is cut too, at
clause punctuation, else at a space, else anywhere; such a block is marked as
ending inside its sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from engines.frontend.sentences import split_sentences

BLOCK_CHARS = 1000
"""Texts up to this many characters go to the phonemizer whole, exactly as in Piper."""

PARAGRAPH_BREAK = re.compile(r"\n\s*\n|\r\n\s*\r\n")
"""A blank line: where a long text is cut first (also a sentence end for ``engines.server.text_stream``)."""
_CLAUSE_END = re.compile(r"[,;:—…，、；：]\s*")
_SPACE = re.compile(r"\s+")
_INLINE_PHONEMES = re.compile(r"\[\[.*?\]\]", re.DOTALL)
"""Piper's inline ``[[ phonemes ]]``: never cut inside one."""


def split_blocks(text: str, max_chars: int = BLOCK_CHARS) -> Iterator[str]:
    """Yield pieces of ``text`` of at most about ``max_chars`` characters.

    Cuts at blank lines first, then at sentence ends (``split_sentences``:
    punctuation followed by space, or CJK's without one); a single sentence
    longer than ``max_chars`` stays whole. Empty pieces are skipped.
    """
    for block, _ in text_blocks(text, max_chars):
        yield block


def text_blocks(
    text: str,
    max_chars: int = BLOCK_CHARS,
    *,
    cut_long: bool = False,
    prepare: Callable[[str], str] | None = None,
) -> Iterator[tuple[str, bool]]:
    """``(block, cut)`` for each block of :func:`split_blocks`; ``cut`` is True where the block ends inside a
    sentence.

    ``prepare`` (e.g. normalization) is applied to a short text whole, else to each paragraph or sentence before
    blocks are packed and cut (a prepared block may be longer than the text it came from). With ``cut_long`` a
    sentence longer than ``max_chars`` is cut into parts of at most ``max_chars`` (:func:`cut_sentence`), so no
    block is longer.
    """
    prepare = prepare or _as_is
    if len(text) <= max_chars:
        if text.strip():
            yield prepare(text), False
        return
    for paragraph in PARAGRAPH_BREAK.split(text):
        if len(paragraph) <= max_chars:
            if paragraph.strip():
                yield prepare(paragraph), False
            continue
        pieces = [(prepare(s), False) for s in split_sentences(paragraph)]
        if cut_long:
            pieces = [part for s, _ in pieces for part in cut_sentence(s, max_chars)]
        yield from _pack(pieces, max_chars)


def _as_is(text: str) -> str:
    return text


def cut_sentence(sentence: str, max_chars: int) -> Iterator[tuple[str, bool]]:
    """Parts of ``sentence`` of at most ``max_chars``: ``(part, cut)``, ``cut`` False for the last.

    Each cut is the last clause punctuation (``, ; : — …`` and their CJK forms) in the
    second half of the allowed length, else the last space there, else ``max_chars``;
    never inside inline ``[[ phonemes ]]`` (a part may then be longer).
    """
    rest = sentence
    while len(rest) > max_chars:
        end = _cut_at(rest, max_chars)
        part, rest = rest[:end].rstrip(), rest[end:].lstrip()
        yield part, bool(rest.strip())
    if rest.strip():
        yield rest, False


def _cut_at(text: str, max_chars: int) -> int:
    """Where to cut ``text``: just after the chosen clause mark or space, see :func:`cut_sentence`."""
    spans = [m.span() for m in _INLINE_PHONEMES.finditer(text)]

    def inside(pos: int) -> tuple[int, int] | None:
        return next((span for span in spans if span[0] < pos < span[1]), None)

    lo = max_chars // 2
    for pattern in (_CLAUSE_END, _SPACE):
        ends = [m.end() for m in pattern.finditer(text, lo, max_chars + 1) if m.start() < max_chars]
        ends = [end for end in ends if not inside(end)]
        if ends:
            return ends[-1]
    span = inside(max_chars)
    return max_chars if span is None else (span[0] or span[1])


def _pack(pieces: list[tuple[str, bool]], max_chars: int) -> Iterator[tuple[str, bool]]:
    """Join consecutive pieces into blocks of at most ``max_chars``; a block's mark is its last piece's."""
    block, cut = "", False
    for piece, piece_cut in pieces:
        if block and len(block) + 1 + len(piece) > max_chars:
            yield block, cut
            block = piece
        else:
            block = f"{block} {piece}" if block else piece
        cut = piece_cut
    if block.strip():
        yield block, cut
