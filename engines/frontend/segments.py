"""What marked-up text is made of: :class:`Speech` (spans of text at one speaking rate) and :class:`Pause`
(silence of a given length), built by :class:`PartsBuilder` from SSML (``engines.frontend.ssml``) or inline
tags (``engines.frontend.inline_tags``); :class:`MarkupError` for markup that cannot be read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engines.errors import VoiceStudioError
from engines.frontend.span import Mode, Span

MAX_PAUSE_S = 20.0
"""The longest pause one tag may ask for, in seconds (Azure's SSML ``<break>`` limit, 20,000 ms): a request
cannot make the server hold minutes of silence in memory."""
RATE_RANGE = (0.25, 4.0)
"""Speaking rates a tag may set, as a multiple of the request's rate (OpenAI's ``speed`` range; the server's
``engines.server.request.SPEED_RANGE``)."""
SENTENCE_END = re.compile(r"[.!?。！？]\W*$")
"""A text that ends its sentence: the speech after it starts another (``sentence_silence`` between)."""
RATE_WORDS = {"x-slow": 0.6, "slow": 0.8, "medium": 1.0, "default": 1.0, "fast": 1.25, "x-fast": 1.6}
"""SSML's rate words as multiples of the voice's rate: espeak-ng's own (``mnem_rate`` in
``src/libespeak-ng/ssml.c``, percent of its default rate)."""
_PHONEMES = re.compile(r"(\[\[.*?\]\])", re.DOTALL)
_TIME = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ms|s)")
_RATE = re.compile(r"([+-]?)(\d+(?:\.\d*)?|\.\d+)(%?)")


class MarkupError(VoiceStudioError, ValueError):
    """SSML or an inline tag that cannot be read: the message names where (``line 1, column 14`` of the text as
    typed, or the tag itself) and what is wrong."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where, self.reason = where, reason


@dataclass(frozen=True)
class Speech:
    """Text spoken at one rate.

    Attributes:
        spans: the text, each piece with how it is meant (``engines.frontend.span.Span``).
        rate: speaking rate as a multiple of the request's (2.0 twice as fast: ``length_scale`` / 2).
        joins: it continues the sentence of the speech just before it (no ``sentence_silence`` between).
    """

    spans: tuple[Span, ...]
    rate: float = 1.0
    joins: bool = False

    @property
    def text(self) -> str:
        """The spans' text as written, joined."""
        return "".join(span.text for span in self.spans)

    @property
    def plain(self) -> bool:
        """Only text for the rules and Piper's ``[[ phonemes ]]``: the joined text can be normalized whole, block
        by block (``engines.frontend.normalize.normalize`` keeps the phonemes as they are)."""
        return all(span.mode in ("normalize", "verbatim") for span in self.spans)


@dataclass(frozen=True)
class Pause:
    """Silence of ``seconds`` (at most :data:`MAX_PAUSE_S`)."""

    seconds: float


Part = Speech | Pause


class PartsBuilder:
    """Collects text, rate changes, pauses and sentence starts into :class:`Speech` and :class:`Pause` parts, in
    order. Adjacent text of one mode becomes one span (the rules see ``Fish & chips`` whole); Piper's inline
    ``[[ phonemes ]]`` in normalized text become spans of their own, passed as they are."""

    def __init__(self) -> None:
        self.parts: list[Part] = []
        self.rate = 1.0
        self._spans: list[Span] = []
        self._sentence_start = False

    def text(self, text: str, mode: Mode = "normalize") -> None:
        """Add ``text`` spoken as ``mode``."""
        pieces = _PHONEMES.split(text) if mode == "normalize" else [text]
        for n, piece in enumerate(pieces):
            kind: Mode = "verbatim" if n % 2 else mode
            if self._spans and self._spans[-1].mode == kind and kind != "verbatim":
                self._spans[-1] = Span(self._spans[-1].text + piece, kind)
            elif piece:
                self._spans.append(Span(piece, kind))

    def set_rate(self, rate: float) -> None:
        """Speak what follows at ``rate`` (a multiple of the request's rate)."""
        if rate != self.rate:
            self.flush()
            self.rate = rate

    def pause(self, seconds: float) -> None:
        """Add silence of ``seconds``."""
        self.flush()
        self.parts.append(Pause(seconds))

    def sentence(self) -> None:
        """What follows starts a sentence (``<s>``, ``<p>``)."""
        self.flush()
        self._sentence_start = True

    def flush(self) -> None:
        """End the speech collected so far (dropped when it holds only spaces)."""
        spans, self._spans = tuple(self._spans), []
        if not "".join(span.text for span in spans).strip():
            return
        before = self.parts[-1] if self.parts else None
        joins = isinstance(before, Speech) and not self._sentence_start and not SENTENCE_END.search(before.text)
        self.parts.append(Speech(spans, self.rate, joins))
        self._sentence_start = False

    def finish(self) -> list[Part]:
        """The parts, the last speech ended."""
        self.flush()
        return self.parts


def time_value(written: str) -> float | None:
    """Seconds of a time as SSML writes it (``500ms``, ``1s``, ``1.5s``: CSS2's times), ``None`` for anything
    else."""
    found = _TIME.fullmatch(written.strip())
    if found is None:
        return None
    value = float(found.group(1))
    return value / 1000 if found.group(2) == "ms" else value


def rate_value(written: str) -> float | None:
    """A speaking rate as a multiple of the current one: a word of :data:`RATE_WORDS`, a percentage (``80%``),
    a change (``+20%``, ``-20%``) or a factor (``1.2``); ``None`` for anything else."""
    value = written.strip()
    if value in RATE_WORDS:
        return RATE_WORDS[value]
    found = _RATE.fullmatch(value)
    if found is None:
        return None
    sign, number, percent = found.groups()
    if sign:
        return 1 + float(f"{sign}{number}") / 100 if percent else None
    return float(number) / 100 if percent else float(number)


def check_rate(rate: float, where: str, written: str) -> float:
    """``rate`` when inside :data:`RATE_RANGE`.

    Raises:
        MarkupError: naming ``where`` and the ``written`` value.
    """
    low, high = RATE_RANGE
    if not low <= rate <= high:
        raise MarkupError(where, f'rate "{written}" is outside {low:g}-{high:g} times the voice\'s rate')
    return rate


def check_pause(seconds: float, where: str, written: str) -> float:
    """``seconds`` when at most :data:`MAX_PAUSE_S`.

    Raises:
        MarkupError: naming ``where`` and the ``written`` value.
    """
    if seconds > MAX_PAUSE_S:
        raise MarkupError(where, f'a pause of "{written}" is longer than the {MAX_PAUSE_S:g} s one tag may ask for')
    return seconds
