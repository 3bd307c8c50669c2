"""What every engine owes the ``engines.base.Engine`` protocol, as one suite each engine's test class inherits.

A new engine gets the whole suite from one small subclass in ``tests/test_engine_conformance.py`` that
provides an ``engine`` fixture (class scope or wider) speaking with the voice joe, as fsspec's back-ends
subclass its abstract tests. Class attributes say what an engine can tell about its stream:

- ``numbers_sentences``: chunks carry each sentence's ``sentence_index`` (the local engines). False for an
  engine whose stream is one "sentence" (the remote engine: a body of audio has no sentence marks); the
  order of sentences is then checked on the audio alone. Timestamps still say each sentence's index.

Texts are short, and each distinct request is made once per engine (the ``heard`` fixture) where a test
does not need a fresh one: the torch engine on a busy CPU takes seconds a sentence.
"""

from __future__ import annotations

import gc
import threading
import time
from itertools import pairwise

import numpy as np
import pytest

from engines.audio import snr_db
from engines.base import AudioChunk, StreamStats, SynthesisOptions

FIRST, SECOND = "Cats sat.", "Dogs ran!"
TWO = f"{FIRST} {SECOND}"
NOISE_FREE = SynthesisOptions(noise_scale=0.0, noise_w=0.0)
SILENCE_S = 0.25
TIMED = SynthesisOptions(noise_scale=0.0, noise_w=0.0, sentence_silence=SILENCE_S, timestamps=True)
HOP = 256
"""joe's ``hop_length``: samples per frame, the grain of every timestamp."""
LONG = " ".join([FIRST, SECOND, "Birds sang in the old oak tree.", "Then it rained all night."])
"""Several sentences: long enough that a cancel after the first chunk leaves most of the work undone."""


def spoken(engine, text: str, options: SynthesisOptions = NOISE_FREE, cancel=None) -> list[AudioChunk]:
    """All chunks of one fresh request."""
    return list(engine.synthesize(text, options, cancel))


def _thread_seconds(work) -> float:
    """Seconds of the calling thread's CPU time (``time.thread_time``) that ``work()`` takes, with the garbage
    collector off (a full collection of the test process, about 0.1 s, would count to whichever call it fell in)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.thread_time()
        work()
        return time.thread_time() - start
    finally:
        if enabled:
            gc.enable()


def audio_of(chunks: list[AudioChunk]) -> np.ndarray:
    """The stream's samples joined, float32 ``[N]``."""
    return np.concatenate([c.audio for c in chunks]) if chunks else np.zeros(0, np.float32)


def longest_zero_run(audio: np.ndarray) -> int:
    """Samples in the longest run of exact zeros."""
    padded = np.concatenate([[1.0], audio, [1.0]]) != 0
    edges = np.flatnonzero(padded)
    return int(np.diff(edges).max() - 1)


class EngineConformance:
    """The shared behaviour of engines; subclasses provide the ``engine`` fixture."""

    numbers_sentences = True

    @pytest.fixture(scope="class")
    @classmethod
    def served(cls):
        """``served()``: requests the engine's back end has been asked so far (``None``: a local engine, whose
        work shows in the calling thread's CPU time instead)."""
        return lambda: None

    @pytest.fixture(scope="class")
    @classmethod
    def heard(cls, engine):
        """``heard(text, options=NOISE_FREE)``: the chunks of that request, synthesized once per engine."""
        said: dict[tuple[str, SynthesisOptions], list[AudioChunk]] = {}

        def hear(text: str, options: SynthesisOptions = NOISE_FREE) -> list[AudioChunk]:
            if (text, options) not in said:
                said[text, options] = spoken(engine, text, options)
            return said[text, options]

        return hear

    def test_chunks_are_float32_mono_in_range_at_the_voice_rate(self, engine, heard, joe):
        """Every chunk: float32 ``[N]`` in [-1, 1] at joe's rate, contiguous ``start_sample``; speech comes out."""
        chunks = heard(TWO)
        assert sum(len(c.audio) for c in chunks) > 0.5 * joe.config.sample_rate
        offset = 0
        for chunk in chunks:
            assert chunk.audio.dtype == np.float32 and chunk.audio.ndim == 1
            assert np.abs(chunk.audio).max(initial=0.0) <= 1.0
            assert chunk.sample_rate == joe.config.sample_rate
            assert chunk.start_sample == offset
            offset += len(chunk.audio)
        assert engine.sample_rate == joe.config.sample_rate

    def test_each_sentence_ends_with_one_final_chunk(self, heard):
        """Chunks of a sentence are numbered from 0, hold audio, and only the last is ``final`` (it may be empty:
        see ``AudioChunk.final``); sentences come in order."""
        chunks = [c for c in heard(TWO) if not c.is_silence]
        sentences: dict[int, list[AudioChunk]] = {}
        for chunk in chunks:
            sentences.setdefault(chunk.sentence_index, []).append(chunk)
        assert [c.sentence_index for c in chunks] == sorted(c.sentence_index for c in chunks)
        assert list(sentences) == ([0, 1] if self.numbers_sentences else [0])
        for group in sentences.values():
            assert [c.chunk_index for c in group] == list(range(len(group)))
            assert [c.final for c in group] == [False] * (len(group) - 1) + [True]
            assert all(len(c.audio) for c in group[:-1]) and sum(len(c.audio) for c in group)

    def test_sentences_follow_the_text(self, heard):
        """Two sentences (noise 0) are the first sentence's audio, then the second's, end to end."""
        first, second, both = audio_of(heard(FIRST)), audio_of(heard(SECOND)), audio_of(heard(TWO))
        assert len(both) == len(first) + len(second)
        assert snr_db(first, both[: len(first)]) > 30 and snr_db(second, both[len(first) :]) > 30

    def test_sentence_silence_goes_between_sentences_only(self, heard):
        """``sentence_silence`` adds exactly that many zero samples between two sentences, none at the end."""
        plain = audio_of(heard(TWO))
        chunks = heard(TWO, SynthesisOptions(noise_scale=0.0, noise_w=0.0, sentence_silence=SILENCE_S))
        padded, gap = audio_of(chunks), round(SILENCE_S * chunks[0].sample_rate)
        assert len(padded) - len(plain) == gap
        assert longest_zero_run(padded) >= gap > longest_zero_run(plain)
        assert all(not c.audio.any() for c in chunks if c.is_silence)
        assert not chunks[-1].is_silence

    def test_length_scale_stretches_the_speech(self, heard):
        """``length_scale`` 1.5 (noise 0) gives about 1.5 times the audio of 1.0, the voice's own."""
        slow = heard(TWO, SynthesisOptions(noise_scale=0.0, noise_w=0.0, length_scale=1.5))
        assert 1.35 < len(audio_of(slow)) / len(audio_of(heard(TWO))) < 1.65

    def test_noise_free_synthesis_is_deterministic(self, engine, heard):
        """Noise 0: the same text gives the same samples twice; with the voice's noise it does not."""
        assert np.array_equal(audio_of(spoken(engine, FIRST)), audio_of(heard(FIRST)))
        assert not np.array_equal(audio_of(heard(FIRST, SynthesisOptions())), audio_of(heard(FIRST)))

    def test_stats_are_filled(self, heard):
        """Chunk timings make ``StreamStats``' time to first audio and RTF, and the audio duration."""
        chunks, stats = heard(TWO), StreamStats()
        for chunk in chunks:
            stats.add(chunk)
            assert chunk.compute_s >= 0
        assert [c.elapsed_s for c in chunks] == sorted(c.elapsed_s for c in chunks)
        assert 0 < stats.first_audio_s <= stats.total_s
        assert stats.rtf is not None and stats.rtf > 0
        assert stats.audio_s == pytest.approx(len(audio_of(chunks)) / chunks[0].sample_rate)

    @pytest.mark.parametrize("text", ["", "  \n\t ", "...!?", " , . ; "])
    def test_text_without_speech_yields_nothing(self, engine, text):
        """Empty, blank and punctuation-only text is an empty stream, not an error (callers say "nothing to say")."""
        assert spoken(engine, text) == []

    def test_cancel_before_the_start_yields_nothing(self, engine, served):
        """A cancel set before the request starts: no chunk at all, at once: no request reaches a server, and the
        calling thread works less than half of what the shortest request costs it (a model run, 4.6 s on the
        torch engine, was the bug).

        Measured in the calling thread's CPU time (``time.thread_time``) against that request made beside it, not
        in wall seconds: a loaded machine slows both alike and may pause either.
        """
        cancel = threading.Event()
        cancel.set()
        one_request_s = _thread_seconds(lambda: spoken(engine, FIRST))
        asked = served()
        chunks: list[AudioChunk] = []
        cancelled_s = _thread_seconds(lambda: chunks.extend(spoken(engine, LONG, cancel=cancel)))
        assert chunks == []
        assert served() == asked
        assert cancelled_s < one_request_s / 2, (cancelled_s, one_request_s)

    def test_cancel_during_the_stream_stops_it_and_the_engine_speaks_again(self, engine, heard):
        """A cancel set after the first chunk: no further chunk; the engine's next request is whole and the same."""
        cancel, received = threading.Event(), []
        for chunk in engine.synthesize(LONG, NOISE_FREE, cancel):
            received.append(chunk)
            threading.Thread(target=cancel.set).start()  # set from another thread, as a Stop button does
            cancel.wait()
        assert len(received) == 1
        assert np.array_equal(audio_of(spoken(engine, FIRST)), audio_of(heard(FIRST)))

    def test_timestamps_are_in_order_and_cover_the_audio(self, heard):
        """With ``timestamps`` (noise 0, silence between the sentences): each sentence's phonemes are back to back
        from its start (after at most 0.2 s of lead-in) to the end of its audio (within a frame); words and
        phonemes never overlap or go back; the words are the text's; the same text without it carries none."""
        chunks = heard(TWO, TIMED)
        timings = [t for c in chunks for t in c.timings]
        assert [t.sentence_index for t in timings] == [0, 1]
        assert [w.text for t in timings for w in t.words] == ["Cats", "sat", "Dogs", "ran"]
        rate, ends = chunks[0].sample_rate, _sentence_ends(chunks)
        silence = round(SILENCE_S * rate)
        for timing, (start, end) in zip(timings, ends, strict=True):
            phonemes = timing.phonemes
            assert all(a.end == b.start for a, b in pairwise(phonemes))
            assert all(p.start < p.end for p in phonemes)
            assert 0 <= phonemes[0].start - start < 0.2 * rate
            assert abs(phonemes[-1].end - end) <= HOP
            assert all(start <= w.start < w.end <= end for w in timing.words)
        assert timings[1].phonemes[0].start >= timings[0].phonemes[-1].end + silence - HOP
        words = [w for t in timings for w in t.words]
        assert all(a.end <= b.start for a, b in pairwise(words))
        assert all(not c.timings for c in heard(TWO))


def _sentence_ends(chunks: list[AudioChunk]) -> list[tuple[int, int]]:
    """``(first sample, end)`` of each sentence's speech in a stream: chunks between silence chunks (one stream
    without silence chunks, a remote one, is cut at its longest run of zeros)."""
    spans: list[list[int]] = []
    for chunk in chunks:
        if chunk.is_silence:
            spans.append([])
        elif len(chunk.audio):
            if not spans:
                spans.append([])
            spans[-1] += [chunk.start_sample, chunk.start_sample + len(chunk.audio)]
    spans = [s for s in spans if s]
    if len(spans) == 1:
        audio = audio_of(chunks)
        zero = np.concatenate([[False], audio == 0, [False]]).astype(np.int8)
        edges = np.flatnonzero(np.diff(zero))
        runs = edges.reshape(-1, 2)
        lo, hi = max(runs, key=lambda r: r[1] - r[0])
        return [(0, int(lo)), (int(hi), len(audio))]
    return [(s[0], s[-1]) for s in spans]
