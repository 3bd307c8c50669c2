"""The Synthesize page's inference settings, without Qt: a voice's own and those the user set over them.

The names follow VITS (Kim et al., 2021) and Piper's ``.onnx.json`` ``inference`` block: ``length_scale``
multiplies every phoneme's duration (the page's Speed is ``1 / length_scale``), ``noise_scale`` the spread of the
prior sample, ``noise_w`` the noise of the stochastic duration predictor. What the user set is kept when another
voice is chosen (a Train page export switches the voice too); the new voice's own apply to the settings left alone,
and the page says which were kept, until "Voice defaults".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engines.voice import DEFAULT_LENGTH_SCALE, DEFAULT_NOISE_SCALE, DEFAULT_NOISE_W, VoiceConfig

SCALES = ("length_scale", "noise_scale", "noise_w")
"""The settings, in the order ``VoiceScales.values`` gives them."""
NAMES = {"length_scale": "Speed", "noise_scale": "Variation", "noise_w": "Rhythm"}
"""How the page names each setting."""


def shown(name: str, value: float) -> str:
    """A setting as the page shows it: Speed as ``×1.83`` (``1 / length_scale``), the others as ``0.67``."""
    return f"×{1 / value:.2f}" if name == "length_scale" else f"{value:.2f}"


@dataclass
class VoiceScales:
    """A voice's inference defaults (``defaults``, from its ``.onnx.json``) and the settings the user set over
    them (``chosen``), which stay when the voice changes."""

    voice: str = ""
    defaults: dict[str, float] = field(
        default_factory=lambda: {
            "length_scale": DEFAULT_LENGTH_SCALE,
            "noise_scale": DEFAULT_NOISE_SCALE,
            "noise_w": DEFAULT_NOISE_W,
        }
    )
    chosen: dict[str, float] = field(default_factory=dict)
    changed_voice: bool = False
    """The voice changed since the user set a setting (so :meth:`kept_text` says what was kept)."""

    def take_voice(self, name: str, config: VoiceConfig) -> None:
        """Voice ``name`` is chosen: its ``config``'s inference settings are the defaults now; those the user set
        stay."""
        self.changed_voice = self.changed_voice or (bool(self.chosen) and name != self.voice)
        self.voice, self.defaults = name, {s: float(getattr(config, s)) for s in SCALES}

    def set(self, name: str, value: float) -> None:
        """The user set ``name`` (one of :data:`SCALES`) to ``value`` (what was kept at a voice change is said no
        more: the user has seen the settings since)."""
        self.chosen[name] = value
        self.changed_voice = False

    def reset(self) -> None:
        """Back to the voice's own settings."""
        self.chosen.clear()
        self.changed_voice = False

    def value(self, name: str) -> float:
        """The setting in use: the user's, else the voice's own."""
        return self.chosen.get(name, self.defaults[name])

    def values(self) -> tuple[float, float, float]:
        """``(length_scale, noise_scale, noise_w)`` in use."""
        return self.value("length_scale"), self.value("noise_scale"), self.value("noise_w")

    def kept_text(self) -> str:
        """After a voice change, the user's settings that differ from the new voice's own, in words ("Kept your
        Speed ×1.83 (tune's own: ×0.91)…"); ``""`` when none differ or the voice has not changed."""
        differ = [s for s in SCALES if s in self.chosen and shown(s, self.chosen[s]) != shown(s, self.defaults[s])]
        if not self.changed_voice or not differ:
            return ""
        mine = ", ".join(f"{NAMES[s]} {shown(s, self.chosen[s])}" for s in differ)
        own = ", ".join(shown(s, self.defaults[s]) for s in differ)
        return f"Kept your {mine} ({self.voice}'s own: {own}). Voice defaults gives {self.voice}'s own."

    def defaults_text(self) -> str:
        """The voice's own settings in words: ``joe's own: Speed ×1.00, Variation 0.67, Rhythm 0.80``."""
        own = ", ".join(f"{NAMES[s]} {shown(s, self.defaults[s])}" for s in SCALES)
        return f"{self.voice or 'The voice'}'s own: {own}"
