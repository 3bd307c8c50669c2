"""Canary evaluations during training: when they are due, their processes, and their events (rank 0 only).

:class:`CanaryCallback` (a Lightning callback), at the end of an epoch that is due (by default the epochs that
preview, ``PreviewCallback.due``; or every ``--eval-every`` epochs and the last), queues a small generator
checkpoint of the epoch on the checkpoint writer (in the background, as the ranked checkpoints are written);
an epoch spent wholly in the discriminator warm-up is not measured (its generator is the start's: the
recommendation must never offer it as a new voice), which its stage event says. Once the checkpoint is on disk,
:class:`Evaluations` starts its evaluation process (``trainer.evaluate.canary``), one at a time: an evaluation
due while the one before still runs waits, and a newer one replaces a waiting one, which is
skipped with a warning. At each epoch's end the finished ones become ``Evaluation`` events (the trainer is the
events file's only writer); one that ended without a result (killed, failed) becomes a warning, and training
goes on. At the end of training the evaluations take normal priority (``trainer.evaluate.background``) and
the callback waits up to ``FINAL_WAIT_S`` for the last, then stops what still runs. Each event carries the
verdict over the evaluations so far; of the measured evaluation checkpoints only the recommended epoch's is kept
(``trainer.evaluate.run_measures.keep_recommended``), so Export can take it.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import lightning as L

from engines.imports import importing
from trainer.checkpoints.writer import CheckpointWriter, remove_stale_temps
from trainer.evaluate.background import NOW
from trainer.evaluate.canary import FOLDER, Job, checkpoint_path, launch, read_result, result_path
from trainer.events.log import EventLog
from trainer.events.schema import Stage, WarningEvent

if TYPE_CHECKING:
    from trainer.run.callbacks import Timing

FINAL_WAIT_S = 300.0
"""Most seconds the end of training waits for the evaluations still running or waiting."""

Finished = tuple[Job, int]
"""An evaluation process that ended: its job and exit code."""


def schedule(every: int | None, previews_due: Callable[[L.Trainer], bool]) -> Callable[[L.Trainer], bool]:
    """When an evaluation is due, given the Lightning trainer at the end of an epoch: every ``every`` epochs and
    the last; with ``every`` ``None``, when ``previews_due`` says (the preview callback's own schedule)."""
    if every is None:
        return previews_due

    def due(trainer: L.Trainer) -> bool:
        done = trainer.current_epoch + 1
        return done % every == 0 or done == trainer.max_epochs

    return due


class Evaluations:
    """Evaluation processes, one running at a time and at most one waiting; thread-safe (:meth:`submit` is
    called on the checkpoint writer's thread).

    Attributes:
        skipped: jobs a newer one replaced while they waited (never started), in order.
    """

    def __init__(self, start: Callable[[Job], subprocess.Popen] | None = None) -> None:
        self._start = start or launch  # ``launch`` unless told: starts a process for a job
        self._lock = threading.Lock()
        self._running: tuple[Job, subprocess.Popen] | None = None
        self._waiting: Job | None = None
        self._finished: list[Finished] = []
        self._hurried = False
        self.skipped: list[Job] = []

    def submit(self, job: Job) -> None:
        """Start ``job`` now, or let it wait for the running one (replacing, and skipping, a waiting one)."""
        with self._lock:
            if self._running is None:
                self._launch(job)
            else:
                if self._waiting is not None:
                    self.skipped.append(self._waiting)
                self._waiting = job

    def _launch(self, job: Job) -> None:
        """Start ``job`` (under the lock); one that cannot start is finished at once with exit code -1."""
        try:
            self._running = (job, self._start(job))
        except OSError:
            self._finished.append((job, -1))
            return
        if self._hurried:
            _tell(self._running[1], NOW)

    def hurry(self) -> None:
        """Training is over: the running process and any started later take normal priority."""
        with self._lock:
            self._hurried = True
            if self._running is not None:
                _tell(self._running[1], NOW)

    def poll(self) -> list[Finished]:
        """The processes that ended since the last call (a waiting job starts when the running one is done)."""
        with self._lock:
            if self._running is not None and self._running[1].poll() is not None:
                job, process = self._running
                _close(process)
                self._finished.append((job, int(process.returncode)))
                self._running = None
                if self._waiting is not None:
                    waiting, self._waiting = self._waiting, None
                    self._launch(waiting)
            finished, self._finished = self._finished, []
            return finished

    def busy(self) -> list[Job]:
        """The running and the waiting job, in that order."""
        with self._lock:
            return [j for j in (self._running[0] if self._running else None, self._waiting) if j is not None]

    def wait(self, timeout_s: float) -> list[Finished]:
        """Wait until none runs or waits, at most ``timeout_s`` seconds; returns those that ended meanwhile."""
        deadline, finished = time.monotonic() + timeout_s, self.poll()
        while (running := self._running) is not None and (left := deadline - time.monotonic()) > 0:
            try:
                running[1].wait(timeout=left)
            except subprocess.TimeoutExpired:
                pass
            finished += self.poll()
        return finished

    def stop(self) -> list[Job]:
        """Kill the running process and drop the waiting job; returns both (the jobs not measured)."""
        with self._lock:
            stopped = [self._running[0]] if self._running else []
            if self._running is not None:
                self._running[1].kill()
                self._running[1].wait()
                _close(self._running[1])
            if self._waiting is not None:
                stopped.append(self._waiting)
            self._running = self._waiting = None
            return stopped


def _tell(process: subprocess.Popen, line: bytes) -> None:
    """Write ``line`` to the process's stdin (nothing if it has none or has ended)."""
    try:
        if process.stdin is not None:
            process.stdin.write(line)
            process.stdin.flush()
    except (OSError, ValueError):  # a broken pipe (it ended), or closed
        pass


def _close(process: subprocess.Popen) -> None:
    """Close the parent's end of the process's stdin (it has ended)."""
    try:
        if process.stdin is not None:
            process.stdin.close()
    except OSError:
        pass


class CanaryCallback(L.Callback):
    """Evaluates the canary lines with the generator of each due epoch, without stalling training.

    Args:
        run_dir: the run folder. writer: the run's checkpoint writer. log: its events. timing: the epoch's
            wall-time parts (the checkpoint snapshot counts as checkpoint wait).
        due: whether the epoch now ending is evaluated (given the Lightning trainer).
        lines: held-out clips spoken. cache_dir: the shared render cache.
        evaluations: the processes (a test may pass its own). final_wait_s: see ``FINAL_WAIT_S``.
    """

    def __init__(
        self,
        run_dir: Path,
        writer: CheckpointWriter,
        log: EventLog,
        timing: Timing,
        *,
        due: Callable[[L.Trainer], bool],
        lines: int,
        cache_dir: Path,
        evaluations: Evaluations | None = None,
        final_wait_s: float = FINAL_WAIT_S,
    ) -> None:
        self.run_dir, self.writer, self.events, self.timing = Path(run_dir), writer, log, timing
        self.due, self.lines, self.cache_dir, self.final_wait_s = due, lines, Path(cache_dir), final_wait_s
        self.evaluations = evaluations or Evaluations()
        self._bands_asked = False
        """Whether the run has its noise bands, or a job that measures them runs or waits."""

    def on_fit_start(self, trainer, module) -> None:
        if trainer.is_global_zero:
            self._pick_up_left_results()

    def on_train_epoch_end(self, trainer, module) -> None:
        if not trainer.is_global_zero:
            return
        self._report(self.evaluations.poll())
        if self.due(trainer) and _frozen_all_epoch(module):
            message = (
                f"epoch {trainer.current_epoch + 1} not measured: the generator was frozen all epoch (discriminator"
                " warm-up), so it still speaks as the start voice"
            )
            self.events.emit(Stage(name="evaluation", message=message))
        elif self.due(trainer):
            started = time.perf_counter()
            self._submit(trainer, module)
            self.timing.add("checkpoint_wait_s", time.perf_counter() - started)

    def _submit(self, trainer, module) -> None:
        """Queue the epoch's generator checkpoint; its evaluation starts once the file is on disk."""
        with importing("trainer.run.callbacks"):
            from trainer.run.callbacks import generator_checkpoint

        epoch, val_mel = trainer.current_epoch, trainer.callback_metrics.get("val_mel")
        state = generator_checkpoint(module, epoch, trainer.global_step, None if val_mel is None else float(val_mel))
        job = Job(
            run_dir=self.run_dir,
            checkpoint=checkpoint_path(self.run_dir, epoch),
            epoch=epoch,
            lines=self.lines,
            cache_dir=self.cache_dir,
            bands=not self._bands_asked,
        )
        self._bands_asked = True
        result_path(self.run_dir, epoch).unlink(missing_ok=True)  # an earlier session's result of this epoch
        self.writer.save(job.checkpoint, state, on_written=lambda _: self.evaluations.submit(job))

    def on_fit_end(self, trainer, module) -> None:
        if not trainer.is_global_zero:
            return
        self.writer.flush()  # the last evaluation checkpoint is on disk and its job submitted
        self.evaluations.hurry()
        self._report(self.evaluations.poll())
        busy = self.evaluations.busy()
        if busy:
            epochs = ("epochs " if len(busy) > 1 else "epoch ") + " and ".join(str(job.epoch + 1) for job in busy)
            message = f"waiting for the quality measures of {epochs} (at most {self.final_wait_s:.0f} s)"
            self.events.emit(Stage(name="evaluation", message=message))
            self._report(self.evaluations.wait(self.final_wait_s))
        for job in self.evaluations.stop():
            self._warn(job, f"did not finish within {self.final_wait_s:.0f} s of the end of training: stopped")
        self._report(self.evaluations.poll())

    def on_exception(self, trainer, module, exception) -> None:
        for job in self.evaluations.stop():
            checkpoint_path(self.run_dir, job.epoch).unlink(missing_ok=True)

    def _report(self, finished: list[Finished]) -> None:
        """Emit each finished evaluation's record (or a warning without one), and each skipped job's warning."""
        skipped, self.evaluations.skipped = self.evaluations.skipped, []
        for job in skipped:
            self._warn(job, "skipped: those of an earlier epoch were still being taken (one at a time)")
        for job, code in finished:
            event = read_result(job.result)
            if event is None or event.epoch != job.epoch:
                self._warn(job, f"ended without a result (exit code {code}; its output: {job.log})")
                continue
            job.log.unlink(missing_ok=True)
            if job.bands and not event.bands:  # not measured (the evaluation failed): a later one measures them
                self._bands_asked = False
            self._emit_judged(event)

    def _emit_judged(self, event) -> None:
        """Emit an evaluation with the verdict over the run's evaluations up to it, then keep only the
        recommended epoch's evaluation checkpoint (``trainer.evaluate.run_measures``)."""
        from dataclasses import replace

        from trainer.evaluate.run_measures import keep_recommended, run_verdict
        from trainer.events.run_state import load_run

        state = load_run(self.run_dir)
        state.evaluations[event.epoch] = event
        said = run_verdict(state)
        self.events.emit(replace(event, verdict=said.sentence if said is not None else None))
        keep_recommended(state)

    def _warn(self, job: Job, why: str) -> None:
        """A warning that ``job``'s evaluation is missing; its checkpoint is removed; a later one may measure the
        noise bands it was to measure."""
        job.checkpoint.unlink(missing_ok=True)
        self._bands_asked = self._bands_asked and not job.bands
        self.events.emit(WarningEvent(message=f"the quality measures of epoch {job.epoch + 1} {why}"))

    def _pick_up_left_results(self) -> None:
        """Results an earlier session's evaluations wrote after it ended become events now; its leftover
        checkpoints that were never measured are removed (the recommended epoch's is kept); whether the run has
        its noise bands already is read from its events."""
        from trainer.events.run_state import load_run

        seen = load_run(self.run_dir).evaluations
        self._bands_asked = any(event.bands for event in seen.values())
        folder = self.run_dir / FOLDER
        if folder.is_dir():
            remove_stale_temps(folder)
        results = {path: read_result(path) for path in sorted(folder.glob("epoch=*.json"))} if folder.is_dir() else {}
        measured = set(seen) | {event.epoch for event in results.values() if event is not None}
        for stale in folder.glob("checkpoint-epoch=*.ckpt") if folder.is_dir() else []:
            if _checkpoint_epoch(stale) not in measured:  # its evaluation never finished
                stale.unlink(missing_ok=True)
        for event in results.values():
            if event is not None and event.epoch not in seen:
                self._bands_asked = self._bands_asked or bool(event.bands)
                self._emit_judged(event)


def _checkpoint_epoch(path: Path) -> int | None:
    """The epoch (from 0) of an evaluation checkpoint's name ``checkpoint-epoch=EEEE.ckpt``; ``None`` otherwise."""
    try:
        return int(path.stem.rsplit("=", 1)[1])
    except (IndexError, ValueError):
        return None


def _frozen_all_epoch(module) -> bool:
    """Whether the epoch now ending left the generator as the start (``trainer.gan.d_warmup``: the warm-up still on at
    the epoch's end means it was on all epoch, since it only ever comes first)."""
    warmup = getattr(module, "d_warmup", None)
    return warmup is not None and bool(warmup.on)
