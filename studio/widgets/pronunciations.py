"""The Pronunciations… dialog: a voice's lexicon (``engines.frontend.lexicon``) as a table to edit.

Each row is a word and what it says (a respelling, or ``[[ IPA phonemes ]]``); Add and Remove change the rows,
Hear asks for the chosen row's "says as" to be spoken (:attr:`PronunciationsDialog.hear`), Save writes the
table to the voice's lexicon file (``VOICE.onnx.lexicon.txt``) atomically. The engines read the file again when
it changes, so the next line spoken uses it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engines.frontend.lexicon import (
    Lexicon,
    LexiconError,
    parse_lexicon,
    read_lexicon,
    voice_lexicon_path,
    write_lexicon,
)

TABLE = "the table"
"""How errors in rows not yet saved name where they are ("the table, line 2: …")."""


class PronunciationsDialog(QDialog):
    """A voice's lexicon as a table of word / says as, with Add, Remove, Hear and Save.

    Args:
        model_path: the voice's model (``.onnx`` or ``.ckpt``); its lexicon is the file beside it.

    Signals:
        hear(str): speak this text (the chosen row's "says as": the word said as its entry says it).
    """

    hear = Signal(str)

    def __init__(self, model_path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = voice_lexicon_path(model_path)
        self.setWindowTitle(f"Pronunciations: {Path(model_path).name}")
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["Word", "Says as (respelling or [[ IPA ]])"])
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.status = QLabel()
        self.status.setWordWrap(True)
        buttons = QHBoxLayout()
        self.add_button, self.remove_button, self.hear_button = (QPushButton(n) for n in ("Add", "Remove", "Hear"))
        self.add_button.clicked.connect(lambda: self.add_row())
        self.remove_button.clicked.connect(self.remove_row)
        self.hear_button.clicked.connect(self._hear)
        for button in (self.add_button, self.remove_button, self.hear_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.save_button = QPushButton("Save")
        self.save_button.clicked.connect(self.save)
        close = QPushButton("Close")
        close.clicked.connect(self.reject)
        buttons.addWidget(self.save_button)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        for widget in (QLabel(f"Words this voice says your way, kept in {self.path}"), self.table, self.status):
            layout.addWidget(widget)
        layout.addLayout(buttons)
        self._load()

    def _load(self) -> None:
        """The file's entries as rows; a file that cannot be read is said, and not overwritten."""
        try:
            lexicon = read_lexicon(self.path, missing_ok=True)
        except LexiconError as exc:
            self.status.setText(f"{exc}. Fix the file in a text editor; Save is off so it is not overwritten.")
            self.save_button.setEnabled(False)
            return
        for word, said in lexicon.entries.items():
            self.add_row(word, said)

    def add_row(self, word: str = "", said: str = "") -> int:
        """Add a row (empty: for the user to fill) and select it; returns its index."""
        row = self.table.rowCount()
        self.table.insertRow(row)
        self.table.setItem(row, 0, QTableWidgetItem(word))
        self.table.setItem(row, 1, QTableWidgetItem(said))
        self.table.setCurrentCell(row, 0)
        return row

    def remove_row(self) -> None:
        """Remove the chosen row."""
        if self.table.currentRow() >= 0:
            self.table.removeRow(self.table.currentRow())

    def lexicon(self) -> Lexicon:
        """The rows as a lexicon (rows left wholly empty are skipped).

        Raises:
            LexiconError: a row with only one of its cells filled, bad phonemes, or a word twice (naming the row as
                a line of :data:`TABLE`).
        """
        lines = [f"{self._cell(row, 0)}\t{self._cell(row, 1)}" for row in range(self.table.rowCount())]
        return parse_lexicon("\n".join(line if line.strip() else "" for line in lines), TABLE)

    def save(self) -> bool:
        """Write the rows to the voice's lexicon file (atomically: a failed save leaves the file as it was); the
        status line says what was written, or why not."""
        try:
            lexicon = self.lexicon()
            write_lexicon(self.path, lexicon)
        except (LexiconError, OSError) as exc:
            self.status.setText(f"Not saved: {exc}")
            return False
        self.status.setText(f"Saved {len(lexicon.entries)} pronunciation(s) to {self.path}")
        return True

    def _hear(self) -> None:
        row = self.table.currentRow()
        said = self._cell(row, 1) if row >= 0 else ""
        if said:
            self.hear.emit(said)
        else:
            self.status.setText("Choose a row with a 'says as' to hear it.")

    def _cell(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return item.text().strip() if item is not None else ""
