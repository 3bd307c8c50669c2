"""Training charts (pyqtgraph): the wall time of each epoch split into its parts, and loss curves.

Each chart keeps the data it draws (``data``), which the tests read, and redraws from it; it holds no
training logic. Legends sit beside the plot, never over the data; backgrounds, axes and text take the
app palette (light and dark alike); curves carry a symbol per epoch, so a run of one epoch shows its point.
The loss chart lets each loss be shown or hidden and its y axis be logarithmic (``train_kl`` starts near
500 while the others are near 1: on a linear axis it flattens them).
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QPalette, QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QSizePolicy, QWidget

from studio.widgets.axes import ReadableAxis, readable_axes, room_for_top_tick
from studio.widgets.loss_legend import LossLegend
from trainer.events.schema import SPLIT

PARTS = tuple(
    zip(
        SPLIT,
        ("train", "validation", "previews", "checkpoint wait"),
        ((59, 130, 246), (16, 185, 129), (245, 158, 11), (239, 68, 68)),
        strict=True,
    )
)
"""Epoch parts in stacking order (``trainer.events.schema.Epoch.split``): event field, label, colour."""
LOSSES = (
    ("train_mel", (59, 130, 246), False),
    ("val_mel", (59, 130, 246), True),
    ("train_kl", (16, 185, 129), False),
    ("val_kl", (16, 185, 129), True),
    ("train_dur", (245, 158, 11), False),
    ("val_dur", (245, 158, 11), True),
    ("train_gen", (139, 92, 246), False),
    ("train_disc", (239, 68, 68), False),
)
"""Loss curves: name, colour, dashed (validation)."""
DECODER_LOSSES = (
    ("train_stft", (236, 72, 153), False),
    ("val_stft", (236, 72, 153), True),
    ("train_prior_mel", (100, 116, 139), False),
    ("val_prior_mel", (100, 116, 139), True),
)
"""The decoder's own losses (``trainer.gan.decoder_losses``), drawn and listed in the legend only for a run that
has them (a fine-tune; not a run from scratch or one written before them)."""
ALL_LOSSES = LOSSES + DECODER_LOSSES
"""Every loss curve the chart can draw."""
MIN_HEIGHT = 120
LEGEND_MARGIN = 9
"""Pixels above and below a legend in its chart (pyqtgraph's layout margins)."""
"""Pixels below which a chart stops shrinking (its axes, ticks and a few curves still read); the loss chart also
keeps its whole legend."""


def integer_epochs(plot: pg.PlotWidget | pg.PlotItem, last: int) -> None:
    """Ticks on whole epochs only, never SI-scaled ("x0.001"), up to ``last``: as far apart as the axis's width
    needs (a :class:`ReadableAxis`), else 1, 2, 5, 10, 20, 50... apart, about 10 of them."""
    axis = plot.getAxis("bottom")
    axis.enableAutoSIPrefix(False)
    if isinstance(axis, ReadableAxis):
        axis.integer = True
    else:
        spacing = next(s for s in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10**9) if last / s <= 10)
        axis.setTickSpacing(spacing, spacing)
    if last < 2:
        plot.setXRange(0.5, 2.5, padding=0)
    else:
        plot.enableAutoRange(axis="x")


def style_plot(plot: pg.PlotItem, palette: QPalette) -> None:
    """Axes, their labels and ticks in the palette's text colour, a faint grid."""
    text = palette.color(QPalette.ColorRole.WindowText)
    for side in ("left", "bottom"):
        axis = plot.getAxis(side)
        axis.setPen(text)
        axis.setTextPen(text)
        axis.setLabel(axis.labelText, units=axis.labelUnits or None, color=text.name())
    plot.showGrid(x=True, y=True, alpha=0.2)


def legend_columns(entries: int, one_column_px: float, room_px: float, most: int = 3) -> int:
    """The fewest legend columns (up to ``most``) whose rows fit ``room_px`` in height, a column of ``entries``
    being ``one_column_px`` high; ``most`` where none does."""
    row = one_column_px / max(1, entries)
    return next((c for c in range(1, most) if math.ceil(entries / c) * row <= room_px), most)


class PlotBeside(pg.GraphicsLayoutWidget):
    """One plot (``plot``) with a legend (``legend``) in the column beside it, in the app palette."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = self.addPlot(row=0, col=0, axisItems=readable_axes(epochs=True))
        room_for_top_tick(self.plot)
        self.legend = pg.LegendItem()
        self.legend.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.addItem(self.legend, row=0, col=1)
        self.setMinimumHeight(MIN_HEIGHT)
        self._title = ""
        self._one_column: float | None = None
        """The legend's height in one column (px), measured by a subclass once its entries are in; ``None``: the
        legend stays in one column."""

    def resizeEvent(self, event: QResizeEvent | None) -> None:  # noqa: N802 - Qt override (pyqtgraph passes None)
        """As few legend columns as let the legend fit the chart's height (:func:`legend_columns`): a legend taller
        than its row pushed the plot's bottom axis, with its title, out of the chart (about 100 px high in a
        1024x640 window)."""
        if getattr(self, "_ready", False) and self._one_column is not None:
            columns = legend_columns(len(self.legend.items), self._one_column, self.height() - 2 * LEGEND_MARGIN)
            if columns != self.legend.columnCount:
                self.legend.setColumnCount(columns)
                self.legend.updateSize()
                self.legend_columns_changed()
        super().resizeEvent(event)

    def legend_columns_changed(self) -> None:
        """Called when the legend changed between one and two columns (for a title that depends on it)."""

    def restyle(self) -> None:
        """Take the palette's colours (called on a palette change, e.g. a dark theme)."""
        palette = self.palette()
        self.setBackground(palette.color(QPalette.ColorRole.Base))
        style_plot(self.plot, palette)
        text = palette.color(QPalette.ColorRole.WindowText)
        self.legend.setLabelTextColor(text)
        for _, label in self.legend.items:  # pyqtgraph keeps an existing label's colour until its text is set
            label.setText(label.text, color=text)
        self.setTitle(self._title)

    def setTitle(self, title: str) -> None:  # noqa: N802 - as pg.PlotWidget names it
        """A line of text over the plot, in the palette's text colour."""
        self._title = title
        colour = self.palette().color(QPalette.ColorRole.WindowText).name()
        self.plot.setTitle(title or None, color=colour, size="9pt")

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.PaletteChange and getattr(self, "_ready", False):
            self.restyle()
        super().changeEvent(event)


def stacked_bars(chart: PlotBeside, parts: tuple[tuple[str, str, tuple[int, int, int]], ...]) -> list[pg.BarGraphItem]:
    """One bar series per ``(name, label, colour)`` of ``parts``, in the chart's plot and legend, in stacking order."""
    series = []
    for _, label, colour in parts:
        bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush=pg.mkBrush(colour))
        chart.plot.addItem(bars)
        chart.legend.addItem(bars, label)
        series.append(bars)
    return series


def stack(series: list[pg.BarGraphItem], xs: list[int], columns: list[list[float]]) -> None:
    """Draw one bar per x, ``columns[i][k]`` of series ``k`` on top of the series before it."""
    base = [0.0] * len(xs)
    for index, bars in enumerate(series):
        heights = [column[index] for column in columns]
        bars.setOpts(x=xs, y0=list(base), height=heights, width=0.8)
        base = [b + h for b, h in zip(base, heights, strict=True)]


class EpochChart(PlotBeside):
    """A stacked bar per epoch: train, validation, previews, checkpoint wait (seconds).

    ``compare`` draws a second run's total epoch time as a line over the bars.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot.setLabel("bottom", "epoch")
        self.plot.setLabel("left", "seconds")
        self.data: list[tuple[int, list[float]]] = []
        self._bars = stacked_bars(self, PARTS)
        self._compare = self.plot.plot([], [], symbol="o", symbolSize=6)
        self.legend.layout.setHorizontalSpacing(4)  # pyqtgraph's 25 px between columns would not fit two
        self._one_column = self.legend.boundingRect().height()
        self._ready = True
        self.restyle()
        integer_epochs(self.plot, 0)

    def restyle(self) -> None:
        """The palette's colours; the compared run's line in the text colour."""
        super().restyle()
        text = self.palette().color(QPalette.ColorRole.WindowText)
        self._compare.setPen(pg.mkPen(text, width=2, style=Qt.PenStyle.DashLine))
        self._compare.setSymbolBrush(text)

    def set_epochs(self, split: list[tuple[int, list[float]]]) -> None:
        """Draw ``[(epoch, [train_s, val_s, preview_s, checkpoint_wait_s])]`` (epochs from 0)."""
        self.data = list(split)
        xs = [epoch + 1 for epoch, _ in self.data]
        stack(self._bars, xs, [parts for _, parts in self.data])
        integer_epochs(self.plot, max(xs, default=0))

    def set_compare(self, split: list[tuple[int, list[float]]]) -> None:
        """Overlay another run's total seconds per epoch (empty list: none)."""
        self._compare.setData([e + 1 for e, _ in split], [sum(parts) for _, parts in split])
        shown = any(label.text == "other run" for _, label in self.legend.items)
        if split and not shown:
            self.legend.addItem(self._compare, "other run")
            self.restyle()
        elif shown and not split:
            self.legend.removeItem(self._compare)


class LossChart(QWidget):
    """Loss curves per epoch (training solid, validation dashed, a symbol on each epoch) and beside them a
    checkable legend: each loss shown or hidden, and a log-scale y axis (on at first).

    Attributes:
        plot_widget: the pyqtgraph widget; ``plot`` its ``PlotItem``. legend: the ``LossLegend``.
        data: ``{name: (epochs, values)}`` as last given.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot_widget = pg.PlotWidget(axisItems=readable_axes(epochs=True))
        self.plot = self.plot_widget.getPlotItem()
        room_for_top_tick(self.plot)
        self.plot.setLabel("bottom", "epoch")
        self.plot.setLabel("left", "loss")
        self.data: dict[str, tuple[list[int], list[float]]] = {}
        self._curves: dict[str, pg.PlotDataItem] = {}
        for name, colour, dashed in ALL_LOSSES:
            style = Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine
            self._curves[name] = self.plot.plot(
                [], [], pen=pg.mkPen(colour, width=2, style=style), symbol="o", symbolSize=6, connect="finite"
            )
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addWidget(self.plot_widget, 1)
        self.legend = self._new_legend(LOSSES)
        self._ready = True
        self.restyle()
        self._on_log(self.legend.log_scale.isChecked())
        integer_epochs(self.plot, 0)

    def _new_legend(self, losses) -> LossLegend:
        """A legend of ``losses`` beside the plot (replacing the one there, its log scale and hidden losses kept),
        and the chart's minimum height set to keep it whole."""
        legend = LossLegend(losses)
        old = getattr(self, "legend", None)
        if old is not None:
            legend.log_scale.setChecked(old.log_scale.isChecked())
            for name, box in legend.boxes.items():
                box.setChecked(old.shown(name))
            self._layout.removeWidget(old)
            old.hide()  # gone now, not when the event loop gets to deleting it
            old.deleteLater()
        legend.toggled.connect(self._on_toggled)
        legend.log_scale.toggled.connect(self._on_log)
        self._layout.addWidget(legend)
        self.setMinimumHeight(max(MIN_HEIGHT, legend.minimumSizeHint().height()))
        return legend

    def curve(self, name: str) -> pg.PlotDataItem:
        """The curve drawn for loss ``name``."""
        return self._curves[name]

    def restyle(self) -> None:
        """Take the palette's colours: background, axes, text; validation symbols hollow (the base colour)."""
        palette = self.palette()
        base = palette.color(QPalette.ColorRole.Base)
        self.plot_widget.setBackground(base)
        style_plot(self.plot, palette)
        for name, colour, dashed in ALL_LOSSES:
            self._curves[name].setSymbolPen(pg.mkPen(colour, width=1.5))
            self._curves[name].setSymbolBrush(base if dashed else QColor(*colour))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.PaletteChange and getattr(self, "_ready", False):
            self.restyle()
        super().changeEvent(event)

    def set_series(self, series: dict[str, tuple[list[int], list[float]]]) -> None:
        """Draw ``{name: (epochs, values)}`` for the names in ``ALL_LOSSES``; the legend lists the decoder's own
        losses (:data:`DECODER_LOSSES`) only where they have values."""
        self.data = {k: v for k, v in series.items() if k in self._curves}
        listed = LOSSES + tuple(loss for loss in DECODER_LOSSES if self.data.get(loss[0], ([], []))[0])
        if set(self.legend.boxes) != {name for name, _, _ in listed}:
            self.legend = self._new_legend(listed)
        self._redraw()
        integer_epochs(self.plot, max((max(xs) for xs, _ in self.data.values() if xs), default=0))

    def _redraw(self) -> None:
        log = self.legend.log_scale.isChecked()
        for name, curve in self._curves.items():
            xs, ys = self.data.get(name, ([], []))
            if log:  # a value <= 0 has no logarithm: a gap there rather than a warning
                ys = [y if y > 0 else math.nan for y in ys]
            curve.setData(xs, ys)
            curve.setVisible(self.legend.shown(name))

    def _on_toggled(self, name: str, shown: bool) -> None:
        self._curves[name].setVisible(shown)
        self.plot.enableAutoRange(axis="y")

    def _on_log(self, on: bool) -> None:
        self.plot.setLogMode(x=False, y=on)
        self.plot.setLabel("left", "loss (log)" if on else "loss")
        self._redraw()
        self.plot.enableAutoRange(axis="y")
