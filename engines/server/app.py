"""The speech server (``voice-studio serve``): the studio's voices behind OpenAI's speech API.

Routes: ``POST /v1/audio/speech``, ``GET /v1/models`` and ``/v1/models/{id}`` (``engines.server.model_list``),
``GET /v1/audio/voices`` (``?model=``; its ``voice_map`` says which speaker each OpenAI voice name
gives), ``GET /health``.
``pcm`` is 24 kHz as OpenAI's (resampled as it streams) unless the server's
``pcm_rate`` or the request's ``sample_rate`` says otherwise; the rate is also in
``X-Sample-Rate`` and the content type. ``pcm`` and ``wav`` stream as they are
synthesized (a streamed WAV has one header with unknown sizes) unless the
request says ``"stream": false``; ``flac``, ``mp3`` and ``opus`` (Ogg Opus, 48 kHz
unless the voice's rate is one Opus carries) come whole; ``aac`` is refused
(400, naming the formats offered). ``stream_format: "sse"`` sends OpenAI's
``speech.audio.delta`` events: pieces of the body in the response format (for
``flac``, ``mp3`` and ``opus``, of the whole file once encoded); a request with
``timestamps: true`` also gets a ``speech.timestamps`` event before each sentence's
audio (its words and phonemes with start and end seconds, ``SentenceTiming.to_dict``).
Whole responses carry exact sizes. Errors are JSON in OpenAI's shape.

Safety: it binds 127.0.0.1 unless told otherwise, and any other address needs
an API key (``Authorization: Bearer``). A client that goes away cancels its
synthesis. SIGPIPE is ignored, so a closed socket can never end the process.
"""

import asyncio
import base64
import hmac
import ipaddress
import json
import signal
import socket
import sys
from collections.abc import AsyncIterator, Awaitable, Callable

import numpy as np

from engines.imports import importing
from engines.server.encode import (
    MEDIA_TYPES,
    STREAMABLE,
    encode_whole,
    stream_piece,
    stream_start,
)
from engines.server.model_list import find_model, model_list
from engines.server.request import ApiError, SpeechRequest, parse_speech_request
from engines.server.service import END, Job, SpeechService
from engines.timing.events import SentenceTiming

MAX_BODY_OVERHEAD = 64 * 1024
"""Bytes allowed in a request body beyond ``max_chars`` four-byte characters."""
SSE_PIECE = 32 * 1024
"""Bytes of an encoded file (``flac``, ``mp3``, ``opus``) per ``speech.audio.delta`` event."""


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def create_app(service: SpeechService, api_key: str | None = None):
    """The FastAPI application over ``service``; ``api_key`` (when set) is required on every ``/v1`` route."""
    with importing("fastapi", "fastapi.responses", "starlette.exceptions"):
        from fastapi import FastAPI, Request
        from fastapi.responses import JSONResponse, Response, StreamingResponse
        from starlette.exceptions import HTTPException as StarletteHTTPException

    app = FastAPI(title="Voice Studio speech server", docs_url=None, redoc_url=None)

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError):
        headers = {"Retry-After": "1"} if exc.status == 503 else None
        return JSONResponse(exc.body(), status_code=exc.status, headers=headers)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException):  # unknown route, wrong method
        message = f"{request.method} {request.url.path}: {exc.detail}"
        return JSONResponse(ApiError(exc.status_code, message).body(), status_code=exc.status_code)

    @app.middleware("http")
    async def _authorize(request: Request, call_next):
        if api_key and request.url.path.startswith("/v1") and not _key_matches(request, api_key):
            message = "missing or wrong API key: send 'Authorization: Bearer KEY'"
            return JSONResponse(ApiError(401, message, code="invalid_api_key").body(), status_code=401)
        return await call_next(request)

    @app.get("/health")
    async def health(request: Request):
        if api_key and not _key_matches(request, api_key):  # liveness only: details need the key
            return {"status": "ok"}
        c = service.counters
        return {
            "status": "ok",
            "engines": list(service.config.engines),
            "voices": list(service.voices),
            "active": c.active,
            "queued": c.admitted - c.active,
            "requests": c.requests,
            "sentences": c.sentences,
            "refused_busy": c.refused_busy,
        }

    @app.get("/v1/models")
    async def models():
        return model_list(service)

    @app.get("/v1/models/{model_id:path}")
    async def model(model_id: str):
        return find_model(service, model_id)

    @app.get("/v1/audio/voices")
    async def voices(model: str | None = None):
        chosen = [service.resolve(model, None).voice] if model else list(service.voices.values())
        entries = [{"id": s, "name": s, "model": v.name} for v in chosen for s in service.speaker_ids(v)]
        return {"voices": entries, "voice_map": [e for v in chosen for e in service.voice_map_entries(v)]}

    @app.post("/v1/audio/speech")
    async def speech(request: Request):
        speech_request = parse_speech_request(await _read_body(request, service), service.config.max_chars)
        target = service.resolve(speech_request.model, speech_request.voice)
        service.admit()
        job = service.start(target, speech_request)
        headers = {"X-Sample-Rate": str(job.sample_rate)}
        media_type = _media_type(speech_request, job.sample_rate)
        if speech_request.streamed:
            return StreamingResponse(_stream(job, speech_request), media_type=media_type, headers=headers)
        audio = await _collect(job, request)
        body = encode_whole(speech_request.response_format, audio, job.sample_rate)
        return Response(body, media_type=media_type, headers=headers)

    return app


def _key_matches(request, api_key: str) -> bool:
    given = request.headers.get("authorization", "")
    scheme, _, token = given.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(token.strip().encode(), api_key.encode())


def _media_type(request: SpeechRequest, sample_rate: int) -> str:
    if request.stream_format == "sse":
        return "text/event-stream"
    if request.response_format == "pcm":
        return f"audio/pcm;rate={sample_rate}"
    return MEDIA_TYPES[request.response_format]


async def _read_body(request, service: SpeechService) -> bytes:
    """The body, refused with 413 beyond ``max_chars`` four-byte characters plus ``MAX_BODY_OVERHEAD``."""
    limit = 4 * service.config.max_chars + MAX_BODY_OVERHEAD
    declared = request.headers.get("content-length", "")
    too_long = ApiError(
        413, f"the request body is over {limit} bytes (input limit: {service.config.max_chars} characters)"
    )
    if declared.isdigit() and int(declared) > limit:
        raise too_long
    body = bytearray()
    async for piece in request.stream():
        body += piece
        if len(body) > limit:
            raise too_long
    return bytes(body)


async def _stream(job: Job, request: SpeechRequest) -> AsyncIterator[bytes]:
    """A streamed body; leaving it early (the client went away) cancels the synthesis. Under server-sent
    events a format that cannot stream (``flac``, ``mp3``, ``opus``) is encoded whole, then sent in pieces."""
    sse = request.stream_format == "sse"
    wrap = _sse_delta if sse else (lambda data: data)
    whole: list[np.ndarray] | None = [] if request.response_format not in STREAMABLE else None
    try:
        start = stream_start(request.response_format, job.sample_rate)
        if start:
            yield wrap(start)
        while (item := await job.queue.get()) is not END:
            if isinstance(item, Exception):
                if sse:
                    yield _sse_event({"type": "error", "error": {"message": f"synthesis failed: {item}"}})
                return  # the body ends short: the client sees a truncated stream
            if isinstance(item, SentenceTiming):  # asked for with sse only (engines.server.request)
                yield _sse_event({"type": "speech.timestamps", **item.to_dict()})
            elif whole is None:
                yield wrap(stream_piece(item))
            else:
                whole.append(item)
        if whole is not None:
            for piece in _encoded_pieces(request.response_format, whole, job.sample_rate):
                yield wrap(piece)
        if sse:
            yield _sse_event(
                {"type": "speech.audio.done", "usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}}
            )
    finally:
        job.cancel.set()


def _encoded_pieces(response_format: str, chunks: list[np.ndarray], sample_rate: int) -> list[bytes]:
    """The whole file of ``chunks`` (float32 ``[N]`` each) in ``response_format``, cut in ``SSE_PIECE`` bytes."""
    audio = np.concatenate(chunks) if chunks else np.zeros(0, np.float32)
    body = encode_whole(response_format, audio, sample_rate)
    return [body[i : i + SSE_PIECE] for i in range(0, len(body), SSE_PIECE)]


async def _collect(job: Job, request) -> np.ndarray:
    """All of a job's audio; the job is cancelled if the client disconnects meanwhile."""
    pieces = []
    try:
        while True:
            try:
                item = await asyncio.wait_for(job.queue.get(), 0.25)
            except asyncio.TimeoutError:
                if await request.is_disconnected():
                    raise ApiError(499, "the client closed the connection") from None
                continue
            if item is END:
                break
            if isinstance(item, Exception):
                raise ApiError(500, f"synthesis failed: {item}", code="synthesis_failed")
            pieces.append(item)
    finally:
        job.cancel.set()
    return np.concatenate(pieces) if pieces else np.zeros(0, np.float32)


def _sse_event(event: dict) -> bytes:
    return f"data: {json.dumps(event)}\n\n".encode()


def _sse_delta(data: bytes) -> bytes:
    return _sse_event({"type": "speech.audio.delta", "audio": base64.b64encode(data).decode("ascii")})


def serve(
    service: SpeechService,
    host: str = "127.0.0.1",
    port: int = 5050,
    api_key: str | None = None,
    on_ready: Callable[[str], None] | None = None,
    alongside: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Run the server until interrupted; ``on_ready(url)`` is called once it listens (``port=0`` picks one).
    ``alongside()`` (the Wyoming server, ``engines.server.wyoming_server.run_wyoming``) runs in the same event loop
    from the start until the server stops.

    Raises:
        ValueError: a non-loopback ``host`` without ``api_key``.
        OSError: the address is taken or cannot be bound.
        Exception: what ``alongside()`` raised, once the server has stopped for it.
    """
    with importing("uvicorn"):
        import uvicorn

    if not is_loopback(host) and not api_key:
        raise ValueError(
            f"binding to {host} makes the server reachable from other machines: give a key with --api-key KEY "
            "or the VOICE_STUDIO_API_KEY environment variable"
        )
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise OSError(
            exc.errno, f"cannot listen on {host}:{port}: {exc.strerror} (is another server there? try --port)"
        ) from None
    bound = sock.getsockname()[1]
    url = f"http://{'[' + host + ']' if family == socket.AF_INET6 else host}:{bound}"
    config = uvicorn.Config(create_app(service, api_key), log_level="warning", timeout_graceful_shutdown=5)
    server = _uvicorn_server(config, service)
    failures: list[BaseException] = []
    if alongside:
        _run_alongside(server, alongside, failures)
    if on_ready:
        _announce_when_started(server, url, on_ready)
    try:
        server.run(sockets=[sock])
    finally:
        service.shutdown()
        sock.close()
    if failures:
        raise failures[0]


def _uvicorn_server(config, service: SpeechService):
    """uvicorn's server, which on Ctrl+C (or SIGTERM) first ends the running syntheses, so that their
    responses finish (short) instead of being cancelled mid-write."""
    with importing("uvicorn"):
        import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            service.cancel_all()
            super().handle_exit(sig, frame)

    return Server(config)


def _run_alongside(server, work: Callable[[], Awaitable[None]], failures: list[BaseException]) -> None:
    """Start ``work()`` as a task once uvicorn has started, and cancel it when uvicorn shuts down; work that fails
    (not cancelled) stops the whole server, its exception added to ``failures`` (``serve`` raises it)."""
    original_startup, original_shutdown = server.startup, server.shutdown
    tasks: list[asyncio.Task] = []

    def ended(task: asyncio.Task) -> None:
        if not task.cancelled() and (exc := task.exception()) is not None:
            failures.append(exc)
            server.should_exit = True

    async def startup(sockets=None):
        await original_startup(sockets=sockets)
        tasks.append(asyncio.ensure_future(work()))
        tasks[-1].add_done_callback(ended)

    async def shutdown(sockets=None):
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await original_shutdown(sockets=sockets)

    server.startup, server.shutdown = startup, shutdown


def _announce_when_started(server, url: str, on_ready: Callable[[str], None]) -> None:
    """Call ``on_ready(url)`` once uvicorn has started listening (its ``startup`` has run)."""
    original = server.startup

    async def startup(sockets=None):
        await original(sockets=sockets)
        if server.started:
            on_ready(url)
            sys.stdout.flush()

    server.startup = startup
