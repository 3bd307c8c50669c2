"""Units after numbers: ``2 kg`` -> "two kilograms", ``1 kg`` -> "one kilogram", ``70 km/h`` -> "seventy
kilometers per hour", ``-3 °C`` -> "minus three degrees Celsius", ``37%`` -> "thirty seven percent".

A unit is read only right after a number (with or without a space), so ``m`` (meters) and ``s`` (seconds) never
take a letter for a unit elsewhere. Ambiguous ones are held back: ``s`` needs a space (``1990s`` is a decade),
``in`` (and ``s``, ``h``) only where a clause or sentence ends after it (``12 in)``, ``5 in.`` at a sentence's
end; never ``2 in the box``).
"""

from __future__ import annotations

import re

from engines.frontend.number_words import is_one, number
from engines.frontend.rules import Context, Rule

UNITS = {
    "km/h": ("kilometer per hour", "kilometers per hour"),
    "kph": ("kilometer per hour", "kilometers per hour"),
    "mph": ("mile per hour", "miles per hour"),
    "°C": ("degree Celsius", "degrees Celsius"),
    "°F": ("degree Fahrenheit", "degrees Fahrenheit"),
    "°": ("degree", "degrees"),
    "%": ("percent", "percent"),
    "km": ("kilometer", "kilometers"),
    "cm": ("centimeter", "centimeters"),
    "mm": ("millimeter", "millimeters"),
    "m": ("meter", "meters"),
    "mi": ("mile", "miles"),
    "ft": ("foot", "feet"),
    "kg": ("kilogram", "kilograms"),
    "mg": ("milligram", "milligrams"),
    "g": ("gram", "grams"),
    "lbs": ("pound", "pounds"),
    "lb": ("pound", "pounds"),
    "oz": ("ounce", "ounces"),
    "ml": ("milliliter", "milliliters"),
    "mL": ("milliliter", "milliliters"),
    "L": ("liter", "liters"),
    "tbsp": ("tablespoon", "tablespoons"),
    "tsp": ("teaspoon", "teaspoons"),
    "TB": ("terabyte", "terabytes"),
    "GB": ("gigabyte", "gigabytes"),
    "MB": ("megabyte", "megabytes"),
    "kB": ("kilobyte", "kilobytes"),
    "KB": ("kilobyte", "kilobytes"),
    "Gbps": ("gigabit per second", "gigabits per second"),
    "Mbps": ("megabit per second", "megabits per second"),
    "kbps": ("kilobit per second", "kilobits per second"),
    "GHz": ("gigahertz", "gigahertz"),
    "MHz": ("megahertz", "megahertz"),
    "kHz": ("kilohertz", "kilohertz"),
    "Hz": ("hertz", "hertz"),
    "ms": ("millisecond", "milliseconds"),
    "min": ("minute", "minutes"),
    "hrs": ("hour", "hours"),
    "hr": ("hour", "hours"),
}
"""Written unit -> (after one, after other numbers). American spellings (espeak-ng reads both the same)."""
SPACED = {"s": ("second", "seconds"), "h": ("hour", "hours"), "in": ("inch", "inches")}
"""Units read only after a space and before the end of a clause or sentence (``10 s.``, ``3 h,``, ``12 in)``)."""

_NUMBER = r"[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_NAMES = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))
_UNIT = re.compile(rf"(?<![\w.,])({_NUMBER}) ?({_NAMES})(?![\w/]|\.\w)")
_SPACED_UNIT = re.compile(rf"(?<![\w.,])({_NUMBER}) ({'|'.join(SPACED)})(?=\s*(?:[,;:)!?]|$)|\.(?:\s+[A-Z]|\s*$))")


SCALES = {"M": "million", "bn": "billion"}
"""A count's scale written after it (``2.5M users``, ``$3bn``); ``K`` and ``B`` are left alone (``4K video``,
``Apt. 4B``)."""
_SCALE = re.compile(rf"(?<![\w.,])({_NUMBER})({'|'.join(SCALES)})(?!\w)")
_HEIGHT = re.compile(r"(?<![\w.,'’])(\d)\s?['′’](\d{1,2})\s?(?:\"|″|''|”)(?!\w)")
"""A height in feet and inches (``5'11"``, ``6′2″``)."""
_DECIMAL_SECONDS = re.compile(r"(?<![\w.,])(\d+\.\d+)s(?!\w)")
"""Seconds glued to a decimal number (``9.58s``); glued to a whole number ``s`` is a decade (``1990s``)."""


def _unit(match: re.Match[str], context: Context, table: dict[str, tuple[str, str]], unit: str = "") -> str:
    written, unit = match.group(1), unit or match.group(2)
    one, many = table[unit]
    return f"{number(written, context.british)} {one if is_one(written) else many}"


def _height(match: re.Match[str], context: Context) -> str:
    feet, inches = match.group(1), match.group(2)
    return f"{number(feet, context.british)} foot {number(inches, context.british)}"


RULES = (
    Rule("height", _HEIGHT, _height),
    Rule("scale", _SCALE, lambda match, context: f"{number(match.group(1), context.british)} {SCALES[match.group(2)]}"),
    Rule("seconds", _DECIMAL_SECONDS, lambda match, context: _unit(match, context, {"s": SPACED["s"]}, "s")),
    Rule("unit", _UNIT, lambda match, context: _unit(match, context, UNITS)),
    Rule("unit after a space", _SPACED_UNIT, lambda match, context: _unit(match, context, SPACED)),
)
