"""Clock times: ``8:00`` -> "eight o'clock", ``9:30 a.m.`` -> "nine thirty AM", ``9 a.m.`` -> "nine AM",
``10-11 am`` -> "ten to eleven AM", ``14:05`` -> "fourteen oh five", ``14:00`` -> "fourteen hundred".

"AM" and "PM" are written in capitals without periods: espeak-ng spells them, and no period is left that could
end a sentence. Where the written ``a.m.``'s period also ended the sentence (``... at 9 a.m. Then``), it is kept.
"""

from __future__ import annotations

import re

from engines.frontend.around import around_match, period_ends
from engines.frontend.number_words import cardinal, digits
from engines.frontend.rules import Context, Rule

_MERIDIEM = r"(?:([aApP])\.?[mM]\.|([aApP])[mM]\b)"
"""``a.m.``, ``am``, ``AM``, ``A.M.``, ``p.m.``... (group: the a or p)."""
_TIME = r"(\d{1,2})(?::(\d{2}))?"
_RANGE = re.compile(rf"(?<![\w.,:]){_TIME}\s?[-–]\s?{_TIME}\s?{_MERIDIEM}")
_BOTH = re.compile(rf"(?<![\w.,:]){_TIME}\s?{_MERIDIEM}\s?[-–]\s?{_TIME}\s?{_MERIDIEM}")
"""A range with AM/PM on both ends: ``10am-2pm``."""
_RATIO = re.compile(r"(?<![\w.,:])(\d+):(\d)(?![\d:]|[.,]\d)")
"""``3:1``, ``16:9``: a one-digit second part is no clock's minutes."""
_CLOCK = re.compile(rf"(?<![\w.,:])(\d{{1,2}}):(\d{{2}})(?![\d:]|[.,]\d)(?:\s?{_MERIDIEM})?")
_HOUR = re.compile(rf"(?<![\w.,:])(\d{{1,2}})\s?{_MERIDIEM}")
_LONE = re.compile(r"(?<![\w.])([aApP])\.[mM]\.")
"""``a.m.`` with no number before it (never the word "am")."""


def time_words(hour: int, minute: int | None, meridiem: str | None, context: Context) -> str | None:
    """A clock time in words, ``None`` where it is not one (hour over 23, or over 12 with AM/PM; minute over 59).

    Args:
        meridiem: ``"a"`` or ``"p"`` (either case), or ``None``.
    """
    if hour > (12 if meridiem else 23) or (minute is not None and minute > 59):
        return None
    said = cardinal(hour, context.british)
    if minute:
        said += f" oh {digits(str(minute))}" if minute < 10 else f" {cardinal(minute, context.british)}"
    elif minute == 0 and not meridiem:
        said += " o'clock" if 1 <= hour <= 12 else " hundred"
    return f"{said} {meridiem.upper()}M" if meridiem else said


def _ending(match: re.Match[str]) -> str:
    """``.`` where the written time ended in a period that also ended the sentence (``at 9 a.m. Then``)."""
    after = around_match(match)[1]
    return "." if match.group(0).endswith(".") and period_ends(after) else ""


def _meridiem(match: re.Match[str], first: int) -> str | None:
    return match.group(first) or match.group(first + 1)


def _range(match: re.Match[str], context: Context) -> str:
    meridiem = _meridiem(match, 5)
    start = time_words(int(match.group(1)), _minute(match.group(2)), meridiem, context)
    end = time_words(int(match.group(3)), _minute(match.group(4)), meridiem, context)
    if start is None or end is None:
        return match.group(0)
    return f"{start[:-3]} to {end}{_ending(match)}"


def _both(match: re.Match[str], context: Context) -> str:
    start = time_words(int(match.group(1)), _minute(match.group(2)), _meridiem(match, 3), context)
    end = time_words(int(match.group(5)), _minute(match.group(6)), _meridiem(match, 7), context)
    if start is None or end is None:
        return match.group(0)
    return f"{start} to {end}{_ending(match)}"


def _minute(text: str | None) -> int | None:
    return None if text is None else int(text)


def _clock(match: re.Match[str], context: Context) -> str:
    said = time_words(int(match.group(1)), int(match.group(2)), _meridiem(match, 3), context)
    return match.group(0) if said is None else said + _ending(match)


def _hour(match: re.Match[str], context: Context) -> str:
    said = time_words(int(match.group(1)), None, _meridiem(match, 2), context)
    return match.group(0) if said is None else said + _ending(match)


def _lone(match: re.Match[str], context: Context) -> str:
    return f"{match.group(1).upper()}M{_ending(match)}"


RULES = (
    Rule("time range, AM/PM at both ends", _BOTH, _both),
    Rule("time range", _RANGE, _range),
    Rule("clock time", _CLOCK, _clock),
    Rule("hour", _HOUR, _hour),
    Rule("AM/PM", _LONE, _lone),
    Rule(
        "ratio",
        _RATIO,
        lambda match, context: (
            f"{cardinal(int(match.group(1)), context.british)} to {cardinal(int(match.group(2)), context.british)}"
        ),
    ),
)
