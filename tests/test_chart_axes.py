"""Chart axes a person can read (Qt offscreen): log-axis tick labels never overlap, epoch axes count whole
epochs without an SI prefix even when empty, one selected run shows its own epoch times."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QTableWidgetItem
from test_run_curves import _run

pytestmark = pytest.mark.gui


def _shown(qtbot, widget, width=700, height=200):
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    qtbot.wait(50)
    return widget


def _labels(axis):
    """(pixel position, text) of each labelled tick for the axis's current view range and length."""
    low, high = axis.range
    length = axis.geometry().height() if axis.orientation in ("left", "right") else axis.geometry().width()
    ticks = []
    for spacing, values in axis.tickValues(low, high, length):
        for value, text in zip(values, axis.tickStrings(values, axis.scale, spacing), strict=True):
            ticks.append(((value - low) / (high - low) * length, text))
    return sorted(ticks)


@pytest.mark.parametrize(
    ("values", "height"),
    [([480.0, 40.0, 3.0, 1.2, 0.9], 200), ([9.5, 6.0, 4.0, 3.1], 160), ([2.9, 2.5, 2.2], 200)],
    ids=["three-decades", "within-a-decade", "narrow"],
)
def test_log_axis_tick_labels_do_not_overlap(qtbot, values, height):
    """The loss chart's log y axis labels two or more ticks, each a text line and more apart (10 8 6 5 4 3 jammed
    before), and over several decades only the decades."""
    from studio.widgets.train_charts import LossChart

    chart = _shown(qtbot, LossChart(), height=height)
    epochs = list(range(1, len(values) + 1))
    chart.set_series({"train_kl": (epochs, values)})
    qtbot.wait(50)
    axis = chart.plot.getAxis("left")
    assert axis.logMode
    ticks = _labels(axis)
    line = QFontMetricsF(axis.style["tickFont"] or chart.font()).height()
    positions = [p for p, _ in ticks]
    assert len(ticks) >= 2, ticks
    assert all(b - a >= 1.5 * line for a, b in zip(positions, positions[1:], strict=False)), ticks
    if max(values) / min(values) > 100:
        assert {text for _, text in ticks} <= {"0.1", "1", "10", "100", "1e+03"}, ticks


def test_short_linear_axis_keeps_labels_apart(qtbot):
    """A 40-pixel-high epoch-time chart does not squeeze four labels (0.8 0.6 0.4 0.2) into it."""
    from studio.widgets.train_charts import EpochChart

    chart = _shown(qtbot, EpochChart(), height=120)
    chart.set_epochs([(0, [0.6, 0.1, 0.05, 0.05]), (1, [0.5, 0.1, 0.0, 0.05])])
    qtbot.wait(50)
    axis = chart.plot.getAxis("left")
    ticks = _labels(axis)
    line = QFontMetricsF(chart.font()).height()
    positions = [p for p, _ in ticks]
    assert ticks and all(b - a >= 1.5 * line for a, b in zip(positions, positions[1:], strict=False)), ticks


@pytest.mark.parametrize("height", [120, 130, 140])
def test_short_axis_still_labels_two_values(qtbot, height):
    """The Train → Runs chart of a 30-epoch run (epochs of 55-125 s, a title over the plot) at 1024x640: its
    y axis labels two values a text line apart and draws both (only "0" before)."""
    from studio.widgets.train_charts import EpochChart

    chart = EpochChart()
    chart.setTitle("proof30 · select a second run to compare")
    chart = _shown(qtbot, chart, width=810, height=height)
    chart.set_epochs([(e, [55.0 + 2 * e + (15 if e == 24 else 0), 1.5, 0.8, 0.2]) for e in range(30)])
    qtbot.wait(50)
    axis = chart.plot.getAxis("left")
    ticks = _labels(axis)
    line = QFontMetricsF(axis.style["tickFont"] or chart.font()).height()
    positions = [p for p, _ in ticks]
    assert len(ticks) >= 2 and all(b - a >= line for a, b in zip(positions, positions[1:], strict=False)), ticks
    assert {text for text, _ in _drawn(axis)} >= {"0", "100"}


def test_empty_epoch_axes_count_whole_epochs_without_si_prefix(qtbot):
    """The empty Compare → Runs charts: whole-epoch ticks, no "epoch (x0.001)"; the Train charts the same."""
    from studio.widgets.run_curves import RunCurvesView
    from studio.widgets.train_charts import EpochChart, LossChart

    view = _shown(qtbot, RunCurvesView(), height=500)
    charts = [_shown(qtbot, EpochChart()), _shown(qtbot, LossChart())]
    axes = [plot.getAxis("bottom") for plot in [*view.plots.values(), *(chart.plot for chart in charts)]]
    for axis in axes:
        assert axis.autoSIPrefixScale == 1.0 and "x0.001" not in axis.labelString()
        values = [v for _, level in axis.tickValues(*axis.range, axis.geometry().width()) for v in level]
        assert values and all(float(v).is_integer() for v in values), values


def test_one_selected_run_shows_its_own_epoch_times(qtbot, tmp_path):
    """Train → Runs with one run selected draws that run's bars (before: "Select two runs…" and nothing)."""
    from studio.widgets.runs_table import RunsTable
    from trainer.events.run_state import load_run

    folder = _run(tmp_path / "runs" / "solo", [1.4, 1.2], [3.0, 2.0])
    table = _shown(qtbot, RunsTable(tmp_path / "runs"), height=400)
    assert table.table.verticalHeader().isHidden()  # no row numbers beside the runs' names
    table.runs = [load_run(folder)]
    table.table.setRowCount(1)
    table.table.setItem(0, 0, QTableWidgetItem("solo"))
    table.table.selectRow(0)
    assert [epoch for epoch, _ in table.compare.data] == [0, 1]
    assert "solo" in table.compare._title and "Select two" not in table.compare._title
    table.table.clearSelection()
    assert table.compare.data == []


def _drawn(axis) -> list[tuple[str, object]]:
    """The tick labels pyqtgraph draws (text, rect in the axis's coordinates), as its paint would."""
    from PySide6.QtGui import QImage, QPainter

    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(text, rect) for rect, _, text in specs[2]]


def test_labels_on_the_end_ticks_are_drawn_inside_the_chart(qtbot):
    """The reported run's losses (1.28 to 10.7) on a short log axis draw both "1" (the bottom tick; left out
    before) and "10"; the mel view's "80" at its top is drawn whole inside the widget (clipped before)."""
    import numpy as np

    from studio.widgets.clip_view import ClipView
    from studio.widgets.train_charts import LossChart

    chart = _shown(qtbot, LossChart(), width=420, height=130)
    chart.set_series({"val_mel": ([1, 2], [1.2848, 1.9656]), "train_kl": ([1, 2], [10.74, 7.53])})
    qtbot.wait(50)
    assert [text for text, _ in _drawn(chart.plot.getAxis("left"))] == ["1", "10"]

    view = _shown(qtbot, ClipView(), width=700, height=220)
    with qtbot.waitSignal(view.mel_drawn, timeout=60_000):  # its "drawing…" title gone
        view.set_clip(np.zeros(22050, np.float32), 22050, "silence")
    qtbot.wait(50)
    axis = view.mel.getPlotItem().getAxis("left")
    drawn = dict(_drawn(axis))
    assert "80" in drawn, drawn
    top = axis.mapRectToScene(drawn["80"]).top()
    assert top >= view.mel.sceneRect().top(), (top, view.mel.sceneRect())
