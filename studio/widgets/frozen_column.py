"""A table's first column kept in view when the table scrolls right (Qt's "Frozen Column" example, for a
``QTableWidget``).

A second view over the same model and selection shows only column 0, laid over the table's left edge; it
follows the table's vertical scrolling, row heights and first-column width, and a click on its heading sorts
the table as a click on the table's own first heading would.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractItemView, QFrame, QHeaderView, QTableView, QTableWidget


class FrozenColumn(QObject):
    """Keeps ``table``'s first column in view (see the module docstring).

    Attributes:
        view: the view laid over the table's left edge.
    """

    def __init__(self, table: QTableWidget) -> None:
        super().__init__(table)
        self.table = table
        self.view = _overlay(table)
        table.horizontalHeader().sectionResized.connect(self._on_column_resized)
        table.verticalHeader().sectionResized.connect(lambda row, _old, new: self.view.setRowHeight(row, new))
        table.verticalScrollBar().valueChanged.connect(self.view.verticalScrollBar().setValue)
        self.view.verticalScrollBar().valueChanged.connect(table.verticalScrollBar().setValue)
        self.view.horizontalHeader().sectionClicked.connect(self._sort)
        table.horizontalHeader().sortIndicatorChanged.connect(
            lambda column, order: self.view.horizontalHeader().setSortIndicator(column, order)
        )
        table.model().columnsInserted.connect(lambda *_: self._hide_others())
        table.installEventFilter(self)
        self._hide_others()
        self.place()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if watched is self.table and event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self.place()
        return False

    def place(self) -> None:
        """Lay the view over column 0 (heading included), as wide as that column and as tall as the viewport."""
        table, frame = self.table, self.table.frameWidth()
        width = table.columnWidth(0)
        self.view.setColumnWidth(0, width)
        height = table.viewport().height() + table.horizontalHeader().height()
        self.view.setGeometry(table.verticalHeader().width() + frame, frame, width, height)
        for row in range(table.rowCount()):
            self.view.setRowHeight(row, table.rowHeight(row))

    def _on_column_resized(self, index: int, _old: int, _new: int) -> None:
        if index == 0:
            self.place()

    def _hide_others(self) -> None:
        for column in range(1, self.table.columnCount()):
            self.view.setColumnHidden(column, True)

    def _sort(self, column: int) -> None:
        """Sort the table by its first column, flipping the order when it is sorted by it already."""
        header = self.table.horizontalHeader()
        ascending = Qt.SortOrder.AscendingOrder
        flipped = Qt.SortOrder.DescendingOrder if header.sortIndicatorOrder() == ascending else ascending
        order = flipped if header.sortIndicatorSection() == column else ascending
        self.table.sortItems(column, order)


def _overlay(table: QTableWidget) -> QTableView:
    """A view of ``table``'s model and selection, without scroll bars or row numbers, over the table."""
    view = QTableView(table)
    view.setModel(table.model())
    view.setSelectionModel(table.selectionModel())
    view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    view.verticalHeader().hide()
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    view.horizontalHeader().setSortIndicatorShown(True)
    view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setTextElideMode(table.textElideMode())
    view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    view.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
    table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
    table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
    view.setFrameShape(QFrame.Shape.NoFrame)
    view.setStyleSheet("QTableView { border-right: 1px solid palette(mid); }")
    table.viewport().stackUnder(view)
    view.show()
    return view
