"""What long work receives from whoever runs it: a cancel request, and channels for progress and status.

Plain Python (no Qt), so dataset import, slicing, fixes and cache building take it
as an argument: the studio's ``studio.workers.Task`` hands one in and turns its
``progress``/``status`` calls into Qt signals; the CLI makes one around its
terminal progress line. Modelled on Orange3's ``TaskState``
(``Orange/widgets/utils/concurrent.py``); the work itself stays a plain function.

Work polls :meth:`TaskState.is_cancelled` between items, saves what it has finished,
and then raises :class:`Cancelled`, whose message says what was kept.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from engines.errors import VoiceStudioError


class Cancelled(VoiceStudioError):
    """Work stopped early because its task was cancelled; the message says what was kept (one line for the user).

    Attributes:
        done: items finished (and kept) before it stopped.
        total: items it was asked to do.
        partial: what the work had produced so far (e.g. a ``trainer.dataset.project.ImportResult``), or ``None``.
    """

    def __init__(self, message: str, *, done: int = 0, total: int = 0, partial: Any = None) -> None:
        super().__init__(message)
        self.done, self.total, self.partial = done, total, partial


class TaskState(threading.Event):
    """The state a task's work receives: set means "cancel requested".

    It *is* a ``threading.Event``, so the functions that take a cancel event
    (``studio.speaking.speak_and_play``, the engines' streaming loops) accept it as is.

    Args:
        progress: called with ``(done, total)`` on :meth:`progress` (any thread: the work's).
        status: called with a line of text on :meth:`status`.
    """

    def __init__(
        self,
        progress: Callable[[int, int], None] | None = None,
        status: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__()
        self._on_progress = progress
        self._on_status = status

    @classmethod
    def of(cls, state: TaskState | None, progress: Callable[[int, int], None] | None = None) -> TaskState:
        """``state``, or a new never-cancelled one that reports to the plain ``progress(done, total)`` callback."""
        return state if state is not None else cls(progress=progress)

    def cancel(self) -> None:
        """Ask the work to stop (it stops at its next check, keeping what it finished)."""
        self.set()

    def is_cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self.is_set()

    def progress(self, done: int, total: int) -> None:
        """Report ``done`` of ``total`` items finished (counts, not fractions)."""
        if self._on_progress is not None:
            self._on_progress(done, total)

    def status(self, text: str) -> None:
        """Report what the work is doing now, as one line of text."""
        if self._on_status is not None:
            self._on_status(text)
