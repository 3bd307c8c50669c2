"""Objective measures (trainer.evaluate.measures) on real recordings and the real default voice."""

import numpy as np
import pytest
import soundfile as sf
from conftest import shared_path

from trainer.dataset import recognizers
from trainer.evaluate import measures

TEXT = "The quick brown fox jumps over the lazy dog."


def _clip(stem: str) -> tuple[np.ndarray, int]:
    folder = shared_path("corpus", "real-speech", "librivox")
    audio, rate = sf.read(folder / f"sense_and_sensibility_01_austen_64kb-{stem}.wav", dtype="float32")
    return audio, rate


@pytest.fixture(scope="module")
def say(joe):
    """Speak a text with the default voice, noise 0, at a length_scale: float32 [N] at joe.sample_rate."""
    from engines.base import SynthesisOptions
    from engines.registry import create_engine

    engine = create_engine("onnx", joe)

    def speak(text: str, length_scale: float = 1.0) -> np.ndarray:
        options = SynthesisOptions(noise_scale=0.0, noise_w=0.0, length_scale=length_scale)
        return np.concatenate([c.audio for c in engine.synthesize(text, options)])

    return speak


def test_identical_audio_has_no_distortion_and_no_f0_error():
    audio, rate = _clip("0880")
    assert measures.mel_cepstral_distortion(audio, rate, audio, rate) == pytest.approx(0.0, abs=1e-9)
    assert measures.f0_rmse(audio, rate, audio, rate) == pytest.approx((0.0, 0.0), abs=1e-9)


def test_time_stretched_clip_is_near_after_dtw_and_another_sentence_is_far():
    import librosa

    audio, rate = _clip("0880")
    other, other_rate = _clip("0930")
    stretched = librosa.effects.time_stretch(audio, rate=1 / 1.2)
    near = measures.mel_cepstral_distortion(audio, rate, stretched, rate)
    far = measures.mel_cepstral_distortion(audio, rate, other, other_rate)
    assert near < 0.6 * far, (near, far)


def test_slower_synthesis_is_near_the_same_sentence_across_sample_rates(say, joe):
    import soxr

    reference = say(TEXT)
    slower = soxr.resample(say(TEXT, 1.2), joe.sample_rate, 16000)  # another rate: resampled inside
    human, human_rate = _clip("0880")
    near = measures.mel_cepstral_distortion(reference, joe.sample_rate, slower, 16000)
    far = measures.mel_cepstral_distortion(reference, joe.sample_rate, human, human_rate)
    assert near < 0.6 * far, (near, far)


def test_higher_pitch_shows_as_a_positive_mean_f0_gap(say, joe):
    import soxr

    reference = say(TEXT)
    # played 2 semitones faster, as a tape would: every frequency (F0 too) x 1.122, no phase-vocoder smearing
    # (librosa's pitch_shift smears voicing enough to move Harvest's mean F0 either way)
    higher = soxr.resample(reference, joe.sample_rate, round(joe.sample_rate / 2 ** (2 / 12)))
    _, gap = measures.f0_rmse(reference, joe.sample_rate, higher, joe.sample_rate)
    _, own_gap = measures.f0_rmse(higher, joe.sample_rate, reference, joe.sample_rate)
    # swapped, the gap turns round; not to the hertz, since the frames scored are the reference's speech frames
    assert gap > 5.0 and own_gap == pytest.approx(-gap, rel=0.1), (gap, own_gap)


def test_default_voice_is_intelligible_to_pocketsphinx(say, joe):
    pocketsphinx = recognizers.create("pocketsphinx")
    assert measures.word_error_rate(say(TEXT), joe.sample_rate, TEXT.upper(), pocketsphinx) <= 0.5


def test_speaking_rate_halves_at_twice_the_length_scale(say, joe):
    from engines.phonemes import Phonemizer

    phonemizer = Phonemizer(joe.config)
    spoken = say(TEXT, 1.0)
    normal = measures.phoneme_rate(phonemizer, TEXT, spoken, joe.sample_rate)
    pause = np.zeros(joe.sample_rate, dtype=np.float32)  # leading and trailing silence do not count
    padded = measures.phoneme_rate(phonemizer, TEXT, np.concatenate([pause, spoken, pause]), joe.sample_rate)
    assert padded == pytest.approx(normal, rel=0.02)
    slow = measures.phoneme_rate(phonemizer, TEXT, say(TEXT, 2.0), joe.sample_rate)
    assert 8.0 < normal < 20.0, normal
    assert 0.4 < slow / normal < 0.65, (normal, slow)
    assert measures.speaking_rate(30, 2.0) == 15.0


def test_unscorable_input_raises_a_measure_error():
    audio, rate = _clip("0880")
    with pytest.raises(measures.MeasureError, match="silent"):
        measures.mel_cepstral_distortion(audio, rate, np.zeros(rate, dtype=np.float32), rate)
    with pytest.raises(measures.MeasureError, match="no words"):
        measures.word_error_rate(audio, rate, " .,! ")
    with pytest.raises(measures.MeasureError, match="duration"):
        measures.speaking_rate(10, 0.0)


def test_a_transcript_does_not_depend_on_the_clips_transcribed_before():
    """The recognizer the leaderboard and the slicer share: the same clip after other clips gives the same text."""
    import soxr

    audio, rate = _clip("0870")
    speech = soxr.resample(audio, rate, recognizers.RATE)
    cards = shared_path("corpus", "real-speech", "cards")
    card, card_rate = sf.read(cards / "001.wav", dtype="float32")
    quiet_card = 0.05 * soxr.resample(card, card_rate, recognizers.RATE)
    first = recognizers.create("pocketsphinx")
    alone = first.transcribe(speech)
    after = recognizers.create("pocketsphinx")
    assert after.transcribe(quiet_card)
    assert after.transcribe(speech) == alone
    text = "but mister john dashwood would have been at leisure"
    wers = [measures.word_error_rate(speech, recognizers.RATE, text, first) for _ in range(2)]
    assert wers[0] == wers[1] == measures.word_error_rate(speech, recognizers.RATE, text, after)
