"""The Engine protocol shared by every engine, its options, chunks and errors.

An engine turns text into a stream of :class:`AudioChunk` objects. Every engine
(ONNX Runtime, torch, remote HTTP) implements the same protocol so that the CLI,
the studio and the server treat them alike.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from engines.errors import VoiceStudioError
from engines.timing.events import SentenceTiming


class VoiceError(VoiceStudioError, ValueError):
    """A voice file or its config is missing or invalid.

    The message names the file and, where one is at fault, the field.
    """

    def __init__(self, path: Path | str, message: str, field: str | None = None, *, detail: str = "") -> None:
        self.path = Path(path)
        self.field = field
        self.detail = detail
        """A library's own words for what went wrong (e.g. a protobuf decode error), for a tooltip or log; the
        message says it in words."""
        self.reason = message
        """The message without the file and field it is about."""
        where = f"{self.path}: field '{field}'" if field else str(self.path)
        super().__init__(f"{where}: {message}")

    def __reduce__(self):
        """Pickled with its own arguments, so one raised in a worker process reaches the caller as it was."""
        return (type(self), (self.path, self.reason, self.field), {"detail": self.detail})


class EngineError(VoiceStudioError, RuntimeError):
    """An engine cannot be created or cannot synthesize (missing package, bad device)."""


@dataclass(frozen=True)
class SynthesisOptions:
    """Per-request synthesis settings; ``None`` takes the voice's own default.

    Attributes:
        speaker: speaker name (a key of ``speaker_id_map``) or integer id; ``None``
            selects the voice's default speaker. Ignored by single-speaker voices.
        length_scale: phoneme duration multiplier (> 1 is slower), VITS's
            ``length_scale`` (Kim et al., 2021, sec. 2.3).
        noise_scale: standard deviation multiplier of the prior sample z_p.
        noise_w: noise multiplier of the stochastic duration predictor.
        sentence_silence: extra silence between sentences (none after the last), in seconds, on
            top of the pause the voice itself predicts for the final punctuation.
        normalize: say numbers, money, times, abbreviations and symbols as words first (``engines.frontend``);
            ``False`` reads the text as written, as Piper does.
        timestamps: give when each word and phoneme is heard (``AudioChunk.timings``, ``engines.timing``);
            finding the words costs about 0.2 ms per word (``engines.timing.words``).
        ssml: read the text as SSML (``True``; ``<speak>`` may be left out), as plain text with inline tags
            (``False``), or as SSML when it starts with ``<speak>`` (``None``): ``engines.frontend.markup``.
        steady: the same samples however busy the machine is: a sentence's streamed chunks are sized by the
            sentence alone, not by the buffered audio and the measured speed (``engines.stream_plan``), whose
            seams moved samples by up to 1e-3 under load. Measurement renders ask for it (what is measured must
            not depend on the machine's load); live playback does not (it keeps the next chunk ready in time).
    """

    speaker: str | int | None = None
    length_scale: float | None = None
    noise_scale: float | None = None
    noise_w: float | None = None
    sentence_silence: float = 0.0
    normalize: bool = True
    timestamps: bool = False
    ssml: bool | None = None
    steady: bool = False

    def __post_init__(self) -> None:
        if self.length_scale is not None and not self.length_scale > 0:
            raise ValueError(f"length_scale must be > 0, got {self.length_scale}")
        for name in ("noise_scale", "noise_w"):
            value = getattr(self, name)
            if value is not None and not value >= 0:
                raise ValueError(f"{name} must be >= 0, got {value}")
        if not self.sentence_silence >= 0:
            raise ValueError(f"sentence_silence must be >= 0 s, got {self.sentence_silence}")


@dataclass
class AudioChunk:
    """One piece of a synthesized stream.

    Attributes:
        audio: mono samples, float32 in [-1, 1], shape ``[N]``.
        sample_rate: samples per second (Hz).
        sentence_index: index of the sentence within the request, from 0.
        chunk_index: index of this chunk within its sentence, from 0.
        final: True for the last chunk of its sentence (silence chunks excluded). An engine that learns of
            the end only after the last samples (the remote engine) flags it on an empty closing chunk.
        start_sample: offset of the first sample within the whole request's audio.
        compute_s: seconds spent producing this chunk (wall clock).
        elapsed_s: seconds from the start of the request until this chunk was ready.
        is_silence: True for the ``sentence_silence`` padding chunks and the pauses markup asks for.
        phoneme_ids: the sentence's ``phoneme_ids`` (on chunk 0 only, else empty).
        pause_frames: frames the duration predictor gave to the sentence-final
            punctuation and end-of-sentence symbol (the natural pause), on the
            sentence's final chunk where the engine knows it, else ``None``.
        timings: with ``SynthesisOptions.timestamps``, when each word and phoneme of the sentences that start
            with this chunk is heard (in samples from the request's start): on a sentence's chunk 0 for the
            local engines (where the voice's graph gives its durations), on the chunk that brings a sentence's
            first audio for the remote engine; else empty.
    """

    audio: np.ndarray
    sample_rate: int
    sentence_index: int = 0
    chunk_index: int = 0
    final: bool = True
    start_sample: int = 0
    compute_s: float = 0.0
    elapsed_s: float = 0.0
    is_silence: bool = False
    phoneme_ids: list[int] = field(default_factory=list)
    pause_frames: int | None = None
    timings: tuple[SentenceTiming, ...] = ()

    @property
    def duration_s(self) -> float:
        """Duration of this chunk in seconds."""
        return len(self.audio) / self.sample_rate


@runtime_checkable
class Engine(Protocol):
    """Text to a stream of audio chunks.

    ``synthesize`` is a generator: audio comes out as soon as each chunk is
    ready, sentences in order. Closing the generator, or setting ``cancel``
    from another thread, stops the work before the next chunk.
    """

    name: str
    sample_rate: int

    def synthesize(
        self,
        text: str,
        options: SynthesisOptions | None = None,
        cancel: threading.Event | None = None,
    ) -> Iterator[AudioChunk]:
        """Yield audio chunks for ``text``; yields nothing for text with no speech."""
        ...

    def speakers(self) -> list[str]:
        """Speaker names of a multi-speaker voice, in id order; empty otherwise."""
        ...


@dataclass
class StreamStats:
    """Timing of one request, from its chunks: time to first audio and RTF.

    RTF (real-time factor) = synthesis wall time / audio duration; < 1 is
    faster than real time.
    """

    first_audio_s: float | None = None
    total_s: float = 0.0
    audio_s: float = 0.0

    def add(self, chunk: AudioChunk) -> None:
        """Account for one chunk (speech or silence)."""
        if self.first_audio_s is None and not chunk.is_silence:
            self.first_audio_s = chunk.elapsed_s
        self.total_s = max(self.total_s, chunk.elapsed_s)
        self.audio_s += chunk.duration_s

    @property
    def rtf(self) -> float | None:
        """Real-time factor, or ``None`` before any audio."""
        return self.total_s / self.audio_s if self.audio_s > 0 else None
