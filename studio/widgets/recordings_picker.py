"""Choosing what to add to a dataset: recordings, archives, metadata.csv files or a folder, in one dialog.

:class:`RecordingsPicker` is Qt's own (non-native) file dialog in ``ExistingFiles`` mode with a button that
takes the folder shown, and Open taking a selected folder too. :class:`StartFolders` says where every
dialog of the Dataset page opens: the folder the user picked last for this project, else the project's folder.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QDialogButtonBox, QFileDialog, QPushButton, QWidget

from trainer.dataset.archives import ARCHIVE_SUFFIXES
from trainer.dataset.metadata import AUDIO_SUFFIXES

KINDS = f"Recordings, archives, metadata.csv ({' '.join(f'*{s}' for s in (*AUDIO_SUFFIXES, *ARCHIVE_SUFFIXES))} *.csv)"
"""The name filter: what ``trainer.dataset.sources.scan`` reads."""


class RecordingsPicker(QFileDialog):
    """Pick files (recordings, archives, metadata.csv) or a folder; :meth:`chosen` returns them after ``exec()``."""

    def __init__(self, parent: QWidget | None, start: Path) -> None:
        super().__init__(parent, "Add recordings: files, archives, metadata.csv or a folder", str(start))
        self.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        self.setFileMode(QFileDialog.FileMode.ExistingFiles)
        self.setNameFilters([KINDS, "All files (*)"])
        self._chosen: list[Path] = []
        self.folder_button = QPushButton("Add this folder")
        self.folder_button.setToolTip("Add every recording in the folder shown (LJSpeech: the folder holding wavs/)")
        self.folder_button.clicked.connect(self.choose_folder)
        box = self.findChild(QDialogButtonBox)
        if box is not None:
            box.addButton(self.folder_button, QDialogButtonBox.ButtonRole.ActionRole)

    def choose_folder(self) -> None:
        """Take the folder shown and close."""
        self._chosen = [Path(self.directory().absolutePath())]
        self.done(QFileDialog.DialogCode.Accepted)

    def accept(self) -> None:
        """Open: the selected files, or a selected folder (Qt would step into it)."""
        picked = [Path(p) for p in self.selectedFiles()]
        if picked and all(p.is_dir() for p in picked):
            self._chosen = picked
            self.done(QFileDialog.DialogCode.Accepted)
            return
        self._chosen = picked
        super().accept()

    def chosen(self) -> list[Path]:
        """What was picked (empty when the dialog was cancelled)."""
        return self._chosen if self.result() == QFileDialog.DialogCode.Accepted else []


class StartFolders:
    """Where the Dataset page's dialogs open: the folder picked last in this project, else the project's folder
    (its nearest existing parent while it does not exist yet). Opening another project forgets the last pick.

    Dialogs that choose recordings (Add recordings…, Slice long recording…) open where recordings were picked last
    (kept when another project is opened), else in the user's Music or Documents folder or home: recordings live
    there, never in the project's own folder (a newcomer's first Add opened inside the new project)."""

    def __init__(self) -> None:
        self._last: Path | None = None
        self._recordings: Path | None = None

    def recordings(self) -> Path:
        """The folder a dialog choosing recordings opens in now."""
        from studio.widgets.start_folders import user_folder

        folder = self._recordings
        while folder is not None and not folder.is_dir() and folder != folder.parent:
            folder = folder.parent
        return folder if folder is not None and folder.is_dir() else user_folder("audio")

    def picked_recordings(self, path: Path) -> None:
        """The user picked recordings at ``path`` (a file: its folder is remembered)."""
        self._recordings = path if path.is_dir() else path.parent

    def start(self, project_dir: Path) -> Path:
        """The folder a dialog opens in now."""
        folder = self._last or Path(project_dir)
        while not folder.is_dir() and folder != folder.parent:
            folder = folder.parent
        return folder

    def picked(self, path: Path) -> None:
        """The user picked ``path`` (a file: its folder is remembered)."""
        self._last = path if path.is_dir() else path.parent

    def forget(self) -> None:
        """Another project is shown: its folder is where dialogs open."""
        self._last = None
