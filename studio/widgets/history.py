"""The history list: a view of the session's :class:`studio.state.SpokenLines`, newest first."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QListView, QListWidget, QListWidgetItem, QWidget

from studio.speaking import Line
from studio.state import SpokenLines

ELIDE_AT = 60
"""Characters of a line's text a History row shows whole; a longer text keeps its start and end around "…"."""


class HistoryList(QListWidget):
    """One row per spoken line, newest first: a stopped line's mark, voice and engine first, then the text
    (``(stopped after 5.1 s) en_US-joe-medium · torch: Hello``), a long text elided in its middle, rows wrapped
    to the pane's width (never cut at its edge), each with the whole row as its tooltip; following the model as
    lines are added. Lines of earlier sessions (``Line.earlier``: no audio kept) come last, in the disabled text
    colour, their tooltip saying that double-clicking speaks the text again.

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
        self._on_earlier(lines.lines)
        lines.events.added.connect(self._on_added)
        lines.events.earlier.connect(self._on_earlier)
        self.itemDoubleClicked.connect(lambda item: self.chosen.emit(item.data(Qt.ItemDataRole.UserRole)))

    def _on_added(self, line: Line) -> None:
        self.insertItem(0, self._item(line))

    def _on_earlier(self, lines: list[Line]) -> None:
        for line in lines:
            self.addItem(self._item(line))

    def _item(self, line: Line) -> QListWidgetItem:
        text = " ".join(line.text.split())
        item = QListWidgetItem(row_text(line, elided(text)))
        tip = row_text(line, text)
        if line.earlier:
            item.setForeground(self.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
            tip += f"\n{EARLIER_TIP}"
        item.setToolTip(tip)
        item.setData(Qt.ItemDataRole.UserRole, line)
        return item


EARLIER_TIP = "From an earlier session (its audio is not kept): double-click to speak the text again."


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
