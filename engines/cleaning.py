"""The one input-cleaning rule for text typed by a user: ``say``, the Synthesize page and the speech server.

Text is cleaned once, where it enters the program that synthesizes it: ``say``
and the studio clean what they speak with a local engine; with the remote engine
they send the text as typed and the server cleans it (so an entity is never
decoded twice).
"""

from __future__ import annotations

import html
import re
import unicodedata

from engines.frontend.ssml import is_ssml
from engines.markdown_marks import unmark

_VARIATION_SELECTORS = set(range(0xFE00, 0xFE10)) | set(range(0xE0100, 0xE01F0))
_SPACES = re.compile(r"\s+")


def clean_text(text: str, *, ssml: bool | None = None) -> str:
    """The text as meant: HTML entities decoded once, control characters and emoji dropped, spaces kept.

    ``She isn&#x27;t here.`` -> ``She isn't here.``. Letters of every script (CJK
    included), digits, punctuation and symbols such as ``° © % + & #`` stay.
    Dropped: control and format characters (newlines and tabs become spaces),
    private-use and unassigned code points, pictographic symbols from U+2190 up
    (arrows, dingbats, emoji), emoji modifiers and variation selectors; Markdown's
    marks (``engines.markdown_marks``: ``**Note:**`` is "Note:"). Runs of
    spaces become one.

    SSML (``ssml`` True, or ``None`` and the text starts with ``<speak>``: ``engines.frontend.ssml.is_ssml``)
    comes back as it is: its XML parser decodes its entities, the positions its errors name are those of the
    text as typed, and its text is cleaned piece by piece (:func:`clean_characters`,
    ``engines.frontend.markup``).
    """
    if is_ssml(text) if ssml is None else ssml:
        return text
    return clean_characters(unmark(html.unescape(text))).strip()


def clean_characters(text: str) -> str:
    """:func:`clean_text`'s characters without decoding entities: control characters and emoji dropped, each run
    of spaces (newlines included) one space, spaces at the ends kept as one."""
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if char in "\n\r\t":
            kept.append(" ")
        elif category in ("Cc", "Cf", "Co", "Cs", "Cn") or ord(char) in _VARIATION_SELECTORS:
            continue
        elif (category == "So" and ord(char) >= 0x2190) or (category == "Sk" and 0x1F3FB <= ord(char) <= 0x1F3FF):
            continue
        else:
            kept.append(char)
    return _SPACES.sub(" ", "".join(kept))


def is_speakable(text: str) -> bool:
    """True when ``text`` has a letter or a digit (something a voice can say)."""
    return any(unicodedata.category(c)[0] in "LN" for c in text)
