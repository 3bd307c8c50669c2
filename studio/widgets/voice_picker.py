"""The voice picker: the voices the studio knows, and adding more (``.onnx`` files, folders, ``.ckpt``)."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFileDialog, QHBoxLayout, QPushButton, QWidget

from engines.base import VoiceError
from engines.registry import check_voice, discover
from engines.voice import Voice, load_voice
from studio.workers import Task


class VoicePicker(QWidget):
    """A voice combo box and an "Add voice…" button.

    ``.onnx`` voices are read at once (their ``.onnx.json`` is small); ``.ckpt``
    checkpoints are read on a worker thread, since reading one loads torch.

    Signals:
        voice_changed(object): the selected :class:`Voice`.
        voices_changed(): voices were added.
        checkpoint_added(object): a checkpoint :class:`Voice` was added.
        notice(str): a file could not be read (the message names it).
    """

    voice_changed = Signal(object)
    voices_changed = Signal()
    checkpoint_added = Signal(object)
    notice = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._voices: list[Voice] = []
        self.box = QComboBox()
        self.box.currentIndexChanged.connect(self._on_index_changed)
        self.add_button = QPushButton("Add voice…")
        self.add_button.clicked.connect(self._on_add_clicked)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.box, 1)
        layout.addWidget(self.add_button)

    def load(self, paths: list[Path]) -> None:
        """List the embedded and user voices plus ``paths`` (voices, folders, checkpoints)."""
        checkpoints = [p for p in paths if p.suffix.lower() == ".ckpt"]
        if checkpoints:
            self._add_checkpoints(checkpoints)
        found = discover([p for p in paths if p.suffix.lower() != ".ckpt"])
        for voice in found.voices:
            self._append(voice)
        for error in found.errors:
            self.notice.emit(str(error))

    @property
    def voice(self) -> Voice:
        """The selected voice."""
        return self._voices[self.box.currentIndex()]

    def voices(self) -> list[Voice]:
        """The voices in the picker, in order."""
        return list(self._voices)

    def add_files(self, paths: list[Path]) -> list[Voice]:
        """Add ``.onnx`` voices (files or folders) now and ``.ckpt`` checkpoints in the background.

        Each voice is checked as loading it does (``engines.registry.check_voice``); errors are emitted as
        notices naming the file. Returns the ``.onnx`` voices added.
        """
        known = {v.model_path.absolute() for v in self._voices}
        files = [m for p in map(Path, paths) for m in (sorted(p.rglob("*.onnx")) if p.is_dir() else [p])]
        checkpoints = [p for p in files if p.suffix.lower() == ".ckpt" and p.absolute() not in known]
        if checkpoints:
            self._add_checkpoints(checkpoints)
        added = []
        for path in (p for p in files if p.suffix.lower() != ".ckpt"):
            try:
                voice = check_voice(load_voice(path, origin=_origin(path)))  # as the engines check it at load
            except VoiceError as exc:
                self.notice.emit(str(exc))
                continue
            if voice.model_path.absolute() not in known:
                self._append(voice)
                added.append(voice)
        if added:
            self.box.setCurrentIndex(len(self._voices) - 1)
            self.voices_changed.emit()
        return added

    def _append(self, voice: Voice) -> None:
        self._voices.append(voice)
        origin = {"embedded": "default", "user": "my voices"}.get(voice.origin, "added")
        self.box.addItem(f"{voice.name} ({origin}, {voice.sample_rate} Hz)")

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
                self.notice.emit(str(item))
                return
            self._append(item)
            self.box.setCurrentIndex(len(self._voices) - 1)
            self.voices_changed.emit()
            self.checkpoint_added.emit(item)

        task = Task(work, self)
        task.partial.connect(on_item)
        task.failed.connect(lambda exc: self.notice.emit(str(exc)))
        return task.start()

    def _on_add_clicked(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(
            self, "Add Piper voices", "", "Piper voices and checkpoints (*.onnx *.ckpt)"
        )
        self.add_files([Path(f) for f in files])

    def _on_index_changed(self, index: int) -> None:
        if index >= 0:
            self.voice_changed.emit(self.voice)


def _origin(path: Path) -> str:
    """``user`` for a voice in the user's voice folder (an exported one), else ``added``."""
    from engines.registry import user_voice_dir

    return "user" if Path(path).absolute().is_relative_to(user_voice_dir().absolute()) else "added"
