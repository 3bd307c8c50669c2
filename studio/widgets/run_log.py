"""The Train page's log: one event per line in plain words (``trainer.events.words``), following the newest
line unless the person scrolled up to read (scrolling back to the end follows again). Every other event is
shaded (the palette's base towards its text) and lines wrap between words, a path at its ``/``, so an event that
wraps reads as one."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtGui import QColor, QPalette, QShowEvent, QTextBlockFormat, QTextCursor, QTextOption
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from trainer.events.schema import Event
from trainer.events.words import sentence, worth_a_line

SHADE = 0.07
"""How far every other event's background moves from the base colour towards the text colour."""
MAX_LINES = 5000
"""Lines kept; older ones are dropped from the top."""


class RunLog(QPlainTextEdit):
    """Read-only log lines. ``following``: whether new lines scroll it to the end (True until the person
    scrolls up; True again once they scroll back to the end)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setMaximumBlockCount(MAX_LINES)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WordWrap)  # never mid-word; a path breaks at its "/"
        self._shaded = False
        self.following = True
        bar = self.verticalScrollBar()
        bar.rangeChanged.connect(self._on_range)
        bar.valueChanged.connect(self._on_scrolled)

    def add_events(self, events: Iterable[Event]) -> None:
        """Append each event as a sentence (a past run's events, read from its file)."""
        for event in events:
            if worth_a_line(event):
                self.appendPlainText(sentence(event))

    def appendPlainText(self, text: str) -> None:  # noqa: N802 - Qt's name
        """Append one event's line, shaded when the one before was not."""
        super().appendPlainText(text)
        block = QTextBlockFormat()
        if self._shaded:
            block.setBackground(self.shade())
        QTextCursor(self.document().lastBlock()).setBlockFormat(block)
        self._shaded = not self._shaded

    def shade(self) -> QColor:
        """The shaded events' background: the palette's base moved 7% towards its text (light and dark alike)."""
        base, text = self.palette().color(QPalette.ColorRole.Base), self.palette().color(QPalette.ColorRole.Text)
        pairs = ((base.red(), text.red()), (base.green(), text.green()), (base.blue(), text.blue()))
        return QColor(*(round(b + (t - b) * SHADE) for b, t in pairs))

    def clear(self) -> None:
        """Remove every line (the next one is unshaded)."""
        super().clear()
        self._shaded = False

    def _on_range(self, _low: int, high: int) -> None:
        if self.following:
            self.verticalScrollBar().setValue(high)

    def _on_scrolled(self, value: int) -> None:
        self.following = value >= self.verticalScrollBar().maximum()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        """Opening the Log tab shows the newest line (lines added while it was hidden included)."""
        super().showEvent(event)
        if self.following:
            self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())
