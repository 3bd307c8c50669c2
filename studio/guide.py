"""The way to make a voice, for a newcomer: Help → Making a voice… and a first-run note.

The studio opens on Synthesize (to hear the embedded voice at once); nothing there says how a voice of one's own
is made. :data:`STEPS` says it in the navigation's order (Dataset → Train → Compare → Synthesize), what each page
is for and what it leaves behind; :class:`GuideDialog` shows them with a button to each page, and
:class:`FirstRunNote`, in the status bar, points to it until the user has started (a dataset project or a run
exists).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from studio.shortcuts import PAGE_KEYS


@dataclass(frozen=True)
class Step:
    """One step of making a voice: the page (``studio.shortcuts.AREAS``), what to do there and what it gives."""

    area: str
    title: str
    what: str
    gives: str


STEPS = (
    Step(
        "Dataset",
        "Bring your recordings",
        "Import a folder or a zip of recordings (WAV, FLAC, MP3 or Ogg, with a metadata.csv or a .txt beside each "
        "clip), or slice one long reading into clips. Read the report, fix what it flags, type missing texts.",
        "a dataset project: your clips, curated, with their transcripts (100 to 2,000 clips make a good voice)",
    ),
    Step(
        "Train",
        "Fine-tune a voice on them",
        "Choose the dataset, start from joe (or another Piper voice) or from scratch, pick a preset, press Check, "
        "then Start. Each epoch's time and losses show as they come; Stop and Resume whenever you like.",
        "a run: a checkpoint after each epoch and previews to listen to",
    ),
    Step(
        "Compare",
        "Pick the best checkpoint",
        "Open the run: listen to its checkpoints beside your recordings, score them (intelligibility, pitch, "
        "likeness) or take a blind test, then export the one you like best.",
        "your voice as NAME.onnx + NAME.onnx.json, the files Piper, Home Assistant and this studio read",
    ),
    Step(
        "Synthesize",
        "Hear your voice",
        "Pick the exported voice, type a line and press Speak (Ctrl+Enter).",
        "speech in your voice, played at once or saved as a WAV file",
    ),
)
"""Making a voice, in the navigation's order."""

NOTE = "New here? Making a voice of your own takes four steps: Dataset → Train → Compare → Synthesize."


def started(dataset_project: Path | None, runs_dir: Path | None) -> bool:
    """Whether the user has begun making a voice: a dataset project (its ``manifest.json``) or a run folder in
    ``runs_dir`` exists."""
    if dataset_project is not None and (dataset_project / "manifest.json").is_file():
        return True
    return runs_dir is not None and runs_dir.is_dir() and any(p.is_dir() for p in runs_dir.iterdir())


class GuideDialog(QDialog):
    """Help → Making a voice…: :data:`STEPS` with a button to each page.

    Signals:
        go(str): the page (area) chosen; the dialog closes.
    """

    go = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Making a voice")
        grid = QGridLayout()
        self.buttons: dict[str, QPushButton] = {}
        for row, (number, step) in enumerate(enumerate(STEPS, start=1)):
            text = QLabel(f"<b>{number}. {step.area}: {step.title}</b><br>{step.what}<br><i>You get {step.gives}.</i>")
            text.setWordWrap(True)
            button = QPushButton(f"Go to {step.area} ({PAGE_KEYS[step.area]})")
            button.clicked.connect(lambda _checked=False, area=step.area: self._go(area))
            grid.addWidget(text, row, 0)
            grid.addWidget(button, row, 1)
            self.buttons[step.area] = button
        grid.setColumnStretch(0, 1)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(grid)
        layout.addWidget(close)
        self.resize(640, 460)

    def _go(self, area: str) -> None:
        self.go.emit(area)
        self.accept()


class FirstRunNote(QLabel):
    """The status bar's note for a newcomer: "New here? Making a voice… · Hide", two links (:data:`NOTE` in its
    tooltip); "Making a voice…" opens the guide, "Hide" hides the note. Shown until the user has :func:`started`
    or hides it. Links, not buttons: the status bar keeps its height, so no page loses any at 1024×640.

    Signals:
        show_guide(): "Making a voice…" was chosen.
    """

    show_guide = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__('New here? <a href="guide">Making a voice…</a> · <a href="hide">Hide</a>', parent)
        self.setToolTip(NOTE)
        self.linkActivated.connect(self.follow)
        self._dismissed = False

    def follow(self, link: str) -> None:
        """Act on a link of the note: ``guide`` (emit :attr:`show_guide`) or ``hide``."""
        if link == "guide":
            self.show_guide.emit()
        elif link == "hide":
            self._dismissed = True
            self.hide()

    def update_for(self, dataset_project: Path | None, runs_dir: Path | None) -> None:
        """Show the note while nothing is :func:`started` (and the user has not hidden it)."""
        self.setVisible(not self._dismissed and not started(dataset_project, runs_dir))
