"""HiFi-GAN's discriminators as Piper trains with them, with Piper's parameter names (``model_d.*``).

Multi-period discriminator (Kong et al., "HiFi-GAN", NeurIPS 2020, sec. 2.2): one
scale discriminator on the raw waveform (MelGAN's, Kumar et al. 2019) and five
period discriminators that fold the waveform into ``[B, 1, T / p, p]`` for periods
2, 3, 5, 7 and 11. All layers are weight-normalized (``weight_g``, ``weight_v``),
so Piper's checkpoints load strictly, in both directions. On the CPU the period discriminators' weight
gradients are matrix products (``trainer.gan.column_conv``).

Optionally (``TrainingConfig.resolution_discriminator``) three resolution discriminators follow them in the same
list (UnivNet's multi-resolution spectrogram discriminator, Jang et al., "UnivNet", Interspeech 2021; the
optional MRD of later VITS trainers): each scores the linear magnitude spectrogram of one STFT resolution,
where the period discriminators see waveform periods, so the generator also hears about spectral detail at
each resolution. Their parameters follow the period discriminators' (``model_d.discriminators.6`` on), so
a Piper checkpoint still fills the first six and the rest start fresh (``trainer.start.points.copy_matching``);
a checkpoint with them holds tensors Piper's trainer does not know (it loads strictly), so with them on the
strict load holds in one direction only: Piper's into ours.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from engines.torch.vits.weight_norm import WNConv1d, WNConv2d
from trainer.gan.column_conv import column_conv

LRELU_SLOPE = 0.1
PERIODS = (2, 3, 5, 7, 11)
RESOLUTIONS = ((1024, 120, 600), (2048, 240, 1200), (512, 50, 240))
"""The resolution discriminators' STFTs as ``(n_fft, hop_length, win_length)`` in samples: UnivNet's
(Jang et al. 2021): windows of 240 to 1200 samples, 11 to 54 ms at 22.05 kHz."""

Scores = tuple[torch.Tensor, list[torch.Tensor]]
"""One discriminator's output: logits ``[B, N]`` and its feature maps (one per layer)."""


def _padding(kernel_size: int, dilation: int = 1) -> int:
    return (kernel_size * dilation - dilation) // 2


class PeriodConv(WNConv2d):
    """A weight-normalized ``(k, 1)`` convolution; on the CPU (eager) through ``trainer.gan.column_conv``."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.device.type != "cpu" or torch.compiler.is_compiling():
            return super().forward(x)
        padding = self.padding[0]
        assert isinstance(padding, int)  # built with a tuple of ints (DiscriminatorP)
        return column_conv(x, self.normalized_weight(), self.bias, self.stride[0], padding)


class DiscriminatorP(nn.Module):
    """Period discriminator: 2-D convolutions over the waveform folded by ``period``."""

    def __init__(self, period: int, kernel_size: int = 5, stride: int = 3, width: float = 1.0) -> None:
        super().__init__()
        self.period = period
        channels = [1] + [_scaled(c, width) for c in (32, 128, 512, 1024)]
        pad = (_padding(kernel_size), 0)
        self.convs = nn.ModuleList(
            PeriodConv(c_in, c_out, (kernel_size, 1), (stride, 1), padding=pad)
            for c_in, c_out in zip(channels, channels[1:], strict=False)
        )
        self.convs.append(PeriodConv(channels[-1], channels[-1], (kernel_size, 1), 1, padding=pad))
        self.conv_post = WNConv2d(channels[-1], 1, (3, 1), 1, padding=(1, 0))

    def forward(self, x: torch.Tensor) -> Scores:
        """``x`` ``[B, 1, T]`` -> logits ``[B, N]``, feature maps."""
        b, c, t = x.shape
        if t % self.period:
            x = F.pad(x, (0, self.period - t % self.period), "reflect")
        x = x.view(b, c, -1, self.period)
        return _run(self.convs, self.conv_post, x)


class DiscriminatorS(nn.Module):
    """Scale discriminator: grouped 1-D convolutions over the raw waveform."""

    def __init__(self, width: float = 1.0) -> None:
        super().__init__()
        c16, c64, c256, c1024 = (_scaled(c, width) for c in (16, 64, 256, 1024))
        groups = [max(1, round(g * width)) for g in (4, 16, 64, 256)]
        self.convs = nn.ModuleList(
            [
                WNConv1d(1, c16, 15, 1, padding=7),
                WNConv1d(c16, c64, 41, 4, groups=groups[0], padding=20),
                WNConv1d(c64, c256, 41, 4, groups=groups[1], padding=20),
                WNConv1d(c256, c1024, 41, 4, groups=groups[2], padding=20),
                WNConv1d(c1024, c1024, 41, 4, groups=groups[3], padding=20),
                WNConv1d(c1024, c1024, 5, 1, padding=2),
            ]
        )
        self.conv_post = WNConv1d(c1024, 1, 3, 1, padding=1)

    def forward(self, x: torch.Tensor) -> Scores:
        """``x`` ``[B, 1, T]`` -> logits ``[B, N]``, feature maps."""
        return _run(self.convs, self.conv_post, x)


class DiscriminatorR(nn.Module):
    """Resolution discriminator: 2-D convolutions over one STFT resolution's linear magnitude spectrogram.

    UnivNet's layout (Jang et al. 2021): five ``(3, 9)``/``(3, 3)`` convolutions of 32 channels, the
    middle three striding the time axis by 2, then a one-channel ``(3, 3)`` output.

    Args:
        resolution: ``(n_fft, hop_length, win_length)`` in samples.
        width: channel multiplier (as :class:`MultiPeriodDiscriminator`'s).
    """

    window: torch.Tensor  # a buffer (register_buffer below), declared for the type checker

    def __init__(self, resolution: tuple[int, int, int], width: float = 1.0) -> None:
        super().__init__()
        self.n_fft, self.hop_length, self.win_length = resolution
        self.register_buffer("window", torch.hann_window(self.win_length), persistent=False)
        c = _scaled(32, width)
        self.convs = nn.ModuleList(
            [
                WNConv2d(1, c, (3, 9), padding=(1, 4)),
                *(WNConv2d(c, c, (3, 9), stride=(1, 2), padding=(1, 4)) for _ in range(3)),
                WNConv2d(c, c, (3, 3), padding=(1, 1)),
            ]
        )
        self.conv_post = WNConv2d(c, 1, (3, 3), padding=(1, 1))

    def forward(self, x: torch.Tensor) -> Scores:
        """``x`` ``[B, 1, T]`` -> logits ``[B, N]``, feature maps (``[B, C, n_fft / 2 + 1, frames / 2^k]``)."""
        return _run(self.convs, self.conv_post, self.magnitude(x)[:, None])

    def magnitude(self, x: torch.Tensor) -> torch.Tensor:
        """``x`` ``[B, 1, T]`` -> linear magnitude ``[B, n_fft / 2 + 1, frames]``, float32 (the STFT in float32
        under autocast, as the mel loss's); reflect-padded by ``(n_fft - hop_length) / 2`` each side, uncentred,
        as UnivNet's, but under a Hann window (UnivNet's code passes none to ``torch.stft``: a rectangular one,
        whose side lobes spread each harmonic over the bins around it). ``+ 1e-9`` under the root keeps the
        gradient finite at silent bins."""
        pad = (self.n_fft - self.hop_length) // 2
        x = F.pad(x.float(), (pad, pad), "reflect").squeeze(1)
        with torch.autocast(x.device.type, enabled=False):
            spec = torch.stft(
                x, self.n_fft, self.hop_length, self.win_length, self.window, center=False, return_complex=True
            )
            return (torch.view_as_real(spec).square().sum(-1) + 1e-9).sqrt()  # no complex op for torch.compile


def _scaled(channels: int, width: float) -> int:
    return max(4, round(channels * width))


def _run(convs: nn.ModuleList, post: nn.Module, x: torch.Tensor) -> Scores:
    features = []
    for conv in convs:
        x = F.leaky_relu(conv(x), LRELU_SLOPE)
        features.append(x)
    x = post(x)
    features.append(x)
    return torch.flatten(x, 1, -1), features


class MultiPeriodDiscriminator(nn.Module):
    """The scale discriminator and one period discriminator per period in ``PERIODS``, then (``resolutions``)
    one :class:`DiscriminatorR` per resolution in ``RESOLUTIONS``.

    ``width`` scales every layer's channels (1.0: Piper's; the ``test`` preset narrows it).
    """

    def __init__(self, width: float = 1.0, resolutions: bool = False) -> None:
        super().__init__()
        self.discriminators = nn.ModuleList([DiscriminatorS(width), *(DiscriminatorP(p, width=width) for p in PERIODS)])
        if resolutions:
            self.discriminators.extend(DiscriminatorR(r, width) for r in RESOLUTIONS)

    def forward(self, x: torch.Tensor) -> list[Scores]:
        """``x`` ``[B, 1, T]`` (real or generated audio) -> one :data:`Scores` per discriminator.

        Real and generated audio go through separately, so the generator step can
        score the generated audio alone and the discriminator step can reuse it.
        """
        return [d(x) for d in self.discriminators]


def discriminator_count(resolutions: bool) -> int:
    """How many discriminators :class:`MultiPeriodDiscriminator` holds (6 as Piper's; 9 with ``resolutions``)."""
    return 1 + len(PERIODS) + (len(RESOLUTIONS) if resolutions else 0)
