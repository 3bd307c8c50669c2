"""Sliders for a voice's inference settings: ``length_scale``, ``noise_scale``, ``noise_w``."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QGroupBox, QPushButton, QWidget

from engines.voice import VoiceConfig
from studio.widgets.slider import Slider


class VoiceSettings(QGroupBox):
    """Speed, variation and rhythm sliders with a "Voice defaults" button.

    The names follow VITS (Kim et al., 2021): ``length_scale`` multiplies every
    phoneme's duration, ``noise_scale`` the spread of the prior sample,
    ``noise_w`` the noise of the stochastic duration predictor.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Voice settings", parent)
        self._defaults: VoiceConfig | None = None
        self.speed = Slider(0.5, 2.0, 0.01)
        self.noise_scale = Slider(0.0, 1.5, 0.01)
        self.noise_w = Slider(0.0, 1.5, 0.01)
        self.reset_button = QPushButton("Voice defaults")
        self.reset_button.clicked.connect(self.reset)
        form = QFormLayout(self)
        form.addRow("Speed (length_scale)", self.speed)
        form.addRow("Variation (noise_scale)", self.noise_scale)
        form.addRow("Rhythm (noise_w)", self.noise_w)
        form.addRow("", self.reset_button)

    def set_defaults(self, config: VoiceConfig) -> None:
        """Take a voice's inference defaults (its ``.onnx.json``) and show them."""
        self._defaults = config
        self.reset()

    def reset(self) -> None:
        """Back to the voice's defaults."""
        if self._defaults is not None:
            self.speed.set_value(self._defaults.length_scale)
            self.noise_scale.set_value(self._defaults.noise_scale)
            self.noise_w.set_value(self._defaults.noise_w)

    def values(self) -> tuple[float, float, float]:
        """``(length_scale, noise_scale, noise_w)``."""
        return self.speed.value(), self.noise_scale.value(), self.noise_w.value()

    def enable_noise(self, enabled: bool, why_not: str = "") -> None:
        """Enable the two noise sliders, or disable them with ``why_not`` as their tooltip."""
        for slider in (self.noise_scale, self.noise_w):
            slider.setEnabled(enabled)
            slider.setToolTip("" if enabled else why_not)
