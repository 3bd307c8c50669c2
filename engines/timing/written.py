"""The words said for each written word: a text and its normalized form (``engines.frontend``), compared word
by word.

The front end rewrites a text rule by rule and keeps no map of what came from where, so the map is found
afterwards: both texts are cut into words (at whitespace; Piper's inline ``[[ phonemes ]]`` into the phoneme
words inside them), compared by their letters and digits (``difflib``: runs of equal words first), and each
written word that was rewritten is paired with the words that replace it. One written word rewritten as
several (``$49.95`` -> "forty nine dollars and ninety five cents") is one :class:`WrittenSpan` with all of
them; written words rewritten together (``8:00 pm`` -> "eight p m") are one span covering both, since which
spoken word says which written one is not known. A written word said as nothing (``--``) has no span. This is a
comparison, not a record: a rewritten word's reading that repeats a written neighbour (the "and" of "forty nine
dollars and ninety five cents" before a written "and") can be paired with that neighbour instead.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

_WORD = re.compile(r"\S+")
_INLINE = re.compile(r"\[\[(.*?)\]\]", re.DOTALL)
_KEY = re.compile(r"[^\w']+")
EDGE_PUNCTUATION = ".,;:!?\"'()[]{}«»“”‘’…—–-"
"""Taken off the ends of a written word (``Smith.`` -> ``Smith``); symbols that are said (``$``, ``%``) stay."""


@dataclass(frozen=True)
class Token:
    """A word of a text: ``text[start:end]``; ``inline``: a phoneme word of an inline ``[[ ... ]]`` block."""

    text: str
    start: int
    end: int
    inline: bool = False

    @property
    def key(self) -> str:
        """What two texts' words are compared by: a phoneme word as it is, else its letters, digits and
        apostrophes in lower case."""
        return self.text if self.inline else _KEY.sub("", self.text.lower())


@dataclass(frozen=True)
class WrittenSpan:
    """Written words and the words said for them.

    Attributes:
        text: the written words as they are in the text (one word, or several said together).
        char_start, char_end: where ``text`` is in the whole text synthesized, ``None`` where not known.
        spoken: the words said, in order: plain words, or phoneme words (``inline``) said as they are.
        inline: the span is phonemes given inline.
    """

    text: str
    char_start: int | None
    char_end: int | None
    spoken: tuple[str, ...]
    inline: bool = False


def tokens(text: str) -> list[Token]:
    """The words of ``text`` in order, an inline ``[[ ... ]]`` block giving the phoneme words inside it."""
    found: list[Token] = []
    last = 0
    for block in _INLINE.finditer(text):
        found += [Token(m.group(), m.start(), m.end()) for m in _WORD.finditer(text, last, block.start())]
        inside = _WORD.finditer(text, block.start(1), block.end(1))
        found += [Token(m.group(), m.start(), m.end(), True) for m in inside]
        last = block.end()
    found += [Token(m.group(), m.start(), m.end()) for m in _WORD.finditer(text, last)]
    return found


def pair(written: str, said: str, offset: int | None = 0) -> list[WrittenSpan]:
    """The spans of ``written`` (a text, or a piece of one starting at character ``offset`` of the whole;
    ``None``: not known) and ``said``, its normalized form (see the module docstring). Words said that replace
    no written word join the span before them (or make one of their own at the start)."""
    wrote, spoke = tokens(written), tokens(said)
    matcher = difflib.SequenceMatcher(None, [t.key for t in wrote], [t.key for t in spoke], autojunk=False)
    spans: list[WrittenSpan] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "delete":
            continue
        if tag == "insert":
            words = tuple(t.text for t in spoke[j1:j2])
            if spans:
                last = spans.pop()
                spans.append(WrittenSpan(last.text, last.char_start, last.char_end, last.spoken + words, last.inline))
            else:
                spans.append(WrittenSpan(" ".join(words), None, None, words))
            continue
        if i2 - i1 == j2 - j1:  # word for word ("Dr." said "Doctor")
            spans += [_span(written, [wrote[i1 + k]], [spoke[j1 + k]], offset) for k in range(i2 - i1)]
        else:
            spans.append(_span(written, wrote[i1:i2], spoke[j1:j2], offset))
    return spans


def _span(written: str, wrote: list[Token], spoke: list[Token], offset: int | None) -> WrittenSpan:
    """The span of written words ``wrote`` said as ``spoke``."""
    start, end = _trimmed(written, wrote[0].start, wrote[-1].end)
    inline = all(t.inline for t in spoke)
    said = tuple(t.text if t.inline else t.text.strip(EDGE_PUNCTUATION) or t.text for t in spoke)
    if offset is None:
        return WrittenSpan(written[start:end], None, None, said, inline)
    return WrittenSpan(written[start:end], offset + start, offset + end, said, inline)


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` less the :data:`EDGE_PUNCTUATION` at its ends (all of it where nothing else is left)."""
    inner = text[start:end].strip(EDGE_PUNCTUATION)
    if not inner:
        return start, end
    first = start + text[start:end].index(inner)
    return first, first + len(inner)
