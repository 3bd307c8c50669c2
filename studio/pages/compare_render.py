"""Rendering a comparison on a worker thread: every line by every candidate, cached, with progress and Cancel.

Each clip reaches the comparison as soon as it is rendered (the view updates clip by clip).
"""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import QObject, Signal

from engines.pool import EnginePool
from studio.comparison import Comparison, render_cache_dir
from studio.pages.compare_sources import reason
from studio.widgets.task_progress import TaskProgress
from studio.workers import Task, TaskSlot
from trainer.evaluate.render import Rendered, render
from trainer.tasks import Cancelled


class Renderer(QObject):
    """Renders a :class:`~studio.comparison.Comparison` (``trainer.evaluate.render.render`` per clip, the cache
    ``studio.comparison.render_cache_dir()``) in a ``studio.workers.Task`` (one at a time), shown by ``progress``
    ("Rendering 7 / 20"); each render goes into the comparison as it finishes, so a Cancel or a failure keeps
    what was finished.

    Signals:
        message(str): one readable line: what started, what was rendered or kept, or why it failed.
    """

    message = Signal(str)

    def __init__(self, comparison: Comparison, pool: EnginePool, progress: TaskProgress, parent: QObject) -> None:
        super().__init__(parent)
        self.comparison, self.pool, self.progress = comparison, pool, progress
        self.cache_dir = render_cache_dir()
        self.slot = TaskSlot()
        self.counts = {"rendered": 0, "cached": 0, "total": 0}
        """What the running (or last) render delivered."""
        progress.cancel_requested.connect(self.slot.cancel)

    def start(self) -> Task | None:
        """Render the comparison's lines by its candidates; ``None`` (and a ``message``) when there is nothing."""
        candidates, lines, settings = self.comparison.candidates, self.comparison.lines, self.comparison.settings
        if not candidates or not lines:
            self.message.emit("Nothing to render: check at least one candidate and choose lines")
            return None
        texts, cache_dir, pool = [line.text for line in lines], self.cache_dir, self.pool
        self.counts = {"rendered": 0, "cached": 0, "total": len(texts) * len(candidates)}
        task = Task(lambda state: _render(candidates, texts, settings, cache_dir, state, pool), self)
        task.partial.connect(self._on_clip)
        task.done.connect(lambda _none: self._on_ended(cancelled=False))
        task.failed.connect(lambda exc: self.message.emit(f"Render failed: {reason(exc)} ({self._kept()})"))
        task.ended.connect(self.progress.finish)
        task.ended.connect(lambda: self._on_ended(cancelled=True) if task.state.is_cancelled() else None)
        # a cancel ends a generator without ``cancelled`` when it comes between two clips: ``ended`` says it
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

    def _on_clip(self, clip: tuple[tuple[str, int], Rendered]) -> None:
        key, rendered = clip
        self.counts["rendered"] += 1
        self.counts["cached"] += rendered.cached
        self.comparison.add_rendered({key: rendered})

    def _kept(self) -> str:
        return f"kept {self.counts['rendered']} of {self.counts['total']}"

    def _on_ended(self, cancelled: bool) -> None:
        if cancelled:
            self.message.emit(f"Rendering cancelled: {self._kept()}")
        else:
            self.message.emit(f"Rendered {self.counts['rendered']} clips ({self.counts['cached']} from the cache)")


def _render(candidates, texts, settings, cache_dir, state, pool) -> Iterator[tuple[tuple[str, int], Rendered]]:
    """Each ``((candidate label, line index), Rendered)`` as it is rendered; ``state.progress(done, total)``.

    Raises:
        Cancelled: ``state`` was cancelled during a synthesis.
        RenderError, VoiceError, EngineError: as ``trainer.evaluate.render.render``.
    """
    total = len(candidates) * len(texts)
    state.progress(0, total)
    done = 0
    for candidate in candidates:
        for index, text in enumerate(texts):
            if state.is_cancelled():
                raise Cancelled("cancelled before this render")
            yield (candidate.label, index), render(candidate, text, settings, cache_dir, pool, state)
            done += 1
            state.progress(done, total)
