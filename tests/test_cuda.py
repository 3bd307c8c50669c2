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

    from trainer.events.log import read_events
    from trainer.run.options import RunOptions
    from trainer.run.train import create_run, fit

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
    assert len(fused) >= 2 and all(fused)  # every group of both optimizers: torch has fused AdamW on CUDA and CPU
    if CUDA:
        assert start.device.startswith("cuda") and start.precision in ("bf16-mixed", "16-mixed")
        assert torch.backends.cuda.matmul.allow_tf32 and torch.backends.cudnn.allow_tf32
        assert epoch.max_memory_gib > 0
        assert any(r.kind == "stage" and r.name == "compile" for r in records)  # --compile auto: on CUDA
        print(
            json.dumps({"batch_size": start.batch_size, "max_memory_gib": epoch.max_memory_gib, "step_s": epoch.step_s})
        )
    else:
        assert start.precision == "32-true"
        assert not any(r.kind == "stage" and r.name == "compile" for r in records)  # --compile auto: off on the CPU


@pytest.mark.parametrize("resolutions", [False, True], ids=["piper-six", "with-resolution-discriminators"])
def test_compiled_training_step_matches_eager(tmp_path, resolutions):
    """The decoder, discriminators and GAN losses compiled with inductor: a step's losses as eager ones (with the
    resolution discriminators too: their STFT goes through the compiled graph)."""
    from trainer.gan.compile import compile_parts
    from trainer.gan.system import VitsSystem
    from trainer.run.presets import preset

    torch.manual_seed(0)
    config = preset("test", num_symbols=40, resolution_discriminator=resolutions).to_dict()
    eager = VitsSystem(config).to(DEVICE)
    compiled = VitsSystem(config).to(DEVICE)
    compiled.load_state_dict(eager.state_dict())
    compile_parts(compiled)
    z = torch.randn(4, eager.config.model.inter_channels, eager.config.segment_frames, device=DEVICE)
    for batch in (4, 4, 3):  # a shorter last batch: one recompile at most, then the batch dimension is dynamic
        a, b = eager.model_g.dec(z[:batch]), compiled.model_g.dec(z[:batch])
        torch.testing.assert_close(b, a, rtol=1e-3, atol=1e-4)
        fake_a, fake_b = eager.model_d(a), compiled.model_d(b)
        gen_a = eager.losses.generator_loss([logits for logits, _ in fake_a])
        gen_b = compiled.losses.generator_loss([logits for logits, _ in fake_b])
        torch.testing.assert_close(gen_b, gen_a, rtol=1e-3, atol=1e-4)


def test_generator_step_makes_no_host_sync():
    """Generator forward (the MAS on the GPU, Triton), its losses and backward under
    torch.cuda.set_sync_debug_mode("error")."""
    from engines.torch.vits import Synthesizer, VitsConfig
    from trainer.align import search_indices
    from trainer.gan import losses
    from trainer.gan.discriminators import MultiPeriodDiscriminator
    from trainer.gan.generator_forward import generator_forward, slice_segments
    from trainer.gan.mel import mel_spectrogram, spec_to_mel

    torch.manual_seed(0)
    config = VitsConfig.preset("x-low", num_symbols=40, num_speakers=3, hidden_channels=32, inter_channels=32)
    model_g, model_d = Synthesizer(config).to(DEVICE).train(), MultiPeriodDiscriminator(1 / 16).to(DEVICE)
    lengths, spec_lengths = torch.tensor([23, 17], device=DEVICE), torch.tensor([90, 61], device=DEVICE)
    ids = torch.randint(1, config.num_symbols, (2, 23), device=DEVICE)
    spec, sid = torch.rand(2, config.spec_channels, 90, device=DEVICE), torch.tensor([2, 0], device=DEVICE)
    frames, search = config.segment_size // config.hop_length, search_indices

    def step() -> None:
        with torch.autocast(torch.device(DEVICE).type, dtype=torch.bfloat16):
            out = generator_forward(model_g, ids, lengths, spec, spec_lengths, sid, frames, search)
            y_mel = spec_to_mel(slice_segments(spec, out.ids_slice, frames), 22050)
            mel = torch.nn.functional.l1_loss(mel_spectrogram(out.audio.squeeze(1).float(), 22050), y_mel)
            kl = losses.kl_loss(out.z_p, out.logs_q, out.m_p, out.logs_p, out.y_mask)
            gen = losses.generator_loss([logits for logits, _ in model_d(out.audio)])
        (mel * 45 + kl + out.l_length.float().sum() + gen).backward()

    step()  # warm-up: cuDNN and cuFFT plans, the cached mel filterbank and window
    if CUDA:
        torch.cuda.set_sync_debug_mode("error")
    try:
        step()
    finally:
        if CUDA:
            torch.cuda.set_sync_debug_mode(0)
    assert all(p.grad is not None for p in model_g.dec.parameters())


@pytest.mark.parametrize("scores", ["random", "with-ties"])
def test_triton_mas_on_the_gpu_matches_numba(scores):
    """The compiled Triton kernels (not the interpreter) give numba's text indices at Piper-like sizes and on
    tie-heavy small matrices, with the lengths on the GPU (no host check)."""
    if not CUDA:
        pytest.skip("the compiled Triton kernels need CUDA")
    pytest.importorskip("triton")
    from trainer.align import search_indices

    generator = torch.Generator().manual_seed(18)
    for batch, max_x in ((16, 400), (512, 12)):
        t_xs = torch.randint(1, max_x + 1, (batch,), generator=generator)
        t_ys = t_xs + (torch.rand(batch, generator=generator) * 3 * t_xs).long()
        shape = (batch, int(t_ys.max()), int(t_xs.max()))
        value = torch.randn(shape, generator=generator)
        if scores == "with-ties":
            value = torch.randint(-2, 2, shape, generator=generator).float()
        expected = search_indices(value, t_ys, t_xs, backend="numba")
        got = search_indices(value.to(DEVICE), t_ys.to(DEVICE), t_xs.to(DEVICE), backend="triton")
        assert got.device.type == "cuda"
        assert torch.equal(got.cpu(), expected)
