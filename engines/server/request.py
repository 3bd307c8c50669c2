"""The request side of the speech server: parsing and checking ``POST /v1/audio/speech`` bodies.

Field names and defaults follow OpenAI's "Create speech" API (``model``,
``input``, ``voice``, ``response_format`` default ``mp3``, ``speed`` 0.25-4.0,
``stream_format`` ``audio`` or ``sse``). Extensions a Voice Studio client may
send: ``stream`` (false asks for one whole body with exact sizes),
``noise_scale``, ``noise_w``, ``length_scale`` (Piper's, in place of the voice's own; not with
``speed``, which is relative to the voice's own rate), ``sentence_silence`` (seconds), ``sample_rate``
(Hz or ``"native"``), ``normalize`` (false reads ``input`` as written, without the text front end), ``ssml``
(true: ``input`` is SSML; false: plain text, markup read as text; null or absent: SSML when it starts with
``<speak>``; ``engines.frontend.markup``) and ``timestamps`` (true, with ``stream_format: "sse"``: a
``speech.timestamps`` event per sentence). Other unknown fields are ignored, as most compatible servers do. Every
refusal is an :class:`ApiError` whose message names the field; malformed markup is a 400 whose message names its
line and column.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from engines.cleaning import clean_text, is_speakable
from engines.errors import VoiceStudioError
from engines.frontend.markup import MarkupError, Pause, Speech, parse_markup
from engines.server.encode import STREAMABLE, response_formats, unsupported_message

SPEED_RANGE = (0.25, 4.0)
"""OpenAI's accepted ``speed``."""
LENGTH_SCALE_RANGE = (0.1, 10.0)
"""Accepted ``length_scale`` for the extension field (Piper's phoneme duration factor; 1 = the voice's
training rate, larger is slower)."""
RATE_RANGE = (8000, 96000)
"""Accepted ``sample_rate`` (Hz) for the extension field."""


class ApiError(VoiceStudioError):
    """A request the server refuses: HTTP ``status`` and a message naming the field (``param``)."""

    def __init__(self, status: int, message: str, param: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.param, self.code = status, message, param, code

    def body(self) -> dict:
        """OpenAI's error shape: ``{"error": {"message", "type", "param", "code"}}``."""
        kind = "invalid_request_error" if self.status < 500 else "server_error"
        return {"error": {"message": self.message, "type": kind, "param": self.param, "code": self.code}}


@dataclass(frozen=True)
class SpeechRequest:
    """A checked speech request; ``text`` is ``input`` after ``engines.cleaning.clean_text`` (SSML as sent: its
    markup checked, its text cleaned as it is read).

    ``sample_rate`` (extension): Hz of the response, ``"native"`` for the voice's own rate, ``None`` for the
    server's choice (24 kHz for ``pcm``, as OpenAI; the voice's rate otherwise).
    """

    model: str | None
    text: str
    voice: str | None
    response_format: str = "mp3"
    speed: float | None = None
    stream_format: str = "audio"
    stream: bool = True
    noise_scale: float | None = None
    noise_w: float | None = None
    length_scale: float | None = None
    sentence_silence: float | None = None
    sample_rate: int | Literal["native"] | None = None
    normalize: bool = True
    timestamps: bool = False
    ssml: bool | None = None

    @property
    def streamed(self) -> bool:
        """Sent piece by piece (``pcm``/``wav`` unless ``stream`` is false, and always for ``sse``)."""
        return self.stream_format == "sse" or (self.stream and self.response_format in STREAMABLE)


def parse_speech_request(raw: bytes, max_chars: int) -> SpeechRequest:
    """Parse and check a request body.

    Raises:
        ApiError: 400 for malformed JSON, a missing or empty ``input``, malformed markup in it, a bad
            field; 413 for ``input`` over ``max_chars`` characters.
    """
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ApiError(400, f"the request body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise ApiError(400, "the request body must be a JSON object")
    text = body.get("input")
    if not isinstance(text, str):
        raise ApiError(400, "'input' is required and must be a string", "input")
    if len(text) > max_chars:
        raise ApiError(413, f"'input' has {len(text)} characters; the limit is {max_chars}", "input", "input_too_long")
    ssml = _optional_flag(body, "ssml")
    cleaned = clean_text(text, ssml=ssml)
    if not _speakable(cleaned, ssml):
        raise ApiError(400, "'input' has no speakable text (letters or digits) after cleaning", "input", "empty_input")
    if body.get("speed") is not None and body.get("length_scale") is not None:
        raise ApiError(400, "give 'speed' or 'length_scale', not both", "length_scale")
    timestamps = _flag(body, "timestamps", False)
    if timestamps and body.get("stream_format") != "sse":
        raise ApiError(
            400, "'timestamps' come as events beside the audio: ask for them with 'stream_format': 'sse'", "timestamps"
        )
    return SpeechRequest(
        model=_string(body, "model"),
        text=cleaned,
        voice=_string(body, "voice"),
        response_format=_response_format(body),
        speed=_number(body, "speed", *SPEED_RANGE),
        stream_format=_choice(body, "stream_format", "audio", ("audio", "sse")),
        stream=_flag(body, "stream", True),
        noise_scale=_number(body, "noise_scale", 0.0, 10.0),
        noise_w=_number(body, "noise_w", 0.0, 10.0),
        length_scale=_number(body, "length_scale", *LENGTH_SCALE_RANGE),
        sentence_silence=_number(body, "sentence_silence", 0.0, 10.0),
        sample_rate=_rate(body),
        normalize=_flag(body, "normalize", True),
        timestamps=timestamps,
        ssml=ssml,
    )


def _speakable(text: str, ssml: bool | None) -> bool:
    """Whether ``text`` (read as ``ssml`` says) gives anything to hear: a letter or a digit in its speech, or a
    pause its markup asks for (``<break/>``, ``[pause:1s]``: silence of that length, as ``say`` writes it).

    Raises:
        ApiError: 400 for malformed markup, its message naming where (``engines.frontend.markup``).
    """
    try:
        parts = parse_markup(text, ssml)
    except MarkupError as exc:
        raise ApiError(400, f"'input': {exc}", "input", "invalid_markup") from None
    return any(isinstance(part, Pause) or (isinstance(part, Speech) and is_speakable(part.text)) for part in parts)


def _string(body: dict, name: str) -> str | None:
    value = body.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ApiError(400, f"'{name}' must be a string", name)
    return value


def _choice(body: dict, name: str, default: str, allowed: tuple[str, ...]) -> str:
    value = body.get(name) or default
    if value not in allowed:
        raise ApiError(
            400, f"unsupported {name} '{value}'; supported: {', '.join(allowed)}", name, f"unsupported_{name}"
        )
    return value


def _response_format(body: dict) -> str:
    """OpenAI's ``response_format`` (default ``mp3``), one this server writes; ``aac`` is refused with why."""
    value = body.get("response_format") or "mp3"
    if value not in response_formats():
        raise ApiError(400, unsupported_message(str(value)), "response_format", "unsupported_response_format")
    return value


def _number(body: dict, name: str, low: float, high: float) -> float | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ApiError(400, f"'{name}' must be a number from {low:g} to {high:g}, got {value!r}", name)
    return float(value)


def _rate(body: dict) -> int | Literal["native"] | None:
    value = body.get("sample_rate")
    if value is None or value == "native":
        return value
    low, high = RATE_RANGE
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        message = f"'sample_rate' must be 'native' or a whole number of Hz from {low} to {high}, got {value!r}"
        raise ApiError(400, message, "sample_rate")
    return value


def _optional_flag(body: dict, name: str) -> bool | None:
    value = body.get(name)
    if value is not None and not isinstance(value, bool):
        raise ApiError(400, f"'{name}' must be true, false or null", name)
    return value


def _flag(body: dict, name: str, default: bool) -> bool:
    value = body.get(name, default)
    if not isinstance(value, bool):
        raise ApiError(400, f"'{name}' must be true or false", name)
    return value
