"""A running task's progress: a determinate bar, a status line ("Importing 120 / 800 — 14 s left") and Cancel.

It follows a ``studio.workers.Task``'s ``progress(done, total)`` and ``status(text)``
signals; until the first progress arrives the bar is indeterminate.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from studio.workers import Task


def remaining_s(done: int, total: int, first: tuple[int, float], now: float) -> float | None:
    """Seconds left, from the mean rate since the first progress report.

    ``first`` is ``(done, time)`` of the first report (``time.monotonic()`` seconds): the
    work done before it (clips an earlier import kept, the start-up of the worker
    processes) does not count, so the rate is items per second of this run's own
    work, ``(done - first_done) / (now - first_time)``, and what is left takes
    ``(total - done) / rate``. A mean over the whole run (not the last few items)
    keeps the estimate steady when results arrive in bursts (a worker returns a
    group of clips at once). ``None`` until there is a rate to go on.
    """
    items, seconds = done - first[0], now - first[1]
    if items <= 0 or seconds <= 0:
        return None
    return max(0, total - done) * seconds / items


def duration_text(seconds: float) -> str:
    """``14 s``, ``3 min 05 s``, ``2 h 10 min`` (rounded to what a person reads)."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


class TaskProgress(QWidget):
    """Bar, status line and Cancel button of one running task (hidden while none runs).

    Signals:
        cancel_requested(): the Cancel button was pressed (the owner cancels the task).
    """

    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bar = QProgressBar()
        self.text = QLabel()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self._on_cancel_clicked)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.bar, 1)
        layout.addWidget(self.text, 2)
        layout.addWidget(self.cancel_button)
        self._label, self._cancelling = "", ""
        self._first: tuple[int, float] | None = None
        """``(done, time.monotonic())`` of the first progress report."""
        self.setVisible(False)

    def follow(self, task: Task, label: str, cancellable: bool) -> None:
        """Show ``task``'s progress as ``label done / total — left``; Cancel only where the work can stop."""
        self._label, self._first, self._cancelling = label, None, ""
        self.bar.setRange(0, 0)  # indeterminate until the first report
        self.text.setText(f"{label}…")
        self.cancel_button.setVisible(cancellable)
        self.cancel_button.setEnabled(True)
        task.progress.connect(self.show_progress)
        task.status.connect(self.text.setText)
        self.setVisible(True)

    def show_progress(self, done: int, total: int) -> None:
        """One progress report: the bar's value and the status line with the time left."""
        now = time.monotonic()
        if self._first is None:
            self._first = (done, now)
        self.bar.setRange(0, max(1, total))
        self.bar.setValue(done)
        left = remaining_s(done, total, self._first, now)
        text = f"{self._label} {done} / {total}"
        if left is not None and done < total:
            text += f" — {duration_text(left)} left"
        self.text.setText(text + self._cancelling)

    def finish(self) -> None:
        """The task ended: hide."""
        self.setVisible(False)

    def _on_cancel_clicked(self) -> None:
        self.cancel_button.setEnabled(False)
        self._cancelling = " — cancelling, keeping what is finished…"
        self.text.setText(self.text.text() + self._cancelling)
        self.cancel_requested.emit()
