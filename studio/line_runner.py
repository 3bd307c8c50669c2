"""The line a page speaks or replays: one at a time, reached by Stop, its late signals dropped once replaced."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from studio.speaking import Speaking
from studio.workers import Task, TaskSlot


class LineRunner:
    """Runs a page's lines, ``work(speaking, cancel)`` on a worker thread, one at a time.

    Args:
        parent: the Qt object the tasks belong to (the page).
        busy: ``busy(True)`` when a line task is made, ``busy(False)`` when it ends or is stopped (Stop's state).
        line_ended: runs on the GUI thread after each line ended, before that line's own ``then``.
    """

    def __init__(self, parent: QObject, busy: Callable[[bool], None], line_ended: Callable[[], None]) -> None:
        self._parent, self._busy, self._line_ended = parent, busy, line_ended
        self.speaking = Speaking()
        """The line made last: what Stop reaches."""
        self._slot = TaskSlot()  # the line being spoken or replayed: the next one drops its late signals

    def task(self, work: Callable, then: Callable[[], None] | None = None) -> tuple[Task, Speaking]:
        """A task (not started) of ``work(speaking, cancel)`` as the page's line: Stop reaches it and is enabled
        until it ends; ``then`` runs when it ended. Started with :meth:`start`, a line that another line replaced
        says nothing more: its late signals are dropped."""
        speaking = self.speaking = Speaking()
        task = Task(lambda cancel: work(speaking, cancel), self._parent)
        task.ended.connect(lambda: self._on_line_ended(speaking, then))
        speaking.cancel = task.cancel
        self._busy(True)
        return task, speaking

    def start(self, task: Task) -> Task:
        """Start a line task made by :meth:`task`; the line started before it is dropped."""
        return self._slot.start(task)

    def stop(self) -> None:
        """Stop synthesis and playing at once; what the stopped line still sends is ignored."""
        self.speaking.stop()
        self._busy(False)

    @property
    def active(self) -> bool:
        """True from the line's start until it has been played (and handled) or stopped."""
        return self.speaking.active

    def _on_line_ended(self, speaking: Speaking, then: Callable[[], None] | None) -> None:
        speaking.ended = True
        self._line_ended()
        self._busy(False)
        if then is not None:
            then()
