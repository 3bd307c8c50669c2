"""The history list: a view of the session's :class:`studio.state.SpokenLines`, newest first."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from studio.speaking import Line
from studio.state import SpokenLines


class HistoryList(QListWidget):
    """One row per spoken line (``voice · engine: text``, e.g. ``en_US-joe-medium · torch: Hello``), following the
    model as lines are added.

    Each item keeps its :class:`Line` as ``Qt.ItemDataRole.UserRole`` data.

    Signals:
        chosen(object): the :class:`Line` of a double-clicked row.
    """

    chosen = Signal(object)

    def __init__(self, lines: SpokenLines, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        for line in reversed(lines.lines):
            self._on_added(line)
        lines.events.added.connect(self._on_added)
        self.itemDoubleClicked.connect(lambda item: self.chosen.emit(item.data(Qt.ItemDataRole.UserRole)))

    def _on_added(self, line: Line) -> None:
        stopped = f" (stopped after {line.seconds:.1f} s)" if line.stopped else ""
        item = QListWidgetItem(f"{line.label}: {line.text.strip()[:80]}{stopped}")
        item.setData(Qt.ItemDataRole.UserRole, line)
        self.insertItem(0, item)
