"""Folders and files on disk, for every page: open one in the desktop's file manager (saying where it is when
no file manager answers), and pick a folder to write into that may not exist yet.

:func:`open_location` is the one way the studio opens a folder or file: ``QDesktopServices.openUrl`` answers
False where no program opens it (a server, a bare window manager), and then a message gives the path, which
can be selected and copied (a Copy path button puts it on the clipboard).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QAbstractButton, QDialogButtonBox, QFileDialog, QMessageBox, QWidget

NO_FILE_MANAGER = "no_file_manager"
"""Object name of the message shown when nothing opened the location (tests find it by this name)."""


def open_location(parent: QWidget, path: Path | str) -> bool:
    """Open ``path`` (a folder, or a file) with the desktop's program for it; returns whether one answered.

    Where none does, a non-modal message names ``path`` (selectable, with Copy path) instead of nothing.
    """
    path = Path(path)
    if QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
        return True
    what = "folder" if path.is_dir() else "file"
    box = QMessageBox(QMessageBox.Icon.Information, f"Open {what}", "", QMessageBox.StandardButton.Close, parent)
    box.setObjectName(NO_FILE_MANAGER)
    box.setText(f"No program on this machine opens a {what} (no file manager). The {what} is:\n\n{path}")
    box.setTextInteractionFlags(box.textInteractionFlags() | _selectable())
    copy = box.addButton("Copy path", QMessageBox.ButtonRole.ActionRole)
    copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(str(path)))
    box.setModal(False)
    box.show()
    return False


def _selectable():
    from PySide6.QtCore import Qt

    return Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard


class FolderDialog(QFileDialog):
    """Pick a folder to write into: an existing one, or a new path typed in the name box (Qt's own folder
    picker refuses a folder that does not exist yet, and greys its Choose button while one is typed: here
    Choose stays enabled for a path that can become the folder, :func:`can_be_made`). :meth:`chosen` is exactly
    the folder picked; nothing is added to it and nothing is created here (the job that writes creates it)."""

    def __init__(self, parent: QWidget | None, title: str, start: Path | str) -> None:
        start = Path(start)
        super().__init__(parent, title, str(start if start.is_dir() else start.parent))
        if not start.is_dir():
            self.selectFile(start.name)  # a new folder suggested by name
        self.setOption(QFileDialog.Option.DontUseNativeDialog, True)  # the native one refuses new paths too
        self.setOption(QFileDialog.Option.ShowDirsOnly, True)
        self.setFileMode(QFileDialog.FileMode.Directory)
        self.setLabelText(QFileDialog.DialogLabel.FileName, "Folder:")
        self._chosen: Path | None = None
        self._choose = self._accept_button()
        if self._choose is not None:
            self._choose.installEventFilter(self)  # Qt greys it on every change of the name box: undone here

    def _accept_button(self) -> QAbstractButton | None:
        """The dialog's Choose button (Qt's own, in its button box), or ``None`` in a native dialog."""
        box = self.findChild(QDialogButtonBox, "buttonBox")
        if box is None:
            return None
        return next((b for b in box.buttons() if box.buttonRole(b) == QDialogButtonBox.ButtonRole.AcceptRole), None)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """Qt greyed Choose: enabled again where the name box holds a new folder that can be made."""
        if watched is self._choose and event.type() == QEvent.Type.EnabledChange and not self._choose.isEnabled():
            selected = self.selectedFiles()
            if len(selected) == 1 and can_be_made(Path(selected[0])):
                self._choose.setEnabled(True)
        return super().eventFilter(watched, event)

    def chosen(self) -> Path | None:
        """The folder picked (may not exist yet), or ``None`` before one is."""
        return self._chosen

    def accept(self) -> None:
        """Take the folder in the name box; a path that does not exist yet is taken too (Qt would refuse it)."""
        selected = self.selectedFiles()
        if len(selected) == 1 and can_be_made(Path(selected[0])):
            self._chosen = Path(selected[0])
            self.done(QFileDialog.DialogCode.Accepted)
            return
        self._chosen = Path(selected[0]) if selected else None
        super().accept()


def can_be_made(folder: Path) -> bool:
    """Whether ``folder`` is a new folder a job can make: it does not exist and the folder above it does."""
    return not folder.exists() and folder.parent.is_dir()


def choose_folder(parent: QWidget, title: str, start: Path | str) -> Path | None:
    """Ask for a folder to write into (existing or new, see :class:`FolderDialog`); ``None`` if cancelled."""
    dialog = FolderDialog(parent, title, start)
    return dialog.chosen() if dialog.exec() == QFileDialog.DialogCode.Accepted else None


def with_path(path: Path | str, error: object) -> str:
    """``error`` as a line that names ``path`` once: as it is when its text already names it (most of our errors
    start with the file or folder), else ``"PATH: error"``."""
    text = str(error)
    return text if str(path) in text else f"{path}: {text}"
