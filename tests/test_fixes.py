"""Audio fixes: resampling, downmix, trimming and loudness normalization, on real and built clips."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import shared_path

from trainer.dataset.analysis import loudness
from trainer.dataset.fixes import downmix, normalize_loudness, resample, trim
from trainer.dataset.probe import load


def test_resample_corpus_clip_to_piper_rate():
    """A 32 kHz corpus clip becomes 22,050 Hz with the same duration and level."""
    audio, info = load(shared_path("corpus", "target-voice", "wavs", "slt_0002.flac"))
    mono = downmix(audio)
    out = resample(mono, 32000, 22050)
    assert abs(len(out) - len(mono) * 22050 / 32000) <= 1
    assert out.dtype == np.float32
    assert abs(loudness(out, 22050) - loudness(mono, 32000)) < 0.5


def test_resample_keeps_a_tone_in_band():
    """A 1 kHz tone stays at 1 kHz after resampling 48 kHz -> 22,050 Hz."""
    t = np.arange(48000) / 48000
    out = resample(np.sin(2 * np.pi * 1000 * t).astype(np.float32), 48000, 22050)
    spectrum = np.abs(np.fft.rfft(out))
    assert abs(np.argmax(spectrum) * 22050 / len(out) - 1000) < 2


def test_downmix_averages_channels():
    """Six channels average to one; mono passes through."""
    audio = np.tile(np.arange(6, dtype=np.float32), (10, 1))
    assert np.allclose(downmix(audio), 2.5)
    mono = np.ones(5, np.float32)
    assert downmix(mono) is mono


def test_trim_keeps_a_margin_around_speech():
    """Trimming keeps margin_s either side of the speech span, within the clip."""
    audio = np.arange(16000, dtype=np.float32)
    out = trim(audio, 16000, 0.25, 0.75, margin_s=0.1)
    assert out[0] == 0.15 * 16000 and len(out) == int(0.7 * 16000)
    assert trim(audio, 16000, None, None) is audio
    assert len(trim(audio, 16000, 0.02, 0.99, margin_s=0.1)) == 16000


@pytest.mark.parametrize("level", [0.02, 0.3])
def test_normalize_to_target_without_exceeding_the_peak(level):
    """Quiet and loud speech reach -23 LUFS where the peak allows; the peak never passes -1 dBFS."""
    audio, info = load(shared_path("corpus", "target-voice", "wavs", "slt_0003.flac"))
    mono = downmix(audio) / np.abs(audio).max() * level
    out, gain_db = normalize_loudness(mono, info.sample_rate)
    assert 20 * np.log10(np.abs(out).max()) <= -1.0 + 1e-4
    reached = loudness(out, info.sample_rate)
    assert reached <= -23.0 + 0.1
    if 20 * np.log10(np.abs(out).max()) < -1.01:  # not peak-limited: the target was reached
        assert abs(reached + 23.0) < 0.1
    assert gain_db == pytest.approx(20 * np.log10(np.abs(out).max() / np.abs(mono).max()), abs=1e-3)
