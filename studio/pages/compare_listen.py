"""The Compare page's Listen tab: render every line by every checked candidate, then listen and switch.

Rendering runs off the GUI thread (``studio.pages.compare_render.Renderer``), with progress and Cancel
(what finished is kept).
Keys, while the tab has focus: 1–9 switch candidate at the same playback position, R plays the line's
reference recording, Space plays or stops. The candidate buttons read in the order the checked candidates are
shown in the Candidates list (a run's: best val_mel first), under short labels (``ep 6``), and key n is the n-th
button from the left: the n-th checked entry from the top; a list sorted again reorders them. What the sound
device says (it cannot play, it plays at its own rate, it stopped mid-clip) is :attr:`ListenTab.device_said`,
shown by the page above its tabs.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QButtonGroup,
    QLabel,
    QListWidget,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from engines.errors import VoiceStudioError
from engines.imports import importing
from engines.pool import EnginePool
from engines.words import count, sentence
from studio.comparison import Comparison
from studio.pages.compare_lines import LinesBox
from studio.pages.compare_render import Renderer
from studio.pages.compare_sources import CandidatesBox, SettingsBox
from studio.state import VoiceLibrary, Workspace
from studio.widgets.clip_player import ClipPlayer
from studio.widgets.clip_view import ClipView
from studio.widgets.compact import MinimumKeepingSplitter
from studio.widgets.elided_label import add_elided_line
from studio.widgets.flow_layout import FlowLayout
from studio.widgets.key_button import KeyButton
from studio.widgets.mel_view import warm_mel
from studio.widgets.task_progress import TaskProgress
from studio.workers import Task
from trainer.evaluate.labels import short_labels


class ListenTab(QWidget):
    """Pickers on the left; the line list, the current clip's waveform and mel, and the candidate buttons.

    Signals:
        device_said(str): why a clip could not be played, or the device's own note (its rate, a stop mid-clip);
            ``""`` when a clip starts playing (what was said before no longer holds).
    """

    device_said = Signal(str)

    def __init__(
        self,
        comparison: Comparison,
        workspace: Workspace,
        library: VoiceLibrary,
        pool: EnginePool,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.comparison, self.workspace, self.pool = comparison, workspace, pool
        self.candidates_box = CandidatesBox(workspace, library)
        self.lines_box = LinesBox(workspace)
        self.settings_box = SettingsBox()
        self.render_button = QPushButton("Render")
        self.render_button.clicked.connect(self.start_render)
        self.progress = TaskProgress()
        self.line_list = QListWidget()
        self.view = ClipView()
        self.buttons = QButtonGroup(self)
        self.buttons_row = FlowLayout()
        """The candidate buttons, left to right, wrapping onto another line where the row runs out."""
        self.status = QLabel(idle_words(comparison))
        self.status.setWordWrap(True)
        self.player = ClipPlayer(self)
        self.renderer = Renderer(comparison, pool, self.progress, self)
        self.slot = self.renderer.slot
        self.current = 0
        """Index of the candidate shown and played (the button ``current + 1`` from the left)."""
        self.reference_shown = False
        """Whether R put the line's recording on screen (no candidate button pressed until one is chosen)."""
        self._render_when_lines = False
        """Set by :meth:`open_run`: render as soon as the run's held-out lines are read."""
        self._warm: Task | None = None
        """librosa and pyloudnorm imported on a worker when the tab is first shown (no wait on first draw or play)."""
        self._layout()
        self._connect()

    def _layout(self) -> None:
        keys = QLabel("Keys: 1–9 candidate (same position) · R reference recording · Space play/stop")
        keys.setWordWrap(True)  # a narrow window wraps it rather than widening the page
        buttons = QWidget()
        buttons.setLayout(self.buttons_row)
        buttons.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        splitter = MinimumKeepingSplitter()
        splitter.addWidget(_column((self.candidates_box, 1), self.lines_box, self.settings_box, self.render_button))
        splitter.addWidget(_column((self.line_list, 1), (self.view, 3), buttons, keys))
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([360, 800])
        layout = QVBoxLayout(self)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        policy = self.progress.sizePolicy()
        policy.setRetainSizeWhenHidden(True)  # the row is kept: nothing above it moves when a render starts
        self.progress.setSizePolicy(policy)

    def _connect(self) -> None:
        self.candidates_box.selection_changed.connect(self._on_selection)
        self.candidates_box.message.connect(self.status.setText)
        self.lines_box.message.connect(self._on_lines_failed)
        self.lines_box.lines_chosen.connect(self._on_lines)
        box = self.settings_box
        for signal in (box.seed.valueChanged, box.noiseless.toggled, box.length_scale.valueChanged):
            signal.connect(lambda *_: self.comparison.set_settings(box.settings()))
        self.comparison.events.changed.connect(self._on_changed)
        self.comparison.events.rendered_changed.connect(self._on_rendered_changed)
        self.renderer.message.connect(self.status.setText)
        self.renderer.candidate_failed.connect(self._on_candidate_failed)
        self.line_list.currentRowChanged.connect(self._on_line)
        self.view.seek_requested.connect(self.seek)
        self.player.message.connect(self.device_said)
        self.player.position_changed.connect(self.view.set_position)
        keys: dict[str, Callable[[], None]] = {"R": self.play_reference, "Space": self.toggle_play}
        keys.update({str(n): partial(self.select_candidate, n - 1) for n in range(1, 10)})
        for key, slot in keys.items():
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)  # only while the tab has focus
            shortcut.activated.connect(slot)

    # --- what is compared -------------------------------------------------
    def open_run(self, run_dir: Path) -> None:
        """Check a run's ranked checkpoints and start voice (listed if need be), read its held-out clips as the
        lines, then render (instant when cached). A failure is a status line."""
        from trainer.checkpoints.best import ranked_checkpoints

        run_dir = Path(run_dir)
        candidates = self.candidates_box.add_run(run_dir)
        try:
            files = {r.path.absolute() for r in ranked_checkpoints(run_dir)}
        except VoiceStudioError as exc:
            self.status.setText(str(exc))
            return
        starts = {c.model_path.absolute() for c in candidates if c.label.startswith("start")}
        self.candidates_box.check_only(files | starts)
        self._render_when_lines = True
        self.lines_box.load_held_out(run_dir)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Shown the first time: import librosa on a worker; with no lines chosen, read the run previews' lines
        (off the GUI thread)."""
        super().showEvent(event)
        if self._warm is None:
            self._warm = Task(_warm_up, self).start()
        if not self.comparison.lines and not self.lines_box.slot.busy():
            self.lines_box.load_previews()

    def _on_lines(self, lines: list) -> None:
        self.comparison.set_lines(lines)
        if self._render_when_lines:
            self._render_when_lines = False
            self.start_render()

    def _on_lines_failed(self, text: str) -> None:
        """A source that failed or holds nothing: no lines (not those of the source before), and why."""
        self._render_when_lines = False
        self.comparison.set_lines([])
        self.status.setText(text)

    def _on_selection(self) -> None:
        """The checked candidates, compared in the order the list shows them (the buttons' and keys' order)."""
        entries = self.candidates_box.entries(checked_only=True)
        runs = {e.run for e in entries}
        run = runs.pop() if len(runs) == 1 else None
        self.comparison.set_candidates([e.candidate for e in entries], run=run)

    def _on_changed(self, _comparison: Comparison) -> None:
        """Selection or settings changed: renders no longer selected are gone, and so is a render of the old
        selection; the status says what is rendered now."""
        stopped = self.renderer.drop()
        total = len(self.comparison.candidates) * len(self.comparison.lines)
        done = total - self.comparison.missing()
        now = _rendered_words(done, total) if total else idle_words(self.comparison)
        self.status.setText(f"Render stopped: the selection changed. {now}" if stopped else now)
        self.player.stop()
        self.current = min(self.current, max(0, len(self.comparison.candidates) - 1))
        self._fill_lines()
        self._fill_buttons()
        self._show()

    def _fill_lines(self) -> None:
        row = max(0, self.line_list.currentRow())
        self.line_list.blockSignals(True)
        self.line_list.clear()
        for line in self.comparison.lines:
            mark = "  ♪" if line.reference is not None else ""
            add_elided_line(self.line_list, f"{line.name}{mark}  —  {line.text}")
        self.line_list.setCurrentRow(min(row, self.line_list.count() - 1))
        self.line_list.blockSignals(False)

    def _fill_buttons(self) -> None:
        for button in self.buttons.buttons():
            self.buttons.removeButton(button)
            self.buttons_row.removeWidget(button)  # out of the row now, not when the deletion comes round
            button.hide()
            button.deleteLater()
        candidates = self.comparison.candidates
        shorts = short_labels([c.label for c in candidates])
        for index, (candidate, short) in enumerate(zip(candidates, shorts, strict=True)):
            failed = self.renderer.failed.get(candidate.label)
            button = KeyButton(str(index + 1) if index < 9 else "", candidate.label, failed, short=short)
            button.setCheckable(True)
            button.setChecked(index == self.current)
            button.clicked.connect(lambda _checked=False, i=index: self.select_candidate(i))
            self.buttons.addButton(button, index)
            self.buttons_row.addWidget(button)

    # --- rendering --------------------------------------------------------
    def start_render(self) -> Task | None:
        """Render every line by every checked candidate off the GUI thread (typed lines are taken as shown now);
        returns the task, or ``None`` with a status saying why nothing started."""
        if not self.take_typed_lines():
            return None
        return self.renderer.start()

    def take_typed_lines(self) -> bool:
        """Where the lines are typed, take them as shown now; ``False`` (and a status line) when they are empty."""
        return self.lines_box.source_key() != "typed" or self._take_typed()

    def _take_typed(self) -> bool:
        try:
            self.comparison.set_lines(self.lines_box.typed())
        except VoiceStudioError as exc:
            self.status.setText(str(exc))
            return False
        return True

    def _on_candidate_failed(self, _label: str, _why: str) -> None:
        """A candidate cannot be rendered: its button is marked (tooltip: why), and so is its clip's title."""
        self._fill_buttons()
        self._show()

    def _on_rendered_changed(self, _renders: dict) -> None:
        self._show()

    # --- listening --------------------------------------------------------
    def clip(self, candidate: int | None = None, line: int | None = None) -> tuple[np.ndarray, int] | None:
        """The render of candidate and line (default: the current ones) as ``(audio [N] float32, Hz)``, or None."""
        candidates, row = self.comparison.candidates, self.line_list.currentRow() if line is None else line
        index = self.current if candidate is None else candidate
        if row < 0 or index >= len(candidates):
            return None
        rendered = self.comparison.rendered.get((candidates[index].label, row))
        return None if rendered is None else (rendered.audio, rendered.sample_rate)

    def select_candidate(self, index: int) -> None:
        """Show candidate ``index`` (0-based) and, when playing, go on with it from the same position."""
        candidates = self.comparison.candidates
        if index >= len(candidates):
            self.status.setText(f"There is no candidate {index + 1}")
            return
        self.current = index
        self._show()
        clip = self.clip()
        if clip is None:
            self.player.stop()
            return
        try:
            self.player.switch(*clip)
        except VoiceStudioError as exc:
            self.device_said.emit(str(exc))

    def toggle_play(self) -> None:
        """Space: stop, or play the current clip from where it stopped (from the start once at its end); while R's
        recording is shown, that recording from its start."""
        if self.player.is_playing():
            self.player.stop()
            return
        if self.reference_shown:
            self.play_reference()
            return
        clip = self.clip()
        if clip is None:
            self.status.setText("Nothing to play: render this line first")
            return
        self.player.switch(*clip)
        start = self.player.position_s()
        self.play_clip(*clip, start if start < self.player.duration_s() else 0.0)

    def play_reference(self) -> None:
        """R: play the current line's recording from its start, or say there is none."""
        row, lines = self.line_list.currentRow(), self.comparison.lines
        if row < 0:
            self.status.setText("Choose a line first")
            return
        try:
            reference = lines[row].reference_audio() if lines[row].reference is not None else None
        except (VoiceStudioError, OSError) as exc:
            self.status.setText(f"Cannot read the reference recording: {exc}")
            return
        if reference is None:
            self.status.setText(sentence(f"{lines[row].name} has no reference recording"))
            return
        self.reference_shown = True
        self._press(None)
        self.view.set_clip(reference[0], reference[1], f"Reference recording — {lines[row].name}")
        self.play_clip(reference[0], reference[1], 0.0)

    def seek(self, seconds: float) -> None:
        """Move the play position (playing or not) to ``seconds``."""
        self.player.seek(seconds)

    def play_clip(self, audio: np.ndarray, rate: int, start_s: float = 0.0) -> bool:
        """Play ``audio`` (float32 ``[N]``, ``rate`` Hz) from ``start_s``; returns whether it plays. Why it cannot
        (no output device: "Cannot play audio: …") is :attr:`device_said`, as is ``""`` before it plays."""
        self.device_said.emit("")
        try:
            self.player.play(audio, rate, start_s=start_s)
        except VoiceStudioError as exc:
            self.device_said.emit(str(exc))
            return False
        return True

    def _on_line(self, _row: int) -> None:
        self.player.stop()
        self._show()
        clip = self.clip()
        if clip is not None:
            self.player.switch(*clip)
        self.player.seek(0.0)

    def _press(self, index: int | None) -> None:
        """Show button ``index`` (0-based) pressed and no other; ``None``: none (the reference is on screen)."""
        self.buttons.setExclusive(False)  # lets "none" be shown
        for button in self.buttons.buttons():
            button.setChecked(self.buttons.id(button) == index)
        self.buttons.setExclusive(True)

    def _show(self) -> None:
        """The current candidate's clip of the current line on screen, its button pressed."""
        self.reference_shown = False
        self._press(self.current)
        candidates, row = self.comparison.candidates, self.line_list.currentRow()
        if not candidates or row < 0:
            self.view.set_clip(None, 22050, "No clip: check candidates and choose lines")
            return
        clip, label = self.clip(), candidates[min(self.current, len(candidates) - 1)].label
        title = f"{self.current + 1} · {label} — {self.comparison.lines[row].name}"
        failed = self.renderer.failed.get(candidates[min(self.current, len(candidates) - 1)].label)
        if clip is None:
            self.view.set_clip(
                None, 22050, f"{title} (cannot be rendered: {failed})" if failed else f"{title} (not rendered yet)"
            )
        else:
            self.view.set_clip(clip[0], clip[1], title)

    def shutdown(self) -> None:
        """Stop playing, drop a running render (what it finished is cached) and strengths being written."""
        self.player.stop()
        self.renderer.drop()
        self.candidates_box.shutdown()


def _warm_up(_state) -> None:
    """What the GUI thread would otherwise wait for on the first clip: librosa's first mel spectrogram (about 2 s)
    and pyloudnorm's import (scipy, about 1 s), done on a worker thread."""
    warm_mel()
    try:
        with importing("pyloudnorm"):
            import pyloudnorm  # noqa: F401 - imported for its side effect: loaded before the first play
    except ImportError:  # the player says so when it plays
        pass


def _column(*parts: QWidget | tuple[QWidget, int]) -> QWidget:
    """A widget holding ``parts`` one under the other (``(widget, stretch)`` or a widget)."""
    column = QWidget()
    layout = QVBoxLayout(column)
    layout.setContentsMargins(0, 0, 0, 0)
    for part in parts:
        widget, stretch = part if isinstance(part, tuple) else (part, 0)
        layout.addWidget(widget, stretch)
    return column


def idle_words(comparison: Comparison) -> str:
    """What the Listen tab says before there is anything to render: only the steps still to take, by one rule
    (``Check candidates, choose lines, then Render``; ``Choose lines, then Render`` once candidates are checked)."""
    steps = [
        step
        for step, missing in (("check candidates", not comparison.candidates), ("choose lines", not comparison.lines))
        if missing
    ]
    said = ", ".join([*steps, "then Render"]) if steps else "Render"
    return said[:1].upper() + said[1:]


def _rendered_words(done: int, total: int) -> str:
    """``"1 clip not rendered yet: press Render"``, ``"2 clips not rendered yet (1 of 3 rendered): press Render"``,
    ``"3 clips rendered"``: what the Listen tab says about ``done`` of ``total`` clips."""
    missing = total - done
    if not missing:
        return f"{count(total, 'clip')} rendered"
    so_far = f" ({done} of {total} rendered)" if done else ""
    return f"{count(missing, 'clip')} not rendered yet{so_far}: press Render"
