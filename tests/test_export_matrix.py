"""Every voice the studio exports loads everywhere.

The matrix {medium, x-low, high, 3 speakers} x {ONNX engine, torch engine, serve with both, piper-tts}.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import SpeechServer  # noqa: E402

from engines.audio import snr_db  # noqa: E402
from engines.base import SynthesisOptions  # noqa: E402
from engines.torch.vits import Synthesizer, VitsConfig  # noqa: E402

NOISE_FREE = SynthesisOptions(noise_scale=0.0, noise_w=0.0)
TEXT = "Every engine reads it."
SPEAKERS = {"ana": 0, "ben": 1, "cleo": 2}
VOICES = {"medium": ("medium", 1), "x-low": ("x-low", 1), "high": ("high", 1), "trio": ("medium", 3)}
"""Voice name -> (Piper quality, speakers): both of Piper's decoders (ResBlock2, ResBlock1), one and 3 speakers."""


TRAINING_ONLY = {"enc_q", "dp.post_pre", "dp.post_proj", "dp.post_convs", "dp.post_flows", "dp.flows.1"}
"""What an ONNX voice cannot hold (posterior encoder, the duration predictor's posterior): all else is imported."""


def _default_id_map() -> dict[str, list[int]]:
    from piper.phoneme_ids import DEFAULT_PHONEME_ID_MAP

    return {k: list(v) for k, v in DEFAULT_PHONEME_ID_MAP.items()}


def _generator(quality: str, speakers: int, seed: int) -> Synthesizer:
    """A randomly initialised generator of a Piper quality, weight norm in place as in training.

    Text encoder, flows and decoder layout are the quality's; the decoder is narrowed to 64
    channels (from 256 or 512) to keep the test fast.
    """
    torch.manual_seed(seed)
    config = VitsConfig.preset(quality, num_symbols=256, num_speakers=speakers, upsample_initial_channel=64)
    return Synthesizer(config).eval()


@pytest.fixture(scope="module")
def generators() -> dict:
    """Each generator of ``VOICES`` (the trio one in training mode) with a copy of its state dict before export."""
    models = {name: _generator(*shape, seed) for seed, (name, shape) in enumerate(VOICES.items())}
    models["trio"].train()
    return {name: (model, {k: v.clone() for k, v in model.state_dict().items()}) for name, model in models.items()}


@pytest.fixture(scope="module")
def exported(generators, tmp_path_factory) -> dict:
    """Each voice of ``VOICES`` exported once: name -> ``NAME.onnx``."""
    from trainer.checkpoints.export import voice_config, write_voice

    folder = tmp_path_factory.mktemp("matrix")
    paths = {}
    for name, (model, _) in generators.items():
        speakers = SPEAKERS if model.config.num_speakers > 1 else None
        config = voice_config(model, _default_id_map(), 22050, speaker_id_map=speakers)
        paths[name], _ = write_voice(model, folder / f"{name}.onnx", config)
    return paths


def _audio(engine, text: str = TEXT, speaker: str | None = None) -> np.ndarray:
    options = SynthesisOptions(speaker, noise_scale=0.0, noise_w=0.0)
    return np.concatenate([c.audio for c in engine.synthesize(text, options)])


def _sound(audio: np.ndarray) -> None:
    assert len(audio) > 0 and np.isfinite(audio).all() and np.abs(audio).max() > 0


@pytest.mark.parametrize("name", list(VOICES))
def test_export_holds_plain_weights(exported, name):
    """No weight_g/weight_v initializer is left: each convolution has one weight named by its module, as Piper's."""
    import onnx

    initializers = {t.name for t in onnx.load(str(exported[name])).graph.initializer}
    assert not [n for n in initializers if n.endswith(("weight_g", "weight_v"))]
    first = "convs1" if VOICES[name][0] == "high" else "convs"
    named = {f"dec.resblocks.0.{first}.0.weight", "dec.ups.0.weight", "flow.flows.0.enc.in_layers.0.weight"}
    assert named <= initializers


@pytest.mark.parametrize("name", list(VOICES))
def test_onnx_and_torch_engines_speak_the_export_alike(exported, name):
    """The ONNX and torch engines load each export and agree with noise 0 (each speaker of the 3-speaker one)."""
    from engines.onnx.engine import OnnxEngine
    from engines.torch.engine import TorchEngine

    onnx_engine = OnnxEngine.from_path(exported[name])
    torch_engine = TorchEngine.from_path(exported[name], device="cpu")
    report = torch_engine.import_report
    assert not report.unused and set(report.missing_modules()) == TRAINING_ONLY
    for speaker in ["cleo", "ana"] if name == "trio" else [None]:
        ours, theirs = _audio(onnx_engine, speaker=speaker), _audio(torch_engine, speaker=speaker)
        _sound(ours)
        assert len(ours) == len(theirs) and snr_db(ours, theirs) > 30


@pytest.mark.parametrize("name", list(VOICES))
def test_piper_tts_speaks_the_export(exported, name):
    """piper-tts's own PiperVoice loads each export and speaks what our ONNX engine speaks."""
    from piper import PiperVoice, SynthesisConfig

    from engines.onnx.engine import OnnxEngine

    voice = PiperVoice.load(exported[name])
    syn = SynthesisConfig(speaker_id=2 if name == "trio" else None, noise_scale=0.0, noise_w_scale=0.0)
    piper_audio = np.concatenate([c.audio_float_array for c in voice.synthesize(TEXT, syn_config=syn)])
    _sound(piper_audio)
    ours = _audio(OnnxEngine.from_path(exported[name]), speaker="cleo" if name == "trio" else None)
    assert abs(len(piper_audio) - len(ours)) <= 0.01 * len(ours)


def test_serve_speaks_every_export_with_both_engines(exported):
    """serve --engine onnx --engine torch with all four exports starts (speaking each at warm-up) and answers each."""
    from engines.remote.engine import RemoteEngine
    from engines.remote.settings import RemoteSettings

    voices = [a for path in exported.values() for a in ("--voice", str(path))]
    server = SpeechServer(*voices, "--engine", "onnx", "--engine", "torch", "--device", "cpu", "--workers", "1")
    try:
        for name in VOICES:
            by_engine = {}
            for model in (name, f"torch/{name}"):
                voice = "cleo" if name == "trio" else "default"
                remote = RemoteEngine(RemoteSettings(url=server.url, model=model, voice=voice, piper_params=True))
                by_engine[model] = _audio(remote)
                _sound(by_engine[model])
            assert len(by_engine[name]) == len(by_engine[f"torch/{name}"])
    finally:
        server.stop()


def test_export_leaves_the_model_as_it_was(generators, exported):
    """Export removes weight norm from a copy: the caller's model keeps weight_g/weight_v, its mode and its weights."""
    for name, (model, before) in generators.items():
        after = model.state_dict()
        assert after.keys() == before.keys() and "dec.ups.0.weight_g" in after
        assert all(torch.equal(before[k], after[k]) for k in before)
        assert model.training == (name == "trio") and "forward" not in vars(model)


def test_torch_engine_imports_a_graph_with_weight_norm_in_place(tmp_path, monkeypatch):
    """An export that kept weight_g/weight_v (older studio versions) still loads in the torch engine, same audio."""
    import onnx

    import trainer.checkpoints.export
    from engines.onnx.engine import OnnxEngine
    from engines.torch.engine import TorchEngine
    from engines.torch.vits import weight_norm
    from trainer.checkpoints.export import voice_config, write_voice

    # the export as it was: weight norm left in, computed by the plain formula g * v / ||v|| (which the
    # exporter keeps as graph nodes over the named weight_g and weight_v)
    monkeypatch.setattr(trainer.checkpoints.export, "remove_weight_norm", lambda module: module)
    monkeypatch.setattr(
        weight_norm._WeightNorm,
        "normalized_weight",
        lambda layer: layer.weight_v * (layer.weight_g / weight_norm._norm_except_dim0(layer.weight_v)),
    )
    torch.manual_seed(11)
    tiny = dict(hidden_channels=32, inter_channels=32, filter_channels=64, n_layers=2, upsample_initial_channel=32)
    model = Synthesizer(VitsConfig.preset("low", num_symbols=256, **tiny)).eval()
    path, _ = write_voice(model, tmp_path / "unfolded.onnx", voice_config(model, _default_id_map(), 22050))
    initializers = {t.name for t in onnx.load(str(path)).graph.initializer}
    assert "dec.resblocks.0.convs.0.weight_g" in initializers and "dec.resblocks.0.convs.0.weight" not in initializers
    engine = TorchEngine.from_path(path, device="cpu")
    assert not engine.import_report.unused and set(engine.import_report.missing_modules()) == TRAINING_ONLY
    ours, theirs = _audio(OnnxEngine.from_path(path)), _audio(engine)
    assert len(ours) == len(theirs) and snr_db(ours, theirs) > 30
