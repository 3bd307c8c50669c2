"""Where file dialogs start: never the folder the studio was launched from, never a path Qt reads as a file name.

A dialog given a folder that does not exist opens elsewhere (the launch folder, or ``$HOME``) and puts the
folder's last part in the file name box; these helpers give it a folder that exists: the studio's own folders
(runs, voices) made when missing, the folder a save went to last, else the user's Music, Documents or home.
"""

from __future__ import annotations

from pathlib import Path

_last_saved: dict[str, Path] = {}
"""The folder each kind of save (``"audio"``, ``"csv"``) last went to in this session."""

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


def save_start(name: str, kind: str) -> str:
    """Where a save dialog for ``kind`` files starts: ``name`` (a bare file name, or a path whose folder exists)
    in the folder the last save of that kind went to, else in :func:`user_folder`."""
    given = Path(name)
    if given.is_absolute() and given.parent.is_dir():
        return str(given)
    folder = _last_saved.get(kind)
    if folder is None or not folder.is_dir():
        folder = user_folder(kind)
    return str(folder / given.name)


def saved_to(path: Path | str, kind: str) -> None:
    """Remember that a ``kind`` file was saved at ``path``: the next save dialog of that kind starts there."""
    _last_saved[kind] = Path(path).expanduser().resolve().parent
