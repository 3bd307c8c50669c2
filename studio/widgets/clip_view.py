"""One clip shown two ways side by side: its waveform and its mel spectrogram (pyqtgraph), with a play cursor.

The mel spectrogram is ``studio.widgets.mel_view.MelView`` (computed on a worker thread, "drawing…" until it
arrives; the Dataset page's editor shows the same view). Without audio the plots give way to a placeholder line.
Both plots use the application palette (no black background). A click in either plot asks to seek there.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QStackedWidget, QVBoxLayout, QWidget

from studio.widgets.mel_view import MelView, plain_axes
from studio.widgets.waveform import WaveformView


class ClipView(QWidget):
    """Title, then waveform | mel spectrogram of one clip, with a cursor at the play position.

    Signals:
        seek_requested(float): the user clicked a plot at this many seconds.
        mel_drawn(): the mel spectrogram of the clip shown arrived (or cannot be drawn) and is on screen.
    """

    seek_requested = Signal(float)
    mel_drawn = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel("No clip")
        self.title.setWordWrap(True)  # a long status ("9 clips not rendered yet …") wraps, never widens the page
        self.waveform = WaveformView()
        plain_axes(self.waveform)
        self.mel = MelView()
        self.image = self.mel.image
        self.mel.drawn.connect(self._on_mel_drawn)
        pen = pg.mkPen(self.palette().color(QPalette.ColorRole.Text), width=1)
        self.cursors = [pg.InfiniteLine(0.0, pen=pen) for _ in range(2)]
        plots: tuple[pg.PlotWidget, ...] = (self.waveform, self.mel)
        for plot, cursor in zip(plots, self.cursors, strict=True):
            plot.addItem(cursor)
            plot.scene().sigMouseClicked.connect(lambda event, p=plot: self._clicked(p, event))
        self.placeholder = QLabel("No audio yet")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(_row(self.waveform, self.mel))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.stack, 1)
        self.audio: np.ndarray | None = None
        self.sample_rate = 22050
        self._title = ""

    def set_clip(self, audio: np.ndarray | None, rate: int, title: str) -> None:
        """Show ``audio`` (mono float32 ``[N]`` at ``rate`` Hz), or the placeholder (``None``), under ``title``;
        the mel spectrogram follows from a worker thread (``mel_drawn``)."""
        self.title.setText(title)
        self._title = title
        self.audio, self.sample_rate = audio, rate
        self.mel.set_audio(audio, rate)
        if audio is None or len(audio) == 0:
            self.waveform.clear_audio(rate)
            self.stack.setCurrentWidget(self.placeholder)
            return
        self.stack.setCurrentIndex(1)
        self.waveform.set_audio(audio, rate)
        self.waveform.setXRange(0, len(audio) / rate, padding=0)

    def _on_mel_drawn(self, why_not: str) -> None:
        """The mel spectrogram is on screen, or ``why_not`` (said after the title)."""
        if why_not:
            self.title.setText(f"{self._title} — {why_not}")
        self.mel_drawn.emit()

    def set_position(self, seconds: float) -> None:
        """Move the play cursor to ``seconds``."""
        for cursor in self.cursors:
            cursor.setValue(seconds)

    def _clicked(self, plot: pg.PlotWidget, event) -> None:
        if self.audio is None:
            return
        seconds = plot.getPlotItem().vb.mapSceneToView(event.scenePos()).x()
        self.seek_requested.emit(float(min(max(0.0, seconds), len(self.audio) / self.sample_rate)))


def _row(*widgets: QWidget) -> QWidget:
    """``widgets`` side by side, equal widths."""
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        layout.addWidget(widget, 1)
    return row
