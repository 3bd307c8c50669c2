"""A piece of text and how the front end is to take it (``engines.frontend.normalize_spans``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Mode = Literal["normalize", "verbatim", "characters", "cardinal", "ordinal", "telephone"]


@dataclass(frozen=True)
class Span:
    """A piece of text and how it is meant.

    Attributes:
        text: the piece as written.
        mode: ``normalize`` (by the language's rules), ``verbatim`` (already as it is to be said: passed
            through), ``characters`` (spelled: ``ABC1`` -> "A B C one"), or ``cardinal``, ``ordinal``,
            ``telephone`` (a number read that way, ``engines.frontend.say_as``; by the rules where it is not one).
    """

    text: str
    mode: Mode = "normalize"
