"""Rendering a comparison on a worker thread: every line by every candidate, cached, with progress and Cancel."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QObject, Signal

from engines.pool import EnginePool
from studio.comparison import Comparison, render_cache_dir
from studio.pages.compare_sources import reason
from studio.widgets.clip_view import mel_db
from studio.widgets.task_progress import TaskProgress
from studio.workers import Task, TaskSlot
from trainer.evaluate.render import render_all
from trainer.tasks import Cancelled


class Renderer(QObject):
    """Runs ``trainer.evaluate.render.render_all`` for a :class:`~studio.comparison.Comparison` in a
    ``studio.workers.Task`` (one at a time), shown by ``progress`` ("Rendering 7 / 20"); the renders go into the
    comparison, also those finished before a Cancel. The cache is ``studio.comparison.render_cache_dir()``.

    Signals:
        message(str): one readable line: what started, what was rendered or kept, or why it failed.
    """

    message = Signal(str)

    def __init__(self, comparison: Comparison, pool: EnginePool, progress: TaskProgress, parent: QObject) -> None:
        super().__init__(parent)
        self.comparison, self.pool, self.progress = comparison, pool, progress
        self.cache_dir = render_cache_dir()
        self.slot = TaskSlot()
        progress.cancel_requested.connect(self.slot.cancel)

    def start(self) -> Task | None:
        """Render the comparison's lines by its candidates; ``None`` (and a ``message``) when there is nothing."""
        candidates, lines, settings = self.comparison.candidates, self.comparison.lines, self.comparison.settings
        if not candidates or not lines:
            self.message.emit("Nothing to render: check at least one candidate and choose lines")
            return None
        texts, cache_dir, pool = [line.text for line in lines], self.cache_dir, self.pool
        task = Task(lambda state: _render(candidates, texts, settings, cache_dir, state, pool), self)
        task.done.connect(self._on_done)
        task.cancelled.connect(self._on_cancelled)
        task.failed.connect(lambda exc: self.message.emit(f"Render failed: {reason(exc)}"))
        task.ended.connect(self.progress.finish)
        self.progress.follow(task, "Rendering", cancellable=True)
        self.message.emit(f"Rendering {len(texts)} lines by {len(candidates)} candidates…")
        return self.slot.start(task)

    def drop(self) -> bool:
        """Stop a running render and drop what it would still deliver; whether one was running."""
        if not self.slot.busy():
            return False
        self.slot.drop()
        self.progress.finish()
        return True

    def _on_done(self, renders: dict) -> None:
        self.comparison.add_rendered(renders)
        cached = sum(r.cached for r in renders.values())
        self.message.emit(f"Rendered {len(renders)} clips ({cached} from the cache)")

    def _on_cancelled(self, exc: Cancelled) -> None:
        self.comparison.add_rendered(exc.partial or {})
        text = str(exc)
        self.message.emit(text[:1].upper() + text[1:])


def _render(candidates, texts, settings, cache_dir, state, pool) -> dict:
    """``render_all``, then librosa's first mel spectrogram (about 2 s of imports and compiling) on this thread,
    so showing the first clip does not stall the window."""
    renders = render_all(candidates, texts, settings, cache_dir, state, pool)
    try:
        mel_db(np.zeros(4096, np.float32), 22050)
    except ImportError:  # no librosa: the view says so
        pass
    return renders
