"""Sliders for a voice's inference settings: ``length_scale``, ``noise_scale``, ``noise_w``."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QPushButton, QWidget

from engines.voice import VoiceConfig
from studio.voice_scales import VoiceScales
from studio.widgets.slider import Slider


class VoiceSettings(QGroupBox):
    """Speed, variation and rhythm sliders with a "Voice defaults" button: a view of a :class:`VoiceScales`.

    The Speed slider shows the speaking rate, faster to the right (×0.50 … ×2.00): ``length_scale = 1 / speed``.
    Until a slider is moved, :meth:`values` gives the voice's own setting exactly (no rounding to the slider's
    steps). A setting the user moved stays when another voice is chosen; the line :attr:`kept` under the sliders
    then says which, with the new voice's own, until "Voice defaults" (which gives the voice's own).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Voice settings", parent)
        self.scales = VoiceScales()
        self._showing = False
        """True while the sliders are moved to show the model (not by the user)."""
        self.speed = Slider(0.5, 2.0, 0.01, shown="×{:.2f}".format)
        self.noise_scale = Slider(0.0, 1.5, 0.01)
        self.noise_w = Slider(0.0, 1.5, 0.01)
        self._sliders = {"length_scale": self.speed, "noise_scale": self.noise_scale, "noise_w": self.noise_w}
        for name, slider in self._sliders.items():
            slider.slider.valueChanged.connect(lambda _v, n=name: self._on_moved(n))
        self.reset_button = QPushButton("Voice defaults")
        self.reset_button.clicked.connect(self.reset)
        self.kept = QLabel("")
        self.kept.setWordWrap(True)
        self.kept.setVisible(False)
        form = QFormLayout(self)
        form.addRow("Speed", self.speed)
        form.addRow("Variation (noise_scale)", self.noise_scale)
        form.addRow("Rhythm (noise_w)", self.noise_w)
        form.addRow("", self.reset_button)
        form.addRow(self.kept)
        self._show()

    def set_defaults(self, config: VoiceConfig, voice: str = "") -> None:
        """Voice ``voice`` is chosen: its inference defaults (its ``.onnx.json``) apply to the settings the user left
        alone; those the user set stay (said in :attr:`kept`)."""
        self.scales.take_voice(voice, config)
        self._show()

    def reset(self) -> None:
        """Back to the voice's defaults."""
        self.scales.reset()
        self._show()

    def values(self) -> tuple[float, float, float]:
        """``(length_scale, noise_scale, noise_w)``."""
        return self.scales.values()

    def _on_moved(self, name: str) -> None:
        if self._showing:
            return
        value = self._sliders[name].value()
        self.scales.set(name, 1.0 / value if name == "length_scale" else value)
        self._show()

    def _show(self) -> None:
        """Sliders, tooltips and the kept line from the model."""
        self._showing = True
        try:
            for name, slider in self._sliders.items():
                value = self.scales.value(name)
                slider.set_value(1.0 / value if name == "length_scale" else value)
        finally:
            self._showing = False
        self.speed.setToolTip(
            f"Speaking rate, faster to the right: length_scale = 1 / speed = {self.scales.value('length_scale'):.3g} "
            "(Piper's factor on every phoneme's duration; the CLI's --length-scale)"
        )
        self.reset_button.setToolTip(f"Back to {self.scales.defaults_text()}")
        self.kept.setText(self.scales.kept_text())
        self.kept.setVisible(bool(self.kept.text()))

    def enable_noise(self, enabled: bool, why_not: str = "") -> None:
        """Enable the two noise sliders, or disable them with ``why_not`` as their tooltip."""
        for slider in (self.noise_scale, self.noise_w):
            slider.setEnabled(enabled)
            slider.setToolTip("" if enabled else why_not)
