"""A running task's progress: a determinate bar, a status line and Cancel.

The line reads ``Importing 120 / 800 · elapsed 12 s · 14 s left``: the step ``n / m`` the task reported last,
the time since it started (ticking every half second, whether or not the task reports anything), and the
time left of the current phase by the studio's one rule (``trainer.time_left``: from a settled rate, and
"estimating the time left…" until it has settled). A
status line the task reports (``status(text)``) takes the place of ``label n / m`` until its next progress;
a task followed with ``phases=True`` names its phases by status (rendering, then scoring): the line reads
``Scoring 6 renders (step 2 of 2: …) 3 / 6``, and each new status starts a new phase (bar and rate afresh).
It follows a ``studio.workers.Task``'s ``progress(done, total)`` and ``status(text)`` signals; until the first
progress arrives the bar is indeterminate.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QPushButton, QWidget

from studio.widgets.elided_label import ElidedLabel
from studio.workers import Task
from trainer.time_left import ESTIMATING, TimeLeft, duration_text

TICK_MS = 500
"""How often the elapsed time is redrawn, ms."""
SEPARATOR = " · "
"""Between the line's parts (step, elapsed, time left)."""


def phase_name(label: str, status: str) -> str:
    """``status`` capitalised, or after ``label`` when that ends in ":" ("Scoring the best checkpoint: scoring…")."""
    status = status.rstrip("…. ")
    if label.endswith(":"):
        return f"{label} {status[:1].lower()}{status[1:]}"
    return status[:1].upper() + status[1:]


class TaskProgress(QWidget):
    """Bar, status line and Cancel button of one running task (hidden while none runs).

    Attributes:
        clock: the time source (``time.monotonic``; a test may give its own).

    Signals:
        cancel_requested(): the Cancel button was pressed (the owner cancels the task).
    """

    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bar = QProgressBar()
        self.text = ElidedLabel(separator=SEPARATOR)
        """The line; where the row is too narrow, whole parts are left out from the end ("· …"), never drawn under
        Cancel; the whole line is its tooltip."""
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self._on_cancel_clicked)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.bar, 1)
        layout.addWidget(self.text, 2)
        layout.addWidget(self.cancel_button)
        self.clock: Callable[[], float] = time.monotonic
        self._label, self._head, self._cancelling = "", "", ""
        self._phases, self._phase = False, ""
        self._started = 0.0
        self._rate = TimeLeft()
        self._step: tuple[int, int] | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._redraw)
        self.setVisible(False)

    def follow(self, task: Task, label: str, cancellable: bool, *, phases: bool = False) -> None:
        """Show ``task``'s progress as ``label done / total · elapsed · left``; Cancel only where the work can stop.

        With ``phases`` the task's status names its current phase and stays, followed by ``done / total``: said
        once, capitalised (after ``label`` when that ends in ":", as "Scoring the best checkpoint: rendering…").
        """
        self._label, self._head, self._cancelling = label, f"{label}…", ""
        self._phases, self._phase = phases, ""
        self._started, self._rate, self._step = self.clock(), TimeLeft(), None
        self.bar.setRange(0, 0)  # indeterminate until the first report
        self.cancel_button.setVisible(cancellable)
        self.cancel_button.setEnabled(True)
        task.progress.connect(self.show_progress)
        task.status.connect(self.show_status)
        self._timer.start()
        self._redraw()
        self.setVisible(True)

    def show_progress(self, done: int, total: int) -> None:
        """One progress report: the bar's value, ``label done / total`` and the time left."""
        self._rate.report(done, total, self.clock())
        self._step = (done, total)
        self.bar.setRange(0, max(1, total))
        self.bar.setValue(done)
        self._head = f"{self._phase or self._label} {done} / {total}"
        self._redraw()

    def show_status(self, text: str) -> None:
        """A line the task reports about what it does now; it replaces ``label n / m`` until the next progress
        (with ``phases``: a new phase, its name kept before ``n / m``; bar and time left start afresh)."""
        if self._phases and phase_name(self._label, text) != self._phase:
            self._phase = phase_name(self._label, text)
            self._step = None
            self._rate.new_phase()
            self.bar.setRange(0, 0)  # moving, not full, until the phase's first report
            text = f"{self._phase}…"
        self._head = text
        self._redraw()

    def new_phase(self) -> None:
        """The task moved to another kind of work: the time left is estimated afresh (hidden until known)."""
        self._rate.new_phase()
        self._redraw()

    def remaining(self) -> float | None:
        """Seconds left as shown now, or ``None`` while unknown or finished."""
        if self._step is None or self._step[0] >= self._step[1]:
            return None
        return self._rate.seconds(self.clock())

    def finish(self) -> None:
        """The task ended: stop the clock and hide."""
        self._timer.stop()
        self.setVisible(False)

    def _redraw(self) -> None:
        parts = [self._head, f"elapsed {duration_text(self.clock() - self._started)}"]
        left = self.remaining()
        if left is not None:
            parts.append(f"{duration_text(left)} left")
        elif self._step is not None and self._step[0] < self._step[1]:
            parts.append(ESTIMATING)
        line = SEPARATOR.join(parts) + self._cancelling
        self.text.setText(line)
        self.text.setToolTip(line)

    def _on_cancel_clicked(self) -> None:
        self.cancel_button.setEnabled(False)
        self._cancelling = " — cancelling, keeping what is finished…"
        self._redraw()
        self.cancel_requested.emit()
