"""One recognizer round trip: what the best installed recognizer hears in a take, and its WER against the prompt.

The recording booth (``trainer.dataset.recording.takes``: a likely misread) and distil's judge
(``trainer.dataset.distil.judge``: a teacher's take refused) both ask it, so both hear with the same recognizer
(``trainer.evaluate.measures.wer_recognizer``: Whisper tiny.en, else PocketSphinx), score with the same
normalization (``trainer.evaluate.measures.transcript_wer``) and flag at the same limit, ``MISREAD_WER``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MISREAD_WER = 0.7
"""A round trip with a word error rate above this flags the take as a likely misread: a take of another text.
Measured with Whisper tiny.en on 250 recordings with their texts (docs/benchmarks.md, "Misread threshold";
``tests/bench/misread.py``): correct reads score 0 (median) to 0.25 (90th percentile), worst 0.60 ("Fitzwilliam"
heard as "fit swill-yum"); the same audio against another line's text 0.87 and up, but for one card line sharing 2
of its 3 words with the other (0.50). Over 0.7: no correct read flagged, 1 of 250 other-line reads missed (over
0.5, the guess before: 1 correct read flagged, the same one missed). A word or two changed is not found by any
limit: one word changed scores 0.03-0.43 (median 0.13), inside the correct reads' spread, so the booth does not
claim to catch a single slipped word; distil's judge, which can simply ask again, refuses at
``trainer.dataset.distil.judge.MAX_WER`` (0.25) instead."""


@dataclass(frozen=True, kw_only=True)
class RoundTrip:
    """What a recognizer made of one take.

    Attributes:
        heard: the transcript (``None``: not heard, ``note`` says why).
        wer: its word error rate against the prompt, 0 is perfect (``None``: not measured).
        recognizer: who heard it (``Whisper tiny.en``, ``PocketSphinx``; ``None``: no recognizer).
        note: why there is no WER, in words ("" when there is one).
        unavailable: no recognizer for the language is installed: no later take will be heard either.
    """

    heard: str | None = None
    wer: float | None = None
    recognizer: str | None = None
    note: str = ""
    unavailable: bool = False

    @property
    def misread(self) -> bool:
        """Whether the WER is over ``MISREAD_WER`` (a take not measured is not a misread)."""
        return self.wer is not None and self.wer > MISREAD_WER


def round_trip(audio: np.ndarray, rate: int, text: str, *, language: str = "en", recognizer=None) -> RoundTrip:
    """Hear ``audio`` (float32 ``[N]`` at ``rate`` Hz) with ``recognizer`` (a ``trainer.dataset.recognizers``
    recognizer; default the best installed for ``language``, an espeak-ng voice such as ``en-us``) and score the
    transcript against ``text``. Never raises for a measure that cannot be taken: the result's ``note`` says why.
    """
    from trainer.evaluate.measures import (
        MeasureError,
        MeasureUnavailable,
        recognizer_label,
        reference_words,
        transcript,
        transcript_wer,
        wer_recognizer,
    )

    try:
        recognizer = recognizer or wer_recognizer(language)
    except MeasureUnavailable as exc:
        return RoundTrip(note=str(exc), unavailable=True)
    try:
        reference_words(text, language)  # a prompt with no words to score is said before the recognizer's seconds
        heard = transcript(audio, rate, recognizer)
    except MeasureError as exc:
        return RoundTrip(note=str(exc))
    return RoundTrip(heard=heard, wer=transcript_wer(text, heard, language), recognizer=recognizer_label(recognizer))
