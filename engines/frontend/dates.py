"""Dates in their common written forms: ``January 5`` and ``Jan. 5th`` (after ``engines.frontend.abbreviations``
has made it ``January 5th``), ``5 January`` and ``the 3rd of May``, ``2024-01-05``, and ``1/5/2024`` (month first
in American English, day first in British; a date that fits only the other order is read in it, and one that
fits both is noted as ambiguous). Years are left to ``engines.frontend.numbers`` (``January fifth, 2024`` ->
"... twenty twenty four").
"""

from __future__ import annotations

import re

from engines.frontend.around import around_match
from engines.frontend.number_words import DIGITS, cardinal, ordinal, year
from engines.frontend.rules import Ambiguity, Context, Rule

MONTH_NAMES = "January February March April May June July August September October November December".split()

_MONTH = "|".join(MONTH_NAMES)
_ORDINAL_END = r"(?:st|nd|rd|th)?"
_MONTH_DAY = re.compile(rf"\b({_MONTH}) (\d{{1,2}}){_ORDINAL_END}\b(?![:.,]?\d)")
_DAY_MONTH = re.compile(rf"(?<![\w.,])(\d{{1,2}}){_ORDINAL_END} (of )?({_MONTH})\b")
_ISO = re.compile(r"(?<![\w.,/-])(\d{4})-(\d{2})-(\d{2})(?![\w/-]|[.,]\d)")
_SLASHED = re.compile(r"(?<![\w.,/-])(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})(?![\w/]|[.,]\d)")


def said(month: int, day: int, year_text: str | None, context: Context) -> str:
    """A date in words: American ``January fifth, twenty twenty four``, British ``the fifth of January twenty
    twenty four``; ``year_text`` (two or four digits) may be ``None``."""
    name, nth = MONTH_NAMES[month - 1], ordinal(day, context.british)
    words = f"the {nth} of {name}" if context.british else f"{name} {nth}"
    if year_text is None:
        return words
    return f"{words}{'' if context.british else ','} {_year(year_text, context)}"


def _year(text: str, context: Context) -> str:
    """A year of four digits, or of two (``24`` -> "twenty four", ``05`` -> "oh five")."""
    if len(text) == 2:
        return f"oh {DIGITS[int(text[1])]}" if text[0] == "0" else cardinal(int(text), context.british)
    return year(int(text), context.british)


def _month_day(match: re.Match[str], context: Context) -> str:
    month, day = match.group(1), int(match.group(2))
    if not 1 <= day <= 31:
        return match.group(0)
    return f"{month} {ordinal(day, context.british)}"


def _day_month(match: re.Match[str], context: Context) -> str:
    day, month = int(match.group(1)), match.group(3)
    if not 1 <= day <= 31:
        return match.group(0)
    the = "" if around_match(match)[0].endswith(("the ", "The ")) else "the "
    return f"{the}{ordinal(day, context.british)} of {month}"


def _iso(match: re.Match[str], context: Context) -> str:
    year_text, month, day = match.group(1), int(match.group(2)), int(match.group(3))
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return match.group(0)
    return said(month, day, year_text, context)


def _slashed(match: re.Match[str], context: Context) -> str:
    first, second, year_text = int(match.group(1)), int(match.group(2)), match.group(3)
    orders = [(first, second), (second, first)] if not context.british else [(second, first), (first, second)]
    fitting = [(m, d) for m, d in orders if 1 <= m <= 12 and 1 <= d <= 31]
    if not fitting:
        return match.group(0)
    reading = said(*fitting[0], year_text, context)
    if len(fitting) == 2 and first != second:
        context.ambiguous.append(Ambiguity(match.group(0), reading, said(*fitting[1], year_text, context)))
    return reading


RULES = (
    Rule("date (ISO)", _ISO, _iso),
    Rule("date (slashed)", _SLASHED, _slashed),
    Rule("date (month day)", _MONTH_DAY, _month_day),
    Rule("date (day month)", _DAY_MONTH, _day_month),
)
