"""The Synthesize page: pick a voice, type, hear it stream; save, replay.

All synthesis and playing happen on a worker thread (``studio.workers.Task``);
this page only reacts to the chunks it is handed (waveform, timing) and to the
user's clicks, so the window never freezes.
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

import assets
from engines import audio as audio_ops
from engines.base import AudioChunk, StreamStats, SynthesisOptions, VoiceError
from engines.registry import create_engine, discover
from engines.voice import Voice, load_voice
from studio.speaking import Line, Speaking, replay_and_wait, speak_and_play
from studio.widgets.remote_panel import RemotePanel
from studio.widgets.slider import Slider
from studio.widgets.waveform import WaveformView
from studio.workers import Task


class SynthesizePage(QWidget):
    """Voice picker, text box, Speak/Stop, sliders, waveform, timing, history and Save WAV.

    Signals:
        message(str): a notice for the status bar.
        line_finished(object): a :class:`Line` when a line has been fully synthesized.
        voices_changed(): the voice list changed (added voices).
    """

    message = Signal(str)
    line_finished = Signal(object)
    voices_changed = Signal()
    checkpoint_added = Signal(object)

    def __init__(
        self, extra_voices: list[str] | None = None, remote: dict | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._remote_saved = remote
        self._engines: dict[Path, object] = {}
        self._engine_lock = threading.Lock()
        self._speaking = Speaking()
        self._line_audio: list[np.ndarray] = []
        self._stats = StreamStats()
        self._last: Line | None = None
        self._voices: list[Voice] = []
        self._line_rate = 0
        self._build()
        self._load_voices([Path(p) for p in extra_voices or []])

    # --- layout ---------------------------------------------------------
    def _build(self) -> None:
        self.voice_box = QComboBox()
        self.voice_box.currentIndexChanged.connect(self._on_voice_changed)
        self.add_voice_button = QPushButton("Add voice…")
        self.add_voice_button.clicked.connect(self._on_add_voice_clicked)
        self.engine_box = QComboBox()
        self.engine_box.addItem("Local ONNX (CPU)", "onnx")
        if importlib.util.find_spec("torch") is not None:  # found, not imported: torch loads when chosen
            self.engine_box.addItem("Local torch (CUDA if present, else CPU)", "torch")
        self.engine_box.addItem("Remote server (OpenAI speech API)", "remote")
        self.engine_box.currentIndexChanged.connect(self._on_engine_changed)
        self.remote_panel = RemotePanel(self._remote_saved)
        self.remote_panel.setVisible(False)
        self.remote_panel.tested.connect(lambda _: self._enable_noise_sliders())
        self.remote_panel.model.currentTextChanged.connect(lambda _: self._enable_noise_sliders())
        self.speaker_box = QComboBox()
        self.speaker_label = QLabel("Speaker")

        self.text_edit = QPlainTextEdit()
        self.text_edit.setPlaceholderText("Type a line to speak, then press Ctrl+Enter.")
        self.text_edit.setPlainText(_default_line())

        self.speak_button = QPushButton("Speak")
        self.speak_button.setToolTip("Ctrl+Enter")
        self.speak_button.clicked.connect(self.speak)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Esc")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop)
        self.save_button = QPushButton("Save WAV…")
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self._on_save_clicked)
        QShortcut(QKeySequence("Ctrl+Return"), self, activated=self.speak)
        QShortcut(QKeySequence("Ctrl+Enter"), self, activated=self.speak)
        QShortcut(QKeySequence("Escape"), self, activated=self.stop)

        self.speed = Slider(0.5, 2.0, 0.01)
        self.noise_scale = Slider(0.0, 1.5, 0.01)
        self.noise_w = Slider(0.0, 1.5, 0.01)
        self.reset_button = QPushButton("Voice defaults")
        self.reset_button.clicked.connect(self._reset_sliders)

        self.status = QLabel("")
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notice = QLabel("")
        self.notice.setWordWrap(True)
        self.notice.setStyleSheet("color: #b45309;")
        self.waveform = WaveformView()
        self.history = QListWidget()
        self.history.itemDoubleClicked.connect(self._on_history_activated)

        top = QFormLayout()
        voice_row = QHBoxLayout()
        voice_row.addWidget(self.voice_box, 1)
        voice_row.addWidget(self.add_voice_button)
        top.addRow("Voice", voice_row)
        top.addRow("Engine", self.engine_box)
        top.addRow(self.speaker_label, self.speaker_box)
        top.addRow(self.remote_panel)

        sliders = QGroupBox("Voice settings")
        form = QFormLayout(sliders)
        form.addRow("Speed (length_scale)", self.speed)
        form.addRow("Variation (noise_scale)", self.noise_scale)
        form.addRow("Rhythm (noise_w)", self.noise_w)
        form.addRow("", self.reset_button)

        buttons = QHBoxLayout()
        for button in (self.speak_button, self.stop_button, self.save_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.status)

        left, right = QWidget(), QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.addLayout(top)
        left_layout.addWidget(self.text_edit, 1)
        left_layout.addLayout(buttons)
        left_layout.addWidget(self.notice)
        left_layout.addWidget(self.waveform, 1)
        right.setMinimumWidth(340)

        right_layout = QVBoxLayout(right)
        right_layout.addWidget(sliders)
        right_layout.addWidget(QLabel("History (double-click to replay)"))
        right_layout.addWidget(self.history, 1)

        splitter = QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

    # --- voices ---------------------------------------------------------
    def _load_voices(self, extra: list[Path]) -> None:
        checkpoints = [p for p in extra if p.suffix.lower() == ".ckpt"]
        if checkpoints:
            self._add_checkpoints(checkpoints)
        found = discover([p for p in extra if p.suffix.lower() != ".ckpt"])
        for voice in found.voices:
            self._append_voice(voice)
        for error in found.errors:
            self.show_notice(str(error))

    def _append_voice(self, voice: Voice) -> None:
        self._voices.append(voice)
        origin = {"embedded": "default", "user": "my voices"}.get(voice.origin, "added")
        self.voice_box.addItem(f"{voice.name} ({origin}, {voice.sample_rate} Hz)")

    @property
    def voice(self) -> Voice:
        """The selected voice."""
        return self._voices[self.voice_box.currentIndex()]

    def voices(self) -> list[Voice]:
        """The voices in the picker, in order."""
        return list(self._voices)

    def voice_names(self) -> list[str]:
        """Names of the voices in the picker, in order."""
        return [v.name for v in self._voices]

    def added_voice_paths(self) -> list[str]:
        """Model paths of voices the user added (for the settings file)."""
        return [str(v.model_path) for v in self._voices if v.origin == "added"]

    def add_voice_files(self, paths: list[Path]) -> list[Voice]:
        """Add ``.onnx`` voices (files or folders) now and ``.ckpt`` checkpoints in the background.

        Errors are shown, naming the file. Returns the ``.onnx`` voices added.
        """
        added = []
        known = {v.model_path.absolute() for v in self._voices}
        files = [m for p in map(Path, paths) for m in (sorted(p.rglob("*.onnx")) if p.is_dir() else [p])]
        checkpoints = [p for p in files if p.suffix.lower() == ".ckpt" and p.absolute() not in known]
        if checkpoints:
            self._add_checkpoints(checkpoints)
        for path in files:
            if path.suffix.lower() == ".ckpt":
                continue
            try:
                voice = load_voice(path, origin=_origin(path))
            except VoiceError as exc:
                self.show_notice(str(exc))
                continue
            if voice.model_path.absolute() in known:
                continue
            self._append_voice(voice)
            added.append(voice)
        if added:
            self.voice_box.setCurrentIndex(len(self._voices) - 1)
            self.voices_changed.emit()
        return added

    def _add_checkpoints(self, paths: list[Path]) -> Task:
        """Read checkpoints off the GUI thread (torch loads then), then list them as voices."""

        def work(cancel: threading.Event):
            from engines.vits.checkpoint import load_checkpoint_voice

            for path in paths:
                try:
                    yield load_checkpoint_voice(path)
                except VoiceError as exc:
                    yield exc

        def on_item(item) -> None:
            if isinstance(item, Exception):
                self.show_notice(str(item))
                return
            self._append_voice(item)
            self.voice_box.setCurrentIndex(len(self._voices) - 1)
            self.voices_changed.emit()
            self.checkpoint_added.emit(item)

        task = Task(work, self)
        task.partial.connect(on_item)
        task.failed.connect(lambda exc: self.show_notice(str(exc)))
        return task.start()

    def _on_add_voice_clicked(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(
            self, "Add Piper voices", "", "Piper voices and checkpoints (*.onnx *.ckpt)"
        )
        self.add_voice_files([Path(f) for f in files])

    def _on_voice_changed(self, index: int) -> None:
        if index < 0:
            return
        voice = self.voice
        if voice.model_path.suffix.lower() == ".ckpt":  # only the torch engine speaks checkpoints
            self.engine_box.setCurrentIndex(max(0, self.engine_box.findData("torch")))
        speakers = voice.config.speakers or [str(i) for i in range(voice.config.num_speakers)]
        self.speaker_box.clear()
        if voice.config.num_speakers > 1:
            self.speaker_box.addItems(speakers)
        self.speaker_box.setVisible(voice.config.num_speakers > 1)
        self.speaker_label.setVisible(voice.config.num_speakers > 1)
        self._reset_sliders()

    def _reset_sliders(self) -> None:
        config = self.voice.config
        self.speed.set_value(config.length_scale)
        self.noise_scale.set_value(config.noise_scale)
        self.noise_w.set_value(config.noise_w)

    def options(self) -> SynthesisOptions:
        """The request options from the sliders and speaker picker."""
        speaker = self.speaker_box.currentText() if self.voice.config.num_speakers > 1 else None
        return SynthesisOptions(
            speaker=speaker,
            length_scale=self.speed.value(),
            noise_scale=self.noise_scale.value(),
            noise_w=self.noise_w.value(),
        )

    def _enable_noise_sliders(self) -> None:
        """Remote servers take noise settings only when they are Voice Studio servers (found by Test)."""
        piper = self.engine_kind() != "remote" or self.remote_panel.speaks_piper()
        for slider in (self.noise_scale, self.noise_w):
            slider.setEnabled(piper)
            slider.setToolTip("" if piper else "This server does not take Piper's noise settings.")

    def engine_kind(self) -> str:
        """The chosen engine: ``onnx``, ``torch`` or ``remote``."""
        return self.engine_box.currentData()

    def _on_engine_changed(self) -> None:
        remote = self.engine_kind() == "remote"
        self.remote_panel.setVisible(remote)
        self._enable_noise_sliders()
        for widget in (self.voice_box, self.add_voice_button):
            widget.setEnabled(not remote)
        many = not remote and self.voice.config.num_speakers > 1
        self.speaker_box.setVisible(many)
        self.speaker_label.setVisible(many)

    def engine_for(self, voice: Voice, kind: str):
        """The loaded ``kind`` engine for ``voice``, loading it on first use (call off the GUI thread)."""
        with self._engine_lock:
            key = (kind, voice.model_path.absolute())
            if key not in self._engines:
                self._engines[key] = create_engine(kind, voice)
            return self._engines[key]

    def _show_engine_devices(self) -> None:
        """Name the torch engine's device in the picker once it is known."""
        for (kind, _), engine in list(self._engines.items()):
            index = self.engine_box.findData(kind)
            if kind == "torch" and index >= 0:
                self.engine_box.setItemText(index, f"Local torch ({engine.device_label})")

    def preload(self) -> Task:
        """Load the selected voice's engine and the audio library in the background.

        The first Speak is then quick, and a missing sound device is reported
        before anyone presses Speak.
        """
        voice, kind = self.voice, self.engine_kind()

        def work(cancel: threading.Event) -> str:
            from engines.playback import output_available

            self.engine_for(voice, kind)
            ok, reason = output_available()
            return "" if ok else f"Cannot play audio: {reason}. Saving to a WAV file still works."

        task = Task(work, self)
        task.done.connect(lambda notice: self.show_notice(notice) if notice else None)
        task.failed.connect(lambda exc: self.show_notice(str(exc)))
        task.ended.connect(self._show_engine_devices)
        return task.start()

    # --- speaking -------------------------------------------------------
    def speak(self) -> Task | None:
        """Speak the text box's content; returns the running task (``None`` if nothing to say)."""
        text = self.text_edit.toPlainText()
        if not text.strip():
            self.show_notice("Nothing to say: type a line first.")
            return None
        self.stop()
        voice, options, kind = self.voice, self.options(), self.engine_kind()
        try:
            make_engine, name = self._engine_maker(voice, kind)
        except ValueError as exc:
            self.remote_panel.show_error(str(exc))
            return None
        speaking = self._speaking = Speaking()
        self._line_audio, self._stats, self._line_rate = [], StreamStats(), 0
        self.waveform.clear_audio(voice.sample_rate)
        self.show_notice("")
        self.status.setText("Speaking…")
        task = Task(lambda cancel: speak_and_play(make_engine(), text, options, speaking, cancel), self)
        task.partial.connect(lambda item: self._on_partial(item) if speaking is self._speaking else None)
        task.failed.connect(lambda exc: self._on_failed(exc) if speaking is self._speaking else None)
        task.ended.connect(lambda: self._on_ended(speaking, text, name))
        speaking.cancel = task.cancel
        self._set_busy(True)
        return task.start()

    def _engine_maker(self, voice: Voice, kind: str):
        """``(make_engine, line name)``; the remote engine's settings are read here, on the GUI thread.

        Raises:
            ValueError: a remote setting is invalid (named in the message).
        """
        if kind != "remote":
            return (lambda: self.engine_for(voice, kind)), voice.name
        from engines.http_engine import RemoteEngine

        settings = self.remote_panel.settings()
        return (lambda: RemoteEngine(settings)), f"{settings.model}/{settings.voice}"

    def _on_partial(self, item) -> None:
        kind, value = item
        if kind == "chunk":
            chunk: AudioChunk = value
            if not self._line_rate:
                self._line_rate = chunk.sample_rate
                self.waveform.clear_audio(chunk.sample_rate)
            self._line_audio.append(chunk.audio)
            self._stats.add(chunk)
            self.waveform.append(chunk.audio)
        elif kind == "notice":
            self.show_notice(value)
        elif kind == "synthesized":
            self._show_stats()

    def _show_stats(self) -> None:
        stats = self._stats
        if stats.audio_s == 0:
            self.status.setText("")
            self.show_notice("Nothing to say: the text has no speakable words.")
            return
        self.status.setText(
            f"first audio {stats.first_audio_s:.2f} s · RTF {stats.rtf:.3f} · {stats.audio_s:.1f} s of audio"
        )

    def _on_failed(self, exc: Exception) -> None:
        self.show_notice(f"Could not speak: {exc}")
        if self.engine_kind() == "remote":
            self.remote_panel.show_error(str(exc))
        self.status.setText("")

    def _on_ended(self, speaking: Speaking, text: str, name: str) -> None:
        speaking.ended = True
        self._show_engine_devices()
        if speaking is not self._speaking:
            return
        self._set_busy(False)
        if not self._line_audio:
            return
        line = Line(text, name, self._line_rate, audio_ops.concat(self._line_audio), self._stats)
        self._last = line
        self.save_button.setEnabled(True)
        item = QListWidgetItem(f"{name}: {text.strip()[:80]}")
        item.setData(Qt.ItemDataRole.UserRole, line)
        self.history.insertItem(0, item)
        self.line_finished.emit(line)

    def stop(self) -> None:
        """Stop synthesis and playing at once; what the stopped line still sends is ignored."""
        self._speaking.stop()
        self._set_busy(False)

    def _set_busy(self, busy: bool) -> None:
        self.stop_button.setEnabled(busy)

    def is_speaking(self) -> bool:
        """True from Speak until the line has been played (and handled here) or stopped."""
        return self._speaking.active

    # --- history and files ----------------------------------------------
    def _on_history_activated(self, item: QListWidgetItem) -> None:
        self.replay(item.data(Qt.ItemDataRole.UserRole))

    def replay(self, line: Line) -> Task:
        """Play a finished line again (no synthesis)."""
        self.stop()
        self.waveform.set_audio(line.audio, line.sample_rate)
        speaking = self._speaking = Speaking()

        task = Task(lambda cancel: replay_and_wait(line.audio, line.sample_rate, speaking, cancel), self)
        task.failed.connect(lambda exc: self.show_notice(str(exc)))
        task.ended.connect(lambda: self._on_replay_ended(speaking))
        speaking.cancel = task.cancel
        self._set_busy(True)
        return task.start()

    def _on_replay_ended(self, speaking: Speaking) -> None:
        speaking.ended = True
        if speaking is self._speaking:
            self._set_busy(False)

    @property
    def last_line(self) -> Line | None:
        """The most recent finished line."""
        return self._last

    def save_wav(self, path: Path, line: Line | None = None) -> Path:
        """Write a line (default: the last) to a file: 16-bit WAV, or FLAC/OGG by extension.

        Raises:
            ValueError: nothing spoken yet, or an unsupported path (``engines.audio.check_output_path``).
            OSError: the folder is not writable.
        """
        line = line or self._last
        if line is None:
            raise ValueError("nothing has been spoken yet")
        return audio_ops.write_audio(path, line.audio, line.sample_rate)

    def _on_save_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save audio", "line.wav", "WAV audio (*.wav);;FLAC audio (*.flac);;Ogg Vorbis (*.ogg)"
        )
        if path:
            try:
                self.save_wav(Path(path))
                self.message.emit(f"Saved {path}")
            except (OSError, ValueError) as exc:
                self.show_notice(f"Could not save {path}: {exc}")

    def show_notice(self, text: str) -> None:
        """Show (or with ``""`` clear) a message under the buttons."""
        self.notice.setText(text)
        if text:
            self.message.emit(text)


def _default_line() -> str:
    path = assets.path("default_lines.txt")
    lines = [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()] if path.exists() else []
    return lines[0] if lines else "Hello! This is Voice Studio."


def _origin(path: Path) -> str:
    """``user`` for a voice in the user's voice folder (an exported one), else ``added``."""
    from engines.registry import user_voice_dir

    return "user" if Path(path).absolute().is_relative_to(user_voice_dir().absolute()) else "added"
