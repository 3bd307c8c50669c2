"""Where the training steps' time goes (pyqtgraph): each epoch's training time as a 100% stacked bar of the
step's parts, the latest epoch's shares in the legend, its biggest part in bold.

The parts are the trainer's (``trainer.events.schema.STEP_PARTS``, timed by ``trainer.gan.step_timer``) plus what no
part timed (the loop's own work, logging). Records of older trainers carry no step split: no bars then,
and the title says why. Like the other Train charts (``studio.widgets.train_charts``) it keeps the data it
draws (``data``) and takes the app palette; its legend sits beside the plot.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from studio.widgets.train_charts import PlotBeside, integer_epochs, stack, stacked_bars
from trainer.events.schema import STEP_PARTS

OTHER = "other"
"""The label of what no part timed (the training loop's own work, logging)."""
STEP_LABELS = tuple(
    zip(
        (*STEP_PARTS, "other"),
        ("data wait", "generator", "alignment", "discriminator", "backward", "optimizer", OTHER),
        (
            (239, 68, 68),
            (59, 130, 246),
            (139, 92, 246),
            (16, 185, 129),
            (236, 72, 153),
            (245, 158, 11),
            (148, 163, 184),
        ),
        strict=True,
    )
)
"""Step parts in stacking order (``trainer.events.schema.Epoch.step_split``): name, label, colour."""
LEGEND_SIZE = "8pt"
"""The legend's text: seven parts with their shares fit two columns beside a 440 px wide chart."""
NO_SPLIT = "no step split recorded (an older trainer)"
"""The title when a run's epochs carry no ``step_s``."""


def shares(parts: list[float]) -> list[float]:
    """``parts`` (seconds) as percentages of their sum (all 0 for a sum of 0)."""
    total = sum(parts)
    return [100.0 * p / total if total > 0 else 0.0 for p in parts]


class StepChart(PlotBeside):
    """A 100% stacked bar per epoch of its training steps' parts; the legend gives the latest epoch's shares."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot.setLabel("bottom", "epoch")
        self.plot.setLabel("left", "% of step time")
        self.plot.setYRange(0, 100, padding=0.02)
        self.plot.setMouseEnabled(x=False, y=False)
        self.data: list[tuple[int, list[float]]] = []
        self._recorded = 0
        self._bars = stacked_bars(self, STEP_LABELS)
        self.legend.layout.setHorizontalSpacing(4)  # pyqtgraph's 25 px between columns would not fit two
        self._label_legend([100.0] * len(STEP_LABELS))  # the widest labels, to measure one column's height
        self._one_column = self.legend.boundingRect().height()
        self._label_legend(None)
        self._ready = True
        self.restyle()
        integer_epochs(self.plot, 0)

    def set_epochs(self, split: list[tuple[int, list[float]]], *, recorded: int = 0) -> None:
        """Draw ``[(epoch, [*STEP_PARTS seconds, other])]`` (epochs from 0, ``RunState.step_split``);
        ``recorded``: the run's epochs in all, those without a split included (none with one: the title
        says why the chart is empty)."""
        self.data = list(split)
        xs = [epoch + 1 for epoch, _ in self.data]
        percents = [shares(parts) for _, parts in self.data]
        stack(self._bars, xs, percents)
        latest = percents[-1] if percents else None
        self._label_legend(latest)
        self._recorded = recorded
        self._retitle()
        self.restyle()
        integer_epochs(self.plot, max(xs, default=0))

    def legend_columns_changed(self) -> None:
        """The title's words follow the legend's columns (:meth:`_retitle`)."""
        self._retitle()

    def _retitle(self) -> None:
        """Which epoch the legend's shares are of; short beside a two-column legend (a title sets the plot's
        minimum width, and a wider plot would push the legend out of the chart)."""
        if self.data:
            epoch = self.data[-1][0] + 1
            self.setTitle(f"shares of epoch {epoch}" if self.legend.columnCount == 1 else f"epoch {epoch}")
        else:
            self.setTitle(NO_SPLIT if self._recorded else "")

    def _label_legend(self, latest: list[float] | None) -> None:
        """Each part's label with its share of ``latest`` (percent), the biggest in bold; plain labels without."""
        biggest = None if latest is None else max(range(len(latest)), key=latest.__getitem__)
        for index, (_, item) in enumerate(self.legend.items):
            label = STEP_LABELS[index][1]
            text = label if latest is None else f"{label} {latest[index]:.0f}%"
            item.setText(text, bold=index == biggest, size=LEGEND_SIZE)
        self.legend.updateSize()  # pyqtgraph sizes the legend when an item is added, not when a label changes
