"""The manifest: everything one installation added, so a re-run upgrades in place and uninstall removes just that.

Written as JSON (``install-manifest.json`` in the app folder), schema version 1::

    {"schema": 1, "prefix": ..., "source": ..., "extras": [...], "torch": {...},
     "files": [...], "trees": [...], "folders": [...]}

``files`` are single files the installer wrote (launchers, icons, shortcuts); ``trees`` are folders it made
whole (the environment, compiler caches), removed with all they hold; ``folders`` are folders it had to create
on the way (``~/.local/bin``, the app folder), removed at uninstall only once empty. Lists are sorted, and the
file holds no times, so installing twice in a row writes the same manifest.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from studio_installer.errors import InstallError

SCHEMA = 1


@dataclass(kw_only=True)
class Manifest:
    """What one installation added (see the module docstring); paths are absolute strings."""

    prefix: str
    source: str = ""
    extras: list[str] = field(default_factory=list)
    torch: dict[str, str | None] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    trees: list[str] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)
    schema: int = SCHEMA

    def owns(self, path: Path) -> bool:
        """True when ``path`` is a file or tree this installation added."""
        return str(path) in self.files or str(path) in self.trees


def load(path: Path) -> Manifest | None:
    """The manifest at ``path``, or None when there is none.

    Raises:
        InstallError: the file is not a manifest this installer can read (damaged, or a newer schema).
    """
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("schema") != SCHEMA:
            raise InstallError(f"{path}: manifest schema {data.get('schema')}, this installer reads {SCHEMA}")
        return Manifest(**data)
    except (ValueError, TypeError, AttributeError) as exc:
        raise InstallError(f"{path}: not a readable install manifest ({exc})") from None


def save(manifest: Manifest, path: Path) -> None:
    """Write ``manifest`` to ``path`` atomically, its lists sorted and without duplicates."""
    for name in ("files", "trees", "folders"):
        setattr(manifest, name, sorted(set(getattr(manifest, name))))
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(asdict(manifest), indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)


class Recorder:
    """Writes the installation's files and records each in ``manifest``; knows the previous run's manifest so
    a re-run overwrites what it owns and never what it does not."""

    def __init__(self, manifest: Manifest, previous: Manifest | None) -> None:
        self.manifest = manifest
        self.previous = previous
        self.skipped: list[Path] = []

    def make_dirs(self, folder: Path) -> None:
        """Create ``folder`` and its missing parents, recording each one created (or created by an earlier run)."""
        missing = [p for p in (folder, *folder.parents) if not p.exists()]
        folder.mkdir(parents=True, exist_ok=True)
        self.manifest.folders += [str(p) for p in missing]
        if self.previous:
            self.manifest.folders += [p for p in self.previous.folders if Path(p) in (folder, *folder.parents)]

    def claim(self, path: Path) -> bool:
        """Record ``path`` as this installation's file, to be written next, and create its folder; False (and
        ``path`` listed in ``skipped``) when a file not of ours is there, which is then left alone."""
        if path.exists() and not (self.previous and self.previous.owns(path)) and not self.manifest.owns(path):
            self.skipped.append(path)
            return False
        self.make_dirs(path.parent)
        self.manifest.files.append(str(path))
        return True

    def write(self, path: Path, content: str | bytes, *, executable: bool = False) -> bool:
        """Write ``path`` if :meth:`claim` allows; returns whether it was written."""
        if not self.claim(path):
            return False
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        if executable:
            path.chmod(0o755)
        return True

    def tree(self, folder: Path) -> None:
        """Record ``folder`` as made whole by the installer (created if missing)."""
        self.make_dirs(folder)
        self.manifest.trees.append(str(folder))
