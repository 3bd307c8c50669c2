"""The one adapter from plain Python work (functions, generators) to Qt signals, and the slot that runs one at a time.

Work runs on a Python thread and receives a ``trainer.tasks.TaskState`` (a cancel
event with ``progress(done, total)`` and ``status(text)``), so the work itself stays
Qt-free. Its results, partial results, progress, status and errors reach the GUI
thread as queued Qt signals, so slots never run off the GUI thread and the window
never waits on the work (Orange3's ``ConcurrentMixin`` pattern). A :class:`TaskSlot`
holds a page's one running task: starting another cancels it and drops its late signals.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable, Iterator
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal, Slot

from trainer.tasks import Cancelled, TaskState


class Task(QObject):
    """Runs ``fn(state)`` on a thread. If it returns an iterator, each item is a partial result.

    ``state`` (also ``task.state`` and, for the callers that use it as a cancel event, ``task.cancel``)
    is a ``trainer.tasks.TaskState``: setting it asks the work to stop.

    Signals (all delivered on the GUI thread, none after :meth:`drop`):
        partial(object): one item from a generator.
        progress(int, int): ``(done, total)`` reported by the work.
        status(str): a line of text reported by the work.
        done(object): the return value (for a generator, ``None``, and only when it was not cut short by a
            cancel; a function that returns despite a cancel request has finished its work).
        cancelled(object): the work raised ``trainer.tasks.Cancelled`` (its message says what was kept).
        failed(object): any other exception raised.
        ended(): after done, cancelled or failed, or after a run cancelled without a word.
        dropped(): emitted by :meth:`drop` itself, at once: the task will say nothing more.
    """

    partial = Signal(object)
    progress = Signal(int, int)
    status = Signal(str)
    done = Signal(object)
    cancelled = Signal(object)
    failed = Signal(object)
    ended = Signal()
    dropped = Signal()
    _relay = Signal(str, object)
    """Emitted on the work's thread; :meth:`_deliver` re-emits it on the GUI thread unless dropped."""

    def __init__(self, fn: Callable[[TaskState], Any], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = self.cancel = TaskState(
            progress=lambda done, total: self._relay.emit("progress", (done, total)),
            status=lambda text: self._relay.emit("status", (text,)),
        )
        self._fn = fn
        self._dropped = False
        self._relay.connect(self._deliver, Qt.ConnectionType.QueuedConnection)
        self._thread = threading.Thread(target=self._run, name="studio-task", daemon=True)

    def start(self) -> Task:
        self._thread.start()
        return self

    def is_running(self) -> bool:
        return self._thread.is_alive()

    def join(self, timeout: float | None = None) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def drop(self) -> None:
        """Cancel the work and deliver none of its signals from now on, even those already queued."""
        if not self._dropped:
            self._dropped = True
            self.state.cancel()
            self.dropped.emit()

    def is_dropped(self) -> bool:
        return self._dropped

    @Slot(str, object)
    def _deliver(self, name: str, args: tuple) -> None:
        if not self._dropped:
            getattr(self, name).emit(*args)

    def _emit(self, name: str, *args: Any) -> None:
        try:
            self._relay.emit(name, args)
        except RuntimeError:  # the Task was deleted (its window closed) while the work ran: nobody to tell
            self.state.cancel()

    def _run(self) -> None:
        try:
            result = self._fn(self.state)
            if isinstance(result, Iterator):
                for item in result:
                    if self.state.is_set():
                        getattr(result, "close", lambda: None)()
                        return
                    self._emit("partial", item)
                result = None
            self._emit("done", result)
        except Cancelled as exc:
            self._emit("cancelled", exc)
        except Exception as exc:  # handed to the GUI thread, shown to the user
            exc.traceback_text = traceback.format_exc()  # type: ignore[attr-defined]
            self._emit("failed", exc)
        finally:
            self._emit("ended")


class TaskSlot:
    """A page's one task at a time (Orange3's ``ConcurrentWidgetMixin.start``).

    :meth:`start` drops the task running in the slot (cancelled, and none of its signals
    delivered any more, even those already queued), so a page never sees a stale result.
    :meth:`cancel` only asks the running task to stop: its signals still arrive, so the
    page can say what was kept.
    """

    def __init__(self) -> None:
        self.task: Task | None = None
        """The task started last, until its ``ended`` is delivered."""

    def start(self, task: Task) -> Task:
        """Drop the running task (if any), then start ``task`` and hold it until it ends."""
        self.drop()
        self.task = task
        task.ended.connect(lambda: self._ended(task))
        return task.start()

    def busy(self) -> bool:
        """Whether a started task has not ended yet."""
        return self.task is not None

    def cancel(self) -> None:
        """Ask the running task to stop; it ends as usual (``cancelled``, ``done`` or nothing, then ``ended``)."""
        if self.task is not None:
            self.task.state.cancel()

    def drop(self) -> None:
        """Cancel the running task and drop its late signals; the slot is free at once."""
        if self.task is not None:
            self.task.drop()
            self.task = None

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the running task's thread (its signals are still delivered later, on the GUI thread)."""
        return self.task is None or self.task.join(timeout)

    def _ended(self, task: Task) -> None:
        if self.task is task:
            self.task = None
