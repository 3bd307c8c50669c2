"""A status line that says what the studio waits for and, past half a second, how long it has waited."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel

SHOW_AFTER_S = 0.5
"""A wait shorter than this shows only its words; a longer one adds the elapsed seconds."""


class TickingStatus(QObject):
    """Writes ``"Loading torch engine…"`` into ``label``, then ``"Loading torch engine… 1.2 s"`` every 0.1 s.

    Args:
        label: the line it writes to (it writes nothing there once stopped).
    """

    def __init__(self, label: QLabel, parent: QObject | None = None) -> None:
        super().__init__(parent or label)
        self.label = label
        self.text = ""
        self._start = 0.0
        self._timer = QTimer(self)
        self._timer.setInterval(100)
        self._timer.timeout.connect(self._tick)

    def start(self, text: str) -> None:
        """Show ``text`` + "…" and start counting the seconds from now."""
        self.text, self._start = text, time.perf_counter()
        self.label.setText(f"{text}…")
        self._timer.start()

    def stop(self) -> float:
        """Stop counting (the label keeps its text until the caller writes another); returns the seconds waited."""
        self._timer.stop()
        return time.perf_counter() - self._start if self._start else 0.0

    def is_active(self) -> bool:
        """Whether it is counting."""
        return self._timer.isActive()

    def _tick(self) -> None:
        elapsed = time.perf_counter() - self._start
        if elapsed >= SHOW_AFTER_S:
            self.label.setText(f"{self.text}… {elapsed:.1f} s")
