"""Inline tags in plain text: ``[pause:0.5s]`` / ``[pause:500ms]`` (silence) and ``[rate:1.2]`` … ``[/rate]``
(a speaking rate until the closing tag, or the end of the text), read into speech and pauses
(``engines.frontend.segments``).

Only these exact forms are tags: ``[pause:`` a number and ``s`` or ``ms`` ``]``; ``[rate:`` a factor (``1.2``), a
percentage (``80%``, ``+20%``) or a word (``slow``, ``x-fast``...) ``]``; ``[/rate]``. A rate inside a rate
multiplies it; a ``[/rate]`` with no rate open is dropped. A near miss (``[pause: 1s]``, ``[Pause:1s]``,
``[pause:1sec]``, ``[pause:1.5]``: ``pause`` or ``rate`` in any case, a colon, then anything) is an error naming
it, never read aloud. Anything else in brackets is text, read as before, and Piper's ``[[ phonemes ]]`` pass as
they always have.
"""

from __future__ import annotations

import re

from engines.frontend.segments import (
    RATE_WORDS,
    MarkupError,
    Part,
    PartsBuilder,
    check_pause,
    check_rate,
    rate_value,
    time_value,
)

_NUMBER = r"(?:\d+(?:\.\d+)?|\.\d+)"
_WORDS = "|".join(re.escape(word) for word in RATE_WORDS)
TAG = re.compile(
    rf"\[pause:(?P<pause>{_NUMBER}(?:ms|s))\]"
    rf"|\[rate:(?P<rate>{_WORDS}|[+-]{_NUMBER}%|{_NUMBER}%?)\]"
    r"|\[/rate\]"
)
"""The inline tags, in their only form."""
NEAR_MISS = re.compile(r"\[\s*(?:pause|rate)\s*:[^\]\[]*\]", re.IGNORECASE)
"""What was meant as a tag: ``pause`` or ``rate`` and a colon in brackets."""


def parse_inline(text: str) -> list[Part]:
    """``text`` as ``Speech`` and ``Pause`` parts: one ``Speech`` of the whole text when it has no tag.

    Raises:
        MarkupError: a pause longer than ``segments.MAX_PAUSE_S``, a rate outside ``segments.RATE_RANGE`` or a
            near miss of a tag, naming the tag and its character (from 1).
    """
    build, rates, last = PartsBuilder(), [1.0], 0
    for match in TAG.finditer(text):
        _check_text(text, last, match.start())
        build.text(text[last : match.start()])
        last = match.end()
        where = f'"{match.group(0)}" at character {match.start() + 1}'
        if match["pause"]:
            build.pause(check_pause(_found(time_value(match["pause"])), where, match["pause"]))
        elif match["rate"]:
            value = check_rate(_found(rate_value(match["rate"])), where, match["rate"])
            rates.append(check_rate(rates[-1] * value, where, match["rate"]))
            build.set_rate(rates[-1])
        elif len(rates) > 1:
            rates.pop()
            build.set_rate(rates[-1])
    _check_text(text, last, len(text))
    build.text(text[last:])
    return build.finish()


def _check_text(text: str, start: int, end: int) -> None:
    """Text between tags holds no near miss of one (:data:`NEAR_MISS`).

    Raises:
        MarkupError: naming the near miss, its character (from 1) and the tags' forms.
    """
    miss = NEAR_MISS.search(text, start, end)
    if miss:
        raise MarkupError(
            f'"{miss.group(0)}" at character {miss.start() + 1}',
            "not an inline tag: write [pause:0.5s] or [pause:500ms], [rate:1.2] … [/rate] (lower case, no spaces)",
        )


def _found(value: float | None) -> float:
    """A value :data:`TAG` matched (never ``None``: its forms are the ones the value readers take)."""
    assert value is not None
    return value
