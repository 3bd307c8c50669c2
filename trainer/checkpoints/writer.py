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
- a write error is raised in the training thread at its next ``save``, ``flush``,
  ``close`` or :meth:`~CheckpointWriter.check` (the trainer checks after every step), with the OS's own reason
  (``No space left on device``, not torch's ``unexpected pos``); the previous file stays as it was, and the
  ``on_written`` callbacks, which announce a file as saved, run only for a file in place;
- ``close`` (also on Ctrl-C, via ``with``) drains the queue before returning.

Which checkpoints a run keeps, and which is its best, is ``trainer.checkpoints.best``.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engines.errors import VoiceStudioError
from engines.files import is_temp, temp_beside
from engines.imports import importing


class CheckpointError(VoiceStudioError, RuntimeError):
    """A checkpoint could not be written or read; the message names the file."""


class CheckpointWriteError(CheckpointError):
    """A checkpoint write failed: the message names the file and the reason; ``errno`` is the OS's error number
    where the OS refused it (``errno.ENOSPC``: a full disk), else ``None``."""

    def __init__(self, message: str, errno: int | None = None) -> None:
        super().__init__(message)
        self.errno = errno


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
    """Write ``state`` with ``torch.save`` and flush it to the disk.

    Raises:
        OSError: the file could not be written, with the OS's reason (a full disk: ``ENOSPC``), also where torch's
            zip writer reports it as its own ``RuntimeError`` ("unexpected pos …") with the OS error as its cause.
    """
    with importing("torch"):
        import torch

    with open(path, "wb") as f:
        try:
            torch.save(state, f)
        except RuntimeError as exc:
            cause = _os_error(exc)
            if cause is None:
                raise
            raise OSError(cause.errno, cause.strerror, str(path)) from exc
        f.flush()
        os.fsync(f.fileno())


def _os_error(exc: BaseException) -> OSError | None:
    """The ``OSError`` among ``exc``'s causes and contexts (what the file's ``write`` raised under torch), if any."""
    looked: set[int] = set()
    seen: BaseException | None = exc
    while seen is not None and id(seen) not in looked:  # a chain may loop back
        if isinstance(seen, OSError):
            return seen
        looked.add(id(seen))
        seen = seen.__cause__ or seen.__context__
    return None


def _errno(exc: BaseException) -> int | None:
    """The OS's error number of ``exc`` (an ``OSError`` among its causes), else ``None``."""
    found = _os_error(exc)
    return found.errno if found is not None else None


def reason(exc: BaseException) -> str:
    """An error in the words a person reads: an ``OSError``'s own reason (``No space left on device``), without
    errno or the temporary file's name; anything else as it says itself."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


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

    def check(self) -> None:
        """Raise a write that failed since the last look, at once (the trainer calls it after every step).

        Raises:
            CheckpointError: a write failed (raised once).
        """
        with self._cond:
            self._raise_pending_error()

    def _raise_pending_error(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error

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
                    self._error = _write_error(request.path, exc)
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
        try:
            for callback in request.on_written:
                callback(request.path)
        except Exception as exc:  # noqa: BLE001 - the file is in place: what followed failed (best.json, the event)
            raise _write_error(request.path, exc, written=True) from exc


def _write_error(path: Path, exc: BaseException, written: bool = False) -> CheckpointWriteError:
    """The error the training thread raises for a failed write of ``path`` (or, ``written``, of what follows it)."""
    if isinstance(exc, CheckpointWriteError):
        return exc
    what = "written, but what follows it was not" if written else "checkpoint not written"
    error = CheckpointWriteError(f"{path}: {what}: {reason(exc)}", _errno(exc))
    error.__cause__ = exc
    return error


def remove_stale_temps(folder: Path | str) -> list[Path]:
    """Delete temporary files a killed writer left in ``folder``; returns them."""
    stale = [p for p in Path(folder).glob(".*.part") if is_temp(p)]
    for path in stale:
        path.unlink(missing_ok=True)
    return stale
