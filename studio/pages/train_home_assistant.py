"""The Train page's Home Assistant actions: Export voice's question (the voice's name, language and quality,
prefilled from the run: ``trainer.checkpoints.naming``; ``studio.widgets.home_assistant.NamingDialog``) and Send to
Home Assistant… (a wyoming-piper upload or a data folder: ``trainer.checkpoints.home_assistant``), off the GUI
thread.

A mixin of :class:`studio.pages.train.TrainPage` beside ``studio.pages.train_actions``, whose attributes and
methods it uses (declared below).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import cast

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from studio.state import Workspace
from studio.workers import Task
from trainer.events.run_state import RunState


class HomeAssistantActions:
    """Ask the naming before an export; send the voice exported last to Home Assistant."""

    state: RunState | None
    workspace: Workspace
    exported: Path | None
    export: Callable[..., Task | None]
    _say: Callable[[str], None]
    _page: Callable[[], QObject]
    naming_dialog = None
    """The naming dialog open (``studio.widgets.home_assistant.NamingDialog``), else ``None``."""

    def ask_export(self, take: str = "recommended") -> None:
        """Ask the name, language and quality of the voice (prefilled: ``trainer.checkpoints.naming``), then
        :meth:`export` under them; the dialog stays open in :attr:`naming_dialog` until answered."""
        from studio.widgets.home_assistant import NamingDialog
        from trainer.checkpoints.naming import run_naming

        if self.state is None:
            return
        try:
            default = run_naming(self.state.folder)
        except ValueError as exc:  # a run's config gone or garbled: said, nothing asked
            self._say(f"Nothing to export: {exc}")
            return
        dialog = NamingDialog(default, cast(QWidget, self))
        dialog.accepted.connect(lambda: self.export(take, dialog.naming()))
        dialog.finished.connect(lambda _: setattr(self, "naming_dialog", None))
        self.naming_dialog = dialog
        dialog.open()

    def ask_send(self) -> None:
        """Ask where to send the voice exported last (a wyoming-piper URL or a data folder, prefilled with where
        one went last), then :meth:`send` it there."""
        from studio.widgets.home_assistant import SendDialog

        if self.exported is None:
            return
        sent = self.workspace.home_assistant
        dialog = SendDialog(self.exported.name, sent.get("url", ""), sent.get("folder", ""), cast(QWidget, self))
        dialog.accepted.connect(lambda: self.send(*dialog.target()))
        dialog.open()

    def send(self, kind: str, where: str) -> Task | None:
        """Send the voice exported last to Home Assistant: upload it to the wyoming-piper web server at ``where``
        (``kind`` ``"url"``) or copy it into the data folder ``where`` (``"folder"``), off the GUI thread; the
        place is remembered (the settings keep it) and the outcome said, with the reminder to reload the Piper
        integration, or the error named."""
        from trainer.checkpoints.home_assistant import RELOAD_REMINDER, copy_voice, send_voice

        voice = self.exported
        if voice is None:
            return None
        self.workspace.home_assistant = {**self.workspace.home_assistant, kind: where}
        self._say(f"Sending {voice.name} to {where}…")

        def work(cancel: threading.Event) -> str:
            return send_voice(voice, where) if kind == "url" else str(copy_voice(voice, where).parent)

        task = Task(work, self._page())
        task.done.connect(lambda _: self._say(f"Sent {voice.name} to {where}. {RELOAD_REMINDER}"))
        task.failed.connect(lambda exc: self._say(f"Sending {voice.name} failed: {exc}"))
        return task.start()
