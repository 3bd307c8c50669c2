"""Runs compared as wholes: their val_mel and epoch-time curves side by side, total and per-epoch time.

Read from each run's events (``trainer.events.run_state.load_run``); the Compare page overlays the curves and
``voice-studio compare`` prints :func:`runs_table`. Plain Python, no Qt, no torch.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

from trainer.events.run_state import RunState, load_run


@dataclass(frozen=True, kw_only=True)
class RunCurves:
    """One run's curves.

    Attributes:
        name: the run folder's name.
        epochs: 1-based epoch numbers, in order.
        val_mel: validation mel L1 per epoch (``nan`` for an epoch without it), same length as ``epochs``.
        epoch_s: wall seconds per epoch (train, validation, previews and checkpoint wait).
        best_val_mel: the run's best val_mel (its ranked checkpoint's, else the lowest epoch's), or ``None``.
    """

    name: str
    epochs: list[int]
    val_mel: list[float]
    epoch_s: list[float]
    best_val_mel: float | None

    @property
    def total_s(self) -> float:
        """Seconds of all epochs (setup and pauses between sessions left out)."""
        return sum(self.epoch_s)

    @property
    def median_epoch_s(self) -> float | None:
        """The median epoch's seconds (robust to a first epoch that compiles), ``None`` before any epoch."""
        return statistics.median(self.epoch_s) if self.epoch_s else None


def run_curves(state: RunState) -> RunCurves:
    """The curves of a run already loaded."""
    order = sorted(state.epochs)
    losses = [state.epochs[e].losses for e in order]
    return RunCurves(
        name=state.folder.name,
        epochs=[e + 1 for e in order],
        val_mel=[float(x.get("val_mel", float("nan"))) for x in losses],
        epoch_s=[float(state.epochs[e].seconds) for e in order],
        best_val_mel=state.best_val_mel,
    )


def compare_runs(folders: list[Path]) -> list[RunCurves]:
    """The curves of each run folder, in the order given (a folder without events gives empty curves)."""
    return [run_curves(load_run(folder)) for folder in folders]


def runs_table(curves: list[RunCurves]) -> str:
    """A plain-text table: run, epochs, best val_mel, total and median epoch time (seconds)."""
    rows = [("run", "epochs", "best val_mel", "total s", "median epoch s")]
    for c in curves:
        best = "-" if c.best_val_mel is None else f"{c.best_val_mel:.4f}"
        median = "-" if c.median_epoch_s is None else f"{c.median_epoch_s:.1f}"
        rows.append((c.name, str(len(c.epochs)), best, f"{c.total_s:.1f}", median))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows)
