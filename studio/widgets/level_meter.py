"""A light level meter: RMS bar, peak bar, peak-hold mark and a clip light, painted from
``trainer.dataset.recording.levels.Levels`` (no pyqtgraph: a paint of a few rectangles costs well under a
millisecond, so a 30 fps redraw leaves the GUI thread free)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QSizePolicy, QWidget

from trainer.dataset.recording.levels import QUIET, Levels

RANGE_DB = (-60.0, 0.0)
"""dBFS the bar spans, left to right."""
GOOD_DB = (-18.0, -6.0)
"""Where speech peaks should be (EBU practice for dialogue peaks around -10 dBFS); drawn as a band."""
LIGHT = 18
"""Clip light diameter, px."""
BAR = 28
"""Height of the bar's row (bar and clip light), px; the scale's labels go under it."""
TICKS_DB = (-60.0, -48.0, -36.0, -24.0, -18.0, -12.0, -6.0, 0.0)
"""dBFS marked and labelled under the bar (the speech band's edges among them)."""


def fraction(dbfs: float) -> float:
    """Where ``dbfs`` falls on the bar, 0..1."""
    low, high = RANGE_DB
    return min(1.0, max(0.0, (dbfs - low) / (high - low)))


class LevelMeter(QWidget):
    """Horizontal meter; :meth:`set_levels` repaints."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.levels: Levels = QUIET
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setToolTip("Peak (light) and RMS (dark) in dBFS from -60 to 0, the peak held 1.5 s, the clip light")

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(360, BAR + self.fontMetrics().height() + 2)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return self.sizeHint()

    def set_levels(self, levels: Levels) -> None:
        """Show ``levels``: the bar's row is repainted, the scale under it is not (33 times a second)."""
        self.levels = levels
        self.update(0, 0, self.width(), BAR)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        bar = QRectF(0, 4, self.width() - LIGHT - 8, BAR - 8)
        painter.fillRect(bar, self.palette().base())
        band = QRectF(bar.x() + fraction(GOOD_DB[0]) * bar.width(), bar.y(), 0, bar.height())
        band.setRight(bar.x() + fraction(GOOD_DB[1]) * bar.width())
        painter.fillRect(band, QColor(120, 200, 120, 50))
        painter.fillRect(self._part(bar, self.levels.peak_dbfs), QColor(90, 170, 250))
        painter.fillRect(self._part(bar, self.levels.rms_dbfs), QColor(30, 100, 200))
        hold_x = bar.x() + fraction(self.levels.hold_dbfs) * bar.width()
        painter.fillRect(QRectF(hold_x - 1, bar.y(), 2, bar.height()), self.palette().text())
        light = QColor(230, 30, 30) if self.levels.clipped else self.palette().mid().color()
        painter.setBrush(light)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.drawEllipse(QRectF(self.width() - LIGHT - 2, (BAR - LIGHT) / 2, LIGHT, LIGHT))
        if event.rect().bottom() >= BAR:  # the scale is in the region to paint (not on a level's repaint)
            self._scale(painter, bar)
        painter.end()

    def _scale(self, painter: QPainter, bar: QRectF) -> None:
        """A tick and a label under the bar at each of ``TICKS_DB`` (the unit after the first, at the left end)."""
        painter.setPen(self.palette().text().color())
        metrics = self.fontMetrics()
        for db in TICKS_DB:
            x = bar.x() + fraction(db) * bar.width()
            painter.drawLine(QPointF(x, bar.bottom()), QPointF(x, bar.bottom() + 3))
            text = f"{db:g} dBFS" if db == TICKS_DB[0] else f"{db:g}"
            width = metrics.horizontalAdvance(text)
            left = min(max(0.0, x - width / 2), bar.right() - width)
            painter.drawText(QPointF(left, bar.bottom() + 3 + metrics.ascent()), text)

    @staticmethod
    def _part(bar: QRectF, dbfs: float) -> QRectF:
        return QRectF(bar.x(), bar.y(), fraction(dbfs) * bar.width(), bar.height())
