"""The generator's training forward equals Piper's SynthesizerTrn.forward for the same weights and seed."""

from __future__ import annotations

import sys
import types

import pytest

torch = pytest.importorskip("torch")

from conftest import piper_synthesizer  # noqa: E402

from engines.torch.vits import Synthesizer, VitsConfig  # noqa: E402
from trainer.align import maximum_path  # noqa: E402
from trainer.generator_forward import generator_forward, slice_segments  # noqa: E402

CONFIGS = {
    "x-low, 3 speakers": VitsConfig.preset("x-low", num_symbols=48, num_speakers=3),
    "tiny, deterministic durations": VitsConfig.preset(
        "low", num_symbols=40, hidden_channels=48, inter_channels=48, filter_channels=96, n_layers=2, use_sdp=False
    ),
}


@pytest.fixture
def piper_mas(monkeypatch):
    """piper-tts's wheel lacks its compiled MAS: give its forward our reference (the Cython algorithm)."""
    import piper.train.vits as package

    module = types.ModuleType("piper.train.vits.monotonic_align")
    module.maximum_path = maximum_path
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(package, "monotonic_align", module, raising=False)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_training_forward_equals_pipers(name, piper_mas):
    """Same weights, same seed: same segment audio, duration loss, alignment and statistics."""
    config = CONFIGS[name]
    torch.manual_seed(0)
    theirs = piper_synthesizer(config)
    ours = Synthesizer(config).eval()
    ours.load_state_dict(theirs.state_dict(), strict=True)
    lengths = torch.tensor([23, 17])
    ids = torch.randint(1, config.num_symbols, (2, 23)) * (torch.arange(23) < lengths[:, None])
    spec_lengths = torch.tensor([90, 61])
    spec = torch.rand(2, config.spec_channels, 90) * (torch.arange(90) < spec_lengths[:, None, None])
    sid = torch.tensor([2, 0]) if config.num_speakers > 1 else None
    frames = config.segment_size // config.hop_length

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
