"""A labelled slider over a float range."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSlider, QWidget


class Slider(QWidget):
    """A labelled float slider: ``minimum..maximum`` in steps of ``step``; ``shown`` writes the label (default
    ``"1.00"``)."""

    def __init__(
        self,
        minimum: float,
        maximum: float,
        step: float,
        parent: QWidget | None = None,
        shown: Callable[[float], str] = "{:.2f}".format,
    ) -> None:
        super().__init__(parent)
        self._step, self._shown = step, shown
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(round(minimum / step), round(maximum / step))
        self.slider.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # Tab reaches it; the arrow keys then move it
        self.setFocusProxy(self.slider)
        self.label = QLabel()
        self.label.setMinimumWidth(40)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.label)
        self.slider.valueChanged.connect(lambda _: self.label.setText(self._shown(self.value())))

    def value(self) -> float:
        """The value at the slider's position."""
        return self.slider.value() * self._step

    def set_value(self, value: float) -> None:
        """Move to the step nearest ``value``."""
        self.slider.setValue(round(value / self._step))
        self.label.setText(self._shown(self.value()))
