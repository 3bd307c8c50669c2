"""How the Dataset page runs its jobs: one at a time off the GUI thread, with progress, Cancel, and save on leave.

A mixin of :class:`studio.pages.dataset.DatasetPage`: it relies on the page's ``project_dir``,
``refresh``, ``hint``, ``job_progress`` (a ``studio.widgets.task_progress.TaskProgress``),
``buttons``, ``message``, ``editor``, ``_on_selection_changed`` and ``_get_phonemizer``.

Every job is a ``work(project, state)`` function run in a ``studio.workers.Task`` held by
the page's ``TaskSlot``; long ones (import, slicing, fixes, the training cache) report
``state.progress`` and stop at Cancel, keeping what they finished
(``trainer.tasks.Cancelled`` says what). When one that writes the project ends (done, cancelled or failed:
what it finished is kept), the page announces it on the workspace's ``datasets``
(``studio.state_files``): this page reloads the manifest from that announcement, as every other page
showing the project (or the cache the job wrote) reads it again.

Save on leave: a typed text is never dropped. Every job first saves the pending text edits (the
editor's and those of clips the user has left), so a fix, export or split acts on the text on
screen; leaving a clip, switching pages or opening another project saves its edit; closing the
window cancels the running job (it stops at its next item, keeping and saving what it finished), waits
for it at most ``CLOSE_WAIT_S``, and saves the edits before the window goes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QLabel, QPushButton, QWidget

from studio.state import Workspace
from studio.widgets.clip_editor import ClipEditor
from studio.widgets.task_progress import TaskProgress
from studio.workers import Task, TaskSlot
from trainer.tasks import TaskState

BUSY = "Please wait: the dataset is busy."
CLOSE_WAIT_S = 10.0
"""Longest the closing window waits for a cancelled job to stop (it stops within one item: a few clips)."""

if TYPE_CHECKING:  # what the mixins extend: the page (a QWidget) to the type checker, nothing at run time
    _Page = QWidget
else:
    _Page = object


class DatasetJobs(_Page):
    """The page's job slot (``jobs``), its busy state and its unsaved text edits."""

    jobs: TaskSlot
    workspace: Workspace
    project_dir: Path
    hint: QLabel
    job_progress: TaskProgress
    buttons: dict[str, QPushButton]
    editor: ClipEditor
    _busy: bool
    _unsaved: dict[str, str]
    if TYPE_CHECKING:  # the page's, named here for the type checker
        from PySide6.QtCore import SignalInstance

        message: SignalInstance

        def refresh(self) -> None: ...
        def project(self) -> Any: ...
        def _on_selection_changed(self, *_: object) -> None: ...
        def _get_phonemizer(self, project: Any = None) -> Any: ...
        def selected_ids(self) -> list[str]: ...
        def has_project(self) -> bool: ...

        _project: Any

    def run_job(
        self,
        label: str,
        work: Callable[[Any, TaskState], Any],
        describe,
        create: bool = False,
        cancellable=False,
        *,
        writes: bool = True,
        also: tuple[Path, ...] = (),
    ) -> Task | None:
        """Run ``work(project, state)`` off the GUI thread; then reload and show ``describe(result)``.

        ``label`` names the job in the status line (``Importing 120 / 800 — 14 s left``); ``cancellable``
        shows Cancel (for work that stops at ``state``: the page then shows the ``Cancelled`` message).
        Only ``create`` jobs (import, slicing) make the project folder (and remove what they made when they
        end with no clip: ``trainer.dataset.project.making``); the others fail on a folder that is not a project
        (``trainer.dataset.manifest.NotAProject``). A job that ``writes`` the project (and the folders ``also``
        names, e.g. a training cache) announces its end on ``workspace.datasets``; one that writes elsewhere
        only (an export, the report) does not."""
        if self._busy:
            self.message.emit(BUSY)
            return None
        self._stash_edit()
        phonemizer = self._edits_phonemizer(label)
        if phonemizer is False:
            return None
        folder = self.project_dir
        edits = self._take_edits()
        saved = f"Saved the text of {', '.join(edits)}" if edits else ""
        changed = ((folder,) if writes or edits else ()) + tuple(also)

        def run(state: TaskState):
            from trainer.dataset.project import DatasetProject, making

            if not create:
                return edited(DatasetProject(folder), state)
            with making(folder) as project:
                return edited(project, state)

        def edited(project, state: TaskState):
            from trainer.dataset.curation import set_text

            for clip_id, text in edits.items():  # the text on screen first: the action then acts on it
                set_text(project, clip_id, text, phonemizer)
            return work(project, state)

        self._set_busy(True)
        self.hint.setText(f"{label}…")
        task = Task(run, self)
        self.job_progress.follow(task, label, cancellable)
        said = lambda result: _joined(saved, describe(result)) or f"{label}: no change"  # noqa: E731
        ended = lambda text: self._on_job_done(text, changed, label)  # noqa: E731
        task.done.connect(lambda result: ended(_late(task, label, said(result))))
        task.cancelled.connect(lambda exc: ended(_joined(saved, str(exc))))
        task.failed.connect(lambda exc: ended(f"{label} failed: {exc}"))
        task.ended.connect(self._on_job_ended)
        return self.jobs.start(task)

    def _edits_phonemizer(self, label: str):
        """The phonemizer that measures the pending edits (None: there are none), or False when the project's
        voice config cannot phonemize (e.g. an espeak voice espeak-ng lacks): then ``message`` says so, the job
        does not start and the edits stay pending (an action acts on the text on screen or not at all)."""
        from engines.errors import VoiceStudioError

        if not self._unsaved:
            return None
        try:
            return self._get_phonemizer()
        except VoiceStudioError as exc:
            self.message.emit(f"{label}: not started, the text typed cannot be saved: {exc}")
            return False

    def cancel_job(self) -> None:
        """Stop the running job at its next item; it keeps what it finished and says so."""
        self.jobs.cancel()

    def shutdown(self, timeout: float = CLOSE_WAIT_S) -> list[str]:
        """The window is closing: cancel the running job, wait for it at most ``timeout`` seconds (it stops at
        its next item and saves what it finished), then save the pending text edits; returns the clip ids saved."""
        self.jobs.cancel()
        return self.save_edits_now(timeout)

    def _on_job_ended(self) -> None:
        self.job_progress.finish()
        self._set_busy(False)
        self.save_pending()  # edits of clips left while the job ran

    def _on_job_done(self, text: str, changed: tuple[Path, ...] = (), label: str = "") -> None:
        """A job ended saying ``text``: the folders it ``changed`` are announced (every page showing them, this one
        too, reads them again), else the page reloads by itself."""
        self._busy = False  # refresh enables the buttons
        if changed:
            self.workspace.datasets.announce(*changed, what=f"{label} on the Dataset page")
        else:
            self.refresh()
        self.hint.setText(text)
        self.hint.setToolTip("")  # an import's lists (set after this) are of that import only
        self.message.emit(text)

    def _set_busy(self, busy: bool) -> None:
        self._busy = busy
        for name in ("open", "new", "add", "slice", "distil", "export", "cache"):
            self.buttons[name].setEnabled(not busy)
        self._on_selection_changed()

    def is_busy(self) -> bool:
        return self._busy

    # --- unsaved edits (save on leave) ------------------------------------------
    def _stash_edit(self) -> None:
        """The editor's pending text joins the edits to save (it is about to show another clip, or none)."""
        pending = self.editor.take_pending()
        if pending is not None:
            self._unsaved[pending[0]] = pending[1]

    def _take_edits(self) -> dict[str, str]:
        """All pending text edits, ``{clip id: text}``, handed to the caller to save."""
        self._stash_edit()
        edits, self._unsaved = self._unsaved, {}
        return edits

    def save_pending(self) -> Task | None:
        """Save the texts of clips the user has left; while a job runs, they are saved when it ends."""
        if self._busy or not self._unsaved:
            return None
        return self.run_job("Saving text", lambda p, _: None, lambda _: "")

    def hideEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Another page is shown (or the window hidden): the text being edited is saved."""
        self._stash_edit()
        self.save_pending()
        super().hideEvent(event)

    def save_edits_now(self, timeout: float | None = None) -> list[str]:
        """Wait for a running job (at most ``timeout`` seconds; ``None``: until it ends), then save every
        pending text edit here and now (the window is closing, or another project is opened); returns the
        clip ids saved. A text that cannot be saved (empty, or the voice config cannot phonemize it) is reported in
        ``message``."""
        from engines.errors import VoiceStudioError
        from trainer.dataset.curation import CurationError, set_text

        self.jobs.join(timeout)
        edits = self._take_edits()
        if not edits:
            return []
        project, saved = self.project(), []
        for clip_id, text in edits.items():
            try:
                set_text(project, clip_id, text, self._get_phonemizer(project))
                saved.append(clip_id)
            except (CurationError, VoiceStudioError) as exc:  # an empty text; a voice config that cannot phonemize
                self.message.emit(f"Text not saved: {exc}")
        return saved


def _late(task: Task, label: str, said: str) -> str:
    """What a finished job ``said``, with a note when a Cancel came after its work had finished (it stopped
    nothing: e.g. "Cancel came after importing had finished: 240 clips added, ...")."""
    if not task.state.is_cancelled():
        return said
    return f"Cancel came after {label.lower()} had finished: {said}"


def _joined(*parts: str) -> str:
    return "; ".join(part for part in parts if part)
