"""OpenAI's ``stream_format: "sse"`` bodies: server-sent events carrying base64 audio, decoded as they arrive.

Events ``speech.audio.delta`` hold base64 audio in the response format (decoded by an inner decoder from
``engines.remote.decode``), ``speech.timestamps`` (a Voice Studio server's, when asked) a sentence's word and
phoneme times, and ``speech.audio.done`` ends the stream; lines are parsed per the WHATWG HTML "Server-sent
events" spec.
"""

from __future__ import annotations

import base64
import json

import numpy as np

from engines.remote.decode import DecodeError

DECIDE_BYTES = 8
"""Bytes of a body read before deciding whether it is an event stream (``retry:`` and a digit is the longest
field name a first line may open with)."""
FIELD_STARTS = (b"data:", b"event:", b"id:", b"retry:", b":", b"\n", b"\r", b"data\n", b"data\r")
"""How an event stream's first line opens: a field (WHATWG HTML, "Server-sent events": data, event, id, retry),
a comment (``:``) or a blank line."""


def _is_event_stream(head: bytes) -> bool:
    """Whether a body that starts with ``head`` is a server-sent event stream (after an optional UTF-8 BOM)."""
    return head.removeprefix(b"\xef\xbb\xbf").startswith(FIELD_STARTS)


class SseAudio:
    """Server-sent events carrying base64 audio deltas, fed to an inner decoder as they complete.

    Events are separated by a blank line (``\\n`` or ``\\r\\n`` line ends; a
    body of bare ``\\r`` line ends is read at ``finish``); ``data:`` lines of
    one event are joined with ``\\n``. ``done`` is set by ``speech.audio.done``;
    ``error`` events raise; ``speech.timestamps`` events are kept in :attr:`timings` (their dicts, seconds).
    """

    def __init__(self, inner) -> None:
        self.inner = inner
        self.done = False
        self.timings: list[dict] = []
        """The ``speech.timestamps`` events received and not yet taken (``SentenceTiming.to_dict``'s shape)."""
        self.events: bool | None = None
        """Whether the body is an event stream: decided from its first bytes; a body that is not (a server
        answering with the audio itself, whatever its label) goes to ``inner`` whole, which finds its format."""
        self._raw = b""
        self._data: list[str] = []

    @property
    def sample_rate(self) -> int | None:
        """The inner decoder's rate."""
        return self.inner.sample_rate

    def feed(self, data: bytes) -> np.ndarray:
        """Samples complete after ``data``.

        Raises:
            DecodeError: an event that is not JSON, or an error event from the server.
        """
        self._raw += data
        if self.events is None:
            if len(self._raw) < DECIDE_BYTES:
                return np.zeros(0, np.float32)
            self.events = _is_event_stream(self._raw)
        if not self.events:
            raw, self._raw = self._raw, b""
            return self.inner.feed(raw)
        cut = self._raw.rfind(b"\n") + 1  # whole lines only: UTF-8 and a split \r\n stay intact
        try:
            text, self._raw = self._raw[:cut].decode("utf-8"), self._raw[cut:]
        except UnicodeDecodeError:
            raise DecodeError("the server's event stream holds bytes that are not UTF-8 text") from None
        out = []
        for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")[:-1]:
            if line == "":
                out.append(self._dispatch())
            elif line.startswith("data:"):
                self._data.append(line[5:].removeprefix(" "))
        return np.concatenate(out) if out else np.zeros(0, np.float32)

    def finish(self) -> np.ndarray:
        """Dispatch a last event without its blank line, then finish the inner decoder."""
        if self.events is None:
            self.events = _is_event_stream(self._raw) or not self._raw
        if not self.events:
            return np.concatenate([self.feed(b""), self.inner.finish()])
        tail = self.feed(b"\n\n") if self._raw or self._data else np.zeros(0, np.float32)
        return np.concatenate([tail, self.inner.finish()])

    def _dispatch(self) -> np.ndarray:
        if not self._data:
            return np.zeros(0, np.float32)
        payload, self._data = "\n".join(self._data), []
        if payload == "[DONE]":
            self.done = True
            return np.zeros(0, np.float32)
        try:
            event = json.loads(payload)
        except json.JSONDecodeError as exc:
            raise DecodeError(f"a server-sent event is not JSON: {payload[:80]!r}") from exc
        kind = event.get("type", "")
        if kind == "speech.audio.delta":
            return self.inner.feed(base64.b64decode(event.get("audio", "")))
        if kind == "speech.audio.done":
            self.done = True
        elif kind == "speech.timestamps":
            self.timings.append(event)
        elif kind == "error" or "error" in event:
            error = event.get("error", event)
            raise DecodeError(
                f"the server reported: {error.get('message', error) if isinstance(error, dict) else error}"
            )
        return np.zeros(0, np.float32)
