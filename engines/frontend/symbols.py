"""Symbols read as words: ``&`` "and", ``<3`` "heart", ``<`` "less than", ``>`` "greater than", ``<=`` / ``≤``,
``>=`` / ``≥``, ``=`` "equals", ``+`` "plus", ``@`` "at", ``#`` "number" before a digit and "hash" before a
word, ``%`` "percent", ``~`` before a number "about", ``×`` "times".

Markup-like tags (``<speak>``, ``<break time="1s"/>``) never reach these rules (``engines.frontend.normalize``
leaves them for the SSML reader); an e-mail address's ``@`` is ``engines.frontend.web``'s.
"""

from __future__ import annotations

import re

from engines.frontend.rules import Rule, spaced

WORDS = (
    (r"<3(?!\d)", "heart"),
    (r"<=|≤", "less than or equal to"),
    (r">=|≥", "greater than or equal to"),
    (r"(?<![<>=-])<(?![<>=-])", "less than"),
    (r"(?<![<>=-])>(?![<>=-])", "greater than"),
    (r"(?<![<>=!])=(?![=>])", "equals"),
    (r"&", "and"),
    (r"\+", "plus"),
    (r"@", "at"),
    (r"(?<=\b[A-G])#(?![\w#])", "sharp"),
    (r"#(?=\d)", "number"),
    (r"#(?=[A-Za-z])", "hash"),
    (r"%", "percent"),
    (r"~(?=\s?\d)", "about"),
    (r"(?<=\d)\s?×\s?(?=\d)|(?<=\d) x (?=\d)", "times"),
)
"""(pattern, words), in order: ``<3`` before ``<``, ``<=`` before ``<`` and ``=``."""


def _symbol(pattern: str, words: str) -> Rule:
    """The rule saying each match of ``pattern`` as ``words``, spaced from its neighbours."""
    return Rule(words, re.compile(pattern), lambda match, context: spaced(match, words))


RULES = tuple(_symbol(pattern, words) for pattern, words in WORDS)
