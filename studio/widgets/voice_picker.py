"""The voice picker: a view of the studio's :class:`studio.state.VoiceLibrary`, and adding more (``.onnx`` files,
folders, ``.ckpt``)."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFileDialog, QHBoxLayout, QPushButton, QWidget

from engines.base import VoiceError
from engines.voice import Voice
from studio.state import Removal, Replacement, VoiceLibrary
from studio.widgets.start_folders import existing_folder
from studio.workers import Task


class VoicePicker(QWidget):
    """A voice combo box showing a :class:`VoiceLibrary`, and an "Add voice…" button that adds to it.

    The box follows the library: a voice added is listed and selected, one removed or replaced goes or
    changes. ``.onnx`` voices are read at once (their ``.onnx.json`` is small); ``.ckpt`` checkpoints are
    read on a worker thread, since reading one loads torch.

    Signals:
        voice_changed(object): the selected :class:`Voice`.
        checkpoint_added(object): a checkpoint :class:`Voice` was added.
        adding(): files are being added (notices about an earlier add are out of date).
        notice(str, str): a file could not be read: the message in words (naming it), and the reading library's
            own detail for a tooltip (``""``: none).
    """

    voice_changed = Signal(object)
    checkpoint_added = Signal(object)
    adding = Signal()
    notice = Signal(str, str)

    def __init__(self, library: VoiceLibrary, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self._last_folder: Path | None = None
        self._reading = 0
        self.box = QComboBox()
        for voice in library.voices:
            self.box.addItem(_label(voice))
        self.box.currentIndexChanged.connect(self._on_index_changed)
        self.add_button = QPushButton("Add voice…")
        self.add_button.clicked.connect(self._on_add_clicked)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.box, 1)
        layout.addWidget(self.add_button)
        library.events.added.connect(self._on_added)
        library.events.removed.connect(self._on_removed)
        library.events.replaced.connect(self._on_replaced)

    @property
    def voice(self) -> Voice:
        """The selected voice."""
        return self.library.voices[self.box.currentIndex()]

    def voices(self) -> list[Voice]:
        """The voices in the picker (the library's), in order."""
        return self.library.voices

    def add_files(self, paths: list[Path]) -> list[Voice]:
        """Add ``.onnx`` voices (files or folders) to the library now and ``.ckpt`` checkpoints in the background.

        Each voice is checked as loading it does (``VoiceLibrary.add_files``); errors are emitted as notices
        naming the file. Returns the ``.onnx`` voices added.
        """
        self.adding.emit()
        found = self.library.add_files(paths)
        for error in found.errors:
            self._say(error)
        if found.checkpoints:
            self._add_checkpoints(found.checkpoints)
        return found.added

    # --- the library's events ---------------------------------------------------
    def _on_added(self, voice: Voice) -> None:
        self.box.addItem(_label(voice))
        self.box.setCurrentIndex(self.box.count() - 1)

    def _on_removed(self, change: Removal) -> None:
        self.box.removeItem(change.index)

    def _on_replaced(self, change: Replacement) -> None:
        self.box.setItemText(change.index, _label(change.new))
        if change.index == self.box.currentIndex():
            self.voice_changed.emit(change.new)

    def _add_checkpoints(self, paths: list[Path]) -> Task:
        """Read checkpoints off the GUI thread (torch loads then), then list them as voices."""

        def work(cancel: threading.Event):
            from engines.torch.vits.checkpoint import load_checkpoint_voice

            for path in paths:
                try:
                    yield load_checkpoint_voice(path)
                except VoiceError as exc:
                    yield exc

        def on_item(item) -> None:
            if isinstance(item, Exception):
                self._say(item)
                return
            if self.library.add(item):  # selected as the library says it was added
                self.checkpoint_added.emit(item)

        task = Task(work, self)
        task.partial.connect(on_item)
        task.failed.connect(self._say)
        self._reading += 1
        task.ended.connect(self._on_read)
        return task.start()

    def _on_read(self) -> None:
        self._reading -= 1

    def is_adding(self) -> bool:
        """Whether checkpoints of an add are still being read (the voice they select comes from that add)."""
        return self._reading > 0

    def _say(self, error: Exception) -> None:
        self.notice.emit(str(error), getattr(error, "detail", ""))

    def _on_add_clicked(self) -> None:
        start = existing_folder(self._last_folder, "voices")
        files, _ = QFileDialog.getOpenFileNames(
            self, "Add Piper voices", start, "Piper voices and checkpoints (*.onnx *.ckpt)"
        )
        if files:
            self._last_folder = Path(files[0]).parent  # the next Add voice… starts where this one ended
        self.add_files([Path(f) for f in files])

    def _on_index_changed(self, index: int) -> None:
        if index >= 0:
            self.voice_changed.emit(self.voice)


def _label(voice: Voice) -> str:
    from trainer.run.presets import smoke_prefix

    origin = {"embedded": "default", "user": "my voices"}.get(voice.origin, "added")
    return f"{smoke_prefix(voice.config.raw)}{voice.name} ({origin}, {voice.sample_rate} Hz)"
