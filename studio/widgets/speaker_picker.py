"""The speaker of a multi-speaker voice: a label and a combo box for one form row."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QLabel

from engines import names
from engines.voice import Voice


class SpeakerPicker:
    """``label`` and ``box`` (a form row), shown for a voice of several speakers spoken by a local engine.

    A remote server's speaker is the remote panel's voice field, so with the remote engine the row is hidden
    and :meth:`speaker` is ``None``.
    """

    def __init__(self) -> None:
        self.label = QLabel("Speaker")
        self.box = QComboBox()
        self._voice: Voice | None = None
        self._local = True

    def show_voice(self, voice: Voice) -> None:
        """List ``voice``'s speakers (names, else ids as digits); the speaker chosen stays chosen when ``voice`` has
        one of that name (another export of the same speakers), else the first is."""
        chosen = self.box.currentText()
        self._voice = voice
        config = voice.config
        self.box.clear()
        if config.num_speakers > 1:
            self.box.addItems(config.speakers or [str(i) for i in range(config.num_speakers)])
            self.box.setCurrentIndex(max(0, self.box.findText(chosen)))
        self._update()

    def set_local(self, local: bool) -> None:
        """Whether a local engine is chosen (the row is hidden for the remote one)."""
        self._local = local
        self._update()

    def speaker(self) -> int | None:
        """The chosen speaker id (``None``: the voice's default, or a remote engine)."""
        if not self._local or self._voice is None:
            return None
        return names.find_speaker(self._voice, self.box.currentText())

    def _update(self) -> None:
        many = self._local and self._voice is not None and self._voice.config.num_speakers > 1
        self.box.setVisible(many)
        self.label.setVisible(many)
