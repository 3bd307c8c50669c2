"""The sentence loop shared by the local engines (ONNX Runtime, torch).

Text goes through the frontend in batches of sentences (one batch per text block, see
``engines.text.text_blocks``); an engine turns each batch into a stream of ``(sentence, pieces)``, where pieces
are ``(audio [N] float32, final, pause_frames, durations)`` (``durations``: frames per phoneme id,
``[len(phoneme_ids)]``, or ``None`` where the engine cannot tell). This class numbers the chunks, times them,
inserts ``sentence_silence``, gives each sentence's timing where asked (``engines.timing``) and honours
``cancel``. Sentences longer than ``MAX_PHONEME_IDS`` reach the engines in pieces (``engines.long_sentences``),
so no text makes an encoder call, its memory or the time to first audio grow without bound; pieces of one
sentence get no ``sentence_silence`` between them. Marked-up text (SSML, inline tags: ``engines.frontend.markup``)
is spoken part by part: each part's sentences at its own rate, each pause as silence of its length in place of
``sentence_silence``; one word tracker follows the words of all the parts.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import numpy as np

from engines.base import AudioChunk, SynthesisOptions
from engines.frontend.lexicon import Lexicon, LexiconFile, voice_lexicon_path
from engines.frontend.markup import Pause, Speech, parse_markup, reads_as_ssml, spoken
from engines.long_sentences import MAX_PHONEME_IDS
from engines.phonemes import PUNCTUATION, FrontendReport, Phonemizer, Sentence, sentence_batches
from engines.stream_plan import ChunkPlan, FrameCost, PlaybackClock
from engines.timing.durations import phoneme_frames, sentence_timing
from engines.timing.events import SentenceTiming
from engines.timing.words import WordTracker
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
        self.lexicon_file = LexiconFile(voice_lexicon_path(voice.model_path))
        """The voice's own lexicon (``engines.frontend.lexicon``), read again when it changes."""
        self.added_lexicon = Lexicon()
        """A lexicon added to the voice's (``say --lexicon``); its entries win."""
        self.phonemizer = Phonemizer(voice.config, self.lexicon_file.current())
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

        The text is read as markup first (``engines.frontend.markup``, as ``options.ssml`` says): each part of
        speech at its own rate (``length_scale`` divided by it), each pause as silence of its length. With
        ``options.timestamps``, one word tracker follows the words of every part (an SSML word's character offsets
        are into the markup as sent, for a part of plain text that stands there as written: not for a part with
        ``<sub>``, ``<say-as>`` or ``<phoneme>``, nor text that holds an entity or is broken by an element such as
        ``<emphasis>``).

        Raises:
            MarkupError: malformed SSML or an inline tag out of range, before any audio.
            ValueError: an unknown speaker.
            LexiconError: the voice's lexicon file was edited into a bad line (naming it).
        """
        options = options or SynthesisOptions()
        self.phonemizer.lexicon = self.lexicon_file.current().merged(self.added_lexicon)  # edited since: applies now
        parts = parse_markup(text, options.ssml)
        silence = round(options.sentence_silence * self.sample_rate)
        stream = _Stream(self.sample_rate, silence, clock=PlaybackClock(steady=options.steady))
        if options.timestamps:
            markup = reads_as_ssml(text, options.ssml)
            stream.words = WordTracker(text, self.phonemizer.phonemize, markup=markup)
        self.last_report = FrontendReport()
        length_scale = self.scales(options)[1]
        for part in parts:
            if cancel is not None and cancel.is_set():
                return
            if isinstance(part, Pause):
                yield stream.silence(round(part.seconds * self.sample_rate))
                stream.quiet = True  # the pause stands for the sentence_silence there
                continue
            stream.quiet = stream.quiet or part.joins
            rated = options if part.rate == 1 else replace(options, length_scale=length_scale / part.rate)
            yield from self._speak(self._batches(part, options, stream), self._prepare(rated), stream, cancel)

    def _batches(self, part: Speech, options: SynthesisOptions, stream: _Stream) -> Iterator[list[Sentence]]:
        """The sentence batches of one part of speech: normalized block by block where it is plain text, else
        whole by its spans' modes (``engines.frontend.markup.spoken``); numbered on from ``stream.index``, their
        words found by ``stream.words``."""
        text, normalize = part.text, options.normalize
        if stream.words is not None:
            stream.words.locating = part.plain  # a part with spans is fed as said: not found in the text
        if not part.plain:
            found = spoken(
                part, self.phonemizer.language, normalize_text=options.normalize, lexicon=self.phonemizer.lexicon
            )
            self.last_report.ambiguous.extend(found.ambiguous)
            text, normalize = found.text, False
        return sentence_batches(
            self.phonemizer,
            text,
            self.last_report,
            self.batch_size,
            self.max_phoneme_ids,
            normalize=normalize,
            first_index=stream.index,
            words=stream.words,
        )

    def _speak(
        self, batches: Iterator[list[Sentence]], request, stream: _Stream, cancel: threading.Event | None
    ) -> Iterator[AudioChunk]:
        """The chunks of ``batches``' sentences, ``sentence_silence`` before each sentence that starts anew."""
        for batch in batches:
            if cancel is not None and cancel.is_set():  # before the batch's model work, not after it
                return
            for sentence, pieces in self._synthesize_batch(batch, request, stream.clock, cancel):
                if cancel is not None and cancel.is_set():
                    return
                if sentence.index > 0 and not sentence.continues and not stream.quiet and stream.sentence_silence:
                    yield stream.silence(stream.sentence_silence)
                stream.quiet, stream.index = False, sentence.index + 1
                for index, (audio, final, pause, durations) in enumerate(pieces):
                    timing = self._timing(sentence, durations, stream.offset) if stream.timed and index == 0 else None
                    yield stream.chunk(sentence, index, audio, final, pause, timing)
                    stream.last = time.perf_counter()
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


@dataclass
class _Stream:
    """Where one request's stream stands: its clock, the samples handed out, the next sentence's index,
    whether the next sentence goes without ``sentence_silence`` (after a pause, or continuing a sentence), and
    the request's one word tracker where timestamps are asked for (``None`` otherwise)."""

    sample_rate: int
    sentence_silence: int
    """Samples of ``sentence_silence``."""
    start: float = field(default_factory=time.perf_counter)
    clock: PlaybackClock = field(default_factory=PlaybackClock)
    offset: int = 0
    index: int = 0
    quiet: bool = False
    words: WordTracker | None = None

    @property
    def timed(self) -> bool:
        """Whether each sentence's chunk 0 carries its timing (``SynthesisOptions.timestamps``)."""
        return self.words is not None

    def __post_init__(self) -> None:
        self.last = self.start
        """When the chunk before was handed out (``perf_counter`` seconds)."""

    def silence(self, samples: int) -> AudioChunk:
        """``samples`` zeros, as the silence after the sentence before."""
        chunk = AudioChunk(
            np.zeros(samples, dtype=np.float32),
            self.sample_rate,
            max(self.index - 1, 0),
            0,
            False,
            self.offset,
            0.0,
            time.perf_counter() - self.start,
            True,
        )
        self._emitted(chunk)
        return chunk

    def chunk(
        self,
        sentence: Sentence,
        index: int,
        audio: np.ndarray,
        final: bool,
        pause: int | None,
        timing: SentenceTiming | None = None,
    ) -> AudioChunk:
        """Piece ``index`` of ``sentence``'s audio as a chunk of the stream, with ``timing`` where given."""
        now = time.perf_counter()
        chunk = AudioChunk(
            audio=audio,
            sample_rate=self.sample_rate,
            sentence_index=sentence.index,
            chunk_index=index,
            final=final,
            start_sample=self.offset,
            compute_s=now - self.last,
            elapsed_s=now - self.start,
            phoneme_ids=sentence.phoneme_ids if index == 0 else [],
            pause_frames=pause,
            timings=(timing,) if timing is not None else (),
        )
        self._emitted(chunk)
        return chunk

    def _emitted(self, chunk: AudioChunk) -> None:
        self.offset += len(chunk.audio)
        self.clock.emitted(chunk.duration_s)
