"""What every normalization rule shares: the :class:`Rule` (a pattern and how to say a match), the
:class:`Context` of one normalization (dialect, ambiguities found), and :func:`apply`.

A rule's ``speak`` gets the match (its ``string`` is the text the rule runs over, so the words around a match
can be read) and returns the words that replace it; returning ``match.group(0)`` leaves the match as it was.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Ambiguity:
    """A written form with more than one reading: the one spoken, and another a reader might have meant.

    Attributes:
        written: the text as written (``1/2``).
        reading: the words spoken for it (``one half``).
        other: another reading (``January second``).
    """

    written: str
    reading: str
    other: str

    def describe(self) -> str:
        """``"1/2" reads "one half" (it could be "January second")``."""
        return f'"{self.written}" reads "{self.reading}" (it could be "{self.other}")'


@dataclass
class Context:
    """One normalization's settings and findings.

    Attributes:
        british: British English (``en-gb…`` voices): day/month dates, "and" inside numbers.
        ambiguous: the written forms read one way that could be read another, in order.
    """

    british: bool = False
    ambiguous: list[Ambiguity] = field(default_factory=list)


Speak = Callable[[re.Match[str], Context], str]


@dataclass(frozen=True)
class Rule:
    """One normalization: every match of ``pattern`` becomes ``speak(match, context)``."""

    name: str
    pattern: re.Pattern[str]
    speak: Speak


def apply(rules: Sequence[Rule], text: str, context: Context) -> str:
    """``text`` after each rule in turn (a text no rule matches comes back as the same string)."""
    for rule in rules:
        text = rule.pattern.sub(_speaker(rule, context), text)
    return text


def _speaker(rule: Rule, context: Context) -> Callable[[re.Match[str]], str]:
    """``rule.speak`` bound to ``context``, as ``re.sub`` calls it; words that begin a sentence in place of a number
    or symbol begin with a capital (:func:`sentence_cased`)."""

    def speak(match: re.Match[str]) -> str:
        return sentence_cased(match, rule.speak(match, context))

    return speak


_SENTENCE_BEFORE = re.compile(r"(?<![.])[.!?][\"'”’)\]]*\s+$")
"""The end of a sentence (not an ellipsis) and the whitespace after it, just before a match."""


def sentence_cased(match: re.Match[str], said: str) -> str:
    """``said`` with a capital first letter where ``match`` opens a sentence after another one's end and begins
    with no letter (``Done. 42 is it.`` -> ``Done. Forty two is it.``): espeak-ng ends a sentence at a period only
    before a capital or a digit, so "done. forty two" would be read on as one sentence (Piper, reading ``42``
    itself, ends it). A first word of one letter (``a half``) is left as it is: capital, it is read as a letter."""
    if match.group(0)[:1].isalpha() or not _SENTENCE_BEFORE.search(match.string, 0, match.start()):
        return said
    first = re.match(r"\s*([a-z])[a-z]", said)
    return said if first is None else said[: first.start(1)] + said[first.start(1)].upper() + said[first.end(1) :]


def spaced(match: re.Match[str], words: str) -> str:
    """``words`` for a symbol ``match`` with a space on each side where its neighbour is not one already
    (``R&D`` -> ``R and D``, ``fish & chips`` -> ``fish and chips``)."""
    text, start, end = match.string, match.start(), match.end()
    left = "" if start == 0 or text[start - 1].isspace() else " "
    right = "" if end == len(text) or text[end].isspace() else " "
    return f"{left}{words}{right}"
