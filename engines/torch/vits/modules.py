"""VITS building blocks: WaveNet stacks, HiFi-GAN residual blocks, and the flow layers.

Sources: WaveNet-style non-causal stacks (``WN``) as in WaveGlow (Prenger et al., 2019);
residual blocks ResBlock1/ResBlock2 from HiFi-GAN (Kong et al., 2020, fig. 1);
affine coupling (Dinh et al., "Density estimation using Real NVP", 2017); the
dilated depth-separable convolutions and spline flows of VITS's stochastic
duration predictor (Kim et al., 2021, appendix B.2).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from engines.torch.vits.attentions import LayerNorm
from engines.torch.vits.commons import gated_activation, same_padding
from engines.torch.vits.transforms import piecewise_rational_quadratic
from engines.torch.vits.weight_norm import WNConv1d

LRELU_SLOPE = 0.1
"""Leaky ReLU slope inside HiFi-GAN (Kong et al., 2020)."""


class DDSConv(nn.Module):
    """Dilated, depth-separable convolutions with layer norm and GELU, residual (``[B, C, T]``)."""

    def __init__(self, channels: int, kernel_size: int, n_layers: int, p_dropout: float = 0.0) -> None:
        super().__init__()
        self.drop = nn.Dropout(p_dropout)
        dilations = [kernel_size**i for i in range(n_layers)]
        self.convs_sep = nn.ModuleList(
            nn.Conv1d(
                channels, channels, kernel_size, groups=channels, dilation=d, padding=same_padding(kernel_size, d)
            )
            for d in dilations
        )
        self.convs_1x1 = nn.ModuleList(nn.Conv1d(channels, channels, 1) for _ in dilations)
        self.norms_1 = nn.ModuleList(LayerNorm(channels) for _ in dilations)
        self.norms_2 = nn.ModuleList(LayerNorm(channels) for _ in dilations)

    def forward(self, x: torch.Tensor, x_mask: torch.Tensor, g: torch.Tensor | None = None) -> torch.Tensor:
        if g is not None:
            x = x + g
        for sep, pointwise, norm_1, norm_2 in zip(
            self.convs_sep, self.convs_1x1, self.norms_1, self.norms_2, strict=True
        ):
            y = F.gelu(norm_1(sep(x * x_mask)))
            y = F.gelu(norm_2(pointwise(y)))
            x = x + self.drop(y)
        return x * x_mask


class WN(nn.Module):
    """Non-causal WaveNet: gated dilated convolutions with residual and skip outputs, optional conditioning."""

    def __init__(
        self,
        hidden_channels: int,
        kernel_size: int,
        dilation_rate: int,
        n_layers: int,
        gin_channels: int = 0,
        p_dropout: float = 0.0,
    ) -> None:
        super().__init__()
        self.hidden_channels, self.n_layers = hidden_channels, n_layers
        self.drop = nn.Dropout(p_dropout)
        self.in_layers = nn.ModuleList()
        self.res_skip_layers = nn.ModuleList()
        for i in range(n_layers):
            dilation = dilation_rate**i
            self.in_layers.append(
                WNConv1d(
                    hidden_channels,
                    2 * hidden_channels,
                    kernel_size,
                    dilation=dilation,
                    padding=same_padding(kernel_size, dilation),
                )
            )
            out = 2 * hidden_channels if i < n_layers - 1 else hidden_channels
            self.res_skip_layers.append(WNConv1d(hidden_channels, out, 1))
        if gin_channels:
            self.cond_layer = WNConv1d(gin_channels, 2 * hidden_channels * n_layers, 1)

    def forward(self, x: torch.Tensor, x_mask: torch.Tensor, g: torch.Tensor | None = None) -> torch.Tensor:
        """``x`` ``[B, H, T]``, mask ``[B, 1, T]``, ``g`` ``[B, gin, 1]`` -> skip sum ``[B, H, T]``."""
        h = self.hidden_channels
        output = torch.zeros_like(x)
        if g is not None:
            g = self.cond_layer(g)
        for i, (in_layer, res_skip_layer) in enumerate(zip(self.in_layers, self.res_skip_layers, strict=True)):
            condition = g[:, i * 2 * h : (i + 1) * 2 * h] if g is not None else 0
            acts = self.drop(gated_activation(in_layer(x), condition, h))
            res_skip = res_skip_layer(acts)
            if i < self.n_layers - 1:
                x = (x + res_skip[:, :h]) * x_mask
                output = output + res_skip[:, h:]
            else:
                output = output + res_skip
        return output * x_mask


class ResBlock1(nn.Module):
    """HiFi-GAN residual block type 1: pairs of (dilated, undilated) convolutions."""

    def __init__(self, channels: int, kernel_size: int = 3, dilation: tuple[int, ...] = (1, 3, 5)) -> None:
        super().__init__()
        self.convs1 = nn.ModuleList(
            WNConv1d(channels, channels, kernel_size, dilation=d, padding=same_padding(kernel_size, d))
            for d in dilation
        )
        self.convs2 = nn.ModuleList(
            WNConv1d(channels, channels, kernel_size, padding=same_padding(kernel_size)) for _ in dilation
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for conv1, conv2 in zip(self.convs1, self.convs2, strict=True):
            y = conv1(F.leaky_relu(x, LRELU_SLOPE))
            x = x + conv2(F.leaky_relu(y, LRELU_SLOPE))
        return x


class ResBlock2(nn.Module):
    """HiFi-GAN residual block type 2: one dilated convolution per dilation."""

    def __init__(self, channels: int, kernel_size: int = 3, dilation: tuple[int, ...] = (1, 3)) -> None:
        super().__init__()
        self.convs = nn.ModuleList(
            WNConv1d(channels, channels, kernel_size, dilation=d, padding=same_padding(kernel_size, d))
            for d in dilation
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for conv in self.convs:
            x = x + conv(F.leaky_relu(x, LRELU_SLOPE))
        return x


# --- flows: forward (training) returns (y, logdet [B]); reverse returns x --------------------


class Log(nn.Module):
    """y = log(x) on the masked positions."""

    def forward(self, x, x_mask, g=None, reverse: bool = False):
        if reverse:
            return torch.exp(x) * x_mask
        y = torch.log(torch.clamp_min(x, 1e-5)) * x_mask
        return y, torch.sum(-y, [1, 2])


class Flip(nn.Module):
    """Reverses the channel order, so the next coupling transforms the other half."""

    def forward(self, x, x_mask=None, g=None, reverse: bool = False):
        x = torch.flip(x, [1])
        if reverse:
            return x
        return x, torch.zeros(x.shape[0], dtype=x.dtype, device=x.device)


class ElementwiseAffine(nn.Module):
    """y = m + exp(logs) * x per channel (parameters ``m``, ``logs`` ``[C, 1]``)."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.m = nn.Parameter(torch.zeros(channels, 1))
        self.logs = nn.Parameter(torch.zeros(channels, 1))

    def forward(self, x, x_mask, g=None, reverse: bool = False):
        if reverse:
            return (x - self.m) * torch.exp(-self.logs) * x_mask
        y = (self.m + torch.exp(self.logs) * x) * x_mask
        return y, torch.sum(self.logs * x_mask, [1, 2])


class ResidualCouplingLayer(nn.Module):
    """Affine coupling: the second half of the channels is shifted (and scaled) by a WaveNet of the first."""

    def __init__(
        self,
        channels: int,
        hidden_channels: int,
        kernel_size: int,
        dilation_rate: int,
        n_layers: int,
        p_dropout: float = 0.0,
        gin_channels: int = 0,
        mean_only: bool = False,
    ) -> None:
        super().__init__()
        assert channels % 2 == 0, "channels should be divisible by 2"
        self.half_channels, self.mean_only = channels // 2, mean_only
        self.pre = nn.Conv1d(self.half_channels, hidden_channels, 1)
        self.enc = WN(hidden_channels, kernel_size, dilation_rate, n_layers, gin_channels, p_dropout)
        self.post = nn.Conv1d(hidden_channels, self.half_channels * (2 - mean_only), 1)
        nn.init.zeros_(self.post.weight)
        assert self.post.bias is not None  # nn.Conv1d has a bias by default
        nn.init.zeros_(self.post.bias)

    def forward(self, x, x_mask, g=None, reverse: bool = False):
        x0, x1 = torch.split(x, [self.half_channels] * 2, 1)
        h = self.enc(self.pre(x0) * x_mask, x_mask, g=g)
        stats = self.post(h) * x_mask
        if self.mean_only:
            m, logs = stats, torch.zeros_like(stats)
        else:
            m, logs = torch.split(stats, [self.half_channels] * 2, 1)
        if reverse:
            return torch.cat([x0, (x1 - m) * torch.exp(-logs) * x_mask], 1)
        x1 = m + x1 * torch.exp(logs) * x_mask
        return torch.cat([x0, x1], 1), torch.sum(logs, [1, 2])


class ConvFlow(nn.Module):
    """Spline coupling: the second half goes through a rational-quadratic spline set by DDSConv of the first."""

    def __init__(
        self,
        in_channels: int,
        filter_channels: int,
        kernel_size: int,
        n_layers: int,
        num_bins: int = 10,
        tail_bound: float = 5.0,
    ) -> None:
        super().__init__()
        self.filter_channels, self.num_bins, self.tail_bound = filter_channels, num_bins, tail_bound
        self.half_channels = in_channels // 2
        self.pre = nn.Conv1d(self.half_channels, filter_channels, 1)
        self.convs = DDSConv(filter_channels, kernel_size, n_layers, p_dropout=0.0)
        self.proj = nn.Conv1d(filter_channels, self.half_channels * (num_bins * 3 - 1), 1)
        nn.init.zeros_(self.proj.weight)
        assert self.proj.bias is not None  # nn.Conv1d has a bias by default
        nn.init.zeros_(self.proj.bias)

    def forward(self, x, x_mask, g=None, reverse: bool = False):
        x0, x1 = torch.split(x, [self.half_channels] * 2, 1)
        h = self.proj(self.convs(self.pre(x0), x_mask, g=g)) * x_mask
        b, c, t = x0.shape
        h = h.reshape(b, c, -1, t).permute(0, 1, 3, 2)  # [B, C, T, 3K - 1]
        scale, k = math.sqrt(self.filter_channels), self.num_bins
        x1, logabsdet = piecewise_rational_quadratic(
            x1,
            h[..., :k] / scale,
            h[..., k : 2 * k] / scale,
            h[..., 2 * k :],
            inverse=reverse,
            tail_bound=self.tail_bound,
        )
        x = torch.cat([x0, x1], 1) * x_mask
        if reverse:
            return x
        return x, torch.sum(logabsdet * x_mask, [1, 2])
