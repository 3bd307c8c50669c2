"""The blind test panel's keys and playing (a mixin of ``studio.widgets.blind_test.BlindTestPanel``).

Keys: A/B/X play (MUSHRA: a letter plays and selects its slider), R the reference (MUSHRA), Space stops, 1/2
choose, Enter goes to the next trial; MUSHRA: Up/Down (+/−) move the selected slider by 5, PageUp/PageDown by 20.
After the reveal the keys that rate do nothing but say so (``CLOSED``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLabel, QWidget

from studio.widgets.mushra_box import MushraBox
from trainer.evaluate.listening import ANCHOR, HIDDEN_REFERENCE, ListeningTest, lowpass_anchor
from trainer.evaluate.trials import Trial

REFERENCE = "<reference>"
"""What ``get_audio`` is asked for to get a line's reference recording."""
CLOSED = "Rating is closed: this test is revealed. New test starts another (these ratings are kept aside)."
MUSHRA_STEPS = {
    Qt.Key.Key_Up: 5,
    Qt.Key.Key_Plus: 5,
    Qt.Key.Key_Equal: 5,
    Qt.Key.Key_Down: -5,
    Qt.Key.Key_Minus: -5,
    Qt.Key.Key_PageUp: 20,
    Qt.Key.Key_PageDown: -20,
}
"""MUSHRA keys: how far each moves the selected slider."""


class BlindKeys:
    """Playing a trial's candidates, the reference and the anchor, and the panel's keys."""

    test: ListeningTest | None
    status: QLabel
    mushra: MushraBox
    get_audio: Callable[[str, int], tuple[np.ndarray, int] | None]
    play: Callable[[np.ndarray, int], bool]
    stop: Callable[[], None]
    _anchors: dict[int, tuple[np.ndarray, int]]
    _heard: set[Trial]
    """The trials of which something played (a rating of any other says it was given unheard)."""

    def current(self) -> Trial | None:  # the panel's
        raise NotImplementedError

    def step(self, delta: int) -> None:  # the panel's
        raise NotImplementedError

    def choose(self, side: int) -> None:  # the panel's
        raise NotImplementedError

    def _play_side(self, side: str) -> None:
        trial = self.current()
        if trial is not None:
            self._play_name({"A": trial.a, "B": trial.b, "X": trial.x}[side], side)

    def _play_name(self, name: str, shown: str = "") -> None:
        trial = self.current()
        if trial is None:
            return
        found = self._audio(name, trial.line)
        if found is None:
            what = "The reference" if name in (REFERENCE, "reference", HIDDEN_REFERENCE, ANCHOR) else shown or "It"
            self.status.setText(f"{what} has no audio for line {trial.line + 1} yet: render it on the Listen tab.")
            return
        if self.play(*found):
            self._heard.add(trial)

    def _audio(self, name: str, line: int) -> tuple[np.ndarray, int] | None:
        if name in ("reference", HIDDEN_REFERENCE):
            return self.get_audio(REFERENCE, line)
        if name == ANCHOR:
            if line not in self._anchors:
                reference = self.get_audio(REFERENCE, line)
                if reference is None:
                    return None
                self._anchors[line] = (lowpass_anchor(reference[0], reference[1]), reference[1])
            return self._anchors[line]
        return self.get_audio(name, line)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        key, trial = event.key(), self.current()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.step(1)
        elif key == Qt.Key.Key_Space:
            self.stop()
        elif trial is not None and trial.kind != "mushra" and key in (Qt.Key.Key_1, Qt.Key.Key_2):
            self.choose(1 if key == Qt.Key.Key_1 else 2)
        elif trial is not None and trial.kind == "mushra" and key == Qt.Key.Key_R:
            self._play_name("reference")
        elif trial is not None and trial.kind == "mushra" and key in MUSHRA_STEPS:
            self._nudge(MUSHRA_STEPS[Qt.Key(key)])
        elif trial is not None and Qt.Key.Key_A <= key <= Qt.Key.Key_Z:
            self._play_letter(chr(key), trial)
        else:
            QWidget.keyPressEvent(cast(QWidget, self), event)

    def _nudge(self, step: int) -> None:
        if self.test is not None and self.test.revealed:
            self.status.setText(CLOSED)
            return
        self.mushra.nudge(step)

    def _play_letter(self, letter: str, trial: Trial) -> None:
        if trial.kind == "mushra":
            self.mushra.play_letter(letter)
        elif letter in ("A", "B") or (letter == "X" and trial.kind == "abx"):
            self._play_side(letter)
