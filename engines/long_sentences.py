"""Over-long sentences cut into pieces that the encoder takes at a bounded cost.

The text encoder's self-attention holds ``[heads, T, T]`` scores for ``T``
phoneme_ids, so its memory and time grow with the square of the sentence, and
the first audio of a sentence waits for its whole encoder pass. Measured with
``en_US-joe-medium`` (ONNX Runtime, 2 cores): 403 phoneme_ids encode in 0.13 s,
803 in 0.46 s, 1,603 in 1.3 s (+150 MB), 3,203 in 5.2 s (+640 MB); one
unpunctuated 2,879-character sentence (over 6,000 ids) took 32 s to first audio
and 5.8 GB. ``MAX_PHONEME_IDS`` is 400: Piper's voices are trained on utterances
of up to about that many ids (``trainer.dataset.health.MAX_PHONEME_IDS`` flags
longer clips), so a piece never asks the encoder for a length it was not
trained on, and it encodes in about a tenth of a second. Its frames (about 800
at ``length_scale`` 1) also bound the flow and decoder windows.

A sentence over the bound is cut at its last clause mark (``, ; : — …``) in the
second half of the allowed length, else at its last word boundary there (espeak-ng
separates words with a space), else at the bound itself. A piece cut at a word
boundary ends with a comma, so the voice's own duration predictor gives it the
pause and the continuing intonation it gives a comma (scaled by
``length_scale`` like every other pause), rather than a fixed silence that would
ignore the voice's pacing; a piece cut inside a word gets no pause.
"""

from __future__ import annotations

MAX_PHONEME_IDS = 400
"""Most phoneme_ids per encoder call (see the module docstring for why)."""
CLAUSE_MARKS = frozenset(",;:—…")
"""Phonemes after which a long sentence is preferably cut."""
PAUSE = ","
"""Phoneme appended to a piece cut at a word boundary (when the voice has it)."""
WORD_BREAK = " "


def max_phonemes(max_phoneme_ids: int) -> int:
    """Phonemes that fit in ``max_phoneme_ids``: ids are ``[BOS, PAD, p1, PAD, ..., EOS]`` (``2 n + 3``)."""
    return max(1, (max_phoneme_ids - 3) // 2)


def split_phonemes(phonemes: list[str], limit: int, pause: str | None = PAUSE) -> list[list[str]]:
    """Cut one sentence's phonemes into pieces of at most ``limit`` phonemes each (see the module docstring).

    ``pause`` is appended to pieces cut at a word boundary (``None``: nothing). The
    pieces joined, less the cut spaces and added pauses, are ``phonemes``.
    """
    pieces, rest = [], list(phonemes)
    while len(rest) > limit:
        piece, rest = _cut(rest, limit, pause)
        pieces.append(piece)
    if rest:
        pieces.append(rest)
    return pieces


def _cut(phonemes: list[str], limit: int, pause: str | None) -> tuple[list[str], list[str]]:
    """``(piece, rest)`` for the first cut of ``phonemes`` (longer than ``limit``)."""
    half = limit // 2
    for i in range(limit - 1, half - 1, -1):  # the mark ends the piece: positions up to limit - 1
        if phonemes[i] in CLAUSE_MARKS:
            return phonemes[: i + 1], _lstrip(phonemes[i + 1 :])
    room = limit - 1 if pause else limit  # the piece before the space, plus the pause
    for i in range(room, half - 1, -1):
        if phonemes[i] == WORD_BREAK:
            return phonemes[:i] + ([pause] if pause else []), _lstrip(phonemes[i + 1 :])
    return phonemes[:limit], phonemes[limit:]


def end_with_pause(phonemes: list[str], pause: str | None = PAUSE) -> list[str]:
    """``phonemes`` less trailing spaces, ending with ``pause`` unless they end with punctuation already."""
    out = list(phonemes)
    while out and out[-1] == WORD_BREAK:
        out.pop()
    if pause and out and out[-1] not in CLAUSE_MARKS and out[-1] not in ".!?":
        out.append(pause)
    return out


def _lstrip(phonemes: list[str]) -> list[str]:
    start = 0
    while start < len(phonemes) and phonemes[start] == WORD_BREAK:
        start += 1
    return phonemes[start:]
