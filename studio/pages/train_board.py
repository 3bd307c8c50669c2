"""The Train page's leaderboard row of the shown run's best checkpoint, beside its val_mel.

A mixin of :class:`studio.pages.train.TrainPage` (as ``train_actions`` is): when a run finishes, or on "Score"
for an opened run, the best checkpoint is measured on the run's held-out clips in a ``studio.workers.TaskSlot``
task (progress, Cancel) and the row saved in the run folder (``trainer.evaluate.best_row``); opening the run
again shows the saved row at once, and a best checkpoint that changed since is measured again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QObject

from studio.workers import Task, TaskSlot
from trainer.checkpoints import RankedCheckpoint
from trainer.evaluate.board import Row
from trainer.run_state import RunState

if TYPE_CHECKING:
    from studio.trainer_process import TrainerProcess
    from studio.widgets.run_view import RunView


class TrainBoard:
    """Show, measure and save the best checkpoint's leaderboard row of the shown run."""

    state: RunState | None
    view: RunView
    process: TrainerProcess
    board_limit: int = 10
    """At most this many held-out clips are measured."""
    _board: TaskSlot

    def show_best_row(self, score: bool) -> Task | None:
        """Show the shown run's saved row of its best checkpoint; without one, measure it when ``score`` is set
        (else say that Score measures it). Hidden while training or when no checkpoint is ranked."""
        self._board.drop()
        best = self.state.best_checkpoint if self.state is not None else None
        shown = self.view.best_row
        shown.setVisible(best is not None and not self.process.is_running())
        if best is None or self.state is None or self.process.is_running():
            return None
        from trainer.evaluate.best_row import saved_best_row

        saved = saved_best_row(self.state.folder, best)
        shown.show_row(saved)
        if saved is not None:
            shown.caption.setText(_caption(best, MEASURED))
            return None
        if score:
            return self.score_best()
        shown.caption.setText(_caption(best, "not measured yet: Score measures it on the run's held-out clips"))
        return None

    def score_best(self) -> Task | None:
        """Measure the shown run's best checkpoint in the background (progress, Cancel) and show its row."""
        from studio.cli.compare import default_cache
        from trainer.evaluate.best_row import missing_measures, not_installed, score_best

        best = self.state.best_checkpoint if self.state is not None else None
        if best is None or self.state is None or self.process.is_running():
            return None
        shown, missing = self.view.best_row, missing_measures()
        if missing:
            shown.caption.setText(not_installed(", ".join(missing)))
            return None
        folder, cache, limit = self.state.folder, default_cache(), self.board_limit
        task = Task(lambda state: score_best(folder, best, cache, limit, state), cast(QObject, self))
        task.done.connect(lambda row: self._on_best_scored(best, row))
        task.cancelled.connect(lambda _: shown.caption.setText(_caption(best, "scoring cancelled; press Score")))
        task.failed.connect(lambda exc: shown.caption.setText(_failure(best, exc)))
        shown.caption.setText(_caption(best, "measuring it on the run's held-out clips…"))
        shown.follow(task)
        return self._board.start(task)

    def _on_best_scored(self, best: RankedCheckpoint, row: Row) -> None:
        self.view.best_row.show_row(row)
        self.view.best_row.caption.setText(_caption(best, MEASURED))


MEASURED = "measured on the run's held-out clips (kept in its leaderboard-best.csv)"


def _caption(best: RankedCheckpoint, what: str) -> str:
    """``Best checkpoint: best-epoch=… (epoch 2, val_mel 0.7100) — what``."""
    return f"Best checkpoint: {best.describe()} — {what}"


def _failure(best: RankedCheckpoint, exc: Exception) -> str:
    """One line for a scoring that failed; a missing package names the ``compare`` extra."""
    from trainer.evaluate.best_row import not_installed

    if isinstance(exc, ImportError):
        return not_installed(str(exc))
    return f"Scoring {best.path.name} failed: {exc}"
