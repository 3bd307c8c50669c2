"""The Train page's charts (Qt offscreen): legends beside the plots, per-loss toggles, a log-scale y axis, a
visible point for a run of one epoch, the app palette."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, QRectF
from PySide6.QtGui import QPalette

pytestmark = pytest.mark.gui

SERIES = {  # as a first epochs' losses are: train_kl near 500, the rest near 1
    "train_mel": ([1, 2, 3], [1.9, 1.4, 1.2]),
    "val_mel": ([1, 2, 3], [1.8, 1.5, 1.3]),
    "train_kl": ([1, 2, 3], [480.0, 40.0, 3.0]),
    "train_dur": ([1, 2, 3], [1.2, 1.1, 1.0]),
}


def _shown(qtbot, widget, width=700, height=260):
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _global_rect(widget) -> QRect:
    return QRect(widget.mapToGlobal(QPoint(0, 0)), widget.size())


def _view_box_rect(view, graphics_view) -> QRect:
    """The plot's data area in global pixels."""
    scene_rect = view.sceneBoundingRect()
    polygon = graphics_view.mapFromScene(scene_rect)
    local = polygon.boundingRect()
    return QRect(graphics_view.mapToGlobal(local.topLeft()), local.size())


def test_loss_legend_beside_the_plot_not_over_it(qtbot):
    """The legend (checkboxes) never covers the data area, also when the chart is short, and is not cut off."""
    from studio.widgets.train_charts import MIN_HEIGHT, LossChart

    chart = _shown(qtbot, LossChart(), height=MIN_HEIGHT)  # asked for less than its legend needs: it keeps that
    chart.set_series(SERIES)
    qtbot.wait(50)
    plot_area = _view_box_rect(chart.plot.vb, chart.plot_widget)
    legend = _global_rect(chart.legend)
    assert plot_area.width() > 100 and not plot_area.intersects(legend)
    for box in [*chart.legend.boxes.values(), chart.legend.log_scale]:  # each fully inside the chart
        assert _global_rect(chart).contains(_global_rect(box)), box.text()
    assert MIN_HEIGHT <= chart.minimumHeight() <= MIN_HEIGHT + 60 and chart.height() >= chart.minimumHeight()


def test_a_fine_tunes_decoder_losses_are_listed_only_where_the_run_has_them(qtbot):
    """A fine-tune's ``stft`` and ``prior_mel`` (train and val) get legend rows and curves once they have values, the
    legend still whole beside the plot; a run without them (from scratch) lists VITS's losses alone, and a loss
    hidden before the legend grows stays hidden."""
    from studio.widgets.train_charts import LOSSES, LossChart

    chart = _shown(qtbot, LossChart())
    chart.set_series(SERIES)
    assert set(chart.legend.boxes) == {name for name, _, _ in LOSSES}
    chart.legend.boxes["train_kl"].setChecked(False)
    decoder = {
        f"{split}_{kind}": ([1, 2, 3], [0.9, 0.8, 0.7]) for split in ("train", "val") for kind in ("stft", "prior_mel")
    }
    chart.set_series({**SERIES, **decoder})
    qtbot.wait(50)
    assert set(decoder) <= set(chart.legend.boxes) and not chart.legend.shown("train_kl")
    assert list(chart.curve("val_prior_mel").getData()[0]) == [1, 2, 3] and chart.curve("val_prior_mel").isVisible()
    chart.resize(chart.width(), chart.minimumHeight())
    qtbot.wait(50)
    assert not _view_box_rect(chart.plot.vb, chart.plot_widget).intersects(_global_rect(chart.legend))
    for box in [*chart.legend.boxes.values(), chart.legend.log_scale]:
        assert _global_rect(chart).contains(_global_rect(box)), box.text()
    chart.set_series(SERIES)
    assert "train_stft" not in chart.legend.boxes and not chart.curve("train_stft").getData()[0]


def test_epoch_chart_legend_beside_the_plot(qtbot):
    from studio.widgets.train_charts import EpochChart

    chart = _shown(qtbot, EpochChart())
    chart.set_epochs([(0, [10.0, 2.0, 1.0, 0.5]), (1, [9.0, 2.0, 0.0, 0.4])])
    qtbot.wait(50)
    assert chart.legend not in chart.plot.vb.addedItems  # in the layout's next column, not in the view box
    legend = chart.legend.sceneBoundingRect()
    assert not legend.intersects(chart.plot.vb.sceneBoundingRect())
    assert QRectF(chart.rect()).contains(legend)
    assert [label.text for _, label in chart.legend.items] == ["train", "validation", "previews", "checkpoint wait"]


@pytest.mark.parametrize("size", [(700, 260), (440, 124)], ids=["roomy", "smallest"])
def test_step_chart_stacks_each_epoch_to_100_percent_with_its_legend_beside(qtbot, size):
    """Each epoch's step parts stack to 100%; the legend (beside the plot, whole) gives the latest epoch's shares;
    in the chart's size at the smallest window (1024x640) it takes two columns and still fits whole."""
    from studio.widgets.step_chart import STEP_LABELS, StepChart

    chart = _shown(qtbot, StepChart(), *size)
    chart.set_epochs([(0, [1.0, 5.0, 2.0, 1.0, 0.5, 0.5, 0.0]), (1, [0.5, 4.0, 4.0, 1.0, 0.25, 0.25, 0.0])], recorded=2)
    qtbot.wait(50)
    tops = [bars.opts["y0"][1] + bars.opts["height"][1] for bars in chart._bars]
    assert tops[-1] == pytest.approx(100.0) and tops == sorted(tops)
    assert [label.text for _, label in chart.legend.items][1:3] == ["generator 40%", "alignment 40%"]
    assert len(chart.legend.items) == len(STEP_LABELS)
    legend = chart.legend.sceneBoundingRect()
    assert not legend.intersects(chart.plot.vb.sceneBoundingRect()) and QRectF(chart.rect()).contains(legend)
    assert chart.plot.vb.sceneBoundingRect().width() > 20 and chart.legend.items[1][1].opts["bold"]
    small = size[1] < 200
    assert chart.legend.columnCount == (2 if small else 1)
    assert chart.plot.titleLabel.text == ("epoch 2" if small else "shares of epoch 2")


def test_log_scale_toggle_changes_the_axis(qtbot):
    from studio.widgets.train_charts import LossChart

    chart = _shown(qtbot, LossChart())
    chart.set_series(SERIES)
    assert chart.legend.log_scale.isChecked() and chart.plot.getAxis("left").logMode
    low, high = chart.plot.vb.viewRange()[1]
    assert low < 0.1 and high < 3.5  # log10: 1.0 .. 480 spans about 0 .. 2.7
    chart.legend.log_scale.setChecked(False)
    assert not chart.plot.getAxis("left").logMode
    chart.plot.vb.autoRange()
    assert chart.plot.vb.viewRange()[1][1] > 400


def test_hiding_a_loss_hides_its_curve_and_rescales(qtbot):
    """Unchecking train_kl hides its curve; on a linear axis the others then fill the plot."""
    from studio.widgets.train_charts import LossChart

    chart = _shown(qtbot, LossChart())
    chart.legend.log_scale.setChecked(False)
    chart.set_series(SERIES)
    kl = chart.curve("train_kl")
    assert kl.isVisible()
    chart.legend.boxes["train_kl"].click()
    assert not kl.isVisible() and chart.curve("train_mel").isVisible()
    chart.plot.vb.autoRange()
    assert chart.plot.vb.viewRange()[1][1] < 3
    chart.set_series(SERIES)  # new epochs keep the user's choice
    assert not kl.isVisible()


def test_a_single_epoch_shows_its_point(qtbot):
    """A run stopped after one epoch: each loss is one point, drawn as a symbol inside the view."""
    from studio.widgets.train_charts import EpochChart, LossChart

    chart = _shown(qtbot, LossChart())
    chart.set_series({"train_mel": ([1], [1.7]), "val_mel": ([1], [1.6])})
    qtbot.wait(50)
    curve = chart.curve("train_mel")
    assert curve.opts["symbol"] and curve.isVisible()
    (x_low, x_high), (y_low, y_high) = chart.plot.vb.viewRange()
    assert x_low < 1 < x_high and y_low < 0.230 < y_high  # log10(1.7)
    points = curve.scatter.points()
    assert len(points) == 1 and points[0].size() >= 5
    epochs = _shown(qtbot, EpochChart())
    epochs.set_epochs([(0, [10.0, 1.0, 0.0, 0.0])])
    (x_low, x_high), _ = epochs.plot.vb.viewRange()
    assert x_low < 0.6 and x_high > 1.4


def test_charts_use_the_app_palette(qtbot):
    """Backgrounds are the palette's base colour, axis text its text colour: a dark palette gives dark charts."""
    from studio.widgets.step_chart import StepChart
    from studio.widgets.train_charts import EpochChart, LossChart

    for chart in (_shown(qtbot, LossChart()), _shown(qtbot, EpochChart()), _shown(qtbot, StepChart())):
        palette = chart.palette()
        palette.setColor(QPalette.ColorRole.Base, "#202020")
        palette.setColor(QPalette.ColorRole.WindowText, "#eeeeee")
        chart.setPalette(palette)
        graphics = chart.plot_widget if isinstance(chart, LossChart) else chart
        assert graphics.backgroundBrush().color().name() == "#202020"
        assert chart.plot.getAxis("left").textPen().color().name() == "#eeeeee"
        if not isinstance(chart, LossChart):
            assert all("#eeeeee" in label.item.toHtml() for _, label in chart.legend.items)
