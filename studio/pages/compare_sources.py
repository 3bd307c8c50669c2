"""The Listen tab's pickers: which candidates, which lines, and the render settings.

``trainer.evaluate.lines`` is imported inside the actions (reading a run's candidates may load torch),
so opening the studio stays light.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from engines.errors import VoiceStudioError
from studio.comparison import unique_label
from studio.state import VoiceLibrary, Workspace
from studio.workers import Task, TaskSlot
from trainer.evaluate.render import Candidate, RenderSettings


def reason(exc: BaseException) -> str:
    """One readable line for a failure: ours carry their own words; others are named by their type."""
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else ""
    return text if isinstance(exc, VoiceStudioError) else f"{type(exc).__name__}: {text}"


@dataclass(frozen=True, kw_only=True)
class Entry:
    """A listed candidate and the run it was added from (``None``: a loose voice file)."""

    candidate: Candidate
    run: Path | None = None


class CandidatesBox(QGroupBox):
    """A checkable list of candidates: the checked ones are compared.

    Signals:
        selection_changed(): an entry was added, removed, checked or unchecked.
        message(str): a readable line about what failed (a run that cannot be read).
    """

    selection_changed = Signal()
    message = Signal(str)

    def __init__(self, workspace: Workspace, library: VoiceLibrary, parent: QWidget | None = None) -> None:
        super().__init__("Candidates", parent)
        self.workspace, self.library = workspace, library
        self.list = QListWidget()
        self.list.itemChanged.connect(lambda _item: self.selection_changed.emit())
        self.add_run_button = QPushButton("Add run…")
        self.add_run_button.clicked.connect(self._choose_run)
        self.add_file_button = QPushButton("Add voice file…")
        self.add_file_button.clicked.connect(self._choose_files)
        self.voices = QComboBox()
        self.add_voice_button = QPushButton("Add")
        self.add_voice_button.clicked.connect(self._add_library_voice)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.remove_selected)
        library.events.changed.connect(self._on_library_changed)
        self._on_library_changed(library.voices)
        self._layout()

    def _layout(self) -> None:
        files = QHBoxLayout()
        for button in (self.add_run_button, self.add_file_button, self.remove_button):
            files.addWidget(button)
        voices = QHBoxLayout()
        voices.addWidget(QLabel("Voice:"))
        voices.addWidget(self.voices, 1)
        voices.addWidget(self.add_voice_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list, 1)
        layout.addLayout(files)
        layout.addLayout(voices)

    def entries(self, checked_only: bool = False) -> list[Entry]:
        """The listed entries in order (only the checked ones with ``checked_only``)."""
        items = [self.list.item(i) for i in range(self.list.count())]
        return [
            item.data(Qt.ItemDataRole.UserRole)
            for item in items
            if not checked_only or item.checkState() == Qt.CheckState.Checked
        ]

    def add(self, candidates: list[Candidate], run: Path | None = None, checked: bool = True) -> list[Candidate]:
        """List ``candidates`` whose files are not listed yet (a taken label gets " (2)"…); returns those listed."""
        files = {e.candidate.model_path.absolute() for e in self.entries()}
        added = []
        self.list.blockSignals(True)
        for candidate in candidates:
            if candidate.model_path.absolute() in files:
                continue
            label = unique_label(candidate.label, {e.candidate.label for e in self.entries()})
            entry = Entry(candidate=Candidate(label=label, model_path=candidate.model_path), run=run)
            item = QListWidgetItem(label)
            item.setToolTip(str(candidate.model_path))
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
            item.setData(Qt.ItemDataRole.UserRole, entry)
            self.list.addItem(item)
            files.add(candidate.model_path.absolute())
            added.append(entry.candidate)
        self.list.blockSignals(False)
        self.selection_changed.emit()
        return added

    def check_only(self, files: set[Path]) -> None:
        """Check the entries of ``files`` and uncheck every other."""
        self.list.blockSignals(True)
        for i in range(self.list.count()):
            item = self.list.item(i)
            chosen = item.data(Qt.ItemDataRole.UserRole).candidate.model_path.absolute() in files
            item.setCheckState(Qt.CheckState.Checked if chosen else Qt.CheckState.Unchecked)
        self.list.blockSignals(False)
        self.selection_changed.emit()

    def add_run(self, run_dir: Path) -> list[Candidate]:
        """List a run's candidates (``trainer.evaluate.lines.run_candidates``); a failure is a ``message``."""
        from trainer.evaluate.lines import run_candidates

        try:
            candidates = run_candidates(Path(run_dir), self.workspace.voices_dir)
        except (VoiceStudioError, OSError) as exc:
            self.message.emit(f"Cannot read the run {run_dir}: {exc}")
            return []
        if not candidates:
            self.message.emit(f"{run_dir}: the run has no checkpoint to compare yet")
            return []
        return self.add(candidates, run=Path(run_dir))

    def add_files(self, paths: list[Path]) -> list[Candidate]:
        """List ``.ckpt``/``.onnx`` files as candidates, each labelled by its file name; others are a ``message``."""
        candidates, refused = [], []
        for path in map(Path, paths):
            try:
                candidates.append(Candidate(label=path.stem, model_path=path))
            except VoiceStudioError as exc:
                refused.append(str(exc))
        if refused:
            self.message.emit("; ".join(refused))
        return self.add(candidates)

    def remove_selected(self) -> None:
        """Take the selected entries out of the list."""
        for item in self.list.selectedItems():
            self.list.takeItem(self.list.row(item))
        self.selection_changed.emit()

    def _choose_run(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a training run", str(self.workspace.runs_dir))
        if folder:
            self.add_run(Path(folder))

    def _choose_files(self) -> None:
        start = str(self.workspace.voices_dir)
        paths, _ = QFileDialog.getOpenFileNames(self, "Add voice files", start, "Voices (*.onnx *.ckpt)")
        if paths:
            self.add_files([Path(p) for p in paths])

    def _add_library_voice(self) -> None:
        voice = self.voices.currentData()
        if voice is not None:
            self.add([Candidate(label=voice.name, model_path=voice.model_path)])

    def _on_library_changed(self, voices: list) -> None:
        self.voices.clear()
        for voice in voices:
            self.voices.addItem(voice.name, voice)
        self.add_voice_button.setEnabled(bool(voices))


SOURCES = {
    "previews": "Run preview lines",
    "held_out": "Held-out clips of a run or dataset…",
    "typed": "Typed text",
    "file": "Lines file…",
}
"""The line sources, by key, as the picker shows them."""


class LinesBox(QGroupBox):
    """Where the lines come from: the run previews' lines, held-out clips (with recordings), typed text, a file.

    Signals:
        lines_chosen(list): the lines of a source just chosen (``trainer.evaluate.lines.Line``).
        message(str): a readable line about what failed.
    """

    lines_chosen = Signal(list)
    message = Signal(str)

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__("Lines", parent)
        self.workspace = workspace
        self.source = QComboBox()
        for key, text in SOURCES.items():
            self.source.addItem(text, key)
        self.source.activated.connect(self._on_source)
        self.choose = QPushButton("Choose…")
        self.choose.clicked.connect(lambda: self._on_source(self.source.currentIndex()))
        self.text = QPlainTextEdit()
        self.text.setPlaceholderText("One line to render per line of text")
        self.text.setMaximumHeight(80)
        self.text.setVisible(False)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.slot = TaskSlot()
        self._source, self._loading = "previews", "previews"
        row = QHBoxLayout()
        row.addWidget(self.source, 1)
        row.addWidget(self.choose)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.text)
        layout.addWidget(self.summary)

    def source_key(self) -> str:
        return str(self.source.currentData())

    def typed(self) -> list:
        """The typed text's lines (``trainer.evaluate.lines.typed_lines``); raises ``LinesError`` when empty."""
        from trainer.evaluate.lines import typed_lines

        return typed_lines(self.text.toPlainText())

    def load_previews(self) -> Task:
        """Choose the run previews' lines (read off the GUI thread: their module loads torch)."""
        from trainer.evaluate.lines import preview_lines

        return self._load("previews", preview_lines, "the run previews' lines")

    def load_held_out(self, folder: Path) -> Task:
        """Choose the held-out clips of a run folder or dataset project (their recordings are the references)."""
        from trainer.evaluate.lines import held_out_lines

        return self._load("held_out", lambda: held_out_lines(Path(folder)), f"held-out clips of {Path(folder).name}")

    def load_file(self, path: Path) -> Task:
        """Choose the lines of a text file or an LJSpeech ``metadata.csv``."""
        from trainer.evaluate.lines import read_lines_file

        return self._load("file", lambda: read_lines_file(Path(path)), Path(path).name)

    def _load(self, source: str, read: Callable[[], list], what: str) -> Task:
        """Read lines on a worker thread; ``lines_chosen`` once read, ``message`` if not."""
        self._loading = source
        self._set_source(source)
        self.summary.setText(f"Reading {what}…")
        task = Task(lambda _state: read(), self)
        task.done.connect(lambda lines: self._chosen(lines, what))
        task.failed.connect(lambda exc: self._failed(f"Cannot read {what}: {reason(exc)}"))
        return self.slot.start(task)

    def _failed(self, text: str) -> None:
        self.summary.setText(text)
        self.message.emit(text)

    def _chosen(self, lines: list, what: str) -> None:
        with_reference = sum(line.reference is not None for line in lines)
        extra = f", {with_reference} with a recording" if with_reference else ""
        self.summary.setText(f"{len(lines)} lines: {what}{extra}")
        self.lines_chosen.emit(lines)

    def choose_typed(self, text: str | None = None) -> None:
        """Take the typed text as the source (read when Render is pressed); ``text`` replaces what is typed."""
        self._set_source("typed")
        if text is not None:
            self.text.setPlainText(text)
        self.summary.setText("The typed lines are rendered when you press Render")
        self.text.setFocus()

    def _set_source(self, key: str) -> None:
        """Show ``key`` as the source; lines still being read from another source will not arrive."""
        if self.slot.busy() and key != self._loading:
            self.slot.drop()
        self._source = key
        self.source.setCurrentIndex(self.source.findData(key))
        self.text.setVisible(key == "typed")
        self.choose.setVisible(key in ("held_out", "file"))

    def _on_source(self, _index: int) -> None:
        key = self.source_key()
        if key == "previews":
            self.load_previews()
        elif key == "typed":
            self.choose_typed()
        elif key == "held_out":
            start = str(self.workspace.runs_dir)
            folder = QFileDialog.getExistingDirectory(self, "Held-out clips of a run or dataset project", start)
            if not folder:
                self._set_source(self._source)  # cancelled: the source shown stays the one in use
                return
            self.load_held_out(Path(folder))
        else:
            path, _ = QFileDialog.getOpenFileName(self, "Lines file", "", "Text or metadata (*.txt *.csv);;All (*)")
            if not path:
                self._set_source(self._source)
                return
            self.load_file(Path(path))


class SettingsBox(QGroupBox):
    """Seed or "Noise 0", and length_scale (0 shows "voice's own": each voice's default)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Settings", parent)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.noiseless = QCheckBox("Noise 0")
        self.noiseless.setToolTip("noise_scale = noise_w = 0: no noise, the same audio whatever the seed")
        self.noiseless.toggled.connect(lambda on: self.seed.setEnabled(not on))
        self.length_scale = QDoubleSpinBox()
        self.length_scale.setRange(0.0, 3.0)
        self.length_scale.setSingleStep(0.05)
        self.length_scale.setSpecialValueText("voice's own")
        self.length_scale.setValue(0.0)
        form = QFormLayout(self)
        seed_row = QHBoxLayout()
        seed_row.addWidget(self.seed, 1)
        seed_row.addWidget(self.noiseless)
        form.addRow("Seed", seed_row)
        form.addRow("length_scale", self.length_scale)

    def settings(self) -> RenderSettings:
        """The settings as shown."""
        length = self.length_scale.value() or None
        if self.noiseless.isChecked():
            return RenderSettings.noiseless(length_scale=length)
        return RenderSettings(length_scale=length, seed=self.seed.value())
