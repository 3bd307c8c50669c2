"""The words around a place in a text, as the rules that decide between readings look at them: the next word,
the word before, whether a sentence could start there.
"""

from __future__ import annotations

import re

STARTERS = frozenset(
    "A An The I He She It We They You This That These Those There Then Here But And Or So Yet If When While What "
    "Who Why How Where Which My Our Your His Her Its Their After Before As At In On Of For From To By With "
    "Some All No Yes Not Now Please Let".split()
)
"""Words that often open a sentence: after an initial or a dotted acronym (``Plan B. Then``, ``the U.S. The``)
one of these starts a new sentence; any other capitalized word (``James T. Kirk``) continues the name."""

REACH = 80
"""Characters on each side a rule looks at (the words around a match are near it; a long text is never copied
whole for each match)."""

_OPENERS = "\"'“‘([«"
_CLOSERS = "\"'”’)]»"
_NEXT = re.compile(rf"\s+[{re.escape(_OPENERS)}]*([\w'’.-]+)")
_LAST_WORD = re.compile(r"([A-Za-z][\w'’-]*)\s+$")
_LAST_TOKEN = re.compile(r"(\S+)$")


def next_word(after: str) -> str:
    """The word after whitespace (opening quotes and brackets skipped) at the start of ``after``; ``""`` when
    ``after`` does not start with whitespace then a word."""
    match = _NEXT.match(after)
    return match.group(1) if match else ""


def at_end(after: str) -> bool:
    """Whether nothing but spaces and closing quotes or brackets follow."""
    return not after.strip().strip(_CLOSERS)


def capitalized(word: str) -> bool:
    """Whether ``word`` starts with an upper-case letter."""
    return word[:1].isupper()


def next_capitalized(after: str) -> bool:
    """Whether the next word (:func:`next_word`) starts with an upper-case letter."""
    return capitalized(next_word(after))


def period_ends(after: str) -> bool:
    """Whether a period followed by ``after`` ends its sentence: nothing follows it, or a capitalized word."""
    return at_end(after) or next_capitalized(after)


def next_starts_sentence(after: str) -> bool:
    """Whether ``after`` is the end, or its next word is one that opens sentences (:data:`STARTERS`)."""
    return at_end(after) or next_word(after).rstrip(".") in STARTERS


def previous_word(before: str) -> str:
    """The word ``before`` ends with (then spaces); ``""`` when it ends otherwise (punctuation, nothing)."""
    match = _LAST_WORD.search(before)
    return match.group(1) if match else ""


def after_name(before: str, is_abbreviation) -> bool:
    """Whether ``before`` ends with a capitalized word (then spaces) that does not open its sentence: the name a
    street abbreviation follows (``Main St.``), not ``Visit St. Paul's``.

    Args:
        is_abbreviation: ``token -> bool``, whether a token ending in ``.`` is an abbreviation (its period then
            ends no sentence: ``St. James St.``).
    """
    match = _LAST_WORD.search(before)
    if match is None or not capitalized(match.group(1)):
        return False
    return not sentence_starts_at(before[: match.start()], is_abbreviation)


def sentence_starts_at(before: str, is_abbreviation) -> bool:
    """Whether a sentence could start after ``before``: nothing before, or a sentence-final mark that is not an
    abbreviation's period."""
    before = before.rstrip().rstrip(_CLOSERS)
    if not before or before[-1] in "!?":
        return True
    if before[-1] != ".":
        return False
    token = _LAST_TOKEN.search(before)
    return token is None or not is_abbreviation(token.group(1).lstrip(_OPENERS))


def around(text: str, start: int, end: int) -> tuple[str, str]:
    """Up to :data:`REACH` characters of ``text`` before ``start`` and after ``end``."""
    return text[max(0, start - REACH) : start], text[end : end + REACH]


def around_match(match: re.Match[str]) -> tuple[str, str]:
    """:func:`around` a match, in the text it was found in."""
    return around(match.string, match.start(), match.end())
