"""One MUSHRA trial (ITU-R BS.1534-3): the open reference, and a 0–100 slider per hidden item (the
candidates, the hidden reference and the 3.5 kHz anchor) under letters only."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QPushButton, QSlider, QVBoxLayout, QWidget

GRADES = ((80, "excellent"), (60, "good"), (40, "fair"), (20, "poor"), (0, "bad"))
"""The continuous quality scale's labels (ITU-R BS.1534-3): lower bound of each band, word."""

KEYS_HINT = "Keys: a letter plays and selects its slider; Up/Down (+/−) move it by 5, PageUp/PageDown by 20."


def slot_letter(i: int) -> str:
    """The letter of the ``i``-th slider (``A``, ``B``, ...)."""
    return chr(ord("A") + i)


SET_STYLE = "QLabel { font-weight: bold; color: palette(highlight); }"
"""A set slider's value, marked in the palette's highlight (an unset one reads "–" in the text colour)."""


class MushraBox(QWidget):
    """Sliders of one MUSHRA trial; the names behind the letters never reach the screen.

    Signals:
        play_requested(str): the name behind a letter (or ``"reference"`` for the open reference).
        scores_changed(): a slider was set (released, or moved by keys).
    """

    play_requested = Signal(str)
    scores_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.order: tuple[str, ...] = ()
        self.sliders: list[QSlider] = []
        self.plays: list[QPushButton] = []
        self.values: list[QLabel] = []
        self.selected = 0
        self.locked = False
        self._touched: set[int] = set()
        self.reference = QPushButton("Play reference (R)")
        self.reference.clicked.connect(lambda: self.play_requested.emit("reference"))
        self._grid = QGridLayout()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.reference)
        layout.addLayout(self._grid)
        scale = " · ".join(f"{low}+ {word}" for low, word in GRADES)
        layout.addWidget(QLabel(f"Rate each against the reference, 0–100 ({scale})."))
        layout.addWidget(QLabel(KEYS_HINT))

    def set_trial(self, order: tuple[str, ...], scores: dict[str, float] | None = None) -> None:
        """Show one slider per name in ``order`` (letters only), set to ``scores`` where given."""
        while self._grid.count():
            item = self._grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.order, self.sliders, self.plays, self.values, self._touched = tuple(order), [], [], [], set()
        for i, name in enumerate(self.order):
            self._add_slot(i, (scores or {}).get(name))
        self.select(0)
        self.set_locked(self.locked)

    def set_locked(self, locked: bool) -> None:
        """Close (``True``) or open the sliders to rating; playing stays possible."""
        self.locked = locked
        for slider in self.sliders:
            slider.setEnabled(not locked)

    def select(self, i: int) -> None:
        """Make slider ``i`` the one the keys move (its Play button shown bold)."""
        self.selected = i
        for j, play in enumerate(self.plays):
            play.setStyleSheet("font-weight: bold" if j == i else "")

    def nudge(self, step: int) -> None:
        """Move the selected slider by ``step`` (clamped to 0–100); it counts as set even where it stays (0)."""
        if self.locked or not self.sliders:
            return
        slider = self.sliders[self.selected]
        value = min(100, max(0, slider.value() + step))
        if value == slider.value():
            self.values[self.selected].setText(str(value))  # set where it was (0): shown as set
            self._set(self.selected)
        else:
            slider.setValue(value)  # valueChanged sets it

    def _add_slot(self, i: int, score: float | None) -> None:
        play = QPushButton(f"Play {slot_letter(i)}")
        play.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        play.clicked.connect(lambda: self.play_letter(slot_letter(i)))
        slider = QSlider(Qt.Orientation.Vertical)
        slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay with the panel, which moves the selected one
        slider.setRange(0, 100)
        slider.setMinimumHeight(120)
        value = QLabel("–" if score is None else f"{score:.0f}")
        slider.setValue(0 if score is None else round(score))
        if score is not None:
            self._touched.add(i)
            value.setStyleSheet(SET_STYLE)
        slider.valueChanged.connect(lambda v: value.setText(str(v)))
        slider.valueChanged.connect(lambda _v: None if slider.isSliderDown() else self._set(i))
        slider.sliderReleased.connect(lambda: self._set(i))
        slider.sliderPressed.connect(lambda: self.select(i))
        self._grid.addWidget(play, 0, i)
        self._grid.addWidget(slider, 1, i, Qt.AlignmentFlag.AlignHCenter)
        self._grid.addWidget(value, 2, i, Qt.AlignmentFlag.AlignHCenter)
        self.sliders.append(slider)
        self.plays.append(play)
        self.values.append(value)

    def _set(self, i: int) -> None:
        self._touched.add(i)
        self.values[i].setStyleSheet(SET_STYLE)
        self.scores_changed.emit()

    def unrated(self) -> int:
        """How many sliders have not been set in this trial."""
        return len(self.order) - len(self._touched)

    def scores(self) -> dict[str, float] | None:
        """Name -> score for every slider, or ``None`` while one is not set."""
        if self.unrated():
            return None
        return {name: float(s.value()) for name, s in zip(self.order, self.sliders, strict=True)}

    def play_letter(self, letter: str) -> bool:
        """Select the slider under ``letter`` and ask to play it; False when there is none."""
        i = ord(letter) - ord("A")
        if not 0 <= i < len(self.order):
            return False
        self.select(i)
        self.play_requested.emit(self.order[i])
        return True
