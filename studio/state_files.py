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
"""

from __future__ import annotations

import os
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
