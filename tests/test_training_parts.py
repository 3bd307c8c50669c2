"""Training parts against piper-tts's trainer code: discriminators, losses, mel spectrograms."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
piper_models = pytest.importorskip("piper.train.vits.models")


def test_mel_filterbank_equals_librosa():
    """Our Slaney mel filterbank is librosa's (what Piper's trainer uses), for several settings."""
    librosa = pytest.importorskip("librosa")
    from trainer.gan.mel import mel_filterbank

    for sr, n_fft, n_mels, fmin, fmax in [(22050, 1024, 80, 0.0, None), (16000, 512, 64, 20.0, 7600.0)]:
        expected = librosa.filters.mel(sr=sr, n_fft=n_fft, n_mels=n_mels, fmin=fmin, fmax=fmax)
        np.testing.assert_allclose(mel_filterbank(sr, n_fft, n_mels, fmin, fmax), expected, rtol=1e-5, atol=1e-8)


def test_mel_spectrograms_equal_pipers():
    """spec_to_mel and mel_spectrogram give Piper's values on the same audio."""
    from piper.train.vits import mel_processing as piper_mel

    from trainer.gan.mel import mel_spectrogram, spec_to_mel, spectrogram

    audio = torch.rand(2, 16384) * 1.6 - 0.8
    spec = spectrogram(audio)
    torch.testing.assert_close(
        spec_to_mel(spec, 22050), piper_mel.spec_to_mel_torch(spec, 1024, 80, 22050, 0.0, None), rtol=1e-5, atol=1e-5
    )
    expected = piper_mel.mel_spectrogram_torch(audio, 1024, 80, 22050, 256, 1024, 0.0, None)
    torch.testing.assert_close(mel_spectrogram(audio, 22050), expected, rtol=1e-5, atol=1e-5)


def test_discriminator_loads_pipers_weights_strictly_and_scores_alike():
    """Piper's MultiPeriodDiscriminator state dict loads strictly into ours (and back); same scores."""
    from trainer.gan.discriminators import MultiPeriodDiscriminator

    torch.manual_seed(0)
    theirs = piper_models.MultiPeriodDiscriminator().eval()
    ours = MultiPeriodDiscriminator().eval()
    ours.load_state_dict(theirs.state_dict(), strict=True)
    theirs.load_state_dict(ours.state_dict(), strict=True)
    y, y_hat = torch.rand(2, 1, 8193) - 0.5, torch.rand(2, 1, 8193) - 0.5
    with torch.no_grad():
        real, fake, fmap_r, fmap_g = theirs(y, y_hat)
        ours_real, ours_fake = ours(y), ours(y_hat)
    for (logits, features), expected, expected_maps in zip(ours_real, real, fmap_r, strict=True):
        torch.testing.assert_close(logits, expected)
        for got, want in zip(features, expected_maps, strict=True):
            torch.testing.assert_close(got, want)
    for (logits, _), expected in zip(ours_fake, fake, strict=True):
        torch.testing.assert_close(logits, expected)


def test_losses_equal_pipers():
    """Feature, generator, discriminator and KL losses equal Piper's on the same inputs."""
    from piper.train.vits import losses as piper_losses

    from trainer.gan import losses

    torch.manual_seed(1)
    real = [torch.randn(2, 30) for _ in range(3)]
    fake = [torch.randn(2, 30) for _ in range(3)]
    maps_r = [[torch.randn(2, 4, 10) for _ in range(2)] for _ in range(3)]
    maps_g = [[torch.randn(2, 4, 10) for _ in range(2)] for _ in range(3)]
    torch.testing.assert_close(losses.feature_loss(maps_r, maps_g), piper_losses.feature_loss(maps_r, maps_g))
    torch.testing.assert_close(losses.generator_loss(fake), piper_losses.generator_loss(fake)[0])
    torch.testing.assert_close(losses.discriminator_loss(real, fake), piper_losses.discriminator_loss(real, fake)[0])
    z_p, logs_q, m_p, logs_p = (torch.randn(2, 8, 12) for _ in range(4))
    mask = (torch.arange(12) < torch.tensor([[12], [9]])).unsqueeze(1).float()
    torch.testing.assert_close(
        losses.kl_loss(z_p, logs_q, m_p, logs_p, mask), piper_losses.kl_loss(z_p, logs_q, m_p, logs_p, mask)
    )
