"""The Dataset page's clip table: a Qt model over rows built from the project's manifest, and its view.

A model (not a widget per row) keeps thousands of clips smooth; sorting uses each
cell's raw value (``UserRole``), so durations sort as numbers.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QItemSelectionModel, QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

COLUMNS = ("id", "text", "speaker", "duration (s)", "status", "warnings", "loudness (LUFS)", "edited")
OPTIONAL = ("speaker", "warnings", "edited")
"""Columns hidden while no clip has anything in them, so the text column has the room."""
HEADERS = {"duration (s)": "s", "loudness (LUFS)": "LUFS"}
"""Short header titles of columns whose values are narrow (the full name is the header's tooltip)."""
DRAFT_COLOR = "#fef3c7"
"""Background of a draft transcript (a recognizer's text no person has confirmed), in the table and the editor."""
DRAFT_TIP = "Draft from the recognizer: correct it, or Confirm draft"
DRAFT = len(COLUMNS)
"""Index of a row's draft flag, after its columns."""
TIPS = DRAFT + 1
"""Index of a row's tooltips, ``{column: text}``, after its draft flag."""
TEXT_LEAST = 1 / 3
"""The text column's least share of the table's viewport width (at 1024×640 about 160 px, some 25 characters);
the ``CAPPED`` columns elide ("…", the whole value in the tooltip) to leave it. A larger share would squeeze the
warnings and edited columns under ``COLUMN_LEAST`` beside the editor at that size."""
CAPPED = ("id", "speaker", "warnings", "edited")
"""Columns whose values can be long: they take what their contents need up to a fair share of what the text
column leaves; the others (duration, status, loudness) are always narrow and take what they need."""
COLUMN_LEAST = 32
"""A capped column's least width (px): a character or two and the "…". In the smallest window, beside the editor,
the warnings, edited and id columns share about 120 px."""
EDITED_MARK = "✎"
"""Starts the edited column of a clip a fix or an edit changed (its text, speaker or audio)."""


class ClipTableModel(QAbstractTableModel):
    """Rows of ``(id, text, speaker, duration_s, status, warnings, loudness_lufs, edited, draft, tips)``; the
    warnings are the health findings' short labels (``trainer.dataset.finding_words.LABELS``), whose tooltip
    is their sentences (number and fix); ``edited`` says what edits and fixes changed (its text, speaker,
    audio; tooltip: every edit); ``draft`` is True for an unreviewed transcript: the row is drawn in ``DRAFT_COLOR``."""

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
        if not index.isValid():
            return None
        row = self._rows[index.row()]
        if role == Qt.ItemDataRole.ToolTipRole and row[DRAFT] and index.column() == 1:
            return f"{row[1]}\n{DRAFT_TIP}"
        if role == Qt.ItemDataRole.ToolTipRole and index.column() in row[TIPS]:
            return row[TIPS][index.column()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            value = row[index.column()]
            return f"{value:.2f}" if isinstance(value, float) else value
        if role == Qt.ItemDataRole.UserRole:
            return row[index.column()]
        if role == Qt.ItemDataRole.BackgroundRole and row[DRAFT]:
            return QColor(DRAFT_COLOR)
        return None

    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return HEADERS.get(COLUMNS[section], COLUMNS[section])
        if role == Qt.ItemDataRole.ToolTipRole:
            return COLUMNS[section]
        return None


def rows(project, findings) -> list[tuple]:
    """The table's rows for a ``trainer.dataset.project.DatasetProject`` and its health ``findings``: an ``ok``
    clip with a blocking finding shows ``blocked`` (left out of export and the training cache); its warnings
    show as short labels, their sentences in the tooltip; a draft text is marked for yellow."""
    from trainer.dataset.finding_words import label

    found: dict[str, list] = {}
    blocked = {f.clip_id for f in findings if f.blocking}
    for finding in findings:
        found.setdefault(finding.clip_id, []).append(finding)
    warnings, edited = COLUMNS.index("warnings"), COLUMNS.index("edited")
    out = []
    for c in project.clips.values():
        mine = found.get(c.id, [])
        analysis = c.analysis or {}
        tips = {warnings: "\n".join(f"• {f.message}" for f in mine), edited: "\n".join(c.edits)}
        out.append(
            (
                c.id,
                c.text or "",
                c.speaker or "",
                analysis.get("duration_s", 0.0),
                "blocked" if c.status == "ok" and c.id in blocked else c.status,
                ", ".join(dict.fromkeys(label(f.kind) for f in mine)),
                analysis.get("loudness_lufs"),
                edits_said(c.edits),
                bool(c.text) and not c.reviewed,
                {k: v for k, v in tips.items() if v},
            )
        )
    return out


CHECKING = "checking…"
"""The status of a clip added while a job runs, until its health checks run (when the job ends)."""


def rows_so_far(project, shown: list[tuple]) -> list[tuple]:
    """The table's rows while a job adds clips: each clip already ``shown`` keeps its last known status,
    warnings and their tooltip (the health checks run when the job ends); a new clip's status is ``CHECKING``."""
    known = {row[0]: row for row in shown}
    status, warnings = COLUMNS.index("status"), COLUMNS.index("warnings")
    out = []
    for row in rows(project, []):
        last = known.get(row[0])
        cells, tips = list(row), dict(row[TIPS])
        cells[status] = last[status] if last else CHECKING
        cells[warnings] = last[warnings] if last else ""
        if last and warnings in last[TIPS]:
            tips[warnings] = last[TIPS][warnings]
        cells[TIPS] = tips
        out.append(tuple(cells))
    return out


EDIT_WORDS = (
    ("text", "text"),
    ("speaker", "speaker"),
    ("trim", "trimmed"),
    ("normalize", "normalized"),
    ("resample", "resampled"),
    ("hold peak", "peak held"),
    ("set ", "repaired"),
    ("remove DC", "repaired"),
    ("split", "split"),
    ("merged", "merged"),
)
"""Manifest edit prefixes -> the word the table shows: a transcript typed or taken from the source
(``trainer.dataset.curation.set_text``, ``trainer.dataset.reread``), a speaker set, the audio fixes and trims
(``trainer.dataset.jobs.fix``, ``curation.trim_clip``) and repairs, splits and merges. Confirming a draft and
excluding or including a clip are not edits of the clip (the row's colour and status say them)."""


def edits_said(edits: list[str]) -> str:
    """What the edits changed, for the table: ``"✎ text, trimmed, normalized"``; ``""`` when nothing.

    The words come from ``EDIT_WORDS`` in the order first done (the tooltip lists every edit)."""
    done = [next((word for prefix, word in EDIT_WORDS if edit.startswith(prefix)), "") for edit in edits]
    said = [word for word in dict.fromkeys(done) if word]
    return f"{EDITED_MARK} {', '.join(said)}" if said else ""


def text_least(viewport_width: int) -> int:
    """The text column's least width (px) in a viewport ``viewport_width`` px wide: ``TEXT_LEAST`` of it."""
    return round(TEXT_LEAST * viewport_width)


def fair_widths(wanted: list[int], room: int, least: int = COLUMN_LEAST) -> list[int]:
    """Widths (px) for columns that want ``wanted`` px sharing ``room`` px: a column wanting no more than an equal
    share of what is left gets what it wants, the rest share what remains equally (water-filling); none gets
    under ``least``. ``[60, 140, 130], 200 -> [60, 70, 70]``, ``[58, 141, 130], 118 -> [39, 40, 39]``."""
    given = dict.fromkeys(range(len(wanted)), 0)
    left = room
    order = sorted(range(len(wanted)), key=lambda i: wanted[i])
    for place, i in enumerate(order):
        given[i] = min(wanted[i], left // (len(order) - place))
        left -= given[i]
    return [max(least, given[i]) for i in range(len(wanted))]


class ClipTable(QTableView):
    """The sortable, multi-selection view of a :class:`ClipTableModel` (``clips``) through a sort proxy (``proxy``)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.clips = ClipTableModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.clips)
        self.proxy.setSortRole(Qt.ItemDataRole.UserRole)
        self.setModel(self.proxy)
        self.setSortingEnabled(True)
        self.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.setWordWrap(False)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # sized by _fit_columns
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)  # the text gets what the others leave
        header.setMinimumSectionSize(24)
        header.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.clips.modelReset.connect(self._hide_empty_columns)
        self.clips.dataChanged.connect(self._hide_empty_columns)

    def _hide_empty_columns(self) -> None:
        """Show an ``OPTIONAL`` column only while some clip has a value in it."""
        for name in OPTIONAL:
            column = COLUMNS.index(name)
            used = any(self.clips.data(self.clips.index(r, column)) for r in range(self.clips.rowCount()))
            self.setColumnHidden(column, not used)
        self._fit_columns()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override (also the viewport's, e.g. a scroll bar shown)
        super().resizeEvent(event)
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Each column but the text as wide as its header and cells need, the ``CAPPED`` ones at most a fair share
        (``fair_widths``) of what leaves the text column ``text_least`` of the viewport; cut ones elide ("…")."""
        header, width = self.horizontalHeader(), self.viewport().width()
        shown = [c for c in range(len(COLUMNS)) if c != 1 and not self.isColumnHidden(c)]
        wanted = {c: max(header.sectionSizeHint(c), self.sizeHintForColumn(c)) for c in shown}
        capped = [c for c in shown if COLUMNS[c] in CAPPED]
        room = width - text_least(width) - sum(wanted[c] for c in shown if c not in capped)
        widths = dict(zip(capped, fair_widths([wanted[c] for c in capped], room), strict=True))
        for column in shown:
            header.resizeSection(column, widths.get(column, wanted[column]))

    def selected_ids(self) -> list[str]:
        """Ids of the selected rows, in table order."""
        selected = sorted(self.proxy.mapToSource(i).row() for i in self.selectionModel().selectedRows())
        return [self.clips.row_id(r) for r in selected]

    def show_rows(self, rows: list[tuple]) -> None:
        """Show ``rows`` in place of the model's, keeping the selected clips selected and the scroll position."""
        chosen, top = self.selected_ids(), self.verticalScrollBar().value()
        self.clips.set_rows(rows)
        self.select(chosen, scroll=False)
        self.verticalScrollBar().setValue(top)

    def shown_rows(self) -> list[tuple]:
        """The model's rows now (see :class:`ClipTableModel`)."""
        return list(self.clips._rows)

    def select(self, clip_ids: list[str], scroll: bool = True) -> None:
        """Select these clips' rows and (``scroll``) scroll to the first."""
        selection = self.selectionModel()
        selection.clearSelection()
        flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
        first = None
        for row in range(self.clips.rowCount()):
            if self.clips.row_id(row) in clip_ids:
                index = self.proxy.mapFromSource(self.clips.index(row, 0))
                selection.select(index, flags)
                first = first or index
        if first is not None and scroll:
            self.scrollTo(first)
