"""HTTP for the remote engine: a server's error in its own words, transport failures in ours, a ``pcm``
body's rate, the wait between attempts, and the socket shut down on cancel (httpx responses)."""

from __future__ import annotations

import json
import re
import socket
import threading

from engines.imports import importing
from engines.remote.settings import RemoteSettings


def error_message(response) -> str:
    """The server's own words from an error response (:func:`server_words` of its text), or its reason phrase."""
    return server_words(response.text) or response.reason_phrase


def server_words(text: str) -> str:
    """The words of a server's text answer, at most 300 characters: OpenAI's ``{"error": {"message"}}``,
    FastAPI's ``{"detail"}``, another JSON value as it is, an HTML page's text without its tags, or the text."""
    try:
        body = json.loads(text)
    except ValueError:
        return " ".join(re.sub(r"<[/!?A-Za-z][^>]*>", " ", text).split())[:300]
    error = body.get("error", body.get("detail", body)) if isinstance(body, dict) else body
    if isinstance(error, dict):
        error = error.get("message", error)
    return str(error)[:300]


def pcm_rate(headers, default: int) -> int:
    """A ``pcm`` body's rate: ``X-Sample-Rate``, else a ``rate=`` content-type parameter, else ``default``."""
    if headers.get("x-sample-rate", "").isdigit():
        return int(headers["x-sample-rate"])
    found = re.search(r"rate=(\d+)", headers.get("content-type", ""))
    return int(found.group(1)) if found else default


def backoff(attempt: int, retry_after: str | None, cancel: threading.Event) -> None:
    """Wait before the next attempt: ``Retry-After`` (at most 5 s) or 0.25 s doubled each time."""
    delay = 0.25 * 2**attempt
    if retry_after and retry_after.strip().isdigit():
        delay = min(5.0, float(retry_after))
    cancel.wait(delay)


def shutdown_on_cancel(response, cancel: threading.Event, done: threading.Event) -> None:
    """Shut the response's socket down as soon as ``cancel`` is set, waking a blocked read."""
    while not cancel.wait(0.02):
        if done.is_set():
            return
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def transport_message(exc, url: str, settings: RemoteSettings) -> str:
    """What went wrong with the connection to ``url`` (an ``httpx.HTTPError``), in words: no connection within
    the connect timeout, cannot connect, nothing sent within the timeout, or the error's type and text."""
    with importing("httpx"):
        import httpx

    if isinstance(exc, httpx.ConnectTimeout):
        return f"{url}: no connection within {settings.connect_timeout_s:g} s (is the server running?)"
    if isinstance(exc, httpx.ConnectError):
        return f"{url}: cannot connect ({exc}); is the server running and the address right?"
    if isinstance(exc, httpx.TimeoutException):
        return f"{url}: the server sent nothing for {settings.timeout_s:g} s"
    return f"{url}: {type(exc).__name__}: {exc}"
