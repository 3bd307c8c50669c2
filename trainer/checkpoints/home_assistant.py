"""An exported voice sent to Home Assistant: uploaded to a running wyoming-piper's voice API, or copied into the
data folder wyoming-piper reads (the offline way).

wyoming-piper (2.5, started with ``--web-server``; the Home Assistant add-on runs it behind ingress) takes a voice
at ``POST {url}/api/piper/upload``, multipart fields ``onnx`` (the model, its file name giving the voice's name)
and ``config`` (the ``.onnx.json``), up to 1 GiB; it answers ``{"ok": true, "name", "message"}`` or an HTTP error
with ``{"ok": false, "error"}`` (``wyoming_piper/web_server.py``). It finds a voice in its data folders by file
stem (``download.find_voice``); Home Assistant sees the new voice once the Piper integration is reloaded.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import IO

from engines.errors import VoiceStudioError
from engines.imports import importing
from engines.voice_naming import VoiceNaming

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


def named_config(onnx_path: Path | str, naming: VoiceNaming) -> bytes:
    """The ``.onnx.json`` of the voice ``onnx_path`` as it goes under ``naming`` (a voice on disk sent under a name
    Home Assistant accepts): ``dataset`` = the stem, the ``language`` block and ``audio.quality`` written from
    ``naming``, as an export writes them (``trainer.checkpoints.naming.described``); the rest as it is.

    Raises:
        HomeAssistantError: no pair (kind ``folder``). VoiceError: a config that cannot be read.
    """
    from engines.voice import load_config
    from trainer.checkpoints.naming import described

    model, config_path = voice_pair(onnx_path)
    config = load_config(config_path)
    document = described(dict(config.raw), naming, source=model, config=config, stem=naming.stem)
    return json.dumps(document, ensure_ascii=False, indent=2).encode("utf-8")


def send_voice(onnx_path: Path | str, url: str, naming: VoiceNaming | None = None) -> str:
    """Upload a voice (``NAME.onnx`` + ``NAME.onnx.json``) to the wyoming-piper web server at ``url``; returns the
    voice's name as the server stored it. With ``naming``, it goes as ``naming.stem`` (its config as
    :func:`named_config` writes it; the files on disk stay as they are).

    Raises:
        HomeAssistantError: ``unreachable`` (no server answers at ``url``), ``name rejected`` (the server refuses
            the file name), ``refused`` (any other refusal, with the server's message), ``folder`` (no pair).
    """
    with importing("httpx"):
        import httpx

    model, config = voice_pair(onnx_path)
    stem = naming.stem if naming else model.name.removesuffix(".onnx")
    document = named_config(model, naming) if naming else config.read_bytes()
    base = server_url(url)
    timeout = httpx.Timeout(TRANSFER_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)
    try:
        with model.open("rb") as onnx_file:
            files: dict[str, tuple[str, IO[bytes] | bytes, str]] = {
                "onnx": (f"{stem}.onnx", onnx_file, "application/octet-stream"),
                "config": (f"{stem}.onnx.json", document, "application/json"),
            }
            response = httpx.post(base + UPLOAD_PATH, files=files, timeout=timeout)
    except httpx.HTTPError as exc:
        raise HomeAssistantError("unreachable", f"{base}: no wyoming-piper web server answers ({exc})") from None
    return _answer(response, base, f"{stem}.onnx")


def _answer(response, base: str, sent: str) -> str:
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
        return str(body.get("name") or sent.removesuffix(".onnx"))
    said = str(body.get("error") or response.reason_phrase)  # an HTML error page: its status line says enough
    if response.status_code == 404:
        said = f"{UPLOAD_PATH} not found: is this wyoming-piper 2.5 or later, started with --web-server?"
    if response.status_code == 400 and said.startswith(NAME_REFUSAL):
        raise HomeAssistantError("name rejected", f"{base} rejected the voice name {sent!r}: {said}")
    raise HomeAssistantError("refused", f"{base} refused the voice (HTTP {response.status_code}): {said}")


def copy_voice(onnx_path: Path | str, folder: Path | str, naming: VoiceNaming | None = None) -> Path:
    """Copy a voice (``NAME.onnx`` + ``NAME.onnx.json``) into a wyoming-piper / Home Assistant data folder (the
    add-on's ``/share/piper``, or a ``--data-dir``); returns the copied model. With ``naming``, it is copied as
    ``naming.stem`` (its config as :func:`named_config` writes it). The config is written first and the model
    last, each atomically, as wyoming-piper's upload does: a voice is listed only once whole.

    Raises:
        HomeAssistantError: no pair to copy, or a folder that does not exist or cannot be written (kind
            ``folder``).
    """
    from engines.files import atomic_path

    model, config = voice_pair(onnx_path)
    folder = Path(folder)
    if not folder.is_dir():
        raise HomeAssistantError("folder", f"{folder}: not a folder")
    stem = naming.stem if naming else model.name.removesuffix(".onnx")
    document = named_config(model, naming) if naming else config.read_bytes()
    try:
        with atomic_path(folder / f"{stem}.onnx.json") as tmp:
            Path(tmp).write_bytes(document)
        with atomic_path(folder / f"{stem}.onnx") as tmp:
            shutil.copyfile(model, tmp)
    except OSError as exc:
        raise HomeAssistantError("folder", f"{folder}: cannot copy the voice there ({exc.strerror or exc})") from None
    return folder / f"{stem}.onnx"
