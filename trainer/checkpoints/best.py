"""A run's best checkpoints: kept by a metric while training, read back by everything that means "best".

:class:`BestK` keeps the k best checkpoints by a metric (val_mel by default),
removing a file that dropped out of the ranking only after its replacement is
on disk. :func:`ranked_checkpoints` and :func:`best_checkpoint` read that ranking
back: every place that means "the run's best checkpoint" (Export voice, the Runs
tab, ``voice-studio export RUN_DIR``) uses them, never file names or times.

The files themselves are written in the background by
``trainer.checkpoints.writer.CheckpointWriter`` (atomic, never half-written).
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engines.files import write_text
from trainer.checkpoints.strength import strength_label
from trainer.checkpoints.writer import CheckpointError, CheckpointWriter


class BestK:
    """The ``k`` best checkpoints by a metric (lower is better), as files in ``folder``.

    File names are ``best-epoch=EEEE-val_mel=V.VVVV.ckpt``; the ranking is kept in
    ``best.json`` (rewritten atomically) so a resumed run goes on with it. A file that
    leaves the ranking is removed only once the file that displaced it is written.
    """

    def __init__(self, folder: Path | str, writer: CheckpointWriter, k: int = 5, metric: str = "val_mel") -> None:
        self.folder, self.writer, self.k, self.metric = Path(folder), writer, k, metric
        self._lock = threading.Lock()
        self.ranking: list[tuple[float, str]] = _read_ranking(self.folder)[1]

    def consider(
        self, epoch: int, value: float, state: Any, on_written: Callable[[Path], None] | None = None
    ) -> Path | None:
        """Queue ``state`` if ``value`` ranks among the best ``k``; returns its path, or None. ``on_written(path)``
        runs on the writer thread once the file is in place and ranked (never for a write that failed)."""
        if not math.isfinite(value):
            return None
        with self._lock:
            ranked = sorted([*self.ranking, (value, "")])
            if ranked.index((value, "")) >= self.k:
                return None
        path = self.folder / f"best-epoch={epoch:04d}-{self.metric}={value:.4f}.ckpt"

        def written(done: Path) -> None:
            self._on_written(value, done)
            if on_written is not None:
                on_written(done)

        self.writer.save(path, state, on_written=written)
        return path

    def _on_written(self, value: float, path: Path) -> None:
        with self._lock:
            ranking = sorted([r for r in self.ranking if r[1] != path.name] + [(value, path.name)])
            self.ranking, dropped = ranking[: self.k], ranking[self.k :]
            document = {"metric": self.metric, "ranking": [[v, n] for v, n in self.ranking]}
            write_text(self.folder / "best.json", json.dumps(document, indent=1))
            for _, name in dropped:
                (self.folder / name).unlink(missing_ok=True)

    def files(self) -> list[Path]:
        """The ranked files, best first."""
        with self._lock:
            return [self.folder / name for _, name in self.ranking]


BEST_INDEX = "best.json"
"""The ranking file in a run's ``checkpoints/`` folder: ``{"metric": NAME, "ranking": [[value, file name], ...]}``."""


@dataclass(frozen=True, kw_only=True)
class RankedCheckpoint:
    """One checkpoint of a run's ranking: its file, epoch (counted from 0, as in the file name) and metric;
    ``strength``: for one taken to a strength (``trainer.checkpoints.strength``, in ``RUN/strengths/``), that
    strength (0-1), its epoch and metric its checkpoint's; else ``None``."""

    path: Path
    epoch: int
    metric: str
    value: float
    strength: float | None = None

    def label(self) -> str:
        """``epoch 2 · val_mel 1.1247``: how the studio names a ranked checkpoint (epochs counted from 1); at a
        strength ``epoch 2 at 70% · val_mel 1.1247``, as the Compare page lists it. One of unknown epoch (a
        measured ``last.ckpt``: -1) is named by its file's stem (``last``), and an unknown value (NaN) left out."""
        head = f"epoch {self.epoch + 1}" if self.epoch >= 0 else self.path.stem
        label = head if math.isnan(self.value) else f"{head} · {self.metric} {self.value:.4f}"
        return label if self.strength is None else strength_label(label, self.strength)

    def describe(self) -> str:
        """``epoch 2 · val_mel 1.1247 (file best-epoch=0001-val_mel=1.1247.ckpt, whose name counts epochs from 0)``:
        the words count epochs from 1, as shown everywhere; the file name, kept as Lightning and Piper write it,
        from 0."""
        return f"{self.label()} ({named_file(self.path.name)})"


FILE_EPOCH = re.compile(r"epoch=(\d+)")
"""The epoch in a checkpoint's file name (``best-epoch=0001-…``, ``epoch=0001-step=…``), counted from 0."""


def named_file(name: str) -> str:
    """``file best-epoch=0001-….ckpt, whose name counts epochs from 0`` (``file last.ckpt`` for a name without
    an epoch): how a checkpoint's file is named next to an epoch counted from 1."""
    return f"file {name}, whose name counts epochs from 0" if FILE_EPOCH.search(name) else f"file {name}"


def file_epoch_note(path: Path | str) -> str:
    """``path`` and, for a name with an epoch, a line saying how it counts (``epoch=0001 is epoch 2``): the
    tooltip of a checkpoint shown by its label (``epoch 2 · val_mel 0.7100``)."""
    found = FILE_EPOCH.search(Path(path).name)
    if found is None:
        return str(path)
    number = int(found.group(1))
    return f"{path}\n(the file name counts epochs from 0: epoch={found.group(1)} is epoch {number + 1})"


def _read_ranking(folder: Path) -> tuple[str, list[tuple[float, str]]]:
    """``(metric, [(value, file name), ...])`` from ``folder/best.json``, best first; empty when there is none.

    Raises:
        CheckpointError: the file exists but is not a ranking (names the file).
    """
    index = Path(folder) / BEST_INDEX
    if not index.exists():
        return "val_mel", []
    try:
        document = json.loads(index.read_text(encoding="utf-8"))
        ranking = sorted((float(v), str(n)) for v, n in document["ranking"])
        return str(document.get("metric", "val_mel")), ranking
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CheckpointError(f"{index}: not a checkpoint ranking ({exc})") from None


def ranked_checkpoints(run_dir: Path | str) -> list[RankedCheckpoint]:
    """A run's ranked checkpoints (``run_dir/checkpoints/best.json``), best (lowest metric) first.

    Files named in the ranking that are no longer on disk (or not named ``...epoch=E...``) are left out.

    Raises:
        CheckpointError: an unreadable ``best.json``.
    """
    folder = Path(run_dir) / "checkpoints"
    metric, ranking = _read_ranking(folder)
    ranked = []
    for value, name in ranking:
        found = re.search(r"epoch=(\d+)", name)
        if found and (folder / name).is_file():  # BestK's names: best-epoch=EEEE-val_mel=V.VVVV.ckpt
            ranked.append(RankedCheckpoint(path=folder / name, epoch=int(found.group(1)), metric=metric, value=value))
    return ranked


def best_checkpoint(run_dir: Path | str) -> RankedCheckpoint:
    """The checkpoint a run ranks first (lowest val_mel): what Export voice and ``export RUN_DIR`` take.

    Raises:
        CheckpointError: the folder is not a run (no ``training.json``), or the run has no ranked checkpoint on
            disk yet (names the folder).
    """
    from trainer.run.document import TRAINING_FILE

    if not (Path(run_dir) / TRAINING_FILE).is_file():
        raise CheckpointError(f"{run_dir}: not a run folder (no {TRAINING_FILE}); give a run folder or a .ckpt")
    ranked = ranked_checkpoints(run_dir)
    if not ranked:
        raise CheckpointError(f"{run_dir}: no ranked checkpoint yet (checkpoints/{BEST_INDEX} lists none on disk)")
    return ranked[0]
