"""Histograms of a dataset's measurements (pyqtgraph), from ``trainer.dataset.report.Report``, drawn in the
app's palette (background, text and axes follow a light or dark theme; the bars use its highlight colour)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QEvent
from PySide6.QtGui import QPalette

from studio.widgets.axes import readable_axes


class HistogramPanel(pg.GraphicsLayoutWidget):
    """One bar chart per histogram of the report, side by side."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setMinimumHeight(160)
        self.bars: dict[str, pg.BarGraphItem] = {}
        self.note = ""
        """What the histograms leave out, shown below them
        (e.g. ``2 clips with broken sample values not in the histograms``)."""
        self._report = None
        self._apply_palette()

    def _colors(self) -> tuple:
        """(background, text, bar fill, bar outline) from the widget's palette."""
        palette = self.palette()
        role = QPalette.ColorRole
        return tuple(palette.color(r) for r in (role.Base, role.Text, role.Highlight, role.Mid))

    def _apply_palette(self) -> None:
        self.setBackground(self._colors()[0])

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt override
        """The app's palette changed (light <-> dark): draw again in the new colours."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "note"):  # not from the base constructor
            self._apply_palette()
            if self._report is not None:
                self.show_report(self._report)

    def show_report(self, report) -> None:
        """Draw ``report.histograms`` (edges and counts per measurement, clips with broken sample values left out)
        and, below them, how many clips they leave out (``report.not_counted``)."""
        self.show_nothing()
        self._report = report
        _, text, fill, outline = self._colors()
        self.note = report.not_counted
        if self.note and report.histograms:
            self.addLabel(self.note, row=1, col=0, colspan=len(report.histograms), color=text)
        for column, (name, hist) in enumerate(report.histograms.items()):
            plot = self.addPlot(row=0, col=column, axisItems=readable_axes())
            plot.setTitle(hist.title, color=text)
            for side, words in (("bottom", hist.unit), ("left", "clips")):
                axis = plot.getAxis(side)
                axis.setPen(pg.mkPen(text))
                axis.setTextPen(pg.mkPen(text))
                plot.setLabel(side, words, color=text.name())
            plot.setMouseEnabled(x=False, y=False)
            plot.hideButtons()
            lefts, rights = hist.edges[:-1], hist.edges[1:]
            bars = pg.BarGraphItem(x0=lefts, x1=rights, height=hist.counts, brush=fill, pen=pg.mkPen(outline))
            plot.addItem(bars)
            self.bars[name] = bars

    def show_nothing(self) -> None:
        """No project: no charts, no note (none of a project shown before stays)."""
        self.clear()
        self.bars, self.note, self._report = {}, "", None
