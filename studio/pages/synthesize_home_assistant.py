"""The Synthesize page's Send to Home Assistant…: the chosen voice (a voice file on disk: an added, imported or
downloaded ``.onnx``) uploaded to a running wyoming-piper or copied into a data folder, under a name Home Assistant
and wyoming-piper accept (``engines.voice_naming``). The name is asked with the Train page's dialogs
(``studio.widgets.home_assistant``), prefilled with the voice's own where it follows the rule, else one made from
it (``trainer.checkpoints.naming.default_naming``); the voice goes as ``trainer.checkpoints.home_assistant`` sends
it (its config's ``dataset``, ``language`` and ``audio.quality`` written for the name; the files on disk stay as
they are), off the GUI thread. A checkpoint is exported first (the Train page's Export voice).

A mixin of :class:`studio.pages.synthesize.SynthesizePage`, whose attributes and methods it uses (declared below).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import cast

from PySide6.QtWidgets import QPushButton, QWidget

from engines.voice import Voice
from engines.voice_naming import VoiceNaming
from studio.state import StudioState
from studio.workers import Task

CHECKPOINT_TIP = "A checkpoint goes to Home Assistant once exported: the Train page's Export voice"
SEND_TIP = "Upload this voice to wyoming-piper, or copy it into a data folder, under a name Home Assistant accepts"


class SendVoiceActions:
    """Ask the name the chosen voice goes under and where it goes; send it there."""

    state: StudioState
    show_notice: Callable[[str, str], None]
    send_button: QPushButton
    naming_dialog = None
    """The naming dialog open (``studio.widgets.home_assistant.NamingDialog``), else ``None``."""
    send_dialog = None
    """The dialog asking where the voice goes (``studio.widgets.home_assistant.SendDialog``), else ``None``."""

    @property
    def voice(self) -> Voice:
        """The chosen voice (the page's)."""
        raise NotImplementedError

    def _follow_voice_for_sending(self, voice: Voice) -> None:
        """Send to Home Assistant… takes voice files (``.onnx``); a checkpoint's button says to export it."""
        checkpoint = voice.model_path.suffix.lower() == ".ckpt"
        self.send_button.setEnabled(not checkpoint)
        self.send_button.setToolTip(CHECKPOINT_TIP if checkpoint else SEND_TIP)

    def ask_send_voice(self) -> None:
        """Ask the name, language and quality the chosen voice goes under (prefilled), then where it goes."""
        from studio.widgets.home_assistant import NamingDialog

        voice = self.voice
        dialog = NamingDialog(_default_naming(voice), cast(QWidget, self))
        dialog.setWindowTitle("Send to Home Assistant")
        dialog.accepted.connect(lambda: self._ask_where(voice.model_path, dialog.naming()))
        dialog.finished.connect(lambda _: setattr(self, "naming_dialog", None))
        self.naming_dialog = dialog
        dialog.open()

    def _ask_where(self, path: Path, naming: VoiceNaming) -> None:
        """Ask where the voice goes (a wyoming-piper URL or a data folder, prefilled with where one went last)."""
        from studio.widgets.home_assistant import SendDialog

        sent = self.state.workspace.home_assistant
        dialog = SendDialog(naming.stem, sent.get("url", ""), sent.get("folder", ""), cast(QWidget, self))
        dialog.accepted.connect(lambda: self.send_voice(path, naming, *dialog.target()))
        dialog.finished.connect(lambda _: setattr(self, "send_dialog", None))
        self.send_dialog = dialog
        dialog.open()

    def send_voice(self, path: Path, naming: VoiceNaming, kind: str, where: str) -> Task:
        """Send the voice ``path`` as ``naming.stem``: upload it to the wyoming-piper web server at ``where``
        (``kind`` ``"url"``) or copy it into the data folder ``where`` (``"folder"``), off the GUI thread; the
        place is remembered and the outcome said (with the reminder to reload the Piper integration), or the
        error named."""
        from trainer.checkpoints.home_assistant import RELOAD_REMINDER, copy_voice, send_voice

        self.state.workspace.home_assistant = {**self.state.workspace.home_assistant, kind: where}
        self.show_notice(f"Sending {naming.stem} to {where}…", "send")

        def work(cancel: threading.Event) -> str:
            return send_voice(path, where, naming) if kind == "url" else str(copy_voice(path, where, naming))

        task = Task(work, cast(QWidget, self))
        task.done.connect(lambda _: self.show_notice(f"Sent {naming.stem} to {where}. {RELOAD_REMINDER}", "send"))
        task.failed.connect(lambda exc: self.show_notice(f"Sending {naming.stem} failed: {exc}", "send"))
        return task.start()


def _default_naming(voice: Voice) -> VoiceNaming:
    """The name a voice file goes under unless changed: its own where it follows the rule, else one made from its
    file name, language and rate (``default_naming``); a language that cannot be told is left for the user."""
    from engines.voice_naming import NamingError
    from trainer.checkpoints.naming import default_naming

    try:
        return default_naming(voice.model_path, voice.config)
    except NamingError:
        return default_naming(voice.model_path, voice.config, language="")
