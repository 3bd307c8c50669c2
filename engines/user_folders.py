"""The user's folders for the studio (platformdirs): one place, below everything that keeps files there."""

from __future__ import annotations

from pathlib import Path

from engines.imports import importing

APP_NAME = "voice-studio"
"""The studio's folder name under the platform's data folder (``~/.local/share/voice-studio`` on Linux)."""


def user_data_dir() -> Path:
    """The user's data folder for the studio (voices, datasets, runs, caches)."""
    with importing("platformdirs"):
        import platformdirs

    return platformdirs.user_data_path(APP_NAME, appauthor=False)
