"""One clip shown two ways side by side: its waveform and its mel spectrogram (pyqtgraph), with a play cursor.

The mel spectrogram is computed on a worker thread (librosa's first import and compile take seconds):
"drawing…" shows until it arrives. Without audio the plots give way to a placeholder line.
Both plots use the application palette (no black background); the spectrogram's colours run from the
palette's base colour through its highlight to its text colour. A click in either plot asks to seek there.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QStackedWidget, QVBoxLayout, QWidget

from engines.extras import install_line
from engines.imports import librosa_ready
from studio.widgets.axes import readable_axes, room_for_top_tick
from studio.widgets.waveform import WaveformView
from studio.workers import Task, TaskSlot

N_FFT = 1024
HOP_LENGTH = 256
N_MELS = 80
TOP_DB = 80.0
"""Mel spectrogram settings: 1024-sample FFT, hop_length 256, 80 mel bands, shown over the top 80 dB."""


def mel_db(audio: np.ndarray, rate: int) -> np.ndarray:
    """Mel power spectrogram in dB relative to its maximum, float32 ``[N_MELS, frames]`` (``librosa``).

    Raises:
        ImportError: librosa is not installed (the ``compare`` extra).
    """
    librosa = librosa_ready()

    samples = np.asarray(audio, dtype=np.float32)
    power = librosa.feature.melspectrogram(
        y=samples, sr=rate, n_fft=N_FFT, hop_length=HOP_LENGTH, n_mels=N_MELS, fmax=rate / 2
    )
    return librosa.power_to_db(power, ref=np.max, top_db=TOP_DB).astype(np.float32)


def palette_colormap(palette: QPalette) -> pg.ColorMap:
    """base → highlight → text of ``palette``: quiet parts blend into the page, loud parts stand out."""
    roles = (QPalette.ColorRole.Base, QPalette.ColorRole.Highlight, QPalette.ColorRole.Text)
    colors = [QColor(palette.color(role)) for role in roles]
    return pg.ColorMap([0.0, 0.6, 1.0], [(c.red(), c.green(), c.blue()) for c in colors])


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
        self.mel = pg.PlotWidget(background=None, axisItems=readable_axes())
        room_for_top_tick(self.mel.getPlotItem())
        self.mel.setMouseEnabled(x=False, y=False)
        self.mel.hideButtons()
        _plain_axes(self.mel, left="mel band")
        _plain_axes(self.waveform)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setColorMap(palette_colormap(self.palette()))
        self.mel.addItem(self.image)
        pen = pg.mkPen(self.palette().color(QPalette.ColorRole.Text), width=1)
        self.cursors = [pg.InfiniteLine(0.0, pen=pen) for _ in range(2)]
        for plot, cursor in zip((self.waveform, self.mel), self.cursors, strict=True):
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
        self.mel_slot = TaskSlot()
        """The mel spectrogram being computed for the clip shown (a newer clip drops it)."""

    def set_clip(self, audio: np.ndarray | None, rate: int, title: str) -> None:
        """Show ``audio`` (mono float32 ``[N]`` at ``rate`` Hz), or the placeholder (``None``), under ``title``;
        the mel spectrogram follows from a worker thread (``mel_drawn``)."""
        self.title.setText(title)
        self.audio, self.sample_rate = audio, rate
        self.mel_slot.drop()
        self.image.clear()
        if audio is None or len(audio) == 0:
            self.waveform.clear_audio(rate)
            self.stack.setCurrentWidget(self.placeholder)
            return
        self.stack.setCurrentIndex(1)
        self.waveform.set_audio(audio, rate)
        duration = len(audio) / rate
        self.waveform.setXRange(0, duration, padding=0)
        self.mel.setRange(xRange=(0, duration), yRange=(0, N_MELS), padding=0)
        self.mel.setTitle("drawing…")
        task = Task(lambda _state: mel_db(audio, rate), self)
        task.done.connect(lambda spectrogram: self._show_mel(spectrogram, duration))
        task.failed.connect(lambda exc: self._mel_failed(exc, title))
        self.mel_slot.start(task)

    def _show_mel(self, spectrogram: np.ndarray, duration: float) -> None:
        self.mel.setTitle(None)
        self.image.setImage(spectrogram, levels=(-TOP_DB, 0.0))
        self.image.setRect(QRectF(0.0, 0.0, duration, N_MELS))
        self.mel_drawn.emit()

    def _mel_failed(self, exc: BaseException, title: str) -> None:
        self.mel.setTitle(None)
        if isinstance(exc, ImportError):
            self.title.setText(f"{title} — the mel spectrogram needs librosa ({install_line('compare')})")
        else:
            self.title.setText(f"{title} — no mel spectrogram: {type(exc).__name__}: {exc}")
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


def warm_mel() -> None:
    """Import librosa and compile its first mel spectrogram (about 2 s once per process; call it on a worker
    thread, so the first clip shown draws at once); an ImportError is left for :class:`ClipView` to report."""
    try:
        mel_db(np.zeros(4096, np.float32), 22050)
    except ImportError:
        pass


def _plain_axes(plot: pg.PlotWidget, left: str | None = None) -> None:
    """Axes labelled in plain units (seconds, mel bands): no SI prefix (ms, x0.001) whatever the range."""
    item = plot.getPlotItem()
    for name, text in (("bottom", "time (s)"), ("left", left)):
        axis = item.getAxis(name)
        axis.enableAutoSIPrefix(False)
        if text:
            axis.setLabel(text, units="")


def _row(*widgets: QWidget) -> QWidget:
    """``widgets`` side by side, equal widths."""
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        layout.addWidget(widget, 1)
    return row
