"""Web addresses and e-mail addresses spoken as people say them: ``bob@example.com`` -> "bob at example dot com",
``https://www.example.com/docs`` -> "w w w dot example dot com slash docs", ``example.org`` -> "example dot
org". The scheme (``https://``) and a query string (``?a=1``) are not read; a sentence's final period after an
address stays the sentence's.

A bare domain is one only with a top-level domain of :data:`TLDS`, so ``e.g.``, ``3.5`` or ``file.py`` are not
read as one.
"""

from __future__ import annotations

import re

from engines.frontend.number_words import DIGITS
from engines.frontend.rules import Rule

TLDS = "com org net edu gov mil int io co uk us ca au nz ie de fr eu info biz ai app dev me tv ly".split()
"""Top-level domains that make a bare ``name.tld`` an address (common ones that are not also file extensions)."""
SAID = {".": "dot", "@": "at", "/": "slash", "-": "dash", "_": "underscore", ":": "colon", "~": "tilde", "+": "plus"}
"""Characters inside an address, by name."""

_END = r"[^\s<>\"'.,;:!?()\[\]]"
"""The last character of an address: not a sentence's punctuation."""
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+(?<!\.)(?!\w)")
_URL = re.compile(rf"(?<![\w@])(?:https?://|www\.)[^\s<>\"']*{_END}")
_DOMAIN = re.compile(
    rf"(?<![\w@.-])(?:[A-Za-z0-9-]+\.)+(?:{'|'.join(TLDS)})\b(?:/[^\s<>\"']*{_END})?(?![\w@-]|\.\w)", re.I
)
_PIECE = re.compile(r"[A-Za-z]+|\d+|.")


def spoken(address: str) -> str:
    """An address in words: letters as written (``www`` spelled), digits one by one, ``.@/-_:`` by name; the
    scheme and the query string dropped."""
    address = re.sub(r"^https?://", "", address).split("?")[0].split("#")[0].rstrip("/")
    words = []
    for piece in _PIECE.findall(address):
        if piece.lower() == "www":
            words.append("w w w")
        elif piece.isdigit():
            words.append(" ".join(DIGITS[int(d)] for d in piece))
        elif piece in SAID:
            words.append(SAID[piece])
        elif piece.strip():
            words.append(piece)
    return " ".join(words)


RULES = tuple(
    Rule(name, pattern, lambda match, context: spoken(match.group(0)))
    for name, pattern in (("e-mail address", _EMAIL), ("web address", _URL), ("domain", _DOMAIN))
)
"""E-mail addresses first (their domain is not a web address of its own)."""
