"""Numbers: phone numbers and other digit runs, version numbers, ranges, fractions, ordinals, decades, years,
negative numbers, decimals and cardinals (``engines.frontend.number_words`` says them).

- ``555-123-4567``, ``(555) 123-4567``, ``+44 20 7946 0958``: digit by digit, a pause between groups.
- A run of digits starting with 0 (``007``), or of seven or more not ending in ``000``: digit by digit.
- ``2.4.1`` -> "two point four point one"; ``10-20`` and ``1990–1995`` -> "... to ...".
- ``1/2`` -> "one half", ``3/4`` -> "three quarters", ``2 1/2`` -> "two and a half"; a fraction that could be a
  date (``1/2``: January second) is noted as ambiguous.
- ``21st`` -> "twenty first", ``1990s`` -> "nineteen nineties", ``'80s`` -> "eighties".
- A four-digit number from 1100 to 2099 with no separator is a year (``1999`` -> "nineteen ninety nine");
  ``1,999`` is a count.
"""

from __future__ import annotations

import re

from engines.frontend.dates import said as date_said
from engines.frontend.number_words import cardinal, digits, number, ordinal, year
from engines.frontend.rules import Ambiguity, Context, Rule

_PHONES = (
    r"\+\d{1,3}(?:[ .-]\(?\d{1,4}\)?){2,5}",
    r"\(\d{3}\) ?\d{3}[-. ]\d{4}",
    r"(?:1[-.])?\d{3}[-.]\d{3}[-.]\d{4}",
    r"\d{3}-\d{4}",
)
"""International with ``+``; American with parentheses, dashes or dots (``1-800-555-1234``); a local seven-digit
number."""
_PHONE = re.compile(rf"(?<![\w.,+-])(?:{'|'.join(_PHONES)})(?![\w-]|[.,]\d)")
_ADDRESS = re.compile(r"(?<![\w.,])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\w]|\.\d)")
"""An IPv4 address (four numbers of 0-255): its digits one by one, its dots said."""
_VERSION = re.compile(r"(?<![\w.,])\d+(?:\.\d+){2,}(?![\w]|\.\d)")
_NUMBER_HYPHEN = re.compile(r"(?<=\d)((?:st|nd|rd|th)?)-(?=[A-Za-z])")
_NUMBER = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_RANGE = re.compile(rf"(?<![\w.,\-−])({_NUMBER})(?:–| – |-)({_NUMBER})(?![\w]|[.,]\d)")
_MIXED = re.compile(r"(?<![\w.,/])(\d+) (\d+)/(\d+)(?![\w/]|[.,]\d)")
_FRACTION = re.compile(r"(?<![\w.,/])(\d+)/(\d+)(?![\w/]|[.,]\d)")
SAYINGS = {"24/7": "twenty four seven", "9/11": "nine eleven", "50/50": "fifty fifty"}
"""Slashed numbers said as set phrases, not fractions or dates."""
_SAYING = re.compile(rf"(?<![\w.,/])(?:{'|'.join(re.escape(k) for k in SAYINGS)})(?![\w/]|[.,]\d)")
_ORDINAL = re.compile(r"(?<![\w.,])(\d+)(?:st|nd|rd|th)\b")
_DECADE = re.compile(r"(?<![\w.,])(?:'|’)?(\d0|\d{3}0)s\b")
_PLAIN = re.compile(rf"(?<![\w.,\-−])([-−]?)({_NUMBER}|\.\d+)(?![\w]|[.,]\d)")

DENOMINATORS = {2: ("half", "halves"), 4: ("quarter", "quarters")}
"""Denominators with their own names; others are ordinals (``5/8`` -> "five eighths")."""


def _phone(match: re.Match[str], context: Context) -> str:
    groups = re.findall(r"\d+", match.group(0))
    said = ", ".join(digits(group) for group in groups)
    return f"plus {said}" if match.group(0).startswith("+") else said


def _version(match: re.Match[str], context: Context) -> str:
    return " point ".join(cardinal(int(part), context.british) for part in match.group(0).split("."))


def fraction(numerator: int, denominator: int, context: Context) -> str | None:
    """``3/4`` -> "three quarters"; ``None`` for a zero denominator."""
    if denominator == 0:
        return None
    if denominator == 1:
        return f"{cardinal(numerator, context.british)} over one"
    one, many = DENOMINATORS.get(denominator) or (ordinal(denominator, context.british),) * 2
    if many == one:
        many = one + "s"
    return f"{cardinal(numerator, context.british)} {one if numerator == 1 else many}"


def _mixed(match: re.Match[str], context: Context) -> str:
    whole, numerator, denominator = (int(g) for g in match.groups())
    if numerator >= denominator or (said := fraction(numerator, denominator, context)) is None:
        return match.group(0)
    part = "a half" if (numerator, denominator) == (1, 2) else said
    return f"{cardinal(whole, context.british)} and {part}"


def _fraction(match: re.Match[str], context: Context) -> str:
    numerator, denominator = int(match.group(1)), int(match.group(2))
    said = fraction(numerator, denominator, context)
    if said is None:
        return match.group(0)
    month, day = (denominator, numerator) if context.british else (numerator, denominator)
    if 1 <= month <= 12 and 1 <= day <= 31:
        context.ambiguous.append(Ambiguity(match.group(0), said, date_said(month, day, None, context)))
    return said


def _ordinal(match: re.Match[str], context: Context) -> str:
    return ordinal(int(match.group(1)), context.british)


def _decade(match: re.Match[str], context: Context) -> str:
    written = match.group(1)
    said = cardinal(int(written)) if len(written) == 2 else year(int(written), context.british)
    return said[:-1] + "ies" if said.endswith("y") else said + "s"


def _plain(match: re.Match[str], context: Context) -> str:
    sign, written = match.groups()
    if not sign and written.isdigit():
        if len(written) == 4 and 1100 <= int(written) <= 2099:
            return year(int(written), context.british)
        if len(written) > 1 and (written[0] == "0" or (len(written) >= 7 and not written.endswith("000"))):
            return digits(written)
    return number(sign + written, context.british)


RULES = (
    Rule("IP address", _ADDRESS, lambda match, context: " dot ".join(digits(p) for p in match.group(0).split("."))),
    Rule("phone number", _PHONE, _phone),
    Rule("version", _VERSION, _version),
    Rule("number then hyphen", _NUMBER_HYPHEN, lambda match, context: match.group(1) + " "),
    Rule("range", _RANGE, lambda match, context: f"{match.group(1)} to {match.group(2)}"),
    Rule("set phrase", _SAYING, lambda match, context: SAYINGS[match.group(0)]),
    Rule("mixed fraction", _MIXED, _mixed),
    Rule("fraction", _FRACTION, _fraction),
    Rule("ordinal", _ORDINAL, _ordinal),
    Rule("decade", _DECADE, _decade),
)
"""Before money, units and symbols have had their numbers: these shape digits into words or plain numbers."""
LAST = (Rule("number", _PLAIN, _plain),)
"""After everything else: each plain number left (a year, a digit run, a decimal or a cardinal)."""
