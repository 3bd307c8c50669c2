"""The one adapter from plain Python work (functions, generators) to Qt signals.

Work runs on a Python thread; results, partial results and errors reach the
GUI thread as queued Qt signals, so slots never run off the GUI thread and the
window never waits on the work (Orange3's ``ConcurrentMixin`` pattern).
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable, Iterator
from typing import Any

from PySide6.QtCore import QObject, Signal


class Task(QObject):
    """Runs ``fn`` on a thread. If it returns an iterator, each item is a partial result.

    Signals (all delivered on the GUI thread):
        partial(object): one item from a generator.
        done(object): the return value (for a generator, ``None``).
        failed(object): the exception raised.
        ended(): after done or failed, or after a cancelled run.
    """

    partial = Signal(object)
    done = Signal(object)
    failed = Signal(object)
    ended = Signal()

    def __init__(self, fn: Callable[[threading.Event], Any], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.cancel = threading.Event()
        self._fn = fn
        self._thread = threading.Thread(target=self._run, name="studio-task", daemon=True)

    def start(self) -> Task:
        self._thread.start()
        return self

    def is_running(self) -> bool:
        return self._thread.is_alive()

    def join(self, timeout: float | None = None) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        try:
            result = self._fn(self.cancel)
            if isinstance(result, Iterator):
                for item in result:
                    if self.cancel.is_set():
                        getattr(result, "close", lambda: None)()
                        break
                    self.partial.emit(item)
                result = None
            if not self.cancel.is_set():
                self.done.emit(result)
        except Exception as exc:  # handed to the GUI thread, shown to the user
            exc.traceback_text = traceback.format_exc()
            self.failed.emit(exc)
        finally:
            self.ended.emit()
