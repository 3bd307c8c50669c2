"""Abbreviations, titles, initials and dotted acronyms: what they say, and whether their period also ends the
sentence (it is kept only then, so espeak-ng never breaks ``Dr. Smith`` or ``James T. Kirk`` in two).

The tables map the written form without its period to the words. ``St.`` and ``Dr.`` read as a place after a
capitalized word that does not open the sentence (``on Main St.``), or after one that does where no capitalized
word follows (``Elm Dr. is closed``), and as a title otherwise (``St. James``, ``Visit St. Paul's``,
``Dr. Smith``).
"""

from __future__ import annotations

import re

from engines.frontend.around import (
    after_name,
    around_match,
    at_end,
    capitalized,
    next_capitalized,
    next_starts_sentence,
    next_word,
    period_ends,
    previous_word,
)
from engines.frontend.number_words import letter
from engines.frontend.rules import Context, Rule

TITLES = {
    "Dr": "Doctor",
    "Mr": "Mister",
    "Mrs": "Missus",
    "Ms": "Miz",
    "Prof": "Professor",
    "Capt": "Captain",
    "Lt": "Lieutenant",
    "Sgt": "Sergeant",
    "Gen": "General",
    "Col": "Colonel",
    "Gov": "Governor",
    "Sen": "Senator",
    "Rev": "Reverend",
    "Hon": "Honorable",
    "St": "Saint",
    "Mt": "Mount",
    "Ft": "Fort",
}
"""Before a name: never end a sentence (but at the end of the text)."""
PLACES = {"St": "Street", "Dr": "Drive"}
"""Also titles: these after a name."""
SUFFIXES = {
    "Ave": "Avenue",
    "Rd": "Road",
    "Blvd": "Boulevard",
    "Ln": "Lane",
    "Jr": "Junior",
    "Sr": "Senior",
    "Inc": "Incorporated",
    "Ltd": "Limited",
    "Corp": "Corporation",
    "Bros": "Brothers",
    "etc": "et cetera",
}
"""After words: end the sentence when a capitalized word follows (``Main Ave. The``)."""
PHRASES = {"vs": "versus", "approx": "approximately", "e.g": "for example", "i.e": "that is", "Fig": "figure"}
"""Inside a sentence: never end it (but at the end of the text)."""
MONTHS = {
    "Jan": "January",
    "Feb": "February",
    "Mar": "March",
    "Apr": "April",
    "Jun": "June",
    "Jul": "July",
    "Aug": "August",
    "Sep": "September",
    "Sept": "September",
    "Oct": "October",
    "Nov": "November",
    "Dec": "December",
}
"""Month abbreviations (``May`` is a word): before a day they end nothing."""
WEEKDAYS = {
    "Mon": "Monday",
    "Tue": "Tuesday",
    "Tues": "Tuesday",
    "Wed": "Wednesday",
    "Thu": "Thursday",
    "Thur": "Thursday",
    "Thurs": "Thursday",
    "Fri": "Friday",
    "Sat": "Saturday",
    "Sun": "Sunday",
}
"""Read only in a schedule: before a digit, a dash, a comma, ``to``/``through``/``and``/``&`` or another weekday,
or after ``to``/``through``/``and``/``&``/a dash (``Mon. 9-5``, ``Mon. to Fri.``); ``the Sun.`` and ``Sat.``
elsewhere are left alone."""
_WEEKDAY_NAMES = "|".join(sorted(WEEKDAYS, key=len, reverse=True))
_WEEKDAY = re.compile(
    rf"(?<![\w.])({_WEEKDAY_NAMES})\.(?=\s*(?:\d|[-–,&]|(?:to|through|and|thru)\b|(?:{_WEEKDAY_NAMES})\.))"
)
_LAST_WEEKDAY = re.compile(rf"((?:\b(?:to|through|thru|and)|[-–&])\s*)({_WEEKDAY_NAMES})\.")
"""The weekday that ends a schedule's range (``… to Fri.``)."""
NUMBER_SIGN = {
    "No": "number",
    "Nos": "numbers",
    "ext": "extension",
    "apt": "apartment",
    "vol": "volume",
    "ch": "chapter",
    "pp": "pages",
}
"""Read only before a digit (``No. 5``, ``ext. 89``, ``Apt. 4B``, ``vol. 2``); ``No. I won't`` is left alone."""

_ANY_CASE = {**SUFFIXES, **PHRASES, **{k: v for k, v in NUMBER_SIGN.items() if k.islower()}}
KNOWN = {
    **{k: k for k in (*TITLES, *MONTHS, *NUMBER_SIGN, *SUFFIXES, *PHRASES)},
    **{k.lower(): k for k in _ANY_CASE},
    **{k.capitalize(): k for k in _ANY_CASE},
}
"""Each written form (without its period) -> its key in the tables (``Etc``, ``ETC`` -> ``etc``)."""

_ABBREVIATION = re.compile(
    r"(?<![\w.])(" + "|".join(re.escape(k) for k in sorted(KNOWN, key=len, reverse=True)) + r")\.(?!\w)"
)
_INITIAL = re.compile(r"(?<![\w.'’])([A-Z])\.(?=\s+\S)")
_ACRONYM = re.compile(r"(?<![\w.])(?![aApP]\.[mM]\.)((?:[A-Za-z]\.){2,})(?!\w)")
_INITIAL_OR_NAME = re.compile(r"[A-Z]\.?$|[A-Z][\w'’-]*$")


def is_abbreviation(token: str) -> bool:
    """Whether ``token`` (ending in ``.``) is one the tables know, an initial or a dotted acronym: its period need
    not end a sentence."""
    word = token[:-1] if token.endswith(".") else token
    return word in KNOWN or bool(re.fullmatch(r"(?:[A-Za-z]\.)*[A-Za-z]", word))


def reading(written: str, before: str, after: str) -> tuple[str, bool] | None:
    """What the abbreviation ``written`` (without its period) says between ``before`` and ``after``, and whether
    its period ends the sentence; ``None`` where it is not one here (``No.`` not before a digit).
    """
    key = KNOWN.get(written)
    if key is None:
        return None
    end = at_end(after)
    named = capitalized(previous_word(before))
    if key in PLACES and (after_name(before, is_abbreviation) or (named and not next_capitalized(after))):
        return PLACES[key], end or next_capitalized(after)
    if key in TITLES:
        return TITLES[key], end
    if key in NUMBER_SIGN:
        return (NUMBER_SIGN[key], False) if next_word(after)[:1].isdigit() else None
    if key in MONTHS:
        return MONTHS[key], end or (next_capitalized(after) and not next_word(after)[:1].isdigit())
    if key in PHRASES:
        return PHRASES[key], end
    return SUFFIXES[key], end or next_capitalized(after)


def initial_ends(after: str) -> bool:
    """Whether the period of an initial or a dotted acronym followed by ``after`` ends the sentence: at the end,
    or before a word that opens sentences (``Plan B. Then``), never before a name (``James T. Kirk``, also where
    the name ends the sentence: ``met James T. Kirk.``)."""
    return next_starts_sentence(after) or not _INITIAL_OR_NAME.match(next_word(after).rstrip("."))


def _last_weekday(match: re.Match[str]) -> str:
    after = around_match(match)[1]
    return f"{match.group(1)}{WEEKDAYS[match.group(2)]}{'.' if period_ends(after) else ''}"


def _abbreviation(match: re.Match[str], context: Context) -> str:
    found = reading(match.group(1), *around_match(match))
    if found is None:
        return match.group(0)
    words, ends = found
    return words + "." if ends else words


def _initial(match: re.Match[str], context: Context) -> str:
    return match.group(0) if initial_ends(around_match(match)[1]) else match.group(1)


def _acronym(match: re.Match[str], context: Context) -> str:
    letters = " ".join(letter(c) for c in match.group(1).replace(".", ""))
    return letters + "." if initial_ends(around_match(match)[1]) else letters


RULES = (
    Rule("weekday", _WEEKDAY, lambda match, context: WEEKDAYS[match.group(1)]),
    Rule("weekday ending a range", _LAST_WEEKDAY, lambda match, context: _last_weekday(match)),
    Rule("abbreviation", _ABBREVIATION, _abbreviation),
    Rule("acronym", _ACRONYM, _acronym),
    Rule("initial", _INITIAL, _initial),
)
"""Abbreviations first (``e.g.`` is not an acronym), then dotted acronyms (``U.S.``), then initials."""
