"""Chart axes a person can read (pyqtgraph): tick labels that never overlap, at any size.

pyqtgraph's own axis labels minor ticks when it thinks they fit, which jams them on a short axis ("0.8 0.6 0.4
0.2" in 40 px) and on a log axis ("10 8 6 5 4 3"). :class:`ReadableAxis` draws one level of ticks, spaced at
least :func:`min_gap` pixels apart (one text line on an axis too short for two such ticks): on a linear axis
1, 2 or 5 times a power of ten, on a log axis the decades (1, 10, 100), or 1-2-5 within a decade when the range
holds fewer than two decades, or evenly spaced values on a narrower range. It never scales its labels by an SI
prefix ("x0.001"): the unit is in the axis label. A label on the first or last tick is drawn (pyqtgraph leaves
it out when a grid is on); :func:`room_for_top_tick` keeps one at the top inside the widget.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetricsF

MANTISSAS = ((1,), (1, 2, 5), (1, 2, 3, 4, 5, 6, 7, 8, 9))
"""Tick values within a decade on a log axis, tried in this order until two or more ticks show."""


def nice_step(least: float) -> float:
    """The smallest of 1, 2, 5 times a power of ten that is at least ``least`` (> 0)."""
    power = 10.0 ** math.floor(math.log10(least))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= least * (1 - 1e-9))


def spaced(values: list[float], gap: float) -> list[float]:
    """``values`` (ascending) thinned so that neighbours are at least ``gap`` apart, keeping the first."""
    kept: list[float] = []
    for value in values:
        if not kept or value - kept[-1] >= gap * (1 - 1e-9):
            kept.append(value)
    return kept


def ticks_within(low: float, high: float, step: float) -> int:
    """How many multiples of ``step`` (> 0) lie in ``[low, high]``."""
    low, high = min(low, high), max(low, high)
    return max(0, math.floor(high / step + 1e-9) - math.ceil(low / step - 1e-9) + 1)


class ReadableAxis(pg.AxisItem):
    """An axis whose tick labels keep apart (see the module docstring); ``integer`` keeps ticks on whole
    numbers (epochs) whatever the range, an empty chart's included."""

    def __init__(self, orientation: str, *, integer: bool = False, **kwargs) -> None:
        super().__init__(orientation, **kwargs)
        self.integer = integer
        self.enableAutoSIPrefix(False)

    def min_gap(self) -> float:
        """Pixels between two tick labels: 1.6 text lines on a vertical axis, about six characters across."""
        metrics = QFontMetricsF(self.style["tickFont"] or QFont())
        return 1.6 * metrics.height() if self.orientation in ("left", "right") else 6.0 * metrics.averageCharWidth()

    def boundingRect(self):  # noqa: N802 - pyqtgraph override
        """pyqtgraph's, plus half a text line past each end of a vertical axis: a label on the last tick (a
        decade at the bottom of a log axis, 80 mel bands at the top) is drawn rather than left out (with a grid
        pyqtgraph gives it no room). A horizontal axis keeps pyqtgraph's: its end label could fall off the widget
        where no left axis is shown (the waveform)."""
        rect = super().boundingRect()
        if self.orientation not in ("left", "right"):
            return rect
        half = QFontMetricsF(self.style["tickFont"] or QFont()).height() / 2 + 1
        return rect.adjusted(0, -half, 0, half)

    def tickSpacing(self, minVal: float, maxVal: float, size: float):  # noqa: N802, N803 - pyqtgraph override
        """One level of ticks at the nicest step that keeps labels ``min_gap`` apart; on an axis too short for two
        such ticks, the step that keeps them one text line apart, so it still shows two values (a 34-pixel
        epoch-time axis of 0 to 140 s showed only "0": the next tick at 200 s lay outside it)."""
        if self._tickSpacing is not None:
            return self._tickSpacing
        span = abs(maxVal - minVal)
        if span == 0 or size <= 0:
            return []
        step = self._step(span * self.min_gap() / size)
        if ticks_within(minVal, maxVal, step) < 2:
            line = QFontMetricsF(self.style["tickFont"] or QFont()).height()
            tighter = self._step(span * line / size)
            step = tighter if ticks_within(minVal, maxVal, tighter) >= 2 else step
        return [(step, 0)]

    def _step(self, least: float) -> float:
        """The nice step at least ``least`` apart, whole numbers on an ``integer`` axis."""
        step = nice_step(least)
        return max(step, 1.0) if self.integer else step

    def logTickValues(self, minVal, maxVal, size, stdTicks):  # noqa: N802, N803 - pyqtgraph override
        """Decades (``log10`` values) spaced ``min_gap`` apart, or 1-2-5 (then 1..9) within a decade when fewer
        than two decades show."""
        gap = abs(maxVal - minVal) * self.min_gap() / max(size, 1.0)
        kept: list[float] = []
        for mantissas in MANTISSAS:
            values = [k + math.log10(m) for k in range(math.floor(minVal), math.ceil(maxVal) + 1) for m in mantissas]
            kept = spaced([v for v in values if minVal <= v <= maxVal], gap)
            if len(kept) >= 2:
                return [(None, kept)]
        return [(None, spaced(self._linear_in_log(minVal, maxVal, size), gap))]

    def _linear_in_log(self, low: float, high: float, size: float) -> list[float]:
        """Ticks of a range narrower than 1 to 2 (log10 ``low`` .. ``high``): evenly spaced values, as log10."""
        first, last = 10.0**low, 10.0**high
        step = nice_step((last - first) * self.min_gap() / max(size, 1.0))
        count = math.floor(last / step) - math.ceil(first / step) + 1
        return [math.log10((math.ceil(first / step) + i) * step) for i in range(max(count, 0))]

    def logTickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph override
        """Plain numbers (0.01, 500) from 0.001 to 100000, pyqtgraph's 10ⁿ beyond."""
        plain = [10.0**v * scale for v in values]
        if all(1e-3 <= p < 1e5 for p in plain):
            return [f"{p:.3g}" for p in plain]
        return super().logTickStrings(values, scale, spacing)


def readable_axes(*, epochs: bool = False) -> dict[str, ReadableAxis]:
    """``axisItems`` for a plot: readable left and bottom axes, the bottom one on whole epochs if ``epochs``."""
    return {"left": ReadableAxis("left"), "bottom": ReadableAxis("bottom", integer=epochs)}


def room_for_top_tick(plot: pg.PlotItem) -> None:
    """Half a text line over the plot, so a tick label at the very top (80 mel bands) shows whole."""
    left, _, right, bottom = plot.layout.getContentsMargins()
    plot.layout.setContentsMargins(left, QFontMetricsF(QFont()).height() / 2 + 2, right, bottom)
