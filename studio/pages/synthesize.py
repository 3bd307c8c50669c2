"""The Synthesize page: pick a voice, type, hear it stream; save, replay.

All synthesis and playing happen on a worker thread (``studio.workers.Task``);
this page only reacts to the chunks it is handed (waveform, timing) and to the
user's clicks, so the window never freezes.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
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
from engines import names
from engines.base import AudioChunk, StreamStats, SynthesisOptions
from engines.cleaning import clean_text
from engines.voice import Voice
from studio.speaking import Line, Speaking, replay_and_wait, speak_and_play
from studio.widgets.engine_picker import EnginePicker
from studio.widgets.voice_picker import VoicePicker
from studio.widgets.voice_settings import VoiceSettings
from studio.widgets.waveform import WaveformView
from studio.workers import Task, TaskSlot


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
        self._speaking = Speaking()
        self._lines = TaskSlot()  # the line being spoken or replayed: the next one drops its late signals
        self._line_audio: list[np.ndarray] = []
        self._stats = StreamStats()
        self._last: Line | None = None
        self._line_rate = 0
        self._line_name = ""
        self._build()
        self.picker.load([Path(p) for p in extra_voices or []])

    # --- layout ---------------------------------------------------------
    def _build(self) -> None:
        self.picker = VoicePicker()
        self.voice_box = self.picker.box
        self.picker.voice_changed.connect(self._on_voice_changed)
        self.picker.voices_changed.connect(self.voices_changed)
        self.picker.checkpoint_added.connect(self.checkpoint_added)
        self.picker.notice.connect(self.show_notice)
        self.engines = EnginePicker(self._remote_saved)
        self.engine_box, self.remote_panel = self.engines.box, self.engines.remote_panel
        self.engines.changed.connect(self._on_engine_changed)
        self.remote_panel.tested.connect(lambda _: self._enable_noise_sliders())
        self.remote_panel.server_changed.connect(self._enable_noise_sliders)
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

        self.settings = VoiceSettings()
        settings = self.settings
        self.speed, self.noise_scale, self.noise_w = settings.speed, settings.noise_scale, settings.noise_w
        self.reset_button = settings.reset_button

        self.status = QLabel("")
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notice = QLabel("")
        self.notice.setWordWrap(True)
        self.notice.setStyleSheet("color: #b45309;")
        self.waveform = WaveformView()
        self.history = QListWidget()
        self.history.itemDoubleClicked.connect(self._on_history_activated)

        top = QFormLayout()
        top.addRow("Voice", self.picker)
        top.addRow("Engine", self.engines)
        top.addRow(self.speaker_label, self.speaker_box)

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
        right_layout.addWidget(self.settings)
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
    @property
    def voice(self) -> Voice:
        """The selected voice."""
        return self.picker.voice

    def voices(self) -> list[Voice]:
        """The voices in the picker, in order."""
        return self.picker.voices()

    def voice_names(self) -> list[str]:
        """Names of the voices in the picker, in order."""
        return [v.name for v in self.picker.voices()]

    def added_voice_paths(self) -> list[str]:
        """Model paths of voices the user added (for the settings file)."""
        return [str(v.model_path) for v in self.picker.voices() if v.origin == "added"]

    def add_voice_files(self, paths: list[Path]) -> list[Voice]:
        """Add ``.onnx`` voices (files or folders) now and ``.ckpt`` checkpoints in the background.

        Errors are shown, naming the file. Returns the ``.onnx`` voices added.
        """
        return self.picker.add_files(paths)

    def _on_voice_changed(self, voice: Voice) -> None:
        if voice.model_path.suffix.lower() == ".ckpt":  # only the torch engine speaks checkpoints
            self.engines.choose("torch")
        speakers = voice.config.speakers or [str(i) for i in range(voice.config.num_speakers)]
        self.speaker_box.clear()
        if voice.config.num_speakers > 1:
            self.speaker_box.addItems(speakers)
        self.speaker_box.setVisible(voice.config.num_speakers > 1)
        self.speaker_label.setVisible(voice.config.num_speakers > 1)
        self.settings.set_defaults(voice.config)
        self.show_notice("")  # a message about the voice shown until now is not about this one

    def options(self) -> SynthesisOptions:
        """The request options from the sliders and the speaker picker (a local voice's; a remote server's
        speaker is the remote panel's voice)."""
        local = self.engine_kind() != "remote"
        speaker = names.find_speaker(self.voice, self.speaker_box.currentText()) if local else None
        length_scale, noise_scale, noise_w = self.settings.values()
        return SynthesisOptions(speaker=speaker, length_scale=length_scale, noise_scale=noise_scale, noise_w=noise_w)

    def _enable_noise_sliders(self) -> None:
        """Remote servers take noise settings only when they are Voice Studio servers (found by Test)."""
        self.settings.enable_noise(self.engines.speaks_piper(), "This server does not take Piper's noise settings.")

    def engine_kind(self) -> str:
        """The chosen engine: ``onnx``, ``torch`` or ``remote``."""
        return self.engines.kind()

    def _on_engine_changed(self) -> None:
        remote = self.engine_kind() == "remote"
        self.show_notice("")  # a message about the engine chosen until now is not about this one
        self._enable_noise_sliders()
        self.picker.setEnabled(not remote)
        many = not remote and self.voice.config.num_speakers > 1
        self.speaker_box.setVisible(many)
        self.speaker_label.setVisible(many)

    def preload(self) -> Task:
        """Load the selected voice's engine and the audio library in the background.

        The first Speak is then quick, and a missing sound device is reported
        before anyone presses Speak.
        """
        voice, kind = self.voice, self.engine_kind()

        def work(cancel: threading.Event) -> str:
            from engines.playback import output_available

            self.engines.engine_for(voice, kind)
            ok, reason = output_available()
            return "" if ok else f"Cannot play audio: {reason}. Saving to a WAV file still works."

        def show(text: str) -> None:  # only while the voice and engine it loaded are still the chosen ones
            if text and self.voice is voice and self.engine_kind() == kind:
                self.show_notice(text)

        task = Task(work, self)
        task.done.connect(show)
        task.failed.connect(lambda exc: show(f"{voice.name}: {exc}"))
        task.ended.connect(self.engines.show_devices)
        return task.start()

    # --- speaking -------------------------------------------------------
    def speak(self) -> Task | None:
        """Speak the text box's content; returns the running task (``None`` if nothing to say)."""
        text = self.text_edit.toPlainText()
        if not text.strip():
            self.show_notice("Nothing to say: type a line first.")
            return None
        self.stop()
        voice, options = self.voice, self.options()
        try:
            make_engine, name = self.engines.maker(voice)
        except ValueError as exc:
            self.remote_panel.show_error(str(exc))
            return None
        spoken = text if self.engine_kind() == "remote" else clean_text(text)  # a server cleans its own input
        speaking = self._speaking = Speaking()
        self._line_audio, self._stats, self._line_rate, self._line_name = [], StreamStats(), 0, name
        self._show_line(None)  # Save WAV saves the line on screen: none until this one is finished
        self.waveform.clear_audio(voice.sample_rate)
        self.show_notice("")
        self.status.setText("Speaking…")
        task = Task(lambda cancel: speak_and_play(make_engine(), spoken, options, speaking, cancel), self)
        task.partial.connect(self._on_partial)
        server = self.remote_panel.generation if self.engine_kind() == "remote" else None
        task.failed.connect(lambda exc: self._on_failed(exc, name, server))
        task.ended.connect(lambda: self._on_ended(speaking, text, name))
        speaking.cancel = task.cancel
        self._set_busy(True)
        return self._lines.start(task)

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
        self.status.setText(  # named: the line's voice may no longer be the chosen one
            f"{self._line_name}: first audio {stats.first_audio_s:.2f} s · RTF {stats.rtf:.3f} · "
            f"{stats.audio_s:.1f} s of audio"
        )

    def _on_failed(self, exc: Exception, name: str, server: int | None) -> None:
        """The line spoken with ``name`` (a remote one: asked of the server ``server``, a remote panel generation)
        failed; the message names it, since the choice may have changed since."""
        self.show_notice(f"Could not speak with {name}: {exc}")
        if server is not None:
            self.remote_panel.show_error(str(exc), server)
        self.status.setText("")

    def _on_ended(self, speaking: Speaking, text: str, name: str) -> None:
        speaking.ended = True
        self.engines.show_devices()
        self._set_busy(False)
        if not self._line_audio:
            return
        line = Line(text, name, self._line_rate, audio_ops.concat(self._line_audio), self._stats)
        self._show_line(line)
        item = QListWidgetItem(f"{name}: {text.strip()[:80]}")
        item.setData(Qt.ItemDataRole.UserRole, line)
        self.history.insertItem(0, item)
        self.line_finished.emit(line)

    def _show_line(self, line: Line | None) -> None:
        """``line`` is the one on screen, which Save WAV saves (``None``: nothing to save)."""
        self._last = line
        self.save_button.setEnabled(line is not None)

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
        self._show_line(line)
        speaking = self._speaking = Speaking()

        task = Task(lambda cancel: replay_and_wait(line.audio, line.sample_rate, speaking, cancel), self)
        task.failed.connect(lambda exc: self.show_notice(str(exc)))
        task.ended.connect(lambda: self._on_replay_ended(speaking))
        speaking.cancel = task.cancel
        self._set_busy(True)
        return self._lines.start(task)

    def _on_replay_ended(self, speaking: Speaking) -> None:
        speaking.ended = True
        self._set_busy(False)

    @property
    def last_line(self) -> Line | None:
        """The finished line on screen (the last spoken or replayed; ``None`` while a line is spoken or after
        one failed)."""
        return self._last

    def save_wav(self, path: Path, line: Line | None = None) -> Path:
        """Write a line (default: the one on screen, ``last_line``) to a file: 16-bit WAV, or FLAC/OGG by extension.

        Raises:
            ValueError: nothing spoken yet, or an unsupported path (``engines.audio.check_output_path``).
            OSError: the folder is not writable.
        """
        line = line or self._last
        if line is None:
            raise ValueError("nothing to save: no finished line is on screen")
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
