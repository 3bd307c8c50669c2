"""The Synthesize page's button row: Speak, Stop, Save… (the line on screen), and the line's timing."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from engines.audio import write_audio
from studio.speaking import Line
from studio.state import SaveFolders
from studio.widgets.notices import failed_on
from studio.widgets.start_folders import proposed_name, save_start

SAVE_FILTER = "WAV audio (*.wav);;FLAC audio (*.flac);;Ogg Vorbis (*.ogg)"
"""The formats ``engines.audio.write_audio`` writes, by extension."""


class SpeakBar(QWidget):
    """Speak (Ctrl+Enter), Stop (Esc) and Save WAV… buttons, and under them a selectable status line the width
    of the bar (the timing of a line reads on one or two lines, never squeezed beside the buttons).

    Save WAV… saves the finished line on screen (:attr:`line`), and is enabled only while there is one; its dialog
    proposes a name from the line's voice and text (``joe-hello-there.wav``) in the folder audio was saved to last
    (``folders``, which the settings keep).

    Signals:
        speak(): Speak was clicked. stop(): Stop was clicked.
        saved(object): the ``Path`` Save WAV… wrote. save_failed(str): why it could not (naming the path).
    """

    speak = Signal()
    stop = Signal()
    saved = Signal(object)
    save_failed = Signal(str)

    def __init__(self, folders: SaveFolders | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folders = folders if folders is not None else SaveFolders()
        self.speak_button = _button("Speak", "Ctrl+Enter", self.speak.emit)
        self.stop_button = _button("Stop", "Esc", self.stop.emit)
        self.save_button = _button("Save WAV…", "", self._on_save_clicked)
        self.stop_button.setEnabled(False)
        self.save_button.setEnabled(False)
        self.status = QLabel("")
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.setWordWrap(True)  # a long line (voice · engine: load, first audio, RTF) wraps, not widening
        self.line: Line | None = None
        """The finished line on screen (``None``: none, e.g. while one is spoken or after one failed)."""
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        for button in (self.speak_button, self.stop_button, self.save_button):
            row.addWidget(button)
        row.addStretch(1)
        column.addLayout(row)
        column.addWidget(self.status)

    def show_line(self, line: Line | None) -> None:
        """``line`` is the one on screen, which Save WAV saves (``None``: nothing to save)."""
        self.line = line
        self.save_button.setEnabled(line is not None)

    def save(self, path: Path, line: Line | None = None) -> Path:
        """Write a line (default: the one on screen) to a file: 16-bit WAV, or FLAC/OGG by extension.

        Raises:
            ValueError: no line, or an unsupported path (``engines.audio.check_output_path``).
            OSError: the folder is not writable.
        """
        line = line or self.line
        if line is None:
            raise ValueError("nothing to save: no finished line is on screen")
        return write_audio(path, line.audio, line.sample_rate)

    def _on_save_clicked(self) -> None:
        name = proposed_name(self.line.voice, self.line.text, suffix=".wav") if self.line else "line.wav"
        path, _ = QFileDialog.getSaveFileName(self, "Save audio", save_start(name, "audio", self.folders), SAVE_FILTER)
        if path:
            self.save_to(Path(path))

    def save_to(self, path: Path) -> None:
        """Save the line on screen at ``path`` as Save WAV… does: ``saved(path)``, or ``save_failed`` with the
        reason (the path named once)."""
        try:
            written = self.save(path)
        except (OSError, ValueError) as exc:
            self.save_failed.emit(failed_on("Could not save", path, exc))
            return
        self.folders.remember("audio", written)  # the next Save WAV… starts in this folder
        self.saved.emit(written)


def _button(text: str, tip: str, slot) -> QPushButton:
    button = QPushButton(text)
    button.setToolTip(tip)
    button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # in the Tab order on every platform (macOS leaves it out)
    button.clicked.connect(slot)
    return button
