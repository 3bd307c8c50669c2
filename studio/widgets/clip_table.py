"""The Dataset page's clip table: a Qt model over rows built from the project's manifest.

A model (not a widget per row) keeps thousands of clips smooth; sorting uses each
cell's raw value (``UserRole``), so durations sort as numbers.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt

COLUMNS = ("id", "text", "speaker", "duration (s)", "status", "warnings")


class ClipTableModel(QAbstractTableModel):
    """Rows of ``(id, text, speaker, duration_s, status, warnings)``; the warnings are the health findings'
    kinds (a clip without a speaker in a multi-speaker project shows ``no_speaker``)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._rows: list[tuple] = []

    def set_rows(self, rows: list[tuple]) -> None:
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def row_id(self, row: int) -> str:
        """The clip id of a source row."""
        return self._rows[row][0]

    def rowCount(self, parent: QModelIndex | None = None) -> int:  # noqa: N802 - Qt override
        return 0 if parent is not None and parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex | None = None) -> int:  # noqa: N802 - Qt override
        return len(COLUMNS)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole) and index.isValid():
            value = self._rows[index.row()][index.column()]
            return f"{value:.2f}" if isinstance(value, float) else value
        if role == Qt.ItemDataRole.UserRole and index.isValid():
            return self._rows[index.row()][index.column()]
        return None

    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None
