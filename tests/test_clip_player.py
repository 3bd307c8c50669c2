"""Loudness-matched clip playback through the real PortAudio output (ALSA captured to a file), and the switch."""

from __future__ import annotations

import numpy as np
import pyloudnorm
import pytest
import soundfile
from conftest import shared_path

from studio.widgets.clip_player import ClipPlayer, loudness_gain

pytestmark = pytest.mark.gui


def _speech(seconds: float = 4.0) -> tuple[np.ndarray, int]:
    """The first ``seconds`` of one real recording (mono float64)."""
    wav = sorted(shared_path("corpus", "target-voice", "wavs").glob("*.flac"))[0]
    audio, rate = soundfile.read(wav, dtype="float64", always_2d=True)
    return audio[: int(seconds * rate), 0], rate


def test_loudness_gain_makes_a_quiet_and_a_loud_clip_equally_loud():
    """The same speech 20 dB apart, and a different clip: after the gain all measure -23 LUFS within 0.5 LU."""
    speech, rate = _speech()
    quiet = 0.1 * speech / np.max(np.abs(speech))
    loud = 0.9 * speech[::-1] / np.max(np.abs(speech))
    meter = pyloudnorm.Meter(rate)
    before = [meter.integrated_loudness(x) for x in (quiet, loud)]
    assert abs(before[0] - before[1]) > 10
    after = [meter.integrated_loudness(x * loudness_gain(x, rate)) for x in (quiet, loud)]
    assert abs(after[0] - after[1]) <= 0.5 and abs(after[0] + 23.0) <= 0.5


def test_loudness_gain_keeps_peaks_under_full_scale_and_measures_short_clips():
    """A target louder than the clip's peaks allow: the gain stops at peak 1.0; a 0.2 s clip (too short for
    BS.1770 gating) still gets the gain its RMS asks for; silence keeps gain 1."""
    speech, rate = _speech()
    gain = loudness_gain(speech, rate, target_lufs=0.0)
    assert np.max(np.abs(speech * gain)) == pytest.approx(1.0, abs=1e-6)
    tone = 0.01 * np.sin(2 * np.pi * 1000 * np.arange(int(0.2 * rate)) / rate)
    rms_db = 10 * np.log10(np.mean(tone**2))
    assert 20 * np.log10(loudness_gain(tone, rate)) == pytest.approx(-23.0 - rms_db, abs=1e-6)
    assert loudness_gain(np.zeros(rate), rate) == 1.0


def test_switch_goes_on_from_the_same_sample(qtbot, capture):
    """Switch from clip A to clip B while playing: the device receives A up to some sample k, then B from k
    (not B from its start), each at its own loudness-matching gain; playing_changed says when it ends."""
    rate = 16000
    rng = np.random.default_rng(1)
    a = (0.05 * rng.standard_normal(240 * rate)).astype(np.float32)  # 4 minutes: still playing at the switch
    b = (0.3 * rng.standard_normal(240 * rate)).astype(np.float32)
    player = ClipPlayer()
    ga, gb = player.gain(a, rate), player.gain(b, rate)  # measured once, as the page does for a line's clips
    changes = []
    player.playing_changed.connect(changes.append)
    player.play(a, rate)
    qtbot.waitUntil(lambda: player.position_s() > 0, timeout=5_000)
    player.switch(b, rate)
    qtbot.waitUntil(lambda: changes == [True, False], timeout=20_000)
    played = capture.samples()
    played = played[np.argmax(played != 0) :]  # PortAudio primes the device with silence
    k = int(np.argmax(np.abs(played[: len(a)] - a * ga) > 1e-6))
    assert 0 < k < len(b) - rate  # switched while playing (ALSA's null device plays far faster than real time)
    np.testing.assert_allclose(played[:k], a[:k] * ga, atol=1e-6)
    np.testing.assert_allclose(played[k : len(b)], b[k:] * gb, atol=1e-6)
    assert (ga, gb) == (loudness_gain(a, rate), loudness_gain(b, rate))
    assert player.position_s() == pytest.approx(len(b) / rate)


def test_seek_and_switch_while_stopped_keep_the_position(qtbot, capture):
    """Stopped at 1.5 s of A, switch to B: the position stays 1.5 s and playing goes on from there in B."""
    rate = 16000
    a = np.full(3 * rate, 0.1, np.float32)
    b = np.linspace(-0.5, 0.5, 3 * rate, dtype=np.float32)
    player = ClipPlayer()
    player.switch(a, rate)
    player.seek(1.5)
    player.switch(b, rate)
    assert player.position_s() == 1.5
    player.play(b, rate, start_s=player.position_s())
    qtbot.waitUntil(lambda: not player.is_playing(), timeout=10_000)
    played = capture.samples()
    played = played[np.argmax(played != 0) :]
    np.testing.assert_allclose(played[: len(b) // 2], b[len(b) // 2 :] * loudness_gain(b, rate), atol=1e-6)
