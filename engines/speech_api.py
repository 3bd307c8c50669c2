"""The request side of the speech server: parsing and checking ``POST /v1/audio/speech`` bodies.

Field names and defaults follow OpenAI's "Create speech" API (``model``,
``input``, ``voice``, ``response_format`` default ``mp3``, ``speed`` 0.25-4.0,
``stream_format`` ``audio`` or ``sse``). Extensions a Voice Studio client may
send: ``stream`` (false asks for one whole body with exact sizes),
``noise_scale`` and ``noise_w``. Other unknown fields are ignored, as most
compatible servers do. Every refusal is an :class:`ApiError` whose message
names the field.
"""

from __future__ import annotations

import html
import json
import unicodedata
from dataclasses import dataclass

from engines.stream_encode import MEDIA_TYPES, STREAMABLE

SPEED_RANGE = (0.25, 4.0)
"""OpenAI's accepted ``speed``."""
MODEL_ALIASES = ("tts-1", "tts-1-hd", "gpt-4o-mini-tts")
"""OpenAI model names that mean "the server's default voice", for clients that cannot change the model."""
_VARIATION_SELECTORS = set(range(0xFE00, 0xFE10)) | set(range(0xE0100, 0xE01F0))


class ApiError(Exception):
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
    """A checked speech request; ``text`` is ``input`` after ``clean_input``."""

    model: str | None
    text: str
    voice: str | None
    response_format: str = "mp3"
    speed: float | None = None
    stream_format: str = "audio"
    stream: bool = True
    noise_scale: float | None = None
    noise_w: float | None = None

    @property
    def streamed(self) -> bool:
        """Sent piece by piece (``pcm``/``wav`` unless ``stream`` is false, and always for ``sse``)."""
        return self.stream_format == "sse" or (self.stream and self.response_format in STREAMABLE)


def clean_input(text: str) -> str:
    """The text as meant: HTML entities decoded once, control characters and emoji dropped, spaces kept.

    Letters of every script (CJK included), digits, punctuation and symbols such
    as ``° © % + & #`` stay. Dropped: control and format characters (newlines
    and tabs become spaces), private-use and unassigned code points, pictographic
    symbols from U+2190 up (arrows, dingbats, emoji), emoji modifiers and
    variation selectors.
    """
    kept = []
    for char in html.unescape(text):
        category = unicodedata.category(char)
        if char in "\n\r\t":
            kept.append(" ")
        elif category in ("Cc", "Cf", "Co", "Cs", "Cn") or ord(char) in _VARIATION_SELECTORS:
            continue
        elif (category == "So" and ord(char) >= 0x2190) or (category == "Sk" and 0x1F3FB <= ord(char) <= 0x1F3FF):
            continue
        else:
            kept.append(char)
    return " ".join("".join(kept).split())


def _speakable(text: str) -> bool:
    return any(unicodedata.category(c)[0] in "LN" for c in text)


def parse_speech_request(raw: bytes, max_chars: int) -> SpeechRequest:
    """Parse and check a request body.

    Raises:
        ApiError: 400 for malformed JSON, a missing or empty ``input``, a bad
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
    cleaned = clean_input(text)
    if not _speakable(cleaned):
        raise ApiError(400, "'input' has no speakable text (letters or digits) after cleaning", "input", "empty_input")
    response_format = _choice(body, "response_format", "mp3", tuple(MEDIA_TYPES))
    return SpeechRequest(
        model=_string(body, "model"),
        text=cleaned,
        voice=_string(body, "voice"),
        response_format=response_format,
        speed=_number(body, "speed", *SPEED_RANGE),
        stream_format=_choice(body, "stream_format", "audio", ("audio", "sse")),
        stream=_flag(body, "stream", True),
        noise_scale=_number(body, "noise_scale", 0.0, 10.0),
        noise_w=_number(body, "noise_w", 0.0, 10.0),
    )


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


def _number(body: dict, name: str, low: float, high: float) -> float | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise ApiError(400, f"'{name}' must be a number from {low:g} to {high:g}, got {value!r}", name)
    return float(value)


def _flag(body: dict, name: str, default: bool) -> bool:
    value = body.get(name, default)
    if not isinstance(value, bool):
        raise ApiError(400, f"'{name}' must be true or false", name)
    return value
