"""The Dataset page: drop recordings in, see every clip and what is wrong with it, export for Piper.

All work (import with analysis in worker processes, export) runs off the GUI
thread through ``studio.workers.Task``; the clip table is a Qt model over the
project's manifest, so thousands of clips stay smooth.
"""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from engines.registry import user_data_dir
from studio.workers import Task

COLUMNS = ("id", "text", "duration (s)", "status", "warnings")


class ClipTableModel(QAbstractTableModel):
    """Rows: the project's clips; the warnings column lists the health findings' kinds."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._rows: list[tuple] = []

    def set_rows(self, rows: list[tuple]) -> None:
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

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


class DatasetPage(QWidget):
    """Project folder, drop zone, clip table, report tab, export.

    Signals:
        message(str): a notice for the status bar.
    """

    message = Signal(str)

    def __init__(self, project_dir: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAcceptDrops(True)
        self.project_dir = Path(project_dir or user_data_dir() / "datasets" / "my-dataset")
        self._busy = False
        self.model = ClipTableModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(Qt.ItemDataRole.UserRole)
        self._build()
        self.refresh()

    def _build(self) -> None:
        self.folder_label = QLabel()
        self.open_button = QPushButton("Open project…")
        self.open_button.clicked.connect(self._on_open_clicked)
        self.add_button = QPushButton("Add recordings…")
        self.add_button.clicked.connect(self._on_add_clicked)
        self.export_button = QPushButton("Export for Piper…")
        self.export_button.clicked.connect(self._on_export_clicked)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.hint = QLabel("Drop folders, recordings, metadata.csv files or zip archives here.")
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.report = QTextBrowser()
        tabs = QTabWidget()
        tabs.addTab(self.table, "Clips")
        tabs.addTab(self.report, "Report")
        top = QHBoxLayout()
        top.addWidget(self.folder_label, 1)
        for button in (self.open_button, self.add_button, self.export_button):
            top.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.hint)
        layout.addWidget(self.progress)
        layout.addWidget(tabs, 1)

    # --- project ----------------------------------------------------------------
    def project(self):
        from trainer.dataset.project import DatasetProject

        return DatasetProject(self.project_dir)

    def refresh(self) -> None:
        """Reload the table and the report from the manifest."""
        from trainer.dataset.export import records, report_markdown
        from trainer.dataset.health import check

        self.folder_label.setText(f"Project: {self.project_dir}")
        if not (self.project_dir / "manifest.json").exists():
            self.model.set_rows([])
            self.report.setMarkdown("No recordings yet.")
            return
        project = self.project()
        findings: dict[str, list[str]] = {}
        for finding in check(records(project)):
            findings.setdefault(finding.clip_id, []).append(finding.kind)
        rows = [
            (c.id, c.text or "", (c.analysis or {}).get("duration_s", 0.0), c.status, ", ".join(findings.get(c.id, [])))
            for c in project.clips.values()
        ]
        self.model.set_rows(rows)
        self.report.setMarkdown(report_markdown(project))

    def _on_open_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Dataset project folder", str(self.project_dir))
        if folder:
            self.project_dir = Path(folder)
            self.refresh()

    # --- import -----------------------------------------------------------------
    def _on_add_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder of recordings")
        if folder:
            self.import_paths([Path(folder)])

    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.import_paths([Path(u.toLocalFile()) for u in event.mimeData().urls()])
        event.acceptProposedAction()

    def import_paths(self, paths: list[Path]) -> Task | None:
        """Import recordings in the background; the table fills when it is done."""
        if self._busy:
            self.message.emit("An import is already running.")
            return None
        folder = self.project_dir

        def work(cancel: threading.Event):
            from trainer.dataset.project import DatasetProject

            return DatasetProject(folder).import_sources(paths)

        self._set_busy(True)
        task = Task(work, self)
        task.done.connect(self._on_imported)
        task.failed.connect(lambda exc: self.message.emit(f"Import failed: {exc}"))
        task.ended.connect(lambda: self._set_busy(False))
        return task.start()

    def _on_imported(self, result) -> None:
        self.refresh()
        text = f"{len(result.added)} clips added, {result.unchanged} already present, {len(result.failed)} failed"
        if result.problems:
            text += f"; {len(result.problems)} problems (see the report)"
        self.hint.setText(text)
        self.message.emit(text)

    def _set_busy(self, busy: bool) -> None:
        self._busy = busy
        self.progress.setVisible(busy)
        self.progress.setRange(0, 0 if busy else 1)  # indeterminate while running
        for button in (self.open_button, self.add_button, self.export_button):
            button.setEnabled(not busy)

    def is_busy(self) -> bool:
        return self._busy

    # --- export -----------------------------------------------------------------
    def _on_export_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export Piper training data to")
        if folder:
            self.export_to(Path(folder))

    def export_to(self, out_dir: Path, rate: int = 22050) -> Task:
        """Write Piper's training layout in the background."""
        folder = self.project_dir

        def work(cancel: threading.Event):
            from trainer.dataset.export import export_piper
            from trainer.dataset.project import DatasetProject

            return export_piper(DatasetProject(folder), out_dir, rate)

        self._set_busy(True)
        task = Task(work, self)
        task.done.connect(
            lambda r: self.message.emit(
                f"Exported {len(r.written)} clips to {out_dir}; {len(r.skipped)} left out (see the report)"
            )
        )
        task.failed.connect(lambda exc: self.message.emit(f"Export failed: {exc}"))
        task.ended.connect(lambda: self._set_busy(False))
        return task.start()
