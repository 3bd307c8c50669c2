"""A run's previews, newest first: each the line it speaks and its epoch; click (or Enter) plays one, and under
the list what plays, how far it is and **Stop** (``studio.widgets.clip_player.ClipPlayer``, loudness-matched)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engines.imports import importing
from engines.output_device import why_not_played
from engines.words import count
from studio.widgets.clip_player import ClipPlayer
from trainer.events.preview_lines import preview_moment

PATH = Qt.ItemDataRole.UserRole
"""Item data: the preview WAV's path."""
PLAYING = "▶ "
"""Put before the text of the preview that plays."""
ASKED = "Previews asked for: the trainer speaks them after its current training step."
"""Under the list from Preview now until the next previews are listed."""


class PreviewList(QWidget):
    """Previews to play.

    Attributes:
        list: the ``QListWidget``; each item's text ``Epoch N · LINE`` (``Epoch N, step S · LINE`` for one spoken
            within epoch N, asked for), its data (``PATH``) the WAV's path.
        now: what plays (or why it cannot); progress: its position (milliseconds); stop: the Stop button.

    Signals:
        message(str): a preview that cannot be played (the reason), one whose device stopped mid-preview, or the
            device's own rate it is played at (``ClipPlayer.message``).
    """

    message = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.setSpacing(3)
        self.list.itemClicked.connect(self.play)
        self.list.itemActivated.connect(self.play)  # Enter on the keyboard
        self.player = ClipPlayer(self)
        self.player.position_changed.connect(self._on_position)
        self.player.playing_changed.connect(self._on_playing)
        self.player.message.connect(self._on_player_message)
        self.now = QLabel("")
        self.now.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.setVisible(False)  # while playing
        self.stop = QPushButton("Stop")
        self.stop.setEnabled(False)
        self.stop.clicked.connect(self.player.stop)
        self._playing: QListWidgetItem | None = None
        self._asked = False
        """Previews were asked for (``expect``) and none has been listed since."""
        row = QHBoxLayout()
        row.addWidget(self.progress, 1)
        row.addWidget(self.stop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.now)
        layout.addLayout(row)
        self._idle_text()

    def count(self) -> int:
        """Previews listed."""
        return self.list.count()

    def clear(self) -> None:
        """Stop playing and forget the previews (another run is shown)."""
        self.player.stop()
        self.list.clear()
        self._asked = False
        self._idle_text()

    def expect(self) -> None:
        """Say under the list that previews were asked for and come after the trainer's current step (until the
        next ones are listed)."""
        self._asked = True
        if not self.player.is_playing():
            self._idle_text()

    def add_previews(self, previews: list[tuple[int, str, str]]) -> None:
        """List ``(epoch from 0, WAV path, line text)`` not listed yet, newest on top."""
        shown = {self.list.item(i).data(PATH) for i in range(self.list.count())}
        for epoch, path, text in previews:
            if path not in shown:
                item = QListWidgetItem(f"{preview_moment(epoch, path)} · {text or Path(path).name}")
                item.setData(PATH, path)
                item.setToolTip(f"{path}\nClick or press Enter to play it.")
                self.list.insertItem(0, item)
                self._asked = False
        if not self.player.is_playing():
            self._idle_text()

    def play(self, item: QListWidgetItem) -> bool:
        """Play ``item``'s WAV (replacing what plays); False, with the reason shown, when it cannot be played."""
        with importing("soundfile"):
            import soundfile

        path = item.data(PATH)
        try:
            audio, rate = soundfile.read(path, dtype="float32", always_2d=True)
            self.player.play(audio.mean(axis=1), rate)
        except Exception as exc:  # a missing or unreadable file, no output device: said, never raised
            reason = f"Cannot play the preview “{item.text().removeprefix(PLAYING)}”: {why_not_played(exc)}"
            self.now.setText(reason)
            self.message.emit(reason)
            return False
        self.now.setText(f"Playing {item.text()}")
        self._mark(item)
        self.progress.setRange(0, max(1, round(self.player.duration_s() * 1000)))
        return True

    def _mark(self, item: QListWidgetItem | None) -> None:
        """Show ``item`` as the one playing (bold, ▶), and no other."""
        if self._playing is not None and self.list.row(self._playing) >= 0:
            self._playing.setText(self._playing.text().removeprefix(PLAYING))
            self._playing.setFont(QFont())
        self._playing = item
        if item is not None:
            font = QFont()
            font.setBold(True)
            item.setFont(font)
            item.setText(PLAYING + item.text())

    def _on_position(self, seconds: float) -> None:
        self.progress.setValue(round(seconds * 1000))
        self.progress.setFormat(f"{seconds:.1f} / {self.player.duration_s():.1f} s")

    def _on_player_message(self, text: str) -> None:
        """The player's word: the device's own rate (to the status bar) or a device that stopped mid-preview (under
        the list too, in place of what played)."""
        if not self.player.is_playing():
            self.now.setText(text)
        self.message.emit(text)

    def _on_playing(self, playing: bool) -> None:
        self.stop.setEnabled(playing)
        self.progress.setVisible(playing)
        if not playing:
            self._mark(None)
            self._idle_text()

    def _idle_text(self) -> None:
        n = self.list.count()
        listed = f"{count(n, 'preview')}: click one (or press Enter) to play it." if n else "No previews yet."
        self.now.setText(f"{ASKED} {listed}" if self._asked else listed)
        self.progress.setValue(0)
        self.progress.setFormat("")
