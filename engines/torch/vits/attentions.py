"""The text encoder's transformer: self-attention with relative positions, and its FFN.

Relative position representations (Shaw et al., 2018) over a window of +-4 positions,
as VITS's text encoder (Kim et al., 2021, sec. 2.6 and appendix) uses them.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


class LayerNorm(nn.Module):
    """Layer normalization over the channel dimension of ``[B, C, T]`` (parameters ``gamma``, ``beta``)."""

    def __init__(self, channels: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.channels, self.eps = channels, eps
        self.gamma = nn.Parameter(torch.ones(channels))
        self.beta = nn.Parameter(torch.zeros(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.layer_norm(x.transpose(1, -1), (self.channels,), self.gamma, self.beta, self.eps)
        return x.transpose(1, -1)


class Encoder(nn.Module):
    """``n_layers`` post-norm transformer blocks on ``[B, hidden, T]`` (masked)."""

    def __init__(
        self,
        hidden_channels: int,
        filter_channels: int,
        n_heads: int,
        n_layers: int,
        kernel_size: int = 1,
        p_dropout: float = 0.0,
        window_size: int = 4,
    ) -> None:
        super().__init__()
        self.drop = nn.Dropout(p_dropout)
        self.attn_layers = nn.ModuleList(
            MultiHeadAttention(hidden_channels, hidden_channels, n_heads, p_dropout, window_size)
            for _ in range(n_layers)
        )
        self.norm_layers_1 = nn.ModuleList(LayerNorm(hidden_channels) for _ in range(n_layers))
        self.ffn_layers = nn.ModuleList(
            FFN(hidden_channels, hidden_channels, filter_channels, kernel_size, p_dropout) for _ in range(n_layers)
        )
        self.norm_layers_2 = nn.ModuleList(LayerNorm(hidden_channels) for _ in range(n_layers))

    def forward(self, x: torch.Tensor, x_mask: torch.Tensor) -> torch.Tensor:
        """``x`` ``[B, C, T]``, ``x_mask`` ``[B, 1, T]`` -> ``[B, C, T]``."""
        attn_mask = x_mask.unsqueeze(2) * x_mask.unsqueeze(-1)
        x = x * x_mask
        for attn, norm_1, ffn, norm_2 in zip(
            self.attn_layers, self.norm_layers_1, self.ffn_layers, self.norm_layers_2, strict=True
        ):
            x = norm_1(x + self.drop(attn(x, x, attn_mask)))
            x = norm_2(x + self.drop(ffn(x, x_mask)))
        return x * x_mask


class MultiHeadAttention(nn.Module):
    """Multi-head attention with relative position keys and values shared by all heads."""

    def __init__(
        self, channels: int, out_channels: int, n_heads: int, p_dropout: float = 0.0, window_size: int | None = 4
    ) -> None:
        super().__init__()
        assert channels % n_heads == 0
        self.n_heads, self.window_size = n_heads, window_size
        self.k_channels = channels // n_heads
        self.conv_q = nn.Conv1d(channels, channels, 1)
        self.conv_k = nn.Conv1d(channels, channels, 1)
        self.conv_v = nn.Conv1d(channels, channels, 1)
        self.conv_o = nn.Conv1d(channels, out_channels, 1)
        self.drop = nn.Dropout(p_dropout)
        if window_size is not None:
            scale = self.k_channels**-0.5
            self.emb_rel_k = nn.Parameter(torch.randn(1, 2 * window_size + 1, self.k_channels) * scale)
            self.emb_rel_v = nn.Parameter(torch.randn(1, 2 * window_size + 1, self.k_channels) * scale)
        for conv in (self.conv_q, self.conv_k, self.conv_v):
            nn.init.xavier_uniform_(conv.weight)

    def forward(self, x: torch.Tensor, c: torch.Tensor, attn_mask: torch.Tensor | None = None) -> torch.Tensor:
        """Queries from ``x`` ``[B, C, T_t]``, keys and values from ``c`` ``[B, C, T_s]``; mask ``[B, 1, T_t, T_s]``."""
        return self.conv_o(self._attend(self.conv_q(x), self.conv_k(c), self.conv_v(c), attn_mask))

    def _attend(self, query, key, value, mask) -> torch.Tensor:
        b, d, t_s = key.shape
        t_t = query.shape[2]
        query = query.view(b, self.n_heads, self.k_channels, t_t).transpose(2, 3) / math.sqrt(self.k_channels)
        key = key.view(b, self.n_heads, self.k_channels, t_s).transpose(2, 3)
        value = value.view(b, self.n_heads, self.k_channels, t_s).transpose(2, 3)
        scores = query @ key.transpose(-2, -1)
        if self.window_size is not None:
            rel_keys = self._relative_embeddings(self.emb_rel_k, t_s)
            scores = scores + _relative_to_absolute(query @ rel_keys.unsqueeze(0).transpose(-2, -1))
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e4)
        weights = self.drop(F.softmax(scores, dim=-1))
        output = weights @ value
        if self.window_size is not None:
            rel_values = self._relative_embeddings(self.emb_rel_v, t_s)
            output = output + _absolute_to_relative(weights) @ rel_values.unsqueeze(0)
        return output.transpose(2, 3).contiguous().view(b, d, t_t)

    def _relative_embeddings(self, embeddings: torch.Tensor, length: int) -> torch.Tensor:
        """Embeddings for relative positions -(length-1)..(length-1): ``[1, 2 * length - 1, k]``."""
        assert self.window_size is not None  # called only when the layer has relative embeddings
        pad = max(length - (self.window_size + 1), 0)
        start = max((self.window_size + 1) - length, 0)
        if pad > 0:
            embeddings = F.pad(embeddings, [0, 0, pad, pad, 0, 0])
        return embeddings[:, start : start + 2 * length - 1]


def _relative_to_absolute(x: torch.Tensor) -> torch.Tensor:
    """``[B, H, L, 2L-1]`` logits by relative position -> ``[B, H, L, L]`` by absolute position."""
    b, h, length, _ = x.shape
    x = F.pad(x, [0, 1]).view(b, h, length * 2 * length)
    x = F.pad(x, [0, length - 1])
    return x.view(b, h, length + 1, 2 * length - 1)[:, :, :length, length - 1 :]


def _absolute_to_relative(x: torch.Tensor) -> torch.Tensor:
    """``[B, H, L, L]`` weights by absolute position -> ``[B, H, L, 2L-1]`` by relative position."""
    b, h, length, _ = x.shape
    x = F.pad(x, [0, length - 1]).view(b, h, length**2 + length * (length - 1))
    x = F.pad(x, [length, 0])
    return x.view(b, h, length, 2 * length)[:, :, :, 1:]


class FFN(nn.Module):
    """Two "same"-padded convolutions with ReLU between, masked (the transformer's feed-forward part)."""

    def __init__(
        self, in_channels: int, out_channels: int, filter_channels: int, kernel_size: int, p_dropout: float = 0.0
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.conv_1 = nn.Conv1d(in_channels, filter_channels, kernel_size)
        self.conv_2 = nn.Conv1d(filter_channels, out_channels, kernel_size)
        self.drop = nn.Dropout(p_dropout)

    def forward(self, x: torch.Tensor, x_mask: torch.Tensor) -> torch.Tensor:
        x = self.conv_1(self._pad(x * x_mask))
        x = self.drop(torch.relu(x))
        x = self.conv_2(self._pad(x * x_mask))
        return x * x_mask

    def _pad(self, x: torch.Tensor) -> torch.Tensor:
        if self.kernel_size == 1:
            return x
        return F.pad(x, [(self.kernel_size - 1) // 2, self.kernel_size // 2])
