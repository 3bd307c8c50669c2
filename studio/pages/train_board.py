"""The Train page's leaderboard row of the shown run's best checkpoint, beside its val_mel.

A mixin of :class:`studio.pages.train.TrainPage` (as ``train_actions`` is): when a run finishes, or on "Score"
for an opened run, the best checkpoint (and the start voice, the baseline shown under it) is measured on the
run's held-out clips in a ``studio.workers.TaskSlot`` task (progress, Cancel) and the rows saved in the run
folder (``trainer.evaluate.best_row``); opening the run again shows the saved rows at once. A best checkpoint
that changed since (a resumed run) is measured again at once when the run's best was measured before; the row
of a checkpoint that is no longer the best is never shown.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QObject, SignalInstance

from studio.workers import Task, TaskSlot
from trainer.checkpoints.best import RankedCheckpoint, file_epoch_note
from trainer.evaluate.board import Row
from trainer.events.run_state import RunState

if TYPE_CHECKING:
    from studio.trainer_process import TrainerProcess
    from studio.widgets.run_view import RunView


class TrainBoard:
    """Show, measure and save the best checkpoint's leaderboard row of the shown run."""

    state: RunState | None
    view: RunView
    process: TrainerProcess
    message: SignalInstance
    """The page's status-bar message signal (``str``)."""
    board_limit: int = 10
    """At most this many held-out clips are measured."""
    _board: TaskSlot
    _scoring: object = None
    """The checkpoint file being measured (while ``_board`` is busy)."""

    def show_best_row(self, score: bool) -> Task | None:
        """Show the shown run's saved row of its best checkpoint (and the start voice's under it); without one,
        measure it when ``score`` is set or the run's (earlier) best was measured before, else say that Score
        measures it. Hidden while training or when no checkpoint is ranked."""
        best = self.state.best_checkpoint if self.state is not None else None
        if best is not None and self._board.busy() and self._scoring == best.path:
            return None  # the same run shown again (a double-click) while its best is being measured
        self._board.drop()
        shown = self.view.best_row
        shown.setVisible(best is not None and not self.process.is_running())
        shown.caption.setToolTip(file_epoch_note(best.path) if best is not None else "")
        if best is None or self.state is None or self.process.is_running():
            return None
        from trainer.evaluate.best_row import saved_best_row, saved_start_row, scored_before

        saved = saved_best_row(self.state.folder, best)
        baseline = saved_start_row(self.state.folder) if saved is not None else None
        shown.show_row(saved, baseline)
        if saved is not None:
            shown.caption.setText(_caption(best, _measured(self.state.folder, baseline)))
            return None
        if score or scored_before(self.state.folder):
            return self.score_best()
        shown.caption.setText(_caption(best, "not measured yet: Score measures it on the run's held-out clips"))
        return None

    def score_best(self) -> Task | None:
        """Measure the shown run's best checkpoint in the background (progress, Cancel) and show its row."""
        from studio.cli.compare import default_cache
        from trainer.evaluate.best_row import missing_measures, not_installed, score_best, score_start

        best = self.state.best_checkpoint if self.state is not None else None
        if best is None or self.state is None or self.process.is_running():
            return None
        shown, missing = self.view.best_row, missing_measures()
        if missing:
            shown.caption.setText(not_installed(", ".join(missing)))
            return None
        folder, cache, limit = self.state.folder, default_cache(), self.board_limit

        def both(state):
            return score_best(folder, best, cache, limit, state), score_start(folder, cache, limit, state)

        task = Task(both, cast(QObject, self))
        task.done.connect(lambda rows: self._on_best_scored(folder, best, rows[0], rows[1]))
        task.cancelled.connect(lambda _: shown.caption.setText(_caption(best, "scoring cancelled; press Score")))
        task.failed.connect(lambda exc: shown.caption.setText(_failure(best, exc)))
        shown.show_row(None)  # never the row of a checkpoint that is no longer the best
        shown.caption.setText(_caption(best, "measuring it (and the start voice) on the run's held-out clips…"))
        shown.follow(task)
        self._scoring = best.path
        return self._board.start(task)

    def _on_best_scored(self, folder: Path, best: RankedCheckpoint, row: Row, start: Row | None) -> None:
        self.view.best_row.show_row(row, start)
        self.view.best_row.caption.setText(_caption(best, _measured(folder, start)))
        # said in the status bar too: a Score pressed again ends at once (renders and scores kept on disk), and the
        # row, redrawn the same, showed nothing had happened
        self.message.emit(f"Measured {best.label()} on the run's held-out clips.")


MEASURED = "measured on the run's held-out clips, the start voice under it (kept in its leaderboard-*.csv)"


def _caption(best: RankedCheckpoint, what: str) -> str:
    """``Best checkpoint: epoch 2 · val_mel 0.7100 — what``; its file (counting epochs from 0) is the tooltip."""
    return f"Best checkpoint: {best.label()} — {what}"


def _measured(folder: Path, baseline: Row | None) -> str:
    """The caption's end for a measured best row, the same whether just scored or read again: with the start
    voice's row under it, or why there is none (from scratch, or its start gone; or not measured yet)."""
    return MEASURED if baseline is not None else _no_baseline(folder)


def _no_baseline(folder: Path) -> str:
    """The caption's end for a saved best row without the start voice's row under it."""
    from trainer.evaluate.best_row import start_candidate

    if start_candidate(folder) is None:
        return "measured on the run's held-out clips; no baseline: the run started from scratch"  # or its start is gone
    return "measured on the run's held-out clips; the start voice's baseline not yet: Score measures it"


def _failure(best: RankedCheckpoint, exc: Exception) -> str:
    """One line for a scoring that failed; a missing package names the ``compare`` extra."""
    from trainer.evaluate.best_row import not_installed

    if isinstance(exc, ImportError):
        return not_installed(str(exc))
    return f"Scoring {best.path.name} failed: {exc}"
