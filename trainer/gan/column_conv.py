"""Convolutions with ``(k, 1)`` kernels whose weight gradient is one matrix product (the period discriminators').

HiFi-GAN's period discriminators fold the waveform into ``[B, C, T / p, p]`` and convolve along the first
axis only. On the CPU, oneDNN's weight-gradient kernel for these shapes is its slowest part of a training
step: in bf16 on an AMX CPU its ``backward_weights`` took 60-100 ms for a 1024 x 1024 x 5 layer whose forward
took 9 ms, about 100 GFLOP/s. The same gradient as an im2col matrix product,

    dW[o, c, j] = sum over (b, h, w) of dY[b, o, h, w] * X_padded[b, c, h * stride + j, w],

is one ``[C_out, N] @ [N, C_in * k]`` product (N = B * H_out * W) that runs on the AMX tiles: 3x faster for
the layer in bf16, 5-10% in float32 (``tests/bench/train_step.py``, docs/benchmarks.md "Training speed"). The
forward and the input gradient stay oneDNN's (``F.conv2d`` and ``aten.convolution_backward``).

Each gradient is computed only when the backward pass will use it: besides ``requires_grad``, the autograd
engine is asked whether it will run the node that receives it (``torch._C._will_engine_execute_node``), so a
``backward(inputs=...)`` that wants the generator's gradients computes no discriminator weight gradient, as
the built-in convolution does.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def column_conv(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, stride: int, padding: int):
    """``F.conv2d(x, weight, bias, (stride, 1), (padding, 0))`` with the weight gradient as a matrix product.

    Args:
        x: ``[B, C_in, H, W]``; weight ``[C_out, C_in, k, 1]``; bias ``[C_out]`` or None.
        stride, padding: along H (W is neither strided nor padded).
    Returns:
        ``[B, C_out, H_out, W]``, H_out = (H + 2 * padding - k) // stride + 1. Under CPU autocast every
        tensor is cast to the autocast dtype first, as autocast casts ``conv2d``'s.
    """
    device = x.device.type
    if torch.is_autocast_enabled(device):
        dtype = torch.get_autocast_dtype(device)
        x, weight = x.to(dtype), weight.to(dtype)
        bias = None if bias is None else bias.to(dtype)
    with torch.autocast(device, enabled=False):
        nodes = tuple(_gradient_node(t) for t in (x, weight, bias))
        return _ColumnConv.apply(x, weight, bias, stride, padding, nodes)


def weight_gradient(x: torch.Tensor, grad: torch.Tensor, kernel: int, stride: int, padding: int) -> torch.Tensor:
    """dW ``[C_out, C_in, kernel, 1]`` of a ``(kernel, 1)`` convolution of ``x`` ``[B, C_in, H, W]`` whose
    output gradient is ``grad`` ``[B, C_out, H_out, W]``: one matrix product over im2col columns."""
    columns = F.pad(x, (0, 0, padding, padding)).unfold(2, kernel, stride)  # [B, C_in, H_out, W, kernel]
    b, c_in, h_out, w, _ = columns.shape
    columns = columns.permute(0, 2, 3, 1, 4).reshape(b * h_out * w, c_in * kernel)
    rows = grad.permute(0, 2, 3, 1).reshape(b * h_out * w, grad.shape[1])
    return (rows.t() @ columns).reshape(grad.shape[1], c_in, kernel, 1)


def input_gradient(
    x: torch.Tensor, weight: torch.Tensor, grad: torch.Tensor, stride: int, padding: int
) -> torch.Tensor:
    """dX ``[B, C_in, H, W]`` of the ``(k, 1)`` convolution: oneDNN's input-gradient kernel alone."""
    conv = (None, (stride, 1), (padding, 0), (1, 1), False, (0, 0), 1, (True, False, False))
    return torch.ops.aten.convolution_backward(grad, x, weight, *conv)[0]


def _gradient_node(t: torch.Tensor | None):
    """The autograd node that receives ``t``'s gradient (its ``grad_fn``, or a leaf's accumulator); None if none."""
    if t is None or not t.requires_grad:
        return None
    return torch.autograd.graph.get_gradient_edge(t).node


def _wanted(node) -> bool:
    """Whether the running backward pass will execute ``node`` (True where torch cannot tell)."""
    ask = getattr(torch._C, "_will_engine_execute_node", None)
    return node is not None and (ask is None or ask(node))


class _ColumnConv(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, stride, padding, nodes):
        ctx.save_for_backward(x, weight)
        ctx.stride, ctx.padding, ctx.nodes, ctx.has_bias = stride, padding, nodes, bias is not None
        return F.conv2d(x, weight, bias, (stride, 1), (padding, 0))

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        grad_x = grad_w = grad_b = None
        if _wanted(ctx.nodes[0]):
            grad_x = input_gradient(x, weight, grad, ctx.stride, ctx.padding)
        if _wanted(ctx.nodes[1]):
            grad_w = weight_gradient(x, grad, weight.shape[2], ctx.stride, ctx.padding)
        if ctx.has_bias and _wanted(ctx.nodes[2]):
            grad_b = grad.sum((0, 2, 3))
        return grad_x, grad_w, grad_b, None, None, None
