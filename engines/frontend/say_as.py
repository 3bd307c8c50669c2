"""Readings a text cannot show by itself, as SSML's ``<say-as interpret-as>`` asks for them (English).

``1999`` said as a count is "one thousand nine hundred ninety nine", not the year the rules read; ``3`` as an
ordinal is "third"; ``555 0123`` as a telephone number is said digit by digit, a pause between groups. A text
that is not of the asked form (``<say-as interpret-as="cardinal">many</say-as>``) is normalized by the rules as
any other text; other languages pass it through (``engines.frontend.normalize.normalize_spans``).
"""

from __future__ import annotations

import re

from engines.frontend.number_words import digits, number, ordinal
from engines.frontend.rules import Context

MODES = ("cardinal", "ordinal", "telephone")
"""The span modes this module says (``engines.frontend.span.Span.mode``)."""

_CARDINAL = re.compile(r"[-−+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-−+]?\.\d+")
_ORDINAL = re.compile(r"(\d{1,3}(?:,\d{3})+|\d+)(?:st|nd|rd|th|\.)?", re.IGNORECASE)
_DIGIT_GROUP = re.compile(r"\d+")


def said_as(text: str, mode: str, context: Context) -> str | None:
    """``text`` said as ``mode`` (one of :data:`MODES`), or ``None`` when it is not of that form."""
    written = text.strip()
    if mode == "cardinal" and _CARDINAL.fullmatch(written):
        return number(written.lstrip("+"), context.british)
    if mode == "ordinal" and (found := _ORDINAL.fullmatch(written)):
        return ordinal(int(found.group(1).replace(",", "")), context.british)
    if mode == "telephone" and (groups := _DIGIT_GROUP.findall(written)):
        said = ", ".join(digits(group) for group in groups)
        return f"plus {said}" if written.startswith("+") else said
    return None
