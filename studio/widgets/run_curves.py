"""Runs compared as wholes: val_mel and epoch time per epoch overlaid (pyqtgraph), and a table of each
run's epochs, best val_mel, total and median epoch time. The curves come from
``trainer.evaluate.runs.compare_runs``; the view keeps no logic of its own."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.widgets.axes import readable_axes, room_for_top_tick
from studio.widgets.runs_table import duration
from studio.widgets.start_folders import app_folder
from studio.widgets.tables import read_only_table
from studio.widgets.train_charts import integer_epochs
from trainer.evaluate.runs import RunCurves, compare_runs

RUN_COLOURS = ((59, 130, 246), (239, 68, 68), (16, 185, 129), (245, 158, 11), (139, 92, 246), (236, 72, 153))
"""Colours of the runs, in the order shown (repeating after six)."""
NO_RUNS = "Add two or more run folders to compare their curves."
TABLE_COLUMNS = ("run", "epochs", "best val_mel", "total time", "median epoch")


class RunCurvesView(QWidget):
    """Two or more runs' curves overlaid, with "Add run…" and "Remove".

    Attributes:
        folders: the runs shown, in order. curves: their ``RunCurves``.
        plots: ``{"val_mel": PlotItem, "epoch_s": PlotItem}``; ``lines[i]`` the two ``PlotDataItem`` of run ``i``.
    """

    def __init__(self, parent: QWidget | None = None, runs_folder: Callable[[], Path] | None = None) -> None:
        super().__init__(parent)
        self.runs_folder = runs_folder
        """Where the studio keeps its runs (Add run… starts there before any run is shown)."""
        self.folders: list[Path] = []
        self.curves: list[RunCurves] = []
        self.lines: list[dict[str, pg.PlotDataItem]] = []
        self.chart = pg.GraphicsLayoutWidget()
        self.plots = {
            "val_mel": self.chart.addPlot(row=0, col=0, axisItems=readable_axes(epochs=True)),
            "epoch_s": self.chart.addPlot(row=1, col=0, axisItems=readable_axes(epochs=True)),
        }
        self.legend = pg.LegendItem()
        self.legend.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.chart.addItem(self.legend, row=0, col=1)  # beside the plots, never over a curve
        self.table = read_only_table(TABLE_COLUMNS)
        self.table.setMaximumHeight(160)
        self.add_button, self.remove_button = QPushButton("Add run…"), QPushButton("Remove")
        self.add_button.clicked.connect(lambda: self.add_run())
        self.remove_button.clicked.connect(self.remove_selected)
        self.status = QLabel(NO_RUNS)
        self.status.setWordWrap(True)  # a long list of runs wraps rather than widen the window
        self._style_plots()
        self._layout()
        self._draw()  # an empty chart already counts whole epochs

    def _layout(self) -> None:
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addWidget(self.status, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self.chart, 3)
        layout.addWidget(self.table, 1)

    def _style_plots(self) -> None:
        """The app palette's base and text colours (a light or dark theme alike), not pyqtgraph's black."""
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.WindowText)
        self.chart.setBackground(palette.color(QPalette.ColorRole.Base))
        for key, (label, unit) in {"val_mel": ("val_mel", ""), "epoch_s": ("epoch time", "s")}.items():
            plot = self.plots[key]
            plot.setLabel("left", label, units=unit or None, color=text.name())
            plot.setLabel("bottom", "epoch", color=text.name())
            plot.showGrid(x=True, y=True, alpha=0.2)
            for side in ("left", "bottom"):
                plot.getAxis(side).setPen(text)
                plot.getAxis(side).setTextPen(text)
        self.plots["epoch_s"].setXLink(self.plots["val_mel"])
        room_for_top_tick(self.plots["val_mel"])
        self.legend.setLabelTextColor(text)

    # --- runs -----------------------------------------------------------------------------------
    def set_runs(self, folders: list[Path]) -> None:
        """Show the runs in ``folders`` (in that order), read afresh from their events."""
        self.folders = [Path(f) for f in folders]
        self.curves = compare_runs(self.folders)
        self._draw()

    def add_run(self, folder: Path | None = None) -> None:
        """Add a run folder (asked for when ``None``); one already shown or not a folder is refused with a
        reason."""
        if folder is None:
            chosen = QFileDialog.getExistingDirectory(self, "Add a run folder", str(self._start_folder()))
            if not chosen:
                return
            folder = Path(chosen)
        if not folder.is_dir():
            self.status.setText(f"{folder}: not a folder.")
        elif folder in self.folders:
            self.status.setText(f"{folder.name} is already shown.")
        else:
            self.set_runs([*self.folders, folder])

    def remove_selected(self) -> None:
        """Remove the runs selected in the table."""
        rows = {index.row() for index in self.table.selectionModel().selectedRows()}
        if not rows:
            self.status.setText("Select a run in the table to remove it.")
            return
        self.set_runs([f for i, f in enumerate(self.folders) if i not in rows])

    def _start_folder(self) -> Path:
        if self.folders:
            return self.folders[-1].parent
        return Path(app_folder(self.runs_folder())) if self.runs_folder else Path.home()

    # --- drawing --------------------------------------------------------------------------------
    def _draw(self) -> None:
        for plot in self.plots.values():
            plot.clear()
        self.legend.clear()
        self.lines = [self._draw_run(i, c) for i, c in enumerate(self.curves)]
        last = max((c.epochs[-1] for c in self.curves if c.epochs), default=0)
        for plot in self.plots.values():
            integer_epochs(plot, last)
        self._fill_table()
        empty = [c.name for c in self.curves if not c.epochs]
        self.status.setText(
            f"No epochs yet in: {', '.join(empty)}."
            if empty
            else (NO_RUNS if not self.curves else "Add another run to compare." if len(self.curves) < 2 else "")
        )

    def _draw_run(self, i: int, curves: RunCurves) -> dict[str, pg.PlotDataItem]:
        colour = RUN_COLOURS[i % len(RUN_COLOURS)]
        pen, brush = pg.mkPen(colour, width=2), pg.mkBrush(colour)
        lines = {}
        for key, values in (("val_mel", curves.val_mel), ("epoch_s", curves.epoch_s)):
            lines[key] = self.plots[key].plot(
                curves.epochs, values, pen=pen, symbol="o", symbolSize=5, symbolBrush=brush, connect="finite"
            )
        self.legend.addItem(lines["val_mel"], curves.name)
        return lines

    def _fill_table(self) -> None:
        self.table.setRowCount(len(self.curves))
        for row, c in enumerate(self.curves):
            best = "—" if c.best_val_mel is None else f"{c.best_val_mel:.4f}"
            total = duration(c.total_s) if c.epochs else "—"
            cells = (c.name, str(len(c.epochs)), best, total, duration(c.median_epoch_s))
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column == 0:
                    item.setData(Qt.ItemDataRole.DecorationRole, QColor(*RUN_COLOURS[row % len(RUN_COLOURS)]))
                    item.setToolTip(str(self.folders[row]))
                self.table.setItem(row, column, item)
        self.table.resizeColumnsToContents()
