"""Rendering a comparison on a worker thread: every line by every candidate, cached, with progress and Cancel.

Each clip reaches the comparison as soon as it is rendered (the view updates clip by clip). A candidate that
cannot be loaded or spoken does not stop the others: its reason is kept in :attr:`Renderer.failed` and said.
"""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import QObject, Signal

from engines.base import EngineError, VoiceError
from engines.pool import EnginePool
from engines.words import count
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
        candidate_failed(str, str): a candidate's label and why it cannot be rendered (its other lines are skipped).
    """

    message = Signal(str)
    candidate_failed = Signal(str, str)

    def __init__(self, comparison: Comparison, pool: EnginePool, progress: TaskProgress, parent: QObject) -> None:
        super().__init__(parent)
        self.comparison, self.pool, self.progress = comparison, pool, progress
        self.cache_dir = render_cache_dir()
        self.slot = TaskSlot()
        self.counts = {"rendered": 0, "cached": 0, "total": 0}
        """What the running (or last) render delivered."""
        self.failed: dict[str, str] = {}
        """Why each candidate of the running (or last) render that could not be rendered failed, by label."""
        progress.cancel_requested.connect(self.slot.cancel)

    def start(self) -> Task | None:
        """Render the comparison's lines by its candidates; ``None`` (and a ``message``) when there is nothing."""
        candidates, lines, settings = self.comparison.candidates, self.comparison.lines, self.comparison.settings
        if not candidates or not lines:
            self.message.emit("Nothing to render: check at least one candidate and choose lines")
            return None
        texts, cache_dir, pool = [line.text for line in lines], self.cache_dir, self.pool
        self.counts = {"rendered": 0, "cached": 0, "total": len(texts) * len(candidates)}
        self.failed = {}
        task = Task(lambda state: _render(candidates, texts, settings, cache_dir, state, pool), self)
        task.partial.connect(self._on_clip)
        task.done.connect(lambda _none: self._on_ended(cancelled=False))
        task.failed.connect(lambda exc: self.message.emit(f"Render failed: {reason(exc)} ({self._kept()})"))
        task.ended.connect(self.progress.finish)
        task.ended.connect(lambda: self._on_ended(cancelled=True) if task.state.is_cancelled() else None)
        # a cancel ends a generator without ``cancelled`` when it comes between two clips: ``ended`` says it
        self.progress.follow(task, "Rendering", cancellable=True)
        task.status.connect(self.message)  # which candidate, n of m
        self.message.emit(f"Rendering {count(len(texts), 'line')} by {count(len(candidates), 'candidate')}…")
        return self.slot.start(task)

    def drop(self) -> bool:
        """Stop a running render and drop what it would still deliver; whether one was running."""
        if not self.slot.busy():
            return False
        self.slot.drop()
        self.progress.finish()
        return True

    def _on_clip(self, clip: tuple[tuple[str, int], Rendered | BaseException]) -> None:
        key, rendered = clip
        if isinstance(rendered, BaseException):
            self.failed[key[0]] = reason(rendered)
            self.candidate_failed.emit(key[0], self.failed[key[0]])
            return
        self.counts["rendered"] += 1
        self.counts["cached"] += rendered.cached
        self.comparison.add_rendered({key: rendered})

    def _kept(self) -> str:
        return f"kept {self.counts['rendered']} of {self.counts['total']}"

    def _on_ended(self, cancelled: bool) -> None:
        failures = "".join(f"; cannot render {label}: {why}" for label, why in self.failed.items())
        if cancelled:
            self.message.emit(f"Rendering cancelled: {self._kept()}{failures}")
        else:
            cached = self.counts["cached"]
            done = f"Rendered {count(self.counts['rendered'], 'clip')}, {cached or 'none'} from the cache"
            self.message.emit(done + failures)


def _render(
    candidates, texts, settings, cache_dir, state, pool
) -> Iterator[tuple[tuple[str, int], Rendered | BaseException]]:
    """Each ``((candidate label, line index), Rendered)`` as it is rendered, and for a candidate that cannot be
    loaded or spoken one ``((label, -1), VoiceError | EngineError)`` instead of its lines (the others go on);
    ``state.progress(done, total)``, a failed candidate's lines counted as done (as ``render_all`` does).

    Raises:
        Cancelled: ``state`` was cancelled during a synthesis.
        RenderError: as ``trainer.evaluate.render.render`` (a line with nothing to speak).
    """
    total = len(candidates) * len(texts)
    state.progress(0, total)
    for number, candidate in enumerate(candidates):
        state.status(f"Rendering {candidate.label}: candidate {number + 1} of {len(candidates)}…")
        for index, text in enumerate(texts):
            if state.is_cancelled():
                raise Cancelled("cancelled before this render")
            try:
                rendered = render(candidate, text, settings, cache_dir, pool, state)
            except (VoiceError, EngineError) as exc:
                yield (candidate.label, -1), exc
                break
            yield (candidate.label, index), rendered
            state.progress(number * len(texts) + index + 1, total)
        state.progress((number + 1) * len(texts), total)
