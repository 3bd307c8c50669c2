"""A waveform that fills as audio chunks arrive (pyqtgraph).

Cost per chunk stays small however long the line gets: each chunk is reduced to
min/max pairs once (``SAMPLES_PER_POINT`` samples each), and a redraw, at most
every ``REDRAW_MS``, draws at most ``MAX_COLUMNS`` min-max columns as one zig-zag trace.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QTimer

from engines.audio import envelope
from studio.widgets.axes import readable_axes

SAMPLES_PER_POINT = 128
"""Envelope resolution: min/max of this many samples (5.8 ms at 22,050 Hz)."""
MAX_COLUMNS = 1500
"""At most this many min-max segments are drawn."""
REDRAW_MS = 50
"""Redraws are coalesced to at most one per this many milliseconds."""


class WaveformView(pg.PlotWidget):
    """Min/max envelope of a growing mono signal against time in seconds."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent, background=None, axisItems=readable_axes())
        self.setMinimumHeight(120)
        self.setMouseEnabled(x=False, y=False)
        self.hideButtons()
        self.setYRange(-1, 1)
        self.getPlotItem().hideAxis("left")
        self.setLabel("bottom", "time", units="s")
        self._curve = self.plot(pen=pg.mkPen("#3b82f6"))  # min, max, min, max...: a filled-looking trace
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._redraw)
        self.clear_audio()

    def clear_audio(self, sample_rate: int = 22050) -> None:
        """Start a new, empty waveform."""
        self.sample_rate = sample_rate
        self._mins = np.zeros(4096, np.float32)
        self._maxs = np.zeros(4096, np.float32)
        self.points = 0
        self._pending = np.zeros(0, np.float32)
        self._curve.setData([], [])

    def append(self, audio: np.ndarray) -> None:
        """Add samples ``[N]`` float32 at the end; the view redraws shortly."""
        data = np.concatenate([self._pending, audio]) if len(self._pending) else audio
        usable = len(data) - len(data) % SAMPLES_PER_POINT
        self._pending = data[usable:].copy()
        if usable:
            lo, hi = envelope(data[:usable], usable // SAMPLES_PER_POINT)
            self._store(lo, hi)
            if not self._timer.isActive():
                self._timer.start()

    def set_audio(self, audio: np.ndarray, sample_rate: int) -> None:
        """Show a whole signal at once (a replayed line)."""
        self.clear_audio(sample_rate)
        self.append(audio)

    def _store(self, lo: np.ndarray, hi: np.ndarray) -> None:
        end = self.points + len(lo)
        if end > len(self._mins):
            size = max(end, 2 * len(self._mins))
            self._mins = np.resize(self._mins, size)
            self._maxs = np.resize(self._maxs, size)
        self._mins[self.points : end] = lo
        self._maxs[self.points : end] = hi
        self.points = end

    def _redraw(self) -> None:
        n = self.points
        group = max(1, -(-n // MAX_COLUMNS))
        usable = n - n % group
        mins = self._mins[:usable].reshape(-1, group).min(axis=1)
        maxs = self._maxs[:usable].reshape(-1, group).max(axis=1)
        t = np.arange(len(mins)) * (group * SAMPLES_PER_POINT / self.sample_rate)
        self._curve.setData(np.repeat(t, 2), np.column_stack([mins, maxs]).reshape(-1))
