"""Words for people: counted nouns in messages ("1 clip", "2 clips").

Every message that states a count uses :func:`count`, so no message reads "1 clips".
"""

from __future__ import annotations

IRREGULAR = {"utterance": "utterances", "speech": "speech", "audio": "audio", "person": "people", "epoch": "epochs"}
"""Plurals that a trailing "s" gets wrong or nouns that have none ("epoch": its "ch" is a k); everything else adds
"s" (or "es" after s, x, z, ch, sh)."""


def plural(noun: str) -> str:
    """The plural of an English ``noun`` (lower or title case kept): "clip" -> "clips", "match" -> "matches"."""
    if noun.lower() in IRREGULAR:
        return IRREGULAR[noun.lower()]
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and len(noun) > 1 and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def count(n: int, noun: str, many: str | None = None) -> str:
    """``n`` and ``noun`` in agreement: ``count(1, "clip")`` -> "1 clip", ``count(3, "clip")`` -> "3 clips".

    ``many`` overrides the plural ("checkpoint file" -> ``many="checkpoint files"`` is not needed, but
    ``count(2, "voice (ONNX)", "voices (ONNX)")`` is).
    """
    return f"{n} {noun if n == 1 else (many or plural(noun))}"


def sentence(text: str) -> str:
    """``text`` beginning with a capital letter, as a message does (``"line 1 has…"`` → ``"Line 1 has…"``)."""
    return text[:1].upper() + text[1:]
