"""Roman numerals, only where they cannot be a word or a set of initials: after a word that numbers things
(``Chapter IV`` -> "Chapter four", ``World War II`` -> "World War two") and after a monarch's or pope's name
(``Henry VIII`` -> "Henry the eighth"). A lone ``I`` is read only after a numbering word, or after a name where
the sentence or clause ends (``George I.``, ``James I of England``); ``Malcolm X`` and ``Washington DC`` are left
alone (neither name nor numeral is in the tables, and ``DC`` holds no I, V or X).
"""

from __future__ import annotations

import re

from engines.frontend.number_words import cardinal, ordinal
from engines.frontend.rules import Context, Rule

NUMBERING = frozenset(
    "Chapter Part Volume Book Act Scene Section Article Phase Stage Level Round Episode Season Title Appendix "
    "Class Type Grade War Series Mark Psalm Canto Movement Unit Lesson".split()
)
"""Words a cardinal numeral follows."""
REGNAL = frozenset(
    "Henry Edward George William Richard John James Charles Louis Elizabeth Mary Anne Philip Frederick Peter "
    "Catherine Alexander Nicholas Ivan Pius Benedict Gregory Leo Innocent Clement Paul Francis Urban Boniface "
    "Alfonso Ferdinand Carlos Juan Felipe Gustav Otto Ludwig Wilhelm Friedrich Ramesses Ptolemy Amenhotep "
    "Thutmose Constantine Justinian David Robert Victor Umberto Harald Olaf Haakon Christian Frederik Rama".split()
)
"""Names an ordinal numeral follows ("the eighth")."""

_VALID = re.compile(r"M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")
_NUMERAL = re.compile(r"\b([A-Z][a-z]+) ([IVXLCDM]+)\b(?![\w'’-])")
_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
_CLAUSE_END = re.compile(r"\s*(?:[.,;:!?)]|of\b|$)")


def value(numeral: str) -> int | None:
    """The value of a well-formed Roman numeral (``VIII`` -> 8); ``None`` for anything else (``IIII``)."""
    if not numeral or not _VALID.fullmatch(numeral):
        return None
    total = 0
    for this, following in zip(numeral, numeral[1:] + " ", strict=True):
        worth = _VALUES[this]
        total += -worth if following != " " and _VALUES[following] > worth else worth
    return total


def _numeral(match: re.Match[str], context: Context) -> str:
    word, numeral = match.groups()
    number = value(numeral)
    if number is None:
        return match.group(0)
    if word in NUMBERING:
        return f"{word} {cardinal(number, context.british)}"
    lone_i_ends = numeral != "I" or _CLAUSE_END.match(match.string, match.end()) is not None
    if word in REGNAL and set(numeral) <= set("IVX") and lone_i_ends:
        return f"{word} the {ordinal(number, context.british)}"
    return match.group(0)


RULES = (Rule("roman numeral", _NUMERAL, _numeral),)
