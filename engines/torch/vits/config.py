"""Hyperparameters of a Piper VITS generator, and Piper's quality presets.

Names follow Piper's (``piper.train.vits``) so that checkpoint hyperparameters map
one to one. Presets: rhasspy/piper's x-low (96 channels), low and medium (192
channels, HiFi-GAN V2-like decoder: ResBlock2, upsampling 8x8x4 from 256
channels) and high (HiFi-GAN V1-like decoder: ResBlock1, upsampling 8x8x2x2 from
512 channels); all with hop_length 256 samples.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

LOW_DECODER = {
    "resblock": "2",
    "resblock_kernel_sizes": (3, 5, 7),
    "resblock_dilation_sizes": ((1, 2), (2, 6), (3, 12)),
    "upsample_rates": (8, 8, 4),
    "upsample_initial_channel": 256,
    "upsample_kernel_sizes": (16, 16, 8),
}
HIGH_DECODER = {
    "resblock": "1",
    "resblock_kernel_sizes": (3, 7, 11),
    "resblock_dilation_sizes": ((1, 3, 5), (1, 3, 5), (1, 3, 5)),
    "upsample_rates": (8, 8, 2, 2),
    "upsample_initial_channel": 512,
    "upsample_kernel_sizes": (16, 16, 4, 4),
}


@dataclass(frozen=True)
class VitsConfig:
    """Generator hyperparameters (channels, layer counts, decoder layout).

    Attributes:
        num_symbols: phoneme embedding rows (``n_vocab``).
        num_speakers: > 1 adds a speaker embedding of ``gin_channels``.
        spec_channels: linear spectrogram bins the posterior encoder reads (filter_length / 2 + 1).
        inter_channels: latent z channels.
        hidden_channels, filter_channels, n_heads, n_layers, kernel_size, p_dropout: text encoder.
        resblock ... upsample_kernel_sizes: HiFi-GAN decoder; the product of
            ``upsample_rates`` is the hop length in samples.
        gin_channels: speaker embedding size (0 for one speaker; Piper uses 512 for several).
        use_sdp: stochastic (True) or deterministic duration predictor.
        segment_size: training crop in samples.
    """

    num_symbols: int = 256
    num_speakers: int = 1
    spec_channels: int = 513
    inter_channels: int = 192
    hidden_channels: int = 192
    filter_channels: int = 768
    n_heads: int = 2
    n_layers: int = 6
    kernel_size: int = 3
    p_dropout: float = 0.1
    resblock: str = "2"
    resblock_kernel_sizes: tuple[int, ...] = (3, 5, 7)
    resblock_dilation_sizes: tuple[tuple[int, ...], ...] = ((1, 2), (2, 6), (3, 12))
    upsample_rates: tuple[int, ...] = (8, 8, 4)
    upsample_initial_channel: int = 256
    upsample_kernel_sizes: tuple[int, ...] = (16, 16, 8)
    gin_channels: int = 0
    use_sdp: bool = True
    segment_size: int = 8192

    def __post_init__(self) -> None:
        if self.num_speakers > 1 and self.gin_channels <= 0:
            object.__setattr__(self, "gin_channels", 512)  # Piper's default for multi-speaker models

    @property
    def hop_length(self) -> int:
        """Samples per frame: the product of the decoder's upsampling rates."""
        return math.prod(self.upsample_rates)

    @classmethod
    def preset(cls, quality: str, **overrides: Any) -> VitsConfig:
        """Piper's ``x_low``, ``low``, ``medium`` or ``high`` (also ``x-low``), with overrides.

        Raises:
            ValueError: unknown quality.
        """
        quality = quality.replace("-", "_")
        presets = {
            "x_low": {"inter_channels": 96, "hidden_channels": 96, "filter_channels": 384, **LOW_DECODER},
            "low": dict(LOW_DECODER),
            "medium": dict(LOW_DECODER),
            "high": dict(HIGH_DECODER),
        }
        if quality not in presets:
            raise ValueError(f"unknown quality '{quality}'; one of {', '.join(presets)}")
        return cls(**{**presets[quality], **overrides})

    def to_dict(self) -> dict[str, Any]:
        """Plain values (tuples as lists), for JSON and checkpoints."""
        return asdict(self)
