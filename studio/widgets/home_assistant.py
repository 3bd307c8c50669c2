"""The Train page's dialogs for Home Assistant: the name, language and quality an export is written under
(``engines.voice_naming``), and where Send to Home Assistant sends it (a wyoming-piper URL or a data folder,
``trainer.checkpoints.home_assistant``). They hold no logic beyond checking what is typed."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QRadioButton,
    QWidget,
)

from engines.languages import LANGUAGES
from engines.voice_naming import QUALITIES, NamingError, VoiceNaming

FIELDS = ("Name", "Language", "Quality")
"""How the dialog's fields are called in a naming error."""


class NamingDialog(QDialog):
    """Ask the name, language (``ll_RR``) and quality of a voice to export, prefilled; shows the file name it
    gives and, on OK, what is wrong with a field instead of closing."""

    def __init__(self, default: VoiceNaming, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export voice")
        self.name = QLineEdit(default.name)
        self.language = QComboBox()
        self.language.setEditable(True)
        self.language.addItems(sorted(set(LANGUAGES) | {default.language}))
        self.language.setCurrentText(default.language)
        self.quality = QComboBox()
        self.quality.addItems(QUALITIES)
        self.quality.setCurrentText(default.quality)
        self.file = QLabel()
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._check)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow(QLabel("Named as Home Assistant and wyoming-piper expect: LANGUAGE-NAME-QUALITY."))
        for label, widget in zip(FIELDS, (self.name, self.language, self.quality), strict=True):
            form.addRow(label, widget)
        form.addRow("File", self.file)
        form.addRow(self.error)
        form.addRow(self.buttons)
        self.name.textChanged.connect(self._show_file)
        self.language.currentTextChanged.connect(self._show_file)
        self.quality.currentTextChanged.connect(self._show_file)
        self._show_file()

    def naming(self) -> VoiceNaming:
        """The naming as typed (unchecked)."""
        return VoiceNaming(
            language=self.language.currentText().strip(),
            name=self.name.text().strip(),
            quality=self.quality.currentText(),
        )

    def _show_file(self) -> None:
        self.file.setText(f"{self.naming().stem}.onnx")

    def _check(self) -> None:
        try:
            self.naming().checked(FIELDS)
        except NamingError as exc:
            self.error.setText(str(exc))
            return
        self.accept()


class SendDialog(QDialog):
    """Ask where to send an exported voice: a wyoming-piper web server's URL (its voice upload API) or a
    wyoming-piper / Home Assistant data folder; prefilled with where it went last."""

    def __init__(self, voice: str, url: str = "", folder: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Send to Home Assistant")
        self.upload = QRadioButton("Upload to wyoming-piper (its --web-server)")
        self.copy = QRadioButton("Copy into a data folder (offline)")
        self.url = QLineEdit(url)
        self.url.setPlaceholderText("http://homeassistant.local:5000")
        self.folder = QLineEdit(folder)
        self.folder.setPlaceholderText("/share/piper")
        (self.copy if folder and not url else self.upload).setChecked(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow(QLabel(f"Send {voice} (.onnx and .onnx.json)"))
        form.addRow(self.upload)
        form.addRow("URL", self.url)
        form.addRow(self.copy)
        form.addRow("Folder", self.folder)
        form.addRow(buttons)

    def target(self) -> tuple[str, str]:
        """``("url", URL)`` or ``("folder", FOLDER)``, as chosen."""
        if self.upload.isChecked():
            return "url", self.url.text().strip()
        return "folder", self.folder.text().strip()
