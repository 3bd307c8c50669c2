"""Worker processes for dataset work (import, fixes, slicing, the training cache).

Workers are never forked from the calling process: the studio's GUI process has
threads, and forking a threaded process is unsafe. Where the platform has it
(Linux), they are forked from a *fork server*: one fresh, single-threaded
interpreter started at first use that has already imported the heavy modules the
jobs need (``PRELOAD``; importing ``scipy.signal`` for ``pyloudnorm`` alone takes
about a second). Every pool after the first then starts in milliseconds, with
nothing to import. Elsewhere (Windows, macOS) workers are spawned: fresh
interpreters that import what they need. A frozen (packaged) app spawns too, and
``VOICE_STUDIO_WORKERS=spawn`` forces spawning everywhere.

The fork server keeps the environment, working directory and ``sys.path`` of the
moment the first pool starts; workers forked later see those, not later changes.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from trainer.tasks import TaskState

PRELOAD = [
    "numpy",
    "soundfile",
    "soxr",
    "pyloudnorm",
    "onnxruntime",
    "trainer.dataset.jobs",
    "trainer.dataset.analysis",
    "trainer.dataset.probe",
    "trainer.dataset.fixes",
    "trainer.dataset.vad",
    "trainer.data.preprocess",
    "engines.phonemes",
    "engines.voice",
]
"""Modules the fork server imports once (a missing one is skipped)."""


HERE_AT_MOST = 24
"""Most clips a process without a window handles itself, in order, rather than in a pool (see :func:`run_here`):
starting the fork server costs about 1.1 CPU-s and 1 s before the first job (its ``PRELOAD``), while a clip's
import or cache job takes 40-70 ms (the 240-clip target-voice import: 8.6 s on 2 workers), so up to about
two dozen clips finish as soon here on 2 cores, at less CPU. The studio window never runs jobs itself: a job
holding the interpreter's lock stalls its UI thread."""
_here = False


def run_here() -> None:
    """Let this process run small job lists itself (``HERE_AT_MOST`` clips): a command-line process (the CLI, a
    trainer) calls it at its start; the studio window does not."""
    global _here
    _here = True


def worker_pool(workers: int | None, jobs_count: int) -> ProcessPoolExecutor:
    """A pool of :func:`worker_count` processes, as a context manager.

    Args:
        workers: processes wanted; ``None`` means one per core.
        jobs_count: jobs to run (no more processes than jobs).
    """
    return ProcessPoolExecutor(
        max_workers=worker_count(workers, jobs_count), mp_context=_context(), initializer=_ignore_ctrl_c
    )


def _ignore_ctrl_c() -> None:
    """Workers ignore SIGINT (a terminal's Ctrl+C reaches the whole process group): the caller decides, through
    its ``TaskState``, whether the jobs stop; a worker killed mid-job would break the pool and lose its work."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def worker_count(workers: int | None, jobs_count: int) -> int:
    """``min(workers or cores, jobs_count)``, at least 1."""
    return max(1, min(workers or os.cpu_count() or 1, jobs_count))


POLL_S = 0.2
"""How often :func:`run_jobs` with ``stop_in_flight`` looks at the ``TaskState`` while jobs run, s."""


def run_jobs(
    fn: Callable[[Any], Any],
    items: list,
    workers: int | None,
    state: TaskState | None = None,
    *,
    stop_in_flight: bool = False,
    clips: int | None = None,
) -> Iterator[tuple[int, Any]]:
    """``fn(item)`` for each item in worker processes (:func:`worker_pool`); yields ``(index, result)`` in order
    (with ``stop_in_flight``: in the order the jobs finish, see below).

    One job per worker is handed out at a time (the next as soon as any finishes), so
    when ``state`` is cancelled the jobs not handed out are dropped, those in flight (at
    most one per worker) are waited for and their results yielded too (their work is
    done: its files are written), and the iteration ends. A cancel so takes effect
    within one job per worker, and nothing finished is lost. An exception of ``fn`` is
    raised here.

    ``stop_in_flight`` is for long jobs whose files are written atomically at their end (recognising a draft):
    each result is yielded as soon as its job finishes (a long first job holds back no other), the state is
    looked at every ``POLL_S``, and on a cancel the jobs in flight are stopped at once (with as many workers as
    jobs, every job is in flight from the start): only the finished ones are yielded.

    In a process that allows it (:func:`run_here`) up to ``HERE_AT_MOST`` clips (``clips``: how many the items
    hold; one an item by default) are handled in this process, in order, the state looked at between jobs; jobs
    stopped in flight always run in a pool (only a pool can stop one).
    """
    if _here and not stop_in_flight and (len(items) if clips is None else clips) <= HERE_AT_MOST:
        yield from _in_order(fn, items, state)
        return
    count, futures = worker_count(workers, len(items)), list[Future]()
    with worker_pool(workers, len(items)) as pool:
        try:
            if stop_in_flight:
                yield from _as_finished(pool, fn, items, futures, count, state)
                return
            for index in range(len(items)):
                _hand_out(pool, fn, items, futures, index, count, state)
                if state is not None and state.is_cancelled():
                    yield from ((i, future.result()) for i, future in enumerate(futures[index:], index))
                    return
                while not futures[index].done():
                    wait([f for f in futures[index:] if not f.done()], return_when=FIRST_COMPLETED)
                    _hand_out(pool, fn, items, futures, index, count, state)
                yield index, futures[index].result()
        except KeyboardInterrupt:  # a second Ctrl+C: stop now, the jobs in flight too
            _stop_now(pool)
            raise
        finally:
            for future in futures:  # the caller stopped early (an error): the others are not started
                future.cancel()


def _in_order(fn: Callable[[Any], Any], items: list, state: TaskState | None) -> Iterator[tuple[int, Any]]:
    """``(index, fn(item))`` for each item, in this process, until ``state`` is cancelled (the job running then
    finishes, as one in flight in a pool does)."""
    for index, item in enumerate(items):
        if state is not None and state.is_cancelled():
            return
        yield index, fn(item)


def _as_finished(pool, fn, items: list, futures: list[Future], count: int, state: TaskState | None):
    """``(index, result)`` of each job as it finishes; on a cancel, those finished, then the pool is stopped."""
    given: set[int] = set()
    while len(given) < len(items):
        _hand_out(pool, fn, items, futures, 0, count, state)
        done = [i for i, future in enumerate(futures) if future.done() and i not in given]
        for index in done:
            given.add(index)
            yield index, futures[index].result()
        if state is not None and state.is_cancelled():
            _stop_now(pool)
            return
        if not done:
            wait([f for f in futures if not f.done()], timeout=POLL_S, return_when=FIRST_COMPLETED)


def _stop_now(pool: ProcessPoolExecutor) -> None:
    """End the pool's worker processes at once (their jobs in flight are lost; what they wrote is atomic)."""
    for process in list(getattr(pool, "_processes", {}).values()):  # the executor keeps no public handle
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def _hand_out(pool, fn, items: list, futures: list[Future], first: int, count: int, state: TaskState | None) -> None:
    """Submit the next items until ``count`` jobs from ``first`` on are unfinished (none once cancelled)."""
    while len(futures) < len(items) and not (state is not None and state.is_cancelled()):
        if sum(not future.done() for future in futures[first:]) >= count:
            return
        futures.append(pool.submit(fn, items[len(futures)]))


def warm_up() -> None:
    """Start the fork server now, where one is used: it imports ``PRELOAD`` in its own process while the
    caller goes on (this returns in milliseconds), so the first pool starts at once."""
    if _context().get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


def _context() -> multiprocessing.context.BaseContext:
    forced_spawn = os.environ.get("VOICE_STUDIO_WORKERS") == "spawn" or getattr(sys, "frozen", False)
    if sys.platform.startswith("linux") and not forced_spawn:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")
