"""``trainer.gan.column_conv`` and ``weights_once``: the period discriminators' faster CPU paths give the
built-in convolution's and the plain weight norm's numbers, and compute no gradient nobody asked for."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from engines.torch.vits.weight_norm import WNConv2d, weights_once  # noqa: E402
from trainer.gan import column_conv as cc  # noqa: E402
from trainer.gan.discriminators import MultiPeriodDiscriminator, PeriodConv  # noqa: E402

SHAPES = [  # B, C_in, H, W (the period), C_out, kernel, stride, padding
    (2, 1, 31, 2, 8, 5, 3, 2),
    (3, 8, 20, 3, 6, 5, 3, 2),
    (2, 16, 17, 5, 16, 5, 1, 2),
    (1, 4, 9, 11, 4, 3, 1, 1),
    (2, 6, 12, 7, 5, 5, 3, 0),
]


def _inputs(b, c_in, h, w, c_out, k, seed=0):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(b, c_in, h, w, generator=generator).requires_grad_(True)
    weight = (torch.randn(c_out, c_in, k, 1, generator=generator) * 0.3).requires_grad_(True)
    bias = torch.randn(c_out, generator=generator).requires_grad_(True)
    return x, weight, bias


def _gradients(convolve, x, weight, bias):
    for t in (x, weight, bias):
        t.grad = None
    y = convolve(x * 1.0, weight, bias)  # x through one op: its gradient reaches a node, as in a network
    (y.float() ** 2).sum().backward()
    return y, x.grad, weight.grad, bias.grad


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_outputs_and_gradients_are_conv2ds(shape):
    """Output and the three gradients equal ``F.conv2d``'s (float32, strided and padded along H only)."""
    *dims, k, stride, padding = shape
    tensors = _inputs(*dims, k)
    ours = _gradients(lambda x, w, b: cc.column_conv(x, w, b, stride, padding), *tensors)
    builtin = _gradients(lambda x, w, b: F.conv2d(x, w, b, (stride, 1), (padding, 0)), *tensors)
    for a, b in zip(ours, builtin, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)


def test_under_bf16_autocast_it_computes_in_bf16_as_conv2d_does():
    """Under CPU bf16 autocast the output is bf16 and conv2d's; gradients agree to bf16 precision and reach
    the float32 tensors in float32."""
    tensors = _inputs(4, 32, 40, 3, 32, 5)

    def autocast(convolve):
        def run(x, w, b):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                return convolve(x, w, b)

        return run

    ours = _gradients(autocast(lambda x, w, b: cc.column_conv(x, w, b, 3, 2)), *tensors)
    builtin = _gradients(autocast(lambda x, w, b: F.conv2d(x, w, b, (3, 1), (2, 0))), *tensors)
    assert ours[0].dtype == torch.bfloat16 and all(g.dtype == torch.float32 for g in ours[1:])
    torch.testing.assert_close(ours[0], builtin[0])
    for a, b in zip(ours[1:], builtin[1:], strict=True):
        torch.testing.assert_close(a, b, rtol=2e-2, atol=2e-2 * float(b.abs().max()))


def _counting(monkeypatch):
    calls = {"input": 0, "weight": 0}
    for name, key in (("input_gradient", "input"), ("weight_gradient", "weight")):
        original = getattr(cc, name)

        def counted(*args, _original=original, _key=key):
            calls[_key] += 1
            return _original(*args)

        monkeypatch.setattr(cc, name, counted)
    return calls


def test_a_backward_for_some_inputs_computes_only_their_gradients(monkeypatch):
    """``backward(inputs=[x])`` computes no weight gradient and ``inputs=[weight]`` no input gradient; a
    plain backward computes both."""
    calls = _counting(monkeypatch)
    x, weight, bias = _inputs(2, 4, 12, 3, 4, 5)
    runs = {"x": [x], "weight": [weight], "all": None}
    counts = {}
    for name, inputs in runs.items():
        calls.update(input=0, weight=0)
        y = cc.column_conv(x * 1.0, weight, bias, 1, 2)
        y.sum().backward(inputs=inputs)
        counts[name] = dict(calls)
    assert counts["x"] == {"input": 1, "weight": 0}
    assert counts["weight"] == {"input": 0, "weight": 1}
    assert counts["all"] == {"input": 1, "weight": 1}


def test_a_first_layer_on_audio_that_needs_no_gradient_computes_none(monkeypatch):
    """Real audio (no ``requires_grad``) gets no input gradient, as the discriminator step wants."""
    calls = _counting(monkeypatch)
    x, weight, bias = _inputs(2, 1, 30, 2, 4, 5)
    cc.column_conv(x.detach(), weight, bias, 3, 2).sum().backward()
    assert calls == {"input": 0, "weight": 1}


def test_period_conv_is_a_weight_normalized_conv2d_with_pipers_names():
    """``PeriodConv`` keeps ``WNConv2d``'s state dict and gives its output and gradients."""
    torch.manual_seed(1)
    ours = PeriodConv(8, 16, (5, 1), (3, 1), padding=(2, 0))
    plain = WNConv2d(8, 16, (5, 1), (3, 1), padding=(2, 0))
    plain.load_state_dict(ours.state_dict())
    assert list(ours.state_dict()) == ["bias", "weight_g", "weight_v"]
    x = torch.randn(2, 8, 33, 5)
    outputs = []
    for layer in (ours, plain):
        y = layer(x)
        (y**2).sum().backward()
        outputs.append((y, layer.weight_g.grad, layer.weight_v.grad, layer.bias.grad))
    for a, b in zip(*outputs, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)


def test_weights_once_computes_each_weight_once_and_keeps_the_gradients(monkeypatch):
    """Two discriminator forwards inside ``weights_once`` compute each layer's weight norm once (outside:
    twice) and give the same gradients as computing it per forward."""
    torch.manual_seed(2)
    discriminators = MultiPeriodDiscriminator(1 / 16)
    real, fake = torch.randn(2, 1, 2048), torch.randn(2, 1, 2048)
    layers = sum(1 for m in discriminators.modules() if hasattr(m, "weight_v"))
    calls = []
    original = torch._weight_norm
    monkeypatch.setattr(torch, "_weight_norm", lambda *a: calls.append(1) or original(*a))

    def gradients(once: bool):
        discriminators.zero_grad(set_to_none=True)
        calls.clear()
        if once:
            with weights_once(discriminators):
                scores = discriminators(real) + discriminators(fake)
        else:
            scores = discriminators(real) + discriminators(fake)
        sum(logits.pow(2).mean() for logits, _ in scores).backward()
        return len(calls), {n: p.grad.clone() for n, p in discriminators.named_parameters()}

    (once_calls, once), (twice_calls, twice) = gradients(True), gradients(False)
    assert (once_calls, twice_calls) == (layers, 2 * layers)
    for name, grad in once.items():
        torch.testing.assert_close(grad, twice[name], rtol=1e-5, atol=1e-6, msg=name)
    assert gradients(False)[0] == 2 * layers  # nothing held after the block
