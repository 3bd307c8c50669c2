"""Where file dialogs start: never the folder the studio was launched from, never a path Qt reads as a file name;
and the file name a save dialog proposes.

A dialog given a folder that does not exist opens elsewhere (the launch folder, or ``$HOME``) and puts the
folder's last part in the file name box; these helpers give it a folder that exists: the studio's own folders
(runs, voices) made when missing, the folder a save of that kind went to last (``studio.state.SaveFolders``, kept
across restarts), else the user's Music, Documents or home. A save proposes a short name of safe characters from
what it saves (:func:`proposed_name`: ``joe-hello-there.wav``).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from engines.names import short_name
from studio.state import SaveFolders

USER_FOLDERS = {"audio": ("Music", "Documents"), "csv": ("Documents",), "text": ("Documents",)}
"""Folders under home a dialog starts in, by kind of file, before home itself."""


def user_folder(kind: str = "text") -> Path:
    """The user's folder for ``kind`` files (``~/Music`` for audio, ``~/Documents``…) where it exists, else home."""
    home = Path.home()
    return next((home / n for n in USER_FOLDERS.get(kind, ()) if (home / n).is_dir()), home)


def app_folder(path: Path | str) -> str:
    """``path``, one of the studio's own folders (runs, voices), made if missing so a dialog can start in it;
    where it cannot be made, the nearest folder above it that exists."""
    folder = Path(path).expanduser()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        folder = next((p for p in folder.parents if p.is_dir()), Path.home())
    return str(folder)


def existing_folder(path: Path | str | None, kind: str = "text") -> str:
    """``path`` when it names an existing folder (a file: its folder), else :func:`user_folder` for ``kind``."""
    if path:
        folder = Path(path).expanduser()
        folder = folder if folder.is_dir() else folder.parent
        if str(path).strip() and folder.is_dir() and folder != Path("."):
            return str(folder.resolve())
    return str(user_folder(kind))


def save_start(name: str, kind: str, folders: SaveFolders, near: Path | None = None) -> str:
    """Where a save dialog for ``kind`` files starts: the file ``name`` in the folder the last save of that kind
    went to (``folders``), else in ``near`` (where it exists: e.g. the project saved from), else in
    :func:`user_folder`."""
    folder = folders.folder(kind) or (near if near is not None and near.is_dir() else None) or user_folder(kind)
    return str(folder / Path(name).name)


NAME_MOST = 40
"""Characters at most in a proposed file name before its extension (cut at a word)."""


def proposed_name(subject: str, text: str, *, suffix: str, fallback: str = "line") -> str:
    """A file name for a save dialog: ``subject`` (a voice: Piper's short name, ``joe``) and the first words of
    ``text``, as lower-case ASCII letters and digits joined by hyphens (accents dropped, other characters and path
    parts gone), cut at a word within :data:`NAME_MOST` characters, then ``suffix``; ``fallback`` when nothing is
    left: ``proposed_name("en_US-joe-medium", "Hello there!", suffix=".wav") == "joe-hello-there.wav"``."""
    words = _words(short_name(subject)) + _words(text)
    stem = words[0][:NAME_MOST] if words else fallback
    for word in words[1:]:
        if len(stem) + 1 + len(word) > NAME_MOST:
            break
        stem = f"{stem}-{word}"
    return stem + suffix


def _words(text: str) -> list[str]:
    """``text``'s words in lower-case ASCII letters and digits (``"Ça va?"`` -> ``["ca", "va"]``)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.findall(r"[a-z0-9]+", ascii_text.lower())
