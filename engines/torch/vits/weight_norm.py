"""Weight-normalized convolutions with Piper's parameter names (``weight_g``, ``weight_v``).

w = g * v / ||v||, the norm taken over every dimension but the first (Salimans &
Kingma, "Weight Normalization", 2016), as ``torch.nn.utils.weight_norm(module, dim=0)``
stores it, which is how Piper's checkpoints hold these layers.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

import torch
import torch.nn.functional as F
from torch import nn


def _norm_except_dim0(v: torch.Tensor) -> torch.Tensor:
    return v.pow(2).sum(dim=tuple(range(1, v.dim())), keepdim=True).sqrt()


class _WeightNorm:
    """Mixin: replaces ``weight`` by ``weight_g`` and ``weight_v``."""

    # provided by the nn.Module it is mixed into (declared for the type checker only)
    weight: torch.Tensor
    weight_g: torch.Tensor
    weight_v: torch.Tensor
    _parameters: dict[str, nn.Parameter | None]

    def _init_weight_norm(self) -> None:
        weight = self.weight.detach()
        del self.weight
        self.weight_g = nn.Parameter(_norm_except_dim0(weight))
        self.weight_v = nn.Parameter(weight.clone())

    _folded: torch.Tensor | None = None

    _held: list[torch.Tensor] | None = None

    def normalized_weight(self) -> torch.Tensor:
        """The effective weight g * v / ||v|| (the folded copy, after :meth:`fold`; the held one, in
        :func:`weights_once`).

        Computed by ``torch._weight_norm``, the fused kernel ``torch.nn.utils.weight_norm`` (and so Piper)
        computes it with: one pass forward and one backward where the plain formula takes five each (a
        1024 x 1024 x 5 weight: 7 against 31 ms forward and backward on a 2-core CPU).
        """
        if self._folded is not None:
            return self._folded
        if "weight" in self._parameters:  # weight norm removed (see :meth:`remove`)
            return self.weight
        if self._held is None:
            return torch._weight_norm(self.weight_v, self.weight_g, 0)
        if not self._held:
            self._held.append(torch._weight_norm(self.weight_v, self.weight_g, 0))
        return self._held[0]

    def fold(self) -> None:
        """Compute the weight once, for inference; ``weight_g``/``weight_v`` stay (Piper's state dict).

        Training or loading new weights afterwards needs :meth:`unfold`.
        """
        self._folded = None
        with torch.no_grad():
            self._folded = self.normalized_weight().detach().clone()

    def unfold(self) -> None:
        """Compute the weight from ``weight_g`` and ``weight_v`` again on every call."""
        self._folded = None

    def remove(self) -> None:
        """Replace ``weight_g`` and ``weight_v`` by the plain ``weight`` they give, as Piper's exporter does.

        Like ``torch.nn.utils.remove_weight_norm``: the layer's state dict then
        holds ``weight`` only, and an ONNX export stores it as one named initializer.
        """
        with torch.no_grad():
            weight = torch._weight_norm(self.weight_v, self.weight_g, 0)
        del self.weight_g, self.weight_v
        self._folded = None
        self.weight = nn.Parameter(weight.detach())


class _WNConv(_WeightNorm):
    """Mixin for ``nn.ConvNd``: builds the layer, then splits its weight; convolves with g * v / ||v||."""

    bias: torch.Tensor | None  # the nn.ConvNd's, declared for the type checker

    if TYPE_CHECKING:

        def _conv_forward(self, input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
            """``nn.ConvNd``'s convolution with the given weight."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._init_weight_norm()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._conv_forward(x, self.normalized_weight(), self.bias)


class WNConv1d(_WNConv, nn.Conv1d):
    """``nn.Conv1d`` with weight normalization (parameters ``weight_g`` [C_out, 1, 1], ``weight_v``)."""


class WNConv2d(_WNConv, nn.Conv2d):
    """``nn.Conv2d`` with weight normalization (the period discriminators' layers; training only)."""


class WNConvTranspose1d(_WeightNorm, nn.ConvTranspose1d):
    """``nn.ConvTranspose1d`` with weight normalization over dim 0 (its input channels)."""

    padding: tuple[int, ...]  # torch types it ``str | tuple``; a string is a forward convolution's only

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._init_weight_norm()

    # output_size is not taken (the layer's output length follows from its fixed padding)
    def forward(self, x: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        return F.conv_transpose1d(
            x,
            self.normalized_weight(),
            self.bias,
            self.stride,
            self.padding,
            self.output_padding,
            self.groups,
            self.dilation,
        )


M = TypeVar("M", bound=nn.Module)


@contextmanager
def weights_once(module: nn.Module) -> Iterator[None]:
    """Within the block every weight-normalized layer of ``module`` computes its weight once, at its first
    forward, and reuses it (with its autograd graph) in later forwards: the gradients of all of them meet at
    that one weight, whose backward then runs once.

    For training steps that run a module several times with the same parameters (the discriminators score
    real and generated audio); the parameters must not change inside the block.
    """
    layers = [layer for layer in module.modules() if isinstance(layer, _WeightNorm)]
    for layer in layers:
        layer._held = []
    try:
        yield
    finally:
        for layer in layers:
            layer._held = None


def fold_weight_norm(module: M) -> M:
    """Fold every weight-normalized layer of ``module`` for inference; returns ``module``."""
    for layer in module.modules():
        if isinstance(layer, _WeightNorm):
            layer.fold()
    return module


def remove_weight_norm(module: M) -> M:
    """Turn every weight-normalized layer of ``module`` into a plain one (in place); returns ``module``.

    For export: call it on a copy (``copy.deepcopy``), since the module can no longer be trained
    or load Piper's ``weight_g``/``weight_v`` state dicts.
    """
    for layer in module.modules():
        if isinstance(layer, _WeightNorm) and "weight_v" in layer._parameters:
            layer.remove()
    return module
