"""The decoder's own losses (trainer.gan.decoder_losses): a multi-resolution STFT loss and the mel L1 of the
segment decoded from the prior, on for a fine-tune, off from scratch and in runs written before them, and left out
of the recovery."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from test_system_step import _batches  # noqa: E402

from engines.torch.vits import Synthesizer  # noqa: E402
from trainer.gan.decoder_losses import STFT_RESOLUTIONS, decoded_from_prior, multi_resolution_stft  # noqa: E402
from trainer.gan.generator_losses import generator_losses  # noqa: E402
from trainer.run.presets import preset  # noqa: E402


def _tone(hz: float, seconds: float = 0.5, rate: int = 22050) -> torch.Tensor:
    return torch.sin(2 * torch.pi * hz * torch.arange(int(seconds * rate)) / rate).unsqueeze(0)


def test_the_stft_loss_is_zero_for_the_same_audio_and_grows_with_the_difference():
    """Identical audio scores 0; a tone against itself with more noise added scores more."""
    generator = torch.Generator().manual_seed(0)
    tone = _tone(220.0)
    noise = torch.randn(tone.shape, generator=generator)
    assert float(multi_resolution_stft(tone, tone)) == pytest.approx(0.0, abs=1e-6)
    scores = [float(multi_resolution_stft(tone + level * noise, tone)) for level in (0.001, 0.01, 0.1)]
    assert 0 < scores[0] < scores[1] < scores[2]
    assert multi_resolution_stft(tone, tone).dtype == torch.float32 and len(STFT_RESOLUTIONS) == 3


def _model_and_losses(**weights: float):
    config = preset("test", num_symbols=40, **weights)
    torch.manual_seed(0)
    model = Synthesizer(config.model).train()
    torch.manual_seed(1)
    return model, config, generator_losses(model, _batches(1)[0], config)


def test_both_losses_are_off_at_0_and_add_to_the_total_as_set():
    """At 0 neither is computed and the total is VITS's; set, each is a positive scalar and the total adds
    ``weight * c_mel`` of each, as logged in ``metrics``."""
    _, config, plain = _model_and_losses(stft_loss=0.0, prior_mel=0.0)
    assert plain.stft is None and plain.prior_mel is None and set(plain.metrics()) == {"mel", "kl", "dur"}
    assert torch.allclose(plain.total(config), plain.mel * config.c_mel + plain.kl * config.c_kl + plain.dur)
    _, config, got = _model_and_losses(stft_loss=0.5, prior_mel=0.25)
    logged = got.metrics()
    assert float(logged["stft"]) > 0 and float(logged["prior_mel"]) > 0
    vits = got.mel * config.c_mel + got.kl * config.c_kl + got.dur
    extra = (got.stft * 0.5 + got.prior_mel * 0.25) * config.c_mel
    assert torch.allclose(got.total(config), vits + extra)


def test_the_prior_path_loss_trains_only_the_decoder():
    """The segment decoded from the prior has the posterior segment's shape, and its loss's gradient reaches the
    decoder alone (the text encoder and the flow are not moved by it)."""
    model, config, got = _model_and_losses(prior_mel=1.0)
    assert got.prior_mel is not None
    got.prior_mel.backward()
    moved = {name.split(".")[0] for name, p in model.named_parameters() if p.grad is not None and p.grad.any()}
    assert moved == {"dec"}
    again = decoded_from_prior(model, got.out, None, config.segment_frames)
    assert again.shape[:2] == got.y_hat.shape[:2] and again.shape[-1] >= got.y.shape[-1]


def test_the_recovery_fits_vits_objective_without_the_decoders_losses():
    """The recovery holds the decoder, so its objective leaves both weights out (its cache, keyed without them,
    stays valid)."""
    from trainer.start.recovery import vits_objective

    config = preset("test", stft_loss=0.5, prior_mel=0.5)
    plain = vits_objective(config)
    assert (plain.stft_loss, plain.prior_mel) == (0.0, 0.0) and plain.c_mel == config.c_mel


def test_a_run_written_before_them_resumes_without_them():
    """A config written before the settings existed (``training.json``, a checkpoint's hyperparameters) ran without
    them, and resumes so (a run from joe has them and one from scratch does not: tests/test_anchor.py)."""
    from trainer.run.presets import TrainingConfig

    values = TrainingConfig().to_dict()
    assert (values.pop("stft_loss"), values.pop("prior_mel"), values.pop("voice_noise_scale")) == (0.5, 0.5, 0.333)
    older = TrainingConfig.from_dict(values)
    assert (older.stft_loss, older.prior_mel, older.voice_noise_scale) == (0.0, 0.0, None)
