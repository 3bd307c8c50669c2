"""The generator's training forward equals Piper's SynthesizerTrn.forward for the same weights and seed."""

from __future__ import annotations

import sys
import types

import pytest

torch = pytest.importorskip("torch")

from conftest import piper_synthesizer  # noqa: E402

from engines.torch.vits import Synthesizer, VitsConfig  # noqa: E402
from trainer.align import maximum_path  # noqa: E402
from trainer.gan.generator_forward import (  # noqa: E402
    GeneratorOutput,
    duration_loss,
    expand,
    generator_forward,
    neg_cross_entropy,
    random_segments,
    slice_segments,
)
from trainer.gan.losses import kl_loss  # noqa: E402
from trainer.gan.mel import mel_spectrogram, spec_to_mel  # noqa: E402

CONFIGS = {
    "x-low, 3 speakers": VitsConfig.preset("x-low", num_symbols=48, num_speakers=3),
    "tiny, deterministic durations": VitsConfig.preset(
        "low", num_symbols=40, hidden_channels=48, inter_channels=48, filter_channels=96, n_layers=2, use_sdp=False
    ),
}
SMALL = VitsConfig.preset(  # both duration predictors share duration_loss; the SDP and speakers are the harder case
    "x-low",
    num_symbols=40,
    num_speakers=3,
    gin_channels=16,
    hidden_channels=32,
    inter_channels=32,
    filter_channels=64,
    n_layers=2,
    upsample_initial_channel=32,
    segment_size=2048,
)


@pytest.fixture
def piper_mas(monkeypatch):
    """piper-tts's wheel lacks its compiled MAS: give its forward our reference (the Cython algorithm)."""
    import piper.train.vits as package

    module = types.ModuleType("piper.train.vits.monotonic_align")
    module.maximum_path = maximum_path
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(package, "monotonic_align", module, raising=False)


def make_batch(config):
    """Two items of random phoneme ids and spectrogram frames, the second shorter (padded): the forward's inputs."""
    lengths = torch.tensor([23, 17])
    ids = torch.randint(1, config.num_symbols, (2, 23)) * (torch.arange(23) < lengths[:, None])
    spec_lengths = torch.tensor([90, 61])
    spec = torch.rand(2, config.spec_channels, 90) * (torch.arange(90) < spec_lengths[:, None, None])
    sid = torch.tensor([2, 0]) if config.num_speakers > 1 else None
    return ids, lengths, spec, spec_lengths, sid, config.segment_size // config.hop_length


@pytest.mark.parametrize("name", list(CONFIGS))
def test_training_forward_equals_pipers(name, piper_mas):
    """Same weights, same seed: same segment audio, duration loss, alignment and statistics."""
    config = CONFIGS[name]
    torch.manual_seed(0)
    theirs = piper_synthesizer(config)
    ours = Synthesizer(config).eval()
    ours.load_state_dict(theirs.state_dict(), strict=True)
    ids, lengths, spec, spec_lengths, sid, frames = make_batch(config)

    torch.manual_seed(42)
    audio, l_length, attn, ids_slice, x_mask, y_mask, (z, z_p, m_p, logs_p, m_q, logs_q) = theirs(
        ids, lengths, spec, spec_lengths, sid
    )
    torch.manual_seed(42)
    out = generator_forward(ours, ids, lengths, spec, spec_lengths, sid, frames)

    torch.testing.assert_close(out.ids_slice, ids_slice)
    torch.testing.assert_close(out.audio, audio)
    torch.testing.assert_close(out.l_length, l_length)
    torch.testing.assert_close(out.durations, attn.sum(2))
    assert torch.equal(out.indices, attn.squeeze(1).argmax(-1))
    ours_stats = (out.z, out.z_p, out.m_p, out.logs_p, out.m_q, out.logs_q)
    for got, want in zip(ours_stats, (z, z_p, m_p, logs_p, m_q, logs_q), strict=True):
        torch.testing.assert_close(got, want)


def test_slice_segments_pads_past_the_end():
    """A window past an item's end is filled with zeros, like Piper's loop over a padded batch."""
    x = torch.arange(2 * 3 * 10, dtype=torch.float).view(2, 3, 10)
    out = slice_segments(x, torch.tensor([2, 7]), 5)
    assert torch.equal(out[0], x[0, :, 2:7])
    assert torch.equal(out[1, :, :3], x[1, :, 7:10]) and not out[1, :, 3:].any()


def dense_generator_forward(model, ids, lengths, spec, spec_lengths, sid, frames) -> GeneratorOutput:
    """The forward the old way, as Piper's: a dense path from maximum_path, durations by sum, priors by matmul."""
    x, m_p, logs_p, x_mask = model.enc_p(ids, lengths)
    g = model.emb_g(sid).unsqueeze(-1) if model.config.num_speakers > 1 else None
    z, m_q, logs_q, y_mask = model.enc_q(spec, spec_lengths, g=g)
    z_p = model.flow(z, y_mask, g=g)
    with torch.no_grad():
        attn_mask = (x_mask.unsqueeze(2) * y_mask.unsqueeze(-1)).squeeze(1)
        path = maximum_path(neg_cross_entropy(z_p, m_p, logs_p), attn_mask)  # [B, T_y, T_x]
    w = path.sum(1).unsqueeze(1)
    l_length = duration_loss(model, x, x_mask, w, g)
    m_p, logs_p = (torch.matmul(path, stats.transpose(1, 2)).transpose(1, 2) for stats in (m_p, logs_p))
    z_slice, ids_slice = random_segments(z, spec_lengths, frames)
    audio = model.dec(z_slice, g=g)
    indices = path.argmax(-1)
    return GeneratorOutput(audio, l_length, ids_slice, x_mask, y_mask, z, z_p, m_p, logs_p, m_q, logs_q, indices, w)


def training_losses(out: GeneratorOutput, spec: torch.Tensor, config) -> dict[str, torch.Tensor]:
    """mel, kl and dur as trainer.gan.system computes them (mel of the decoded segment against the cropped spec)."""
    frames = config.segment_size // config.hop_length
    n_fft = (config.spec_channels - 1) * 2
    y_mel = spec_to_mel(slice_segments(spec, out.ids_slice, frames), 22050)
    y_hat_mel = mel_spectrogram(out.audio.squeeze(1), 22050, n_fft, config.hop_length, n_fft)
    return {
        "mel": torch.nn.functional.l1_loss(y_hat_mel, y_mel),
        "kl": kl_loss(out.z_p, out.logs_q, out.m_p, out.logs_p, out.y_mask),
        "dur": torch.sum(out.l_length),
    }


def _losses_and_gradients(forward, model, batch, config):
    model.zero_grad(set_to_none=True)
    torch.manual_seed(7)
    out = forward(model, *batch)
    losses = training_losses(out, batch[2], config)
    (losses["mel"] * 45 + losses["kl"] + losses["dur"]).backward()
    return out, losses, {name: p.grad for name, p in model.named_parameters()}


def test_compact_alignment_equals_the_dense_path():
    """Indices + gather give the dense path's durations, priors, losses and every generator gradient (within 1e-5)."""
    config = SMALL
    torch.manual_seed(3)
    model = Synthesizer(config).train()
    batch = make_batch(config)
    dense, dense_losses, dense_grads = _losses_and_gradients(dense_generator_forward, model, batch, config)
    compact, compact_losses, compact_grads = _losses_and_gradients(generator_forward, model, batch, config)

    assert torch.equal(compact.indices, dense.indices) and torch.equal(compact.durations, dense.durations)
    for got, want in ((compact.m_p, dense.m_p), (compact.logs_p, dense.logs_p), (compact.l_length, dense.l_length)):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(compact_losses, dense_losses, rtol=1e-5, atol=1e-5)
    assert sum(g is not None for g in dense_grads.values()) > len(dense_grads) / 2
    assert compact_grads.keys() == dense_grads.keys()
    for key, want in dense_grads.items():
        got = compact_grads[key]
        assert (got is None) == (want is None), key
        if want is not None:
            torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5, msg=key)


def _gather_of(expanded: torch.Tensor):
    """The gather node behind an expanded prior (``stats.float().gather(...) * y_mask``)."""
    return next(f for f, _ in expanded.grad_fn.next_functions if f is not None and "Gather" in f.name())


def _record_gather_gradient(expanded: torch.Tensor, dtypes: dict, name: str) -> None:
    _gather_of(expanded).register_hook(lambda grads_in, _: dtypes.update({name: grads_in[0].dtype}))


def test_expand_gathers_bf16_stats_in_float32():
    """bf16 per-phoneme stats come out float32; gather's backward sums a phoneme's frames in float32."""
    stats = torch.randn(2, 3, 4, dtype=torch.bfloat16, requires_grad=True)
    indices = torch.tensor([[0, 0, 1, 1, 1, 2, 3], [0, 1, 1, 2, 2, 2, 0]])
    y_mask = (torch.arange(7) < torch.tensor([[7], [6]])).float().unsqueeze(1)
    dtypes: dict = {}
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = expand(stats, indices, y_mask)
    _record_gather_gradient(out, dtypes, "gather")
    out.sum().backward()
    assert out.dtype == torch.float32 and dtypes == {"gather": torch.float32}
    assert stats.grad is not None and stats.grad.dtype == torch.bfloat16
    assert torch.equal(out, stats.float()[torch.arange(2)[:, None], :, indices].transpose(1, 2) * y_mask)


def test_training_forward_gathers_priors_in_float32_under_bf16_autocast():
    """Under CPU bf16 autocast the expanded priors, and the gradients their gathers sum, are float32."""
    torch.manual_seed(4)
    model = Synthesizer(SMALL).train()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = generator_forward(model, *make_batch(SMALL))
    assert out.audio.dtype == torch.bfloat16  # autocast is on
    assert out.m_p.dtype == out.logs_p.dtype == torch.float32
    dtypes: dict = {}
    _record_gather_gradient(out.m_p, dtypes, "m_p")
    _record_gather_gradient(out.logs_p, dtypes, "logs_p")
    kl_loss(out.z_p, out.logs_q, out.m_p, out.logs_p, out.y_mask).backward()
    assert dtypes == {"m_p": torch.float32, "logs_p": torch.float32}
