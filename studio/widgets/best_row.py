"""The Run tab's leaderboard row of a run's best checkpoint: val_mel and the measures beside it, "Score", and
the scoring's progress with Cancel.

The cells are the leaderboard's (``studio.widgets.leaderboard_view.leaderboard_cell``): "—" where a measure is
missing, the reason as tooltip; the page measures the row (``trainer.evaluate.best_row``) and fills it in.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QSizePolicy,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.widgets.elided_label import ElidedLabel
from studio.widgets.leaderboard_view import better_text, leaderboard_cell
from studio.widgets.tables import read_only_table
from studio.widgets.task_progress import TaskProgress
from studio.workers import Task
from trainer.evaluate.board import COLUMNS, Row

ROW_PADDING = 8
"""Pixels a table row has above its text height (a compact row; Qt's default is about twice as much)."""
MEASURES = COLUMNS[1:]
"""The columns shown: the leaderboard's without the label (the caption names the checkpoint)."""


class BestRowView(QWidget):
    """Caption, a one-row table of the leaderboard's measures, "Score" and the scoring's progress.

    Signals:
        score_requested(): the user asks for the best checkpoint to be measured.
        cancel_requested(): the user cancels the scoring.
    """

    score_requested = Signal()
    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = ElidedLabel("")  # one line beside Score; the whole caption in its tooltip
        self.score_button = QPushButton("Score")
        self.score_button.setToolTip("Render the run's held-out clips with its best checkpoint and measure them")
        self.score_button.clicked.connect(self.score_requested)
        self.table = read_only_table([c.title() for c in MEASURES])
        for index, column in enumerate(MEASURES):
            header = QTableWidgetItem(column.title())
            header.setToolTip(better_text(column))
            self.table.setHorizontalHeaderItem(index, header)
        self.table.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        self.table.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)  # as wide as its columns
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        rows = self.table.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.fontMetrics().height() + ROW_PADDING)  # compact: the row is read, not edited
        self.progress = TaskProgress()
        self.progress.cancel_requested.connect(self.cancel_requested)
        row = QHBoxLayout()  # Score beside the table, not beside the one-line caption: the Run tab is short
        row.addWidget(self.table, 1)
        row.addWidget(self.score_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(ROW_PADDING // 2)
        layout.addWidget(self.caption)
        layout.addLayout(row)
        layout.addWidget(self.progress)
        self.show_row(None)
        self.setVisible(False)

    def show_row(self, row: Row | None, baseline: Row | None = None) -> None:
        """Fill the table with ``row``'s measures and, under it, ``baseline``'s (the start voice, measured the
        same way; labelled by its row header), or empty it (``row`` ``None``)."""
        self.row, self.baseline = row, baseline if row is not None else None
        rows = [r for r in (row, self.baseline) if r is not None]
        self.table.setRowCount(len(rows))
        self.table.setVerticalHeaderLabels(["best", *(r.label for r in rows[1:])])
        self.table.verticalHeader().setVisible(len(rows) > 1)
        for r, shown in enumerate(rows):
            for c, column in enumerate(MEASURES):
                self.table.setItem(r, c, leaderboard_cell(shown, column, False))
        self.table.resizeColumnsToContents()
        self.table.setVisible(row is not None)
        self._fit_height()

    def _fit_height(self) -> None:
        """Make the table exactly as tall as its header, its rows and, when its columns are wider than it is, the
        horizontal scroll bar under them (the bar never covers a row)."""
        table = self.table
        rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
        header = table.horizontalHeader().sizeHint().height() + 2 * table.frameWidth()
        columns = (
            table.horizontalHeader().length() + table.verticalHeader().isVisible() * table.verticalHeader().width()
        )
        bar = table.horizontalScrollBar().sizeHint().height() if columns > table.width() - 2 * table.frameWidth() else 0
        if table.height() != header + rows + bar:
            table.setFixedHeight(header + rows + bar)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        """A narrower row may need the scroll bar (and more height), a wider one no longer."""
        super().resizeEvent(event)
        self._fit_height()

    def text(self, column_field: str, row: int = 0) -> str:
        """The shown text of a measure (``val_mel``, ``mcd_db``…) of the best (``row`` 0) or the start voice (1);
        empty when that row is not shown."""
        index = [c.field for c in MEASURES].index(column_field)
        item = self.table.item(row, index) if row < self.table.rowCount() else None
        return item.text() if item is not None else ""

    def follow(self, task: Task) -> None:
        """Show ``task``'s progress and Cancel until it ends; Score is off meanwhile."""
        self.progress.follow(task, "Scoring the best checkpoint:", cancellable=True, phases=True)
        self.score_button.setEnabled(False)
        task.ended.connect(self._ended)
        task.dropped.connect(self._ended)

    def _ended(self) -> None:
        self.progress.finish()
        self.score_button.setEnabled(True)
