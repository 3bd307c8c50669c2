"""Sliders for a voice's inference settings: ``length_scale``, ``noise_scale``, ``noise_w``."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QGroupBox, QPushButton, QWidget

from engines.voice import VoiceConfig
from studio.widgets.slider import Slider


class VoiceSettings(QGroupBox):
    """Speed, variation and rhythm sliders with a "Voice defaults" button.

    The names follow VITS (Kim et al., 2021): ``length_scale`` multiplies every
    phoneme's duration, ``noise_scale`` the spread of the prior sample,
    ``noise_w`` the noise of the stochastic duration predictor. The Speed slider
    shows the speaking rate, faster to the right (×0.50 … ×2.00):
    ``length_scale = 1 / speed``. Until it is moved, :meth:`values` gives the
    voice's own ``length_scale`` exactly (no rounding to the slider's steps).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Voice settings", parent)
        self._defaults: VoiceConfig | None = None
        self._length_scale = 1.0
        """The length_scale asked for: the voice's own until the Speed slider is moved, then 1 / speed."""
        self.speed = Slider(0.5, 2.0, 0.01, shown="×{:.2f}".format)
        self.speed.slider.valueChanged.connect(self._on_speed_moved)
        self._speed_tip()
        self.noise_scale = Slider(0.0, 1.5, 0.01)
        self.noise_w = Slider(0.0, 1.5, 0.01)
        self.reset_button = QPushButton("Voice defaults")
        self.reset_button.clicked.connect(self.reset)
        form = QFormLayout(self)
        form.addRow("Speed", self.speed)
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
            self.set_length_scale(self._defaults.length_scale)
            self.noise_scale.set_value(self._defaults.noise_scale)
            self.noise_w.set_value(self._defaults.noise_w)

    def values(self) -> tuple[float, float, float]:
        """``(length_scale, noise_scale, noise_w)``."""
        return self._length_scale, self.noise_scale.value(), self.noise_w.value()

    def set_length_scale(self, length_scale: float) -> None:
        """Ask for ``length_scale`` exactly; the Speed slider shows 1 / ``length_scale``."""
        self.speed.set_value(1.0 / length_scale)
        self._length_scale = length_scale
        self._speed_tip()

    def _on_speed_moved(self) -> None:
        self._length_scale = 1.0 / self.speed.value()
        self._speed_tip()

    def _speed_tip(self) -> None:
        self.speed.setToolTip(
            f"Speaking rate, faster to the right: length_scale = 1 / speed = {self._length_scale:.3g} "
            "(Piper's factor on every phoneme's duration; the CLI's --length-scale)"
        )

    def enable_noise(self, enabled: bool, why_not: str = "") -> None:
        """Enable the two noise sliders, or disable them with ``why_not`` as their tooltip."""
        for slider in (self.noise_scale, self.noise_w):
            slider.setEnabled(enabled)
            slider.setToolTip("" if enabled else why_not)
