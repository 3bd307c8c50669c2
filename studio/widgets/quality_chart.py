"""The voice's quality over the run (pyqtgraph): the canary evaluations' measures per evaluated epoch, each with
its noise band drawn as a bar (± the band) around the point, so a step smaller than the bars is noise.

Above them the verdict in plain words (still improving / levelled off / getting worse, and the epoch to keep);
four small plots over the same epochs (each set to the run's range: linked views of unequal widths would shift
the narrower one's epochs): WER, speaker similarity, DNSMOS (overall) and the F0 gap
(``trainer.events.run_state.RunState.evaluation_series``); the bands are the run's own
(``RunState.noise_bands``: measured at its first evaluation) or the provisional constants, and the line under the
plots says which. Like the other Train charts (``studio.widgets.train_charts``) it keeps the data it draws
(``data``, ``bands``) and takes the app palette.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from studio.widgets.axes import readable_axes, room_for_top_tick
from studio.widgets.train_charts import MIN_HEIGHT, integer_epochs, style_plot
from trainer.evaluate.bands import Bands

MEASURES = (
    ("wer", "WER ↓", "{:.2f}", (239, 68, 68)),
    ("similarity", "similarity ↑", "{:.3f}", (59, 130, 246)),
    ("dnsmos_ovrl", "DNSMOS ↑", "{:.2f}", (16, 185, 129)),
    ("f0_gap_hz", "F0 gap →0 (Hz)", "{:.1f}", (139, 92, 246)),
)
"""The measures charted: ``trainer.evaluate.board.Row`` field, title (the arrow: which way is better), band
format, colour."""
EMPTY_RANGES = {"wer": (0.0, 1.0), "similarity": (0.0, 1.0), "dnsmos_ovrl": (1.0, 5.0), "f0_gap_hz": (-20.0, 20.0)}
"""The y range of a plot with no point yet: the measure's own scale (WER and similarity 0-1, DNSMOS 1-5 MOS, an F0
gap of ±20 Hz), where an empty plot showed -0.5 to 0.5 (a negative WER or similarity)."""
WAYS = "better: ↓ lower, ↑ higher, →0 closer to 0"
PLOT_ROOM = 72
"""Pixels of one plot row besides its view: its title and the epoch axis below it (at the app's font)."""
LEAST_VIEW = 22
"""Pixels below which a plot's view does not shrink, in the smallest window with the Train page's setup open (it
was left 11 px); at 1024×640 a view gets about 60."""
NONE_YET = (
    "No quality measures in this run yet. A few held-out clips are spoken and measured in the background on the "
    "epochs that preview (Setup → Measure quality; train --eval-every N; the test preset only when asked)."
)


class QualityChart(QWidget):
    """The canary evaluations' measures over epochs, each plot titled with its band.

    Attributes:
        plots: ``{measure: PlotItem}``. data: ``{measure: (epochs from 1, values)}`` as last given. bands: the
            bands drawn. caption: the line under the plots (where the bands come from, or why none is shown).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chart = pg.GraphicsLayoutWidget()
        self.plots: dict[str, pg.PlotItem] = {}
        self._curves: dict[str, pg.PlotDataItem] = {}
        self._bars: dict[str, pg.ErrorBarItem] = {}
        for index, (name, _, _, colour) in enumerate(MEASURES):
            plot = self.chart.addPlot(row=index // 2, col=index % 2, axisItems=readable_axes(epochs=True))
            room_for_top_tick(plot)
            pen = pg.mkPen(colour, width=2)
            self._curves[name] = plot.plot([], [], pen=pen, symbol="o", symbolSize=6, symbolBrush=pg.mkBrush(colour))
            self._bars[name] = pg.ErrorBarItem(beam=0.15, pen=pg.mkPen(colour, width=1))
            plot.addItem(self._bars[name])
            plot.setMouseEnabled(x=False, y=False)
            self.plots[name] = plot
            plot.setYRange(*EMPTY_RANGES[name], padding=0)  # no point yet: the measure's own scale
        self.caption = QLabel(NONE_YET)
        self.caption.setWordWrap(True)
        self.verdict = QLabel("")
        self.verdict.setWordWrap(True)
        self.verdict.setStyleSheet("font-weight: bold")
        self.verdict.setVisible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.verdict)
        layout.addWidget(self.chart, 1)
        layout.addWidget(self.caption)
        layout.addStretch(0)  # nothing measured: the plots hidden, the sentence at the top
        self.chart.setMinimumHeight(2 * (PLOT_ROOM + LEAST_VIEW))
        self.setMinimumHeight(MIN_HEIGHT)
        self.data: dict[str, tuple[list[int], list[float]]] = {name: ([], []) for name, *_ in MEASURES}
        self.bands = Bands()
        self._ready = True
        self.restyle()
        self.set_evaluations({}, Bands())

    def restyle(self) -> None:
        """Take the palette's colours (background, axes, titles)."""
        palette = self.palette()
        self.chart.setBackground(palette.color(QPalette.ColorRole.Base))
        for plot in self.plots.values():
            style_plot(plot, palette)
        self._titles()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.PaletteChange and getattr(self, "_ready", False):
            self.restyle()
        super().changeEvent(event)

    def set_evaluations(
        self,
        series: dict[str, tuple[list[int], list[float]]],
        bands: Bands,
        epochs: int = 0,
        reasons: dict[str, str] | None = None,
    ) -> None:
        """Draw ``{measure: (epochs from 1, values)}`` with ± ``bands`` around each point; the epoch axes reach
        ``epochs`` at least (the run's epochs done, as the loss curves beside them); ``reasons``: why a measure
        was not taken (the latest evaluation's ``errors``), said under the plots for the measures without a
        point."""
        self.data = {name: series.get(name, ([], [])) for name, *_ in MEASURES}
        self.bands = bands
        for name, (xs, ys) in self.data.items():
            self._curves[name].setData(xs, ys)
            band = bands.of(name)
            self._bars[name].setData(x=np.array(xs, float), y=np.array(ys, float), height=np.full(len(xs), 2 * band))
        last = max([epochs, *(max(xs) for xs, _ in self.data.values() if xs)])
        for plot in self.plots.values():
            integer_epochs(plot, last)
            if last >= 2:  # as far as the loss curves go, not only to the last evaluation
                plot.setXRange(1, last, padding=0.05)
        for name, plot in self.plots.items():
            if self.data[name][0]:
                plot.enableAutoRange(axis="y")
            else:  # nothing measured: the measure's own scale, not pyqtgraph's -0.5..0.5 around nothing
                plot.setYRange(*EMPTY_RANGES[name], padding=0)
        self._titles()
        measured = any(xs for xs, _ in self.data.values())
        self.chart.setVisible(measured)  # four empty plots said nothing the sentence does not, in the room it needs
        self.caption.setText(
            f"Bars: ± the noise band ({bands.source}); {WAYS}.{_not_measured(self.data, reasons or {})}"
            if measured
            else NONE_YET
        )

    def set_verdict(self, sentence: str) -> None:
        """Show the verdict over the evaluations (``trainer.evaluate.run_measures.run_verdict``) above the plots;
        "" hides it."""
        self.verdict.setText(sentence)
        self.verdict.setVisible(bool(sentence))

    def _titles(self) -> None:
        """Each plot's title: the measure and its band (or that it was not measured), in the text colour."""
        colour = self.palette().color(QPalette.ColorRole.WindowText).name()
        evaluated = any(xs for xs, _ in self.data.values())
        for name, title, fmt, _ in MEASURES:
            if not evaluated:
                shown = title
            elif not self.data[name][0]:
                shown = f"{title}: not measured"
            else:
                shown = f"{title} ±{fmt.format(self.bands.of(name))}"
            self.plots[name].setTitle(shown, color=colour, size="8pt")


def _not_measured(data: dict[str, tuple[list[int], list[float]]], reasons: dict[str, str]) -> str:
    """`` Not measured: similarity (why).`` for each charted measure without a point that has a reason; "" else."""
    missing = [(name, title.split(" ")[0]) for name, title, *_ in MEASURES if not data[name][0] and name in reasons]
    said = [f"{title} ({reasons[name]})" for name, title in missing]
    return f" Not measured: {'; '.join(said)}." if said else ""
