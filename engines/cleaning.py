"""The one input-cleaning rule for text typed by a user: ``say``, the Synthesize page and the speech server.

Text is cleaned once, where it enters the program that synthesizes it: ``say``
and the studio clean what they speak with a local engine; with the remote engine
they send the text as typed and the server cleans it (so an entity is never
decoded twice).
"""

from __future__ import annotations

import html
import unicodedata

_VARIATION_SELECTORS = set(range(0xFE00, 0xFE10)) | set(range(0xE0100, 0xE01F0))


def clean_text(text: str) -> str:
    """The text as meant: HTML entities decoded once, control characters and emoji dropped, spaces kept.

    ``She isn&#x27;t here.`` -> ``She isn't here.``. Letters of every script (CJK
    included), digits, punctuation and symbols such as ``° © % + & #`` stay.
    Dropped: control and format characters (newlines and tabs become spaces),
    private-use and unassigned code points, pictographic symbols from U+2190 up
    (arrows, dingbats, emoji), emoji modifiers and variation selectors. Runs of
    spaces become one.
    """
    kept = []
    for char in html.unescape(text):
        category = unicodedata.category(char)
        if char in "\n\r\t":
            kept.append(" ")
        elif category in ("Cc", "Cf", "Co", "Cs", "Cn") or ord(char) in _VARIATION_SELECTORS:
            continue
        elif (category == "So" and ord(char) >= 0x2190) or (category == "Sk" and 0x1F3FB <= ord(char) <= 0x1F3FF):
            continue
        else:
            kept.append(char)
    return " ".join("".join(kept).split())


def is_speakable(text: str) -> bool:
    """True when ``text`` has a letter or a digit (something a voice can say)."""
    return any(unicodedata.category(c)[0] in "LN" for c in text)
