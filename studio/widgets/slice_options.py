"""The options of Slice long recording…: longest clip, shortest pause to cut at, the draft recogniser and its language.

The recognisers and their languages are the back-ends' own (``trainer.dataset.recognizers``: ``available``,
``languages``); faster-whisper needs a model, so the page offers the back-ends that work without one, plus
"No drafts". Bounds and defaults are ``trainer.dataset.slicing.SliceOptions``'.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout, QWidget

from trainer.dataset.slicing import SliceOptions
from trainer.dataset.slicing_run import Drafting

NO_DRAFTS = "No drafts (type the texts)"


class SliceOptionsDialog(QDialog):
    """Asks how to slice; :meth:`options` and :meth:`drafting` give the answer."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Slice long recordings")
        defaults = SliceOptions()
        self.max_s = self._spin(
            defaults.min_s + 0.5,
            60.0,
            defaults.max_s,
            " s",
            "Longest clip, seconds (silence kept around the speech included)",
        )
        shorter = "A shorter pause is cut at only in speech that runs past the longest clip"
        self.min_pause = self._spin(0.05, 3.0, defaults.min_pause_s, " s", shorter)
        self.recognizer = QComboBox()
        self.language = QComboBox()
        for name in _recognizers():
            self.recognizer.addItem(name, name)
        self.recognizer.addItem(NO_DRAFTS, None)
        self.recognizer.currentIndexChanged.connect(self._fill_languages)
        self._fill_languages()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Slice")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Longest clip:", self.max_s)
        form.addRow("Shortest pause to cut at:", self.min_pause)
        form.addRow("Draft texts by:", self.recognizer)
        form.addRow("Language of the drafts:", self.language)
        form.addRow(buttons)

    def _spin(self, low: float, high: float, value: float, suffix: str, tip: str) -> QDoubleSpinBox:
        spin = QDoubleSpinBox()
        spin.setRange(low, high)
        spin.setSingleStep(0.5 if high > 10 else 0.05)
        spin.setValue(value)
        spin.setSuffix(suffix)
        spin.setToolTip(tip)
        return spin

    def _fill_languages(self) -> None:
        from trainer.dataset.recognizers import languages

        name = self.recognizer.currentData()
        self.language.clear()
        for code in languages(name) if name else []:
            self.language.addItem(code, code)
        self.language.setEnabled(self.language.count() > 1)

    def options(self) -> SliceOptions:
        """The cutting options chosen (``min_s`` kept below the longest clip)."""
        defaults = SliceOptions()
        max_s = self.max_s.value()
        return replace(defaults, max_s=max_s, min_s=min(defaults.min_s, max_s / 2), min_pause_s=self.min_pause.value())

    def drafting(self) -> Drafting:
        """The recogniser and language chosen (``recognizer=None``: no drafts)."""
        return Drafting(recognizer=self.recognizer.currentData(), language=self.language.currentData())


def _recognizers() -> list[str]:
    """The installed back-ends that work without a model of the user's."""
    from trainer.dataset.recognizers import available

    return [name for name in available() if name != "faster-whisper"]
