"""The studio's settings file: versioned JSON in the user's config folder.

Schema version 2: ``{"version": 2, "voices": [paths of added voices],
"last_voice": path or null, "remote": {"url", "model", "voice",
"response_format"}}`` (the remote server's fields; API keys are never
written). Version 1 files are migrated (no ``remote``); unknown versions give
defaults, and a damaged file is kept beside as ``settings.json.bad``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from engines.files import write_text

VERSION = 2


def settings_path() -> Path:
    """``settings.json`` in the platform's config folder for the studio."""
    import platformdirs

    return platformdirs.user_config_path("voice-studio", appauthor=False) / "settings.json"


@dataclass
class Settings:
    """What the studio remembers between runs."""

    voices: list[str] = field(default_factory=list)
    last_voice: str | None = None
    remote: dict = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path | None = None) -> Settings:
        """Read the settings; defaults when the file is missing or unreadable."""
        path = path or settings_path()
        try:
            raw = migrate(json.loads(path.read_text(encoding="utf-8")))
            if raw.get("version") != VERSION:
                return cls()
            remote = {k: str(v) for k, v in dict(raw.get("remote") or {}).items() if k != "api_key"}
            return cls([str(v) for v in raw.get("voices", [])], raw.get("last_voice"), remote)
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


def migrate(raw: dict) -> dict:
    """Bring an older settings document to ``VERSION`` (1 -> 2 adds an empty ``remote``)."""
    if raw.get("version") == 1:
        raw = {**raw, "version": 2, "remote": {}}
    return raw
