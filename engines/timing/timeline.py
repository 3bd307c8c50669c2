"""A request's timings gathered from its chunks, for a file (``say --timestamps``) or a player (the Synthesize
page's highlighted word)."""

from __future__ import annotations

import bisect

from engines.base import AudioChunk
from engines.timing.events import SentenceTiming, TimedPhoneme, TimedWord, to_seconds

VERSION = 1
"""Version of :meth:`Timeline.to_dict`'s layout (the JSON file); raised when a field changes meaning."""


class Timeline:
    """The words and phonemes of one request in the order heard, from its chunks' ``timings``.

    Times are samples at :attr:`sample_rate` from the start of the request's audio (``engines.timing.events``).
    """

    def __init__(self) -> None:
        self.timings: list[SentenceTiming] = []
        self.sample_rate = 0
        """Hz of the request's audio (its first chunk's; 0 before one)."""
        self.samples = 0
        """Samples of audio so far."""
        self._words: list[TimedWord] = []
        self._starts: list[int] = []

    def add(self, chunk: AudioChunk) -> None:
        """Take in one chunk of the request, in order."""
        self.sample_rate = self.sample_rate or chunk.sample_rate
        self.samples += len(chunk.audio)
        for timing in chunk.timings:
            self.timings.append(timing)
            self._words += timing.words
            self._starts += [w.start for w in timing.words]

    @property
    def words(self) -> list[TimedWord]:
        """Every word so far, in order."""
        return list(self._words)

    @property
    def phonemes(self) -> list[TimedPhoneme]:
        """Every phoneme so far, in order."""
        return [p for t in self.timings for p in t.phonemes]

    def word_at(self, sample: int) -> TimedWord | None:
        """The word heard at ``sample`` (from the request's start), ``None`` between words and outside them."""
        found = bisect.bisect_right(self._starts, sample) - 1
        if found < 0:
            return None
        word = self._words[found]
        return word if word.start <= sample < word.end else None

    def to_dict(self) -> dict:
        """The JSON file's content: ``{"version", "sample_rate", "duration", "words": [...], "phonemes": [...]}``,
        times in seconds, each word and phoneme with its ``sentence`` (see ``SentenceTiming.to_dict``)."""
        words, phonemes = [], []
        for timing in self.timings:
            found = timing.to_dict()
            words += [{**w, "sentence": timing.sentence_index} for w in found["words"]]
            phonemes += [{**p, "sentence": timing.sentence_index} for p in found["phonemes"]]
        return {
            "version": VERSION,
            "sample_rate": self.sample_rate,
            "duration": to_seconds(self.samples, self.sample_rate) if self.sample_rate else 0.0,
            "words": words,
            "phonemes": phonemes,
        }
