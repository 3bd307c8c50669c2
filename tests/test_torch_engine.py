"""The torch engine: same voice, same audio as the ONNX engine, streamed the same way (what every engine owes
the protocol: ``tests/engine_conformance.py``)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from engines.audio import snr_db  # noqa: E402
from engines.base import EngineError, SynthesisOptions  # noqa: E402

NOISE_FREE = SynthesisOptions(noise_scale=0.0, noise_w=0.0)
PARAGRAPH = (
    "The storm rolled in just after midnight. Martha lit a candle and walked down the stairs. "
    "Is the dog awake? Something heavy had fallen in the barn, and the horses were restless!"
)


@pytest.fixture(scope="module")
def torch_engine(joe):
    from engines.torch.engine import TorchEngine

    return TorchEngine(joe, device="cpu")


PADDED_SNR_DB = 60.0
"""Padded against unpadded synthesis differs by float rounding only: 86-100 dB SNR measured with 2 intra-op
threads alone, 75.6 dB once under make test's three workers (the summation order changes with the threads OpenMP
gives under load; 1 thread: bit-exact). A padding bug that reaches the audio gives under 40 dB."""


def _by_sentence(chunks):
    out: dict[int, list] = {}
    for chunk in chunks:
        if not chunk.is_silence:
            out.setdefault(chunk.sentence_index, []).append(chunk)
    return out


def test_torch_engine_equals_onnx_engine(torch_engine, engine):
    """Per sentence, the torch engine's stream equals the ONNX engine's (noise 0): SNR >= 40 dB."""
    ours = _by_sentence(torch_engine.synthesize(PARAGRAPH, NOISE_FREE))
    reference = _by_sentence(engine.synthesize(PARAGRAPH, NOISE_FREE))
    assert sorted(ours) == sorted(reference) == [0, 1, 2, 3]
    for index, chunks in reference.items():
        expected = np.concatenate([c.audio for c in chunks])
        got = np.concatenate([c.audio for c in ours[index]])
        assert len(got) == len(expected)
        assert snr_db(expected, got) >= 40.0
        assert ours[index][0].phoneme_ids == chunks[0].phoneme_ids
        assert ours[index][-1].final and ours[index][-1].pause_frames == chunks[-1].pause_frames


def test_padded_shapes_give_the_unpadded_audio(torch_engine, monkeypatch):
    """On the CPU, phonemes, flow windows and decoder windows padded to a few sizes change no sample."""
    padded = np.concatenate([c.audio for c in torch_engine.synthesize(PARAGRAPH, NOISE_FREE)])
    monkeypatch.setattr(torch_engine, "_padded", False)
    exact = np.concatenate([c.audio for c in torch_engine.synthesize(PARAGRAPH, NOISE_FREE)])
    assert len(padded) == len(exact)
    assert snr_db(exact, padded) >= PADDED_SNR_DB  # unpadded is also batched otherwise


@pytest.mark.parametrize("use_sdp", [True, False])
def test_padding_is_exact_with_speakers_and_either_duration_predictor(tmp_path, use_sdp):
    """A tiny 3-speaker checkpoint, stochastic or deterministic durations: padded equals unpadded (speaker 1)."""
    import torch

    from engines.torch.engine import TorchEngine
    from engines.torch.vits import Synthesizer, VitsConfig

    torch.manual_seed(7)
    config = VitsConfig.preset(
        "low", num_symbols=256, hidden_channels=32, inter_channels=32, filter_channels=64, n_layers=2,
        upsample_initial_channel=32, num_speakers=3, gin_channels=16, use_sdp=use_sdp,
    )  # fmt: skip
    state = {f"model_g.{k}": v for k, v in Synthesizer(config).state_dict().items()}
    path = tmp_path / "speakers.ckpt"
    torch.save({"state_dict": state, "hyper_parameters": {**config.to_dict(), "sample_rate": 16000}}, path)
    engine = TorchEngine.from_path(path, device="cpu")
    options = SynthesisOptions(noise_scale=0.0, noise_w=0.0, speaker=1)
    padded = np.concatenate([c.audio for c in engine.synthesize(PARAGRAPH, options)])
    engine._padded = False
    exact = np.concatenate([c.audio for c in engine.synthesize(PARAGRAPH, options)])
    assert len(padded) == len(exact) > 0
    assert snr_db(exact, padded) >= PADDED_SNR_DB


def test_first_sentence_is_encoded_alone_on_the_cpu(torch_engine, monkeypatch):
    """On the CPU the first sentence's prior runs alone, the rest of the block in one batch."""
    batches, prior = [], torch_engine.model.prior

    def recording_prior(ids, lengths, *args):
        batches.append(lengths.tolist())
        return prior(ids, lengths, *args)

    monkeypatch.setattr(torch_engine.model, "prior", recording_prior)
    chunks = torch_engine.synthesize(PARAGRAPH, NOISE_FREE)
    next(chunks)
    assert len(batches) == 1 and len(batches[0]) == 1
    list(chunks)
    assert [len(b) for b in batches] == [1, 3]


def test_long_sentences_stream_in_several_chunks(torch_engine):
    """A long sentence comes out in more than one chunk, contiguous, with the first one small."""
    text = "The quick brown fox jumps over the lazy dog while twenty curious children watch from the old bridge."
    chunks = list(torch_engine.synthesize(text))
    assert len(chunks) >= 2
    assert len(chunks[0].audio) <= torch_engine.plan.first_max * torch_engine.config.hop_length


def test_cuda_request_without_gpu_is_clear():
    """Asking for CUDA where torch sees none raises a clear EngineError."""
    import torch

    from engines.torch.engine import pick_device

    if torch.cuda.is_available():
        assert pick_device("cuda") == "cuda"
    else:
        with pytest.raises(EngineError, match="no CUDA GPU"):
            pick_device("cuda")
    for bad in ("gpu", "CUDA", "cuda:x", ""):
        with pytest.raises(EngineError, match="unknown device"):
            pick_device(bad)
    assert pick_device("auto") in ("cpu", "cuda")


def test_engines_of_one_voice_share_its_generator_until_the_file_changes(make_tiny_checkpoint, tmp_path):
    """Two torch engines of one checkpoint on one device hold one generator (loaded once; the server's workers
    each have an engine); a rewritten file is loaded again; a generator no engine holds is let go."""
    import gc
    import os
    import weakref

    from engines.torch.engine import TorchEngine
    from engines.torch.vits.checkpoint import load_checkpoint_voice

    path = make_tiny_checkpoint(tmp_path / "tiny.ckpt", seed=1)
    voice = load_checkpoint_voice(path)
    first, second = TorchEngine(voice, device="cpu"), TorchEngine(voice, device="cpu")
    assert first.model is second.model
    options = SynthesisOptions(noise_scale=0.0, noise_w=0.0)
    said = np.concatenate([c.audio for c in first.synthesize("Hello there.", options)])
    make_tiny_checkpoint(path, seed=2)  # other weights in the same file
    os.utime(path, ns=(os.stat(path).st_atime_ns, os.stat(path).st_mtime_ns + 1_000_000))
    third = TorchEngine(load_checkpoint_voice(path), device="cpu")
    assert third.model is not first.model
    other = np.concatenate([c.audio for c in third.synthesize("Hello there.", options)])
    assert len(other) != len(said) or not np.allclose(other, said)
    held = weakref.ref(first.model)
    del first, second
    gc.collect()
    assert held() is None
