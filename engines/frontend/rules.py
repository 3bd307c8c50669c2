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
    """``rule.speak`` bound to ``context``, as ``re.sub`` calls it."""
    return lambda match: rule.speak(match, context)


def spaced(match: re.Match[str], words: str) -> str:
    """``words`` for a symbol ``match`` with a space on each side where its neighbour is not one already
    (``R&D`` -> ``R and D``, ``fish & chips`` -> ``fish and chips``)."""
    text, start, end = match.string, match.start(), match.end()
    left = "" if start == 0 or text[start - 1].isspace() else " "
    right = "" if end == len(text) or text[end].isspace() else " "
    return f"{left}{words}{right}"
