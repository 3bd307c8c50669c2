"""The Train page's setup form: dataset, starting voice, preset, epochs, device, how often the voice's quality is
measured on held-out lines (the canary evaluations), training settings instead of the preset's (``train --set``),
the pre-flight findings and the time the chosen epochs will take.

It only holds choices and shows findings; ``options()`` turns the choices into the
``trainer.run.options.RunOptions`` of a new run. Devices are detected off the GUI thread
(torch loads then).
"""

from __future__ import annotations

import html
import threading
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from studio.widgets.elided_label import ElidedLabel
from studio.widgets.start_folders import existing_folder
from studio.workers import Task
from trainer.run.options import MAX_EPOCHS, RunOptions, bounds, run_name
from trainer.run.preflight import Finding
from trainer.run.presets import PRESETS, about, explain, preset
from trainer.run.settings import SETTABLE, split_settings

PRESET_EPOCHS = {name: preset(name).epochs for name in PRESETS}
"""Default epochs per preset, the trainer's (``trainer.run.presets`` loads without torch)."""
COLOURS = {"error": "#b91c1c", "warning": "#b45309", "conversion": "#1d4ed8", "info": "#15803d"}


class TrainSetup(QGroupBox):
    """Setup fields and findings.

    Signals:
        resample_requested(int): the user accepted the offer to resample the dataset to this rate (Hz).
        changed(): a choice the checks depend on changed (dataset, start, preset, epochs, device); the
            findings shown were cleared, since they described other choices.
    """

    resample_requested = Signal(int)
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Setup", parent)
        self.dataset = QLineEdit()
        self.dataset.setPlaceholderText("a dataset project, a training cache, or a folder with metadata.csv")
        self.browse = QPushButton("Browse…")
        self.browse.clicked.connect(self._on_browse)
        self.start = QComboBox()
        self.start.addItem("en_US-joe-medium (embedded voice)", "joe")
        self.start.addItem("From scratch", "scratch")
        self.epochs = QSpinBox()
        low, high = bounds("epochs")  # RunOptions' range, as the CLI's
        self.epochs.setRange(low or 1, high or MAX_EPOCHS)
        self.preset = QComboBox()
        self.preset.addItems(PRESETS)
        for index, name in enumerate(PRESETS):
            self.preset.setItemData(index, explain(name), Qt.ItemDataRole.ToolTipRole)
        self.preset.setCurrentText("medium")
        self.about = ElidedLabel()
        """One line under the preset: what it is for, its size, epochs and the time to expect."""
        self._epochs_edited = False
        """Whether the person typed an epoch count other than the preset's (kept when the preset changes)."""
        self._setting_epochs = False
        self.epochs.valueChanged.connect(self._on_epochs_edited)
        self.preset.currentTextChanged.connect(self._on_preset)
        self._on_preset(self.preset.currentText())
        self.device = QComboBox()
        self.device.addItem("Auto (a GPU if present)", "auto")
        self.device.addItem("CPU", "cpu")
        self.evaluate, self.eval_every = evaluation_fields()
        self.settings = settings_field()
        self.findings = QLabel("")
        self.findings.setWordWrap(True)
        self.estimate = QLabel("")
        """After a Check: how long the chosen epochs will take on this machine (``show_estimate``)."""
        self.estimate.setWordWrap(True)
        self.estimate.setVisible(False)
        self._resample_rate: int = 0
        self.resample = QPushButton("Resample")
        self.resample.setVisible(False)
        self.resample.clicked.connect(lambda: self.resample_requested.emit(self._resample_rate))
        self.current: list[Finding] = []

        dataset_row = QHBoxLayout()
        dataset_row.addWidget(self.dataset, 1)
        dataset_row.addWidget(self.browse)
        preset_row = QHBoxLayout()
        preset_row.addWidget(self.preset, 1)
        preset_row.addWidget(QLabel("Epochs"))
        preset_row.addWidget(self.epochs)
        form = QFormLayout(self)
        form.addRow("Dataset", dataset_row)
        form.addRow("Start from", self.start)
        form.addRow("Preset", preset_row)
        form.addRow("", self.about)
        form.addRow("Device", self.device)
        form.addRow("Measure quality", evaluation_row(self.evaluate, self.eval_every))
        form.addRow("Settings", self.settings)
        form.addRow(self.findings)  # a row of its own: a wrapped label beside a button loses its lines
        form.addRow(self.resample)
        form.addRow(self.estimate)
        self.dataset.textChanged.connect(self._on_changed)
        self.start.currentIndexChanged.connect(self._on_changed)
        self.start.currentIndexChanged.connect(lambda _: self._on_preset(self.preset.currentText()))
        self.preset.currentTextChanged.connect(self._on_changed)
        self.epochs.valueChanged.connect(self._on_changed)
        self.device.currentIndexChanged.connect(self._on_changed)
        self.settings.textChanged.connect(self._on_changed)

    def _on_preset(self, name: str) -> None:
        """Explain the preset; its epochs replace the shown ones unless the person typed their own (then kept,
        and said so)."""
        suggested = PRESET_EPOCHS[name]
        self.preset.setToolTip(explain(name))
        self.about.setToolTip(explain(name))
        kept = self._epochs_edited and self.epochs.value() != suggested
        if not kept:
            self._setting_epochs = True
            self.epochs.setValue(suggested)
            self._setting_epochs = False
            self._epochs_edited = False
        note = f"Epochs kept at your {self.epochs.value():,} (the preset's: {suggested:,}). " if kept else ""
        self.about.setText(note + self._about(name))

    def _on_epochs_edited(self, value: int) -> None:
        if not self._setting_epochs:
            self._epochs_edited = value != PRESET_EPOCHS[self.preset.currentText()]
            self.about.setText(self._about(self.preset.currentText()))

    def _about(self, name: str) -> str:
        """The preset's line for the start shown (from a voice: that voice's size, not the preset's)."""
        return about(name, from_voice=self.start.currentData() != "scratch")

    def choices(self) -> tuple:
        """What the checks depend on, as shown now: ``(dataset text, start, preset, epochs, device, settings
        text)``."""
        return (
            self.dataset.text().strip(),
            self.start.currentData(),
            self.preset.currentText(),
            self.epochs.value(),
            self.device.currentData(),
            self.settings.text().strip(),
        )

    def _on_changed(self, *_) -> None:
        """Findings belong to the choices they were computed from: another choice clears them."""
        self.clear_findings()
        self.changed.emit()

    def clear_findings(self) -> None:
        """Take the findings, the resample offer and the time estimate away (what they describe changed)."""
        if self.findings.text():
            self.findings.setText("")
            self.current = []
            self.resample.setVisible(False)
        self.show_estimate("")

    def set_start_voices(self, voices: list[tuple[str, str]]) -> None:
        """Offer ``(label, path)`` voices and checkpoints as starting points, after the embedded voice."""
        chosen = self.start.currentData()
        self.start.blockSignals(True)  # refilling the list is not a choice; only a different start is
        while self.start.count() > 2:
            self.start.removeItem(2)
        for label, path in voices:
            self.start.addItem(label, path)
        self.start.setCurrentIndex(max(0, self.start.findData(chosen)))
        self.start.blockSignals(False)
        if self.start.currentData() != chosen:  # the chosen checkpoint is gone: the embedded voice now
            self._on_changed()

    def detect_devices(self) -> Task:
        """List the GPUs torch sees (in the background)."""

        def work(cancel: threading.Event):
            from trainer.run.preflight import detect_devices

            return detect_devices()

        def on_done(devices) -> None:
            for device, label in devices:
                if device.startswith("cuda") and self.device.findData(device) < 0:
                    self.device.addItem(label, device)

        task = Task(work, self)
        task.done.connect(on_done)
        return task.start()

    def options(self, runs_root: Path) -> RunOptions:
        """The choices as the options of a new run in ``runs_root`` (named by ``trainer.run.options.run_name``).

        Raises:
            ValueError: no dataset chosen, or a setting that is not one (naming it and what it takes).
        """
        text, start, preset, epochs, device, typed = self.choices()
        if not text:
            raise ValueError("Choose a dataset first (the Dataset page's project, or Browse…).")
        try:
            settings = split_settings(typed)
        except ValueError as exc:
            raise ValueError(f"Settings: {exc}") from None
        out = Path(runs_root) / run_name(start, preset)
        return RunOptions(
            dataset=Path(text),
            out=out,
            start=start,
            preset=preset,
            epochs=epochs,
            device=device,
            eval_every=self.eval_choice(),
            settings=settings,
        )

    def eval_choice(self) -> int | None:
        """The run's ``eval_every``: ``None`` (with the previews), 0 (off) or the epochs shown."""
        chosen = self.evaluate.currentData()
        return self.eval_every.value() if chosen == EVERY else chosen

    def show_findings(self, findings: list[Finding]) -> None:
        """List findings, errors first, with the resample offer when one is made."""
        self.current = list(findings)
        if not findings:
            self.findings.setText(f"<span style='color:{COLOURS['info']}'>Ready to train.</span>")
        else:
            said = [(f.level, html.escape(f.message, quote=False)) for f in findings]
            rows = [
                f"<span style='color:{COLOURS[level]}'>{level.title()}: {message}</span>" for level, message in said
            ]
            self.findings.setText("<br>".join(rows))
        offer = next((f for f in findings if f.fix == "resample"), None)
        self._resample_rate = (offer.fix_rate or 0) if offer else 0
        self.resample.setText(f"Resample to {self._resample_rate:,} Hz" if offer else "Resample")
        self.resample.setVisible(offer is not None)

    def show_message(self, text: str, level: str = "error") -> None:
        """One line in the findings area, shown as written (the time estimate, which belongs to a check's findings,
        is cleared)."""
        self.current = []
        self.findings.setText(f"<span style='color:{COLOURS[level]}'>{html.escape(text, quote=False)}</span>")
        self.resample.setVisible(False)
        self.show_estimate("")

    def show_estimate(self, text: str, level: str = "info") -> None:
        """The time the chosen epochs will take (or what is being done to know it) under the findings, as rich text
        (plain words escaped by the caller: ``html.escape``); ``""`` hides it."""
        self.estimate.setText(f"<span style='color:{COLOURS[level]}'>{text}</span>" if text else "")
        self.estimate.setVisible(bool(text))

    def _on_browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Choose a dataset folder", existing_folder(self.dataset.text()))
        if folder:
            self.dataset.setText(folder)


EVERY = "every"
"""The ``evaluate`` choice that takes its epochs from the spin box beside it."""
EVALUATE_HELP = (
    "Speaks a few held-out clips with the checkpoint of the epoch and measures WER, speaker similarity, DNSMOS "
    "and the F0 gap against their recordings, in a low-priority process beside training (it never stalls it; "
    "one at a time): the Quality tab charts them. Not for the test preset unless asked for (a smoke test)."
)


def evaluation_fields() -> tuple[QComboBox, QSpinBox]:
    """The choice of when the canary lines are measured (with the previews, every N epochs, off) and its N."""
    evaluate = QComboBox()
    evaluate.addItem("With the previews", None)
    evaluate.addItem("Every", EVERY)
    evaluate.addItem("Off", 0)
    evaluate.setToolTip(EVALUATE_HELP)
    every = QSpinBox()
    low, high = bounds("eval_every")
    every.setRange(max(1, low or 1), high or MAX_EPOCHS)
    every.setValue(10)
    every.setSuffix(" epochs")
    every.setEnabled(False)
    evaluate.currentIndexChanged.connect(lambda _: every.setEnabled(evaluate.currentData() == EVERY))
    return evaluate, every


def evaluation_row(evaluate: QComboBox, every: QSpinBox) -> QHBoxLayout:
    """The two fields side by side, the choice taking the room."""
    row = QHBoxLayout()
    row.addWidget(evaluate, 1)
    row.addWidget(every)
    return row


def settings_field() -> QLineEdit:
    """The Settings field: ``NAME=VALUE`` training settings instead of the preset's, as ``voice-studio train --set``
    takes them (``trainer.run.settings``); empty, the preset's."""
    field = QLineEdit()
    field.setPlaceholderText("the preset's; or NAME=VALUE, spaces between (e.g. stft_loss=0 learning_rate=1e-4)")
    field.setToolTip(  # <p>: rich text, which Qt wraps
        "<p>Training settings a new run takes instead of its preset's, as voice-studio train --set "
        f"(docs/train.md says what each does): {', '.join(SETTABLE)}</p>"
    )
    return field
