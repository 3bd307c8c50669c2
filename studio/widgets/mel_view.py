"""A clip's mel spectrogram (pyqtgraph), computed on a worker thread: the one mel view of every page.

The Compare page shows it beside a candidate's waveform (``studio.widgets.clip_view``), the Dataset page
under the current clip's waveform (``studio.widgets.clip_editor``). librosa's first import and compile take
seconds, so the spectrogram is computed off the GUI thread: "drawing…" shows until it arrives. Its colours run
from the palette's base colour through its highlight to its text colour (no black background).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QWidget

from engines.extras import install_line
from engines.imports import librosa_ready
from studio.widgets.axes import readable_axes, room_for_top_tick
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


def warm_mel() -> None:
    """Import librosa and compile its first mel spectrogram (about 2 s once per process; call it on a worker
    thread, so the first clip shown draws at once); an ImportError is left for :class:`MelView` to report."""
    try:
        mel_db(np.zeros(4096, np.float32), 22050)
    except ImportError:
        pass


def palette_colormap(palette: QPalette) -> pg.ColorMap:
    """base → highlight → text of ``palette``: quiet parts blend into the page, loud parts stand out."""
    roles = (QPalette.ColorRole.Base, QPalette.ColorRole.Highlight, QPalette.ColorRole.Text)
    colors = [QColor(palette.color(role)) for role in roles]
    return pg.ColorMap([0.0, 0.6, 1.0], [(c.red(), c.green(), c.blue()) for c in colors])


def why_no_mel(exc: BaseException) -> str:
    """Why a mel spectrogram could not be drawn, in one line: librosa missing (with the command that adds it),
    or the error."""
    if isinstance(exc, ImportError):
        return f"the mel spectrogram needs librosa ({install_line('compare')})"
    return f"no mel spectrogram: {type(exc).__name__}: {exc}"


class MelView(pg.PlotWidget):
    """The mel spectrogram of one clip against time (s), mel bands up.

    ``axes`` False leaves both axes out (under a waveform that gives the time). The image is ``image``
    (``image.image`` the ``[N_MELS, frames]`` dB array on screen, ``None`` while there is none).

    Signals:
        drawn(str): the spectrogram of the clip shown is on screen (``""``), or why it cannot be drawn.
    """

    drawn = Signal(str)

    def __init__(self, parent: QWidget | None = None, *, axes: bool = True) -> None:
        super().__init__(parent, background=None, axisItems=readable_axes())
        self.setMouseEnabled(x=False, y=False)
        self.hideButtons()
        item = self.getPlotItem()
        if axes:
            room_for_top_tick(item)
            plain_axes(self, left="mel band")
        else:
            item.hideAxis("left")
            item.hideAxis("bottom")
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setColorMap(palette_colormap(self.palette()))
        self.addItem(self.image)
        self.slot = TaskSlot()
        """The spectrogram being computed for the clip shown (a newer clip drops it)."""

    def set_audio(self, audio: np.ndarray | None, rate: int) -> None:
        """Draw the mel spectrogram of ``audio`` (mono float32 ``[N]`` at ``rate`` Hz) from a worker thread
        (``drawn`` when it is on screen); ``None`` or no samples: an empty plot."""
        self.slot.drop()
        self.image.clear()
        self.setTitle(None)
        if audio is None or len(audio) == 0:
            return
        duration = len(audio) / rate
        self.setRange(xRange=(0, duration), yRange=(0, N_MELS), padding=0)
        self.setTitle("drawing…")
        task = Task(lambda _state: mel_db(audio, rate), self)
        task.done.connect(lambda spectrogram: self._show(spectrogram, duration))
        task.failed.connect(self._failed)
        self.slot.start(task)

    def _show(self, spectrogram: np.ndarray, duration: float) -> None:
        self.setTitle(None)
        self.image.setImage(spectrogram, levels=(-TOP_DB, 0.0))
        self.image.setRect(QRectF(0.0, 0.0, duration, N_MELS))
        self.drawn.emit("")

    def _failed(self, exc: BaseException) -> None:
        self.setTitle(None)
        self.drawn.emit(why_no_mel(exc))


def plain_axes(plot: pg.PlotWidget, left: str | None = None) -> None:
    """Axes labelled in plain units (seconds, mel bands): no SI prefix (ms, x0.001) whatever the range."""
    item = plot.getPlotItem()
    for name, text in (("bottom", "time (s)"), ("left", left)):
        axis = item.getAxis(name)
        axis.enableAutoSIPrefix(False)
        if text:
            axis.setLabel(text, units="")
