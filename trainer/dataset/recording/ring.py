"""A single-producer, single-consumer ring buffer of float32 frames: the capture callback writes, the booth reads.

The callback never waits for the reader: a write that finds too little room keeps what fits and counts the rest
as dropped (``dropped`` frames in ``overflows`` writes), so a loss is always reported, never silent.
"""

from __future__ import annotations

import threading

import numpy as np


class RingBuffer:
    """``capacity`` float32 mono frames; one writer thread, one reader thread."""

    def __init__(self, capacity: int) -> None:
        if capacity <= 0:
            raise ValueError(f"ring buffer capacity must be positive, not {capacity}")
        self._data = np.zeros(capacity, np.float32)
        self._lock = threading.Lock()
        self.written = 0
        """Frames written since the start (kept, not those dropped)."""
        self.read_total = 0
        """Frames read since the start."""
        self.dropped = 0
        """Frames that found no room and were lost."""
        self.overflows = 0
        """Writes that lost frames."""

    @property
    def capacity(self) -> int:
        return len(self._data)

    @property
    def available(self) -> int:
        """Frames written and not read yet."""
        with self._lock:
            return self.written - self.read_total

    def write(self, frames: np.ndarray) -> int:
        """Append ``frames`` (float32 ``[N]``); returns how many were kept (the rest is counted as dropped)."""
        with self._lock:
            room = self.capacity - (self.written - self.read_total)
            kept = min(room, len(frames))
            if kept < len(frames):
                self.dropped += len(frames) - kept
                self.overflows += 1
            self._put(self.written, frames[:kept])
            self.written += kept
            return kept

    def read(self) -> np.ndarray:
        """Every frame written and not read yet, oldest first, float32 ``[N]``."""
        with self._lock:
            out = self._take(self.read_total, self.written - self.read_total)
            self.read_total = self.written
            return out

    def latest(self, count: int) -> np.ndarray:
        """The last ``count`` frames written (fewer at the start), read or not; float32 ``[N]``."""
        with self._lock:
            count = min(count, self.written, self.capacity)
            return self._take(self.written - count, count)

    def _put(self, position: int, frames: np.ndarray) -> None:
        start = position % self.capacity
        first = min(len(frames), self.capacity - start)
        self._data[start : start + first] = frames[:first]
        self._data[: len(frames) - first] = frames[first:]

    def _take(self, position: int, count: int) -> np.ndarray:
        start = position % self.capacity
        first = min(count, self.capacity - start)
        return np.concatenate([self._data[start : start + first], self._data[: count - first]])
