"""The Dataset page's Record tab: a recording booth on the project shown (``trainer.dataset.recording``).

The booth (Qt-free) captures in PortAudio's thread; a ``QTimer`` polls it every ``POLL_MS`` (33 fps) to take in
the audio, redraw the meter and notice an auto-stop. Choosing the prompts (the phonemizer, 0.2 s of selection)
and checking a take (the recognizer: seconds) run on ``studio.workers.Task`` threads. Keys: Space record/stop,
Enter accept, R retake, → skip, ← back, M measure the room tone again (offered when it held speech or was loud).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import QComboBox, QLabel, QPushButton, QVBoxLayout, QWidget

from engines.words import count
from studio.widgets.flow_layout import flow_row
from studio.widgets.level_meter import LevelMeter
from studio.workers import Task, TaskSlot
from trainer.time_left import duration_text

POLL_MS = 30
"""Milliseconds between polls of the booth: 33 redraws a second."""
PROMPTS = 50
"""Prompts chosen per session (``trainer.dataset.prompts``); start the booth again for the next ones."""
RATES = (16000, 22050, 44100, 48000)
"""Capture rates offered besides the device's own, Hz (takes are resampled to the project's voice's)."""
KEYS = "Space record/stop · Enter accept · R retake · → skip · ← back · M measure the room again"
ALL_RECORDED = "Every line of the studio's prompts is recorded already: nothing left to prompt."
START = "Start the booth: 3 s of room tone are measured first; stay quiet."


def choose_prompts(project, count: int = PROMPTS) -> tuple[list[str], list[str]]:
    """The next ``count`` prompts of the shipped corpus for ``project`` and the summary lines (coverage, minutes)."""
    from trainer.dataset.prompts.plan import for_project, summary

    selection, done = for_project(project, count)
    return [p.text for p in selection.chosen], summary(selection, done)[:2]


def make_booth(project, prompts: list[str], device: int | str | None, rate: int | None):
    """A ``Booth`` on ``device`` at ``rate`` Hz (``None``: the default input, its own rate)."""
    from trainer.dataset.recording.booth import Booth
    from trainer.dataset.recording.capture import Capture

    return Booth(project, prompts, Capture(device, rate))


class RecordTab(QWidget):
    """Device and rate, Start/Stop booth, the prompt large, the meter, the take's findings and the keys.

    Signals:
        clip_written(str): a take was accepted into the project (its clip id).
        message(str): a notice for the status bar.
    """

    clip_written = Signal(str)
    message = Signal(str)

    def __init__(self, project: Callable[[], Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._project = project
        self.booth: Any = None
        self.check: Any = None
        self._task: Task | None = None
        self._recounting = TaskSlot()
        """Reading the project's coverage again after an accepted take (a later take's, another project shown or the
        tab hidden drops it; the booth stopped does not: its line is still the project's)."""
        self._checked_take = 0
        self._takes = 0
        self._accepted_s = 0.0
        """Seconds of the takes accepted since the booth started (the coverage lines were measured before)."""
        self._accepted = 0
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        self._build()
        self._keys()
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # a click on the tab gives it the keys

    def _build(self) -> None:
        self.devices = QComboBox()
        self.rates = QComboBox()
        self.rates.addItem("device rate", None)
        for rate in RATES:
            self.rates.addItem(f"{rate:,} Hz", rate)
        self.start_button = QPushButton("Start booth")
        self.start_button.clicked.connect(self.toggle_booth)
        self.room_button = QPushButton("Measure room again")
        self.room_button.setToolTip("Measure the room tone again (3 s: stay quiet); a take in review is dropped")
        self.room_button.clicked.connect(self.measure_room)
        self.room_button.setVisible(False)
        self.prompt = QLabel(START)
        self.prompt.setWordWrap(True)
        self.prompt.setAlignment(Qt.AlignmentFlag.AlignCenter)
        font = QFont(self.prompt.font())
        font.setPointSizeF(font.pointSizeF() * 2.2)
        self.prompt.setFont(font)
        self.meter = LevelMeter()
        self.status = QLabel()
        self.coverage = QLabel()
        self.coverage.setWordWrap(True)
        self.findings = QLabel()
        self.findings.setWordWrap(True)
        self.findings.setMinimumHeight(3 * self.findings.fontMetrics().lineSpacing())  # a finding and its fix
        layout = QVBoxLayout(self)
        layout.addWidget(flow_row(QLabel("Input:"), self.devices, self.rates, self.start_button, self.room_button))
        layout.addWidget(self.prompt, 1)
        layout.addWidget(self.meter)
        layout.addWidget(self.status)
        layout.addWidget(self.findings)
        layout.addWidget(self.coverage)
        layout.addWidget(QLabel(KEYS))

    def _keys(self) -> None:
        for key, slot in (
            (Qt.Key.Key_Space, self.record_or_stop),
            (Qt.Key.Key_Return, self.accept),
            (Qt.Key.Key_Enter, self.accept),
            (Qt.Key.Key_R, self.retake),
            (Qt.Key.Key_Right, self.skip),
            (Qt.Key.Key_Left, self.back),
            (Qt.Key.Key_M, self.measure_room),
        ):
            shortcut = QShortcut(QKeySequence(key), self, slot)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)

    def list_devices(self) -> None:
        """Fill the device list (PortAudio's inputs; the default first)."""
        from trainer.dataset.recording.capture import RecordingError, input_devices

        self.devices.clear()
        self.devices.addItem("default input", None)
        try:
            for device in input_devices():
                self.devices.addItem(f"{device.name} ({device.rate:,} Hz)", device.name)
        except RecordingError as exc:
            self.status.setText(str(exc))

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self.devices.count() == 0:
            self.list_devices()
        super().showEvent(event)

    # --- the booth --------------------------------------------------------------
    def toggle_booth(self) -> None:
        if self.booth is not None:
            self.close_booth()
            return
        project = self._project()
        if project is None:
            self.status.setText("Open or make a project first (New project…).")
            return
        self.start_button.setEnabled(False)
        self.status.setText("Choosing prompts for coverage…")
        self._task = Task(lambda state: choose_prompts(project))
        self._task.done.connect(lambda result: self._open(project, *result))
        self._task.failed.connect(self._failed)
        self._task.start()

    def _open(self, project, prompts: list[str], summary: list[str]) -> None:
        from engines.errors import VoiceStudioError

        self.start_button.setEnabled(True)
        self.coverage.setText("\n".join(summary))
        if not prompts:  # nothing to record: no booth, no microphone opened for it
            self.status.setText(ALL_RECORDED)
            return
        try:
            booth = make_booth(project, prompts, self.devices.currentData(), self.rates.currentData())
            booth.open()
        except VoiceStudioError as exc:
            self.status.setText(str(exc))
            return
        self.booth = booth
        self._accepted, self._accepted_s = 0, 0.0
        self.start_button.setText("Stop booth")
        self.room_button.setVisible(True)
        self.timer.start()
        self.setFocus()  # the keys go to the booth, not to a button or list Space would press or open
        self._show()

    def _failed(self, exc: BaseException) -> None:
        self.start_button.setEnabled(True)
        self.status.setText(str(exc))

    def close_booth(self) -> None:
        """Stop the booth (its takes accepted are kept); a recount already running still says what the project has
        recorded, and the status says the booth is stopped with what this session accepted."""
        self.timer.stop()
        if self.booth is not None:
            self.booth.close()
            self.status.setText("stopped" + self._accepted_said())
        self.booth, self.check = None, None
        self.start_button.setText("Start booth")
        self.room_button.setVisible(False)

    def project_changed(self, folder) -> None:
        """The page shows the project in ``folder``: a booth open on another stops (its takes would land there)."""
        if self.booth is None or Path(folder).resolve() == Path(self.booth.project.folder).resolve():
            return
        self._recounting.drop()  # its line would be the other project's
        self.close_booth()
        self.prompt.setText(START)
        self.findings.setText("")
        self.coverage.setText("")
        self.status.setText(f"The booth stopped: the project shown is now {folder}.")

    def hideEvent(self, event) -> None:  # noqa: N802 - Qt override
        self._recounting.drop()  # the page may be going away
        self.close_booth()  # nothing records while the tab is not in sight
        super().hideEvent(event)

    def poll(self) -> None:
        """Take in the audio captured, redraw the meter; check a take that has just stopped."""
        from trainer.dataset.recording.booth import REVIEW, ROOM

        if self.booth is None:
            return
        before = self.booth.phase
        self.meter.set_levels(self.booth.poll())
        if before != REVIEW and self.booth.phase == REVIEW:
            self._check_take()
        if before == ROOM != self.booth.phase and self.booth.room_doubt:
            self.findings.setText(f"Warning: {self.booth.room_doubt} (M, or Measure room again).")
        self._show()

    def _check_take(self) -> None:
        self._takes += 1
        take, booth, self.check = self._takes, self.booth, None
        self.findings.setText("Checking the take…")
        self._task = Task(lambda state: booth.check())
        self._task.done.connect(lambda check: self._checked(take, check))
        self._task.failed.connect(self._failed)
        self._task.start()

    def _checked(self, take: int, check) -> None:
        if take != self._takes or self.booth is None:
            return  # a retake or another prompt came first
        self.check = check
        heard = [f"(The recognizer heard {check.heard!r}.)"] if check.heard and "misread" not in check.kinds else []
        notes = [f"({check.note})"] if check.note else []
        self.findings.setText("\n".join([*check.lines(), *heard, *notes, "Enter accepts, R retakes."]))

    def _show(self) -> None:
        booth = self.booth
        if booth is None:
            return
        prompt = booth.prompt
        self.prompt.setText(prompt if prompt is not None else "Every prompt of this session is done.")
        floor = "measuring…" if booth.noise_floor_dbfs is None else f"{booth.noise_floor_dbfs:.0f} dBFS"
        lost = booth.capture.lost
        said = f"{booth.phase} · prompt {min(booth.index + 1, len(booth.prompts))} of {len(booth.prompts)}"
        said += f" · noise floor {floor}" + (f" · {lost:,} frames lost (the window stalled)" if lost else "")
        self.status.setText(said + self._accepted_said())

    def _accepted_said(self) -> str:
        """`` · accepted now: 2 takes (7 s)`` for the takes this session accepted, or ``""`` for none."""
        if not self._accepted:
            return ""
        return f" · accepted now: {count(self._accepted, 'take')} ({duration_text(self._accepted_s)})"

    # --- keys -------------------------------------------------------------------
    def record_or_stop(self) -> None:
        from trainer.dataset.recording.booth import RECORDING

        if self.booth is None:
            return
        if self.booth.phase == RECORDING:
            self.booth.stop()
            self.poll_review()
        else:
            self.booth.record()
            self.findings.setText("")
        self._show()

    def poll_review(self) -> None:
        """A take stopped by hand is checked as one that stopped itself."""
        self._check_take()

    def accept(self) -> None:
        if self.booth is None or self.check is None:
            return
        self._accepted_s += len(self.booth.take) / self.booth.rate
        entry = self.booth.accept(self.check)
        self._accepted += 1
        self.check = None
        self.findings.setText(f"Saved {entry.id}.")
        self.clip_written.emit(entry.id)
        self._show()
        self._recount()

    def _recount(self) -> None:
        """Say again what the project has recorded (the coverage's first line) after a take was accepted; the
        second line, the session's prompts, stays as chosen when the booth started."""
        from trainer.dataset.prompts.plan import where_recording_stands

        project = self._project()
        if project is None:
            return
        task = Task(lambda state: where_recording_stands(project))
        task.done.connect(self._recounted)
        task.failed.connect(lambda exc: self._recounted(f"recorded: not counted again ({exc})"))
        self._recounting.start(task)

    def _recounted(self, line: str) -> None:
        lines = self.coverage.text().split("\n")
        self.coverage.setText("\n".join([line, *lines[1:]]))

    def retake(self) -> None:
        if self.booth is not None:
            self._takes += 1  # a check still running describes the old take
            self.check = None
            self.booth.retake()
            self.findings.setText("")
            self._show()

    def measure_room(self) -> None:
        """Measure the room tone again (a take being recorded or in review is dropped)."""
        from trainer.dataset.recording.booth import RECORDING

        if self.booth is None:
            return
        if self.booth.phase == RECORDING:
            self.booth.stop()
        self._move(self.booth.measure_room)

    def skip(self) -> None:
        self._move(self.booth.skip if self.booth else None)

    def back(self) -> None:
        self._move(self.booth.back if self.booth else None)

    def _move(self, step) -> None:
        if step is not None:
            self._takes += 1
            self.check = None
            step()
            self.findings.setText("")
            self._show()
