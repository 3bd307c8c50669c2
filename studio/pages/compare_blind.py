"""The Compare page's Blind test tab: ``studio.widgets.blind_test.BlindTestPanel`` over the comparison's renders.

The test (re)starts whenever the renders of the current candidates and lines are complete (once the tab is
shown, so a selection only passed through leaves no ratings file), with its ratings
kept in ``Comparison.folder() / RATINGS_FILE`` (reopened from there: ``trainer.evaluate.trials.open_test``);
until then one line says what to do. The candidates' names stay hidden until the panel's Reveal.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from engines.words import count
from studio.comparison import Comparison
from studio.state import SaveFolders
from studio.widgets.blind_test import RATINGS_FILE, BlindTestPanel

GetAudio = Callable[[str, int], "tuple[np.ndarray, int] | None"]


class BlindTab(QWidget):
    """A hint line over a :class:`BlindTestPanel` that follows a :class:`~studio.comparison.Comparison`.

    Args:
        comparison: what is compared; its ``changed`` and ``rendered_changed`` events restart the test.
        get_audio, play, stop: as ``BlindTestPanel`` takes them (``get_audio(REFERENCE, i)``: line ``i``'s
            recording).
        folders: the folders files were saved to last (the workspace's), where Export CSV… starts.

    Attributes:
        started: ``(candidate labels, line texts, ratings path)`` of the test shown, or ``None`` (hint shown).
    """

    def __init__(
        self,
        comparison: Comparison,
        get_audio: GetAudio,
        play: Callable[[np.ndarray, int], bool],
        stop: Callable[[], None],
        parent: QWidget | None = None,
        folders: SaveFolders | None = None,
    ) -> None:
        super().__init__(parent)
        self.comparison = comparison
        self.panel = BlindTestPanel(get_audio, play, stop, folders=folders)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.started: tuple | None = None
        layout = QVBoxLayout(self)
        layout.addWidget(self.hint)
        layout.addWidget(self.panel, 1)
        comparison.events.changed.connect(lambda _c: self.refresh())
        comparison.events.rendered_changed.connect(lambda _r: self.refresh())
        self.refresh()

    def refresh(self) -> None:
        """Start (or reopen) the test when every line is rendered by every candidate and the tab is shown, else show
        what to do."""
        hint = self._what_to_do()
        if hint:
            self._show_hint(hint)
            return
        if not self.isVisible():
            return  # started when shown: a selection only passed through makes no ratings file
        labels = [c.label for c in self.comparison.candidates]
        lines = self.comparison.lines
        path = self.comparison.folder() / RATINGS_FILE
        texts, references = [line.text for line in lines], [line.reference is not None for line in lines]
        key = (tuple(labels), tuple(texts), path)
        if key == self.started:
            return  # the same test: keep the trial shown
        self.panel.subject = self.comparison.subject()  # Export CSV…'s file name
        try:
            self.panel.start(labels, texts, references, path)
        except (OSError, ValueError) as exc:
            self._show_hint(f"Cannot start the blind test: {exc}")
            return
        self.started = key
        self.hint.setVisible(False)
        self.panel.setVisible(True)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        self.refresh()

    def _what_to_do(self) -> str:
        """One line saying why no test can run yet, or '' when one can."""
        candidates, lines = self.comparison.candidates, self.comparison.lines
        if len(candidates) < 2:
            return "Check two or more candidates on the Listen tab for a blind test."
        if not lines:
            return "Choose lines on the Listen tab first."
        missing = self.comparison.missing()
        if missing:
            total = len(candidates) * len(lines)
            return f"Render on the Listen tab first ({total - missing} of {count(total, 'clip')} rendered)."
        return ""

    def _show_hint(self, text: str) -> None:
        if self.started is not None:
            self.panel.stop()
        self.started = None
        self.hint.setText(text)
        self.hint.setVisible(True)
        self.panel.setVisible(False)
