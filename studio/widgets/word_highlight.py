"""The word being heard, highlighted in the text box while a line plays (the Synthesize page)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QPalette, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit

from engines.timing.events import TimedWord
from engines.timing.timeline import Timeline

TICK_MS = 30
"""How often the highlight follows the playing position: well under the shortest words (about 80 ms)."""


class WordHighlight(QObject):
    """Highlights in ``box`` the word of a :class:`~engines.timing.timeline.Timeline` heard now.

    A word is found in the box by its written text, searching on from the word found before it (the box holds
    the text as typed; the engine's character offsets are into the text as cleaned, ``engines.cleaning``). Where
    nothing plays (before the first sample, between words, after the end) nothing is highlighted.

    Signals:
        shown(str): the word now highlighted, ``""`` when none.
    """

    shown = Signal(str)

    def __init__(self, box: QPlainTextEdit, parent: QObject | None = None) -> None:
        super().__init__(parent or box)
        self.box = box
        self._timer = QTimer(self, interval=TICK_MS)
        self._timer.timeout.connect(self._tick)
        self._timeline = Timeline()
        self._heard: Callable[[], float | None] = lambda: None
        self._places: dict[int, tuple[int, int] | None] = {}
        self._cursor = 0
        self._word: TimedWord | None = None

    def follow(self, timeline: Timeline, heard: Callable[[], float | None]) -> None:
        """Follow a line: ``timeline`` fills as it is synthesized, ``heard()`` gives the seconds of it heard (``None``
        while nothing plays)."""
        self.stop()
        self._timeline, self._heard = timeline, heard
        self._timer.start()

    def stop(self) -> None:
        """Stop following and take the highlight away."""
        self._timer.stop()
        self._places, self._cursor = {}, 0
        self._show(None)

    @property
    def word(self) -> TimedWord | None:
        """The word highlighted now."""
        return self._word

    def _tick(self) -> None:
        heard, timeline = self._heard(), self._timeline
        found = None
        if heard is not None and timeline.sample_rate:
            found = timeline.word_at(round(heard * timeline.sample_rate))
        if found != self._word:
            self._show(found)

    def _show(self, word: TimedWord | None) -> None:
        self._word = word
        place = None if word is None else self._place(word)
        if place is None:
            self.box.setExtraSelections([])
        else:
            self.box.setExtraSelections([self._selection(*place)])
        self.shown.emit(word.text if word is not None and place is not None else "")

    def _place(self, word: TimedWord) -> tuple[int, int] | None:
        """Where ``word`` is in the box: its text found on from the word placed before it (once per word)."""
        key = id(word)
        if key not in self._places:
            at = self.box.toPlainText().find(word.text, self._cursor)
            self._places[key] = None if at < 0 else (at, at + len(word.text))
            if at >= 0:
                self._cursor = at + len(word.text)
        return self._places[key]

    def _selection(self, start: int, end: int) -> QTextEdit.ExtraSelection:
        selection = QTextEdit.ExtraSelection()
        cursor = QTextCursor(self.box.document())
        cursor.setPosition(min(start, self.box.document().characterCount() - 1))
        cursor.setPosition(min(end, self.box.document().characterCount() - 1), QTextCursor.MoveMode.KeepAnchor)
        selection.cursor = cursor
        palette = self.box.palette()
        selection.format.setBackground(palette.color(QPalette.ColorRole.Highlight))
        selection.format.setForeground(palette.color(QPalette.ColorRole.HighlightedText))
        return selection
