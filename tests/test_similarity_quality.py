"""Speaker similarity (resemblyzer) and DNSMOS P.835 (speechmos's ONNX model) on real recordings."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import soundfile as sf
from conftest import shared_path

from trainer.evaluate import quality, similarity
from trainer.evaluate.measures import MeasureError, MeasureUnavailable

pytest.importorskip("resemblyzer", reason="speaker similarity needs resemblyzer (the compare extra)")


def _clips(speaker: str) -> list[tuple[np.ndarray, int]]:
    """The clips of one speaker of ``../shared/corpus/real-speech`` (``librivox`` or ``cards``), float32 mono."""
    folder = shared_path("corpus", "real-speech", speaker)
    return [sf.read(path, dtype="float32") for path in sorted(folder.glob("*.wav"))]


def test_identical_audio_is_fully_similar():
    """The same clip on both sides scores 1.0 and its embedding is a unit vector of 256."""
    clip = _clips("librivox")[1]
    embedding = similarity.speaker_embedding([clip])
    assert embedding.shape == (256,) and embedding.dtype == np.float32
    assert np.linalg.norm(embedding) == pytest.approx(1.0, abs=1e-5)
    assert similarity.speaker_similarity([clip], [clip]) == pytest.approx(1.0, abs=1e-5)


def test_two_speakers_are_less_similar_than_two_clips_of_one():
    """LibriVox reader vs the cards speaker scores below LibriVox vs itself (other clips) and cards vs itself."""
    librivox, cards = _clips("librivox"), _clips("cards")
    same_reader = similarity.speaker_similarity(librivox[:2], librivox[2:4])
    same_cards = similarity.speaker_similarity(cards[:2], cards[2:4])
    different = similarity.speaker_similarity(librivox[:2], cards[:2])
    assert different < same_reader - 0.1 and different < same_cards - 0.1, (different, same_reader, same_cards)


def test_other_sample_rates_are_resampled_to_the_same_embedding():
    """A clip at 22.05 kHz embeds close to the same clip at 16 kHz."""
    import soxr

    audio, rate = _clips("librivox")[1]
    resampled = soxr.resample(audio, rate, 22050)
    assert similarity.speaker_similarity([(audio, rate)], [(resampled, 22050)]) > 0.98


def test_the_encoder_runs_on_one_torch_thread_and_no_other_threads_count_changes(monkeypatch):
    """The embedding runs with ``ENCODER_THREADS`` torch threads (on the default it took 0.4-2.5 s on a loaded 2-core
    machine, against 0.02 s); the caller's count, a running thread's and the count a new thread starts with stay
    what they were (3 here, so that the default cannot pass by chance)."""
    import threading

    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(3)
    try:
        encoder, seen = similarity._voice_encoder(), []
        embed = encoder.embed_utterance
        monkeypatch.setattr(
            encoder, "embed_utterance", lambda wav: (seen.append(torch.get_num_threads()), embed(wav))[1]
        )
        ready, go, running = threading.Event(), threading.Event(), []

        def keep_running() -> None:  # a thread that used torch before the embedding, and after it
            running.append(torch.get_num_threads())
            ready.set()
            go.wait()
            running.append(torch.get_num_threads())

        other = threading.Thread(target=keep_running)
        other.start()
        ready.wait()
        similarity.utterance_embedding(*_clips("librivox")[1])
        go.set()
        other.join()
        fresh: list[int] = []
        later = threading.Thread(target=lambda: fresh.append(torch.get_num_threads()))
        later.start()
        later.join()
        assert seen == [similarity.ENCODER_THREADS] and torch.get_num_threads() == 3
        assert running == [3, 3] and fresh == [3]
    finally:
        torch.set_num_threads(before)


def test_a_clip_is_resampled_once_with_soxr_not_again_by_resemblyzer(monkeypatch):
    """resemblyzer's ``preprocess_wav`` is not asked to resample (with a ``source_sr`` it calls ``librosa.resample``
    even from 16 to 16 kHz: librosa's resampling stack loaded on the scoring thread, to change nothing); the
    embedding is what a clip already at 16 kHz gives."""
    import soxr

    resemblyzer = similarity._resemblyzer()
    preprocess, asked = resemblyzer.preprocess_wav, []
    monkeypatch.setattr(resemblyzer, "preprocess_wav", lambda *a, **k: (asked.append(k), preprocess(*a, **k))[1])
    audio, rate = _clips("librivox")[1]
    at_16k = soxr.resample(audio, rate, similarity.ENCODER_RATE, quality="HQ")
    embedded = similarity.utterance_embedding(audio, rate)
    assert asked == [{}] and np.allclose(embedded, similarity.utterance_embedding(at_16k, similarity.ENCODER_RATE))


def test_silence_is_refused_and_a_missing_resemblyzer_says_how_to_install_it(monkeypatch):
    """Silent audio raises MeasureError; without resemblyzer the reason names the package and Windows."""
    with pytest.raises(MeasureError, match="empty or silent"):
        similarity.speaker_embedding([(np.zeros(16000, np.float32), 16000)])
    monkeypatch.setitem(sys.modules, "resemblyzer", None)  # as if not installed: the import fails
    with pytest.raises(MeasureUnavailable, match="pip install resemblyzer .*C compiler on Windows"):
        similarity.speaker_embedding([_clips("librivox")[0]])


def test_dnsmos_ranks_a_clean_clip_above_it_with_white_noise_at_5_db_snr():
    """Added white noise at 5 dB SNR lowers BAK and OVRL; scores are on the 1-5 MOS scale."""
    audio, rate = _clips("librivox")[1]
    rng = np.random.default_rng(0)
    noise = rng.standard_normal(audio.size).astype(np.float32)
    noise *= np.sqrt(np.mean(audio**2) / np.mean(noise**2) / 10 ** (5 / 10))  # signal/noise power = 10^(5/10)
    clean, noisy = quality.dnsmos(audio, rate), quality.dnsmos(audio + noise, rate)
    assert all(1.0 <= v <= 5.0 for v in (clean.sig, clean.bak, clean.ovrl, noisy.sig, noisy.bak, noisy.ovrl))
    assert clean.ovrl > noisy.ovrl + 0.5 and clean.bak > noisy.bak + 0.5, (clean, noisy)


def test_dnsmos_matches_speechmos_on_a_long_clip_at_another_rate():
    """Our session and framing give speechmos's own numbers (its reference implementation, at 16 kHz)."""
    pytest.importorskip("librosa")
    import soxr
    from speechmos import dnsmos as reference

    audio, rate = _clips("librivox")[0]  # 8 s: repeated to the 9.01 s input
    ours = quality.dnsmos(soxr.resample(audio, rate, 22050), 22050)
    theirs = reference.run(soxr.resample(soxr.resample(audio, rate, 22050), 22050, 16000), 16000)
    assert (ours.sig, ours.bak, ours.ovrl) == pytest.approx(
        (theirs["sig_mos"], theirs["bak_mos"], theirs["ovrl_mos"]), abs=1e-4
    )


def test_dnsmos_refuses_silence():
    """Silence has no quality to predict: MeasureError."""
    with pytest.raises(MeasureError, match="empty or silent"):
        quality.dnsmos(np.zeros(16000, np.float32), 16000)
