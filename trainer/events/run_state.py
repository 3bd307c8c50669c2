"""A training run as its events tell it: what the Train page shows, without Qt or torch.

:class:`RunState` folds a run's events (``trainer.events.schema``, read by ``trainer.events.log``)
into what a person wants to see: per-epoch wall time split into train,
validation, previews and checkpoint wait, and the training steps' own split; losses and learning rates; the
latest speed and ETA; previews; the canary evaluations (measures of held-out lines per evaluated epoch) and the
run's noise bands; the best val_mel; how the run ended. A resumed
run appends to the same file: an epoch seen twice keeps its latest record.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from trainer.checkpoints.best import RankedCheckpoint, ranked_checkpoints
from trainer.checkpoints.writer import CheckpointError
from trainer.evaluate.bands import DEFAULT_BANDS, Bands
from trainer.events.log import EventTail
from trainer.events.preview_lines import preview_text
from trainer.events.schema import (
    WARMUP_STAGE,
    Checkpoint,
    Epoch,
    ErrorEvent,
    Eta,
    Evaluation,
    Event,
    Finish,
    Preview,
    Progress,
    Recovery,
    RunStart,
    Stage,
    WarningEvent,
)
from trainer.run.document import TRAINING_FILE, is_run, read_run

STOP_FILE = "stop.request"
"""Created in a run folder to ask the trainer to stop after the current epoch (``request_stop``)."""
PREVIEW_FILE = "preview.request"
"""Created in a run folder to ask the trainer for previews now (``request_preview``); it removes the file when it
has begun them."""
PREPARED = re.compile(r"prepared \d{4}-\d\d-\d\d (\d\d:\d\d)")
"""When a cached recovery's parts were prepared, in its stage message (``recovery_stage``): the time of day."""
MILESTONES = (100, 250, 500, 1000)
"""Epochs whose cumulative wall time the milestone table shows (runs shorter than 100 epochs: quarters)."""


@dataclass
class RunState:
    """Everything the events of one run say, updated event by event (``apply``)."""

    folder: Path
    epochs_total: int = 0
    start: str = ""
    dataset: Path | None = None
    """The dataset it trains on (``training.json``); None when unknown."""
    device: str = ""
    num_utterances: int = 0
    preset: str = ""
    settings: tuple[str, ...] = ()
    """The run's ``--set NAME=VALUE`` settings (``training.json``), in the order given."""
    epochs: dict[int, Epoch] = field(default_factory=dict)
    progress: Progress | None = None
    eta: Eta | None = None
    previews: list[tuple[int, str, str]] = field(default_factory=list)
    """``(epoch from 0, WAV path, the line it speaks)``, in the order written."""
    best: list[tuple[int, str]] = field(default_factory=list)
    evaluations: dict[int, Evaluation] = field(default_factory=dict)
    """The canary evaluations by epoch (from 0; an epoch evaluated twice keeps its latest)."""
    messages: list[str] = field(default_factory=list)
    stage: str = ""
    finish: Finish | None = None
    error: str | None = None
    setup_s: float = 0.0
    activity: Stage | Progress | None = None
    """What the trainer is doing now: its latest stage or step progress (``None`` between epochs)."""
    recovery: str = ""
    """How the start's training-only parts were had this run, e.g. ``cached (prepared 2026-12-01 05:05)``, kept
    for the whole run (``""``: none recovered, or not said)."""
    recovery_kl: float | None = None
    """The KL per frame the recovered parts reach on held-out lines of the voice (``None``: not said)."""
    config: dict = field(default_factory=dict)
    """The run's training config (``TrainingConfig.to_dict()``): ``training.json``'s, then its latest session's
    (``run_start``); e.g. its learning-rate schedule (``trainer.gan.lr_schedule``). Empty when unknown."""
    warmup: Stage | None = None
    """The discriminator warm-up under way in the session followed: its latest ``d_warmup`` stage (``None``:
    none, or over). Epochs run meanwhile, so it is not the ``activity``: the status line says both."""
    session_since: float = 0.0
    """Unix seconds the session being followed began (the page sets it when it launches a trainer): an earlier
    session's progress, stage or ETA is not what the trainer does now."""

    def apply(self, event: Event) -> None:
        """Fold one event in."""
        if isinstance(event, RunStart):
            self.epochs_total, self.device, self.num_utterances = event.epochs, event.device, event.num_utterances
            self.config = event.config or self.config
            if event.start != "resume":
                self.start = event.start
            self._new_session()
        elif isinstance(event, Epoch):
            self.epochs[event.epoch] = event
            self.activity = None
        elif isinstance(event, Progress):
            if event.time >= self.session_since:
                self.progress = self.activity = event
        elif isinstance(event, Eta):
            self.eta = event if event.time >= self.session_since else self.eta
        elif isinstance(event, Preview):
            self.previews.append((event.epoch, event.path, preview_text(event.path, event.text)))
        elif isinstance(event, Recovery) and event.metric == "kl_held_out":
            self.recovery_kl = event.value
        elif isinstance(event, Checkpoint) and event.role == "best":
            self.best.append((event.epoch, event.path))
        elif isinstance(event, Evaluation):
            self.evaluations[event.epoch] = event
        else:
            self._apply_outcome(event)

    def _new_session(self) -> None:
        """A trainer session begins (its ``setup`` stage or its ``run_start``): what an earlier one was doing,
        its speed and its ETA are not this one's."""
        self.finish, self.error, self.activity, self.progress, self.eta = None, None, None, None, None
        self.warmup = None
        self.stage = ""

    def _apply_outcome(self, event: Event) -> None:
        """Stages, warnings, errors and the finish."""
        if isinstance(event, Stage) and event.name == WARMUP_STAGE:
            over = event.step is not None and event.steps is not None and event.step >= event.steps
            if event.time >= self.session_since:
                self.warmup = None if over else event
            self.messages.append(event.message)
        elif isinstance(event, Stage):
            if event.name == "setup":
                self._new_session()
            if event.name == "recovery" and event.cached:
                prepared = PREPARED.search(event.message)
                self.recovery = "cached" + (f" (prepared {prepared.group(1)})" if prepared else "")
            if event.time >= self.session_since:
                self.stage, self.activity = event.message, event
            self.messages.append(event.message)
        elif isinstance(event, WarningEvent | ErrorEvent):
            self.messages.append(f"{event.kind}: {event.message}")
            if isinstance(event, ErrorEvent):
                self.error = event.message
        elif isinstance(event, Finish):
            self.finish, self.activity = event, None
            self.setup_s += event.setup_s

    def apply_all(self, events: Iterable[Event]) -> None:
        """Fold several events in, in order."""
        for event in events:
            self.apply(event)

    @property
    def resumable(self) -> bool:
        """True when the run has a resume checkpoint and is not finished."""
        return (self.folder / "last.ckpt").is_file() and self.status != "done"

    @property
    def never_started(self) -> bool:
        """True for a run whose start failed before any epoch: no epoch event, no checkpoint of any kind."""
        checkpoints = self.folder / "checkpoints"
        saved = (self.folder / "last.ckpt").exists() or (checkpoints.is_dir() and any(checkpoints.iterdir()))
        return not self.epochs and not saved

    @property
    def epochs_done(self) -> int:
        """Epochs completed (the highest epoch index seen, plus one)."""
        return max(self.epochs) + 1 if self.epochs else 0

    @property
    def epoch_shown(self) -> int:
        """The epoch to name, counted from 1 as the status line and the log count: the one under way while
        the run goes on, else the last one finished (0 before any)."""
        under_way = self.status == "running" and self.epochs_done < self.epochs_total
        return self.epochs_done + 1 if under_way else self.epochs_done

    @property
    def train_seconds(self) -> float:
        """Sum of the epochs' wall time, seconds (setup and pauses between sessions excluded)."""
        return sum(e.seconds for e in self.epochs.values())

    @property
    def best_checkpoint(self) -> RankedCheckpoint | None:
        """The checkpoint the run ranks best (``checkpoints/best.json``): what Export voice takes; None if none
        is on disk yet or the ranking is unreadable."""
        try:
            ranked = ranked_checkpoints(self.folder)
        except CheckpointError:
            return None
        return ranked[0] if ranked else None

    @property
    def best_val_mel(self) -> float | None:
        """The val_mel of :attr:`best_checkpoint` (what Export voice takes); before any checkpoint is ranked,
        the lowest val_mel of any epoch."""
        best = self.best_checkpoint
        if best is not None:
            return best.value
        values = [e.losses["val_mel"] for e in self.epochs.values() if "val_mel" in e.losses]
        return min(values) if values else None

    @property
    def status(self) -> str:
        """``new``, ``running``, ``done``, ``stopped`` or ``failed`` (as the events tell; a killed trainer
        leaves ``running`` behind, which the page corrects from the process)."""
        if self.finish is not None:
            return self.finish.status
        if self.error is not None:
            return "failed"
        return "running" if self.epochs_total else "new"

    def epoch_split(self) -> list[tuple[int, list[float]]]:
        """``(epoch, [train_s, val_s, preview_s, checkpoint_wait_s])`` per epoch, in order."""
        return [(e, self.epochs[e].split()) for e in sorted(self.epochs)]

    def step_split(self) -> list[tuple[int, list[float]]]:
        """``(epoch, [*STEP_PARTS seconds, the rest of train_s])`` per epoch whose record has a step split
        (``Epoch.step_split``; older trainers' records have none), in order."""
        splits = ((e, self.epochs[e].step_split()) for e in sorted(self.epochs))
        return [(e, split) for e, split in splits if split is not None]

    def series(self, name: str) -> tuple[list[int], list[float]]:
        """A loss or learning rate per epoch: ``(epochs, values)``, where present."""
        xs, ys = [], []
        for epoch in sorted(self.epochs):
            event = self.epochs[epoch]
            value = event.losses.get(name, event.learning_rates.get(name))
            if value is not None:
                xs.append(epoch + 1)
                ys.append(float(value))
        return xs, ys

    def evaluation_series(self, name: str) -> tuple[list[int], list[float]]:
        """A measure of the canary evaluations (a ``trainer.evaluate.board.Row`` field, e.g. ``wer``) per
        evaluated epoch: ``(epochs from 1, values)``, where measured."""
        measured = [(e + 1, self.evaluations[e].values.get(name)) for e in sorted(self.evaluations)]
        return [e for e, v in measured if v is not None], [float(v) for _, v in measured if v is not None]

    @property
    def noise_bands(self) -> Bands:
        """The run's own noise bands (its first evaluation that measured them), else ``DEFAULT_BANDS``."""
        found = next((self.evaluations[e] for e in sorted(self.evaluations) if self.evaluations[e].bands), None)
        if found is None or not found.bands:
            return DEFAULT_BANDS
        return Bands(values=dict(found.bands), source=found.bands_source or "this run's canary lines")

    @property
    def recordings(self) -> tuple[dict[str, float], int] | None:
        """The canary lines' own recordings as the run's first evaluation heard them (DNSMOS, WER by measure
        name) and how many lines that is; ``None`` where no evaluation measured them."""
        found = next((self.evaluations[e] for e in sorted(self.evaluations) if self.evaluations[e].recordings), None)
        return (dict(found.recordings), found.lines) if found is not None and found.recordings else None

    def milestones(self) -> list[tuple[int, float | None]]:
        """``(epoch, cumulative wall seconds when it finished)``: epochs 100, 250, 500, 1000 within the run's
        length, or its quarters for shorter runs; ``None`` for those not reached."""
        total = self.epochs_total or self.epochs_done
        marks = [m for m in MILESTONES if m <= total] or sorted(
            {max(1, round(total * q)) for q in (0.25, 0.5, 0.75, 1)}
        )
        done, cumulative = 0.0, {}
        for epoch in sorted(self.epochs):
            done += self.epochs[epoch].seconds
            cumulative[epoch + 1] = done
        return [(m, cumulative.get(m)) for m in marks]


def load_run(folder: Path | str, with_events: bool = True) -> RunState:
    """The state of a run folder (``training.json`` gives the start, preset, epochs and training config; an
    unreadable one leaves them blank), from its whole events file unless ``with_events`` is False (the caller
    follows them itself)."""
    folder = Path(folder)
    state = RunState(folder)
    try:
        document = read_run(folder)
    except ValueError:  # RunError or VoiceError: not readable as a run's settings
        document = None
    if document is not None:
        options = document.options
        state.start, state.preset, state.epochs_total = options.start, options.preset, options.epochs or 0
        state.dataset, state.settings = options.dataset, options.settings
        state.config = document.config
    if with_events:
        state.apply_all(EventTail(folder / "events.jsonl").read())
    return state


def list_runs(root: Path | str) -> list[RunState]:
    """Run folders directly under ``root`` (those with a ``training.json``), newest first."""
    root = Path(root)
    if not root.is_dir():
        return []
    folders = [p for p in root.iterdir() if is_run(p)]
    folders.sort(key=lambda p: (p / TRAINING_FILE).stat().st_mtime, reverse=True)
    return [load_run(p) for p in folders]


def request_preview(folder: Path | str) -> Path:
    """Ask the run's trainer to speak its preview lines after its current training step (or, between steps, at
    the end of its epoch), besides the scheduled ones (``trainer.events.preview_schedule``); returns the request file.
    The previews come as the usual ``preview`` events, marked ``requested``."""
    path = Path(folder) / PREVIEW_FILE
    path.write_text("preview\n", encoding="utf-8")
    return path


def request_stop(folder: Path | str) -> Path:
    """Ask the run's trainer to stop after the current epoch (it writes ``last.ckpt`` first)."""
    path = Path(folder) / STOP_FILE
    path.write_text("stop\n", encoding="utf-8")
    return path
