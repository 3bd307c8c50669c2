"""Runs compared as wholes: val_mel and epoch-time curves from their events files, and the table."""

from __future__ import annotations

import math

from trainer.evaluate.runs import compare_runs, runs_table
from trainer.events.log import EventLog
from trainer.events.schema import Epoch


def _run(folder, val_mels, seconds):
    """A run folder whose events file has one epoch per value (as the trainer writes them)."""
    log = EventLog(folder / "events.jsonl")
    for epoch, (val_mel, s) in enumerate(zip(val_mels, seconds, strict=True)):
        losses = {"train_mel": 1.0} if val_mel is None else {"train_mel": 1.0, "val_mel": val_mel}
        log.emit(
            Epoch(
                epoch=epoch,
                step=epoch * 3,
                seconds=s,
                train_s=s - 1,
                losses=losses,
                learning_rates={"lr_g": 2e-4},
                val_s=1.0,
                preview_s=0.0,
                checkpoint_wait_s=0.0,
            )
        )
    log.close()
    return folder


def test_two_runs_give_their_curves_and_a_table(tmp_path):
    """Each run's val_mel per epoch (nan where an epoch had none), epoch seconds, best val_mel, total and median
    epoch time; the table lists the runs in the order given."""
    slow = _run(tmp_path / "slow", [1.4, None, 1.1, 1.2], [30.0, 10.0, 11.0, 12.0])
    fast = _run(tmp_path / "fast", [1.3, 1.0], [8.0, 6.0])
    first, second = compare_runs([slow, fast])
    assert first.name == "slow" and first.epochs == [1, 2, 3, 4] and first.epoch_s == [30.0, 10.0, 11.0, 12.0]
    assert first.val_mel[0] == 1.4 and math.isnan(first.val_mel[1]) and first.best_val_mel == 1.1
    assert (first.total_s, first.median_epoch_s) == (63.0, 11.5)
    assert (second.best_val_mel, second.total_s, second.median_epoch_s) == (1.0, 14.0, 7.0)
    lines = runs_table([first, second]).splitlines()
    assert lines[0].split() == ["run", "epochs", "best", "val_mel", "total", "s", "median", "epoch", "s"]
    assert lines[1].split() == ["slow", "4", "1.1000", "63.0", "11.5"]
    assert lines[2].split() == ["fast", "2", "1.0000", "14.0", "7.0"]


def test_a_run_without_events_has_empty_curves(tmp_path):
    """A folder with no events yet: no epochs, no best, and '-' in the table."""
    (tmp_path / "new").mkdir()
    (curves,) = compare_runs([tmp_path / "new"])
    assert curves.epochs == [] and curves.best_val_mel is None and curves.median_epoch_s is None
    assert runs_table([curves]).splitlines()[1].split() == ["new", "0", "-", "0.0", "-"]
