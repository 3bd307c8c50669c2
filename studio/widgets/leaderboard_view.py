"""The leaderboard: one row of objective measures per candidate (``trainer.evaluate.leaderboard.Row``), sortable
by value, the best of each column in bold, "—" where a measure is missing (the reason as tooltip), each value ±
its standard error over lines, CSV export. The candidate column stays in view when the table scrolls right; the
recommended candidate is marked ★ (those within noise of it ≈) and a line under the table says why and where the
measures disagree (``trainer.evaluate.summary``). Where a tie-break by ear (``trainer.evaluate.tie_break``) clearly
preferred a tied candidate, ★ follows the listener and ☆ marks the measures' pick, whose reason stays in view.

The rows are measured outside Qt (``trainer.evaluate.leaderboard.score``); "Score" asks the page to do it.
"""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engines.words import count
from studio.state import SaveFolders
from studio.widgets.frozen_column import FrozenColumn
from studio.widgets.start_folders import proposed_name
from studio.widgets.tables import export_text, read_only_table
from trainer.checkpoints.best import file_epoch_note
from trainer.evaluate.bands import DEFAULT_BANDS
from trainer.evaluate.board import RECORDINGS_MEANING, candidates_text, is_recordings
from trainer.evaluate.evaluation import band_text
from trainer.evaluate.leaderboard import COLUMNS, Column, Row, to_csv
from trainer.evaluate.summary import BoardSummary, summarise
from trainer.evaluate.tie_break import Outcome, measures_reason

SORT_KEY = Qt.ItemDataRole.UserRole
"""Item data role of a cell's number (``None`` when not measured), by which the column sorts."""
LABEL_KEY = Qt.ItemDataRole.UserRole + 1
"""Item data role of a label cell's row label (its text carries the marks)."""


RECOMMENDED = "★ "
"""Marks the recommended candidate's label."""
TIED = "≈ "
"""Marks a candidate within noise of the recommended one."""
MEASURES_PICK = "☆ "
"""Marks the measures' pick where the recommendation follows a tie-break by ear to another candidate."""


def heading_tip(column: Column) -> str:
    """A heading's tooltip: which way is better and, for a measure with one, its noise band."""
    band = DEFAULT_BANDS.values.get(column.field)
    said = f"; noise band {band_text(column.field, band)} ({DEFAULT_BANDS.source})" if band is not None else ""
    return better_text(column) + said


def better_text(column: Column) -> str:
    """What the header's tooltip says about a column: which way is better."""
    if column.better == "closer":
        target = next((c.header for c in COLUMNS if c.field == column.closer_to), "0") if column.closer_to else "0"
        return f"closer to {target} is better"
    return f"{column.better} is better" if column.better else "not ranked"


def best_rows(rows: list[Row], column: Column) -> set[int]:
    """Indices of the rows with the best value of ``column`` (ties all count); empty for an unranked column.

    ``lower``/``higher``: the least/greatest value; ``closer``: the least distance to the row's ``closer_to``
    field (or to 0), rows without that field left out. The recordings' row is never best: it is no candidate.
    """
    scored = {}
    for i, row in enumerate(rows):
        if is_recordings(row):
            continue  # a baseline, not a candidate to be best of
        value = getattr(row, column.field)
        if column.better not in ("lower", "higher", "closer") or not isinstance(value, (int, float)):
            continue
        if column.better == "closer":
            target = getattr(row, column.closer_to) if column.closer_to else 0.0
            if target is None:
                continue
            value = abs(value - target)
        scored[i] = -value if column.better == "higher" else value
    if not scored:
        return set()
    best = min(scored.values())
    return {i for i, v in scored.items() if math.isclose(v, best, rel_tol=1e-12, abs_tol=1e-12)}


LABEL_WIDTH = 260
"""The widest the candidate column is made (px): a long checkpoint label is elided in the middle, so the
measures stay in view in a small window (drag the heading's edge to widen it)."""


class NumberItem(QTableWidgetItem):
    """A cell that sorts by its number; a missing one sorts last whichever the direction."""

    def __lt__(self, other: QTableWidgetItem) -> bool:
        mine, theirs = self.data(SORT_KEY), other.data(SORT_KEY)
        if mine is not None and theirs is not None:
            return float(mine) < float(theirs)
        if mine is None and theirs is None:
            return False
        table = self.tableWidget()
        descending = table is not None and table.horizontalHeader().sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
        return (mine is None) == descending  # the missing one is greatest ascending, least descending: last


class LeaderboardView(QWidget):
    """The leaderboard table with "Score" and "Export CSV…".

    Signals:
        score_requested(): the user asks for the candidates to be (re)scored.
    """

    score_requested = Signal()

    def __init__(self, folders: SaveFolders | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folders = folders if folders is not None else SaveFolders()
        """The folders files were saved to last: Export CSV… starts in the one a CSV went to."""
        self.subject = ""
        """What is compared, in a few words (``studio.comparison.Comparison.subject``): Export CSV…'s file name."""
        self.rows: list[Row] = []
        self.said = BoardSummary()
        """The rows in words (``trainer.evaluate.summary.summarise``)."""
        self.by_ear: Outcome | None = None
        """The finished tie-break the recommendation follows (:meth:`follow`), or ``None``."""
        self.table = read_only_table([c.title() for c in COLUMNS])
        for index, column in enumerate(COLUMNS):
            header = QTableWidgetItem(column.title())
            header.setToolTip(heading_tip(column))
            self.table.setHorizontalHeaderItem(index, header)
        self.table.horizontalHeader().setSortIndicator(
            -1, Qt.SortOrder.AscendingOrder
        )  # the order given, until a click
        self.table.setSortingEnabled(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.frozen = FrozenColumn(self.table)
        self.summary = QLabel("")
        """Why the ★ candidate is recommended and where the measures disagree; the noise bands as tooltip."""
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.score_button, self.export_button = QPushButton("Score"), QPushButton("Export CSV…")
        self.score_button.setToolTip("Render every line by every candidate (cached) and measure them")
        self.score_button.clicked.connect(self.score_requested)
        self.export_button.clicked.connect(lambda: self.export_csv())
        self.status = QLabel("Press Score to measure the candidates.")
        self.status.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.score_button)
        buttons.addWidget(self.export_button)
        buttons.addWidget(self.status, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.summary)
        self.set_rows([])

    def set_rows(self, rows: list[Row]) -> None:
        """Show ``rows`` (the sort the user chose is kept), the best of each ranked column in bold."""
        self.rows = list(rows)
        self.table.setSortingEnabled(False)  # filling a sorted table moves rows under the writer
        self.table.setRowCount(len(self.rows))
        best = [best_rows(self.rows, column) for column in COLUMNS]
        self.said, self.by_ear = summarise(self.rows), None
        for r, row in enumerate(self.rows):
            for c, column in enumerate(COLUMNS):
                self.table.setItem(r, c, leaderboard_cell(row, column, r in best[c]))
        self._mark()
        self.table.setSortingEnabled(True)
        self.table.resizeColumnsToContents()
        self.table.setColumnWidth(0, min(self.table.columnWidth(0), LABEL_WIDTH))  # a long label is elided
        self.frozen.place()
        self.summary.setToolTip(self.said.bands)
        self.export_button.setEnabled(bool(self.rows))
        if self.rows:
            self.status.setText(f"{candidates_text(self.rows)}. Bold: the best of a column; hover a heading.")

    def follow(self, outcome: Outcome | None) -> None:
        """Let the recommendation follow a finished tie-break where it clearly preferred another candidate (★ on
        it, ☆ on the measures' pick, both reasons under the table); ``None``: the measures' alone."""
        self.by_ear = outcome
        self._mark()

    def _mark(self) -> None:
        """The label cells' marks and the lines under the table, from :attr:`said` and :attr:`by_ear`."""
        by_label = {row.label: row for row in self.rows}
        sorting = self.table.isSortingEnabled()
        self.table.setSortingEnabled(False)  # a relabelled cell would move under a sort by label
        for r in range(self.table.rowCount()):
            item = self.table.item(r, 0)
            if item is not None:
                mark(item, by_label[item.data(LABEL_KEY)], self.said, self.by_ear)
        self.table.setSortingEnabled(sorting)
        self.summary.setText(_summary_text(self.said, self.by_ear) if self.rows else "")

    def export_csv(self, path: Path | None = None) -> Path | None:
        """Write the rows as CSV (``trainer.evaluate.leaderboard.to_csv``, atomically) to ``path``, asked for when
        ``None``; returns the path written, or ``None``."""
        if not self.rows:
            self.status.setText("Nothing to export: score the candidates first.")
            return None
        title, name = "Export the leaderboard", proposed_name("leaderboard", self.subject, suffix=".csv")
        path = export_text(
            self, self.status, to_csv(self.rows), title=title, name=name, path=path, folders=self.folders
        )
        if path is None:
            return None
        self.status.setText(f"Exported {count(len(self.rows), 'row')} to {path}.")
        return path


def leaderboard_cell(row: Row, column: Column, best: bool) -> QTableWidgetItem:
    """One cell: its text, its number for sorting, bold when best, why it is missing as tooltip; the recordings'
    row in italics (a baseline, not a candidate)."""
    item = _label_cell(row) if column.field == "label" else _number_cell(row, column, best)
    if is_recordings(row):
        font = item.font()
        font.setItalic(True)
        item.setFont(font)
    return item


def _label_cell(row: Row) -> QTableWidgetItem:
    item = QTableWidgetItem(row.label)
    item.setData(LABEL_KEY, row.label)
    item.setToolTip(label_tip(row))
    return item


def _number_cell(row: Row, column: Column, best: bool) -> QTableWidgetItem:
    value = getattr(row, column.field)
    item = NumberItem(column.text(row))
    item.setData(SORT_KEY, None if value is None else float(value))
    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    reason = " · ".join(filter(None, (row.missing.get(column.field, ""), spread_note(row, column.field))))
    if value is None:
        item.setToolTip(reason or "not measured")
    elif reason:
        item.setToolTip(reason)
    if best:
        font = item.font()
        font.setBold(True)
        item.setFont(font)
        item.setToolTip(" · ".join(filter(None, (f"best ({better_text(column)})", reason))))
    return item


def label_tip(row: Row) -> str:
    """The label cell's tooltip: what the recordings' row is, else how the checkpoint's file counts its epoch
    (the label counts epochs from 1, the file from 0)."""
    if is_recordings(row):
        return f"{RECORDINGS_MEANING}\n{row.model_path}"
    return file_epoch_note(row.model_path)


def mark(item: QTableWidgetItem, row: Row, said: BoardSummary, by_ear: Outcome | None = None) -> None:
    """Label the cell of ``row`` afresh, marked as recommended (★, the reason as tooltip), as the measures' pick
    where ``by_ear`` moved the recommendation off it (☆), or as within noise of the recommended one (≈)."""
    follows = by_ear is not None and by_ear.overrides
    recommended = by_ear.recommended if by_ear is not None and follows else said.recommended
    note = label_tip(row)
    if recommended and row.label == recommended:
        reason = by_ear.sentence if by_ear is not None and follows else said.reason
        item.setText(RECOMMENDED + row.label)
        item.setToolTip(f"{reason}\n{note}")
    elif follows and row.label == said.recommended:
        item.setText(MEASURES_PICK + row.label)
        item.setToolTip(f"{measures_reason(said.reason)}\n{note}")
    elif row.label in said.ties:
        item.setText(TIED + row.label)
        item.setToolTip(f"Within noise of the measures' pick {said.recommended}.\n{note}")
    else:
        item.setText(row.label)
        item.setToolTip(note)


def _summary_text(said: BoardSummary, by_ear: Outcome | None = None) -> str:
    """The lines under the table: ``★ Recommended: …`` (where the ear moved it: ``★ Recommended by ear: …`` and
    ``☆ Recommended by the measures: …``), then the disagreement."""
    if by_ear is not None and by_ear.overrides:
        reasons = [f"{RECOMMENDED}{by_ear.headline}", f"{MEASURES_PICK}{measures_reason(said.reason)}"]
    else:
        reasons = [f"{RECOMMENDED}{said.reason}" if said.recommended else said.reason]
    return "\n".join(filter(None, [*reasons, said.disagreement]))


def spread_note(row: Row, field: str) -> str:
    """``over 10 lines, ± its standard error over them`` (similarity: renders), or "" where not known."""
    lines = row.lines.get(field)
    if lines is None:
        return ""
    error = ", ± its standard error over them" if field in row.stderr else ""
    return f"over {count(lines, 'render' if field == 'similarity' else 'line')}{error}"
