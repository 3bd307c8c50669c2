"""Money: a currency symbol before or after an amount, with cents and scale words.

``$49.95`` -> "forty nine dollars and ninety five cents", ``$3.50`` -> "three dollars and fifty cents",
``£5`` -> "five pounds", ``5€`` -> "five euros", ``$0.99`` -> "ninety nine cents", ``$1.2 million`` and
``$1.2m`` -> "one point two million dollars". An amount with more than two decimals is read as a decimal
(``$0.125`` -> "zero point one two five dollars").
"""

from __future__ import annotations

import re

from engines.frontend.number_words import cardinal, number
from engines.frontend.rules import Context, Rule

CURRENCIES = {
    "$": ("dollar", "dollars", "cent", "cents"),
    "£": ("pound", "pounds", "penny", "pence"),
    "€": ("euro", "euros", "cent", "cents"),
    "¥": ("yen", "yen", None, None),
}
"""Symbol -> (one, many, one hundredth, many hundredths); the yen has no hundredths in use."""
SCALES = {
    "thousand": "thousand",
    "million": "million",
    "billion": "billion",
    "trillion": "trillion",
    "k": "thousand",
    "K": "thousand",
    "m": "million",
    "M": "million",
    "mn": "million",
    "bn": "billion",
    "B": "billion",
    "tn": "trillion",
}
"""Words and letters after an amount that scale it (``$5m``, ``$2 billion``)."""

_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_SYMBOL = "[" + re.escape("".join(CURRENCIES)) + "]"
_SCALE = r"(?: (thousand|million|billion|trillion)\b|(k|K|m|M|mn|bn|B|tn)\b)"
CODES = {"US$": "$", "USD": "$", "GBP": "£", "EUR": "€", "JPY": "¥"}
"""ISO 4217 codes (and ``US$``) said as their currency's words (``5 USD``, ``EUR 10``, ``US$5``)."""
_CODE = "|".join(re.escape(code) for code in CODES)
_CODE_BEFORE = re.compile(rf"(?<![\w.,$])({_CODE}) ?({_NUMBER})(?!\w|[.,]\d)")
_CODE_AFTER = re.compile(rf"(?<![\w.,])({_NUMBER}) ?({_CODE})(?!\w)")
_BEFORE = re.compile(rf"(?<![\w.,])([-−]?)({_SYMBOL}) ?({_NUMBER}){_SCALE}?")
_AFTER = re.compile(rf"(?<![\w.,])([-−]?)({_NUMBER}){_SCALE}? ?({_SYMBOL})")


def amount(written: str, symbol: str, scale: str | None, context: Context) -> str:
    """``written`` (an amount, as ``1,234.50``) of currency ``symbol`` in words, times ``scale`` (a key of
    :data:`SCALES`) when given."""
    one, many, cent, cents = CURRENCIES[symbol]
    if scale:
        return f"{number(written, context.british)} {SCALES[scale]} {many}"
    whole, _, fraction = written.replace(",", "").partition(".")
    if len(fraction) > 2 or (fraction and cent is None):
        return f"{number(written, context.british)} {many}"
    units, hundredths = int(whole or 0), int(fraction.ljust(2, "0")) if fraction else 0
    parts = []
    if units or not hundredths:
        parts.append(f"{cardinal(units, context.british)} {one if units == 1 else many}")
    if hundredths:
        parts.append(f"{cardinal(hundredths, context.british)} {cent if hundredths == 1 else cents}")
    return " and ".join(parts)


def _before(match: re.Match[str], context: Context) -> str:
    sign, symbol, written = match.group(1), match.group(2), match.group(3)
    said = amount(written, symbol, match.group(4) or match.group(5), context)
    return f"minus {said}" if sign else said


def _after(match: re.Match[str], context: Context) -> str:
    sign, written, symbol = match.group(1), match.group(2), match.group(5)
    said = amount(written, symbol, match.group(3) or match.group(4), context)
    return f"minus {said}" if sign else said


RULES = (
    Rule("money (code first)", _CODE_BEFORE, lambda m, context: amount(m.group(2), CODES[m.group(1)], None, context)),
    Rule("money (code after)", _CODE_AFTER, lambda m, context: amount(m.group(1), CODES[m.group(2)], None, context)),
    Rule("money (symbol first)", _BEFORE, _before),
    Rule("money (symbol after)", _AFTER, _after),
)
