"""What a page changed in a dataset folder, said once to every page that shows one (no Qt).

The files are the one source of truth: a project's manifest and clips, its training cache and the pointer to
it (``trainer.data.preprocess.status``). Pages draw from them and keep no copy that a change elsewhere could
leave stale: a page that changes them (a job of the Dataset page, the Train page's Resample) announces it here,
and each page showing one of the folders named reads it again (the Dataset page: table, report, cache line) or
drops what it worked out from it (the Train page: its check's findings and the status line saying them).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from studio.state_events import Event


@dataclass(frozen=True, kw_only=True)
class DatasetChange:
    """``what`` changed the dataset ``folders`` (a project, and a training cache where one was written), in words
    for a status line, e.g. ``resampled to 22,050 Hz on the Train page``."""

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


class DatasetEvents:
    """``changed(DatasetChange)``: a page changed the files of dataset folders."""

    def __init__(self) -> None:
        self.changed: Event[DatasetChange] = Event()


class DatasetChanges:
    """The channel through which pages say what they changed in dataset folders (held by ``Workspace``)."""

    def __init__(self) -> None:
        self.events = DatasetEvents()

    def announce(self, *folders: Path | str, what: str) -> DatasetChange:
        """Tell every listener that ``what`` changed ``folders``; returns the change announced."""
        change = DatasetChange(folders=tuple(Path(f) for f in folders), what=what)
        self.events.changed.emit(change)
        return change
