"""The Listen tab's pickers of candidates and of render settings (the lines: ``compare_lines``).

``trainer.evaluate.lines`` is imported inside the actions, so opening the studio stays light.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
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
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from engines.errors import VoiceStudioError
from studio.pages.compare_strength import StrengthRow
from studio.state import VoiceLibrary, Workspace
from studio.state_files import FolderChange
from studio.widgets.start_folders import app_folder
from studio.workers import Task
from trainer.checkpoints.best import file_epoch_note
from trainer.evaluate.labels import labelled
from trainer.evaluate.render import Candidate, RenderSettings


def reason(exc: BaseException) -> str:
    """One readable line for a failure: ours carry their own words; others are named by their type."""
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else ""
    return text if isinstance(exc, VoiceStudioError) else f"{type(exc).__name__}: {text}"


@dataclass(frozen=True, kw_only=True)
class Entry:
    """A listed candidate (its label as listed) and the run it was added from (``None``: a loose voice file);
    ``base``: its label without the run's name (which the list adds while it holds two or more runs)."""

    candidate: Candidate
    run: Path | None = None
    base: str = ""


class CandidatesBox(QGroupBox):
    """A checkable list of candidates: the checked ones are compared. "At strength…" takes the selected checkpoint
    of a run back towards its start voice at strengths asked for (``studio.pages.compare_strength``), off the GUI
    thread with progress and Cancel, and lists the files written.

    Signals:
        selection_changed(): an entry was added, removed, checked or unchecked, or the list's order changed.
        message(str): a readable line about what failed (a run that cannot be read) or what was listed.
    """

    selection_changed = Signal()
    message = Signal(str)

    def __init__(self, workspace: Workspace, library: VoiceLibrary, parent: QWidget | None = None) -> None:
        super().__init__("Candidates", parent)
        self.workspace, self.library = workspace, library
        self.list = QListWidget()
        self.list.itemChanged.connect(lambda _item: self.selection_changed.emit())
        model = self.list.model()  # sorted or moved: the order compared (the keys' order) is the shown one
        model.layoutChanged.connect(lambda *_: self.selection_changed.emit())
        model.rowsMoved.connect(lambda *_: self.selection_changed.emit())
        self.add_run_button = QPushButton("Add run…")
        self.add_run_button.clicked.connect(self._choose_run)
        self.add_file_button = QPushButton("Add voice file…")
        self.add_file_button.clicked.connect(self._choose_files)
        self.voices = QComboBox()
        self.add_voice_button = QPushButton("Add")
        self.add_voice_button.clicked.connect(self._add_library_voice)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.remove_selected)
        self.strengths = StrengthRow()
        self.strengths.message.connect(self.message)
        self.strengths.finished.connect(self._on_strengths_written)
        self.list.itemSelectionChanged.connect(lambda: self.strengths.set_checkpoint(self.strength_checkpoint()))
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
        layout.addWidget(self.strengths)
        layout.addLayout(voices)

    def entries(self, checked_only: bool = False) -> list[Entry]:
        """The listed entries in order (only the checked ones with ``checked_only``)."""
        items = [self.list.item(i) for i in range(self.list.count())]
        return [
            item.data(Qt.ItemDataRole.UserRole)
            for item in items
            if not checked_only or item.checkState() == Qt.CheckState.Checked
        ]

    def add(
        self,
        candidates: list[Candidate],
        run: Path | None = None,
        checked: bool = True,
        quiet: bool = False,
        notes: tuple[str, ...] = (),
    ) -> list[Candidate]:
        """List ``candidates`` whose files are not listed yet; a file listed already is the same entry, checked
        (with ``checked``) and, unless ``quiet``, named in a ``message`` ("already listed"). Returns those listed
        now. ``notes`` (what was refused) lead that ``message``, said after the selection changed. While the list
        holds two or more runs' candidates, their labels start with the run's name."""
        listed = {e.candidate.model_path.absolute(): i for i, e in enumerate(self.entries())}
        added, again = [], []
        self.list.blockSignals(True)
        for candidate in candidates:
            path = candidate.model_path.absolute()
            if path in listed:
                again.append(self.list.item(listed[path]))
                continue
            entry = Entry(candidate=candidate, run=Path(run).absolute() if run else None, base=candidate.label)
            item = QListWidgetItem(candidate.label)
            item.setToolTip(file_epoch_note(candidate.model_path))  # the label counts epochs from 1, the file from 0
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setData(Qt.ItemDataRole.UserRole, entry)
            self.list.addItem(item)
            listed[path] = self.list.count() - 1
            added.append(item)
        for item in added + (again if checked else []):
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        self._relabel()
        self.list.blockSignals(False)
        self.selection_changed.emit()
        said = list(notes)
        if again and not quiet:
            said.append(f"Already listed: {', '.join(item.text() for item in again)}" + " (checked)" * checked)
        if said:
            self.message.emit("; ".join(said))
        return [item.data(Qt.ItemDataRole.UserRole).candidate for item in added]

    def _relabel(self) -> None:
        """Labels as listed, by ``trainer.evaluate.labels``' rule (as ``voice-studio compare`` labels them): the
        run's name first while two or more runs are listed, then made distinct."""
        items = [self.list.item(i) for i in range(self.list.count())]
        entries = [item.data(Qt.ItemDataRole.UserRole) for item in items]
        bases = [(replace(e.candidate, label=e.base or e.candidate.label), e.run) for e in entries]
        label_of = {c.model_path.resolve(): c.label for c in labelled(bases)}
        for item, entry in zip(items, entries, strict=True):
            label = label_of[entry.candidate.model_path.resolve()]
            item.setText(label)
            item.setData(Qt.ItemDataRole.UserRole, replace(entry, candidate=replace(entry.candidate, label=label)))

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
        """List a run's candidates (``trainer.evaluate.lines.run_candidates``; those listed already stay one entry,
        checked); returns all of them, as ``run_candidates`` labels them. A failure is a ``message``."""
        from trainer.evaluate.lines import run_candidates

        try:
            candidates = run_candidates(Path(run_dir), self.workspace.voices_dir)
        except (VoiceStudioError, OSError) as exc:
            self.message.emit(f"Cannot read the run {run_dir}: {exc}")
            return []
        if not candidates:
            self.message.emit(f"{run_dir}: the run has no checkpoint to compare yet")
            return []
        self.add(candidates, run=Path(run_dir), quiet=True)
        return candidates

    def list_new(self, change: FolderChange) -> list[Candidate]:
        """A run listed here changed (``studio.state_files``): its checkpoints not listed yet are listed, unchecked
        (what is being compared stays); returns them. One that cannot be read now is left as listed."""
        from trainer.evaluate.lines import run_candidates

        runs = {e.run for e in self.entries() if e.run is not None and change.concerns(e.run)}
        added = []
        for run in sorted(runs):
            try:
                candidates = run_candidates(run, self.workspace.voices_dir)
            except (VoiceStudioError, OSError):
                continue
            added += self.add(candidates, run=run, checked=False, quiet=True)
        return added

    def add_files(self, paths: list[Path]) -> list[Candidate]:
        """List ``.ckpt``/``.onnx`` files as candidates, each labelled by its file name; others are a ``message``."""
        candidates, refused = [], []
        for path in map(Path, paths):
            try:
                candidates.append(Candidate(label=path.stem, model_path=path))
            except VoiceStudioError as exc:
                refused.append(str(exc))
        return self.add(candidates, notes=tuple(refused))

    def remove_selected(self) -> None:
        """Take the selected entries out of the list."""
        self.list.blockSignals(True)
        for item in self.list.selectedItems():
            self.list.takeItem(self.list.row(item))
        self._relabel()
        self.list.blockSignals(False)
        self.selection_changed.emit()

    def strength_checkpoint(self) -> Path | None:
        """What "At strength…" takes: the one selected entry where it is a run's ``.ckpt``
        (``trainer.run.document.run_of``) not at a strength already; else ``None``."""
        from trainer.checkpoints.strength import strength_of
        from trainer.run.document import run_of

        items = self.list.selectedItems()
        if len(items) != 1:
            return None
        path = items[0].data(Qt.ItemDataRole.UserRole).candidate.model_path
        return path if run_of(path) is not None and strength_of(path) is None else None

    def at_strengths(self, strengths: list[float]) -> Task | None:
        """Write the selected checkpoint (:meth:`strength_checkpoint`) at ``strengths`` (0-1) into its run's
        ``strengths/`` folder off the GUI thread, as "At strength…" does once asked; once written they are
        listed, checked. ``None`` (and a ``message``) where no checkpoint of a run is selected or strengths are
        being written already."""
        return self.strengths.start(strengths)

    def _on_strengths_written(self, run: Path, files: list[Path], outcome: BaseException | None) -> None:
        """List the files written (as ``run_candidates`` labels them: ``epoch 40 at 70% · …``), checked; say
        what was listed and, where it ended early, why."""
        from trainer.evaluate.evaluation import listed
        from trainer.evaluate.lines import run_candidates
        from trainer.tasks import Cancelled

        wanted = {path.absolute() for path in files}
        try:
            offered = run_candidates(run, self.workspace.voices_dir) if wanted else []
        except (VoiceStudioError, OSError) as exc:
            self.message.emit(f"Cannot read the run {run}: {exc}")
            return
        chosen = [c for c in offered if c.model_path.absolute() in wanted]
        self.add(chosen, run=run, quiet=True)
        said = [f"listed {listed([c.label for c in chosen])} (in {run.name}/strengths/)"] if chosen else []
        if isinstance(outcome, Cancelled):
            said.insert(0, f"At strength cancelled: {outcome}")
        elif outcome is not None:
            said.insert(0, f"Cannot take a checkpoint of {run.name} to a strength: {reason(outcome)}")
        line = "; ".join(said)
        if line:
            self.message.emit(line[:1].upper() + line[1:])

    def shutdown(self) -> None:
        """Stop writing strengths (each file is written whole or not at all)."""
        self.strengths.drop()

    def _choose_run(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a training run", app_folder(self.workspace.runs_dir))
        if folder:
            self.add_run(Path(folder))

    def _choose_files(self) -> None:
        start = app_folder(self.workspace.voices_dir)  # a folder that exists: no name put in the name box
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


class SettingsBox(QGroupBox):
    """Seed or "Noise 0", and length_scale (0 shows "voice's own": each voice's default)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Settings", parent)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.noiseless = QCheckBox("Noise 0")
        self.noiseless.setToolTip(
            "noise_scale = noise_w = 0: no noise, the same audio whatever the seed. Otherwise each candidate speaks "
            "with its own noise_scale and noise_w, as everywhere (a fine-tune's noise_scale: 0.333)"
        )
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
        self.length_scale.setToolTip(
            "Phoneme durations × this: larger is slower (the Synthesize page's Speed is 1 / length_scale)"
        )
        form.addRow("length_scale (larger is slower)", self.length_scale)

    def settings(self) -> RenderSettings:
        """The settings as shown."""
        length = self.length_scale.value() or None
        if self.noiseless.isChecked():
            return RenderSettings.noiseless(length_scale=length)
        return RenderSettings(length_scale=length, seed=self.seed.value())
