"""Training charts (pyqtgraph): the wall time of each epoch split into its parts, and loss curves.

Each chart keeps the data it draws (``data``), which the tests read, and redraws
from it; it holds no training logic.
"""

from __future__ import annotations

import pyqtgraph as pg

from trainer.events import SPLIT

PARTS = tuple(
    zip(
        SPLIT,
        ("train", "validation", "previews", "checkpoint wait"),
        ((59, 130, 246), (16, 185, 129), (245, 158, 11), (239, 68, 68)),
        strict=True,
    )
)
"""Epoch parts in stacking order (``trainer.events.Epoch.split``): event field, label, colour."""
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


def integer_epochs(plot: pg.PlotWidget, last: int) -> None:
    """Ticks on whole epochs only (1, 2, 5, 10, 20, 50... apart, about 10 of them) up to ``last``."""
    spacing = next(s for s in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10**9) if last / s <= 10)
    plot.getAxis("bottom").setTickSpacing(spacing, spacing)
    if last < 2:
        plot.setXRange(0.5, 2.5, padding=0)
    else:
        plot.enableAutoRange(axis="x")


class EpochChart(pg.PlotWidget):
    """A stacked bar per epoch: train, validation, previews, checkpoint wait (seconds).

    ``compare`` draws a second run's total epoch time as a line over the bars.
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setBackground("w")
        self.setLabel("bottom", "epoch")
        self.setLabel("left", "seconds")
        self.addLegend(offset=(-10, 5), brush=pg.mkBrush(255, 255, 255, 210))
        self.data: list[tuple[int, list[float]]] = []
        self._bars = []
        for _, label, colour in PARTS:
            bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush=pg.mkBrush(colour), name=label)
            self.addItem(bars)
            self._bars.append(bars)
        self._compare = self.plot([], [], pen=pg.mkPen((30, 30, 30), width=2, style=pg.QtCore.Qt.PenStyle.DashLine))
        integer_epochs(self, 0)

    def set_epochs(self, split: list[tuple[int, list[float]]]) -> None:
        """Draw ``[(epoch, [train_s, val_s, preview_s, checkpoint_wait_s])]`` (epochs from 0)."""
        self.data = list(split)
        xs = [epoch + 1 for epoch, _ in self.data]
        base = [0.0] * len(xs)
        for index, bars in enumerate(self._bars):
            heights = [parts[index] for _, parts in self.data]
            bars.setOpts(x=xs, y0=list(base), height=heights, width=0.8)
            base = [b + h for b, h in zip(base, heights, strict=True)]
        integer_epochs(self, max(xs, default=0))

    def set_compare(self, split: list[tuple[int, list[float]]]) -> None:
        """Overlay another run's total seconds per epoch (empty list: none)."""
        self._compare.setData([e + 1 for e, _ in split], [sum(parts) for _, parts in split])


class LossChart(pg.PlotWidget):
    """Loss curves per epoch, training solid and validation dashed."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setBackground("w")
        self.setLabel("bottom", "epoch")
        self.setLabel("left", "loss")
        self.addLegend(offset=(-10, 5), colCount=2, brush=pg.mkBrush(255, 255, 255, 210))
        self.data: dict[str, tuple[list[int], list[float]]] = {}
        self._curves = {}
        for name, colour, dashed in LOSSES:
            style = pg.QtCore.Qt.PenStyle.DashLine if dashed else pg.QtCore.Qt.PenStyle.SolidLine
            self._curves[name] = self.plot([], [], pen=pg.mkPen(colour, width=2, style=style), name=name)
        integer_epochs(self, 0)

    def set_series(self, series: dict[str, tuple[list[int], list[float]]]) -> None:
        """Draw ``{name: (epochs, values)}`` for the names in ``LOSSES``."""
        self.data = {k: v for k, v in series.items() if k in self._curves}
        for name, curve in self._curves.items():
            curve.setData(*self.data.get(name, ([], [])))
        integer_epochs(self, max((max(xs) for xs, _ in self.data.values() if xs), default=0))
