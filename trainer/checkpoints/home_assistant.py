"""An exported voice sent to Home Assistant: uploaded to a running wyoming-piper's voice API, or copied into the
data folder wyoming-piper reads (the offline way).

wyoming-piper (2.5, started with ``--web-server``; the Home Assistant add-on runs it behind ingress) takes a voice
at ``POST {url}/api/piper/upload``, multipart fields ``onnx`` (the model, its file name giving the voice's name)
and ``config`` (the ``.onnx.json``), up to 1 GiB; it answers ``{"ok": true, "name", "message"}`` or an HTTP error
with ``{"ok": false, "error"}`` (``wyoming_piper/web_server.py``). It finds a voice in its data folders by file
stem (``download.find_voice``); Home Assistant sees the new voice once the Piper integration is reloaded.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from engines.errors import VoiceStudioError
from engines.imports import importing

UPLOAD_PATH = "/api/piper/upload"
"""wyoming-piper's voice upload endpoint (``web_server.piper_upload``)."""
VOICES_PATH = "/api/piper/voices"
"""wyoming-piper's list of the voices in its folders (``web_server.piper_voices``)."""
NAME_REFUSAL = "Invalid voice name"
"""How wyoming-piper's refusal of a file name begins (``web_server.piper_upload``)."""
CONNECT_TIMEOUT_S = 10.0
TRANSFER_TIMEOUT_S = 600.0
"""Seconds to connect, and to send a voice and hear back (a high voice is about 110 MB)."""
RELOAD_REMINDER = (
    "Reload the Piper integration in Home Assistant (Settings > Devices & services > Piper > Reload) to see the "
    "new voice."
)


class HomeAssistantError(VoiceStudioError, RuntimeError):
    """A voice could not be sent or copied to Home Assistant; ``kind`` says why: ``unreachable``, ``refused``
    (the server's own message), ``name rejected``, or ``folder``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def server_url(url: str) -> str:
    """``url`` as the base of wyoming-piper's web server: ``http://`` added where no scheme is given, no trailing
    ``/``, and the upload API's own path left out where it was pasted with it (``homeassistant.local:5000`` and
    ``http://homeassistant.local:5000/api/piper/upload`` -> ``http://homeassistant.local:5000``).

    Raises:
        HomeAssistantError: an empty URL (kind ``unreachable``).
    """
    url = url.strip().rstrip("/").removesuffix(UPLOAD_PATH).rstrip("/")
    if not url:
        raise HomeAssistantError("unreachable", "no wyoming-piper URL given (such as http://homeassistant.local:5000)")
    return url if "://" in url else f"http://{url}"


def voice_pair(onnx_path: Path | str) -> tuple[Path, Path]:
    """``NAME.onnx`` and its ``NAME.onnx.json``, both present.

    Raises:
        HomeAssistantError: either is missing (kind ``folder``).
    """
    onnx_path = Path(onnx_path)
    config = onnx_path.with_name(onnx_path.name + ".json")
    for path in (onnx_path, config):
        if not path.is_file():
            raise HomeAssistantError("folder", f"{path}: not found; export the voice first")
    return onnx_path, config


def send_voice(onnx_path: Path | str, url: str) -> str:
    """Upload a voice (``NAME.onnx`` + ``NAME.onnx.json``) to the wyoming-piper web server at ``url``; returns the
    voice's name as the server stored it.

    Raises:
        HomeAssistantError: ``unreachable`` (no server answers at ``url``), ``name rejected`` (the server refuses
            the file name), ``refused`` (any other refusal, with the server's message), ``folder`` (no pair).
    """
    with importing("httpx"):
        import httpx

    model, config = voice_pair(onnx_path)
    base = server_url(url)
    timeout = httpx.Timeout(TRANSFER_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)
    try:
        with model.open("rb") as onnx_file, config.open("rb") as config_file:
            files = {
                "onnx": (model.name, onnx_file, "application/octet-stream"),
                "config": (config.name, config_file, "application/json"),
            }
            response = httpx.post(base + UPLOAD_PATH, files=files, timeout=timeout)
    except httpx.HTTPError as exc:
        raise HomeAssistantError("unreachable", f"{base}: no wyoming-piper web server answers ({exc})") from None
    return _answer(response, base, model)


def _answer(response, base: str, model: Path) -> str:
    """The stored name from wyoming-piper's answer to an upload.

    Raises:
        HomeAssistantError: the answer is a refusal (``name rejected`` where the server says the name is invalid).
    """
    try:
        body = response.json()
    except ValueError:
        body = {}
    body = body if isinstance(body, dict) else {}
    if response.status_code == 200 and body.get("ok"):
        return str(body.get("name") or model.name.removesuffix(".onnx"))
    said = str(body.get("error") or response.reason_phrase)  # an HTML error page: its status line says enough
    if response.status_code == 404:
        said = f"{UPLOAD_PATH} not found: is this wyoming-piper 2.5 or later, started with --web-server?"
    if response.status_code == 400 and said.startswith(NAME_REFUSAL):
        raise HomeAssistantError("name rejected", f"{base} rejected the voice name {model.name!r}: {said}")
    raise HomeAssistantError("refused", f"{base} refused the voice (HTTP {response.status_code}): {said}")


def copy_voice(onnx_path: Path | str, folder: Path | str) -> Path:
    """Copy a voice (``NAME.onnx`` + ``NAME.onnx.json``) into a wyoming-piper / Home Assistant data folder (the
    add-on's ``/share/piper``, or a ``--data-dir``); returns the copied model. The config is copied first and the
    model last, each atomically, as wyoming-piper's upload does: a voice is listed only once whole.

    Raises:
        HomeAssistantError: no pair to copy, or a folder that does not exist or cannot be written (kind
            ``folder``).
    """
    from engines.files import atomic_path

    model, config = voice_pair(onnx_path)
    folder = Path(folder)
    if not folder.is_dir():
        raise HomeAssistantError("folder", f"{folder}: not a folder")
    try:
        for source in (config, model):
            with atomic_path(folder / source.name) as tmp:
                shutil.copyfile(source, tmp)
    except OSError as exc:
        raise HomeAssistantError("folder", f"{folder}: cannot copy the voice there ({exc.strerror or exc})") from None
    return folder / model.name
