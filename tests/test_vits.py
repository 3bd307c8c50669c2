"""The torch VITS generator: Piper's names and math, and the ONNX voice import."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import piper_synthesizer as _piper_model  # noqa: E402

from engines.audio import snr_db  # noqa: E402
from engines.base import VoiceError  # noqa: E402
from engines.torch.vits import Synthesizer, VitsConfig  # noqa: E402

CONFIGS = {
    "medium": VitsConfig.preset("medium", num_symbols=64),
    "x-low, 3 speakers": VitsConfig.preset("x-low", num_symbols=64, num_speakers=3),
    "tiny high decoder": VitsConfig.preset(
        "high",
        num_symbols=40,
        hidden_channels=48,
        inter_channels=48,
        filter_channels=96,
        n_layers=2,
        upsample_initial_channel=64,
    ),
    "deterministic durations": VitsConfig.preset("low", num_symbols=64, use_sdp=False),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_piper_state_dict_loads_strictly_and_gives_the_same_audio(name):
    """Same parameter names and shapes as piper-tts's model, and the same audio for the same weights."""
    torch.manual_seed(0)
    config = CONFIGS[name]
    reference = _piper_model(config)
    state = reference.state_dict()
    with torch.no_grad():  # perturb, so zero-initialised layers (flow posts, spline projections) matter
        for value in state.values():
            if value.dtype.is_floating_point:
                value.add_(torch.randn_like(value) * 0.02)
    reference.load_state_dict(state)
    ours = Synthesizer(config).eval()
    assert set(ours.state_dict()) == set(state)
    ours.load_state_dict(state, strict=True)
    x = torch.randint(1, config.num_symbols, (2, 30))
    lengths = torch.tensor([30, 21])
    sid = torch.tensor([2, 1]) if config.num_speakers > 1 else None
    with torch.no_grad():
        expected = reference.infer(x, lengths, sid=sid, noise_scale=0.0, noise_scale_w=0.0, length_scale=1.0)[0]
        got = ours.infer(x, lengths, (0.0, 1.0, 0.0), sid=sid)
    assert got.shape == expected.shape
    assert snr_db(expected.numpy().ravel(), got.numpy().ravel()) >= 60.0


def test_presets_follow_piper():
    """x-low is 96 channels; high has the ResBlock1 decoder; hop length is 256 for all."""
    assert VitsConfig.preset("x-low").hidden_channels == 96
    assert VitsConfig.preset("high").resblock == "1"
    assert {VitsConfig.preset(q).hop_length for q in ("x-low", "low", "medium", "high")} == {256}
    assert VitsConfig(num_speakers=4).gin_channels == 512
    with pytest.raises(ValueError, match="unknown quality"):
        VitsConfig.preset("ultra")


@pytest.fixture(scope="module")
def imported(joe):
    from engines.torch.vits.onnx_import import load_onnx_generator

    return load_onnx_generator(joe.model_path)


def test_onnx_import_recovers_the_inference_path(imported):
    """Every inference weight comes from the graph; only training-only parts are missing."""
    model, report = imported
    assert report.missing_modules() == [
        "dp.flows.1",
        "dp.post_convs",
        "dp.post_flows",
        "dp.post_pre",
        "dp.post_proj",
        "enc_q",
    ]
    assert not report.unused
    assert model.config.num_symbols == 256 and model.config.upsample_rates == (8, 8, 4)


def test_onnx_import_equals_the_onnx_voice(imported, engine):
    """joe in torch, noise 0, against the ONNX voice on several texts: SNR >= 40 dB."""
    from engines.phonemes import sentences

    model, _ = imported
    texts = [
        "Hello world.",
        "Would you like a cup of tea before we leave?",
        "Lee paid $12.75 for 3 kg of apples on the 5th of June.",
        "“I’m not sure,” he said.",
        "The storm rolled in just after midnight, rattling every window in the old farmhouse.",
    ]
    for text in texts:
        (sentence,) = sentences(engine.phonemizer, text)
        latent = engine.encode(sentence.phoneme_ids, _noise_free())
        reference = engine.decode_whole(latent)
        with torch.inference_mode():
            ids = torch.tensor([sentence.phoneme_ids])
            audio = model.infer(ids, torch.tensor([ids.shape[1]]), (0.0, 1.0, 0.0)).numpy().ravel()
        assert len(audio) == len(reference)
        assert snr_db(reference, audio) >= 40.0, text


def _noise_free():
    from engines.base import SynthesisOptions

    return SynthesisOptions(noise_scale=0.0, noise_w=0.0)


def test_onnx_that_is_not_a_voice_is_refused(tmp_path):
    """An ONNX model without Piper's layers gives an error naming the file and what is missing."""
    import onnx
    from onnx import TensorProto, helper

    from engines.torch.vits.onnx_import import load_onnx_generator

    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])],
        "not-a-voice",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
    )
    path = tmp_path / "identity.onnx"
    onnx.save(helper.make_model(graph), str(path))
    with pytest.raises(VoiceError, match="not a Piper VITS voice") as err:
        load_onnx_generator(path)
    assert err.value.path == path


def test_spline_inverse_undoes_forward():
    """The rational-quadratic spline's inverse inverts it, and tails are the identity."""
    from engines.torch.vits.transforms import piecewise_rational_quadratic

    torch.manual_seed(1)
    x = torch.linspace(-7, 7, 200).reshape(2, 100)
    w, h, d = torch.randn(2, 100, 10), torch.randn(2, 100, 10), torch.randn(2, 100, 9)
    y, logdet = piecewise_rational_quadratic(x, w, h, d)
    back, inv_logdet = piecewise_rational_quadratic(y, w, h, d, inverse=True)
    assert torch.allclose(back, x, atol=1e-4)
    assert torch.allclose(logdet, -inv_logdet, atol=1e-4)
    outside = x.abs() > 5
    assert torch.equal(y[outside], x[outside]) and not logdet[outside].any()
    assert np.isfinite(y.numpy()).all()


@pytest.mark.parametrize("name", ["medium", "tiny high decoder", "x-low, 3 speakers"])
def test_channels_last_decoder_equals_the_decoder(name):
    """The CPU inference copy of the decoder computes what the decoder computes (SNR >= 60 dB)."""
    from engines.torch.vits.fast_decoder import ChannelsLastDecoder

    torch.manual_seed(2)
    model = Synthesizer(CONFIGS[name]).eval()
    z = torch.randn(1, model.config.inter_channels, 40)
    g = model.speaker(torch.tensor([1])) if model.config.num_speakers > 1 else None
    with torch.no_grad():
        expected = model.decode(z, g)
        got = ChannelsLastDecoder(model.dec)(z, g)
        padded = ChannelsLastDecoder(model.dec)(torch.nn.functional.pad(z, (0, 13), value=3.0), g, frames=40)
    assert got.shape == padded.shape == expected.shape
    assert snr_db(expected.numpy().ravel(), got.numpy().ravel()) >= 60.0
    assert torch.allclose(padded, got, atol=1e-5)  # what lies past the real frames never leaks in


def test_padded_lengths_are_few_and_close():
    """Padded lengths cover every length with at most 1/8 added above 64 and 40 sizes up to 1,024."""
    from engines.torch.vits.commons import padded_length

    sizes = [padded_length(n) for n in range(1, 1025)]
    assert all(size >= n for n, size in enumerate(sizes, start=1))
    assert all(size - n < 8 or (size - n) / n <= 1 / 8 for n, size in enumerate(sizes, start=1))
    assert sizes == sorted(sizes) and len(set(sizes)) == 40
    assert [padded_length(padded_length(n)) for n in range(1, 1025)] == sizes
