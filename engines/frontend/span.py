"""A piece of text and how the front end is to take it (``engines.frontend.normalize_spans``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Mode = Literal["normalize", "verbatim", "characters"]


@dataclass(frozen=True)
class Span:
    """A piece of text and how it is meant.

    Attributes:
        text: the piece as written.
        mode: ``normalize`` (by the language's rules), ``verbatim`` (already as it is to be said: passed
            through), or ``characters`` (spelled: ``ABC1`` -> "A B C one").
    """

    text: str
    mode: Mode = "normalize"
