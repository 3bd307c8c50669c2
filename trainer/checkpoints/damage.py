"""Damaged checkpoints of a run: found before anything reads them, named, and the way on from each.

The trainer writes every checkpoint atomically (``trainer.checkpoints.writer``), so a damaged one was damaged
from outside: an interrupted copy or sync cut it short, or a disk garbled it. torch would fail on it deep inside
Lightning with "failed finding central directory", naming no file; :func:`check_whole` says which file and how
it is damaged (``engines.torch.vits.safe_load.damage``), and :func:`best_intact` finds the checkpoint a run can
go on from instead: its best-ranked one that is whole (``trainer.run.from_best`` starts a new run from it).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from engines.torch.vits.safe_load import damage
from trainer.checkpoints.best import RankedCheckpoint, ranked_checkpoints
from trainer.checkpoints.writer import CheckpointError

_WHOLE: dict[tuple[Path, int, int], str | None] = {}
"""Thorough verdicts by ``(file, size, mtime in ns)``: a resume checks ``last.ckpt`` twice (its plan, then the
fit), and reading a large one again costs seconds."""


class DamagedCheckpoint(CheckpointError):
    """A checkpoint file that cannot be read whole; ``path`` is the file, ``reason`` how it is damaged."""

    def __init__(self, path: Path, reason: str, way_on: str = "") -> None:
        self.path, self.reason = Path(path), reason
        super().__init__(f"{path}: damaged: {reason}{'; ' + way_on if way_on else ''}")


def why_damaged(path: Path | str, *, thorough: bool = True) -> str | None:
    """How ``path`` (a checkpoint this studio wrote: always a torch zip) is damaged, or ``None`` where it is whole.

    ``thorough`` reads every byte against its checksum (about a second per GB, once per file version in a
    process); without it only the zip's directory at the file's end is read (milliseconds: what the Train
    page checks each run it shows with).
    """
    path = Path(path)
    try:
        stat = path.stat()
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    key = (path.resolve(), stat.st_size, stat.st_mtime_ns)
    if key in _WHOLE:
        return _WHOLE[key]
    reason = damage(path, thorough=thorough)
    if reason is None and not zipfile.is_zipfile(path):
        reason = f"not a torch checkpoint ({stat.st_size:,} bytes that are not the zip torch writes)"
    if thorough or reason is not None:
        _WHOLE[key] = reason
    return reason


def check_whole(path: Path | str, way_on: str = "", *, thorough: bool = True) -> None:
    """Refuse a damaged checkpoint before anything reads it.

    Raises:
        DamagedCheckpoint: naming the file, how it is damaged, and ``way_on`` (what to do instead).
    """
    reason = why_damaged(path, thorough=thorough)
    if reason is not None:
        raise DamagedCheckpoint(Path(path), reason, way_on)


def best_intact(run_dir: Path | str, *, thorough: bool = True) -> RankedCheckpoint | None:
    """The run's best-ranked checkpoint (lowest val_mel, ``trainer.checkpoints.best``) that is whole, else ``None``."""
    try:
        ranked = ranked_checkpoints(run_dir)
    except CheckpointError:  # an unreadable best.json: nothing ranked to go on from
        return None
    return next((c for c in ranked if why_damaged(c.path, thorough=thorough) is None), None)


def other_intact(path: Path, run_dir: Path) -> str:
    """The way on from ``path``, a damaged checkpoint of the run in ``run_dir``: the run's best intact one by name,
    or that it has none."""
    best = best_intact(run_dir)
    if best is None or best.path == path:
        return f"{run_dir} has no other intact checkpoint"
    return f"the run's best intact checkpoint is {best.path} ({best.label()})"
