"""Sentence splitting that knows abbreviations and initials: ``Captain James T. Kirk met Dr. Smith.`` is one
sentence, ``I live on Main St. The house is blue.`` two.

A sentence ends at ``. ! ?`` followed by whitespace and at their CJK forms ``。 ！ ？`` (a run of them, and
closing quotes or brackets after them, kept with the sentence) with or without whitespace, as espeak-ng ends them
(``cmn`` reads ``你好。今天天气很好！`` as two sentences), except after a period that belongs to an abbreviation, an
initial or a dotted acronym whose reading continues the sentence (``engines.frontend.abbreviations``: the
normalizer keeps exactly the periods that end sentences, so after normalization espeak-ng's sentences are these),
and except a mark straight after an ellipsis, a dash or a comma (``Really...? No.``, ``真的……？我不信。``), which
espeak-ng reads on from.
"""

from __future__ import annotations

import re

from engines.frontend.abbreviations import initial_ends, reading
from engines.frontend.around import around, next_word, period_ends

CJK_CLOSERS = "」』）”’〕】》〉"
"""Closing quotes and brackets that stay with the CJK sentence end before them (``「好。」他说``)."""
_CJK_ENDED = "|".join(rf"(?<=[。！？][{CJK_CLOSERS}]{{{n}}})" for n in range(4))
"""Just after a CJK sentence end and up to three closing marks (a lookbehind has one width, so one for each)."""
_RUNS_ON = "—–…"
"""What a CJK sentence end runs on into, read as its own (``走吧！——好的。``: espeak-ng's ``ja`` says a dash that
starts a text, not one after an end): no cut before a dash or an ellipsis straight after an end."""
CJK_BREAK = re.compile(rf"(?:{_CJK_ENDED})(?=[^\s{CJK_CLOSERS}。！？{_RUNS_ON}])")
"""A CJK sentence end (a run of ``。！？``, its closing marks) with the next sentence straight after it, no
whitespace between (``你好。今天``, ``「好。」他说``), not a dash or an ellipsis (:data:`_RUNS_ON`): zero width."""
_BOUNDARY = re.compile(
    rf"(?<=[.!?。！？])\s+(?=\S)"  # an end, then whitespace
    rf"|(?:{_CJK_ENDED})\s*(?=[^\s{CJK_CLOSERS}。！？{_RUNS_ON}])"  # a CJK end, its closers, the next sentence
)
_AFTER_PAUSE = ("..", "…", "—", "–", ",", "，", "、")
"""What an end mark after it ends no sentence at (``Really...? No.``, ``真的……？我不信。``, ``好吧——！``): espeak-ng
reads the pause and the mark as one, and the words after them in the same sentence."""
_OPENERS = "\"'“‘([«"
_LETTERS = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]|[A-Z]")
"""An initial (``T``) or a dotted acronym without its last period (``U.S``)."""


def split_sentences(text: str) -> list[str]:
    """``text`` cut at its sentence ends (the whitespace between sentences dropped); a text with one sentence
    comes back whole.

    Only a period can be vetoed (:func:`period_ends_sentence`); ``!`` and ``?`` always end a sentence.
    """
    pieces, start = [], 0
    for match in _BOUNDARY.finditer(text):
        mark = match.start() - 1
        while text[mark] in CJK_CLOSERS:
            mark -= 1
        if text[mark] == "." and not period_ends_sentence(text, mark):
            continue
        if _after_pause(text, mark):
            continue
        pieces.append(text[start : match.start()])
        start = match.end()
    pieces.append(text[start:])
    return pieces


def _after_pause(text: str, mark: int) -> bool:
    """Whether the run of ``! ? 。 ！ ？`` that ends at ``text[mark]`` follows an ellipsis, a dash or a comma
    (:data:`_AFTER_PAUSE`); a period's own run is :func:`period_ends_sentence`'s."""
    if text[mark] == ".":
        return False
    start = mark
    while start > 0 and text[start - 1] in "!?。！？":
        start -= 1
    return text[:start].endswith(_AFTER_PAUSE)


def period_ends_sentence(text: str, index: int) -> bool:
    """Whether the period at ``text[index]`` ends its sentence: not one of an abbreviation that reads on
    (``Dr.``, ``e.g.``, ``Jan. 5``), an initial before a name, or a dotted acronym before a name; nor one that
    espeak-ng, which speaks the sentences, ends none at: an ellipsis (``Wait... Then``: a clause's pause) or a
    period before a lower-case letter (``home. then``: espeak-ng's ``ReadClause`` takes it for an abbreviation's);
    any other period does."""
    start = _word_start(text, index)
    word, (before, after) = text[start:index], around(text, start, index + 1)
    if after.lstrip()[:1].islower() or word.endswith("."):
        return False
    if not word:
        return True
    found = reading(word, before, after)
    if found is not None:
        return found[1]
    if word.lower() in ("a.m", "p.m"):
        return period_ends(after)
    if _LETTERS.fullmatch(word):  # a lower-case word after it goes on with the sentence (``the U.S. team won``)
        return initial_ends(after) and not next_word(after)[:1].islower()
    return True


def _word_start(text: str, index: int) -> int:
    """Where the word that ends at ``text[index]`` starts, after any opening quotes or brackets."""
    start = index
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while start < index and text[start] in _OPENERS:
        start += 1
    return start
