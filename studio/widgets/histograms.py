"""Histograms of a dataset's measurements (pyqtgraph), from ``trainer.dataset.report.Report``."""

from __future__ import annotations

import pyqtgraph as pg


class HistogramPanel(pg.GraphicsLayoutWidget):
    """One bar chart per histogram of the report, side by side."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setMinimumHeight(160)
        self.bars: dict[str, pg.BarGraphItem] = {}

    def show_report(self, report) -> None:
        """Draw ``report.histograms`` (edges and counts per measurement); ``None`` clears the panel."""
        self.clear()
        self.bars = {}
        for column, (name, hist) in enumerate(report.histograms.items() if report is not None else ()):
            plot = self.addPlot(row=0, col=column, title=hist.title)
            plot.setLabel("bottom", hist.unit)
            plot.setLabel("left", "clips")
            plot.setMouseEnabled(x=False, y=False)
            plot.hideButtons()
            lefts, rights = hist.edges[:-1], hist.edges[1:]
            bars = pg.BarGraphItem(x0=lefts, x1=rights, height=hist.counts, brush="#3b82f6", pen=pg.mkPen("#1e40af"))
            plot.addItem(bars)
            self.bars[name] = bars
