"""The Listen tab's line picker: the run previews' lines, held-out clips (with recordings), typed text, a file.

``trainer.evaluate.lines`` is imported inside the actions and the lines are read on a worker thread
(the previews' module loads torch; a run's held-out clips read its cache), so the page never waits.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engines.errors import VoiceStudioError
from engines.words import count
from studio.pages.compare_sources import reason
from studio.state import Workspace
from studio.widgets.start_folders import app_folder, existing_folder
from studio.workers import Task, TaskSlot

SOURCES = {
    "previews": "Run preview lines",
    "held_out": "Held-out clips of a run or dataset…",
    "typed": "Typed text",
    "file": "Lines file…",
}
"""The line sources, by key, as the picker shows them."""


class LinesBox(QGroupBox):
    """Where the lines come from: the run previews' lines, held-out clips (with recordings), typed text, a file.

    Signals:
        lines_chosen(list): the lines of a source just chosen (``trainer.evaluate.lines.Line``).
        message(str): a readable line about what failed.
    """

    lines_chosen = Signal(list)
    message = Signal(str)

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__("Lines", parent)
        self.workspace = workspace
        self.source = QComboBox()
        for key, text in SOURCES.items():
            self.source.addItem(text, key)
        self.source.activated.connect(self._on_source)
        self.choose = QPushButton("Choose…")
        self.choose.clicked.connect(lambda: self._on_source(self.source.currentIndex()))
        self.text = QPlainTextEdit()
        self.text.setPlaceholderText("One line to render per line of text")
        self.text.setMaximumHeight(80)
        self.text.setVisible(False)
        self.text.textChanged.connect(self._typed_changed)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.slot = TaskSlot()
        self._source, self._loading = "previews", "previews"
        row = QHBoxLayout()
        row.addWidget(self.source, 1)
        row.addWidget(self.choose)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.text)
        layout.addWidget(self.summary)

    def source_key(self) -> str:
        return str(self.source.currentData())

    def typed(self) -> list:
        """The typed text's lines (``trainer.evaluate.lines.typed_lines``); raises ``LinesError`` when empty."""
        from trainer.evaluate.lines import typed_lines

        return typed_lines(self.text.toPlainText())

    def load_previews(self) -> Task:
        """Choose the run previews' lines (read off the GUI thread: their module loads torch)."""
        from trainer.evaluate.lines import preview_lines

        return self._load("previews", preview_lines, "the run previews' lines")

    def load_held_out(self, folder: Path) -> Task:
        """Choose the held-out clips of a run folder or dataset project (their recordings are the references)."""
        from trainer.evaluate.lines import held_out_lines

        return self._load("held_out", lambda: held_out_lines(Path(folder)), f"held-out clips of {Path(folder).name}")

    def load_file(self, path: Path) -> Task:
        """Choose the lines of a text file or an LJSpeech ``metadata.csv``."""
        from trainer.evaluate.lines import read_lines_file

        return self._load("file", lambda: read_lines_file(Path(path)), Path(path).name)

    def _load(self, source: str, read: Callable[[], list], what: str) -> Task:
        """Read lines on a worker thread; ``lines_chosen`` once read, ``message`` if not."""
        self._loading = source
        self._set_source(source)
        self.summary.setText(f"Reading {what}…")
        task = Task(lambda _state: read(), self)
        task.done.connect(lambda lines: self._chosen(lines, what))
        task.failed.connect(lambda exc: self._failed(f"Cannot read {what}: {reason(exc)}"))
        return self.slot.start(task)

    def _failed(self, text: str) -> None:
        self.summary.setText(text)
        self.message.emit(text)

    def _chosen(self, lines: list, what: str) -> None:
        if not lines:
            self._failed(f"No line to speak in {what}")
            return
        with_reference = sum(line.reference is not None for line in lines)
        extra = f", {with_reference} with a recording" if with_reference else ""
        self.summary.setText(f"{count(len(lines), 'line')}: {what}{extra}")
        self.lines_chosen.emit(lines)

    def choose_typed(self, text: str | None = None) -> None:
        """Take the typed text as the source: its lines are chosen now and again as it is edited (none while it is
        empty); ``text`` replaces what is typed."""
        self._set_source("typed")
        if text is not None:
            self.text.setPlainText(text)  # chooses its lines (textChanged)
            self.text.moveCursor(QTextCursor.MoveOperation.End)
        else:
            self._typed_changed()
        self.text.setFocus()

    def _typed_changed(self) -> None:
        """The typed text changed while it is the source: its lines are the lines (none while it is empty)."""
        if self._source != "typed":
            return
        try:
            lines = self.typed()
        except VoiceStudioError:
            lines = []
        self.summary.setText(count(len(lines), "typed line") if lines else "Type lines")
        self.lines_chosen.emit(lines)

    def _set_source(self, key: str) -> None:
        """Show ``key`` as the source; lines still being read from another source will not arrive."""
        if self.slot.busy() and key != self._loading:
            self.slot.drop()
        self._source = key
        self.source.setCurrentIndex(self.source.findData(key))
        self.text.setVisible(key == "typed")
        self.choose.setVisible(key in ("held_out", "file"))

    def _on_source(self, _index: int) -> None:
        key = self.source_key()
        if key == "previews":
            self.load_previews()
        elif key == "typed":
            self.choose_typed()
        elif key == "held_out":
            start = app_folder(self.workspace.runs_dir)
            folder = QFileDialog.getExistingDirectory(self, "Held-out clips of a run or dataset project", start)
            if not folder:
                self._set_source(self._source)  # cancelled: the source shown stays the one in use
                return
            self.load_held_out(Path(folder))
        else:
            path, _ = QFileDialog.getOpenFileName(
                self, "Lines file", existing_folder(None), "Text or metadata (*.txt *.csv);;All (*)"
            )
            if not path:
                self._set_source(self._source)
                return
            self.load_file(Path(path))
