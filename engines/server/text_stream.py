"""Complete sentences out of text that arrives in pieces (an LLM's answer, streamed to a Wyoming server).

Sentence ends are the ones ``engines.frontend.split_sentences`` finds (so never after ``Dr.`` or an initial) but
an ellipsis (``Wait... what?`` is one sentence to espeak-ng, whose sentences the engines speak: cut there, the
pieces would be spoken as two, with a sentence's pause and fall between them) and an ordered list item's number at
the start of a line (``1. Open the door``, an LLM's Markdown: ``engines.markdown_marks`` reads it as "one:" only
with its item on the line), and blank lines (a paragraph break, as ``engines.text`` cuts). A sentence end is only
known once the text after it has begun (``split_sentences`` asks for whitespace and a next character); where a
period's end depends on the word after it (an abbreviation, an initial: ``St. Louis`` / ``St. The``;
``engines.frontend.sentences.end_needs_next_word``) it counts once that word is whole (whitespace follows it) or
the stream has ended. What is given out is the buffered text as it came, up to that end: spoken in order, the
pieces say exactly what the whole text says.
"""

from __future__ import annotations

import re

from engines.frontend.sentences import end_needs_next_word, split_sentences
from engines.text import PARAGRAPH_BREAK


class SentenceStream:
    """Text added piece by piece; :meth:`add` gives the text whose sentences are complete, :meth:`finish` the
    rest. ``whole``: give nothing before the end (SSML, whose markup must not be cut)."""

    def __init__(self, *, whole: bool = False) -> None:
        self.whole = whole
        self._text = ""
        self.chars = 0
        """Characters added so far (all pieces)."""

    def add(self, piece: str) -> str:
        """Add ``piece``; return the text (from the end of the last text returned) whose sentences are now
        complete, or ``""``."""
        self._text += piece
        self.chars += len(piece)
        done = 0 if self.whole else _complete_length(self._text)
        complete, self._text = self._text[:done], self._text[done:]
        return complete if complete.strip() else ""

    def finish(self) -> str:
        """The text not yet returned (the stream has ended, so its last sentence is complete too), or ``""``."""
        rest, self._text = self._text, ""
        return rest if rest.strip() else ""


def _complete_length(text: str) -> int:
    """Characters at the start of ``text`` that hold only complete sentences (0 when none is complete yet)."""
    breaks = list(PARAGRAPH_BREAK.finditer(text))
    start = breaks[-1].end() if breaks else 0
    pieces = _sentences(text[start:])
    if len(pieces) < 2:
        return start
    last = pieces[-1]
    before = text[: len(text) - len(last)].rstrip()  # ends with the last sentence end found
    if re.search(r"\s", last) or not end_needs_next_word(before, len(before) - 1):
        return len(text) - len(last)  # that end is settled
    if len(pieces) == 2:
        return start  # it waits for the word after it to be whole
    return len(before) - len(pieces[-2])


_GOES_ON = re.compile(r"\.\.$|(?:^|\n)[ \t]*\d{1,3}\.$")
"""The end of a sentence ``split_sentences`` finds that is none as spoken: an ellipsis, or a line's list number."""


def _sentences(text: str) -> list[str]:
    """``split_sentences(text)``, where a sentence that ends with an ellipsis (espeak-ng ends no sentence there) or
    with a list item's number at its line's start (``1.``) goes on into the next; the whitespace between sentences
    dropped, as ``split_sentences`` drops it."""
    spans: list[tuple[int, int]] = []
    for piece in split_sentences(text):
        start = text.index(piece, spans[-1][1] if spans else 0)
        if spans and _GOES_ON.search(text[spans[-1][0] : spans[-1][1]]):
            spans[-1] = (spans[-1][0], start + len(piece))
        else:
            spans.append((start, start + len(piece)))
    return [text[a:b] for a, b in spans]
