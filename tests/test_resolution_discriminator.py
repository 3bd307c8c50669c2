"""The optional resolution discriminators (UnivNet's multi-resolution spectrogram discriminator) beside Piper's six:
their spectrogram, a Piper start, the warm-up's criterion and a resume with them."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from trainer.gan.d_warmup import DiscriminatorWarmup, warmup_message  # noqa: E402
from trainer.gan.discriminators import RESOLUTIONS, DiscriminatorR, MultiPeriodDiscriminator  # noqa: E402
from trainer.gan.system import VitsSystem  # noqa: E402
from trainer.run.presets import preset  # noqa: E402


def test_the_spectrogram_is_float32_and_its_gradient_finite_on_silence_under_bf16():
    """Under bf16 autocast the STFT runs in float32 (as the mel loss's); silence (every bin 0) still gives a finite
    gradient to the generated audio (zero there, the magnitude's minimum); the logits have one row per utterance."""
    torch.manual_seed(0)
    disc = DiscriminatorR(RESOLUTIONS[0], width=1 / 8)
    audio = torch.zeros(2, 1, 4096)
    audio[0, 0, 2048:] = torch.randn(2048) * 0.1  # utterance 1 wholly silent, utterance 0 half
    audio = audio.bfloat16().requires_grad_(True)  # as the decoder gives it under autocast
    with torch.autocast("cpu", dtype=torch.bfloat16):
        spec = disc.magnitude(audio)
        logits, features = disc(audio)
    n_fft, hop, _ = RESOLUTIONS[0]
    assert spec.dtype == torch.float32
    assert spec.shape == (2, n_fft // 2 + 1, (4096 - hop) // hop + 1)
    assert logits.shape[0] == 2 and len(features) == 6
    logits.float().sum().backward()
    assert audio.grad is not None and torch.isfinite(audio.grad).all()  # sqrt at 0 bins would give NaN
    assert audio.grad[0, 0, 2048:].abs().sum() > 0


def test_the_spectrogram_is_the_stft_magnitude():
    """A 1 kHz sine peaks at its bin at every resolution (the magnitude of torch.stft's, not a log or a power)."""
    sr = 22050
    t = torch.arange(sr // 2) / sr
    sine = torch.sin(2 * torch.pi * 1000 * t)[None, None]
    for resolution in RESOLUTIONS:
        spec = DiscriminatorR(resolution).magnitude(sine)
        n_fft, _, win = resolution
        peak = int(spec[0, :, spec.shape[-1] // 2].argmax())
        assert abs(peak - round(1000 * n_fft / sr)) <= 1, resolution
        # a unit sine's peak under a Hann window of `win` samples: win / 4
        assert float(spec[0, peak, spec.shape[-1] // 2]) == pytest.approx(win / 4, rel=0.1)


def test_a_piper_start_fills_the_six_and_warms_up_the_three(tmp_path):
    """A checkpoint with Piper's six discriminators fills them in a system with nine; the resolution discriminators
    stay fresh (said in the notes) and the warm-up is armed for them, judged on them alone. A checkpoint of a run
    with all nine arms nothing."""
    from trainer.start.points import load_start

    torch.manual_seed(0)
    piper = VitsSystem(preset("test").to_dict())
    torch.save({"state_dict": piper.state_dict(), "hyper_parameters": dict(piper.hparams)}, tmp_path / "piper.ckpt")
    config = preset("test", resolution_discriminator=True, d_warmup_max_steps=40).to_dict()
    system = VitsSystem(config)
    notes = load_start(system, tmp_path / "piper.ckpt")
    assert int(system.d_warmup.left) == 40
    assert system.d_warmup.judged == [6, 7, 8]
    assert (system.d_warmup.ready_loss, system.d_warmup.undecided) == pytest.approx((2.7 * 3 / 6, 1.5))
    assert any("discriminator" in note and "discriminators.6." in note for note in notes), notes
    for ours, theirs in zip(system.model_d.discriminators[:6], piper.model_d.discriminators, strict=True):
        for (name, a), b in zip(ours.state_dict().items(), theirs.state_dict().values(), strict=True):
            assert torch.equal(a, b), name
    full = VitsSystem(config)
    torch.save({"state_dict": full.state_dict(), "hyper_parameters": dict(full.hparams)}, tmp_path / "ours.ckpt")
    again = VitsSystem(config)
    assert not [n for n in load_start(again, tmp_path / "ours.ckpt") if "discriminator" in n]
    assert int(again.d_warmup.left) == 0


def test_the_warm_up_judges_the_fresh_discriminators_by_their_own_loss():
    """Six trained discriminators that score well (0.9 real, 0.1 generated: 0.02 each) carry the nine's loss (1.62)
    below the nine's ready loss (4.05) from the first step although the three fresh ones are undecided (0.5 each):
    the judged loss is the three's alone (1.5), above their ready loss (1.35)."""
    from trainer.gan.losses import discriminator_loss

    warmup = DiscriminatorWarmup(preset("test", resolution_discriminator=True, d_warmup_ready_loss=2.7))
    scores = lambda value: (torch.full((2, 5), value), [])  # noqa: E731
    real = [scores(0.9)] * 6 + [scores(0.5)] * 3
    fake = [scores(0.1)] * 6 + [scores(0.5)] * 3
    everything = discriminator_loss([r for r, _ in real], [f for f, _ in fake])
    assert float(everything) == pytest.approx(1.62) and float(everything) < warmup.ready_loss == pytest.approx(4.05)
    assert warmup.judged_loss(everything, real, fake) is everything  # all nine fresh (an ONNX start)
    warmup.arm(10, fresh=[6, 7, 8])
    judged = warmup.judged_loss(everything, real, fake)
    assert float(judged) == pytest.approx(1.5) and float(judged) > warmup.ready_loss == pytest.approx(1.35)
    with pytest.raises(ValueError, match="fresh discriminators"):
        warmup.arm(10, fresh=[9])


def test_an_older_checkpoint_judges_every_discriminator():
    """A checkpoint from before the fresh mask resumes with every discriminator judged."""
    config = preset("test").to_dict()
    state = {k: v for k, v in VitsSystem(config).state_dict().items() if k != "d_warmup.fresh"}
    system = VitsSystem(config)
    system.d_warmup.arm(5, fresh=[1])
    system.load_state_dict(state)
    system.d_warmup.begin_fit(torch.device("cpu"))
    assert system.d_warmup.judged == list(range(6))


def test_the_setting_reads_back_and_an_older_config_has_none():
    """``resolution_discriminator`` survives ``training.json``'s round trip; a config without it is Piper's six."""
    from trainer.run.presets import TrainingConfig

    on = preset("test", resolution_discriminator=True)
    assert TrainingConfig.from_dict(on.to_dict()).resolution_discriminator is True
    older = {k: v for k, v in on.to_dict().items() if k != "resolution_discriminator"}
    assert TrainingConfig.from_dict(older).resolution_discriminator is False


def test_the_warm_up_criterion_scales_with_the_discriminators():
    """Nine discriminators are undecided at 4.5, not 3: the ready loss (stated for Piper's six) scales by 9/6, and
    the stage's message says both."""
    six = DiscriminatorWarmup(preset("test", d_warmup_ready_loss=2.7))
    nine = DiscriminatorWarmup(preset("test", d_warmup_ready_loss=2.7, resolution_discriminator=True))
    assert (six.ready_loss, six.undecided) == pytest.approx((2.7, 3.0))
    assert (nine.ready_loss, nine.undecided) == pytest.approx((4.05, 4.5))
    nine.arm(10)
    nine.begin_fit(torch.device("cpu"))
    message = warmup_message(nine.news[-1])
    assert "below 4.05 (4.50: undecided)" in message, message


def test_the_discriminators_state_keeps_piper_names_first():
    """Piper's six keep their parameter names (``discriminators.0`` to ``.5``); the three follow them."""
    six = set(MultiPeriodDiscriminator(1 / 8).state_dict())
    nine = set(MultiPeriodDiscriminator(1 / 8, resolutions=True).state_dict())
    assert six < nine
    assert not [name for name in nine if "window" in name]  # the STFT window is not a weight
    assert {name.split(".")[1] for name in nine - six} == {"6", "7", "8"}


def test_the_benches_set_it_as_a_yes_or_no():
    """``--set resolution_discriminator=1`` (or ``true``) gives the bench's run ``True``, not the number 1; another
    word is refused naming the setting."""
    import argparse

    from bench.self_consistency_parts import config_setting  # tests/bench, beside this file

    assert config_setting("resolution_discriminator=1") == ("resolution_discriminator", True)
    assert config_setting("resolution_discriminator=false") == ("resolution_discriminator", False)
    assert config_setting("inference_anchor=1000") == ("inference_anchor", 1000)
    assert config_setting("betas_d=0.8,0.99") == ("betas_d", (0.8, 0.99))  # a pair, as TrainingConfig holds it
    with pytest.raises(argparse.ArgumentTypeError, match="betas_d takes 2 numbers"):
        config_setting("betas_d=0.8,x")
    with pytest.raises(argparse.ArgumentTypeError, match="resolution_discriminator=yes"):
        config_setting("resolution_discriminator=yes")
