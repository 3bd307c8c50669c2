"""The sentence loop shared by the local engines (ONNX Runtime, torch).

Text goes through the frontend in batches of sentences (one batch per text block, see
``engines.text.text_blocks``); an engine turns each batch into a stream of ``(sentence, pieces)``, where pieces
are ``(audio [N] float32, final, pause_frames, durations)`` (``durations``: frames per phoneme id,
``[len(phoneme_ids)]``, or ``None`` where the engine cannot tell). This class numbers the chunks, times them,
inserts ``sentence_silence``, gives each sentence's timing where asked (``engines.timing``) and honours
``cancel``. Sentences longer than ``MAX_PHONEME_IDS`` reach the engines in pieces (``engines.long_sentences``),
so no text makes an encoder call, its memory or the time to first audio grow without bound; pieces of one
sentence get no ``sentence_silence`` between them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import numpy as np

from engines.base import AudioChunk, SynthesisOptions
from engines.long_sentences import MAX_PHONEME_IDS
from engines.phonemes import PUNCTUATION, FrontendReport, Phonemizer, Sentence, sentence_batches
from engines.stream_plan import ChunkPlan, FrameCost, PlaybackClock
from engines.timing.durations import phoneme_frames, sentence_timing
from engines.timing.events import SentenceTiming
from engines.voice import EOS, PAD, Voice

Pieces = Iterator[tuple[np.ndarray, bool, "int | None", "np.ndarray | None"]]


class LocalEngine:
    """Base of engines that run a Piper voice in this process.

    Subclasses set up their model and implement ``_prepare`` (per-request state
    from the options) and ``_synthesize_batch``.
    """

    name = "local"
    batch_size = 1
    """Sentences handed to ``_synthesize_batch`` at once (at most; a text block may hold fewer)."""
    max_phoneme_ids = MAX_PHONEME_IDS
    """Longest ``phoneme_ids`` of one encoder call; longer sentences are cut (``engines.long_sentences``)."""

    def __init__(self, voice: Voice, plan: ChunkPlan | None = None) -> None:
        self.voice = voice
        self.config = voice.config
        self.sample_rate = voice.config.sample_rate
        self.plan = plan or ChunkPlan()
        self.phonemizer = Phonemizer(voice.config)
        self.last_report = FrontendReport()
        self._cost = FrameCost()
        symbols = set(PUNCTUATION) | {PAD, EOS}
        id_map = voice.config.phoneme_id_map
        self._pause_ids = frozenset(i for symbol, ids in id_map.items() if symbol in symbols for i in ids)

    def speakers(self) -> list[str]:
        """Speaker names in id order (empty for one speaker)."""
        return self.config.speakers

    def scales(self, options: SynthesisOptions) -> tuple[float, float, float]:
        """``(noise_scale, length_scale, noise_w)`` from the options, voice defaults for ``None``."""
        c = self.config
        return (
            c.noise_scale if options.noise_scale is None else options.noise_scale,
            c.length_scale if options.length_scale is None else options.length_scale,
            c.noise_w if options.noise_w is None else options.noise_w,
        )

    def synthesize(
        self, text: str, options: SynthesisOptions | None = None, cancel: threading.Event | None = None
    ) -> Iterator[AudioChunk]:
        """Stream ``text`` as audio chunks, sentence by sentence; see ``engines.base.Engine``.

        Raises:
            ValueError: an unknown speaker.
        """
        options = options or SynthesisOptions()
        request = self._prepare(options)
        start = time.perf_counter()
        clock, offset, last = PlaybackClock(), 0, start
        silence = np.zeros(round(options.sentence_silence * self.sample_rate), dtype=np.float32)
        self.last_report = FrontendReport()
        batches = sentence_batches(
            self.phonemizer,
            text,
            self.last_report,
            self.batch_size,
            self.max_phoneme_ids,
            normalize=options.normalize,
            words=options.timestamps,
        )
        for batch in batches:
            if cancel is not None and cancel.is_set():  # before the batch's model work, not after it
                return
            for sentence, pieces in self._synthesize_batch(batch, request, clock, cancel):
                if cancel is not None and cancel.is_set():
                    return
                if sentence.index > 0 and not sentence.continues and len(silence):
                    yield AudioChunk(
                        silence,
                        self.sample_rate,
                        sentence.index - 1,
                        0,
                        False,
                        offset,
                        0.0,
                        time.perf_counter() - start,
                        True,
                    )
                    offset += len(silence)
                    clock.emitted(len(silence) / self.sample_rate)
                for index, (audio, final, pause, durations) in enumerate(pieces):
                    timing = self._timing(sentence, durations, offset) if options.timestamps and index == 0 else None
                    now = time.perf_counter()
                    chunk = AudioChunk(
                        audio=audio,
                        sample_rate=self.sample_rate,
                        sentence_index=sentence.index,
                        chunk_index=index,
                        final=final,
                        start_sample=offset,
                        compute_s=now - last,
                        elapsed_s=now - start,
                        phoneme_ids=sentence.phoneme_ids if index == 0 else [],
                        pause_frames=pause,
                        timings=(timing,) if timing is not None else (),
                    )
                    offset += len(audio)
                    clock.emitted(chunk.duration_s)
                    yield chunk
                    last = time.perf_counter()
                    if cancel is not None and cancel.is_set():
                        return

    def _prepare(self, options: SynthesisOptions):
        raise NotImplementedError

    def _synthesize_batch(
        self, batch: list[Sentence], request, clock: PlaybackClock, cancel: threading.Event | None
    ) -> Iterator[tuple[Sentence, Pieces]]:
        raise NotImplementedError

    def _timing(self, sentence: Sentence, durations, start_sample: int) -> SentenceTiming | None:
        """When the words and phonemes of ``sentence`` (its audio starting at ``start_sample``) are heard, from
        its ``durations`` (frames per phoneme id); ``None`` without them."""
        frames = None if durations is None else phoneme_frames(sentence.phonemes, durations, self.config.phoneme_id_map)
        if frames is None:
            return None
        return sentence_timing(
            index=sentence.index,
            phonemes=sentence.phonemes,
            words=sentence.words,
            frames=frames,
            hop_length=self.config.hop_length,
            start_sample=start_sample,
            sample_rate=self.sample_rate,
        )

    def pause_frames(self, phoneme_ids, durations) -> int:
        """Frames the duration predictor gave the trailing punctuation, PAD and EOS of a sentence.

        ``phoneme_ids`` and ``durations`` (frames per id) are sequences of the same length.
        """
        total = 0.0
        for position in range(len(phoneme_ids) - 1, -1, -1):
            if int(phoneme_ids[position]) not in self._pause_ids:
                break
            total += float(durations[position])
        return int(total)
