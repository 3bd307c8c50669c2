"""A training run as its events tell it: what the Train page shows, without Qt or torch.

:class:`EventTail` reads new lines of a run's ``events.jsonl`` as the trainer
appends them (a cut last line waits for its end). :class:`RunState` folds the
records into what a person wants to see: per-epoch wall time split into train,
validation, previews and checkpoint wait; losses and learning rates; the
latest speed and ETA; previews; the best val_mel; how the run ended. A resumed
run appends to the same file: an epoch seen twice keeps its latest record.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trainer.checkpoints import CheckpointError, RankedCheckpoint, ranked_checkpoints
from trainer.events import EventError, validate

STOP_FILE = "stop.request"
"""Created in a run folder to ask the trainer to stop after the current epoch (``request_stop``)."""
MILESTONES = (100, 250, 500, 1000)
"""Epochs whose cumulative wall time the milestone table shows (runs shorter than 100 epochs: quarters)."""
SPLIT = ("train_s", "val_s", "preview_s", "checkpoint_wait_s")
"""The parts of an epoch's wall time, in seconds."""


class EventTail:
    """New complete records of an events file, each call; survives the file not existing yet."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._offset = 0
        self._rest = b""

    def read(self) -> list[dict[str, Any]]:
        """Records appended since the last call; lines that are not valid records are skipped."""
        try:
            with self.path.open("rb") as f:
                f.seek(self._offset)
                data = f.read()
        except FileNotFoundError:
            return []
        self._offset += len(data)
        data = self._rest + data
        cut = data.rfind(b"\n") + 1
        lines, self._rest = data[:cut], data[cut:]
        records = []
        for line in lines.decode("utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
                validate(record)
            except (json.JSONDecodeError, EventError):
                continue
            records.append(record)
        return records


@dataclass
class RunState:
    """Everything the events of one run say, updated record by record (``apply``)."""

    folder: Path
    epochs_total: int = 0
    start: str = ""
    device: str = ""
    num_utterances: int = 0
    preset: str = ""
    epochs: dict[int, dict] = field(default_factory=dict)
    progress: dict | None = None
    eta: dict | None = None
    previews: list[tuple[int, str]] = field(default_factory=list)
    best: list[tuple[int, str]] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    stage: str = ""
    finish: dict | None = None
    error: str | None = None
    setup_s: float = 0.0

    def apply(self, record: dict[str, Any]) -> None:
        """Fold one event record in."""
        kind = record["kind"]
        if kind == "run_start":
            self.epochs_total = record["epochs"]
            self.device, self.num_utterances = record["device"], record["num_utterances"]
            if record["start"] != "resume":
                self.start = record["start"]
            self.finish, self.error, self.stage = None, None, ""
        elif kind == "epoch":
            self.epochs[record["epoch"]] = record
        elif kind == "progress":
            self.progress = record
        elif kind == "eta":
            self.eta = record
        elif kind == "preview":
            self.previews.append((record["epoch"], record["path"]))
        elif kind == "checkpoint" and record["role"] == "best":
            self.best.append((record["epoch"], record["path"]))
        elif kind == "stage":
            self.stage = record["message"]
            self.messages.append(record["message"])
        elif kind in ("warning", "error"):
            self.messages.append(f"{kind}: {record['message']}")
            if kind == "error":
                self.error = record["message"]
        elif kind == "finish":
            self.finish = record
            self.setup_s += record["setup_s"]

    def apply_all(self, records: list[dict[str, Any]]) -> None:
        """Fold several records in, in order."""
        for record in records:
            self.apply(record)

    @property
    def resumable(self) -> bool:
        """True when the run has a resume checkpoint and is not finished."""
        return (self.folder / "last.ckpt").is_file() and self.status != "done"

    @property
    def epochs_done(self) -> int:
        """Epochs completed (the highest epoch index seen, plus one)."""
        return max(self.epochs) + 1 if self.epochs else 0

    @property
    def train_seconds(self) -> float:
        """Sum of the epochs' wall time, seconds (setup and pauses between sessions excluded)."""
        return sum(r["seconds"] for r in self.epochs.values())

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
        values = [r["losses"]["val_mel"] for r in self.epochs.values() if "val_mel" in r["losses"]]
        return min(values) if values else None

    @property
    def status(self) -> str:
        """``new``, ``running``, ``done``, ``stopped`` or ``failed`` (as the events tell; a killed trainer
        leaves ``running`` behind, which the page corrects from the process)."""
        if self.finish is not None:
            return self.finish["status"]
        if self.error is not None:
            return "failed"
        return "running" if self.epochs_total else "new"

    def epoch_split(self) -> list[tuple[int, list[float]]]:
        """``(epoch, [train_s, val_s, preview_s, checkpoint_wait_s])`` per epoch, in order."""
        return [(e, [float(self.epochs[e][k]) for k in SPLIT]) for e in sorted(self.epochs)]

    def series(self, name: str) -> tuple[list[int], list[float]]:
        """A loss or learning rate per epoch: ``(epochs, values)``, where present."""
        xs, ys = [], []
        for epoch in sorted(self.epochs):
            record = self.epochs[epoch]
            value = record["losses"].get(name, record["learning_rates"].get(name))
            if value is not None:
                xs.append(epoch + 1)
                ys.append(float(value))
        return xs, ys

    def milestones(self) -> list[tuple[int, float | None]]:
        """``(epoch, cumulative wall seconds when it finished)``: epochs 100, 250, 500, 1000 within the run's
        length, or its quarters for shorter runs; ``None`` for those not reached."""
        total = self.epochs_total or self.epochs_done
        marks = [m for m in MILESTONES if m <= total] or sorted(
            {max(1, round(total * q)) for q in (0.25, 0.5, 0.75, 1)}
        )
        done, cumulative = 0.0, {}
        for epoch in sorted(self.epochs):
            done += self.epochs[epoch]["seconds"]
            cumulative[epoch + 1] = done
        return [(m, cumulative.get(m)) for m in marks]


def load_run(folder: Path | str, with_events: bool = True) -> RunState:
    """The state of a run folder (``training.json`` gives the start), from its whole events file unless
    ``with_events`` is False (the caller follows them itself)."""
    folder = Path(folder)
    state = RunState(folder)
    document = read_training(folder)
    state.start = str(document.get("start", ""))
    state.preset = str(document.get("preset", ""))
    state.epochs_total = int(document.get("config", {}).get("epochs", 0))
    if with_events:
        state.apply_all(EventTail(folder / "events.jsonl").read())
    return state


def read_training(folder: Path) -> dict:
    """The run's ``training.json`` (empty when missing or unreadable)."""
    try:
        return json.loads((folder / "training.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def list_runs(root: Path | str) -> list[RunState]:
    """Run folders directly under ``root`` (those with a ``training.json``), newest first."""
    root = Path(root)
    if not root.is_dir():
        return []
    folders = [p for p in root.iterdir() if (p / "training.json").is_file()]
    folders.sort(key=lambda p: (p / "training.json").stat().st_mtime, reverse=True)
    return [load_run(p) for p in folders]


def request_stop(folder: Path | str) -> Path:
    """Ask the run's trainer to stop after the current epoch (it writes ``last.ckpt`` first)."""
    path = Path(folder) / STOP_FILE
    path.write_text("stop\n", encoding="utf-8")
    return path
