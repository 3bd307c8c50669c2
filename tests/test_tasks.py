"""Tasks: the plain-Python TaskState the work receives, the Qt Task that carries its signals to the GUI thread,
and the TaskSlot that runs one task at a time (a second start cancels the first and drops its late signals)."""

from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import QThread

from studio.workers import Task, TaskSlot
from trainer.tasks import Cancelled, TaskState

pytestmark = pytest.mark.gui


def test_task_state_reports_and_cancels():
    """TaskState is the cancel event itself and passes progress and status to its callbacks."""
    seen: list = []
    state = TaskState(progress=lambda d, t: seen.append((d, t)), status=seen.append)
    state.progress(3, 8)
    state.status("reading")
    assert seen == [(3, 8), "reading"] and not state.is_cancelled()
    state.cancel()
    assert state.is_cancelled() and state.wait(0)  # an Event: streaming code that waits on it wakes up
    quiet = TaskState.of(None, progress=lambda d, t: seen.append(("plain", d, t)))
    quiet.progress(1, 2)
    assert seen[-1] == ("plain", 1, 2) and TaskState.of(state) is state


def _counting(gate: threading.Event, count: int):
    """Work that reports progress and status for ``count`` items (10 ms each, once ``gate`` opens) until
    cancelled."""

    def work(state: TaskState) -> int:
        gate.wait(5)
        for done in range(1, count + 1):
            time.sleep(0.01)
            if state.is_cancelled():
                raise Cancelled(f"stopped: {done - 1} of {count} kept", done=done - 1, total=count)
            state.status(f"item {done}")
            state.progress(done, count)
        return count

    return work


def test_progress_and_status_arrive_on_the_gui_thread(qtbot):
    """Progress and status emitted on the work's thread are delivered, in order, on the GUI thread."""
    gate, seen, threads = threading.Event(), [], set()
    gate.set()
    task = Task(_counting(gate, 5))
    task.progress.connect(lambda d, t: (seen.append((d, t)), threads.add(QThread.currentThread())))
    task.status.connect(lambda text: (seen.append(text), threads.add(QThread.currentThread())))
    with qtbot.waitSignal(task.done, timeout=5000) as done:
        task.start()
    assert done.args == [5]
    assert seen == [x for n in range(1, 6) for x in (f"item {n}", (n, 5))]
    assert threads == {QThread.currentThread()}  # the test runs on the GUI thread


def test_cancel_keeps_the_signals_and_says_what_was_kept(qtbot):
    """TaskSlot.cancel stops the work at its next check; its cancelled signal (with the message) still arrives."""
    gate, slot, said = threading.Event(), TaskSlot(), []
    task = Task(_counting(gate, 100))
    task.cancelled.connect(lambda exc: said.append(str(exc)))
    task.done.connect(lambda result: said.append(("done", result)))
    progress: list = []
    task.progress.connect(lambda d, t: progress.append(d))
    slot.start(task)
    gate.set()
    qtbot.waitUntil(lambda: len(progress) >= 3, timeout=5000)
    slot.cancel()
    assert slot.busy()  # until its ended signal arrives
    qtbot.waitUntil(lambda: not slot.busy(), timeout=5000)
    assert len(said) == 1 and said[0].startswith("stopped: ") and said[0].endswith(" of 100 kept")
    kept = int(said[0].split()[1])
    assert 3 <= kept < 100 and progress[-1] == kept  # the work stopped at its next check


def test_starting_a_second_task_cancels_the_first_and_drops_its_late_signals(qtbot):
    """The first task's signals queued before the second start are never delivered; the second's all are."""
    first_gate, second_gate = threading.Event(), threading.Event()
    slot, got = TaskSlot(), []
    first = Task(_counting(first_gate, 1000))
    for name in ("progress", "status", "done", "cancelled", "failed", "ended"):
        getattr(first, name).connect(lambda *args, name=name: got.append(("first", name)))
    slot.start(first)
    first_gate.set()
    while not got:  # let some of the first's signals be delivered...
        qtbot.wait(5)
    qtbot.waitUntil(lambda: len(got) >= 2)
    first.state.wait(0.05)  # ...and more queue up, undelivered, while the GUI thread does not look
    second = Task(_counting(second_gate, 3))
    second.done.connect(lambda result: got.append(("second", result)))
    slot.start(second)
    assert first.state.is_cancelled() and first.is_dropped() and slot.task is second
    delivered = len(got)
    assert first.join(5)
    second_gate.set()
    qtbot.waitUntil(lambda: not slot.busy(), timeout=5000)
    assert got[delivered:] == [("second", 3)]  # nothing more of the first, not even its ended


# --- the dataset work stops at a cancel, keeping what it finished -------------------------------------------
@pytest.fixture(scope="module")
def cards(tmp_path_factory):
    """A project of the five 'cards' recordings."""
    from conftest import shared_path

    from trainer.dataset.project import DatasetProject

    project = DatasetProject.create(tmp_path_factory.mktemp("cards") / "project")
    project.import_sources([shared_path("corpus", "real-speech", "cards")], workers=1)
    return project.folder


def _cancel_after_first(seen: list) -> TaskState:
    """A state that records progress and cancels itself once the first item is done."""
    state = TaskState(progress=lambda done, total: (seen.append((done, total)), done >= 1 and state.cancel()))
    return state


def test_cancelled_fixes_keep_the_clips_fixed(cards, tmp_path):
    """Normalizing 5 clips with one worker, cancelled after the first: the clips fixed until then (the first
    and the one in flight) are recorded in the manifest, the others untouched, and the message says how many."""
    import shutil

    from trainer.dataset.project import DatasetProject

    folder = shutil.copytree(cards, tmp_path / "project")
    seen: list = []
    with pytest.raises(Cancelled) as cancelled:
        DatasetProject(folder).apply_fixes(normalize=True, workers=1, state=_cancel_after_first(seen))
    fixed = [c.id for c in DatasetProject(folder).clips.values() if c.edits]
    assert str(cancelled.value) == f"Fixes cancelled: {len(fixed)} of 5 clips fixed"
    assert 1 <= len(fixed) < 5 and seen[0] == (0, 5) and seen[-1] == (len(fixed), 5)


def test_cancelled_cache_build_writes_nothing(cards, tmp_path):
    """A training cache cancelled part-way leaves no cache and no half-built folder."""
    from trainer.data.preprocess import build_cache
    from trainer.dataset.project import DatasetProject

    seen: list = []
    with pytest.raises(Cancelled, match=r"Training cache cancelled after \d of 5 clips; nothing written"):
        build_cache(DatasetProject(cards), tmp_path / "cache", workers=1, state=_cancel_after_first(seen))
    assert seen[0] == (0, 5) and list(tmp_path.iterdir()) == []
