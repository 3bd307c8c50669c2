"""The work behind the speech server, without HTTP: voices, engine pools, admission and counters.

A model is a voice, spoken by the first configured engine, or
``ENGINE/VOICE`` for any configured engine (``torch/en_US-joe-medium``).
Each request runs on one of ``workers`` threads with an engine of its own,
checked out of the (engine, voice) ``engines.pool.EnginePool`` (engines keep per-request state, so two
requests never share one). Every request is ``steady`` (``SynthesisOptions``: chunks sized by the
sentence alone): the same request gives the same samples however busy the server is, streamed or whole.
At most ``workers + queue_size`` requests are admitted at once; the next is refused (the server answers
503). Audio goes to the request's :class:`Job` as it is synthesized; setting ``job.cancel`` (the
client went away) stops the synthesis before its next chunk and frees the worker.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from engines import names
from engines.base import SynthesisOptions
from engines.names import MODEL_ALIASES
from engines.pool import EnginePool
from engines.remote.settings import OPENAI_PCM_RATE  # the API's constant, one definition for client and server
from engines.server.encode import Resampler, carried_rate
from engines.server.request import ApiError, SpeechRequest
from engines.speakers import DEFAULT_SPEAKER, OPENAI_VOICES, UnknownName, speaker_name
from engines.voice import Voice

END = object()
"""Put on a job's queue after its last chunk."""


@dataclass
class ServiceConfig:
    """Server settings.

    Attributes:
        voices: the voices served; the first is the default (and what OpenAI's model names mean).
        engines: registry names of the engines (``onnx``, ``torch``); the first speaks plain voice names.
        engine_kwargs: per engine name, keyword arguments for it (e.g. ``{"torch": {"device": "cuda"}}``).
        workers: requests synthesized at once. queue_size: further requests that may wait.
        max_chars: longest ``input`` accepted (longer: 413).
        voice_map: voice field -> speaker (name or id) of the multi-speaker voices, e.g. ``{"alloy": "ben"}``;
            OpenAI voice names not in it mean the default speaker (``engines.names``).
        pcm_rate: Hz of ``pcm`` responses (OpenAI's is 24 kHz); ``None`` sends the voice's own rate.
        noise_scale, noise_w, length_scale, sentence_silence: what a request that does not give them gets
            (``None``: the voice's own; ``sentence_silence`` in seconds). Wyoming requests never give them.
    """

    voices: list[Voice]
    engines: tuple[str, ...] = ("onnx",)
    engine_kwargs: dict[str, dict] = field(default_factory=dict)
    workers: int = 2
    queue_size: int = 16
    max_chars: int = 20_000
    voice_map: dict[str, str] = field(default_factory=dict)
    pcm_rate: int | None = OPENAI_PCM_RATE
    noise_scale: float | None = None
    noise_w: float | None = None
    length_scale: float | None = None
    sentence_silence: float = 0.0


@dataclass(frozen=True)
class Target:
    """What a request asks for: an engine, a voice and a speaker id (``None``: the voice's default)."""

    engine: str
    voice: Voice
    speaker: int | None = None


@dataclass
class Counters:
    """What the server has done, for ``GET /health`` (and the tests)."""

    requests: int = 0
    refused_busy: int = 0
    sentences: int = 0
    active: int = 0
    admitted: int = 0


class Job:
    """One request's synthesis: audio chunks (float32 ``[N]``) arrive on ``queue``, each sentence's
    ``SentenceTiming`` before its audio where the request asked for timestamps, then ``END`` or an exception."""

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
        names.check_voice_map(config.voice_map, config.voices)
        self.config = config
        self.counters = Counters()
        self.voices = {v.name: v for v in config.voices}
        self.pool = EnginePool(self._make_engine)
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=config.workers, thread_name_prefix="speech")
        self._jobs: set[Job] = set()
        self.closing = False

    @property
    def default_voice(self) -> Voice:
        """The first voice."""
        return self.config.voices[0]

    def shutdown(self) -> None:
        """Stop accepting work; running jobs finish."""
        self._executor.shutdown(wait=False, cancel_futures=True)

    def cancel_all(self) -> None:
        """The server is stopping: refuse new requests, and end every job at its next chunk (their responses
        end short instead of being torn down)."""
        with self._lock:
            self.closing = True
            jobs = list(self._jobs)
        for job in jobs:
            job.cancel.set()

    # --- names ------------------------------------------------------------
    def speaker_ids(self, voice: Voice) -> list[str]:
        """Voice ids of a model: ``default``, then the speaker names of a multi-speaker voice."""
        return [DEFAULT_SPEAKER] + (list(voice.config.speakers) if voice.config.num_speakers > 1 else [])

    def model_ids(self) -> list[tuple[str, str, Voice]]:
        """``(model id, engine, voice)``: each voice by name (first engine), then ``ENGINE/VOICE`` for the others."""
        first, *others = self.config.engines
        return [(v.name, first, v) for v in self.voices.values()] + [
            (f"{e}/{v.name}", e, v) for e in others for v in self.voices.values()
        ]

    def resolve(self, model: str | None, voice_id: str | None) -> Target:
        """The target of a request's model and voice fields, named as ``engines.names`` resolves names.

        The model names a voice, optionally as ``ENGINE/VOICE`` (OpenAI's model
        names and none mean the default voice); with an OpenAI model name,
        ``voice`` may name a voice instead. The voice field names a speaker
        (a name, an id as digits, an OpenAI voice name through ``voice_map``).

        Raises:
            ApiError: 404 for an unknown engine, model or voice, naming the known ones.
        """
        engine, name = model.split("/", 1) if model and "/" in model else (self.config.engines[0], model)
        if engine not in self.config.engines:
            known = ", ".join(self.config.engines)
            raise ApiError(
                404, f"unknown engine '{engine}' in model '{model}'; served: {known}", "model", "model_not_found"
            )
        try:
            voice, speaker = self._voice_and_speaker(name, voice_id)
            return Target(engine, voice, names.find_speaker(voice, speaker, self.config.voice_map))
        except UnknownName as exc:
            message = str(exc)
            if exc.field == "model" and message.startswith("no voice named"):
                message = f"unknown model '{model}'; known: {', '.join(m for m, _, _ in self.model_ids())}"
            raise ApiError(404, message, exc.field, f"{exc.field}_not_found") from None

    def _voice_and_speaker(self, model: str | None, voice_id: str | None) -> tuple[Voice, str | None]:
        """The voice a model name means and the speaker field; with no model or an OpenAI model name,
        a voice field that names a voice chooses it (with its default speaker)."""
        if model not in (None, *MODEL_ALIASES):
            return names.find_voice(self.config.voices, model), voice_id
        if voice_id and voice_id not in OPENAI_VOICES and voice_id not in self.config.voice_map:
            try:
                return names.find_voice(self.config.voices, voice_id), None
            except UnknownName:
                pass  # a speaker of the default voice
        return self.default_voice, voice_id

    def voice_map_entries(self, voice: Voice) -> list[dict]:
        """``/v1/audio/voices``'s mapping for ``voice``: each OpenAI voice name (and map key) and its speaker."""
        aliases = dict.fromkeys([*OPENAI_VOICES, *self.config.voice_map])
        mapped = {alias: names.find_speaker(voice, alias, self.config.voice_map) for alias in aliases}
        return [
            {"voice": alias, "model": voice.name, "speaker": speaker_name(voice.config, speaker)}
            for alias, speaker in mapped.items()
        ]

    # --- work -------------------------------------------------------------
    def admit(self) -> None:
        """Count a request in.

        Raises:
            ApiError: 503 when ``workers + queue_size`` requests are already admitted.
        """
        with self._lock:
            self.counters.requests += 1
            if self.closing:
                raise ApiError(503, "the server is shutting down", code="server_closing")
            if self.counters.admitted >= self.config.workers + self.config.queue_size:
                self.counters.refused_busy += 1
                raise ApiError(503, "the server is busy; try again shortly", code="server_busy")
            self.counters.admitted += 1

    def start(self, target: Target, request: SpeechRequest) -> Job:
        """Queue the synthesis of an admitted request; its audio comes on the returned job's queue."""
        voice = target.voice
        job = Job(asyncio.get_running_loop())
        job.sample_rate = self.output_rate(voice, request.response_format, request.sample_rate)
        options = SynthesisOptions(
            speaker=target.speaker,
            length_scale=_length_scale(voice, request, self.config.length_scale),
            noise_scale=_given(request.noise_scale, self.config.noise_scale),
            noise_w=_given(request.noise_w, self.config.noise_w),
            sentence_silence=_given(request.sentence_silence, self.config.sentence_silence),
            normalize=request.normalize,
            timestamps=request.timestamps,
            ssml=request.ssml,
            steady=True,
        )
        with self._lock:
            self._jobs.add(job)
        self._executor.submit(self._run, job, target, request.text, options)
        return job

    def output_rate(self, voice: Voice, response_format: str, asked: int | Literal["native"] | None = None) -> int:
        """Hz of a ``response_format`` response: ``asked`` (a request's ``sample_rate``; ``native``: the
        voice's), else ``pcm_rate`` for ``pcm``, else the voice's rate (WAV, FLAC, MP3 and Ogg Opus say their
        rate themselves); then the rate the format can carry (``engines.server.encode.carried_rate``: 48 kHz
        for Opus from 22,050 Hz)."""
        if asked == "native":
            rate = voice.config.sample_rate
        elif asked is not None:
            rate = asked
        elif response_format == "pcm" and self.config.pcm_rate:
            rate = self.config.pcm_rate
        else:
            rate = voice.config.sample_rate
        return carried_rate(response_format, rate)

    def _run(self, job: Job, target: Target, text: str, options: SynthesisOptions) -> None:
        with self._lock:
            self.counters.active += 1
        engine = None
        try:
            if job.cancel.is_set():
                return
            engine = self.pool.checkout(target.engine, target.voice)
            resample = Resampler(target.voice.config.sample_rate, job.sample_rate)
            for chunk in engine.synthesize(text, options, job.cancel):
                if chunk.final and not chunk.is_silence:
                    with self._lock:
                        self.counters.sentences += 1
                for timing in chunk.timings:  # in seconds on the wire: the same at any output rate
                    job.put(timing)
                job.put(resample(np.asarray(chunk.audio, np.float32)))
            tail = resample.finish()
            if len(tail) and not job.cancel.is_set():
                job.put(tail)
        except Exception as exc:  # reported to the client (an error event or a closed stream)
            job.put(exc)
        finally:
            if engine is not None:
                self.pool.checkin(target.engine, target.voice, engine)
            with self._lock:
                self.counters.active -= 1
                self.counters.admitted -= 1
                self._jobs.discard(job)
            job.put(END)

    def _make_engine(self, name: str, voice: Voice):
        """A new engine for the pool, made with the engine's configured kwargs."""
        from engines.registry import create_engine

        return create_engine(name, voice, **self.config.engine_kwargs.get(name, {}))

    def warm_up(self) -> None:
        """Create one engine per engine and voice and speak a word with it, so no request pays the loading time
        (for the torch engine on CUDA that includes its compilation)."""
        for _, engine_name, voice in self.model_ids():
            engine = self.pool.checkout(engine_name, voice)
            for _ in engine.synthesize("Ready."):
                pass
            self.pool.checkin(engine_name, voice, engine)


def _length_scale(voice: Voice, request: SpeechRequest, default: float | None) -> float | None:
    """The request's ``length_scale`` (extension) as given, else OpenAI's ``speed`` relative to the voice's own
    ``length_scale`` (speed 2 speaks twice as fast as the voice does by default), else ``default`` (the server's;
    ``None``: the voice's)."""
    if request.length_scale is not None:
        return request.length_scale
    return default if request.speed is None else voice.config.length_scale / request.speed


def _given(value, default):
    """``value`` unless it is ``None``, else ``default``."""
    return default if value is None else value
