"""A labelled slider over a float range."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSlider, QWidget


class Slider(QWidget):
    """A labelled float slider: ``minimum..maximum`` in steps of ``step``."""

    def __init__(self, minimum: float, maximum: float, step: float, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._step = step
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
        self.slider.valueChanged.connect(lambda _: self.label.setText(f"{self.value():.2f}"))

    def value(self) -> float:
        return self.slider.value() * self._step

    def set_value(self, value: float) -> None:
        self.slider.setValue(round(value / self._step))
        self.label.setText(f"{self.value():.2f}")
