"""The engine picker: local ONNX, local torch (CUDA or CPU) or a remote speech server."""

from __future__ import annotations

import importlib.util
import threading
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QComboBox, QVBoxLayout, QWidget

from engines.base import Engine
from engines.pool import EnginePool
from engines.voice import Voice
from studio.speaking import ENGINE_LABELS
from studio.state import Workspace
from studio.widgets.remote_panel import RemotePanel
from studio.workers import Task


class EnginePicker(QWidget):
    """An engine combo box, with the remote server's settings below it when that engine is chosen.

    Local engines come from the studio's :class:`EnginePool` (loaded once per
    (engine, voice) and kept); loading happens on whichever thread first asks
    (:meth:`engine_for`), never on the GUI thread by this widget. The remote
    server's fields are a view of ``workspace.remote``.

    Signals:
        changed(str): the chosen engine kind.
        noise_changed(bool): whether the chosen engine takes Piper's noise settings may have changed (a remote
            server does only when Test found it to be a Voice Studio server); the new answer.
    """

    changed = Signal(str)
    noise_changed = Signal(bool)

    def __init__(self, pool: EnginePool, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pool = pool
        self.box = QComboBox()
        self.box.addItem("Local ONNX (CPU)", "onnx")
        if importlib.util.find_spec("torch") is not None:  # found, not imported: torch loads when chosen
            self.box.addItem("Local torch (CUDA if present, else CPU)", "torch")
        self.box.addItem("Remote server (OpenAI speech API)", "remote")
        self.remote_panel = RemotePanel(workspace)
        self.remote_panel.setVisible(False)
        self.box.currentIndexChanged.connect(self._on_index_changed)
        panel = self.remote_panel
        for signal in (panel.tested, panel.server_changed, panel.model.currentTextChanged):
            signal.connect(lambda *_: self.noise_changed.emit(self.speaks_piper()))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.box)
        layout.addWidget(self.remote_panel)

    def kind(self) -> str:
        """The chosen engine: ``onnx``, ``torch`` or ``remote``."""
        return self.box.currentData()

    def choose(self, kind: str) -> None:
        """Select ``kind`` if it is offered."""
        self.box.setCurrentIndex(max(0, self.box.findData(kind)))

    def speaks_piper(self) -> bool:
        """True when the engine takes Piper's noise settings (local ones, and Voice Studio servers)."""
        return self.kind() != "remote" or self.remote_panel.speaks_piper()

    def engine_for(self, voice: Voice, kind: str) -> Engine:
        """The pool's ``kind`` engine for ``voice``, loading it on first use (call off the GUI thread).

        Raises:
            EngineError, VoiceError: the engine could not be loaded.
        """
        return self.pool.get(kind, voice)

    def loading_text(self, voice: Voice, kind: str) -> str:
        """What the status says while ``voice``'s ``kind`` engine loads ("Loading torch engine for joe"; ``""``:
        loaded already, or ``remote``, which loads nothing)."""
        if kind == "remote" or self.pool.has(kind, voice):
            return ""
        return f"Loading {ENGINE_LABELS[kind]} engine for {voice.name}"

    def maker(self, voice: Voice) -> tuple[Callable[[], Engine], str]:
        """``(make_engine, line name)`` for the chosen engine; call on the GUI thread, run ``make_engine`` off it.

        Raises:
            ValueError: a remote setting is invalid (named in the message).
        """
        kind = self.kind()
        if kind != "remote":
            return (lambda: self.engine_for(voice, kind)), voice.name
        from engines.remote.engine import RemoteEngine

        settings = self.remote_panel.settings()
        return (lambda: RemoteEngine(settings)), f"{settings.model}/{settings.voice}"

    def preloader(self, voice: Voice, kind: str, parent: QObject | None = None) -> Task:
        """A task (not started) that loads ``voice``'s ``kind`` engine (none for ``remote``) and the audio library;
        it returns ``(why nothing can be played or "", seconds the engine took to load or None)``. The picker names
        the torch engine's device after it."""

        def work(cancel: threading.Event) -> tuple[str, float | None]:
            from engines.output_device import output_available

            seconds = None
            if kind != "remote":
                start = time.perf_counter()
                self.engine_for(voice, kind)
                seconds = time.perf_counter() - start
            ok, reason = output_available()
            return ("" if ok else f"Cannot play audio: {reason}. Saving to a WAV file still works."), seconds

        task = Task(work, parent or self)
        task.ended.connect(self.show_devices)
        return task

    def show_devices(self) -> None:
        """Name the torch engine's device in the combo box once an engine has been loaded."""
        for kind, engine in self.pool.loaded():
            index = self.box.findData(kind)
            if kind == "torch" and index >= 0:
                self.box.setItemText(index, f"Local torch ({getattr(engine, 'device_label', 'loaded')})")

    def _on_index_changed(self) -> None:
        self.remote_panel.setVisible(self.kind() == "remote")
        self.changed.emit(self.kind())
        self.noise_changed.emit(self.speaks_piper())
