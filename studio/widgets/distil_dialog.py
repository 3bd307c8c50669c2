"""New dataset from a voice…: the server, model and voice (the Synthesize page's Remote server fields), the lines,
how many, the candidates per line, and the consent without which nothing is asked (``trainer.dataset.distil``)."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from studio.state import Workspace
from studio.widgets.remote_panel import RemotePanel
from trainer.dataset.distil.run import DistilRequest
from trainer.dataset.distil.teacher import TeacherChoice

CONSENT = "I may train on this voice: its licence allows it, or its owner consents"
MOST_LINES = 5000
MOST_CANDIDATES = 10


class DistilDialog(QDialog):
    """Asks what to distil; :meth:`request` gives the answer. **Distil** is enabled only with the consent ticked
    and a model named."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New dataset from a voice")
        self.server = RemotePanel(workspace, self)
        server_form = cast(QFormLayout, self.server.layout())
        server_form.setRowVisible(self.server.response_format, False)  # a teacher is always asked for wav
        self.setMinimumWidth(560)
        self.lines = QLineEdit()
        self.lines.setPlaceholderText("the studio's English prompts (chosen for coverage)")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._on_browse)
        self.count = _spin(MOST_LINES, DistilRequest.count, "Lines the project should hold from this voice")
        self.candidates = _spin(MOST_CANDIDATES, DistilRequest.candidates, "Takes asked per line; the best is kept")
        self.licence = QLineEdit()
        self.licence.setPlaceholderText("the voice's licence or terms (recorded as given)")
        self.consent = QCheckBox(CONSENT)
        self.problem = QLabel()
        """Why **Distil** did not close the dialog (a lines file that cannot be read, an address that is none)."""
        self.problem.setWordWrap(True)
        self.problem.setVisible(False)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Distil")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        for changed in (self.consent.toggled, self.server.model.currentTextChanged):
            changed.connect(self._enable)
        lines_row = QHBoxLayout()
        lines_row.addWidget(self.lines, 1)
        lines_row.addWidget(browse)
        form = QFormLayout(self)
        form.addRow(self.server)
        form.addRow("Lines from:", lines_row)
        form.addRow("Lines:", self.count)
        form.addRow("Candidates per line:", self.candidates)
        form.addRow("Licence:", self.licence)
        form.addRow(self.consent)
        form.addRow(self.problem)
        form.addRow(self.buttons)
        self._enable()

    def _enable(self, *_: object) -> None:
        ready = self.consent.isChecked() and bool(self.server.model.currentText().strip())
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ready)

    def _on_browse(self) -> None:
        chosen, _ = QFileDialog.getOpenFileName(self, "Lines to choose from", "", "Text (*.txt);;All files (*)")
        if chosen:
            self.lines.setText(chosen)

    def request(self) -> DistilRequest:
        """The distillation asked for.

        Raises:
            ValueError: the URL is not an http(s) address. PromptsError: the lines file cannot be read (naming it).
        """
        from trainer.dataset.prompts.corpus import read_corpus

        settings = self.server.settings()
        teacher = TeacherChoice(url=settings.url, model=settings.model, voice=settings.voice, api_key=settings.api_key)
        path = self.lines.text().strip()
        return DistilRequest(
            teacher=teacher,
            corpus=read_corpus(Path(path)) if path else None,
            count=self.count.value(),
            candidates=self.candidates.value(),
            consent=self.consent.isChecked(),
            licence=self.licence.text().strip(),
        )

    def accept(self) -> None:
        """Close with the request only when it can be made; else say why and keep every field as typed."""
        from engines.errors import VoiceStudioError

        try:
            self.request()
        except (VoiceStudioError, ValueError) as exc:
            self.problem.setText(str(exc))
            self.problem.setVisible(True)
            return
        super().accept()

    def done(self, result: int) -> None:  # noqa: D102 - Qt override: a running Test is dropped with the dialog
        self.server.shutdown()
        super().done(result)


def _spin(most: int, value: int, tip: str) -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(1, most)
    spin.setValue(value)
    spin.setToolTip(tip)
    return spin
