"""What an engine hands out about timing: each sentence's words and phonemes and when they are heard.

Times are whole samples at ``sample_rate`` from the start of the request's audio (the first sample of its first
chunk is 0; ``sentence_silence`` and earlier sentences count); ``end`` is exclusive. :meth:`SentenceTiming.to_dict`
gives them in seconds, as the speech server sends them and ``say --timestamps`` writes them.
"""

from __future__ import annotations

from dataclasses import dataclass

SECONDS_DIGITS = 4
"""Decimals of the seconds in :meth:`SentenceTiming.to_dict` (0.1 ms, far below a sample's worth of meaning
for a word boundary: one frame of a 22,050 Hz voice is 11.6 ms)."""


def to_seconds(samples: int, sample_rate: int) -> float:
    """``samples`` at ``sample_rate`` Hz in seconds, rounded to :data:`SECONDS_DIGITS` decimals."""
    return round(samples / sample_rate, SECONDS_DIGITS)


@dataclass(frozen=True)
class TimedPhoneme:
    """One phoneme (a symbol of the voice's ``phoneme_id_map``: a sound, a stress mark, a space or punctuation)
    and the samples ``[start, end)`` it is heard in, at the timing's ``sample_rate``."""

    phoneme: str
    start: int
    end: int


@dataclass(frozen=True)
class TimedWord:
    """One written word of the text and the samples ``[start, end)`` it is heard in.

    Attributes:
        text: the word as written in the text synthesized (``$49.95``); several written words said together
            as one (``8:00 pm`` said "eight p m") are one entry.
        spoken: the words said for it (``forty nine dollars and ninety five cents``), as the text front end
            wrote them (``engines.frontend``).
        start, end: samples from the start of the request's audio, ``end`` exclusive: from its first phoneme's
            start to its last's end (the pause after it, and punctuation, are not part of it).
        index: the written word's position among the text's written words, from 0 (a written word said across
            two sentences gives two entries with the same index).
        char_start, char_end: where ``text`` is in the text synthesized (``text == synthesized[char_start:
            char_end]``), or ``None`` where it could not be placed.
    """

    text: str
    spoken: str
    start: int
    end: int
    index: int
    char_start: int | None = None
    char_end: int | None = None


@dataclass(frozen=True)
class SentenceTiming:
    """When each word and phoneme of one sentence (or piece of an over-long one) is heard.

    Attributes:
        sentence_index: the sentence's index in the request (``AudioChunk.sentence_index``).
        sample_rate: Hz of the sample counts.
        words: the sentence's written words in order (none for phonemes given inline, ``[[ ... ]]``, that no
            written word claims).
        phonemes: every phoneme of the sentence in order, back to back: the first starts after the voice's
            lead-in (the frames of BOS and the first PAD), the last ends with the sentence's audio.
    """

    sentence_index: int
    sample_rate: int
    words: tuple[TimedWord, ...]
    phonemes: tuple[TimedPhoneme, ...]

    def seconds(self, samples: int) -> float:
        """``samples`` at :attr:`sample_rate` in seconds (:func:`to_seconds`)."""
        return to_seconds(samples, self.sample_rate)

    def to_dict(self) -> dict:
        """JSON-ready, times in seconds: ``{"sentence", "words": [{"text", "spoken", "start", "end", "index",
        "char_start", "char_end"}], "phonemes": [{"phoneme", "start", "end"}]}``."""
        s = self.seconds
        return {
            "sentence": self.sentence_index,
            "words": [
                {"text": w.text, "spoken": w.spoken, "start": s(w.start), "end": s(w.end), "index": w.index,
                 "char_start": w.char_start, "char_end": w.char_end}
                for w in self.words
            ],
            "phonemes": [{"phoneme": p.phoneme, "start": s(p.start), "end": s(p.end)} for p in self.phonemes],
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict, sample_rate: int) -> SentenceTiming:
        """A timing from :meth:`to_dict`'s shape (seconds), its times in samples at ``sample_rate``.

        Raises:
            KeyError, TypeError, ValueError: ``data`` is not in that shape.
        """

        def at(seconds) -> int:
            return round(float(seconds) * sample_rate)

        words = tuple(
            TimedWord(str(w["text"]), str(w.get("spoken", w["text"])), at(w["start"]), at(w["end"]),
                      int(w.get("index", n)), w.get("char_start"), w.get("char_end"))
            for n, w in enumerate(data.get("words", []))
        )  # fmt: skip
        phonemes = tuple(TimedPhoneme(str(p["phoneme"]), at(p["start"]), at(p["end"])) for p in data["phonemes"])
        return cls(int(data.get("sentence", 0)), sample_rate, words, phonemes)


@dataclass(frozen=True)
class PhonemeWord:
    """A written word found in one sentence's phonemes, before the durations are known: the phonemes
    ``[first, last]`` (indices into ``Sentence.phonemes``, both included) say it. ``text``, ``spoken``,
    ``index``, ``char_start`` and ``char_end`` are :class:`TimedWord`'s."""

    text: str
    spoken: str
    index: int
    first: int
    last: int
    char_start: int | None = None
    char_end: int | None = None
