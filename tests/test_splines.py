"""The stochastic duration predictor's rational-quadratic splines equal Piper's, with fixed shapes."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
reference = pytest.importorskip("piper.train.vits.transforms")

from engines.torch.vits.transforms import (  # noqa: E402
    MIN_BIN_HEIGHT,
    MIN_BIN_WIDTH,
    bin_index,
    knots,
    piecewise_rational_quadratic,
)

TAIL_BOUND = 5.0
BIN_COUNTS = [2, 3, 10, 16]


def spline_parameters(bins: int, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Unnormalized widths, heights ``[4, 64, K]`` and derivatives ``[4, 64, K - 1]``; the last 8 lanes masked (0)."""
    generator = torch.Generator().manual_seed(seed)
    params = [3 * torch.randn(4, 64, n, generator=generator) for n in (bins, bins, bins - 1)]
    for p in params:
        p[:, -8:] = 0
    return params[0], params[1], params[2]


def spline_inputs(knot_positions: torch.Tensor, seed: int) -> torch.Tensor:
    """``[4, 64]`` inputs: random in [-7, 7] (tails too), both bounds, each lane's interior knots, masked lanes 0."""
    generator = torch.Generator().manual_seed(seed)
    inputs = 14 * torch.rand(4, 64, generator=generator) - 7
    inputs[0, :2] = torch.tensor([-TAIL_BOUND, TAIL_BOUND])
    interior = knot_positions.shape[-1] - 2
    for k in range(interior):  # row 1: lane j sits on its own interior knot (j mod interior) + 1
        lanes = torch.arange(k, 56, interior)
        inputs[1, lanes] = knot_positions[1, lanes, k + 1]
    inputs[:, -8:] = 0
    return inputs


def both(inputs, widths, heights, derivatives, inverse: bool):
    ours = piecewise_rational_quadratic(inputs, widths, heights, derivatives, inverse=inverse, tail_bound=TAIL_BOUND)
    theirs = reference.piecewise_rational_quadratic_transform(
        inputs.clone(),
        widths.clone(),
        heights.clone(),
        derivatives.clone(),
        inverse=inverse,
        tails="linear",
        tail_bound=TAIL_BOUND,
    )
    return ours, theirs


@pytest.mark.parametrize("inverse", [False, True], ids=["forward", "inverse"])
@pytest.mark.parametrize("bins", BIN_COUNTS)
def test_spline_equals_pipers(bins, inverse):
    """Outputs and log-determinants equal Piper's within 1e-5: tails, bounds, knots and masked lanes included."""
    widths, heights, derivatives = spline_parameters(bins, seed=bins)
    unnormalized, min_size = (heights, MIN_BIN_HEIGHT) if inverse else (widths, MIN_BIN_WIDTH)
    inputs = spline_inputs(knots(unnormalized, -TAIL_BOUND, TAIL_BOUND, min_size)[0], seed=100 + bins)
    (outputs, logabsdet), (want_outputs, want_logabsdet) = both(inputs, widths, heights, derivatives, inverse)
    torch.testing.assert_close(outputs, want_outputs, rtol=0, atol=1e-5)
    torch.testing.assert_close(logabsdet, want_logabsdet, rtol=0, atol=1e-5)
    assert torch.isfinite(outputs).all() and torch.isfinite(logabsdet).all()
    outside = inputs.abs() > TAIL_BOUND
    assert outside.any() and torch.equal(outputs[outside], inputs[outside]) and not logabsdet[outside].any()


@pytest.mark.parametrize("bins", BIN_COUNTS)
def test_bin_search_picks_the_references_bins(bins):
    """The interior-knot count picks searchsorted's bin for every input within the bounds, the bounds included."""
    widths, heights, _ = spline_parameters(bins, seed=bins)
    for unnormalized, min_size in ((widths, MIN_BIN_WIDTH), (heights, MIN_BIN_HEIGHT)):
        knot_positions = knots(unnormalized, -TAIL_BOUND, TAIL_BOUND, min_size)[0]
        inputs = spline_inputs(knot_positions, seed=200 + bins).clamp(-TAIL_BOUND, TAIL_BOUND)
        ours = bin_index(knot_positions, inputs)[..., 0]
        theirs = reference.searchsorted(knot_positions.clone(), inputs)
        assert torch.equal(ours, theirs)
        assert ours[0, 0] == 0 and ours[0, 1] == bins - 1  # -tail_bound and +tail_bound
        assert torch.equal(ours[1, :56], torch.arange(56) % (bins - 1) + 1)  # a knot starts its bin


def test_bins_beyond_the_bounds_are_the_outer_bins():
    """Inputs past the bounds (the tails before masking) take the first or last bin, never an index out of range."""
    knot_positions = knots(torch.zeros(3, 4), -TAIL_BOUND, TAIL_BOUND, MIN_BIN_WIDTH)[0]
    inputs = torch.tensor([-1e9, -5.5, 1e9])
    assert bin_index(knot_positions, inputs)[..., 0].tolist() == [0, 0, 3]


@pytest.mark.parametrize("inverse", [False, True], ids=["forward", "inverse"])
def test_spline_shapes_do_not_depend_on_the_data(inverse):
    """The spline runs on the meta device (shapes, no values); Piper's boolean indexing cannot."""
    widths, heights, derivatives = (torch.empty(4, 64, n, device="meta") for n in (10, 10, 9))
    inputs = torch.empty(4, 64, device="meta")
    outputs, logabsdet = piecewise_rational_quadratic(inputs, widths, heights, derivatives, inverse=inverse)
    assert outputs.shape == logabsdet.shape == inputs.shape
    with pytest.raises(NotImplementedError, match="nonzero"):
        reference.piecewise_rational_quadratic_transform(
            inputs, widths, heights, derivatives, inverse=inverse, tails="linear", tail_bound=TAIL_BOUND
        )
