"""The Listen tab's "At strength…": a run's checkpoint moved back towards the voice the run started from.

At strength ``s`` every generator weight is ``start + s * (checkpoint - start)`` (``trainer.checkpoints.strength``):
1 is the checkpoint as trained, 0 the start voice. The strengths typed are written one after another into the
run's ``strengths/`` folder by a ``studio.workers.Task`` (a few seconds each: the start voice's weights are read
once per process), with progress and Cancel, so the window never waits on them.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QHBoxLayout, QInputDialog, QPushButton, QWidget

from engines.words import count
from studio.widgets.task_progress import TaskProgress
from studio.workers import Task, TaskSlot
from trainer.tasks import Cancelled, TaskState

DEFAULT_STRENGTHS = "0.6, 0.8"
"""What the question offers first: two points of the line where, measured, a fine-tune keeps most of its likeness
to the recordings and is understood better (docs/benchmarks.md, "Fine-tuning quality", "A checkpoint's strength")."""
QUESTION = (
    "Strengths between 0 and 1, separated by commas.\n"
    "1 is the checkpoint as trained, 0 the voice its run started from;\n"
    "0.7 keeps 70% of what the fine-tune changed (clearer, a little less like the recordings)."
)
TIP = (
    "Take the selected checkpoint of a run back towards the voice the run started from, at strengths you type "
    "(1: as trained, 0: the start voice); each is written to the run's strengths/ folder and listed here, checked"
)


def ask_strengths(parent: QWidget) -> str | None:
    """The strengths typed (``None``: the question was cancelled)."""
    text, ok = QInputDialog.getText(parent, "At strength", QUESTION, text=DEFAULT_STRENGTHS)
    return text if ok else None


def write_strengths(
    checkpoint: Path, strengths: list[float], state: TaskState, written: list[Path] | None = None
) -> list[Path]:
    """``checkpoint`` written at each of ``strengths`` (``trainer.checkpoints.strength.write_at_strength``, against
    its run's start), one after another, reporting ``progress(done, total)`` and a status per strength.

    Args:
        written: where each file is added as it is written (what a failure or Cancel leaves is known there).

    Returns:
        The files written, in the order of ``strengths`` (``written``, where given).

    Raises:
        Cancelled: ``state`` was cancelled between two strengths (the message says how many were written).
        StrengthError: a bad strength, a checkpoint of no run or at a strength already, a run from scratch.
        StrengthError: the run's start voice is missing (moved or deleted).
        engines.base.VoiceError: the checkpoint or the start voice cannot be read.
    """
    from trainer.checkpoints.strength import write_at_strength

    written = written if written is not None else []
    state.progress(0, len(strengths))
    for number, strength in enumerate(strengths):
        if state.is_cancelled():
            raise Cancelled(f"{len(written)} of {count(len(strengths), 'strength')} written")
        state.status(f"Taking {checkpoint.name} to strength {strength:.2f} ({number + 1} of {len(strengths)})…")
        written.append(write_at_strength(checkpoint, strength))
        state.progress(number + 1, len(strengths))
    return written


class StrengthWriter(QObject):
    """Writes one checkpoint at strengths (:func:`write_strengths`) in a ``studio.workers.Task``, one task at a
    time, shown by ``progress`` (its Cancel stops between two strengths).

    Signals:
        finished(object, object, object): once the task has ended (no longer :meth:`busy`): the run folder, the
            files this task wrote (all the strengths asked, or those written before a failure or Cancel; not
            older files of the run's), and ``None`` when every strength was written, else the ``Cancelled`` or
            other exception that ended it.
    """

    finished = Signal(object, object, object)

    def __init__(self, progress: TaskProgress, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.progress = progress
        self.slot = TaskSlot()
        self._outcome: BaseException | None = None
        """How the running (or last) task ended: ``None`` (every strength written), ``Cancelled`` or a failure."""
        progress.cancel_requested.connect(self.slot.cancel)

    def start(self, checkpoint: Path, run: Path, strengths: list[float]) -> Task:
        """Write ``checkpoint`` (one of ``run``'s) at ``strengths`` off the GUI thread; ``finished`` when it ends."""
        written: list[Path] = []  # filled on the task's thread; read once it has ended
        self._outcome = None
        task = Task(lambda state: write_strengths(checkpoint, strengths, state, written), self)
        task.cancelled.connect(self._ended_by)
        task.failed.connect(self._ended_by)
        task.ended.connect(self.progress.finish)
        self.progress.follow(task, "At strength", cancellable=True)
        self.slot.start(task)  # the slot is free before ``finished``: connected after the slot's own
        task.ended.connect(lambda: self.finished.emit(run, list(written), self._outcome))
        return task

    def busy(self) -> bool:
        """Whether strengths are being written."""
        return self.slot.busy()

    def _ended_by(self, exc: BaseException) -> None:
        self._outcome = exc

    def drop(self) -> None:
        """Stop writing (each file is written atomically: one under way is finished or left out) and drop what the
        task would still say."""
        self.slot.drop()
        self.progress.finish()


class StrengthRow(QWidget):
    """The "At strength…" button and the progress of the strengths being written (Cancel included).

    The owner says which checkpoint the button takes (:meth:`set_checkpoint`, a run's ``.ckpt`` or ``None``: the
    button is disabled); a click asks for strengths (:func:`ask_strengths`), and strengths that are not numbers in
    [0, 1] are a ``message``, nothing written.

    Signals:
        message(str): one readable line: what is being written, or why nothing is.
        finished(object, object, object): as :class:`StrengthWriter`'s.
    """

    message = Signal(str)
    finished = Signal(object, object, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.button = QPushButton("At strength…")
        self.button.setToolTip(TIP)
        self.button.clicked.connect(self._ask)
        self.progress = TaskProgress()
        self.writer = StrengthWriter(self.progress, self)
        self.writer.finished.connect(self._on_finished)
        self.checkpoint: Path | None = None
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.button)
        layout.addWidget(self.progress, 1)
        layout.addStretch()
        self.set_checkpoint(None)

    def set_checkpoint(self, checkpoint: Path | None) -> None:
        """The run's checkpoint the button takes (``None``: none, the button disabled)."""
        self.checkpoint = checkpoint
        self.button.setEnabled(checkpoint is not None and not self.writer.busy())

    def start(self, strengths: list[float]) -> Task | None:
        """Write the checkpoint at ``strengths`` (0-1) off the GUI thread; ``finished`` once it ends. ``None``
        (and a ``message``) where no checkpoint of a run is set or strengths are being written already."""
        from trainer.run.document import run_of

        run = run_of(self.checkpoint) if self.checkpoint is not None else None
        if self.writer.busy():
            self.message.emit("At strength: strengths are being written; wait for them, or Cancel")
            return None
        if self.checkpoint is None or run is None:
            self.message.emit("At strength: select one checkpoint (.ckpt) of a run")
            return None
        said = ", ".join(f"{s:g}" for s in strengths)
        self.message.emit(f"Taking {self.checkpoint.name} to strength {said} (1: as trained, 0: the start voice)…")
        task = self.writer.start(self.checkpoint, run, strengths)
        self.button.setEnabled(False)
        return task

    def drop(self) -> None:
        """Stop writing (see :meth:`StrengthWriter.drop`)."""
        self.writer.drop()
        self.set_checkpoint(self.checkpoint)

    def _ask(self) -> None:
        """Ask for strengths and write them; strengths that cannot be read are a ``message``, nothing written."""
        from trainer.checkpoints.strength import StrengthError, parse_strengths

        text = ask_strengths(self)
        if text is None:
            return
        try:
            strengths = parse_strengths(text)
        except StrengthError as exc:
            self.message.emit(f"At strength: {exc}; nothing written")
            return
        self.start(strengths)

    def _on_finished(self, run: Path, files: list[Path], outcome: BaseException | None) -> None:
        self.set_checkpoint(self.checkpoint)
        self.finished.emit(run, files, outcome)
