"""The "Remote server" settings of the Synthesize page: address, key, model, voice, format, Test.

Test asks the server for its models and voices off the GUI thread and fills
the pickers; what goes wrong is shown under the fields, in words. The panel is
a view of ``Workspace.remote`` (``studio.state``): it shows it, and writes each
valid edit of its fields back to it; the page builds the engine from ``settings()``.
"""

from __future__ import annotations

import os
import threading

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit, QPushButton

from engines.remote.settings import RESPONSE_FORMATS, RemoteSettings
from engines.words import count
from studio.state import Workspace
from studio.widgets.ticking import TickingStatus
from studio.workers import Task, TaskSlot

KEY_VARIABLES = ("VOICE_STUDIO_API_KEY", "OPENAI_API_KEY")
"""Environment variables the key field starts from (keys are never written to the settings file)."""


class RemotePanel(QGroupBox):
    """Fields for an OpenAI-compatible speech server.

    What Test found (the status line, which models are Voice Studio ones) belongs to the URL and key it
    asked with: changing either clears it, and a Test answer that arrives after such a change is dropped.

    Signals:
        tested(list): the model ids found by a successful Test.
        server_changed(): the URL or key changed; what a Test found before is forgotten.
    """

    tested = Signal(list)
    server_changed = Signal()

    def __init__(self, workspace: Workspace, parent=None) -> None:
        super().__init__("Remote server", parent)
        self.workspace = workspace
        saved = workspace.remote
        self.url = QLineEdit(saved.url)
        key = saved.api_key or next((os.environ[v] for v in KEY_VARIABLES if os.environ.get(v)), "")
        self.api_key = QLineEdit(key)
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setPlaceholderText("none (keys are not saved)")
        self.model = _editable(saved.model)
        self.voice = _editable(saved.voice)
        self.response_format = QComboBox()
        self.response_format.addItems(RESPONSE_FORMATS)
        self.response_format.setCurrentText(saved.response_format)
        self.response_format.setToolTip("pcm and wav play as they stream; compressed formats play when complete")
        self.test_button = QPushButton("Test")
        self.test_button.clicked.connect(self.test)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self._asking = TickingStatus(self.status)
        """Counts the seconds a Test waits for the server."""
        self._piper_models: set[str] = set()
        self.generation = 0
        """Counts URL and key changes: an error of a request made before one is not shown (the Synthesize
        page's speaking errors too)."""
        self._tests = TaskSlot()
        """The running Test: a change of URL or key (or another Test) drops it and its late result."""
        self.url.textChanged.connect(self._forget_server)
        self.api_key.textChanged.connect(self._forget_server)
        for box in (self.model, self.voice, self.response_format):
            box.currentTextChanged.connect(self._write)
        self._quiet = False
        """Set while the panel fills its own fields: they are written once, after."""
        workspace.events.remote.connect(self._on_remote)

        url_row = QHBoxLayout()
        url_row.addWidget(self.url, 1)
        url_row.addWidget(self.test_button)
        form = QFormLayout(self)
        form.addRow("URL", url_row)
        form.addRow("API key", self.api_key)
        form.addRow("Model", self.model)
        form.addRow("Voice", self.voice)
        form.addRow("Format", self.response_format)
        form.addRow(self.status)
        self._write()  # the key from the environment

    def settings(self) -> RemoteSettings:
        """The current fields as engine settings.

        Raises:
            ValueError: the URL is not an http(s) address.
        """
        model = self.model.currentText().strip()
        return RemoteSettings(
            url=self.url.text().strip(),
            api_key=self.api_key.text().strip() or None,
            model=model,
            voice=self.voice.currentText().strip() or "default",
            response_format=self.response_format.currentText(),
            piper_params=self.speaks_piper(),
        )

    def speaks_piper(self) -> bool:
        """True when Test found the chosen model on a Voice Studio server (it takes noise_scale and noise_w)."""
        return self.model.currentText().strip() in self._piper_models

    def _write(self) -> None:
        """Valid fields become the workspace's remote settings; an invalid URL is said when it is used."""
        if self._quiet:
            return
        try:
            self.workspace.remote = self.settings()
        except ValueError:
            pass

    def _on_remote(self, settings: RemoteSettings) -> None:
        """Show the workspace's remote settings (fields already showing them are left alone)."""
        self._quiet = True
        for edit, text in ((self.url, settings.url), (self.api_key, settings.api_key or "")):
            if edit.text().strip() != text:
                edit.setText(text)
        for box, text in ((self.model, settings.model), (self.voice, settings.voice)):
            if box.currentText().strip() != text:
                box.setCurrentText(text)
        self.response_format.setCurrentText(settings.response_format)
        self._quiet = False

    def show_error(self, text: str, generation: int | None = None) -> bool:
        """An error under the fields, in red (``""`` clears it); dropped when ``generation`` (``self.generation``
        when the failed request was made) is not the current one: the fields name another server now. Returns
        whether it is shown."""
        if generation is not None and generation != self.generation:
            return False
        self._asking.stop()
        self.status.setStyleSheet("color: #b91c1c;")
        self.status.setText(text)
        return True

    def _forget_server(self) -> None:
        self.generation += 1
        self._tests.drop()
        self._asking.stop()
        self._piper_models = set()
        self.status.setText("")
        self.server_changed.emit()
        self._write()

    def shutdown(self) -> None:
        """On closing the app: drop a running connection test (its result would reach no one)."""
        self._tests.drop()

    def test(self) -> Task | None:
        """Fetch the server's models and the chosen model's voices in the background."""
        try:
            settings = self.settings()
        except ValueError as exc:
            self.show_error(str(exc))
            return None
        self.status.setStyleSheet("")
        self._asking.start(f"Asking {settings.url}")
        self.test_button.setEnabled(False)

        def work(cancel: threading.Event):
            from engines.remote.engine import RemoteEngine

            engine = RemoteEngine(settings)
            try:
                models = engine.models()
                ids = [m["id"] for m in models]
                model = settings.model if settings.model in ids or not ids else ids[0]
                return models, model, engine.voices(model)
            finally:
                engine.close()

        task = Task(work, self)
        task.done.connect(self._on_tested)
        task.failed.connect(lambda exc: self.show_error(str(exc)))
        for end in (task.ended, task.dropped):
            end.connect(lambda: self.test_button.setEnabled(True))
        task.ended.connect(self._asking.stop)
        return self._tests.start(task)

    def _on_tested(self, result) -> None:
        models, model, voices = result
        ids = [m["id"] for m in models]
        self._piper_models = {m["id"] for m in models if m.get("owned_by") == "voice-studio"}
        self._quiet = True
        _refill(self.model, ids, model)
        _refill(self.voice, voices, self.voice.currentText() if self.voice.currentText() in voices else None)
        self._quiet = False
        self._write()  # the models found say whether the chosen one takes Piper's noise settings
        self.status.setStyleSheet("color: #15803d;")
        self._asking.stop()
        self.status.setText(
            f"Connected: {count(len(ids), 'model')}, {count(len(voices), 'voice')} for {model or 'the server'}"
        )
        self.tested.emit(ids)


def _editable(text: str) -> QComboBox:
    box = QComboBox()
    box.setEditable(True)
    box.setCurrentText(text)
    return box


def _refill(box: QComboBox, items: list[str], current: str | None) -> None:
    keep = box.currentText()
    box.clear()
    box.addItems(items)
    box.setCurrentText(current or (items[0] if items else keep))
