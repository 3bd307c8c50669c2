"""One Wyoming client's conversation (Home Assistant's ``wyoming`` integration, a satellite, any ``wyoming`` client).

Events answered, as wyoming-piper answers them and Home Assistant reads them:

- ``describe`` -> ``info`` (``engines.server.wyoming_info``).
- ``synthesize`` -> ``audio-start``, ``audio-chunk``..., ``audio-stop``: the whole text as one request of the
  speech server (so sentence by sentence, each sentence streamed in chunks, as ``POST /v1/audio/speech`` streams).
- ``synthesize-start``, ``synthesize-chunk``..., ``synthesize-stop`` (text streamed in, as Home Assistant sends an
  LLM's answer) -> ``audio-start``, ``audio-chunk``..., ``audio-stop``, ``synthesize-stopped``. Each run of complete
  sentences (``engines.server.text_stream``) is spoken as soon as it has arrived, one request after another, its
  audio sent as it is synthesized; ``synthesize-stopped`` follows the last. The ``synthesize`` Home Assistant sends
  inside a stream (the whole text again, for servers that cannot stream) is ignored.

Audio is 16-bit mono at the voice's own rate, in events of at most ``SAMPLES_PER_CHUNK`` samples. Every request is
the speech server's (``SpeechService``: its voice names, engine pool, workers, admission and ``max_chars``, which
bounds a stream's whole text). A request the server refuses (unknown voice or speaker, text too long, busy; a text
with nothing to speak in all of it, ``empty_input`` as the HTTP API's, where wyoming-piper answers a bare
``audio-stop`` or ``synthesize-stopped``: Home Assistant ignores the ``error`` event and reads the closed connection
as "no audio", as it reads wyoming-piper's empty answer, while other clients learn why) or a synthesis that fails is
answered with an ``error`` event (its ``code`` the HTTP server's error code) and the connection is closed, so a
client waiting for audio is not left waiting. A client that goes away cancels its
synthesis at the next chunk.
"""

from __future__ import annotations

import asyncio
import json
import logging

import numpy as np
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.error import Error
from wyoming.event import Event, async_read_event
from wyoming.info import Describe, Info
from wyoming.server import AsyncEventHandler
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeStopped,
    SynthesizeVoice,
)

from engines.server.encode import pcm16
from engines.server.request import ApiError, SpeechRequest, parse_speech_request
from engines.server.service import END, Job, SpeechService, Target
from engines.server.text_stream import SentenceStream

SAMPLES_PER_CHUNK = 1024
"""Samples per ``audio-chunk`` event (wyoming-piper's ``--samples-per-chunk`` default)."""
WIDTH, CHANNELS = 2, 1
"""Bytes per sample and channels of the audio sent (16-bit mono)."""
_LOG = logging.getLogger(__name__)


class SpeechHandler(AsyncEventHandler):
    """Answers one client's events (see the module docstring); ``service`` does the synthesis."""

    def __init__(self, service: SpeechService, info: Info, reader, writer) -> None:
        super().__init__(reader, writer)
        self.service, self.info = service, info
        self.stream: Utterance | None = None
        """The text stream in progress (between ``synthesize-start`` and ``synthesize-stop``)."""

    async def run(self) -> None:
        """Answer events until the client goes (``wyoming``'s ``AsyncEventHandler.run``, reading with
        :meth:`read_event`)."""
        self._is_running = True
        try:
            while self._is_running and (event := await self.read_event()) is not None:
                if not await self.handle_event(event):
                    break
        finally:
            await self.disconnect()
            self.writer.close()

    async def read_event(self) -> Event | None:
        """The client's next event; ``None`` once it has gone: closed, reset (it closed with our audio still unread)
        or gone in the middle of an event, or it sent bytes that are no Wyoming event (one line logged). None of
        these is printed as a fault of the server."""
        try:
            return await async_read_event(self.reader)
        except (ConnectionError, EOFError):  # EOFError: asyncio.IncompleteReadError, an event cut short
            _LOG.debug("the client went away")
        except (AttributeError, KeyError, TypeError) as exc:  # a JSON line that is not an event's object
            _LOG.warning("closed a Wyoming connection that sent something other than an event: %r", exc)
        return None

    async def handle_event(self, event: Event) -> bool:
        """Answer ``event``; False (close the connection) after an ``error`` event."""
        try:
            return await self._handle(event)
        except ApiError as exc:
            refusal = exc
        except (KeyError, TypeError, ValueError) as exc:  # an event without its fields (no "text")
            refusal = ApiError(400, f"malformed '{event.type}' event: {exc!r}", code="bad_event")
        except ConnectionError:
            return False  # the client has gone
        self._cancel_stream()
        await self.refuse(refusal)
        return False

    async def _handle(self, event: Event) -> bool:
        if Describe.is_type(event.type):
            await self.write_event(self.info.event())
        elif Synthesize.is_type(event.type) and self.stream is None:
            synthesize = Synthesize.from_event(event)
            utterance = self._begin(synthesize.voice, synthesize.text_format, streaming=False)
            try:
                utterance.add(synthesize.text)
            except BaseException:  # too long or not text: its task, waiting for text, ends with it
                utterance.cancel()
                raise
            return await utterance.finish()
        elif SynthesizeStart.is_type(event.type):
            start = SynthesizeStart.from_event(event)
            self.stream = self._begin(start.voice, start.text_format, streaming=True)
        elif SynthesizeChunk.is_type(event.type):
            self._streaming(event).add(SynthesizeChunk.from_event(event).text)
        elif SynthesizeStop.is_type(event.type):
            utterance, self.stream = self._streaming(event), None
            return await utterance.finish()
        return True

    def _begin(self, voice: SynthesizeVoice | None, text_format, *, streaming: bool) -> Utterance:
        """A new utterance for the voice asked for (its name and speaker as the HTTP server's ``model`` and
        ``voice`` fields; none: the default voice).

        Raises:
            ApiError: 404 for an unknown voice or speaker.
        """
        self._cancel_stream()
        name, speaker = (voice.name, voice.speaker) if voice else (None, None)
        try:
            target = self.service.resolve(name, speaker)
        except ApiError as exc:
            raise _in_wyoming_words(exc, name) from None
        ssml = True if getattr(text_format, "value", text_format) == "ssml" else None  # else SSML if <speak> starts it
        return Utterance(self, target, ssml=ssml, streaming=streaming)

    def _streaming(self, event: Event) -> Utterance:
        if self.stream is None:
            raise ApiError(400, f"'{event.type}' outside a stream: send synthesize-start first", code="no_stream")
        return self.stream

    async def refuse(self, exc: ApiError) -> None:
        """Send ``exc`` as an ``error`` event (its code, else ``http_STATUS``)."""
        try:
            await self.write_event(Error(text=exc.message, code=exc.code or f"http_{exc.status}").event())
        except (ConnectionError, RuntimeError):
            pass  # the client has gone

    async def disconnect(self) -> None:
        """The client has gone: stop its synthesis."""
        self._cancel_stream()

    def _cancel_stream(self) -> None:
        if self.stream is not None:
            self.stream.cancel()
            self.stream = None


def _in_wyoming_words(exc: ApiError, name: str | None) -> ApiError:
    """A refusal of ``SpeechService.resolve`` named as Wyoming names things: its ``model`` is a voice
    (``voice_not_found``), its ``voice`` field a speaker (``speaker_not_found``)."""
    if exc.code == "model_not_found" and exc.message.startswith("unknown model"):
        known = exc.message.partition("; known: ")[2]
        return ApiError(404, f"no voice named '{name}'; known voices: {known}", "voice", "voice_not_found")
    if exc.code == "voice_not_found":
        return ApiError(404, exc.message, "speaker", "speaker_not_found")
    return exc


class Utterance:
    """One ``synthesize`` or text stream: its texts, spoken in order by a task as they come, and its audio events."""

    def __init__(self, handler: SpeechHandler, target: Target, *, ssml: bool | None, streaming: bool) -> None:
        self.handler, self.target, self.ssml, self.streaming = handler, target, ssml, streaming
        self.service = handler.service
        self.sentences = SentenceStream(ssml=ssml)
        self.texts: asyncio.Queue[tuple[str, bool] | None] = asyncio.Queue()
        """Texts to speak in order, each with whether it goes on the clause before it (no sentence silence)."""
        self.given = False
        """Whether text with something to hear has been queued (no first clause goes ahead after it)."""
        self._after_clause = False
        self.job: Job | None = None
        self.started = False
        self.task = asyncio.create_task(self._speak())

    def add(self, text: str) -> None:
        """Add text; its complete sentences (all of it for SSML, which is read whole) are queued to be spoken.

        Raises:
            ApiError: 413 when the utterance's text passes the server's ``max_chars``.
        """
        limit = self.service.config.max_chars
        if self.sentences.chars + len(text) > limit:
            raise ApiError(413, f"the text is over {limit} characters (the server's limit)", code="input_too_long")
        complete, clause = self.sentences.add(text), False
        if not complete and self.streaming and not self.given:  # the listener waits: a first clause may go ahead
            complete = self.sentences.first_clause()
            clause = bool(complete)
        if complete:
            self._queue(complete, clause=clause)

    async def finish(self) -> bool:
        """Queue the rest of the text, then wait until all is spoken; False when it ended in an error."""
        rest = self.sentences.finish()
        if rest:
            self._queue(rest, clause=False)
        self.texts.put_nowait(None)
        try:
            return await self.task
        except asyncio.CancelledError:
            return False

    def _queue(self, text: str, *, clause: bool) -> None:
        """Queue ``text`` to be spoken; the text after a first clause goes on it with no sentence silence between."""
        self.texts.put_nowait((text, self._after_clause))
        self.given, self._after_clause = self.given or self._heard(text), clause

    def _heard(self, text: str) -> bool:
        """Whether ``text`` gives the listener something to hear (a first sentence of a lone emoji or a heading of
        marks does not: the stream's first clause may still go ahead of the next)."""
        try:
            return self._request(text) is not None
        except ApiError:
            return True  # refused when it is spoken: the stream ends there

    def cancel(self) -> None:
        """Stop: the task ends and the synthesis in progress stops at its next chunk."""
        self.task.cancel()
        if self.job is not None:
            self.job.cancel.set()

    async def _speak(self) -> bool:
        """Speak the queued texts, then end the audio; an error (also: nothing in them to speak) is answered and closes
        the connection."""
        try:
            while (item := await self.texts.get()) is not None:
                await self._say(*item)
            if self.job is None:
                raise self._nothing_to_say()
            await self._end()
            return True
        except ApiError as exc:
            await self.handler.refuse(exc)
        except ConnectionError:
            _LOG.debug("the client went away mid-stream")
        except Exception as exc:  # a fault of ours: said to the client, logged, and the server serves on
            _LOG.exception("Wyoming synthesis failed")
            await self.handler.refuse(ApiError(500, f"internal error: {exc}", code="internal_error"))
        if self.handler.stream is self:
            self.handler.stream = None  # ended here: nothing left to cancel
        await self.handler.stop()
        return False

    def _nothing_to_say(self) -> ApiError:
        """The refusal of a text with nothing to speak in all of it (empty, spaces, only marks or emoji), as the HTTP
        API refuses such an ``input`` (``empty_input``)."""
        text = "the text streamed in ('synthesize-chunk')" if self.streaming else "'text'"
        return ApiError(400, f"{text} has no speakable text (letters or digits) after cleaning", "text", "empty_input")

    async def _say(self, text: str, goes_on: bool = False) -> None:
        """Speak ``text`` as one request of the speech server, its audio sent as it comes; after the audio before it
        the server's sentence silence, unless ``goes_on`` (it continues a first clause's sentence).

        Raises:
            ApiError: the server refuses it (too busy, malformed markup) or the synthesis failed.
        """
        request = self._request(text)
        if request is None:
            return
        self.service.admit()
        self.job = job = self.service.start(self.target, request)
        try:
            if self.started and not goes_on:
                await self._write_silence(job.sample_rate)
            while (item := await job.queue.get()) is not END:
                if isinstance(item, Exception):
                    raise ApiError(500, f"synthesis failed: {item}", code="synthesis_failed")
                if isinstance(item, np.ndarray):
                    await self._write_audio(item, job.sample_rate)
        finally:
            job.cancel.set()

    def _request(self, text: str) -> SpeechRequest | None:
        """``text`` as the body of ``POST /v1/audio/speech`` it stands for (pcm at the voice's own rate), checked as
        that body is; ``None`` for text with nothing to say (a lone emoji or ``**`` between sentences). Read as the
        whole text is: once the stream has found it plain (``SentenceStream.whole`` False), a later sentence that
        starts with ``<speak>`` is plain text too; text read whole says itself whether it is SSML."""
        ssml = False if self.ssml is None and self.sentences.whole is False else self.ssml
        body = {"input": text, "response_format": "pcm", "sample_rate": "native", "ssml": ssml}
        try:
            return parse_speech_request(json.dumps(body).encode(), self.service.config.max_chars)
        except ApiError as exc:
            if exc.code == "empty_input":
                return None
            raise

    async def _write_audio(self, audio: np.ndarray, rate: int) -> None:
        """``audio`` (float32 ``[N]``) as ``audio-chunk`` events of at most ``SAMPLES_PER_CHUNK`` samples, after
        ``audio-start`` before the first."""
        if not self.started:
            await self.handler.write_event(AudioStart(rate=rate, width=WIDTH, channels=CHANNELS).event())
            self.started = True
        for offset in range(0, len(audio), SAMPLES_PER_CHUNK):
            data = pcm16(audio[offset : offset + SAMPLES_PER_CHUNK])
            await self.handler.write_event(AudioChunk(rate=rate, width=WIDTH, channels=CHANNELS, audio=data).event())

    async def _write_silence(self, rate: int) -> None:
        """The server's ``sentence_silence`` between two requests of one stream (as within one request)."""
        samples = round(self.service.config.sentence_silence * rate)
        if samples:
            await self._write_audio(np.zeros(samples, np.float32), rate)

    async def _end(self) -> None:
        """``audio-stop`` (after an ``audio-start`` at the voice's rate if nothing was said), and for a stream
        ``synthesize-stopped``."""
        if not self.started:
            rate = self.service.output_rate(self.target.voice, "pcm", "native")
            await self.handler.write_event(AudioStart(rate=rate, width=WIDTH, channels=CHANNELS).event())
            self.started = True
        await self.handler.write_event(AudioStop().event())
        if self.streaming:
            await self.handler.write_event(SynthesizeStopped().event())
