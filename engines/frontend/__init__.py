"""The text front end: what is written becomes what is said, before phonemization.

``normalize`` (numbers, money, times and dates, units, abbreviations, symbols, addresses: English first, other
languages unchanged) and ``split_sentences`` (sentence ends that know abbreviations and initials). Each concern's
rules live in a module of their own (``numbers``, ``money``, ``clock``, ``dates``, ``units``, ``abbreviations``,
``roman``, ``symbols``, ``web``); ``number_words`` says numbers through num2words, imported on first use;
``lexicon`` holds the user's pronunciations (word -> respelling or ``[[ IPA ]]``), applied before the rules.
``engines.phonemes`` runs every text through it, so every engine, the server and training data share it.
Markup is read before it, for what is spoken (``engines.frontend.markup``: SSML in ``ssml``, inline tags in
``inline_tags``, both into the speech and pauses of ``segments``; ``say_as`` reads numbers as ``<say-as>`` asks).
"""

from engines.frontend.normalize import (
    VERSION,
    Normalized,
    Span,
    dialect,
    frontend_id,
    normalize,
    normalize_spans,
    spell,
)
from engines.frontend.rules import Ambiguity
from engines.frontend.sentences import split_sentences

__all__ = [
    "VERSION",
    "Ambiguity",
    "Normalized",
    "Span",
    "dialect",
    "frontend_id",
    "normalize",
    "normalize_spans",
    "spell",
    "split_sentences",
]
