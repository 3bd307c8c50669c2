"""One pairwise-preference or ABX trial: play A, B (and X), and answer 1 or 2; the candidates behind the
letters never reach the screen."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QButtonGroup, QGridLayout, QLabel, QPushButton, QWidget

QUESTIONS = {
    "pairwise": ("Which sounds better?", "1 · A is better", "2 · B is better"),
    "abx": ("Is X the same as A or as B?", "1 · X is A", "2 · X is B"),
}
"""Per trial kind: the question and the two answers."""
UNHEARD = " · rated without hearing it (nothing of this trial has played)"
"""After a rating's words where nothing of the trial played (no sound device, or no letter played)."""
CHOSEN_MARK = "✓ "
"""Before the chosen answer's text (besides its checked look), so it reads in any style or theme."""
CHOSEN_STYLE = (
    "QPushButton:checked { background-color: palette(highlight); color: palette(highlighted-text);"
    " border: 1px solid palette(shadow); border-radius: 3px; padding: 4px 8px; font-weight: bold; }"
)
"""The chosen answer in the palette's highlight (a plain checked button reads as faint grey in some styles)."""


class PairView(QWidget):
    """Play buttons A, B (and X for ABX) and the two answers; the given answer is shown checked.

    Signals:
        play_requested(str): ``"A"``, ``"B"`` or ``"X"``.
        chosen(int): 1 or 2.
    """

    play_requested = Signal(str)
    chosen = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.question = QLabel("")
        self.plays = {side: QPushButton(f"Play {side} ({side})") for side in "ABX"}
        for side, button in self.plays.items():
            button.clicked.connect(lambda _c=False, s=side: self.play_requested.emit(s))
        self.answers = QButtonGroup(self)
        self.answers.setExclusive(True)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.question, 0, 0, 1, 3)
        for column, side in enumerate("ABX"):
            grid.addWidget(self.plays[side], 1, column)
        for column, number in enumerate((1, 2)):
            answer = QPushButton("")
            answer.setCheckable(True)
            answer.setStyleSheet(CHOSEN_STYLE)
            answer.clicked.connect(lambda _c=False, n=number: self.chosen.emit(n))
            self.answers.addButton(answer, number)
            grid.addWidget(answer, 2, column)

    def set_locked(self, locked: bool) -> None:
        """Close (``True``) or open the answers; playing stays possible."""
        for number in (1, 2):
            self.answers.button(number).setEnabled(not locked)

    def set_trial(self, kind: str, answer: int) -> None:
        """Show a ``pairwise`` or ``abx`` trial with ``answer`` (0 none, 1 or 2) checked."""
        question, first, second = QUESTIONS[kind]
        self.question.setText(question)
        self.plays["X"].setVisible(kind == "abx")
        self.answers.setExclusive(False)  # lets "none" be shown
        for number, text in ((1, first), (2, second)):
            button = self.answers.button(number)
            button.setChecked(number == answer)
            button.setText(CHOSEN_MARK + text if number == answer else text)
        self.answers.setExclusive(True)

    def answer_text(self, kind: str, answer: int) -> str:
        """What answer 1 or 2 of a ``kind`` trial says, in words: ``A`` / ``B`` (pairwise), ``X is A`` (ABX)."""
        return QUESTIONS[kind][answer].split(" · ")[1].removesuffix(" is better")
