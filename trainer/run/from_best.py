"""Going on from a run whose resume checkpoint is damaged: a new run from its best intact checkpoint.

A resume needs ``last.ckpt`` whole (weights, optimizers, loops). When it is damaged (cut short by an interrupted
copy or sync: ``trainer.checkpoints.damage``), the run's best-ranked checkpoint that is whole still holds the
generator; a new run beside it starts from that checkpoint with the run's own dataset and settings
(``voice-studio train --from-best RUN``, the Train page's Continue from best). Its discriminators start afresh
with the warm-up a generator-only start gets (``trainer.start.points.load_start``), its optimizers from zero,
and it trains the epochs the run had left after that checkpoint's epoch, unless told otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engines.shell_command import shell_command
from engines.words import count
from trainer.checkpoints.best import RankedCheckpoint
from trainer.checkpoints.damage import best_intact, check_whole
from trainer.run.document import is_run, read_run
from trainer.run.errors import RunError
from trainer.run.options import RunOptions


@dataclass(frozen=True, kw_only=True)
class FromBest:
    """A new run's options going on from ``checkpoint`` of the run in ``source``."""

    source: Path
    checkpoint: RankedCheckpoint
    options: RunOptions

    def line(self) -> str:
        """``going on from RUN's epoch 2 · val_mel 1.2878 in a new run NEW (3 epochs)``."""
        epochs = count(self.options.epochs or 0, "epoch")
        return (
            f"going on from {self.source.name}'s {self.checkpoint.label()} in a new run {self.options.out} ({epochs}; "
            f"its discriminators and optimizers start afresh)"
        )


def resume_way_on(run_dir: Path) -> str:
    """What to do when ``run_dir/last.ckpt`` is damaged: the flag that goes on from the best intact checkpoint,
    or (none is intact) a new run."""
    best = best_intact(run_dir)
    if best is None:
        return "the run cannot resume, and none of its ranked checkpoints is intact: start a new run (--out)"
    return (
        f"the run cannot resume from it. Go on from its best intact checkpoint ({best.label()}) in a new run "
        f"beside it with: {shell_command('voice-studio', 'train', '--from-best', run_dir)}"
    )


def from_best(run_dir: Path | str, given: dict[str, Any] | None = None) -> FromBest:
    """The new run that goes on from ``run_dir``'s best intact checkpoint: the run's options with that checkpoint
    as the start, ``given`` (``RunOptions`` fields by name) changed (``settings`` added to the run's own), ``out``
    beside the run unless given (a DDP run must give it: its processes would each look for a free name while the
    first creates it).

    Raises:
        RunError: not a run, no intact ranked checkpoint, no epoch left to train (give ``epochs``), or a run of
            several processes without ``out``.
    """
    run_dir, given = Path(run_dir), dict(given or {})
    document = read_run(run_dir)
    best = best_intact(run_dir)
    if best is None:
        raise RunError(f"{run_dir}: none of its ranked checkpoints is intact to go on from; start a new run (--out)")
    check_whole(best.path)
    left = int(document.config["epochs"]) - (best.epoch + 1)
    epochs = given.pop("epochs", None) or left
    if epochs < 1:
        raise RunError(
            f"{run_dir}: the run had no epoch left after its {best.label()}; give --epochs N to train N more from it"
        )
    out = given.pop("out", None)
    if "settings" in given:  # the run's own --set, then those given (a later one wins)
        given["settings"] = document.options.settings + tuple(given["settings"])
    dataset = document.options.dataset if Path(document.options.dataset).is_dir() else document.cache
    options = replace(document.options, dataset=dataset, start=str(best.path), epochs=epochs, **given)
    if out is None and options.devices * options.num_nodes > 1:  # every process must name the same folder
        raise RunError(f"{run_dir}: a run of several processes (--devices, --num-nodes) going on from it needs --out")
    out = Path(out or _beside(run_dir, f"{run_dir.name}-from-epoch-{best.epoch + 1}"))
    return FromBest(source=run_dir, checkpoint=best, options=replace(options, out=out))


def _beside(run_dir: Path, name: str) -> Path:
    """``run_dir``'s sibling ``name``, or ``name-2``, ``name-3``… where that one exists and is not a run that
    never started (``trainer.run.train.create_run`` replaces those)."""
    from trainer.events.run_state import load_run

    for number in range(1, 1000):
        folder = run_dir.parent / (name if number == 1 else f"{name}-{number}")
        if not folder.exists() or (is_run(folder) and load_run(folder).never_started):
            return folder
    raise RunError(f"{run_dir.parent}: no free folder name for {name}; give --out")
