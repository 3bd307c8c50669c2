"""What a remote engine asks, and where: :class:`RemoteSettings`, the formats it decodes, the endpoint URLs.

Field names and their meaning follow OpenAI's "Create speech" API (``POST /v1/audio/speech``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

RESPONSE_FORMATS = ("pcm", "wav", "flac", "mp3", "opus")
"""Formats this client decodes (``pcm`` and ``wav`` play as they stream)."""
OPENAI_PCM_RATE = 24000
"""OpenAI's ``pcm`` is 24 kHz s16le mono (its API reference); other servers say their rate in a header."""


@dataclass
class RemoteSettings:
    """Where and what to ask.

    Attributes:
        url: the server's base URL, with or without the ``/v1`` suffix.
        api_key: sent as ``Authorization: Bearer``; ``None`` sends none.
        model, voice: OpenAI's fields; for a Voice Studio server the model is a
            voice name and the voice a speaker (``default`` for one speaker).
        response_format: one of ``RESPONSE_FORMATS``.
        speed: OpenAI's 0.25-4.0 speed; ``None`` derives it from ``length_scale`` (1 / length_scale).
        stream_format: ``"sse"`` for base64 audio deltas in server-sent events; ``None`` for a plain audio body.
        sample_rate: Hz of ``pcm`` bodies when the server's headers do not say.
        piper_params: also send ``noise_scale``, ``noise_w``, ``length_scale``, ``sentence_silence`` and ``sample_rate:
            "native"`` (Voice Studio servers read them; OpenAI's API rejects unknown fields).
        timeout_s: seconds without a byte before giving up; connect_timeout_s for the connection.
        retries: further attempts after a connection error or a busy answer.
    """

    url: str
    api_key: str | None = None
    model: str = "tts-1"
    voice: str = "alloy"
    response_format: str = "pcm"
    speed: float | None = None
    stream_format: str | None = None
    sample_rate: int = OPENAI_PCM_RATE
    piper_params: bool = False
    timeout_s: float = 60.0
    connect_timeout_s: float = 5.0
    retries: int = 2
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not re.match(r"^https?://[^/\s]+", self.url or ""):
            raise ValueError(f"url: '{self.url}' is not an http:// or https:// address")
        if self.response_format not in RESPONSE_FORMATS:
            raise ValueError(f"response_format '{self.response_format}': use one of {', '.join(RESPONSE_FORMATS)}")
        if self.stream_format not in (None, "audio", "sse"):
            raise ValueError(f"stream_format '{self.stream_format}': use 'sse' or leave it unset")


def endpoint(base_url: str, path: str) -> str:
    """``{base}/v1/{path}`` whether or not ``base_url`` already ends in ``/v1``."""
    base = base_url.rstrip("/")
    return f"{base}/{path}" if base.endswith("/v1") else f"{base}/v1/{path}"
