"""Following a run that a trainer elsewhere writes (another studio, a terminal, other machines over shared
storage): its events file read on a timer, new records handed over as a signal.

The Train page follows its own trainer through ``studio.trainer_process``; a run shown from the Runs tab or
opened from a folder is followed here while it has not finished.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from trainer.events.log import EventTail

POLL_MS = 1000
"""How often the followed events file is read, milliseconds (a shared folder: not too often)."""


class RunFollower(QObject):
    """Reads new events of one run's events file every ``POLL_MS`` while following.

    Signals:
        records(list): new events (``trainer.events.schema.Event``).
    """

    records = Signal(list)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tail: EventTail | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.poll)

    def follow(self, tail: EventTail) -> None:
        """Follow ``tail`` from where it was read to (its earlier events are the caller's)."""
        self.tail = tail
        self._timer.start()

    def stop(self) -> None:
        """Follow nothing."""
        self._timer.stop()
        self.tail = None

    def is_following(self) -> bool:
        return self.tail is not None

    def poll(self) -> None:
        """Read new events now."""
        new = self.tail.read() if self.tail is not None else []
        if new:
            self.records.emit(new)
