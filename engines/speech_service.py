"""The work behind the speech server, without HTTP: voices, engine pools, admission and counters.

Each request runs on one of ``workers`` threads with an engine of its own,
checked out of its voice's pool (engines keep per-request state, so two
requests never share one). At most ``workers + queue_size`` requests are
admitted at once; the next is refused (the server answers 503). Audio goes to
the request's :class:`Job` as it is synthesized; setting ``job.cancel`` (the
client went away) stops the synthesis before its next chunk and frees the worker.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from engines.base import SynthesisOptions
from engines.speech_api import MODEL_ALIASES, ApiError, SpeechRequest
from engines.voice import Voice

END = object()
"""Put on a job's queue after its last chunk."""
DEFAULT_SPEAKER = "default"
"""The voice id of a single-speaker model (and of a multi-speaker one's first speaker)."""


@dataclass
class ServiceConfig:
    """Server settings.

    Attributes:
        voices: the voices served; the first is the default (and what OpenAI's model names mean).
        engine: registry name of the engine (``onnx`` or ``torch``); engine_kwargs go to it.
        workers: requests synthesized at once. queue_size: further requests that may wait.
        max_chars: longest ``input`` accepted (longer: 413).
    """

    voices: list[Voice]
    engine: str = "onnx"
    engine_kwargs: dict = field(default_factory=dict)
    workers: int = 2
    queue_size: int = 16
    max_chars: int = 20_000


@dataclass
class Counters:
    """What the server has done, for ``GET /health`` (and the tests)."""

    requests: int = 0
    refused_busy: int = 0
    sentences: int = 0
    active: int = 0
    admitted: int = 0


class Job:
    """One request's synthesis: audio chunks (float32 ``[N]``) arrive on ``queue``, then ``END`` or an exception."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queue: asyncio.Queue = asyncio.Queue()
        self.cancel = threading.Event()
        self.sample_rate = 0

    def put(self, item) -> None:
        """Hand ``item`` to the event loop (called from the worker thread)."""
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)
        except RuntimeError:  # the loop is closed: nobody is listening any more
            self.cancel.set()


class SpeechService:
    """Voices by name, a pool of engines per voice, and the worker threads."""

    def __init__(self, config: ServiceConfig) -> None:
        if not config.voices:
            raise ValueError("the server needs at least one voice")
        self.config = config
        self.counters = Counters()
        self.voices = {v.name: v for v in config.voices}
        self._idle: dict[str, queue.SimpleQueue] = {name: queue.SimpleQueue() for name in self.voices}
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=config.workers, thread_name_prefix="speech")

    @property
    def default_voice(self) -> Voice:
        """The first voice."""
        return self.config.voices[0]

    def shutdown(self) -> None:
        """Stop accepting work; running jobs finish."""
        self._executor.shutdown(wait=False, cancel_futures=True)

    # --- names ------------------------------------------------------------
    def speaker_ids(self, voice: Voice) -> list[str]:
        """Voice ids of a model: ``default``, then the speaker names of a multi-speaker voice."""
        return [DEFAULT_SPEAKER] + (list(voice.config.speakers) if voice.config.num_speakers > 1 else [])

    def resolve(self, model: str | None, voice_id: str | None) -> tuple[Voice, str | None]:
        """``(voice, speaker)`` for a request's model and voice fields.

        The model names a voice (OpenAI's names and none mean the default one);
        with an OpenAI model name, ``voice`` may name a voice instead. The voice
        field names a speaker: ``default`` (or nothing, or the voice's own name)
        for the default speaker.

        Raises:
            ApiError: 404 for an unknown model or voice, naming the known ones.
        """
        if model is None or model in MODEL_ALIASES:
            if voice_id in self.voices:
                return self.voices[voice_id], None
            voice = self.default_voice
        elif model in self.voices:
            voice = self.voices[model]
        else:
            raise ApiError(404, f"unknown model '{model}'; known: {', '.join(self.voices)}", "model", "model_not_found")
        if voice_id in (None, DEFAULT_SPEAKER, voice.name):
            return voice, None
        if voice.config.num_speakers > 1 and voice_id in voice.config.speakers:
            return voice, voice_id
        known = ", ".join(self.speaker_ids(voice))
        raise ApiError(
            404, f"unknown voice '{voice_id}' for model '{voice.name}'; known: {known}", "voice", "voice_not_found"
        )

    # --- work -------------------------------------------------------------
    def admit(self) -> None:
        """Count a request in.

        Raises:
            ApiError: 503 when ``workers + queue_size`` requests are already admitted.
        """
        with self._lock:
            self.counters.requests += 1
            if self.counters.admitted >= self.config.workers + self.config.queue_size:
                self.counters.refused_busy += 1
                raise ApiError(503, "the server is busy; try again shortly", code="server_busy")
            self.counters.admitted += 1

    def start(self, voice: Voice, speaker: str | None, request: SpeechRequest) -> Job:
        """Queue the synthesis of an admitted request; its audio comes on the returned job's queue."""
        job = Job(asyncio.get_running_loop())
        job.sample_rate = voice.config.sample_rate
        options = SynthesisOptions(
            speaker=speaker,
            length_scale=None if request.speed is None else voice.config.length_scale / request.speed,
            noise_scale=request.noise_scale,
            noise_w=request.noise_w,
        )
        self._executor.submit(self._run, job, voice, request.text, options)
        return job

    def _run(self, job: Job, voice: Voice, text: str, options: SynthesisOptions) -> None:
        with self._lock:
            self.counters.active += 1
        engine = None
        try:
            if job.cancel.is_set():
                return
            engine = self._checkout(voice)
            for chunk in engine.synthesize(text, options, job.cancel):
                if chunk.final and not chunk.is_silence:
                    with self._lock:
                        self.counters.sentences += 1
                job.put(np.asarray(chunk.audio, np.float32))
        except Exception as exc:  # reported to the client (an error event or a closed stream)
            job.put(exc)
        finally:
            if engine is not None:
                self._idle[voice.name].put(engine)
            with self._lock:
                self.counters.active -= 1
                self.counters.admitted -= 1
            job.put(END)

    def _checkout(self, voice: Voice):
        from engines.registry import create_engine

        try:
            return self._idle[voice.name].get_nowait()
        except queue.Empty:
            return create_engine(self.config.engine, voice, **self.config.engine_kwargs)

    def warm_up(self) -> None:
        """Create one engine per voice and speak a word with it, so no request pays the loading time."""
        for voice in self.voices.values():
            engine = self._checkout(voice)
            for _ in engine.synthesize("Ready."):
                pass
            self._idle[voice.name].put(engine)
