"""The Synthesize page: pick a voice, type, hear it stream; save, replay.

All synthesis and playing happen on a worker thread (``studio.workers.Task``);
this page only reacts to the chunks it is handed (waveform, timing) and to the
user's clicks, so the window never freezes. It shows the studio's models
(``studio.state``): the voices of the ``VoiceLibrary``, the remote settings of
the ``Workspace``, engines from the ``EnginePool``, the ``SpokenLines`` as history.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engines.base import AudioChunk, SynthesisOptions
from engines.cleaning import clean_text
from engines.frontend.lexicon import LexiconError, voice_lexicon
from engines.frontend.markup import MarkupError, is_ssml, parse_markup, said
from engines.output_device import PlaybackStopped
from engines.phonemes import language_of
from engines.voice import Voice
from studio.line_runner import LineRunner
from studio.pages.synthesize_home_assistant import SendVoiceActions
from studio.speaking import ENGINE_LABELS, Line, Take, default_line, load_and_speak, replay_and_wait
from studio.state import StudioState
from studio.widgets.compact import MinimumKeepingSplitter, scrolled
from studio.widgets.engine_picker import EnginePicker
from studio.widgets.flow_layout import flow_row
from studio.widgets.history import HistoryList
from studio.widgets.notices import Notices
from studio.widgets.pronunciations import PronunciationsDialog
from studio.widgets.speak_bar import SpeakBar
from studio.widgets.speaker_picker import SpeakerPicker
from studio.widgets.ticking import TickingStatus
from studio.widgets.voice_picker import VoicePicker
from studio.widgets.voice_settings import VoiceSettings
from studio.widgets.waveform import WaveformView
from studio.widgets.word_highlight import WordHighlight
from studio.workers import Task

READS_DELAY_MS = 250
"""The "Reads:" line follows typing after this pause."""
READS_CHARS = 400
"""The "Reads:" line shows at most this many characters of the normalized text."""


class SynthesizePage(SendVoiceActions, QWidget):
    """Voice picker, text box, Speak/Stop, sliders, waveform, timing, history and Save WAV.

    Signals:
        message(str): a notice for the status bar.
        line_finished(object): a :class:`Line` when a line has been fully synthesized.
        checkpoint_added(object): a checkpoint voice was read and added to the library.
    """

    message = Signal(str)
    line_finished = Signal(object)
    checkpoint_added = Signal(object)
    engines: EnginePicker
    notice: Notices
    stop_button: QPushButton

    def __init__(self, state: StudioState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self._take = Take("", "")
        self._stop_said = ""
        """The last "Playback stopped …" the status showed (a replay takes it away)."""
        self._engine_before: str | None = None
        """The engine a checkpoint voice switched away from (to torch), chosen again for the next ``.onnx`` voice."""
        self._build()
        self._lines = LineRunner(self, self.stop_button.setEnabled, self.engines.show_devices)
        if len(state.library):
            self._on_voice_changed(self.voice)

    # --- layout ---------------------------------------------------------
    def _build(self) -> None:
        self.picker = VoicePicker(self.state.library)
        self.voice_box = self.picker.box
        self.picker.voice_changed.connect(self._on_voice_changed)
        self.picker.checkpoint_added.connect(self.checkpoint_added)
        self.picker.adding.connect(lambda: self.notice.clear("add"))  # a failed add's notice goes at the next add
        self.picker.notice.connect(self._on_add_failed)
        self.engines = EnginePicker(self.state.engines, self.state.workspace)
        self.engine_box, self.remote_panel = self.engines.box, self.engines.remote_panel
        self.engines.changed.connect(self._on_engine_changed)
        self.speakers = SpeakerPicker()
        self.speaker_box, self.speaker_label = self.speakers.box, self.speakers.label

        self.text_edit = QPlainTextEdit()
        self.text_edit.setPlaceholderText("Type a line to speak, then press Ctrl+Enter.")
        self.text_edit.setPlainText(default_line())
        self.text_edit.setTabChangesFocus(True)  # Tab / Shift+Tab move on; Ctrl+Tab types a tab character
        tab = QShortcut(QKeySequence("Ctrl+Tab"), self.text_edit, lambda: self.text_edit.insertPlainText("\t"))
        tab.setContext(Qt.ShortcutContext.WidgetShortcut)
        self.ssml_box = QCheckBox("SSML")
        """Read the text as SSML. It follows the text (checked when it comes to start with ``<speak>``, unchecked
        when it no longer does); checked by hand, SSML without ``<speak>``; unchecked, markup read as written."""
        self.ssml_box.setToolTip(
            "Read the text as SSML (<break>, <prosody rate>, <say-as>, <sub>, <phoneme>…; <speak> optional). "
            "Checked by itself when the text starts with <speak>; uncheck it to hear the tags read as written. "
            "Inline [pause:1s] and [rate:1.2] tags count either way."
        )
        self._looked_ssml = False
        """Whether the text started with ``<speak>`` when last looked at (the box follows a change of it)."""
        self.text_edit.textChanged.connect(self._follow_text)
        self.reads = QLabel()
        """The text as the chosen voice will say it (``engines.frontend``), shown where that differs from it."""
        self.reads.setWordWrap(True)
        self.reads.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.reads.hide()
        self._reads_timer = QTimer(self, singleShot=True, interval=READS_DELAY_MS)
        self._reads_timer.timeout.connect(self.show_reads)
        self.text_edit.textChanged.connect(self._reads_timer.start)
        self.ssml_box.toggled.connect(self._reads_timer.start)
        self.highlight = WordHighlight(self.text_edit)
        """The word being heard, highlighted in the text box while a spoken line plays."""

        self.bar = bar = SpeakBar(self.state.workspace.save_folders)
        self.bar.speak.connect(self.speak)
        self.bar.stop.connect(self.stop)
        self.bar.saved.connect(self._on_saved)
        self.bar.save_failed.connect(lambda text: self.show_notice(text, "save"))
        self.speak_button, self.stop_button, self.save_button = bar.speak_button, bar.stop_button, bar.save_button
        self.status = self.bar.status
        self.waiting = TickingStatus(self.status)
        """Counts the seconds of a wait (an engine loading, a server not answering yet) in the status line."""
        for keys, slot in (("Ctrl+Return", self.speak), ("Ctrl+Enter", self.speak), ("Escape", self.stop)):
            QShortcut(QKeySequence(keys), self).activated.connect(slot)

        self.settings = VoiceSettings()
        settings = self.settings
        self.speed, self.noise_scale, self.noise_w = settings.speed, settings.noise_scale, settings.noise_w
        self.reset_button = settings.reset_button
        self.engines.noise_changed.connect(
            lambda takes: settings.enable_noise(takes, "This server does not take Piper's noise settings.")
        )

        self.notice = Notices()
        self.waveform = WaveformView()
        self.history = HistoryList(self.state.lines)
        self.history.chosen.connect(self.replay)

        self.pronunciations_button = QPushButton("Pronunciations…")
        self.pronunciations_button.setToolTip("Words this voice says your way (its lexicon, beside the voice file)")
        self.pronunciations_button.clicked.connect(self.edit_pronunciations)

        self.send_button = QPushButton("Send to Home Assistant…")
        self.send_button.clicked.connect(self.ask_send_voice)
        voice_buttons = flow_row(self.pronunciations_button, self.send_button)  # wraps in a narrow column

        top = QFormLayout()
        top.addRow("Voice", self.picker)
        top.addRow("", voice_buttons)
        top.addRow("Engine", self.engines)
        top.addRow(self.speaker_label, self.speaker_box)

        left, right = _Column(), QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.addLayout(top)
        column = (
            (self.text_edit, 1),
            (self.ssml_box, 0),
            (self.reads, 0),
            (self.bar, 0),
            (self.notice, 0),
            (self.waveform, 1),
        )
        for widget, stretch in column:
            left_layout.addWidget(widget, stretch)
        right.setMinimumWidth(340)
        right_layout = QVBoxLayout(right)
        right_layout.addWidget(self.settings)
        heading = QLabel("History (double-click to replay; grey: an earlier session's)")
        heading.setWordWrap(True)  # the pane may be narrow: the words wrap, never cut
        right_layout.addWidget(heading)
        right_layout.addWidget(self.history, 1)
        splitter = MinimumKeepingSplitter()
        splitter.addWidget(scrolled(left))  # the remote panel's fields keep their height; a short window scrolls
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        QWidget.setTabOrder(self.save_button, self.ssml_box)  # one Tab from the text box is still Speak

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

    def add_voice_files(self, paths: list[Path]) -> list[Voice]:
        """Add ``.onnx`` voices (files or folders) now and ``.ckpt`` checkpoints in the background.

        Errors are shown, naming the file. Returns the ``.onnx`` voices added.
        """
        return self.picker.add_files(paths)

    def _on_add_failed(self, text: str, detail: str) -> None:
        """A voice file could not be added: said (with those of the same add) until the next add or a line
        spoken; the reading library's own words in the tooltip."""
        before, tips = self.notice.about("add"), self.notice.detail("add")
        self.notice.put("add", f"{before}\n{text}" if before else text, f"{tips}\n{detail}" if tips else detail)
        self.message.emit(text)

    def _on_voice_changed(self, voice: Voice) -> None:
        switched = self._engine_for(voice)
        self.speakers.show_voice(voice)
        self._follow_voice_for_sending(voice)
        self.settings.set_defaults(voice.config, voice.name)  # what the user set stays, and is said
        self.notice.clear("voice", "engine", "line", "send")  # about the voice shown until now, not this
        if switched:
            self.show_notice(switched, "engine")
        if not self.picker.is_adding():  # another voice chosen: a failed add before it is over (docs/synthesize.md)
            self.notice.clear("add")
        self.show_reads()

    def _engine_for(self, voice: Voice) -> str:
        """Only the torch engine speaks checkpoints: a ``.ckpt`` voice switches to it (returns the words saying so)
        and the next ``.onnx`` voice goes back to the engine chosen before (unless another was chosen since)."""
        before = self.engine_kind()
        if voice.model_path.suffix.lower() != ".ckpt":
            if self._engine_before is not None and before == "torch":
                self.engines.choose(self._engine_before)
            self._engine_before = None
            return ""
        if before == "torch" or self.engine_box.findData("torch") < 0:
            return ""
        self.engines.choose("torch")
        self._engine_before = before
        return (
            f"{voice.name} is a checkpoint: only the torch engine speaks it (switched from {ENGINE_LABELS[before]}; "
            "an .onnx voice goes back to it)."
        )

    def restore(
        self, voice_path: str | None, engine: str | None, text: str | None = None, ssml: bool | None = None
    ) -> None:
        """Choose the voice of model file ``voice_path`` (when the library has it) and the ``engine`` kind (when
        offered), put ``text`` in the text box (``None``: the default line stays) and set the SSML box (``None``:
        as the text says): what the settings kept from the last session."""
        if text is not None:
            self.text_edit.setPlainText(text)
        if ssml is not None:
            self.ssml_box.setChecked(ssml)
        voice = self.state.library.find(voice_path) if voice_path else None
        if voice is not None:
            self.voice_box.setCurrentIndex(self.voices().index(voice))
        if engine and self.engine_box.findData(engine) >= 0 and self.voice.model_path.suffix.lower() != ".ckpt":
            self.engines.choose(engine)

    def options(self) -> SynthesisOptions:
        """The request options from the sliders and the speaker picker (a local voice's; a remote server's
        speaker is the remote panel's voice)."""
        length_scale, noise_scale, noise_w = self.settings.values()
        return SynthesisOptions(
            speaker=self.speakers.speaker(),
            length_scale=length_scale,
            noise_scale=noise_scale,
            noise_w=noise_w,
            timestamps=True,  # the word heard is highlighted (WordHighlight)
            ssml=self.ssml_box.isChecked(),
        )

    def _follow_text(self) -> None:
        """Check the SSML box when the text comes to start with ``<speak>``, uncheck it when it no longer does (a
        choice made by hand stays until then)."""
        looks = is_ssml(self.text_edit.toPlainText())
        if looks != self._looked_ssml:
            self._looked_ssml = looks
            self.ssml_box.setChecked(looks)

    def engine_kind(self) -> str:
        """The chosen engine: ``onnx``, ``torch`` or ``remote``."""
        return self.engines.kind()

    def _on_engine_changed(self) -> None:
        remote = self.engine_kind() == "remote"
        if self.engine_kind() != "torch":
            self._engine_before = None  # another engine chosen: not switched back later
        self.notice.clear("engine")  # a message about the engine chosen until now is not about this one
        self.picker.setEnabled(not remote)
        self.speakers.set_local(not remote)
        self.show_reads()

    def show_reads(self) -> None:
        """Say under the text box how the chosen local voice will read the text where its text front end reads it
        otherwise than written (``$3.50``: "Reads: three dollars and fifty cents"; the voice's lexicon words as its
        entries; markup: its speech, a pause as ``[1 s]``), with any ambiguous form in the tooltip; hidden where it
        reads as written, and for a remote engine (its server normalizes for its own voice). Malformed markup is
        said there for every engine."""
        ssml = self.ssml_box.isChecked()
        text = clean_text(self.text_edit.toPlainText(), ssml=ssml)
        if not len(self.state.library) or not text.strip():
            self.reads.hide()
            return
        try:
            parts = parse_markup(text, ssml)
        except MarkupError as exc:
            self.reads.setText(str(exc))
            self.reads.setToolTip("")
            self.reads.show()
            return
        if self.engine_kind() == "remote":
            self.reads.hide()
            return
        try:
            lexicon = voice_lexicon(self.voice.model_path)
        except LexiconError as exc:  # said once, here; speaking says it again
            self.show_notice(str(exc), "lexicon")
            lexicon = None
        found = said(parts, language_of(self.voice.config), pauses=True, lexicon=lexicon)
        shown = found.text if len(found.text) <= READS_CHARS else found.text[:READS_CHARS] + "…"
        self.reads.setText(f"Reads: {shown}")
        self.reads.setToolTip("\n".join(a.describe() for a in found.ambiguous))
        self.reads.setVisible(found.text != text)

    def preload(self) -> Task:
        """Load the selected voice's engine and the audio library in the background.

        The first Speak is then quick, and a missing sound device is reported before anyone presses Speak. While
        the engine loads the status says so ("Loading ONNX engine…", with the seconds past 0.5 s), then how long
        it took.
        """
        voice, kind = self.voice, self.engine_kind()
        loading = self.engines.loading_text(voice, kind)
        if loading and not self.is_speaking():
            self.waiting.start(loading)

        def chosen() -> bool:  # the voice and engine it loaded are still the chosen ones
            return self.voice is voice and self.engine_kind() == kind

        def loaded(result: tuple[str, float | None]) -> None:
            device, seconds = result
            self.show_notice(device, "device")
            if self._still_waiting(loading):
                self.waiting.stop()
                loaded_text = f"{ENGINE_LABELS[kind]} engine loaded in {seconds or 0:.1f} s"
                self.status.setText(loaded_text if chosen() else "")

        def failed(exc: Exception) -> None:
            if self._still_waiting(loading):
                self.waiting.stop()
                self.status.setText("")
            if chosen():
                self.show_notice(f"{voice.name}: {exc}", "engine")

        task = self.engines.preloader(voice, kind)
        task.done.connect(loaded)
        task.failed.connect(failed)
        return task.start()

    def _still_waiting(self, loading: str) -> bool:
        """Whether the status still counts the wait of the preload that shows ``loading`` (no line took it over)."""
        return bool(loading) and self.waiting.is_active() and self.waiting.text == loading and not self.is_speaking()

    # --- speaking -------------------------------------------------------
    def edit_pronunciations(self) -> PronunciationsDialog:
        """Open the chosen voice's Pronunciations… dialog (``studio.widgets.pronunciations``); its Hear speaks
        here, and what was saved shows in the "Reads:" line once it closes."""
        dialog = PronunciationsDialog(self.voice.model_path, self)
        dialog.hear.connect(self.speak)
        dialog.finished.connect(lambda _: self.show_reads())
        dialog.open()
        return dialog

    def speak(self, text: str | None = None) -> Task | None:
        """Speak ``text`` (default: the text box's content); returns the running task (``None`` if nothing to say).

        An engine that is not loaded yet loads first, said in the status ("Loading torch engine…", with the
        seconds), and its load time is shown apart from time to first audio. Malformed markup is said in the status
        line, naming where, and nothing is spoken.
        """
        text = self.text_edit.toPlainText() if text is None else text
        if not text.strip():
            self.show_notice("Nothing to say: type a line first.", "line")
            return None
        voice, options, kind = self.voice, self.options(), self.engine_kind()
        cleaned = clean_text(text, ssml=options.ssml)
        try:
            parse_markup(cleaned, options.ssml)  # malformed markup is said, never read aloud (nor sent)
        except MarkupError as exc:
            self.status.setText(str(exc))
            self.message.emit(str(exc))
            return None
        self.stop()
        try:
            make_engine, name = self.engines.maker(voice)
        except ValueError as exc:
            self.remote_panel.show_error(str(exc))
            return None
        spoken = text if kind == "remote" else cleaned  # a server cleans its own input
        self._take = Take(text, name, kind)
        self.bar.show_line(None)  # Save WAV saves the line on screen: none until this one is finished
        self.waveform.clear_audio(voice.sample_rate)
        self.notice.clear("engine", "line", "save")  # this line's own notices replace them; the device's stays
        # until the line's check of the sound device says it again or that it is back
        loading = self.engines.loading_text(voice, kind)
        if kind == "remote":
            self.waiting.start(f"Waiting for {self.remote_panel.url.text().strip()}")
        else:
            self.waiting.stop()
            self.status.setText("Speaking…")
        task, speaking = self._lines.task(
            lambda s, cancel: load_and_speak(make_engine, loading, spoken, options, s, cancel), then=self._on_spoken
        )
        self.highlight.follow(self._take.timeline, speaking.heard_s)
        task.partial.connect(self._on_partial)
        server = self.remote_panel.generation if kind == "remote" else None
        task.failed.connect(lambda exc: self._on_failed(exc, name, server))
        return self._lines.start(task)

    def _on_partial(self, item) -> None:
        kind, value = item
        if kind == "chunk":
            chunk: AudioChunk = value
            if self._take.add(chunk):
                self._on_first_chunk(chunk)
            self.waveform.append(chunk.audio)
        elif kind == "loading":
            self.waiting.start(value)
        elif kind == "loaded":
            self._take.load_s = value
            self.waiting.stop()
            self.status.setText("Speaking…")
        elif kind == "answered":
            self._take.answered_s = value
        elif kind == "notice":
            topic, text = value
            self.show_notice(text, topic)
        elif kind == "synthesized":
            self._show_stats()
        elif kind == "playback_stopped":
            self._take.playback_stopped = value
            self._show_playback_stopped(value)

    def _on_first_chunk(self, chunk: AudioChunk) -> None:
        self.waveform.clear_audio(chunk.sample_rate)
        if self.waiting.is_active():  # a server has answered
            self.waiting.stop()
            self.status.setText("Speaking…")
        if self._take.engine == "remote":
            self.remote_panel.show_error("")  # it answers: an error it gave before is over

    def _show_stats(self) -> None:
        if self._take.stats.audio_s == 0:
            self.status.setText("")
            self.show_notice("Nothing to say: the text has no speakable words.", "line")
            return
        self.status.setText(self._take.playback_stopped or self._take.timing())

    def _show_playback_stopped(self, text: str) -> None:
        """The device failed while playing: the status says after how many seconds and why (until the next line or
        replay), and so does the status bar."""
        self.waiting.stop()
        self.status.setText(text)
        self._stop_said = text
        self.message.emit(text)

    def _on_failed(self, exc: Exception, name: str, server: int | None) -> None:
        """The line spoken with ``name`` (a remote one: asked of the server ``server``, a remote panel generation)
        failed; the message names it, since the choice may have changed since. A server's error is said once, in
        the remote panel under its fields (not again under the buttons and in the status bar)."""
        if server is None or not self.remote_panel.show_error(str(exc), server):
            self.show_notice(f"Could not speak with {name}: {exc}", "engine")  # a server's error: in its box alone
        self.waiting.stop()
        self.status.setText("")

    def _on_spoken(self) -> None:
        """The line spoken last has ended: it is on screen, in the history, and announced (if it has audio). A line
        Stop cut short is kept as a stopped line (its audio is the part synthesized before Stop), and the status
        says so."""
        cancel = self._lines.speaking.cancel
        stopped = cancel is not None and cancel.is_set()
        line = self._take.line(stopped=stopped)
        self.highlight.stop()
        if stopped:
            self.status.setText(f"Stopped after {line.seconds:.1f} s of audio" if line else "Stopped before any audio")
        if line is None:
            return
        if not stopped:
            self.notice.clear("add")  # a line spoken: a failed add before it is over
        self.bar.show_line(line)
        self.state.lines.add(line)
        self.line_finished.emit(line)

    def stop(self) -> None:
        """Stop synthesis and playing at once; what the stopped line still sends is ignored. The status says it
        stopped (with the seconds of audio kept, once the line has ended)."""
        if self._lines.active:
            self.waiting.stop()
            self.status.setText("Stopped")
        self._lines.stop()
        self.highlight.stop()

    def is_speaking(self) -> bool:
        """True from Speak until the line has been played (and handled here) or stopped."""
        return self._lines.active

    # --- history and files ----------------------------------------------
    def replay(self, line: Line) -> Task | None:
        """Play a finished line again (no synthesis), its words highlighted as they are heard where the text box
        holds its text; a line of an earlier session (``Line.earlier``: its audio is not kept) is put back in the
        text box and spoken again with the voice and engine chosen now."""
        if line.earlier:
            self.text_edit.setPlainText(line.text)
            return self.speak()
        self.stop()
        self.waveform.set_audio(line.audio, line.sample_rate)
        self.bar.show_line(line)
        if self.status.text() == self._stop_said:  # a stop said before: this replay is another try
            self.status.setText("")
        task, speaking = self._lines.task(lambda s, cancel: replay_and_wait(line.audio, line.sample_rate, s, cancel))
        if self.text_edit.toPlainText() == line.text:  # the words are found in the box (what was typed since: not)
            self.highlight.follow(line.timeline, speaking.heard_s)
        task.done.connect(lambda note: self.show_notice(note, "device") if note else None)
        task.failed.connect(self._on_replay_failed)
        return self._lines.start(task)

    def _on_replay_failed(self, exc: Exception) -> None:
        """A replay that could not play (no device) or stopped (the device failed): said under the buttons, and a
        stop also in the status."""
        if isinstance(exc, PlaybackStopped):
            self._show_playback_stopped(str(exc))
        else:
            self.show_notice(str(exc), "device")

    @property
    def last_line(self) -> Line | None:
        """The finished line on screen (the last spoken or replayed; ``None`` while a line is spoken or after
        one failed)."""
        return self.bar.line

    def save_wav(self, path: Path, line: Line | None = None) -> Path:
        """Write a line (default: the one on screen, ``last_line``) to a file: 16-bit WAV, or FLAC/OGG by extension.

        A stopped line (``Line.stopped``) saves what was synthesized before Stop, and Save WAV's message says it
        is partial; speak the text again to save the whole line.

        Raises:
            ValueError: nothing spoken yet, or an unsupported path (``engines.audio.check_output_path``).
            OSError: the folder is not writable.
        """
        return self.bar.save(path, line)

    def show_notice(self, text: str, about: str = "settings") -> None:
        """Show (or with ``""`` take away) the notice about ``about`` (``studio.widgets.notices.TOPICS``) under the
        buttons; it stays until its subject changes (another voice, engine, line or save) or another replaces it."""
        self.notice.put(about, text)
        if text:
            self.message.emit(text)

    def _on_saved(self, path: Path) -> None:
        self.notice.clear("save")  # a save that worked ends the error of one that did not
        self.message.emit(f"Saved {path}{_partial(self.bar.line)}")


class _Column(QWidget):
    """The page's left column, in a scroll area: it fills the area and scrolls only below the height it needs.

    A scroll area gives a column with wrapped labels the height the column asks for its width; Qt's answer
    counts the text box and waveform at their preferred heights (a scroll bar with room to spare). This one
    counts them at their minimum, and the rows that wrap (the remote panel, the status, the notices) at their
    height for the width.
    """

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt override
        layout = self.layout()
        if layout is None:
            return super().heightForWidth(width)
        margins = layout.contentsMargins()
        inner = width - margins.left() - margins.right()
        items = [layout.itemAt(i) for i in range(layout.count())]
        shown = [item for item in items if item is not None and not item.isEmpty()]
        heights = [
            item.heightForWidth(inner) if item.hasHeightForWidth() else item.minimumSize().height() for item in shown
        ]
        total = sum(heights) + layout.spacing() * max(0, len(shown) - 1) + margins.top() + margins.bottom()
        return max(total, self.minimumSizeHint().height())


def _partial(line: Line | None) -> str:
    """A note for Save WAV's message when the line saved was cut short by Stop."""
    if line is None or not line.stopped:
        return ""
    return f" (partial: the {line.seconds:.1f} s synthesized before Stop; speak again to save the whole line)"
