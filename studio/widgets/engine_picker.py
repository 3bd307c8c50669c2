"""The engine picker: local ONNX, local torch (CUDA or CPU) or a remote speech server."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QComboBox, QVBoxLayout, QWidget

from engines.base import Engine
from engines.extras import torch_device
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
        self.box.setItemData(0, ONNX_TIP, Qt.ItemDataRole.ToolTipRole)
        device = torch_device()  # guessed, not imported: torch loads when chosen
        if device is not None:
            self.box.addItem("", "torch")
            self._name_torch(device)
        self.box.addItem("Remote server (OpenAI speech API)", "remote")
        self.box.setItemData(self.box.count() - 1, REMOTE_TIP, Qt.ItemDataRole.ToolTipRole)
        self.box.setToolTip(ONNX_TIP)
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
        """Name the torch engine's device in the combo box once an engine has been loaded (still saying how much
        slower than ONNX it is on the CPU)."""
        for kind, engine in self.pool.loaded():
            if kind == "torch" and self.box.findData(kind) >= 0:
                self._name_torch(getattr(engine, "device_label", "CPU"))

    def _name_torch(self, device: str) -> None:
        """Word the torch item for ``device`` (``"cpu"``/``"cuda"`` as guessed, or the engine's device label)."""
        index = self.box.findData("torch")
        text, tip = torch_item(device)
        self.box.setItemText(index, text)
        self.box.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)
        if index == self.box.currentIndex():
            self.box.setToolTip(tip)

    def _on_index_changed(self) -> None:
        self.box.setToolTip(self.box.currentData(Qt.ItemDataRole.ToolTipRole) or "")
        self.remote_panel.setVisible(self.kind() == "remote")
        self.changed.emit(self.kind())
        self.noise_changed.emit(self.speaks_piper())


ONNX_TIP = (
    "Piper's ONNX voices on the CPU: the engine to use without a GPU (joe speaks at RTF about 0.08 on 2 cores, "
    "docs/benchmarks.md)."
)
REMOTE_TIP = "A speech server that speaks OpenAI's /v1/audio/speech (a Voice Studio server, or another)."
TORCH_CPU = "CPU: 1.2–10× slower than ONNX"
"""The torch engine on the CPU against ONNX, as measured for joe on 2 cores: 1.1–1.3× on an idle machine
(docs/benchmarks.md), RTF 0.84 against 0.08 (and 0.4–1.5 against 0.16) while other work shared the cores."""
TORCH_CPU_TIP = (
    "On the CPU the torch engine takes 1.1–1.3× ONNX's time on an idle machine and up to about 10× when other "
    "work shares the cores (RTF 0.84 against 0.08 measured beside a training run). Use it for a CUDA GPU and for "
    ".ckpt checkpoints, which only it speaks; choose ONNX for .onnx voices on a CPU."
)
TORCH_CUDA_TIP = "The torch engine on the NVIDIA GPU (it also speaks .ckpt checkpoints, which only it speaks)."


def torch_item(device: str) -> tuple[str, str]:
    """The torch item's text and tooltip for ``device``: ``"cpu"``/``"cuda"`` (``engines.extras.torch_device``'s
    guess) or the loaded engine's label (``CPU``, ``CUDA (NVIDIA …)``)."""
    if device.lower() == "cpu":
        return f"Local torch ({TORCH_CPU})", TORCH_CPU_TIP
    return f"Local torch ({'CUDA GPU' if device == 'cuda' else device})", TORCH_CUDA_TIP
