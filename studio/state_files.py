"""What a page changed on disk, said once to every page that shows it (no Qt): dataset folders and run folders.

The files are the one source of truth: a project's manifest and clips, its training cache and the pointer to
it (``trainer.data.preprocess.status``), a run's events and ranked checkpoints. Pages draw from them and keep no
copy that a change elsewhere could leave stale: a page that changes them announces it on one of the
``Workspace``'s two channels, and each page showing one of the folders named reads it again or drops what it
worked out from it.

- ``Workspace.datasets``: the Dataset page's jobs (import, slicing, fixes, edits, the training cache it writes,
  the Piper folder it exports) and the Train page's Resample. The Dataset page then reads its project again
  (table, report, cache line); the Train page drops its check's findings and the status line saying them.
- ``Workspace.runs``: the Train page, as a run it shows (its own trainer's, or one trained elsewhere and
  followed) ends an epoch, ranks a checkpoint or ends. The Compare page then lists the run's new checkpoints
  and redraws its curves.

Changes made outside the studio (``voice-studio dataset fix`` in a terminal) are found by :class:`OutsideWatch`
within a few seconds, and announced on the same channel as :data:`OUTSIDE`'s.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from studio.state_events import Event


@dataclass(frozen=True, kw_only=True)
class FolderChange:
    """``what`` changed the files of ``folders`` (a project and a training cache it wrote; a run), in words for a
    status line, e.g. ``resampling to 22,050 Hz on the Train page``."""

    folders: tuple[Path, ...]
    what: str

    def concerns(self, folder: Path | str) -> bool:
        """Whether ``folder`` (as typed: a trailing slash, ``..``, a link) is one of the folders changed."""
        if not str(folder).strip():
            return False
        key = _key(Path(str(folder).strip()))
        return any(_key(changed) == key for changed in self.folders)


def _key(folder: Path) -> str:
    """``folder`` as one spelling: absolute, links and ``..`` resolved, the platform's case rule."""
    return os.path.normcase(str(folder.expanduser().resolve()))


class FolderEvents:
    """``changed(FolderChange)``: a page changed the files of some folders."""

    def __init__(self) -> None:
        self.changed: Event[FolderChange] = Event()


class FolderChanges:
    """One channel through which pages say what they changed in folders of one kind (held by ``Workspace``)."""

    def __init__(self) -> None:
        self.events = FolderEvents()

    def announce(self, *folders: Path | str, what: str) -> FolderChange:
        """Tell every listener that ``what`` changed ``folders``; returns the change announced."""
        change = FolderChange(folders=tuple(Path(f) for f in folders), what=what)
        self.events.changed.emit(change)
        return change


OUTSIDE = "something outside the studio"
"""Who changed a folder whose files changed without a page saying so (a command in a terminal)."""

Stamp = tuple[tuple[str, int, int], ...]


def folder_stamp(folder: Path) -> Stamp | None:
    """What a change of ``folder``'s files changes: ``(name, mtime ns, size)`` of each entry directly in it (a
    project's manifest and its subfolders, a Piper folder's metadata.csv and wavs/); None when it is not a folder.

    A subfolder's own time changes whenever a file in it is made, removed or replaced, and the studio and the CLI
    write every file by replacing it (``engines.files.atomic_path``), so its entries need no look of their own:
    a look costs a few stat calls however many clips there are (it runs on the GUI thread every few seconds).
    """
    if not folder.is_dir():
        return None
    entries = []
    for entry in os.scandir(folder):
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:  # gone between the listing and the look
            continue
        entries.append((entry.name, info.st_mtime_ns, info.st_size))
    return tuple(sorted(entries))


class OutsideWatch:
    """Finds the shown folders whose files changed without a page saying so (``voice-studio dataset fix`` in a
    terminal) and announces them on ``channel`` as changed by :data:`OUTSIDE`, so every page showing one reads it
    again, as for a change a page made. No Qt: the main window calls :meth:`look` every few seconds, when the
    studio is the active application again and when another page is shown.

    The studio's own changes are not taken for outside ones: a change announced on ``channel`` is noted as the
    folder's state (the page that made it said so), and nothing is announced while ``busy()`` (a job of the
    studio's still writing the folders announces its change when it ends); what it wrote meanwhile is noted.

    Args:
        channel: the ``Workspace``'s channel for the folders' kind (``datasets``).
        shown: the folders pages show now (the Dataset page's project, the Train page's dataset).
        busy: whether a job of the studio's is writing dataset folders now.
    """

    def __init__(
        self, channel: FolderChanges, shown: Callable[[], list[Path]], busy: Callable[[], bool] = lambda: False
    ) -> None:
        self.channel, self.shown, self.busy = channel, shown, busy
        self._stamps: dict[str, Stamp | None] = {}
        """What each folder seen so far held when last looked at (or announced)."""
        self._announcing = False
        channel.events.changed.connect(self._on_changed)

    def look(self) -> FolderChange | None:
        """Announce the shown folders whose files changed since they were last looked at (a folder seen for the
        first time is only noted); returns the change announced, or None."""
        changed = []
        for folder in self._folders():
            key, stamp = _key(folder), folder_stamp(folder)
            if key in self._stamps and stamp != self._stamps[key]:
                changed.append(folder)
            self._stamps[key] = stamp
        if not changed or self.busy():
            return None
        self._announcing = True
        try:
            return self.channel.announce(*changed, what=OUTSIDE)
        finally:
            self._announcing = False

    def _on_changed(self, change: FolderChange) -> None:
        """A page announced its own change: what the folder holds now is not news."""
        if self._announcing:
            return
        for folder in change.folders:
            if _key(folder) in self._stamps:
                self._stamps[_key(folder)] = folder_stamp(folder)

    def _folders(self) -> list[Path]:
        """The shown folders, each once (two pages may show the same one)."""
        unique = {_key(Path(str(f).strip())): Path(str(f).strip()) for f in self.shown() if str(f).strip()}
        return list(unique.values())
