"""Removing an installation: what its manifest lists, and nothing else.

Files and trees are removed; folders the installer created are removed only once empty, deepest first, so a
file someone else put there keeps its folder. Nothing inside the studio's user data or settings folders is
ever removed, and trees must lie inside the app folder, whatever a (possibly edited) manifest says.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from studio_installer.errors import InstallError
from studio_installer.layout import Layout
from studio_installer.manifest import Manifest, load


def protected(path: Path, layout: Layout) -> bool:
    """True for paths the installer must never remove: inside (or around) the user data or settings folders."""
    path = path.resolve()
    for mine in (layout.user_data.resolve(), layout.user_config.resolve()):
        if path == mine or mine in path.parents or path in mine.parents:
            return True
    return False


def remove_listed(manifest: Manifest, layout: Layout, *, keep: Manifest | None = None) -> list[Path]:
    """Remove the files and trees ``manifest`` lists and ``keep`` does not (``keep``: a re-run's new manifest),
    then the folders it created that are left empty; returns the paths removed, in order."""
    kept = set() if keep is None else {*keep.files, *keep.trees, *keep.folders}
    removed: list[Path] = []
    prefix = layout.prefix.resolve()
    for path in map(Path, sorted(set(manifest.files) - kept)):
        if (path.is_file() or path.is_symlink()) and not protected(path, layout):
            path.unlink()
            removed.append(path)
    for path in map(Path, sorted(set(manifest.trees) - kept)):
        if path.is_dir() and prefix in path.resolve().parents and not protected(path, layout):
            shutil.rmtree(path)
            removed.append(path)
    return removed + remove_empty_folders(sorted(set(manifest.folders) - kept), layout)


def remove_empty_folders(folders: list[str], layout: Layout) -> list[Path]:
    """Remove those of ``folders`` that are empty, deepest first (the app folder once its manifest is gone)."""
    removed = []
    for path in sorted(map(Path, folders), key=lambda p: len(p.parts), reverse=True):
        if path.is_dir() and not any(path.iterdir()) and not protected(path, layout):
            path.rmdir()
            removed.append(path)
    return removed


def uninstall(layout: Layout) -> list[Path]:
    """Remove the installation in ``layout.prefix``; returns the paths removed.

    Raises:
        InstallError: there is no manifest there (nothing is removed).
    """
    manifest = load(layout.manifest)
    if manifest is None:
        raise InstallError(f"no Voice Studio installation in {layout.prefix} (no {layout.manifest.name})")
    removed = remove_listed(manifest, layout)
    layout.manifest.unlink()
    return removed + remove_empty_folders(manifest.folders, layout)
