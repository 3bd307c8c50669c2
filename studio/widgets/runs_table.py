"""The list of past training runs: total time, epochs, best val_mel, starting point, preset, status.

Selecting one run shows it; selecting two overlays their epoch times in a chart. A run folder elsewhere
(e.g. on storage that training machines share) can be opened and shown too.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.widgets.train_charts import EpochChart
from trainer.events.live import trainer_alive
from trainer.events.run_state import RunState, list_runs, load_run
from trainer.events.words import duration
from trainer.run.document import TRAINING_FILE, is_run
from trainer.run.presets import SMOKE_TEST, explain, is_smoke_test

__all__ = ["RunsTable", "duration"]  # duration: also the Train page's, from trainer.events.words

NO_SELECTION = "Select a run to see its epoch times, two to compare them"
COLUMNS = ("run", "status", "epochs", "train time", "best val_mel", "start", "preset")


class RunsTable(QWidget):
    """Runs under a folder, newest first, and a chart comparing two selected runs' epoch times.

    Signals:
        chosen(object): the ``RunState`` of the single selected run.
    """

    chosen = Signal(object)

    def __init__(self, root: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.root = Path(root)
        self.runs: list[RunState] = []
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().hide()  # a row number says nothing a run's name does not
        self.table.itemSelectionChanged.connect(self._on_selection)
        self.table.cellDoubleClicked.connect(self.reopen)
        self.compare = EpochChart()
        self.compare.setTitle(NO_SELECTION)
        self.open_button = QPushButton("Open a run folder…")
        self.open_button.setToolTip("Show a run from another folder, e.g. one other machines train on shared storage")
        self.open_button.clicked.connect(self._choose_folder)
        self.note = QLabel()
        layout = QVBoxLayout(self)
        layout.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.note)
        self.note.hide()
        layout.addWidget(self.table, 1)
        layout.addWidget(self.compare, 1)

    def refresh(self, live: Path | None = None) -> None:
        """Read the runs folder again; ``live`` is the run a trainer is working on now (others that never
        finished were interrupted)."""
        self.runs = list_runs(self.root)
        self.table.setRowCount(len(self.runs))
        for row, run in enumerate(self.runs):
            self._fill_row(row, run, live)
        self.table.resizeColumnsToContents()

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open a run folder", str(self.root))
        if folder:
            self.open_folder(Path(folder))

    def open_folder(self, folder: Path) -> bool:
        """Emit ``chosen`` with the run in ``folder`` (the Train page shows it, following it while it trains);
        False, saying why, when it is not a run folder."""
        self.note.setVisible(not is_run(folder))
        if not is_run(folder):
            self.note.setText(f"{folder} is not a run folder (no {TRAINING_FILE})")
            return False
        self.chosen.emit(load_run(folder))
        return True

    def reopen(self, row: int) -> None:
        """Read run ``row`` again from its folder (a trainer outside the studio may have resumed it), redraw its
        row and emit ``chosen`` with it, even when it is the run already selected (a double-click)."""
        if not 0 <= row < len(self.runs):
            return
        self.runs[row] = load_run(self.runs[row].folder)
        self._fill_row(row, self.runs[row], None)
        self.chosen.emit(self.runs[row])

    def _fill_row(self, row: int, run: RunState, live: Path | None) -> None:
        best = run.best_val_mel
        status = row_status(run, live)
        values = (
            run.folder.name,
            status,
            f"{run.epochs_done} / {run.epochs_total}",
            duration(run.train_seconds),
            "—" if best is None else f"{best:.4f}",
            Path(run.start).name if run.start else "—",
            f"{run.preset} ({SMOKE_TEST})" if is_smoke_test(run.preset) else (run.preset or "—"),
        )
        for column, value in enumerate(values):
            item = QTableWidgetItem(value)
            item.setData(Qt.ItemDataRole.UserRole, row)
            if is_smoke_test(run.preset):
                item.setToolTip(explain("test"))
            self.table.setItem(row, column, item)

    def selected(self) -> list[RunState]:
        """The selected runs, in table order."""
        rows = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        return [self.runs[r] for r in rows if r < len(self.runs)]

    def _on_selection(self) -> None:
        runs = self.selected()
        if len(runs) == 1:
            self.chosen.emit(runs[0])
        self._draw_compare(runs[:2])

    def _draw_compare(self, runs: list[RunState]) -> None:
        """One run: its own epoch times; two: the first as bars, the second as a line over them."""
        if len(runs) == 2:
            self.compare.setTitle(f"bars: {runs[0].folder.name} · line: {runs[1].folder.name}")
        elif runs:
            self.compare.setTitle(f"{runs[0].folder.name} · select a second run to compare")
        else:
            self.compare.setTitle(NO_SELECTION)
        self.compare.set_epochs(runs[0].epoch_split() if runs else [])
        self.compare.set_compare(runs[1].epoch_split() if len(runs) == 2 else [])


def row_status(run: RunState, live: Path | None) -> str:
    """The status column: ``run.status``, except for a run without a finish that this studio is not training
    (``live``): "running elsewhere" while another trainer writes it (``trainer.events.live``), else "interrupted";
    a run that would resume from a damaged ``last.ckpt`` says so (``trainer.checkpoints.damage``)."""
    if run.status != "running" or run.folder == live:
        return run.status + _damaged(run)
    return "running elsewhere" if training_elsewhere(run) else "interrupted" + _damaged(run)


def _damaged(run: RunState) -> str:
    """`` · last.ckpt damaged`` for a resumable run whose resume checkpoint is (its zip directory read), else ``""``."""
    from trainer.checkpoints.damage import why_damaged

    return " · last.ckpt damaged" if run.resumable and why_damaged(run.folder / "last.ckpt", thorough=False) else ""


def training_elsewhere(run: RunState) -> bool:
    """Whether a trainer outside this studio is writing ``run`` now (``trainer.events.live.trainer_alive``): the
    Train page follows such a run and does not offer to resume it beside that trainer."""
    return run.status == "running" and trainer_alive(run.folder)
