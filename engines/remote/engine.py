"""The remote engine: speech streamed from any OpenAI-compatible ``/v1/audio/speech`` server.

Request (OpenAI's "Create speech" API): ``POST {base}/v1/audio/speech`` with a
JSON body ``{model, input, voice, response_format, speed[, stream_format]}``;
the text only ever travels in that body. The audio is decoded as it arrives
(``engines.remote.decode``, ``engines.remote.sse``) and handed out chunk by chunk, so playing starts
with the first bytes for ``pcm`` and ``wav``. The body's own bytes and
Content-Type decide how it is decoded (``engines.remote.body_format``), not the format
asked for; a mismatch is told in ``notice``. What to ask and where:
``engines.remote.settings``; the HTTP details (error messages, back-off, shutting the
socket on cancel): ``engines.remote.transport``.

Failures are told in words: an unreachable server, a timeout, a refused key,
the server's own error message. Connection errors and busy answers (429, 502,
503, 504) are retried a bounded number of times before any audio came. A
server that refuses the format (a 4xx naming it) is asked again for ``wav``,
then ``pcm``. Cancelling shuts the socket down at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

from engines.base import AudioChunk, EngineError, SynthesisOptions
from engines.cleaning import clean_text, is_speakable
from engines.frontend.ssml import is_ssml
from engines.imports import importing
from engines.remote.body_format import SniffingDecoder
from engines.remote.decode import DecodeError
from engines.remote.settings import RemoteSettings, endpoint
from engines.remote.sse import SseAudio
from engines.remote.transport import backoff, error_message, pcm_rate, shutdown_on_cancel, transport_message
from engines.timing.events import SentenceTiming

FALLBACK_FORMATS = ("wav", "pcm")
"""Tried in order when a server refuses the requested format."""
RETRY_STATUS = (429, 502, 503, 504)
"""Answers that mean "busy, try again"."""


class RemoteEngine:
    """An OpenAI-compatible speech server as an ``engines.base.Engine``.

    ``sample_rate`` is the settings' rate until a response names its own.
    Chunks are whatever the network delivered, decoded; a remote stream is one
    "sentence" (``sentence_index`` 0), its end flagged ``final`` (on an empty
    chunk when the body ends after its last samples).

    Raises (from ``synthesize``, ``models``, ``voices``):
        EngineError: unreachable server, timeout, refused key, or the server's error message.
    """

    name = "remote"

    def __init__(self, settings: RemoteSettings, client=None) -> None:
        with importing("httpx"):
            import httpx

        self.settings = settings
        self.sample_rate = settings.sample_rate
        self.notice = ""
        self.answered_s: float | None = None
        """Seconds from the last request's start to the server's answer (its response headers: connecting,
        retries and the server's start), ``None`` before one; time to first audio includes it."""
        timeout = httpx.Timeout(settings.timeout_s, connect=settings.connect_timeout_s)
        self._client = client or httpx.Client(timeout=timeout, follow_redirects=True)
        self._speakers: list[str] = []

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.settings.api_key}"} if self.settings.api_key else {}

    # --- listing ----------------------------------------------------------
    def models(self) -> list[dict]:
        """``GET /v1/models``: the server's models as dicts with at least ``id``."""
        body = self._get_json("models")
        items = _json_list(body, "data", "models")
        return [m if isinstance(m, dict) else {"id": str(m)} for m in items]

    def voices(self, model: str | None = None) -> list[str]:
        """``GET /v1/audio/voices`` (for ``model`` where given): voice ids; empty if the server has no such list."""
        body = self._get_json("audio/voices", {"model": model} if model else None, absent=[])
        items = _json_list(body, "voices", "data")
        names = [v if isinstance(v, str) else v.get("id") or v.get("name") for v in items]
        self._speakers = [n for n in names if n]
        return list(self._speakers)

    def speakers(self) -> list[str]:
        """Voices fetched by the last ``voices()`` call."""
        return list(self._speakers)

    def _get_json(self, path: str, params: dict | None = None, absent=None):
        """The JSON answer of ``GET {base}/v1/{path}``; ``absent`` (when given) for a 404 or 405.

        Raises:
            EngineError: unreachable server, another error status, or an answer that is not JSON.
        """
        with importing("httpx"):
            import httpx

        url = endpoint(self.settings.url, path)
        try:
            response = self._client.get(url, headers=self._headers(), params=params)
        except httpx.HTTPError as exc:
            raise EngineError(transport_message(exc, url, self.settings)) from exc
        if absent is not None and response.status_code in (404, 405):
            return absent
        if response.status_code >= 400:
            raise EngineError(f"{url}: {response.status_code} {error_message(response)}")
        try:
            return response.json()
        except ValueError as exc:
            raise EngineError(f"{url}: the answer is not JSON") from exc

    # --- speaking ---------------------------------------------------------
    def request_body(self, text: str, options: SynthesisOptions, response_format: str) -> dict:
        """The JSON body for ``text``: OpenAI's fields, plus Voice Studio's where ``piper_params`` is set."""
        s = self.settings
        speed, length_scale = s.speed, None
        if speed is None and options.length_scale:
            if s.piper_params:  # Piper's factor as given, as the local engines apply it
                length_scale = options.length_scale
            else:  # OpenAI's speed is relative to the voice's own rate, which the client does not know
                speed = round(1.0 / options.length_scale, 4)
        body: dict[str, Any] = {"model": s.model, "input": text, "voice": str(options.speaker or s.voice)}
        body["response_format"] = response_format
        if speed is not None:
            body["speed"] = speed
        if s.stream_format == "sse":
            body["stream_format"] = "sse"
        if s.piper_params:  # a Voice Studio server: its voice's own rate spares resampling pcm to 24 kHz
            body.update(
                {k: v for k, v in (("noise_scale", options.noise_scale), ("noise_w", options.noise_w)) if v is not None}
            )
            body["sample_rate"] = "native"
            if length_scale is not None:
                body["length_scale"] = length_scale
            if options.sentence_silence:
                body["sentence_silence"] = options.sentence_silence
            if not options.normalize:
                body["normalize"] = False
            if options.ssml is not None:
                body["ssml"] = options.ssml
            if options.timestamps:  # a Voice Studio server sends them as events beside the audio
                body.update({"timestamps": True, "stream_format": "sse"})
        return {**body, **s.extra}

    def synthesize(
        self, text: str, options: SynthesisOptions | None = None, cancel: threading.Event | None = None
    ) -> Iterator[AudioChunk]:
        """Stream ``text`` from the server; see ``engines.base.Engine``.

        Text with no letter or digit (``engines.cleaning.is_speakable``, the speech server's rule) is an empty
        stream, as with every engine, and asks nothing of the server. ``sentence_silence`` travels with Piper's
        settings (``piper_params``); without them ``notice`` says it was not applied. So does ``ssml`` where it
        asks otherwise than the server would guess (a Voice Studio server reads a text that starts with
        ``<speak>`` as SSML).
        """
        options, cancel = options or SynthesisOptions(), cancel or threading.Event()
        self.notice, self.answered_s = "", None  # this request's: a refused format, a body in another format
        if not is_speakable(clean_text(text, ssml=options.ssml)):  # the server's rule; an empty stream, as every
            return  # engine gives
        self.notice = self._not_applied(text, options)
        start = time.perf_counter()
        formats = [self.settings.response_format] + [f for f in FALLBACK_FORMATS if f != self.settings.response_format]
        for attempt_format in formats:
            response = self._open(text, options, attempt_format, cancel)
            if response is None:  # cancelled while connecting
                return
            if isinstance(response, str):  # the format was refused: try the next one
                self.notice = response
                continue
            self.answered_s = time.perf_counter() - start
            yield from self._stream(response, attempt_format, start, cancel)
            return
        raise EngineError(self.notice)

    def _not_applied(self, text: str, options: SynthesisOptions) -> str:
        """What ``options`` ask that only a Voice Studio server (``piper_params``) takes, in words; ``""``."""
        if self.settings.piper_params:
            return ""
        if options.sentence_silence:
            return "sentence_silence is not applied: only a Voice Studio server (piper_params) takes it"
        if not options.normalize:
            return "normalize off is not applied: only a Voice Studio server (piper_params) takes it"
        if options.ssml is not None and options.ssml != is_ssml(text):
            asked = "on" if options.ssml else "off"
            return f"ssml {asked} is not applied: only a Voice Studio server (piper_params) takes it"
        return ""

    def _open(self, text, options, response_format, cancel):
        """The open streaming response; a message string if the format was refused; None if cancelled."""
        with importing("httpx"):
            import httpx

        url = endpoint(self.settings.url, "audio/speech")
        body = self.request_body(text, options, response_format)
        for attempt in range(self.settings.retries + 1):
            if cancel.is_set():
                return None
            last = attempt == self.settings.retries
            try:
                request = self._client.build_request("POST", url, json=body, headers=self._headers())
                response = self._client.send(request, stream=True)
            except httpx.HTTPError as exc:
                if last or not isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
                    raise EngineError(transport_message(exc, url, self.settings)) from exc
                backoff(attempt, None, cancel)
                continue
            if response.status_code < 400:
                return response
            response.read()
            message = f"{url}: {response.status_code} {error_message(response)}"
            response.close()
            if response.status_code in RETRY_STATUS and not last:
                backoff(attempt, response.headers.get("retry-after"), cancel)
                continue
            if response.status_code in (401, 403):
                raise EngineError(f"{message} (check the API key)")
            if _refuses_format(response.status_code, message, response_format):
                return f"the server refused {response_format} ({message}); asking for another format"
            raise EngineError(message)
        raise EngineError(f"{url}: no answer after {self.settings.retries + 1} attempts")

    def _stream(self, response, response_format, start, cancel) -> Iterator[AudioChunk]:
        with importing("httpx"):
            import httpx

        rate = pcm_rate(response.headers, self.settings.sample_rate)
        content_type = response.headers.get("content-type", "")
        sse = self.settings.stream_format == "sse" or "text/event-stream" in content_type
        audio_decoder = SniffingDecoder(response_format, "" if sse else content_type, rate)
        decoder = SseAudio(audio_decoder) if sse else audio_decoder
        done = threading.Event()
        threading.Thread(target=shutdown_on_cancel, args=(response, cancel, done), daemon=True).start()
        position, index, last = 0, 0, 0.0
        timings: list[dict] = []  # speech.timestamps events received, to go out with the next chunk
        try:
            pieces = response.iter_bytes()
            while True:
                try:
                    piece = next(pieces, None)
                except httpx.HTTPError as exc:
                    if cancel.is_set():
                        return
                    raise EngineError(transport_message(exc, str(response.url), self.settings)) from exc
                final = piece is None
                try:
                    audio = decoder.finish() if piece is None else decoder.feed(piece)
                except DecodeError as exc:
                    raise EngineError(f"{response.url}: {exc}") from exc
                if cancel.is_set():
                    return
                timings += _taken(decoder)
                if len(audio) or (final and index):  # the end known after the last samples: an empty final chunk
                    self.sample_rate = decoder.sample_rate or rate
                    now = time.perf_counter() - start  # compute_s: the wait for this chunk since the last
                    chunk = AudioChunk(audio, self.sample_rate, 0, index, final, position, now - last, now)
                    chunk.timings, timings = _timings(timings, self.sample_rate, response.url), []
                    yield chunk
                    position, index, last = position + len(audio), index + 1, now
                if final:
                    self.notice = audio_decoder.notice or self.notice
                    return
        finally:
            done.set()
            response.close()


def _taken(decoder) -> list[dict]:
    """The ``speech.timestamps`` events an event-stream decoder (``SseAudio``) has received since last asked;
    none from a plain audio body."""
    events = getattr(decoder, "timings", None)
    if not events:
        return []
    taken, events[:] = list(events), []
    return taken


def _timings(events: list[dict], rate: int, url) -> tuple[SentenceTiming, ...]:
    """``speech.timestamps`` events (seconds) as timings in samples at ``rate``, the audio's.

    Raises:
        EngineError: an event not in ``SentenceTiming.to_dict``'s shape.
    """
    try:
        return tuple(SentenceTiming.from_dict(event, rate) for event in events)
    except (KeyError, TypeError, ValueError) as exc:
        raise EngineError(f"{url}: a speech.timestamps event is not in Voice Studio's shape ({exc!r})") from None


def _json_list(body: Any, key: str, fallback: str) -> Any:
    """The list under ``key`` (else ``fallback``) of a JSON object answer, or the answer itself when not an object."""
    return body.get(key, body.get(fallback, [])) if isinstance(body, dict) else body


def _refuses_format(status: int, message: str, response_format: str) -> bool:
    return response_format not in FALLBACK_FORMATS[-1:] and (
        status == 415 or (400 <= status < 500 and "format" in message.lower())
    )
