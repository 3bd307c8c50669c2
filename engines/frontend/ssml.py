"""An SSML subset read into speech and pauses (``engines.frontend.segments``).

Elements: ``<speak>`` (the root), ``<break time strength>``, ``<prosody rate>``, ``<say-as interpret-as>``,
``<sub alias>``, ``<phoneme alphabet="ipa" ph>``, ``<p>`` and ``<s>``, nested as SSML 1.1 allows. Other
attributes of these elements (``pitch``, ``volume``, ``format``, ``xml:lang``, ``xmlns``...) are ignored;
any other element, a bad value, a DOCTYPE or XML that is not well-formed is a :class:`MarkupError` naming the
line and column of the text as typed. The XML is read by the standard library's expat (entities decoded once,
no external entity ever fetched).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from xml.parsers import expat

from engines.frontend.segments import (
    MarkupError,
    Part,
    PartsBuilder,
    Speech,
    check_pause,
    check_rate,
    rate_value,
    time_value,
)
from engines.frontend.span import Mode

BREAK_STRENGTHS = {"none": 0.0, "x-weak": 0.07, "weak": 0.14, "medium": 0.21, "strong": 0.4, "x-strong": 0.8}
"""Seconds of ``<break strength>``: espeak-ng's (``break_value`` in ``src/libespeak-ng/ssml.c``, in 10 ms units);
a ``<break/>`` without attributes is ``medium``, as there."""
PARAGRAPH_PAUSE = BREAK_STRENGTHS["x-strong"]
"""Silence between two ``<p>`` paragraphs (Amazon Polly's: a paragraph ends as ``<break strength="x-strong"/>``)."""
SAY_AS: dict[str, Mode] = {
    "characters": "characters",
    "spell-out": "characters",
    "cardinal": "cardinal",
    "number": "cardinal",
    "ordinal": "ordinal",
    "telephone": "telephone",
    "date": "normalize",
}
"""``interpret-as`` values and the span mode each reads as (``date``: the rules' dates; ``number`` is an old
name of ``cardinal``)."""
ELEMENTS = ("speak", "break", "prosody", "say-as", "sub", "phoneme", "p", "s")
_START = re.compile(r"\s*(?:<\?xml[^>]*\?>\s*)?(?:<!DOCTYPE\s+speak[^>\[]*>\s*)?<speak[\s/>]")
_PROLOG = re.compile(r"\s*<(?:\?xml|!DOCTYPE|speak[\s/>])")
"""What only a whole document starts with: a text forced to be SSML that does not is wrapped in ``<speak>``."""
_WRAP = "<speak>"
_HINTS = {
    expat.errors.XML_ERROR_INVALID_TOKEN: "not well-formed: an '&' or '<' meant as text is written &amp; or &lt;",
    expat.errors.XML_ERROR_UNDEFINED_ENTITY: "undefined entity: SSML knows &amp; &lt; &gt; &quot; &apos; only",
    expat.errors.XML_ERROR_JUNK_AFTER_DOC_ELEMENT: "text after </speak>: all of it belongs inside <speak>",
    expat.errors.XML_ERROR_UNCLOSED_TOKEN: "a tag is not closed with '>'",
}


def is_ssml(text: str) -> bool:
    """Whether ``text`` is an SSML document: it starts with ``<speak>`` (after spaces, and an optional
    ``<?xml …?>`` declaration and ``<!DOCTYPE speak …>`` without declarations of its own)."""
    return _START.match(text) is not None


def parse_ssml(text: str) -> list[Part]:
    """``text`` (an SSML document, or SSML without its ``<speak>`` root: wrapped in one) as ``Speech`` and
    ``Pause`` parts, in order.

    Raises:
        MarkupError: malformed XML or an element, attribute value or nesting this subset does not take;
            the message names the line and column (of ``text`` as given) and what is wrong.
    """
    wrapped = not _PROLOG.match(text)
    return _Reader(text, shift=len(_WRAP) if wrapped else 0).read(f"{_WRAP}{text}</speak>" if wrapped else text)


@dataclass(frozen=True)
class _Open:
    """An element being read: its name, where it starts, the mode and rate of its text, and what it holds
    (``any``: elements and text; ``text``: text only; ``ignored``: its written form, said by an attribute
    instead; ``nothing``)."""

    name: str
    where: str
    mode: Mode = "normalize"
    rate: float = 1.0
    holds: str = "any"


class _Reader:
    """One document read by expat into a :class:`PartsBuilder`."""

    def __init__(self, text: str, shift: int) -> None:
        self.lines, self.shift = text.split("\n"), shift
        self.build = PartsBuilder()
        self.open: list[_Open] = []
        self.parser = expat.ParserCreate()
        self.parser.buffer_text = True  # one text node in one call, so the rules see it whole
        self.parser.StartElementHandler = self._start
        self.parser.EndElementHandler = self._end
        self.parser.CharacterDataHandler = self._text
        self.parser.StartDoctypeDeclHandler = self._doctype

    def read(self, document: str) -> list[Part]:
        """The document's parts."""
        try:
            self.parser.Parse(document, True)
        except expat.ExpatError as exc:
            raise MarkupError(self._where(exc.lineno, exc.offset), self._explain(exc)) from None
        return self.build.finish()

    def _where(self, line: int, column: int) -> str:
        """``SSML line L, column C`` (from 1) in the text as typed, never past the end of its line."""
        column = max(0, column - self.shift) if line == 1 else column
        column = min(column, len(self.lines[min(line, len(self.lines)) - 1]))
        return f"SSML line {line}, column {column + 1}"

    def _here(self) -> str:
        return self._where(self.parser.CurrentLineNumber, self.parser.CurrentColumnNumber)

    def _explain(self, exc: expat.ExpatError) -> str:
        """expat's words, or what the open elements say about them."""
        said = expat.errors.messages[exc.code]
        unclosed = said in (expat.errors.XML_ERROR_NO_ELEMENTS, expat.errors.XML_ERROR_TAG_MISMATCH)
        if unclosed and self.open and (self.open[-1].name != "speak" or not self.shift):
            inner = self.open[-1]
            return f"<{inner.name}> (opened at {inner.where.removeprefix('SSML ')}) is not closed"
        return _HINTS.get(said, said)

    def _doctype(self, name: str, system: str | None, public: str | None, declarations: bool) -> None:
        """A DOCTYPE is taken as SSML 1.0's examples write it; one declaring entities of its own is not."""
        if declarations:
            raise MarkupError(self._here(), "a DOCTYPE with declarations of its own is not taken (SSML needs none)")

    def _start(self, name: str, attrs: dict[str, str]) -> None:
        where, parent = self._here(), self.open[-1] if self.open else None
        if parent is None and name != "speak":
            raise MarkupError(where, f"the root element is <{name}>; SSML starts with <speak>")
        if parent is not None and parent.holds != "any":
            raise MarkupError(where, f"<{parent.name}> holds no elements (found <{name}>)")
        if name not in _ELEMENT_READERS or (name == "speak" and parent is not None):
            supported = ", ".join(f"<{e}>" for e in ELEMENTS)
            what = "<speak> is the root only" if name == "speak" else f"unknown element <{name}>"
            raise MarkupError(where, f"{what} (supported: {supported})")
        self.open.append(_ELEMENT_READERS[name](self, attrs, where, parent or _Open("", where)))

    def _end(self, name: str) -> None:
        closed = self.open.pop()
        if closed.name == "prosody":
            self.build.set_rate(self.open[-1].rate)
        elif closed.name in ("p", "s"):
            self.build.sentence()

    def _text(self, data: str) -> None:
        inner = self.open[-1]
        if inner.holds == "nothing" and data.strip():
            raise MarkupError(inner.where, f"<{inner.name}> holds no text (found {data.strip()[:20]!r})")
        if inner.holds in ("any", "text"):
            self.build.text(data, inner.mode)


def _speak(reader: _Reader, attrs: dict[str, str], where: str, parent: _Open) -> _Open:
    return _Open("speak", where)


def _break(reader: _Reader, attrs: dict[str, str], where: str, parent: _Open) -> _Open:
    strength = attrs.get("strength", "medium")
    if strength not in BREAK_STRENGTHS:
        raise MarkupError(where, f'<break strength="{strength}">: one of {", ".join(BREAK_STRENGTHS)}')
    seconds = BREAK_STRENGTHS[strength]
    if "time" in attrs:  # SSML 1.1: time wins over strength
        found = time_value(attrs["time"])
        if found is None:
            raise MarkupError(where, f'<break time="{attrs["time"]}">: a time is written like 500ms or 1.5s')
        seconds = check_pause(found, where, attrs["time"])
    if seconds > 0:
        reader.build.pause(seconds)
    return _Open("break", where, parent.mode, parent.rate, holds="nothing")


def _prosody(reader: _Reader, attrs: dict[str, str], where: str, parent: _Open) -> _Open:
    rate = parent.rate
    if "rate" in attrs:
        value = rate_value(attrs["rate"])
        if value is None:
            words = "x-slow, slow, medium, fast, x-fast, a percentage (80%, +20%) or a factor (1.2)"
            raise MarkupError(where, f'<prosody rate="{attrs["rate"]}">: a rate is {words}')
        rate = check_rate(parent.rate * check_rate(value, where, attrs["rate"]), where, attrs["rate"])
    reader.build.set_rate(rate)
    return _Open("prosody", where, parent.mode, rate)


def _say_as(reader: _Reader, attrs: dict[str, str], where: str, parent: _Open) -> _Open:
    kind = attrs.get("interpret-as")
    if kind not in SAY_AS:
        given = "needs interpret-as" if kind is None else f'interpret-as="{kind}" is not taken'
        raise MarkupError(where, f"<say-as> {given} (one of {', '.join(SAY_AS)})")
    return _Open("say-as", where, SAY_AS[kind], parent.rate, holds="text")


def _sub(reader: _Reader, attrs: dict[str, str], where: str, parent: _Open) -> _Open:
    if not attrs.get("alias", "").strip():
        raise MarkupError(where, "<sub> needs alias (the words to say)")
    reader.build.text(attrs["alias"], parent.mode)
    return _Open("sub", where, parent.mode, parent.rate, holds="ignored")


def _phoneme(reader: _Reader, attrs: dict[str, str], where: str, parent: _Open) -> _Open:
    alphabet, phonemes = attrs.get("alphabet", "ipa"), attrs.get("ph", "").strip()
    if alphabet != "ipa":
        raise MarkupError(where, f'<phoneme alphabet="{alphabet}"> is not taken: only alphabet="ipa"')
    if not phonemes or "[[" in phonemes or "]]" in phonemes:
        raise MarkupError(where, '<phoneme> needs ph="…" (IPA, without [[ or ]])')
    reader.build.text(f"[[ {phonemes} ]]", "verbatim")
    return _Open("phoneme", where, parent.mode, parent.rate, holds="ignored")


def _paragraph(reader: _Reader, attrs: dict[str, str], where: str, parent: _Open) -> _Open:
    reader.build.sentence()
    if reader.build.parts and isinstance(reader.build.parts[-1], Speech):
        reader.build.pause(PARAGRAPH_PAUSE)
    return _Open("p", where, parent.mode, parent.rate)


def _sentence(reader: _Reader, attrs: dict[str, str], where: str, parent: _Open) -> _Open:
    reader.build.sentence()
    return _Open("s", where, parent.mode, parent.rate)


SPOKEN_THROUGH = ("emphasis", "voice", "lang", "w", "token", "audio", "mark")
"""SSML 1.1 elements this subset does not act on: their text is spoken as if they were not there, so a client's
``<emphasis>`` or ``<mark>`` is not refused (``<audio>``'s text is its fallback, said instead of the sound)."""
SKIPPED = ("desc", "lexicon", "meta", "metadata", "lookup")
"""SSML 1.1 elements whose content is not speech: left out."""


def _through(reader: _Reader, attrs: dict[str, str], where: str, parent: _Open) -> _Open:
    return _Open("through", where, parent.mode, parent.rate)


def _skipped(reader: _Reader, attrs: dict[str, str], where: str, parent: _Open) -> _Open:
    return _Open("skipped", where, parent.mode, parent.rate, holds="ignored")


_ELEMENT_READERS: dict[str, Callable[[_Reader, dict[str, str], str, _Open], _Open]] = {
    **dict.fromkeys(SPOKEN_THROUGH, _through),
    **dict.fromkeys(SKIPPED, _skipped),
    "speak": _speak,
    "break": _break,
    "prosody": _prosody,
    "say-as": _say_as,
    "sub": _sub,
    "phoneme": _phoneme,
    "p": _paragraph,
    "s": _sentence,
}
"""How each element is read: what it adds to the parts when it opens, and the :class:`_Open` it becomes."""
