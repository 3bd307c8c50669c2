"""The level meter a page polls: the peak since the last poll and the RMS over the last 50 ms in dBFS, the peak held
for 1.5 s, a clip light.

Time is counted in frames captured (not wall time), so the meter says the same of the same audio however late a
page polls it. The clip light turns on at a sample of magnitude ``trainer.dataset.analysis.CLIP_LEVEL`` (0.999,
what the dataset's ``clipped`` finding counts) and stays on for 2 s, long enough to be seen.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trainer.dataset.analysis import CLIP_LEVEL

WINDOW_S = 0.05
"""Seconds of audio the peak and RMS are measured over (about a VU meter's integration, faster)."""
HOLD_S = 1.5
"""Seconds the peak-hold mark stays at a peak before it follows the level down."""
CLIP_HOLD_S = 2.0
"""Seconds the clip light stays on after a clipped sample."""
FLOOR_DBFS = -120.0
"""Level reported for digital silence, dBFS."""


def dbfs(value: float) -> float:
    """An amplitude (1.0 = full scale) in dBFS, ``FLOOR_DBFS`` for 0."""
    return max(FLOOR_DBFS, 20.0 * float(np.log10(max(value, 1e-12))))


def rms_dbfs(samples: np.ndarray) -> float:
    """RMS of float32 ``[N]`` samples in dBFS (full-scale square wave = 0 dBFS), ``FLOOR_DBFS`` when empty."""
    return dbfs(float(np.sqrt(np.mean(np.square(samples, dtype=np.float64))))) if len(samples) else FLOOR_DBFS


@dataclass(frozen=True, kw_only=True)
class Levels:
    """What the meter shows now: ``peak_dbfs`` of the frames since the last poll (at least ``WINDOW_S``),
    ``rms_dbfs`` of the last ``WINDOW_S``, ``hold_dbfs`` the held peak, ``clipped`` the clip light."""

    peak_dbfs: float
    rms_dbfs: float
    hold_dbfs: float
    clipped: bool


QUIET = Levels(peak_dbfs=FLOOR_DBFS, rms_dbfs=FLOOR_DBFS, hold_dbfs=FLOOR_DBFS, clipped=False)


class Meter:
    """Peak, RMS, peak hold and clip light of a stream at ``rate`` Hz, fed the latest frames on each poll."""

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self._hold, self._hold_at = FLOOR_DBFS, -(10**12)
        self._clip_at = -(10**12)

    def window(self) -> int:
        """Frames the RMS is measured over, and the fewest the peak is."""
        return round(WINDOW_S * self.rate)

    def update(self, latest: np.ndarray, frame: int) -> Levels:
        """Levels of ``latest`` (float32 ``[N]``: the frames since the last poll, at least the last ``window()``)
        whose last frame is number ``frame`` of the stream: the peak and clip light over all of it (a click between
        two late polls is shown), the RMS over its last ``window()`` frames."""
        peak = float(np.max(np.abs(latest))) if len(latest) else 0.0
        peak_db = dbfs(peak)
        if peak_db >= self._hold or frame - self._hold_at > HOLD_S * self.rate:
            self._hold, self._hold_at = peak_db, frame
        if peak >= CLIP_LEVEL:
            self._clip_at = frame
        clipped = frame - self._clip_at <= CLIP_HOLD_S * self.rate
        rms = rms_dbfs(latest[-self.window() :])
        return Levels(peak_dbfs=peak_db, rms_dbfs=rms, hold_dbfs=self._hold, clipped=clipped)
