"""Marked-up text read into speech and pauses: the one layer every engine, ``say``, the speech server and the
pages go through (``engines.sentence_loop`` speaks the parts; the remote engine sends the choice to a Voice
Studio server, which reads the markup itself).

A text is SSML (``engines.frontend.ssml``) when asked (``ssml=True``; ``<speak>`` may then be left out) or, by
default, when it starts with ``<speak>``; any other text is plain, with inline tags (``[pause:1s]``,
``[rate:1.2]`` … ``[/rate]``: ``engines.frontend.inline_tags``) and Piper's ``[[ phonemes ]]``. Malformed markup is a
``MarkupError`` naming where, raised before any audio: it is never read aloud.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from engines.cleaning import clean_characters
from engines.frontend.inline_tags import TAG, parse_inline
from engines.frontend.normalize import Normalized, normalize, normalize_spans
from engines.frontend.rules import Ambiguity
from engines.frontend.segments import MarkupError, Part, Pause, Speech
from engines.frontend.ssml import is_ssml, parse_ssml

if TYPE_CHECKING:
    from engines.frontend.lexicon import Lexicon

__all__ = [
    "VERSION",
    "MarkupError",
    "Part",
    "Pause",
    "Speech",
    "has_markup",
    "heard",
    "is_ssml",
    "parse_markup",
    "reads_as_ssml",
    "said",
    "spoken",
]

_PHONEMES = re.compile(r"\[\[.*?\]\]", re.DOTALL)
VERSION = 1
"""Raised whenever markup is read otherwise: a render of marked-up text made before is made again
(``trainer.evaluate.render``)."""


def parse_markup(text: str, ssml: bool | None = None) -> list[Part]:
    """``text`` as :class:`Speech` and :class:`Pause` parts, in order (an SSML document's text cleaned as
    ``engines.cleaning.clean_text`` cleans plain text).

    Args:
        text: SSML as typed, or plain text (cleaned: ``engines.cleaning.clean_text``).
        ssml: True reads SSML, False plain text with inline tags, ``None`` SSML when the text starts with
            ``<speak>`` (:func:`is_ssml`).

    Raises:
        MarkupError: malformed SSML, or an inline tag's value out of range; the message names where.
    """
    if reads_as_ssml(text, ssml):
        return [_cleaned(part) for part in parse_ssml(text)]
    return parse_inline(text)


def reads_as_ssml(text: str, ssml: bool | None = None) -> bool:
    """Whether :func:`parse_markup` reads ``text`` as SSML: as asked, or (``ssml`` None) when it starts with
    ``<speak>``."""
    return is_ssml(text) if ssml is None else ssml


def has_markup(text: str) -> bool:
    """Whether ``text`` is read by default as more than plain text: SSML, or an inline tag in it."""
    return is_ssml(text) or TAG.search(text) is not None


def _cleaned(part: Part) -> Part:
    """An SSML part with its text cleaned (Piper's ``[[ phonemes ]]`` kept as written)."""
    if isinstance(part, Pause):
        return part
    spans = tuple(s if s.mode == "verbatim" else replace(s, text=clean_characters(s.text)) for s in part.spans)
    return replace(part, spans=spans)


def spoken(part: Speech, language: str, *, normalize_text: bool = True, lexicon: Lexicon | None = None) -> Normalized:
    """The text ``part`` says in a voice of espeak-ng voice ``language``: its spans by their modes, normalized,
    the words of ``lexicon`` in its ``normalize`` spans said as its entries (``engines.frontend.lexicon``; a
    ``<phoneme>`` or ``<sub>`` is already said and wins). ``normalize_text=False``: as written, the lexicon left
    out too, but ``<say-as interpret-as="characters">`` still spelled."""
    if not normalize_text:
        return Normalized(part.text) if part.plain else normalize_spans(part.spans, "")
    if part.plain:
        return normalize(part.text, language, lexicon)
    return normalize_spans(part.spans, language, lexicon)


def said(parts: list[Part], language: str, *, pauses: bool = False, lexicon: Lexicon | None = None) -> Normalized:
    """All the speech of ``parts`` as said (:func:`spoken`, with ``lexicon``), one space between parts; with
    ``pauses`` each pause shows as ``[0.5 s]``. Its ambiguous forms are those of every part."""
    texts: list[str] = []
    ambiguous: list[Ambiguity] = []
    for part in parts:
        if isinstance(part, Pause):
            texts += [f"[{part.seconds:g} s]"] if pauses else []
            continue
        found = spoken(part, language, lexicon=lexicon)
        texts.append(found.text.strip())
        ambiguous += found.ambiguous
    return Normalized(" ".join(text for text in texts if text), tuple(ambiguous))


def heard(text: str) -> str:
    """The words a listener would write down of ``text`` (its markup read as by default): the speech as written,
    ``<sub>`` aliases and spelled characters in, tags, pauses and ``[[ phonemes ]]`` left out.

    Raises:
        MarkupError: malformed SSML.
    """
    return " ".join(_PHONEMES.sub(" ", said(parse_markup(text), "").text).split())
