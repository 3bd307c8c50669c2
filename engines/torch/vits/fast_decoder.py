"""The HiFi-GAN decoder as channels-last 2-D convolutions, for inference on the CPU.

oneDNN runs a 1-D convolution over few channels and many samples (the decoder's
last stages: 32-64 channels, hundreds of thousands of samples) two to three
times slower than the same convolution written as a 2-D one over ``[B, C, 1, T]``
in channels-last layout. Residual sums and activations run in place on each
convolution's fresh output, saving a pass (and an allocation) over those
audio-rate signals per operation. This module computes exactly what
``engines.torch.vits.models.Generator`` computes, with weights folded once (weight
normalization applied) and reshaped to ``[C_out, C_in, 1, k]``.

The input may be longer than its real frames (padded to a size oneDNN has already
compiled kernels for, see ``engines.torch.vits.commons.padded_length``): every layer's
output past the real length is zeroed, so each convolution sees there the zeros
its own padding would give, and the real part equals the unpadded decoding.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from engines.torch.vits import modules
from engines.torch.vits.models import Generator
from engines.torch.vits.weight_norm import _WeightNorm

CHANNELS_LAST = torch.channels_last


def _weight(conv: nn.Conv1d | nn.ConvTranspose1d) -> torch.Tensor:
    weight = conv.normalized_weight() if isinstance(conv, _WeightNorm) else conv.weight
    return weight.detach().unsqueeze(2).contiguous(memory_format=CHANNELS_LAST)


class _Conv(nn.Module):
    """A frozen copy of a ``Conv1d`` (weight-normalized or not) as a channels-last ``conv2d``."""

    weight: torch.Tensor  # buffers, declared for the type checker
    bias: torch.Tensor | None

    def __init__(self, conv: nn.Module) -> None:
        super().__init__()
        assert isinstance(conv, nn.Conv1d) and isinstance(conv.padding, tuple), conv  # the generator's layers
        self.register_buffer("weight", _weight(conv))
        self.register_buffer("bias", None if conv.bias is None else conv.bias.detach().clone())
        self.padding = (0, conv.padding[0])
        self.dilation = (1, conv.dilation[0])
        self.stride = (1, conv.stride[0])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation)


class _ConvTranspose(nn.Module):
    """A frozen copy of a ``ConvTranspose1d`` as a channels-last ``conv_transpose2d``."""

    weight: torch.Tensor  # buffers, declared for the type checker
    bias: torch.Tensor | None

    def __init__(self, conv: nn.Module) -> None:
        super().__init__()
        assert isinstance(conv, nn.ConvTranspose1d) and isinstance(conv.padding, tuple), conv  # the upsamplers
        self.register_buffer("weight", _weight(conv))
        self.register_buffer("bias", None if conv.bias is None else conv.bias.detach().clone())
        self.stride, self.padding = (1, conv.stride[0]), (0, conv.padding[0])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.conv_transpose2d(x, self.weight, self.bias, self.stride, self.padding)


class ChannelsLastDecoder(nn.Module):
    """Inference copy of a :class:`Generator`: same input ``[B, C, T]`` and output ``[B, 1, T * hop]``."""

    def __init__(self, generator: Generator) -> None:
        super().__init__()
        self.num_kernels = generator.num_kernels
        self.conv_pre = _Conv(generator.conv_pre)
        self.cond = _Conv(generator.cond) if hasattr(generator, "cond") else None
        ups = [_ConvTranspose(up) for up in generator.ups]
        self.ups = nn.ModuleList(ups)
        self.up_factors = [up.stride[1] for up in ups]  # samples per input sample of each upsampler
        self.blocks = nn.ModuleList(_block(block) for block in generator.resblocks)
        self.conv_post = _Conv(generator.conv_post)

    def forward(self, x: torch.Tensor, g: torch.Tensor | None = None, frames: int | None = None) -> torch.Tensor:
        """z ``[B, C, T]`` float32 -> audio ``[B, 1, frames * hop_length]``.

        Args:
            x: latent frames; only the first ``frames`` are real (default: all ``T``), the rest is
                read as zeros.
            g: speaker embedding ``[B, G, 1]`` or None.
            frames: real frames, at most ``T``; the rest is padding whose audio is dropped.
        """
        valid = x.shape[-1] if frames is None else frames
        if valid < x.shape[-1]:
            x = F.pad(x[..., :valid], (0, x.shape[-1] - valid))  # whatever the padding held
        x = self.conv_pre(x.unsqueeze(2).contiguous(memory_format=CHANNELS_LAST))
        if self.cond is not None and g is not None:
            x = x + self.cond(g.unsqueeze(2))
        x = _clear_tail(x, valid)
        for i, up in enumerate(self.ups):
            valid *= self.up_factors[i]
            x = _clear_tail(up(F.leaky_relu(x, modules.LRELU_SLOPE)), valid)
            blocks = iter(self.blocks[i * self.num_kernels : (i + 1) * self.num_kernels])
            total = next(blocks)(x, valid)
            for block in blocks:
                total.add_(block(x, valid))
            x = total.div_(self.num_kernels)
        return torch.tanh_(self.conv_post(F.leaky_relu_(x))[..., :valid]).squeeze(2)


def _clear_tail(x: torch.Tensor, valid: int) -> torch.Tensor:
    """Zero ``x [B, C, 1, T]`` past ``valid`` samples (in place) and return it."""
    if valid < x.shape[-1]:
        x[..., valid:] = 0.0
    return x


def _block(block: nn.Module) -> nn.Module:
    if isinstance(block, modules.ResBlock1):
        return _ResBlock1(block)
    assert isinstance(block, modules.ResBlock2), block
    return _ResBlock2(block)


class _ResBlock1(nn.Module):
    def __init__(self, block: modules.ResBlock1) -> None:
        super().__init__()
        self.convs1 = nn.ModuleList(_Conv(c) for c in block.convs1)
        self.convs2 = nn.ModuleList(_Conv(c) for c in block.convs2)

    def forward(self, x: torch.Tensor, valid: int) -> torch.Tensor:
        for conv1, conv2 in zip(self.convs1, self.convs2, strict=True):
            y = F.leaky_relu_(_clear_tail(conv1(F.leaky_relu(x, modules.LRELU_SLOPE)), valid), modules.LRELU_SLOPE)
            x = _clear_tail(conv2(y), valid).add_(x)
        return x


class _ResBlock2(nn.Module):
    def __init__(self, block: modules.ResBlock2) -> None:
        super().__init__()
        self.convs = nn.ModuleList(_Conv(c) for c in block.convs)

    def forward(self, x: torch.Tensor, valid: int) -> torch.Tensor:
        for conv in self.convs:
            x = _clear_tail(conv(F.leaky_relu(x, modules.LRELU_SLOPE)), valid).add_(x)
        return x
