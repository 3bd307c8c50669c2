"""One text normalization for word error rate, applied alike to the reference text and the recognizer's transcript.

English goes through Whisper's own English normalizer (``whisper_normalizer.english.EnglishTextNormalizer``, the
``whisper-normalizer`` package's port of ``openai/whisper``'s; MIT): case and punctuation, contractions and
British spellings, spoken numbers to digits ("fifty" and "50" alike, "five dollars" and "$5", "ten percent" and
"10%", "third" and "3rd") and titles ("Dr." and "doctor"). Around it, what it leaves apart:

- before: month and unit abbreviations spelled out ("Jan." "january", "km" "kilometers"), "a.m."/"p.m." as "am"/"pm"
  and clock times' colons as spaces;
- after: ordinal suffixes dropped ("5th" "5": "January fifth" is also read "January five") and neighbouring digit
  groups joined, so "3:30" and "three thirty" (Whisper's "330") give the same word;
- between the two sides: a compound written apart on one side joined as the other writes it ("window pane",
  "windowpane": :func:`join_compounds`).

Other languages get Whisper's basic normalizer (case, punctuation, symbols). Without the package, a plain lower-case
without punctuation (``jiwer``'s steps) is used and :func:`normalizer_name` says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from engines.imports import importing

MONTHS = {
    "jan": "january",
    "feb": "february",
    "mar": "march",
    "apr": "april",
    "jun": "june",
    "jul": "july",
    "aug": "august",
    "sep": "september",
    "sept": "september",
    "oct": "october",
    "nov": "november",
    "dec": "december",
}
"""Month abbreviations (followed by a full stop, or by a day number) -> the month."""

UNITS = {
    "km": "kilometers",
    "cm": "centimeters",
    "mm": "millimeters",
    "kg": "kilograms",
    "mg": "milligrams",
    "g": "grams",
    "lb": "pounds",
    "lbs": "pounds",
    "oz": "ounces",
    "ft": "feet",
    "mi": "miles",
    "mph": "miles per hour",
    "km/h": "kilometers per hour",
    "kph": "kilometers per hour",
    "ml": "milliliters",
    "l": "liters",
    "hz": "hertz",
    "khz": "kilohertz",
    "kb": "kilobytes",
    "mb": "megabytes",
    "gb": "gigabytes",
    "°c": "degrees celsius",
    "°f": "degrees fahrenheit",
}
"""Unit abbreviations after a number ("5 km", "5km") -> the unit's name (plural: after a number)."""

_UNIT = re.compile(
    r"(?<=\d)\s*(" + "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True)) + r")\b(?!\.\w)",
    re.IGNORECASE,
)
_MONTH = re.compile(r"\b(" + "|".join(MONTHS) + r")(?:\.|(?=\s+\d))", re.IGNORECASE)
_CLOCK = re.compile(r"\b(\d{1,2}):(\d{2})\b")
_MERIDIEM = re.compile(r"\b([ap])\.\s?m\.?(?=\W|$)", re.IGNORECASE)
_ORDINAL = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b")
_DIGIT_RUN = re.compile(r"\b(\d+)\s+(?=\d)")


def _before(text: str) -> str:
    """Spell out what Whisper's normalizer leaves abbreviated (units, months, a.m./p.m., clock colons)."""
    text = _UNIT.sub(lambda m: " " + UNITS[m.group(1).lower()], text)
    text = _MONTH.sub(lambda m: MONTHS[m.group(1).lower()], text)
    text = _MERIDIEM.sub(lambda m: m.group(1).lower() + "m", text)
    return _CLOCK.sub(r"\1 \2", text)


def _after(text: str) -> str:
    """Drop ordinal suffixes and join neighbouring digit groups ("3 30" -> "330")."""
    text = _ORDINAL.sub(r"\1", text)
    while _DIGIT_RUN.search(text):
        text = _DIGIT_RUN.sub(r"\1", text)
    return " ".join(text.split())


@lru_cache(maxsize=4)
def _whisper(language: str) -> Callable[[str], str] | None:
    """Whisper's normalizer for ``language`` (English, or the basic one), or None without the package."""
    try:
        if language.lower().startswith("en"):
            with importing("whisper_normalizer.english"):
                from whisper_normalizer.english import EnglishTextNormalizer

            return EnglishTextNormalizer()
        with importing("whisper_normalizer.basic"):
            from whisper_normalizer.basic import BasicTextNormalizer

        return BasicTextNormalizer()
    except ImportError:
        return None


def _plain(text: str) -> str:
    """Lower case, punctuation removed, single spaces (what WER used before this module)."""
    return " ".join(re.sub(r"[^\w\s']", " ", text.lower()).split())


def normalize(text: str, language: str = "en") -> str:
    """``text`` in the form WER compares words in: lower case, no punctuation, numbers as digits (English).

    Args:
        text: a reference line or a transcript.
        language: the voice's language, an espeak-ng voice or ISO code (``en-us``, ``en``, ``de``).
    """
    whisper = _whisper(language)
    if whisper is None:
        return _plain(text)
    if language.lower().startswith("en"):
        return _after(whisper(_before(text)))
    return " ".join(whisper(text).split())


def join_compounds(reference: str, hypothesis: str) -> tuple[str, str]:
    """``reference`` and ``hypothesis`` (normalized) with a compound written apart on one side joined as the other
    side writes it: "window pane" against "windowpane", "wood smoke" against "woodsmoke" (a spelling choice, not
    a misheard word). Two neighbouring words are joined where the joined form is a word of the other side.
    """
    return _joined(reference, set(hypothesis.split())), _joined(hypothesis, set(reference.split()))


def _joined(text: str, words: set[str]) -> str:
    """``text`` with each pair of neighbouring words joined where the joined form is in ``words``."""
    out: list[str] = []
    for word in text.split():
        if out and out[-1] not in words and word not in words and out[-1] + word in words:
            out[-1] += word
        else:
            out.append(word)
    return " ".join(out)


def normalizer_name(language: str = "en") -> str:
    """Which normalization :func:`normalize` applies for ``language``, in words (for tables and logs)."""
    whisper = _whisper(language)
    if whisper is None:
        return "lower case, no punctuation (whisper-normalizer is not installed)"
    return "Whisper's English normalizer" if language.lower().startswith("en") else "Whisper's basic normalizer"
