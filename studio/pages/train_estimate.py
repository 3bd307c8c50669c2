"""What the Train page's Check says about time: how long the chosen epochs will take on this machine.

After a Check's findings (not Start's: the run's own ETA follows within an epoch), a task works it out
(``trainer.run.step_timing.estimate_run``: earlier runs here, a step timed here before, else a step timed now in a
child process, with a moving figure meanwhile) and shows it under the findings, and in the status line while
it still invites Start. A change of the choices or a Start drops the task (a step being timed is
ended).

A mixin of :class:`studio.pages.train.TrainPage`, as ``studio.pages.train_actions`` is: it relies on the
page's attributes declared below.
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable
from typing import cast

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel, QWidget

from studio.widgets.train_setup import TrainSetup
from studio.workers import Task, TaskSlot
from trainer.run.epoch_time import TimeEstimate, estimate_basis, estimate_sentence
from trainer.run.options import RunOptions

START_HINT = "Press Start to train."
"""How the status line of a check that found nothing blocking ends; the estimate goes before it."""


class TrainEstimate:
    """The time estimate of the Train page's Check."""

    setup: TrainSetup
    status: QLabel
    _estimates: TaskSlot
    _reveal: Callable[[QWidget], None]
    _say_inputs: Callable[[str, bool], None]

    def estimate(self, options: RunOptions) -> Task:
        """Work out, in the background, how long the epochs ``options`` ask for take here, and show it."""

        def work(state):
            from trainer.run.preflight import summarize
            from trainer.run.step_timing import estimate_run

            clips = summarize(options.dataset).clips
            said = lambda key: state.status("CPU" if key.cpu else f"GPU ({key.device})")  # noqa: E731
            return estimate_run(options, clips, time_now=True, cancel=state, timing=said)

        task = Task(work, cast(QObject, self))
        task.status.connect(lambda where: self._tick_timing(task, where))
        task.done.connect(self._on_estimated)
        task.failed.connect(
            lambda exc: self.setup.show_estimate(f"No time estimate: {html.escape(str(exc), quote=False)}", "warning")
        )
        return self._estimates.start(task)

    def _tick_timing(self, task: Task, where: str) -> None:
        """While a step is timed: ``Timing a training step on this CPU to tell how long the epochs take… 12 s``."""
        started, ticker = time.monotonic(), QTimer(task)

        def show() -> None:
            doing = f"Timing a training step on this {where} to tell how long the epochs take (once; remembered)"
            self.setup.show_estimate(f"{doing}… {time.monotonic() - started:.0f} s")

        for ended in (task.done, task.failed, task.cancelled, task.ended, task.dropped):
            ended.connect(ticker.stop)
        ticker.timeout.connect(show)
        ticker.start(1000)
        show()
        self._reveal(self.setup.estimate)

    def _on_estimated(self, estimate: TimeEstimate | None) -> None:
        if estimate is None:
            self.setup.show_estimate("No time figure for this device yet: the first epoch's ETA will tell.")
            self._reveal(self.setup.estimate)
            return
        sentence = estimate_sentence(estimate)
        basis = html.escape(estimate_basis(estimate), quote=False)
        self.setup.show_estimate(f"{html.escape(sentence, quote=False)}<br><span style='color:#6b7280'>{basis}</span>")
        self._reveal(self.setup.estimate)
        text = self.status.text()
        if text.endswith(START_HINT):  # the check's line, unchanged since (a change drops this task)
            self._say_inputs(f"{text.removesuffix(START_HINT)}{sentence} {START_HINT}", True)
