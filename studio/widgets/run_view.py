"""A training run drawn live: speed and ETAs, the epoch-time chart (and, in the tab beside it, where the
training steps' time goes), loss curves, and beside them the voice's quality over the epochs (the canary
evaluations, with their noise bands), milestones, previews, log.

``show_state`` redraws from a ``trainer.events.run_state.RunState``; a preview plays from its list
(``studio.widgets.preview_list``), the log follows the newest line (``studio.widgets.run_log``).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from studio.widgets.best_row import BestRowView
from studio.widgets.compact import MinimumKeepingSplitter
from studio.widgets.elided_label import CornerLine, ElidedLabel
from studio.widgets.preview_list import PreviewList
from studio.widgets.quality_chart import MEASURES as QUALITY
from studio.widgets.quality_chart import QualityChart
from studio.widgets.run_log import RunLog
from studio.widgets.runs_table import duration
from studio.widgets.step_chart import StepChart
from studio.widgets.train_charts import ALL_LOSSES, MIN_HEIGHT, EpochChart, LossChart
from trainer.evaluate.run_measures import run_verdict
from trainer.events.run_state import RunState
from trainer.run.presets import SMOKE_TEST, is_smoke_test

STATS_SEPARATOR = " · "
"""Between the stats line's parts (``studio.widgets.run_status.stats_line``)."""


class RunView(QWidget):
    """The live part of the Train page.

    Signals:
        message(str): e.g. a preview that cannot be played.
    """

    message = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.stats: ElidedLabel = ElidedLabel("", separator=STATS_SEPARATOR)
        """The stats line (:func:`stats_line`): the parts that fit its width, all of them in its tooltip."""
        self.epoch_chart, self.step_chart, self.loss_chart = EpochChart(), StepChart(), LossChart()
        self.milestones = QTableWidget(0, 2)
        self.milestones.setHorizontalHeaderLabels(("epoch", "train time"))
        self.milestones.setToolTip(MILESTONES_TIP)
        self.milestones.horizontalHeader().setStretchLastSection(True)
        self.milestones.verticalHeader().setVisible(False)  # row numbers would repeat the epoch column
        self.previews = PreviewList()
        self.previews.message.connect(self.message)
        self.log = RunLog()
        self.quality = QualityChart()
        """The canary evaluations' measures per epoch (WER, similarity, DNSMOS, F0 gap), beside the loss curves."""

        self.time_tabs = QTabWidget()
        """The epoch-time chart and the training-step chart, one shown at a time."""
        self.time_tabs.setDocumentMode(True)  # no frame: the charts keep the height
        self.time_tabs.addTab(self.epoch_chart, "Epoch time")
        self.time_tabs.addTab(self.step_chart, "Training step")
        room = MIN_HEIGHT - self.time_tabs.tabBar().sizeHint().height()  # the tabs with their bar: one chart's height
        for chart in (self.epoch_chart, self.step_chart):
            chart.setMinimumHeight(room)
        charts = MinimumKeepingSplitter(Qt.Orientation.Vertical)
        charts.addWidget(self.time_tabs)
        charts.addWidget(self.loss_chart)
        side = self.side = QTabWidget()
        side.addTab(self.quality, "Quality")
        side.addTab(self.milestones, "Milestones")
        side.addTab(self.previews, "Previews")
        side.addTab(self.log, "Log")
        side.setUsesScrollButtons(False)  # its splitter keeps every tab's title in view
        live = MinimumKeepingSplitter()
        live.addWidget(charts)
        live.addWidget(side)
        live.setStretchFactor(0, 1)
        live.setStretchFactor(1, 1)
        live.setSizes([11, 9])  # the log's sentences need room nearly as much as the charts; the handle moves
        self.live = live
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)  # inside the tab's frame: the charts get the height
        layout.setSpacing(4)
        layout.addWidget(self.stats)
        self.best_row = BestRowView()
        """The best checkpoint's leaderboard row (the page measures and fills it)."""
        layout.addWidget(self.best_row)
        layout.addWidget(live, 1)

    def put_stats_beside(self, tabs: QTabWidget) -> None:
        """Show the stats line in ``tabs``' corner, beside its tab bar, instead of above the charts (a line less for
        them); it never takes room the tabs need (``studio.widgets.elided_label.CornerLine``)."""
        text = self.stats.text()
        layout = self.layout()
        if layout is not None:
            layout.removeWidget(self.stats)
        self.stats.deleteLater()
        self.stats = CornerLine(tabs, STATS_SEPARATOR)
        self.stats.setText(text)
        tabs.setCornerWidget(self.stats)

    def clear(self) -> None:
        """Forget the previews and the log (a new run is shown)."""
        self.previews.clear()
        self.log.clear()

    def expect_previews(self) -> None:
        """Previews were asked for: the Previews tab is shown, saying they are on their way."""
        self.side.setCurrentWidget(self.previews)
        self.previews.expect()

    def show_stats(self, state: RunState, now: float | None = None) -> None:
        """Redraw the stats line only: its train time moves on between events (``now``: Unix seconds)."""
        from studio.widgets.run_status import lr_tooltip

        line = stats_line(state, now)
        self.stats.setText(line)
        self.stats.setToolTip("\n\n".join(filter(None, (line.replace(STATS_SEPARATOR, "\n"), lr_tooltip(state)))))

    def show_state(self, state: RunState) -> None:
        """Redraw everything from ``state``."""
        self.epoch_chart.set_epochs(state.epoch_split())
        self.step_chart.set_epochs(state.step_split(), recorded=len(state.epochs))
        self.loss_chart.set_series({name: state.series(name) for name, _, _ in ALL_LOSSES})
        quality = {name: state.evaluation_series(name) for name, *_ in QUALITY}
        latest = state.evaluations[max(state.evaluations)] if state.evaluations else None
        reasons = (latest.errors or {}) if latest is not None else {}
        self.quality.set_evaluations(quality, state.noise_bands, state.epochs_done, reasons)
        said = run_verdict(state)
        self.quality.set_verdict(said.sentence if said is not None else "")
        self.show_stats(state)
        self.milestones.setRowCount(0)
        for epoch, seconds in state.milestones():
            if seconds is None:  # not reached: listed once it is, never as a placeholder
                continue
            row = self.milestones.rowCount()
            self.milestones.insertRow(row)
            self.milestones.setItem(row, 0, QTableWidgetItem(f"{epoch:,}"))
            self.milestones.setItem(row, 1, QTableWidgetItem(duration(seconds)))
        self.previews.add_previews(state.previews)


MILESTONES_TIP = (
    "The run's train time (its epochs' wall time, as the Runs tab counts it) when it finished epochs 100, 250, 500 "
    "and 1,000 (a shorter run: its quarters), each listed once reached"
)


def stats_line(state: RunState, now: float | None = None) -> str:
    """Epoch, speed, train time, ETAs, learning rate and GPU memory, in one line (``studio.widgets.run_status``)."""
    from studio.widgets.run_status import stats_line as line

    return line(state, now)


def following_line(state: RunState, now: float | None = None) -> str:
    """The status line while a trainer works (``studio.widgets.run_status``)."""
    from studio.widgets.run_status import following_line as line

    return line(state, now)


def outcome_line(state: RunState | None, code: int, crashed: bool) -> str:
    """The status line when the trainer process ended with exit ``code`` (``crashed``: killed)."""
    status = state.status if state else "failed"
    if state is not None and status in ("done", "stopped") and code == 0:
        verb = "Finished" if status == "done" else "Stopped"
        smoke = f" A {SMOKE_TEST} (test preset)." if is_smoke_test(state.preset) else ""
        return f"{verb} after epoch {state.epochs_done}.{smoke}" + ("" if status == "done" else " Resume any time.")
    why = "was killed" if crashed else f"exited with code {code}"
    where = f" The run resumes from epoch {state.epochs_done + 1}." if state and state.resumable else ""
    said = html.escape(state.error, quote=False) if state and state.error else ""  # as written: a path may hold "<"
    error = f" ({said})" if said else ""
    return f"<span style='color:#b91c1c'>Error: the trainer {why}{error}.{where}</span>"
