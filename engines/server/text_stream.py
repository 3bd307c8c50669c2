"""Complete sentences out of text that arrives in pieces (an LLM's answer, streamed to a Wyoming server), cut
where the same text sent whole ends its sentences.

A request's text is cleaned (``engines.cleaning.clean_text``: Markdown's marks taken away, a marked line without
punctuation ended with a period, lines and paragraphs joined) and spoken sentence by sentence as espeak-ng ends
them (``engines.frontend.split_sentences``: never after ``Dr.``, an initial or an ellipsis, nor before a
lower-case word). The stream cuts only where that whole text's cleaned sentences end, and only where the text
before the cut, cleaned alone, reads as it does in the whole: so a blank line ends no sentence (the cleaner joins
paragraphs) but a list item's line without punctuation does (``- Apples`` is "Apples."), and a cut never falls
inside ``**bold**``, a link's text, a code span, Piper's ``[[ phonemes ]]`` or a ``[rate:…]`` … ``[/rate]`` span.

A cut is made once the word after it is whole (whitespace follows it): the sentence end may depend on it (``St.
Louis`` / ``St. The``; ``home. then``), and so may what the cleaner makes of it. CJK, written without spaces, is
cut straight after ``。！？`` once a CJK character follows (``你好。今``), where espeak-ng ends its sentences too. The
start of a line whose reading may change with the rest of its line (a list mark, an unclosed ``**``:
``engines.markdown_marks.reads_on``) waits for the line's end. What is given out is the buffered text as it
came, up to the cut: spoken in order, the pieces say what the whole text says. SSML (asked for, or text that
starts with ``<speak>``, held until its start says) is given out whole at the end: its markup must not be cut.

The first clause (:meth:`SentenceStream.first_clause`): until a stream's first sentence is complete its listener
hears nothing, and an LLM's first sentence takes a third of a second and more to arrive; the text up to a comma or
semicolon after ``MIN_CLAUSE_WORDS`` words may be given out first, by the same rules for a cut. Spoken alone, such
a clause was heard as it is inside its sentence (joe at noise 0, three sentences: the same words by Whisper,
DNSMOS OVRL within 0.12, length within 0.08 s, a clean join with a 240 ms pause where the sentence had 340-400 ms).
CJK's commas (``，、；``) give no first clause: espeak-ng (cmn, ja) reads no pause there
(``今天天气很好，我们去公园吧。`` is one clause, its syllables run on across the comma), so a clause spoken alone
would put a break where the whole text has none; such a stream waits for its first ``。！？``.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re

from engines.cleaning import clean_text
from engines.frontend.inline_tags import TAG
from engines.frontend.sentences import CJK_BREAK, split_sentences
from engines.frontend.ssml import is_ssml
from engines.markdown_marks import opens_mark, reads_on

LOOK_BACK = 8
"""Places to cut examined per piece added, the latest first (one further back was examined when it was recent;
missing one only delays the text before it)."""
_GAP = re.compile(r"\s+(?=\S)")
_END_BEFORE = re.compile(r"[.!?。！？][*_`\"'”’)\]]*$")
"""A sentence's end punctuation, then closing marks, quotes or brackets, just before a gap."""
_WORD = re.compile(r"\s*\S+\s")
"""A whole word (whitespace after it)."""
_CJK_NEXT = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff66-\uff9f「『（〔【《〈]")
"""A CJK character (kana, ideograph, hangul, or a CJK opening bracket): a word begun with one needs no gap after it
to be whole (CJK writes no spaces) and opens no Markdown mark (``“`` is not one: English opens quotes with it)."""
_MAYBE_MARK = re.compile(r"(?:#{1,6}|[-*+>]|\d{1,3}[.)])[ \t]")
"""What may be a line's Markdown mark (``engines.markdown_marks``), its word still to come: a piece that starts
with one is cleaned as a line that starts with it, wherever the cut before it fell."""
_MAY_OPEN = re.compile(r"(?:#{1,6}|[-*+>]|\d{1,3}[.)]?)(?:[ \t]|$)|[*_`~\[]")
"""The start of a sentence that runs on from a CJK end with no gap (``你好。…``) and may yet open a Markdown mark: a
line's (:data:`_MAYBE_MARK`, or its start with the rest to come) or an inline one. Anything else there (a CJK
character, a quote, a letter, ``2024年``: CJK writes no spaces, so its first word may never be followed by one)
opens none and continues no abbreviation, so no text to come can change where the last sentence ended."""
_CLAUSE_BEFORE = re.compile(r"[,;][*_`\"'”’)\]]*$")
"""A clause's end (comma or semicolon), then closing marks, quotes or brackets, just before a gap."""
MIN_CLAUSE_WORDS = 4
"""Words a first clause holds at least (``Yes,`` or ``Well,`` alone is no head start worth a cut)."""
WINDOW = 1000
"""Characters of a long held text read for each piece added (``engines.text.BLOCK_CHARS``: the whole text, that
long, is cut into blocks at its sentence ends too)."""


class SentenceStream:
    """Text added piece by piece; :meth:`add` gives the text whose sentences are complete, :meth:`finish` the
    rest. ``ssml``: True gives nothing before the end (markup must not be cut); ``None`` does so when the text
    starts with ``<speak>`` (read as SSML by the request; :func:`_read_whole`); False reads it as plain text."""

    def __init__(self, *, ssml: bool | None = False) -> None:
        self.whole = ssml
        """Whether the text is read whole; ``None`` until its start says (:func:`_read_whole`)."""
        self._text = ""
        self.chars = 0
        """Characters added so far (all pieces)."""

    def add(self, piece: str) -> str:
        """Add ``piece``; return the text (from the end of the last text returned) whose sentences are now
        complete, or ``""``."""
        self._text += piece
        self.chars += len(piece)
        if self.whole is None:
            self.whole = _read_whole(self._text)
        done = 0 if self.whole is not False else _complete_length(self._text)
        complete, self._text = self._text[:done], self._text[done:]
        return complete if complete.strip() else ""

    def first_clause(self) -> str:
        """The held text up to its latest clause end (``,`` or ``;`` after at least ``MIN_CLAUSE_WORDS`` words,
        the word after it whole, outside spans and marks, reading apart as in the whole), or ``""``: for a stream
        that has given nothing out yet, whose listener would wait for its first sentence's end."""
        if self.whole is not False:
            return ""
        done = _clause_length(self._text)
        clause, self._text = self._text[:done], self._text[done:]
        return clause

    def finish(self) -> str:
        """The text not yet returned (the stream has ended, so its last sentence is complete too), or ``""``."""
        rest, self._text = self._text, ""
        return rest if rest.strip() else ""


def _read_whole(text: str) -> bool | None:
    """Whether a stream's text is SSML, read whole: it starts with ``<speak>`` (``engines.frontend.ssml.is_ssml``)
    or with ``<?`` or ``<!`` (a prolog may come first); ``None`` while its start may still become ``<speak>``
    (nothing but spaces yet, or ``<spe``); False otherwise (``<3 you``, ``<b>``: plain text, cut as it comes)."""
    head = text.lstrip()
    if is_ssml(head) or head.startswith(("<?", "<!")):
        return True
    return None if "<speak".startswith(head) else False


def _complete_length(text: str) -> int:
    """Characters at the start of ``text`` that hold only complete sentences (0 when none is complete yet): the
    latest place to cut that no later text can change (:func:`_held`), outside a ``[[ phonemes ]]`` or
    ``[rate:…]`` span (:func:`_in_span`), that agrees with the whole text's cleaned sentences (:class:`_Reading`).
    A text held longer than ``WINDOW`` characters is read in its last ``WINDOW`` from a gap on (each piece added
    costs at most that)."""
    start = 0
    if len(text) > WINDOW:
        gap = _GAP.search(text, len(text) - WINDOW)
        start = gap.end() if gap else len(text) - WINDOW
    window = text[start:]
    places = [
        cut for cut in _places(window)[-LOOK_BACK:] if not _held(window, cut) and not _in_span(text[: start + cut])
    ]
    if not places:
        return 0
    reading = _Reading(window)
    cut = next((cut for cut in reversed(places) if reading.ends_sentence_at(cut)), None)
    return 0 if cut is None else start + cut


def _clause_length(text: str) -> int:
    """Characters at the start of ``text`` up to its latest clause end that may be cut (0: none); a text held
    longer than ``WINDOW`` has none (its first clause is long gone)."""
    if len(text) > WINDOW:
        return 0
    reading = _Reading(text)
    for gap in reversed(list(_GAP.finditer(text))):
        cut = gap.end()
        if "\n" in gap.group() or not _CLAUSE_BEFORE.search(text, max(0, gap.start() - 8), gap.start()):
            continue
        if _held(text, cut) or _in_span(text[:cut]) or not reading.reads_apart_at(cut):
            continue
        return cut if len(_words(text[:cut])) >= MIN_CLAUSE_WORDS else 0
    return 0


def _places(text: str) -> list[int]:
    """Where a sentence may start in ``text``: after a gap that follows a sentence's end punctuation (closing
    marks allowed) or holds a line break (a list item's line is ended by the cleaner), and straight after a CJK
    sentence end (:data:`CJK_BREAK`)."""
    after_gaps = [
        gap.end()
        for gap in _GAP.finditer(text)
        if "\n" in gap.group() or _END_BEFORE.search(text, max(0, gap.start() - 16), gap.start())
    ]
    return sorted([*after_gaps, *(end.start() for end in CJK_BREAK.finditer(text))])


class _Reading:
    """``text`` as a request reads it: cleaned line by line (``clean_text`` reads each line alone: Markdown's marks
    are a line's, entities and characters are one by one), and its sentences."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.starts = list(itertools.accumulate((len(line) + 1 for line in self.lines[:-1]), initial=0))
        self.line_words = [_line_words(line) for line in self.lines]
        self.counts = list(itertools.accumulate((len(words) for words in self.line_words), initial=0))
        self.ends = _sentence_ends([word for words in self.line_words for word in words])

    def ends_sentence_at(self, cut: int) -> bool:
        """Whether a sentence of the whole ends at ``cut`` and the text before it and after it, cleaned apart, read
        as the whole does (a cut inside ``*Wait. Stop*`` or ``- First. Second`` does not)."""
        before = self._before(cut)
        return before is not None and before in self.ends

    def reads_apart_at(self, cut: int) -> bool:
        """Whether the text before ``cut`` and after it, cleaned apart, read as the whole does."""
        return self._before(cut) is not None

    def _before(self, cut: int) -> int | None:
        """Words of the whole before ``cut`` where the text cleaned apart there reads as the whole; else None."""
        index = bisect.bisect_right(self.starts, cut) - 1
        line, at = self.lines[index], cut - self.starts[index]
        before = _words(line[:at])
        if before + _words(line[at:]) != list(self.line_words[index]):
            return None
        return self.counts[index] + len(before)


def _held(text: str, cut: int) -> bool:
    """Whether text still to come may change the reading at ``cut``: the word after it (after a Markdown line
    mark, which the piece after the cut would be read with, even mid-line) is not yet whole or may still open a
    mark (a CJK word begun is whole; straight after a CJK end only what :data:`_MAY_OPEN` matches waits), or the
    cut is inside the last line and its start may read otherwise with the rest of that line (``reads_on``)."""
    line_start = text.rfind("\n", 0, cut) + 1
    at_line_start = not text[line_start:cut].strip()
    mark = _MAYBE_MARK.match(text, cut)
    start = mark.end() if mark else cut
    runs_on = cut > 0 and not text[cut - 1].isspace()  # straight after a CJK end
    begun = (runs_on and not _MAY_OPEN.match(text, cut)) or _CJK_NEXT.match(text, start)  # nothing left to wait for
    if not begun:
        word = _WORD.match(text, start)
        if word is None or opens_mark(word.group()):
            return True
    return not at_line_start and "\n" not in text[cut:] and reads_on(text[line_start:], cut - line_start)


def _in_span(before: str) -> bool:
    """Whether ``before`` ends inside Piper's ``[[ phonemes ]]`` or a ``[rate:…]`` span (``engines.frontend``'s
    inline tags: a rate holds until its ``[/rate]``; one with none open is dropped)."""
    if before.rfind("[[") > before.rfind("]]"):
        return True
    depth = 0
    for tag in TAG.finditer(before):
        if tag.group("rate"):
            depth += 1
        elif tag.group() == "[/rate]":
            depth = max(0, depth - 1)
    return depth > 0


def _words(text: str) -> list[str]:
    """``text`` as a request reads it (``clean_text``, plain text), word by word (a CJK sentence end breaks a
    word: :data:`CJK_BREAK`)."""
    return [piece for word in clean_text(text, ssml=False).split() for piece in CJK_BREAK.split(word) if piece]


@functools.lru_cache(maxsize=256)
def _line_words(line: str) -> tuple[str, ...]:
    """:func:`_words` of one line, kept: a held text's lines are read again as each piece arrives."""
    return tuple(_words(line))


def _sentence_ends(words: list[str]) -> set[int]:
    """How many ``words`` come before each sentence end inside the text they make (``split_sentences``)."""
    ends, count = set(), 0
    for sentence in split_sentences(" ".join(words))[:-1]:
        count += len(sentence.split())
        ends.add(count)
    return ends
