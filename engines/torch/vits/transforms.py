"""Monotonic rational-quadratic splines (Durkan et al., "Neural Spline Flows", NeurIPS 2019).

Used by the stochastic duration predictor's ``ConvFlow`` layers. Inputs in
[-tail_bound, tail_bound] go through the spline; outside it the transform is the
identity ("linear tails"). Written with fixed shapes: every element is computed
(inputs in the tails are first clamped to the bounds, so they give finite values
that are then discarded) and the tails are chosen with ``torch.where``, never by
boolean indexing, so the code compiles and exports without data-dependent shapes.
The bin search counts the interior knots at or below each input, so the bounds
themselves, clamped tails and masked (zero) lanes all fall in a valid bin, the
same bin as the reference's ``searchsorted`` (VITS ``transforms.py``) for inputs
inside the bounds.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

MIN_BIN_WIDTH = 1e-3
MIN_BIN_HEIGHT = 1e-3
MIN_DERIVATIVE = 1e-3


def piecewise_rational_quadratic(
    inputs: torch.Tensor,
    unnormalized_widths: torch.Tensor,
    unnormalized_heights: torch.Tensor,
    unnormalized_derivatives: torch.Tensor,
    inverse: bool = False,
    tail_bound: float = 5.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Apply the spline (or its inverse) elementwise.

    Args:
        inputs: any shape ``[...]``.
        unnormalized_widths, unnormalized_heights: ``[..., K]`` for K bins.
        unnormalized_derivatives: ``[..., K - 1]`` (inner knots; the outer ones are 1).

    Returns:
        outputs ``[...]`` and log |d outputs / d inputs| ``[...]`` (0 in the tails).
    """
    inside = (inputs >= -tail_bound) & (inputs <= tail_bound)
    boundary = math.log(math.exp(1 - MIN_DERIVATIVE) - 1)  # softplus(boundary) + min = 1
    derivatives = F.pad(unnormalized_derivatives, (1, 1), value=boundary)
    clamped = inputs.clamp(-tail_bound, tail_bound)
    outputs, logabsdet = _spline(
        clamped, unnormalized_widths, unnormalized_heights, derivatives, inverse, -tail_bound, tail_bound
    )
    return torch.where(inside, outputs, inputs), torch.where(inside, logabsdet, torch.zeros_like(logabsdet))


def knots(unnormalized: torch.Tensor, low: float, high: float, min_size: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Knot positions ``[..., K + 1]`` from exactly ``low`` to exactly ``high``, and bin sizes ``[..., K]``.

    ``unnormalized`` ``[..., K]``: each bin gets ``min_size`` of the range plus its softmax share of the rest.
    """
    bins = unnormalized.shape[-1]
    sizes = min_size + (1 - min_size * bins) * F.softmax(unnormalized, dim=-1)
    cumulative = F.pad(torch.cumsum(sizes, dim=-1), (1, 0), value=0.0)
    cumulative = (high - low) * cumulative + low
    cumulative = torch.cat(
        [torch.full_like(cumulative[..., :1], low), cumulative[..., 1:-1], torch.full_like(cumulative[..., :1], high)],
        dim=-1,
    )
    return cumulative, cumulative[..., 1:] - cumulative[..., :-1]


def bin_index(knots: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
    """Bin of each input ``[..., 1]`` int64 in ``[0, K - 1]``: how many interior knots lie at or below it.

    ``knots`` ``[..., K + 1]``, ``inputs`` ``[...]``. An input on an interior knot
    takes the bin that starts there, ``low`` bin 0 and ``high`` bin K - 1 (as the
    reference's ``searchsorted`` with its last knot raised by 1e-6); inputs beyond
    the bounds take the first or last bin. No clamping, no eps.
    """
    return torch.sum(inputs[..., None] >= knots[..., 1:-1], dim=-1, keepdim=True)


def _spline(inputs, unnormalized_widths, unnormalized_heights, unnormalized_derivatives, inverse, low, high):
    cumwidths, widths = knots(unnormalized_widths, low, high, MIN_BIN_WIDTH)
    cumheights, heights = knots(unnormalized_heights, low, high, MIN_BIN_HEIGHT)
    derivatives = MIN_DERIVATIVE + F.softplus(unnormalized_derivatives)
    index = bin_index(cumheights if inverse else cumwidths, inputs)

    def pick(values: torch.Tensor) -> torch.Tensor:
        return values.gather(-1, index)[..., 0]

    x_k, w_k, y_k, h_k = pick(cumwidths), pick(widths), pick(cumheights), pick(heights)
    s_k = pick(heights / widths)
    d_k, d_k1 = pick(derivatives), pick(derivatives[..., 1:])
    slope_sum = d_k + d_k1 - 2 * s_k
    if inverse:
        # Solve the quadratic a t^2 + b t + c = 0 for t in [0, 1] (Durkan et al., eq. 6-8).
        dy = inputs - y_k
        a = dy * slope_sum + h_k * (s_k - d_k)
        b = h_k * d_k - dy * slope_sum
        c = -s_k * dy
        theta = (2 * c) / (-b - torch.sqrt(b.pow(2) - 4 * a * c))
        outputs = theta * w_k + x_k
    else:
        theta = (inputs - x_k) / w_k
    t1t = theta * (1 - theta)
    denominator = s_k + slope_sum * t1t
    numerator_derivative = s_k.pow(2) * (d_k1 * theta.pow(2) + 2 * s_k * t1t + d_k * (1 - theta).pow(2))
    logabsdet = torch.log(numerator_derivative) - 2 * torch.log(denominator)
    if inverse:
        return outputs, -logabsdet
    return y_k + h_k * (s_k * theta.pow(2) + d_k * t1t) / denominator, logabsdet
