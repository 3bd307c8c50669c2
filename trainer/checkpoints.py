"""Checkpoints written in the background, never lost, never half-written.

:class:`CheckpointWriter` takes a snapshot of the state on the calling (training)
thread — every tensor copied to an independent CPU tensor — and writes it on a
writer thread, so training goes on while the file is written:

- each file is written to a temporary file beside its destination, flushed to disk
  and swapped in with an atomic replace; a crash or ``kill -9`` leaves either the
  old file or the new one at the final path, never a truncated one;
- a newer save to a path that is still pending replaces the older one in the queue
  (newest generation wins), and a write whose generation is older than the file
  already at its path is discarded: the check and the replace happen under the same
  lock as the queue;
- the queue is bounded (``max_pending``): when it is full, ``save`` waits rather
  than drop a checkpoint the trainer chose to keep;
- a write error is raised in the training thread at its next ``save``, ``flush``
  or ``close``; the previous file stays as it was;
- ``close`` (also on Ctrl-C, via ``with``) drains the queue before returning.

:class:`BestK` keeps the k best checkpoints by a metric (val_mel by default),
removing a file that dropped out of the ranking only after its replacement is
on disk. :func:`ranked_checkpoints` and :func:`best_checkpoint` read that ranking
back: every place that means "the run's best checkpoint" (Export voice, the Runs
tab, ``voice-studio export RUN_DIR``) uses them, never file names or times.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engines.errors import VoiceStudioError
from engines.files import is_temp, temp_beside, write_text


class CheckpointError(VoiceStudioError, RuntimeError):
    """A checkpoint could not be written; the message names the file."""


def snapshot(state: Any) -> Any:
    """A deep copy of ``state`` where every tensor is an independent, contiguous CPU tensor.

    Containers (dict, list, tuple) are copied; other values are kept as they are.
    """
    torch = sys.modules.get("torch")  # no torch loaded: no tensors to copy
    if torch is not None and isinstance(state, torch.Tensor):
        return state.detach().to("cpu", copy=True).contiguous()
    if isinstance(state, dict):
        return type(state)((k, snapshot(v)) for k, v in state.items())
    if isinstance(state, list | tuple):
        return type(state)(snapshot(v) for v in state)
    return state


def torch_save(state: Any, path: Path) -> None:
    """Write ``state`` with ``torch.save`` and flush it to the disk."""
    import torch

    with open(path, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())


@dataclass
class _Request:
    path: Path
    generation: int
    state: Any
    on_written: list[Callable[[Path], None]] = field(default_factory=list)


class CheckpointWriter:
    """Writes checkpoints on a background thread (see the module docstring).

    Args:
        max_pending: snapshots held at most (each costs the checkpoint's size in RAM).
        save_fn: ``save_fn(state, temp_path)`` writes one file (default :func:`torch_save`).
        threads: writer threads; more than one writes different paths at once.
    """

    def __init__(self, max_pending: int = 2, save_fn: Callable[[Any, Path], None] = torch_save, threads: int = 1):
        if max_pending < 1:
            raise ValueError("max_pending must be at least 1")
        self.max_pending = max_pending
        self._save_fn = save_fn
        self._cond = threading.Condition()
        self._queue: OrderedDict[Path, _Request] = OrderedDict()
        self._busy = 0
        self._generation = 0
        self._written: dict[Path, int] = {}
        self._error: BaseException | None = None
        self._closed = False
        # started by the first save(): a writer dropped before any (a run failing while it is set up) leaves no
        # thread that keeps the process from exiting
        self._threads = [threading.Thread(target=self._run, name=f"checkpoint-writer-{i}") for i in range(threads)]

    def __enter__(self) -> CheckpointWriter:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close(raise_errors=exc_info[0] is None)

    def save(self, path: Path | str, state: Any, on_written: Callable[[Path], None] | None = None) -> int:
        """Snapshot ``state`` now and queue it for ``path``; returns its generation.

        Blocks while ``max_pending`` snapshots are queued. ``on_written(path)`` runs on
        the writer thread once the file is in place.

        Raises:
            CheckpointError: an earlier write failed (raised once), or the writer is closed.
        """
        path = Path(path).absolute()
        state = snapshot(state)
        with self._cond:
            self._raise_pending_error()
            if self._closed:
                raise CheckpointError(f"{path}: the checkpoint writer is closed")
            self._generation += 1
            if not any(thread.ident for thread in self._threads):  # the first save starts the writer threads
                for thread in self._threads:
                    thread.start()
            pending = self._queue.get(path)
            if pending is not None:  # newest generation wins: the older snapshot is never written
                pending.generation, pending.state = self._generation, state
                if on_written:
                    pending.on_written.append(on_written)
            else:
                while len(self._queue) + self._busy >= self.max_pending and self._error is None:
                    self._cond.wait()
                self._raise_pending_error()
                self._queue[path] = _Request(path, self._generation, state, [on_written] if on_written else [])
            self._cond.notify_all()
            return self._generation

    def flush(self) -> None:
        """Wait until every queued checkpoint is written.

        Raises:
            CheckpointError: a write failed.
        """
        with self._cond:
            while (self._queue or self._busy) and self._error is None:
                self._cond.wait()
            self._raise_pending_error()

    def close(self, raise_errors: bool = True) -> None:
        """Write what is queued, then stop the writer threads."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        for thread in self._threads:
            if thread.ident is not None:  # started
                thread.join()
        if raise_errors:
            with self._cond:
                self._raise_pending_error()

    def _raise_pending_error(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise CheckpointError(str(error)) from error

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if not self._queue:
                    return
                _, request = self._queue.popitem(last=False)
                self._busy += 1
            try:
                self._write(request)
            except BaseException as exc:  # handed to the training thread
                with self._cond:
                    self._error = OSError(f"{request.path}: checkpoint not written: {exc}")
            finally:
                with self._cond:
                    self._busy -= 1
                    self._cond.notify_all()

    def _write(self, request: _Request) -> None:
        request.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = temp_beside(request.path)
        try:
            self._save_fn(request.state, tmp)
            with self._cond:  # the generation check and the replace under the queue's lock
                if self._written.get(request.path, 0) > request.generation:
                    return  # a newer file is already there
                os.replace(tmp, request.path)
                self._written[request.path] = request.generation
        finally:
            tmp.unlink(missing_ok=True)
        for callback in request.on_written:
            callback(request.path)


def remove_stale_temps(folder: Path | str) -> list[Path]:
    """Delete temporary files a killed writer left in ``folder``; returns them."""
    stale = [p for p in Path(folder).glob(".*.part") if is_temp(p)]
    for path in stale:
        path.unlink(missing_ok=True)
    return stale


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

    def consider(self, epoch: int, value: float, state: Any) -> Path | None:
        """Queue ``state`` if ``value`` ranks among the best ``k``; returns its path, or None."""
        if not math.isfinite(value):
            return None
        with self._lock:
            ranked = sorted([*self.ranking, (value, "")])
            if ranked.index((value, "")) >= self.k:
                return None
        path = self.folder / f"best-epoch={epoch:04d}-{self.metric}={value:.4f}.ckpt"
        self.writer.save(path, state, on_written=lambda written: self._on_written(value, written))
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
    """One checkpoint of a run's ranking: its file, epoch (counted from 0, as in the file name) and metric."""

    path: Path
    epoch: int
    metric: str
    value: float

    def describe(self) -> str:
        """``best-epoch=0001-val_mel=1.1247.ckpt (epoch 2, val_mel 1.1247)``: epochs counted from 1, as shown."""
        return f"{self.path.name} (epoch {self.epoch + 1}, {self.metric} {self.value:.4f})"


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
        CheckpointError: the run has no ranked checkpoint on disk yet (names the folder).
    """
    ranked = ranked_checkpoints(run_dir)
    if not ranked:
        raise CheckpointError(f"{run_dir}: no ranked checkpoint yet (checkpoints/{BEST_INDEX} lists none on disk)")
    return ranked[0]
