"""Text normalization before phonemization: what is written becomes what is said (``$49.95`` -> "forty nine
dollars and ninety five cents"), for every engine, the speech server and training data alike.

English has rules (:data:`ENGLISH`, chosen by the voice's espeak-ng voice: ``en``, ``en-us``, ``en-gb``...);
every other language passes through unchanged. A text with nothing to normalize comes back as the same string,
so its phonemes are exactly Piper's.

The rules run in the order of :data:`ENGLISH`: addresses first (their dots and digits are not numbers), then
abbreviations (``Jan.`` must be ``January`` before dates look for month names), dates and times before the
numbers in them, ranges and fractions before units and money, plain numbers last. Piper's inline
``[[ phonemes ]]`` and markup-like tags (``<break time="1s"/>``, for an SSML reader) are never touched:
:func:`normalize_spans` takes spans that say how each is meant (normalized, already said, or spelled).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engines.frontend import abbreviations, clock, dates, money, numbers, roman, say_as, symbols, units, web
from engines.frontend.number_words import DIGITS, letter
from engines.frontend.rules import Ambiguity, Context, apply
from engines.frontend.span import Span

if TYPE_CHECKING:
    from engines.frontend.lexicon import Lexicon

VERSION = 5
"""Raised whenever a rule changes what a text says: training caches built with another version are rebuilt
(``trainer.data.preprocess``)."""
ENGLISH = (
    *web.RULES,
    *abbreviations.RULES,
    *roman.RULES,
    *dates.RULES,
    *clock.RULES,
    *numbers.RULES,
    *money.RULES,
    *units.RULES,
    *symbols.RULES,
    *numbers.LAST,
)
"""The English rules, in the order they run."""

_KEPT = re.compile(r"\[\[.*?\]\]|</?[A-Za-z][^<>]*>", re.DOTALL)
"""Inline ``[[ phonemes ]]`` and markup-like tags: passed through as they are."""


@dataclass(frozen=True)
class Normalized:
    """A normalized text and the written forms in it that could have been read another way."""

    text: str
    ambiguous: tuple[Ambiguity, ...] = ()


def dialect(language: str) -> str | None:
    """The English rules' dialect for an espeak-ng voice name: ``en-gb`` for ``en`` (espeak-ng's British voice)
    and ``en-gb…``, ``en-us`` for other ``en-…`` voices; ``None`` for other languages (no rules: text passes
    through). A variant (``en-us+f3``) and a family prefix (``gmw/en-US``) are ignored."""
    name = language.lower().replace("_", "-").split("+")[0].split("/")[-1]
    if name == "en" or name.startswith("en-gb"):
        return "en-gb"
    return "en-us" if name.startswith("en-") else None


def frontend_id(language: str, lexicon: Lexicon | None = None) -> str:
    """What a text said in ``language`` depends on: ``en-us/1`` (dialect and :data:`VERSION`), ``""`` where the
    text passes through unchanged; with a non-empty ``lexicon``, ``+lexicon:`` and the first 12 hex digits of
    its digest are added (``en-us/5+lexicon:0123456789ab``). A training cache records it."""
    found = dialect(language)
    said = f"{found}/{VERSION}" if found else ""
    return f"{said}+lexicon:{lexicon.digest[:12]}" if lexicon else said


def normalize(text: str, language: str, lexicon: Lexicon | None = None) -> Normalized:
    """``text`` as it is to be said by a voice of espeak-ng voice ``language`` (see the module docstring);
    inline ``[[ phonemes ]]`` and tags kept as they are; words in ``lexicon`` replaced by its entries first
    (``engines.frontend.lexicon``: an entry wins over the rules, and is not normalized again)."""
    spans, last = [], 0
    for match in _KEPT.finditer(text):
        spans += [Span(text[last : match.start()]), Span(match.group(0), "verbatim")]
        last = match.end()
    spans.append(Span(text[last:]))
    found = normalize_spans(spans, language, lexicon)
    return Normalized(text, found.ambiguous) if found.text == text else found


def normalize_spans(spans: Iterable[Span], language: str, lexicon: Lexicon | None = None) -> Normalized:
    """The spans normalized one by one by their mode and joined; in each ``normalize`` span the words in
    ``lexicon`` are replaced by its entries first, and kept from the rules (``engines.frontend.lexicon``; also
    where ``language`` has no rules)."""
    found = dialect(language)
    context = Context(british=found == "en-gb")
    said = []
    for span in _looked_up(spans, lexicon):
        if span.mode == "characters":
            said.append(spell(span.text))
        elif span.mode != "verbatim" and found is not None and span.text:
            said.append(_said(span, context))
        else:
            said.append(span.text)
    return Normalized("".join(said), tuple(context.ambiguous))


def _looked_up(spans: Iterable[Span], lexicon: Lexicon | None) -> Iterable[Span]:
    """``spans`` with each ``normalize`` span split at the words in ``lexicon`` (if any), their entries
    ``verbatim``."""
    if not lexicon:
        return spans
    return [piece for span in spans for piece in (lexicon.spans(span.text) if span.mode == "normalize" else [span])]


def _said(span: Span, context: Context) -> str:
    """An English span by its mode: a number as ``say_as`` reads it, else by the rules."""
    found = say_as.said_as(span.text, span.mode, context) if span.mode in say_as.MODES else None
    return apply(ENGLISH, span.text, context) if found is None else found


def spell(text: str) -> str:
    """``text`` character by character: letters by name (``number_words.letter``), digits by name, other
    characters dropped (``"ab 12"`` -> "eh B one two")."""
    said = [letter(c) if c.isalpha() else DIGITS[int(c)] if c in "0123456789" else "" for c in text]
    return " ".join(s for s in said if s)
