"""A waveform that fills as audio chunks arrive (pyqtgraph)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from engines.audio import envelope

SAMPLES_PER_POINT = 128
"""Each drawn column is the min/max of this many samples (5.8 ms at 22,050 Hz)."""


class WaveformView(pg.PlotWidget):
    """Min/max envelope of a growing signal against time in seconds."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent, background=None)
        self.setMinimumHeight(120)
        self.setMouseEnabled(x=False, y=False)
        self.hideButtons()
        self.setYRange(-1, 1)
        self.getPlotItem().hideAxis("left")
        self.setLabel("bottom", "time", units="s")
        pen = pg.mkPen("#3b82f6")
        self._upper = self.plot(pen=pen)
        self._lower = self.plot(pen=pen)
        self.addItem(pg.FillBetweenItem(self._upper, self._lower, brush=pg.mkBrush(59, 130, 246, 120)))
        self.clear_audio()

    def clear_audio(self, sample_rate: int = 22050) -> None:
        """Start a new, empty waveform."""
        self.sample_rate = sample_rate
        self._mins: list[np.ndarray] = []
        self._maxs: list[np.ndarray] = []
        self._pending = np.zeros(0, np.float32)
        self._upper.setData([], [])
        self._lower.setData([], [])
        self.points = 0

    def append(self, audio: np.ndarray) -> None:
        """Add samples ``[N]`` float32 at the end and redraw."""
        data = np.concatenate([self._pending, audio])
        usable = len(data) - len(data) % SAMPLES_PER_POINT
        self._pending = data[usable:]
        if usable:
            lo, hi = envelope(data[:usable], usable // SAMPLES_PER_POINT)
            self._mins.append(lo)
            self._maxs.append(hi)
            self._redraw()

    def set_audio(self, audio: np.ndarray, sample_rate: int) -> None:
        """Show a whole signal at once (a replayed line)."""
        self.clear_audio(sample_rate)
        self.append(audio)

    def _redraw(self) -> None:
        mins, maxs = np.concatenate(self._mins), np.concatenate(self._maxs)
        self._mins, self._maxs = [mins], [maxs]
        self.points = len(mins)
        t = np.arange(len(mins)) * (SAMPLES_PER_POINT / self.sample_rate)
        self._upper.setData(t, maxs)
        self._lower.setData(t, mins)
