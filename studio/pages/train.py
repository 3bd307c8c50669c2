"""The Train page: set up, check, start, watch, stop, resume and export a fine-tuning run.

The trainer is a child process (``studio.trainer_process``); the page folds its
events into a ``trainer.events.run_state.RunState`` and draws it: the epoch-time chart
(train, validation, previews, checkpoint wait), speed and ETAs, loss curves,
learning rate and GPU memory, milestones, previews to play, and the log.
Pre-flight checks, the resample fix and export run off the GUI thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractButton,
    QLabel,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from engines.extras import explain
from engines.voice import Voice
from engines.words import count
from studio.pages.train_actions import TrainActions
from studio.pages.train_board import TrainBoard
from studio.pages.train_estimate import START_HINT, TrainEstimate
from studio.pages.train_home_assistant import HomeAssistantActions
from studio.run_follower import RunFollower
from studio.state import VoiceLibrary, Workspace
from studio.state_files import FolderChange
from studio.trainer_process import TrainerProcess
from studio.widgets.compact import form_rows_height, scrolled, stacked
from studio.widgets.flow_layout import flow_row
from studio.widgets.run_view import RunView, following_line, outcome_line
from studio.widgets.runs_table import RunsTable, duration, training_elsewhere
from studio.widgets.train_setup import TrainSetup
from studio.workers import Task, TaskSlot
from trainer.events.log import EventTail
from trainer.events.run_state import RunState, load_run
from trainer.events.schema import Event
from trainer.run.options import RunOptions
from trainer.run.preflight import Finding
from trainer.run.presets import SMOKE_TEST, is_smoke_test, smoke_prefix


class TrainPage(TrainActions, HomeAssistantActions, TrainBoard, TrainEstimate, QWidget):
    """Setup, Start/Stop/Resume, live charts of the running trainer, and the runs list.

    Signals:
        message(str): a notice for the status bar.
        voice_exported(object): the ``Path`` of an exported ``.onnx`` voice.
        compare_requested(Path): the shown run's folder, to compare its ranked checkpoints.
    """

    message = Signal(str)
    voice_exported = Signal(object)
    compare_requested = Signal(Path)

    def __init__(self, workspace: Workspace, library: VoiceLibrary, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.runs_root, self.voices_dir = workspace.runs_dir, workspace.voices_dir
        self.state: RunState | None = None
        self.process = TrainerProcess(self)
        self.process.records.connect(self._on_records)
        self.process.log.connect(lambda line: self.view.log.appendPlainText(line))
        self.process.finished.connect(self._on_process_finished)
        self.follower = RunFollower(self)
        """A shown run that a trainer elsewhere is writing (another machine, a terminal), followed until it ends."""
        self.follower.records.connect(self._on_followed)
        self._checked: tuple[RunOptions, list[Finding]] | None = None
        """``(options, findings)`` of the last check, while the choices are unchanged since."""
        self._generation = 0
        """Counts changes of the setup's choices: a resampling's result is used only if none happened since."""
        self._checks = TaskSlot()
        """The running pre-flight check: a change of the choices (or another check) drops it and its findings."""
        self._estimates = TaskSlot()
        """Working out how long the checked epochs take (``TrainEstimate``): a change of the choices or a Start
        drops it."""
        self._preview_asked = False
        """Previews were asked of the trainer (Preview now) and have not come yet."""
        self._damaged: str | None = None
        """How the shown run's ``last.ckpt`` is damaged (``trainer.checkpoints.damage``), where it is: Resume then
        reads Continue from best."""
        self._board = TaskSlot()
        """Measuring the shown run's best checkpoint (``TrainBoard``): showing another run drops it."""
        self._start_check: Task | None = None
        """The check Start began (it starts the run when its findings allow)."""
        self._devices_listed = False
        self._filled_dataset = ""
        self._launched = (time.time(), "")
        """When the shown trainer was launched (Unix seconds) and the status line said then."""
        self._said = ""
        """The trainer's latest output line: before its first event (e.g. preprocessing), what it is doing."""
        self.process.log.connect(self._on_said)
        self._ticker = QTimer(self)
        """Every second while a trainer runs: the status and stats lines' clocks move between events."""
        self._ticker.setInterval(TICK_MS)
        self._ticker.timeout.connect(self._tick)
        self._build()
        self.setup.resample_requested.connect(self._resample)
        self.setup.changed.connect(self._on_setup_changed)
        self._on_voices_changed(library.voices)
        library.events.changed.connect(self._on_voices_changed)
        workspace.datasets.events.changed.connect(self._on_dataset_changed)

    # --- layout -----------------------------------------------------------
    def _build(self) -> None:
        self.setup = TrainSetup()
        self.buttons: dict[str, QAbstractButton] = {name: QPushButton(label) for name, label in BUTTONS}
        self.buttons["export"] = self.export_button()  # a click: the recommended checkpoint; its menu: val_mel's
        self.buttons["compare"].setToolTip("Compare this run's checkpoints by ear and by numbers (the Compare page)")
        for name, handler in (
            ("check", lambda: self.check()),  # clicked(bool) would fill its first argument
            ("start", self.start),
            ("stop", self.stop),
            ("preview", self.preview_now),
            ("resume", self.resume),
            ("open", self._open_folder),
            ("export", lambda: self.ask_export()),
            ("compare", self._compare),
        ):
            self.buttons[name].clicked.connect(handler)
        row = flow_row(*self.buttons.values())  # wraps when the window is narrow
        self.needs = QLabel(training_missing())
        """Why this install cannot train, and how to add it (an ONNX-only install); hidden when it can."""
        self.needs.setWordWrap(True)
        self.needs.setVisible(bool(self.needs.text()))
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setMinimumHeight(STATUS_LINES * self.status.fontMetrics().lineSpacing())
        self.status.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self._inputs_line = ("", False)
        """The status line shown when it was about the choices (the next step, or a check's result: True), so a
        change of them replaces it (``_say_inputs``); any other line (a run's) stays."""
        self._say_inputs(idle_line(""))
        self.view = RunView()
        self.view.message.connect(self.message)
        self.view.best_row.score_requested.connect(self.score_best)
        self.view.best_row.cancel_requested.connect(self._board.cancel)
        self.runs = RunsTable(self.runs_root)
        self.runs.chosen.connect(self.show_run)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.view, "Run")
        self.tabs.addTab(self.runs, "Runs")
        self.view.put_stats_beside(self.tabs)  # the shown run's speed and times beside its tabs: a line less
        self.tabs.currentChanged.connect(lambda index: self.runs.refresh() if index == 1 else None)
        run = QWidget()
        run_layout = QVBoxLayout(run)
        run_layout.setContentsMargins(0, 0, 0, 0)
        run_layout.setSpacing(4)
        run_layout.addWidget(self.needs)
        run_layout.addWidget(row)
        run_layout.addWidget(self.status)
        run_layout.addWidget(self.tabs, 1)
        layout = QVBoxLayout(self)  # the setup scrolls and its splitter moves, so a short window still has charts
        layout.setContentsMargins(layout.contentsMargins().left(), 0, layout.contentsMargins().right(), 0)
        self._setup_area = scrolled(self.setup, least=form_rows_height(self.setup, SETUP_ROWS))
        self._split = stacked(self._setup_area, run, self.setup.sizeHint().height())
        layout.addWidget(self._split, 1)
        self._update_buttons()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        if not self._devices_listed:
            self._devices_listed = True
            self.setup.detect_devices()
        self._follow_dataset_page()
        super().showEvent(event)

    def _follow_dataset_page(self) -> None:
        """Fill the dataset with the Dataset page's project; one filled in this way follows that page when
        another project is opened there, one the user typed or browsed to stays."""
        shown = self.setup.dataset.text()
        if not shown or shown == self._filled_dataset:
            self._filled_dataset = str(self.workspace.dataset_for_training() or "")
            self.setup.dataset.setText(self._filled_dataset)

    def _on_voices_changed(self, voices: list[Voice]) -> None:
        """The library's added voices and checkpoints are starting points (the embedded one is always offered)."""
        starts = [v for v in voices if v.origin != "embedded"]
        self.setup.set_start_voices([(start_label(v), str(v.model_path)) for v in starts])

    # --- checks and start -------------------------------------------------------
    def _on_setup_changed(self) -> None:
        """A choice changed: the last check (shown findings, its status line) describes other choices."""
        self._inputs_changed("The setup changed since the check")

    def _on_dataset_changed(self, change: FolderChange) -> None:
        """Another page (or this one's Resample) changed the files of the dataset chosen: the check's findings
        and its status line described the files before (the setup clears the findings, as a change of choice)."""
        if change.concerns(self.setup.dataset.text()):
            self.setup.clear_findings()
            self._inputs_changed(f"{change.what[:1].upper()}{change.what[1:]} changed the dataset since the check")

    def _inputs_changed(self, why: str) -> None:
        """Drop the check, and the estimate, of the choices and files before; a status line about them becomes
        the idle one (after ``why``, where it said a check's result)."""
        line, checked = self._inputs_line
        if not self.process.is_running() and self.status.text() == line:
            self._say_inputs(idle_line(self.setup.dataset.text(), why if checked else ""))
        self._generation += 1
        self._checked = None
        self._checks.drop()  # a Start's check says that it started nothing
        self._estimates.drop()

    def _say_inputs(self, text: str, checked: bool = False) -> None:
        """Show ``text``, a line about the choices (``checked``: a check's result): it goes when they change."""
        self.status.setText(text)
        self._inputs_line = (text, checked)

    def check(self, estimate: bool = True) -> Task | None:
        """Run the pre-flight checks of the choices shown now, in the background, and show the findings; then,
        with ``estimate`` and nothing blocking, how long the epochs will take here (``TrainEstimate``).

        Findings that arrive after a choice changed are dropped: the setup already cleared the old ones.
        """
        try:
            options = self.setup.options(self.runs_root)
        except ValueError as exc:
            self.setup.show_message(str(exc))
            return None
        from studio.widgets.locations import with_path

        self.setup.show_message("Checking…", "info")

        def work(cancel: threading.Event):
            from trainer.run.preflight import preflight

            return preflight(options)

        task = Task(work, self)
        self._tick_while(task, "Checking the dataset and the starting voice")  # stops before the result shows
        task.done.connect(lambda findings: self._on_checked(options, findings, estimate))
        task.failed.connect(lambda exc: self.setup.show_message(f"Checks failed: {with_path(options.dataset, exc)}"))
        return self._checks.start(task)

    def _tick_while(self, task: Task, doing: str) -> None:
        """A moving figure for a wait without steps: ``doing… 2.5 s`` every half second until ``task`` ends."""
        import time

        from PySide6.QtCore import QTimer

        started, ticker = time.monotonic(), QTimer(task)
        ticker.timeout.connect(lambda: self.setup.show_message(f"{doing}… {time.monotonic() - started:.1f} s", "info"))
        for ended in (task.done, task.failed, task.cancelled, task.ended, task.dropped):
            ended.connect(ticker.stop)
        ticker.start(500)

    def _on_checked(self, options: RunOptions, findings: list[Finding], estimate: bool = False) -> None:
        self.setup.show_findings(findings)
        self._checked = (options, findings)
        errors = sum(f.blocking for f in findings)
        if not self.process.is_running():
            self._say_inputs(
                f"{CHECKED} {count(errors, 'error')} to fix first (shown under Setup)."
                if errors
                else f"{CHECKED} ready{_noted(findings)}. {START_HINT}",
                checked=True,
            )
        if estimate and not errors and not self.process.is_running():
            self.estimate(options)
        if findings:  # the findings (and a Resample offer) may lie below the small Setup area's fold
            self._reveal(self.setup.resample if self.setup.resample.isVisibleTo(self.setup) else self.setup.findings)
        self._update_buttons()

    def _reveal(self, widget: QWidget) -> None:
        """Scroll the small Setup area so that ``widget`` (just shown or grown) is in view."""
        for _ in range(2):  # the widget's new height reaches the setup's layout, then the area's range
            QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        self._setup_area.ensureWidgetVisible(widget)

    def start(self) -> Task | None:
        """Check the choices shown now, then start a run with exactly them (errors block it; a choice changed
        while they were being checked starts nothing)."""
        if self.process.is_running():
            return None
        if self._checks.task is not None and self._checks.task is self._start_check:
            return self._start_check  # Start pressed twice: its first check goes on
        task = self._start_check = self.check(estimate=False)
        if task is not None:
            task.done.connect(self._start_checked)  # after _on_checked
            task.dropped.connect(  # the choices changed (or were checked again) while being checked
                lambda: self._say_inputs(
                    "The setup changed while it was being checked: nothing started. Press Start again."
                )
            )
        return task

    def _start_checked(self, findings: list[Finding]) -> None:
        if self.process.is_running():
            return
        if any(f.blocking for f in findings):
            self._say_inputs("Fix the errors above before starting.", checked=True)
            return
        if self._checked is None:  # cannot happen: this check's done signal reached _on_checked first
            return
        options = self._checked[0]
        self._estimates.drop()  # a step being timed would take the run's cores
        self._begin(options.out, f"Starting {options.out.name}…", lambda: self.process.start_run(options))
        if self.state is not None:  # read before the trainer wrote training.json: the preset chosen
            self.state.preset = options.preset
        self._checked = None

    def resume(self) -> None:
        """Continue the shown run from its last checkpoint; where that is damaged, go on from its best intact
        checkpoint in a new run beside it (``trainer.run.from_best``: the button reads Continue from best)."""
        if self.state is None or self.process.is_running():
            return
        folder = self.state.folder
        if self._damaged is None:
            self._begin(folder, f"Resuming {folder.name}…", lambda: self.process.resume_run(folder))
            return
        from engines.errors import VoiceStudioError
        from trainer.run.from_best import from_best

        try:
            chosen = from_best(folder)
        except VoiceStudioError as exc:
            self.status.setText(f"Cannot go on from {folder.name}: {exc}")
            return
        said = chosen.line()
        self._begin(chosen.options.out, f"{said[0].upper()}{said[1:]}…", lambda: self.process.start_run(chosen.options))

    def _begin(self, folder: Path, text: str, launch: Callable[[], None]) -> None:
        """Show the run in ``folder`` afresh and ``launch`` its trainer."""
        self.follower.stop()
        self._preview_asked, self._damaged = False, None
        self.state = load_run(folder, with_events=False)  # the process's tail reads them all
        self.state.session_since = time.time()  # an earlier session's step or ETA is not this one's
        self.view.clear()
        launch()
        self._launched, self._said = (time.time(), text), ""
        self._ticker.start()
        self.show_best_row(score=False)  # hidden while training
        self.status.setText(text)
        self._draw()
        self.tabs.setCurrentIndex(0)
        self._fold_setup()
        self._update_buttons()

    def _fold_setup(self) -> None:
        """A run starts: the setup, which cannot change now, folds to its first row and the charts take the height
        (at 1024×640 with the check's warnings shown they were left a few pixels: an epoch-time chart with one
        tick); its handle drags it open again."""
        least = self._setup_area.minimumSizeHint().height()
        sizes = self._split.sizes()
        if len(sizes) == 2 and sizes[0] > least:
            self._split.setSizes([least, sizes[0] + sizes[1] - least])
            self._setup_area.verticalScrollBar().setValue(0)  # its first row whole, not a slice of another

    def stop(self) -> None:
        """Ask the trainer to stop after this epoch (it writes its checkpoint first); a second press ends it now."""
        if not self.process.is_running():
            return
        if self.process.stopping:
            self.process.kill()
            self._ticker.stop()
            self.status.setText("Ending the trainer now; the run resumes from its last checkpoint.")
            return
        self.process.stop()
        self._tick()

    # --- following ---------------------------------------------------------------
    def _on_records(self, events: list[Event]) -> None:
        if self.state is None:
            return
        self._note_previews(events)
        self.state.apply_all(events)
        self._draw()
        self._update_buttons()  # a checkpoint ranked meanwhile can be compared
        self._announce_run(events)

    def _draw(self) -> None:
        if self.state is not None:
            self.view.show_state(self.state)
            self._tick()

    def _tick(self) -> None:
        """While the trainer runs: the status line says what it does now (after Stop: that it is stopping, and
        what it does until then), with a clock that moves on between events (before any event: how long since it
        was launched)."""
        if self.state is None or not self.process.is_running():
            self._ticker.stop()
            return
        now = time.time()
        self.view.show_stats(self.state, now)
        launched, text = self._launched
        said = f" {self._said[:1].upper()}{self._said[1:]}" if self._said else ""
        doing = following_line(self.state, now) or f"{text}{said} · {duration(now - launched)} elapsed"
        self.status.setText(f"{STOPPING} {doing}" if self.process.stopping else doing)

    def _on_said(self, line: str) -> None:
        if line.strip():
            self._said = line.strip()

    def _on_process_finished(self, code: int, crashed: bool) -> None:
        self._ticker.stop()
        self._preview_asked = False
        self._damaged = resume_damage(self.state)
        self.status.setText(outcome_line(self.state, code, crashed))
        self.runs.refresh()
        self._update_buttons()
        self.message.emit(self.status.text())
        self.setup.show_message("")
        self.show_best_row(score=self.state is not None and self.state.status == "done" and code == 0)
        self._announce_run()

    def show_run(self, state: RunState) -> None:
        """Show a past run (from the Runs tab, or a folder opened there) in the live view; one still running
        (written by a trainer elsewhere: a terminal, other machines over shared storage) is followed."""
        if self.process.is_running():
            return
        self.follower.stop()
        self._preview_asked = False
        self.state = load_run(state.folder, with_events=False)
        tail = EventTail(state.folder / "events.jsonl")
        events = tail.read()
        self.state.apply_all(events)
        self._damaged = resume_damage(self.state)
        if not self.setup.dataset.text().strip() and self.state.dataset is not None:  # say what it trains on
            self.setup.dataset.setText(str(self.state.dataset))
        self.view.clear()
        self.view.log.add_events(events)  # its log, in words
        self._draw()
        if training_elsewhere(self.state):  # written by a trainer elsewhere now: follow it
            self.follower.follow(tail)
        self._say_shown()
        self._update_buttons()
        self.show_best_row(score=False)

    def _say_shown(self) -> None:
        """The status line of a shown run that no trainer of this studio writes."""
        if self.state is None:
            return
        state, smoke = self.state, f" A {SMOKE_TEST}." if is_smoke_test(self.state.preset) else ""
        following = " Following it as it trains." if self.follower.is_following() else ""
        damaged = f" {DAMAGED_RESUME.format(why=self._damaged)}" if self._damaged else ""
        self.status.setText(
            f"{state.folder.name}: {state.status}, {count(state.epochs_done, 'epoch')}.{smoke}{following}{damaged}"
            f"{shown_run_words(state)}"
        )

    def _on_followed(self, events: list[Event]) -> None:
        """New events of the followed run: drawn and logged; its end ends the following."""
        if self.state is None:
            return
        self._note_previews(events)
        self.state.apply_all(events)
        self.view.log.add_events(events)
        self._draw()
        if self.state.status != "running":
            self.follower.stop()
            self._preview_asked = False
        if any(e.kind in ("checkpoint", "finish") for e in events):  # a new best on disk (best.json)
            self.show_best_row(score=False)
        self._say_shown()
        self._update_buttons()
        self._announce_run(events)

    def _announce_run(self, events: list[Event] | None = None) -> None:
        """The shown run's new epochs, ranked checkpoints or end (``None``: its trainer ended) reach every page
        showing it (``Workspace.runs``: the Compare page's candidates and curves)."""
        if self.state is not None and (events is None or any(e.kind in RUN_NEWS for e in events)):
            self.workspace.runs.announce(self.state.folder, what=f"{self.state.folder.name} on the Train page")

    def _update_buttons(self) -> None:
        running, state, can = self.process.is_running(), self.state, not self.needs.text()
        self.buttons["check"].setEnabled(can and not running)
        self.buttons["start"].setEnabled(can and not running)
        self.buttons["stop"].setEnabled(running)
        training = state is not None and (running or self.follower.is_following())
        self.buttons["preview"].setEnabled(training and not self._preview_asked)
        resumable = state is not None and state.resumable and not training_elsewhere(state)
        self.buttons["resume"].setEnabled(can and resumable and not running)
        self.buttons["resume"].setText("Continue from best" if self._damaged else "Resume")
        self.buttons["resume"].setToolTip(CONTINUE_TIP if self._damaged else "")
        self.buttons["open"].setEnabled(state is not None)
        best = state is not None and state.best_checkpoint is not None
        self.buttons["export"].setEnabled(can and best and not running)
        self.buttons["compare"].setEnabled(can and best)

    def _compare(self) -> None:
        """Ask for the Compare page on the shown run (its ranked checkpoints and held-out clips)."""
        if self.state is not None:
            self.compare_requested.emit(self.state.folder)

    def shutdown(self, wait_ms: int = 10_000) -> None:
        """On closing the app: drop a running pre-flight check, ask a running trainer to stop after its epoch, wait
        a little, then end it (the run resumes from its last checkpoint)."""
        self._checks.drop()
        self._estimates.drop()
        self._board.drop()
        if self.process.is_running():
            self.process.stop()
            if not self.process.wait(wait_ms):
                self.process.kill()


def resume_damage(state: RunState | None) -> str | None:
    """How the resumable ``state``'s ``last.ckpt`` is damaged (its zip directory read: milliseconds), else ``None``."""
    from trainer.checkpoints.damage import why_damaged

    if state is None or not state.resumable:
        return None
    return why_damaged(state.folder / "last.ckpt", thorough=False)


DAMAGED_RESUME = (
    "Its last.ckpt is damaged: {why}. It cannot resume: Continue from best goes on from its best intact checkpoint "
    "in a new run beside it."
)
"""The status line's words for a shown run whose resume checkpoint is damaged."""
CONTINUE_TIP = (
    "last.ckpt is damaged: start a new run beside this one from its best intact ranked checkpoint, with its dataset "
    "and settings, for the epochs it had left (voice-studio train --from-best RUN)"
)


def training_missing() -> str:
    """The one line the page shows where this install cannot train (no torch, lightning or numba: an ONNX-only
    install), with the command that adds training; ``""`` where it can. Nothing is imported to find out."""
    line = explain("train", "Training")
    return f"{line}, then restart the studio." if line else ""


def start_label(voice: Voice) -> str:
    """A starting point as the setup lists it: name, file, and whether it is only a smoke test."""
    return f"{smoke_prefix(voice.config.raw)}{voice.name} ({voice.model_path.name})"


def shown_run_words(state: RunState) -> str:
    """What a shown run is, after its status line's first sentence: `` From joe, test preset, 20 epochs planned
    (Resume goes on with these; Start uses the Setup's).``, with its ``--set`` settings where it has any
    (``, set: stft_loss=0``). The Setup keeps the user's choices for a new run, which
    a newcomer took for the shown run's. ``""`` when the run's settings are unknown."""
    if not state.preset:
        return ""
    start = "From scratch" if state.start == "scratch" else f"From {Path(state.start).stem if state.start else '?'}"
    planned = f", {count(state.epochs_total, 'epoch')} planned" if state.epochs_total else ""
    settings = f", set: {', '.join(state.settings)}" if state.settings else ""
    return f" {start}, {state.preset} preset{planned}{settings} (Resume goes on with these; Start uses the Setup's)."


STATUS_LINES = 2
"""Lines the status line always has room for: a message that wraps to a second line (a run's start, Stop, a
resume naming its folder) no longer moves the tabs and charts under it down and back (a click meant for the Runs
tab landed on Score), nor cuts the charts' lower edge."""
STOPPING = "Stopping after this epoch (Stop again to end now); until then:"
"""How the status line begins once Stop was pressed (the trainer finishes its epoch and writes its checkpoint)."""
SETUP_ROWS = 1
"""The setup's rows that stay in view however short the window (the dataset); the rest scrolls. At 1024×640 a shown
finished run leaves room for three (dataset, start, preset and epochs)."""
TICK_MS = 1000
"""How often the status line's clock moves while a trainer runs, milliseconds."""


def _noted(findings: list[Finding]) -> str:
    """``, with 3 warnings (shown under Setup)``: the findings that do not block a start, counted by level
    (``info``, what the run will do, is shown but not counted)."""
    levels = [f.level for f in findings if not f.blocking and f.level != "info"]
    said = [count(levels.count(level), level) for level in dict.fromkeys(levels)]
    return f", with {' and '.join(said)} (shown under Setup)" if said else ""


RUN_NEWS = ("epoch", "checkpoint", "finish")
"""Event kinds that change what other pages show of a run (its curves, its ranked checkpoints, its end)."""
CHECKED = "Checked:"
"""How the status line names a check's result (cleared when a choice changes)."""


def idle_line(dataset: str, why: str = "") -> str:
    """The status line of an idle page, by one rule: the next step with the dataset chosen (``dataset``, as typed;
    ``""``: none yet), after ``why`` the line before went (e.g. "The setup changed since the check")."""
    name = Path(dataset.strip()).name or dataset.strip()
    step = (
        f"press Check to check {name} and the choices, or Start to check and train"
        if dataset.strip()
        else "choose a dataset (the Dataset page's project, or Browse…), then press Check or Start"
    )
    return f"{why}: {step}." if why else f"{step[:1].upper()}{step[1:]}."


BUTTONS = (
    ("check", "Check"),
    ("start", "Start"),
    ("stop", "Stop"),
    ("preview", "Preview now"),
    ("resume", "Resume"),
    ("open", "Open folder"),
    ("export", "Export voice"),
    ("compare", "Compare"),
)
