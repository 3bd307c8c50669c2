"""Numbers as English words, through ``num2words`` (imported on first use), in the form espeak-ng reads as it
reads digits: no commas, no hyphens ("forty nine", as espeak-ng says "49"), and "and" inside numbers only in
British English ("one hundred and five"; American "one hundred five").
"""

from __future__ import annotations

import re

from engines.imports import importing

DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
"""Digit names, for digits read one by one (phone numbers, decimals after the point)."""


def letter(char: str) -> str:
    """A letter said by its name, as a spelled word says it: the capital, except ``A``, which espeak-ng's English
    reads alone as the article ("uh", ɐ): "eh" gives its name (eɪ)."""
    upper = char.upper()
    return "eh" if upper == "A" else upper


_AND = re.compile(r"\band ")


def _words(number: int, to: str = "cardinal") -> str:
    """``num2words(number, lang="en", to=to)``."""
    with importing("num2words"):
        from num2words import num2words

    return num2words(number, lang="en", to=to)


def _plain(words: str, british: bool) -> str:
    """num2words's words without commas and hyphens, "and" kept only for British English."""
    words = words.replace(",", "").replace("-", " ")
    return words if british else _AND.sub("", words)


def cardinal(number: int, british: bool = False) -> str:
    """``1234`` -> ``one thousand two hundred thirty four`` (British: ``... two hundred and thirty four``);
    negative numbers start with "minus"."""
    if number < 0:
        return f"minus {cardinal(-number, british)}"
    return _plain(_words(number), british)


def ordinal(number: int, british: bool = False) -> str:
    """``21`` -> ``twenty first``."""
    return _plain(_words(number, "ordinal"), british)


def year(number: int, british: bool = False) -> str:
    """``1999`` -> ``nineteen ninety nine``, ``2024`` -> ``twenty twenty four``, ``2005`` -> ``two thousand five``
    (British: ``two thousand and five``), ``1905`` -> ``nineteen oh five``."""
    return _plain(_words(number, "year"), british)


def digits(text: str) -> str:
    """Each digit of ``text`` by name, other characters dropped: ``"0800"`` -> ``zero eight zero zero``."""
    return " ".join(DIGITS[int(c)] for c in text if c.isdigit())


def number(text: str, british: bool = False) -> str:
    """A written number as words: an optional sign, thousands separated by commas, an optional decimal part read
    digit by digit (``"-1,234.50"`` -> ``minus one thousand two hundred thirty four point five zero``,
    ``".5"`` -> ``point five``)."""
    sign = "minus " if text[:1] in "-−" else ""
    whole, _, fraction = text.lstrip("+-−").replace(",", "").partition(".")
    said = cardinal(int(whole), british) if whole else ""
    if fraction:
        said = f"{said} point {digits(fraction)}".strip()
    return sign + said


def is_one(text: str) -> bool:
    """Whether a written number is the integer one (``1``, ``+1``): what takes a singular noun ("1.0 kg" is
    read "one point zero kilograms")."""
    return text.lstrip("+") == "1"
