"""The studio's settings file: versioned JSON in the user's config folder.

Schema version 4: ``{"version": 4, "voices": [paths of added voices],
"last_voice": path or null, "engine": "onnx"|"torch"|"remote"|null,
"dataset_project": path or null, "remote": {"url", "model", "voice",
"response_format"}, "text": the Synthesize page's text box or null, "ssml": its SSML box (true, false, or
null: as the text says),
"history": [{"text", "voice", "engine"}, … newest first, at most
HISTORY_KEPT], "save_folders": {kind: folder}, "home_assistant": {"url", "folder"}}`` (the remote server's fields;
API keys are never written; History keeps no audio). ``engine`` and
``dataset_project`` came later within version 2, ``ssml`` within version 3: a file without them reads as
null (the defaults). ``home_assistant``: where Send to Home Assistant sent a voice last (a wyoming-piper URL, a
data folder). Version 1, 2 and 3 files are migrated (:func:`migrate`);
unknown versions give defaults, and a damaged file is kept beside as
``settings.json.bad``.

The studio reads the settings into its models (``studio.state``) at start
(:meth:`Settings.apply`) and writes them from the models (:meth:`Settings.take`);
no widget reads them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from engines.files import write_text
from engines.imports import importing
from engines.remote.settings import RemoteSettings
from studio.speaking import Line
from studio.state import DEFAULT_REMOTE, Found, SaveFolders, SpokenLines, VoiceLibrary, Workspace

VERSION = 4
HISTORY_KEPT = 50
"""History lines the settings keep (the newest): enough to find a line typed days ago, a file of a few kB."""


def settings_path() -> Path:
    """``settings.json`` in the platform's config folder for the studio."""
    with importing("platformdirs"):
        import platformdirs

    return platformdirs.user_config_path("voice-studio", appauthor=False) / "settings.json"


@dataclass
class Settings:
    """What the studio remembers between runs."""

    voices: list[str] = field(default_factory=list)
    last_voice: str | None = None
    remote: dict = field(default_factory=dict)
    engine: str | None = None
    """The Synthesize page's engine kind chosen last (``onnx``, ``torch``, ``remote``)."""
    dataset_project: str | None = None
    """The Dataset page's project folder shown last."""
    text: str | None = None
    """The Synthesize page's text box when the settings were written (``None``: the default line)."""
    ssml: bool | None = None
    """The Synthesize page's SSML box when the settings were written (``None``: as the text says)."""
    history: list[dict] = field(default_factory=list)
    """The newest History lines as ``{"text", "voice", "engine"}`` records, newest first (never their audio)."""
    save_folders: dict[str, str] = field(default_factory=dict)
    """The folder each kind of save went to last (``studio.state.SaveFolders``)."""
    home_assistant: dict[str, str] = field(default_factory=dict)
    """Where Send to Home Assistant went last: ``url`` (a wyoming-piper web server), ``folder`` (a data folder)."""

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        """Read the settings; defaults when the file is missing or unreadable."""
        path = path or settings_path()
        try:
            raw = migrate(json.loads(path.read_text(encoding="utf-8")))
            if raw.get("version") != VERSION:
                return cls()
            remote = {k: str(v) for k, v in dict(raw.get("remote") or {}).items() if k != "api_key"}
            voices = [str(v) for v in raw.get("voices", [])]
            engine, project, text, ssml = (raw.get(k) for k in ("engine", "dataset_project", "text", "ssml"))
            folders = {str(k): str(v) for k, v in dict(raw.get("save_folders") or {}).items()}
            sent = {k: str(v) for k, v in dict(raw.get("home_assistant") or {}).items() if k in ("url", "folder")}
            return cls(
                voices=voices,
                last_voice=raw.get("last_voice"),
                remote=remote,
                engine=engine and str(engine),
                dataset_project=project and str(project),
                text=text if isinstance(text, str) else None,
                ssml=ssml if isinstance(ssml, bool) else None,
                history=history_records(raw.get("history")),
                save_folders=folders,
                home_assistant=sent,
            )
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError, AttributeError):
            path.replace(path.with_name(path.name + ".bad"))
            return cls()

    def save(self, path: Path | None = None) -> None:
        """Write atomically (temp file, then replace)."""
        path = path or settings_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, json.dumps({"version": VERSION, **asdict(self)}, ensure_ascii=False, indent=2))

    def apply(self, library: VoiceLibrary, workspace: Workspace, lines: SpokenLines | None = None) -> Found:
        """Read the settings into the models: the embedded, user and added ``.onnx`` voices into ``library``,
        the remote server's fields into ``workspace.remote``, the dataset project shown last into
        ``workspace.dataset_project`` (when its folder is still there), the folders saved to last into
        ``workspace.save_folders``, and the History of earlier sessions into ``lines`` (lines without audio).

        Returns what the caller still has to do or show: ``checkpoints`` (added ``.ckpt`` voices, to read off
        the GUI thread) and ``errors`` (voice files that could not be read; a remote field that is not valid,
        a ``ValueError`` naming it, while the default remote settings stay; a dataset project folder that is
        gone, a one-line ``ValueError`` naming it, while the default project is shown).
        """
        found = Found(errors=list(library.load(self.voices)))
        workspace.save_folders = SaveFolders(self.save_folders)
        workspace.home_assistant = dict(self.home_assistant)
        if lines is not None:
            lines.add_earlier(earlier_lines(self.history))
        found.checkpoints = [Path(p) for p in self.voices if Path(p).suffix.lower() == ".ckpt"]
        try:
            workspace.remote = remote_settings(self.remote)
        except ValueError as exc:
            found.errors.append(ValueError(f"settings: remote {exc}"))
        if self.dataset_project and Path(self.dataset_project).is_dir():
            workspace.dataset_project = Path(self.dataset_project)
        elif self.dataset_project:
            gone = f"{self.dataset_project}: the dataset project shown last is no longer there; showing the default"
            found.errors.append(ValueError(gone))
        return found

    def take(self, library: VoiceLibrary, workspace: Workspace, lines: SpokenLines | None = None) -> None:
        """Set the fields from the models: the voices the user added, the remote fields (never the key), the
        dataset project shown, the folders saved to last, the newest ``HISTORY_KEPT`` lines of ``lines`` (without
        their audio). ``last_voice``, ``engine``, ``text`` and ``ssml`` are the Synthesize page's: the window sets
        them."""
        self.voices = library.added_paths()
        self.remote = remote_record(workspace.remote)
        self.save_folders = workspace.save_folders.record()
        self.home_assistant = dict(workspace.home_assistant)
        if lines is not None:
            self.history = [line_record(line) for line in lines.lines[:HISTORY_KEPT]]
        project = workspace.dataset_project  # the default folder is not made until used: not kept until then
        self.dataset_project = str(project) if project.is_dir() else None


def remote_settings(record: dict) -> RemoteSettings:
    """The remote settings a settings file's ``remote`` record names (missing fields: ``DEFAULT_REMOTE``'s).

    Raises:
        ValueError: a field is not valid (``url``, ``response_format``), named in the message.
    """

    def value(name: str) -> str:
        return str(record.get(name) or getattr(DEFAULT_REMOTE, name))

    url, model, voice, response_format = (value(name) for name in REMOTE_FIELDS)
    return replace(DEFAULT_REMOTE, url=url, model=model, voice=voice, response_format=response_format)


def remote_record(settings: RemoteSettings) -> dict:
    """What the settings file keeps of remote settings: ``REMOTE_FIELDS`` (never the API key)."""
    return {k: getattr(settings, k) for k in REMOTE_FIELDS}


REMOTE_FIELDS = ("url", "model", "voice", "response_format")


def line_record(line: Line) -> dict:
    """What the settings keep of a History line: its text, voice and engine (never its audio)."""
    return {"text": line.text, "voice": line.voice, "engine": line.engine}


def history_records(raw: object) -> list[dict]:
    """The History records of a settings document's ``history`` (the newest ``HISTORY_KEPT``); an entry that is not
    a record with a text (a file edited by hand) is left out rather than losing the whole file."""
    entries = raw if isinstance(raw, list) else []
    records = [e for e in entries if isinstance(e, dict) and isinstance(e.get("text"), str)]
    return [{k: str(r.get(k) or "") for k in ("text", "voice", "engine")} for r in records[:HISTORY_KEPT]]


def earlier_lines(records: list[dict]) -> list[Line]:
    """History lines of an earlier session from their records: text, voice and engine, no audio
    (``Line.earlier``)."""
    silent = np.zeros(0, np.float32)
    return [Line(r["text"], r["voice"], 0, silent, engine=r["engine"], earlier=True) for r in records]


def migrate(raw: dict) -> dict:
    """Bring an older settings document to ``VERSION``: 1 -> 2 adds an empty ``remote``; 2 -> 3 adds no ``text``,
    an empty ``history`` and no ``save_folders``; 3 -> 4 adds no ``home_assistant``."""
    if raw.get("version") == 1:
        raw = {**raw, "version": 2, "remote": {}}
    if raw.get("version") == 2:
        raw = {**raw, "version": 3, "text": None, "history": [], "save_folders": {}}
    if raw.get("version") == 3:
        raw = {**raw, "version": 4, "home_assistant": {}}
    return raw
