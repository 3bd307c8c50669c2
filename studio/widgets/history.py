"""The history list: a view of the session's :class:`studio.state.SpokenLines`, newest first."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListView, QListWidget, QListWidgetItem, QWidget

from studio.speaking import Line
from studio.state import SpokenLines

ELIDE_AT = 60
"""Characters of a line's text a History row shows whole; a longer text keeps its start and end around "…"."""


class HistoryList(QListWidget):
    """One row per spoken line, newest first: a stopped line's mark, voice and engine first, then the text
    (``(stopped after 5.1 s) en_US-joe-medium · torch: Hello``), a long text elided in its middle, rows wrapped
    to the pane's width (never cut at its edge), each with the whole row as its tooltip; following the model as
    lines are added.

    Each item keeps its :class:`Line` as ``Qt.ItemDataRole.UserRole`` data.

    Signals:
        chosen(object): the :class:`Line` of a double-clicked row.
    """

    chosen = Signal(object)

    def __init__(self, lines: SpokenLines, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.setResizeMode(QListView.ResizeMode.Adjust)  # rows wrap anew when the pane is resized
        for line in reversed(lines.lines):
            self._on_added(line)
        lines.events.added.connect(self._on_added)
        self.itemDoubleClicked.connect(lambda item: self.chosen.emit(item.data(Qt.ItemDataRole.UserRole)))

    def _on_added(self, line: Line) -> None:
        text = " ".join(line.text.split())
        item = QListWidgetItem(row_text(line, elided(text)))
        item.setToolTip(row_text(line, text))
        item.setData(Qt.ItemDataRole.UserRole, line)
        self.insertItem(0, item)


def row_text(line: Line, text: str) -> str:
    """A History row: ``(stopped after 5.1 s) voice · engine: text`` (the mark only for a stopped line)."""
    stopped = f"(stopped after {line.seconds:.1f} s) " if line.stopped else ""
    return f"{stopped}{line.label}: {text}"


def elided(text: str, most: int = ELIDE_AT) -> str:
    """``text`` if it has at most ``most`` characters, else its start and end with "…" between (``most`` in all)."""
    if len(text) <= most:
        return text
    head = (most - 1) * 2 // 3
    return f"{text[:head].rstrip()}…{text[len(text) - (most - 1 - head) :].lstrip()}"
