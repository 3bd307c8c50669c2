"""CUDA paths of the torch engine and the trainer; skipped where torch sees no GPU.

Run them on a GPU machine with ``pytest tests/test_cuda.py -rs``. Their logic can
be checked on a CPU with ``VOICE_STUDIO_TEST_DEVICE=cpu`` (the CUDA-only
assertions are then left out).
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

DEVICE = os.environ.get("VOICE_STUDIO_TEST_DEVICE", "cuda")
CUDA = DEVICE.startswith("cuda")
pytestmark = pytest.mark.skipif(CUDA and not torch.cuda.is_available(), reason="needs a CUDA GPU")

TEXT = "The quick brown fox jumps over the lazy dog. It was a bright cold day in April."


def _speak(engine) -> np.ndarray:
    from engines.base import SynthesisOptions

    options = SynthesisOptions(noise_scale=0.0, noise_w=0.0)
    return np.concatenate([c.audio for c in engine.synthesize(TEXT, options)])


@pytest.fixture
def tiny_voice(make_tiny_checkpoint, tmp_path):
    """A tiny Piper checkpoint (random weights, Piper's default phoneme map) as a voice."""
    from engines.torch.vits.checkpoint import load_checkpoint_voice

    return load_checkpoint_voice(make_tiny_checkpoint(tmp_path / "tiny.ckpt"))


def test_torch_engine_on_the_gpu_matches_the_cpu(tiny_voice):
    """Noise 0: the same samples on the GPU as on the CPU (within float32 and TF32 rounding)."""
    from engines.audio import snr_db
    from engines.torch.engine import TorchEngine

    gpu = TorchEngine(tiny_voice, device=DEVICE)
    assert gpu.device == DEVICE or gpu.device.startswith(DEVICE)
    cpu_audio, gpu_audio = _speak(TorchEngine(tiny_voice, device="cpu")), _speak(gpu)
    assert len(gpu_audio) == len(cpu_audio) > 0
    assert snr_db(cpu_audio, gpu_audio) > 30


def test_compiled_decoder_matches_eager(tiny_voice):
    """compile=True compiles the decoder at load (warm-up) and gives the eager decoder's samples."""
    from engines.audio import snr_db
    from engines.torch.engine import TorchEngine

    eager = _speak(TorchEngine(tiny_voice, device=DEVICE))
    compiled_engine = TorchEngine(tiny_voice, device=DEVICE, compile=True)
    if CUDA:
        assert compiled_engine._decode is not compiled_engine.model.decode  # the compiled wrapper
    compiled = _speak(compiled_engine)
    assert len(compiled) == len(eager) and snr_db(eager, compiled) > 30


def test_training_on_the_gpu_uses_bf16_tf32_and_fused_adamw(tmp_path):
    """A test-preset epoch on the GPU: bf16 autocast, TF32 on, fused AdamW, finite losses, peak memory reported,
    the step split timed by CUDA events."""
    from conftest import target_voice_slice

    from trainer.event_log import read_events
    from trainer.options import RunOptions
    from trainer.run import create_run, fit

    cache = os.environ.get("VOICE_STUDIO_TEST_CACHE")
    dataset = cache or target_voice_slice(tmp_path / "data", 8)
    run = create_run(RunOptions(dataset=dataset, out=tmp_path / "run", preset="test", epochs=1, device=DEVICE))
    fit(run)
    records = list(read_events(run / "events.jsonl"))
    start = next(r for r in records if r.kind == "run_start")
    epoch = next(r for r in records if r.kind == "epoch")
    assert all(np.isfinite(v) for v in epoch.losses.values())
    assert epoch.step_s is not None and min(epoch.step_s.values()) >= 0 and epoch.step_s["alignment"] > 0
    assert sum(epoch.step_s.values()) <= epoch.seconds  # GPU time between marks: within the epoch (the device
    # may still run the last step while the host validates, so it can pass train_s by part of a step)
    saved = torch.load(run / "last.ckpt", map_location="cpu", weights_only=False)
    fused = [group.get("fused") for state in saved["optimizer_states"] for group in state["param_groups"]]
    if CUDA:
        assert start.device.startswith("cuda") and start.precision in ("bf16-mixed", "16-mixed")
        assert torch.backends.cuda.matmul.allow_tf32 and torch.backends.cudnn.allow_tf32
        assert fused == [True, True]
        assert epoch.max_memory_gib > 0
        print(
            json.dumps({"batch_size": start.batch_size, "max_memory_gib": epoch.max_memory_gib, "step_s": epoch.step_s})
        )
    else:
        assert start.precision == "32-true" and fused in ([False, False], [None, None])
