"""What the cache holds per utterance, computed the way Piper's trainer does: phoneme_ids and spectrograms.

Spectrograms are ``trainer.gan.mel.spectrogram``'s, computed in NumPy (:func:`spectrogram`)
so cache workers need no PyTorch; phoneme_ids are piper-tts's trainer's
(:func:`training_phoneme_ids`); :func:`map_digest` ties a cache to the phoneme map it was built with.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

import numpy as np

from engines.espeak import phonemize
from engines.imports import importing


def map_digest(phoneme_id_map: Mapping[str, list[int]]) -> str:
    """SHA-256 of a ``phoneme_id_map`` (sorted JSON): a cache is only valid for the map it was built with."""
    return hashlib.sha256(json.dumps(dict(phoneme_id_map), sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def spectrogram(audio: np.ndarray, n_fft: int, hop_length: int, win_length: int) -> np.ndarray:
    """``trainer.gan.mel.spectrogram`` (Piper's ``spectrogram_torch``) in NumPy, so cache workers need no PyTorch.

    Reflect padding of ``(n_fft - hop_length) // 2`` on each side, a periodic Hann window
    of ``win_length`` centred in ``n_fft``, no centring, magnitude ``sqrt(re^2 + im^2 + 1e-6)``.

    Args:
        audio: float32 ``[N]`` samples.
        n_fft, hop_length, win_length: samples.
    Returns:
        float32 ``[frames, n_fft // 2 + 1]`` (frame-major, as the cache stores it),
        ``frames = (N + 2 * pad - n_fft) // hop_length + 1``.
    Raises:
        ValueError: ``N <= pad``, where reflect padding is undefined (PyTorch refuses it too).
    """
    with importing("scipy.fft"):
        import scipy.fft

    pad = (n_fft - hop_length) // 2
    if len(audio) <= pad:
        raise ValueError(f"{len(audio)} samples is too short for a spectrogram (reflect padding of {pad})")
    padded = np.pad(np.asarray(audio, dtype=np.float32), (pad, pad), mode="reflect")
    window = np.zeros(n_fft, dtype=np.float32)
    left = (n_fft - win_length) // 2
    window[left : left + win_length] = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(win_length) / win_length)
    frames = np.lib.stride_tricks.sliding_window_view(padded, n_fft)[::hop_length]
    spectrum = scipy.fft.rfft(frames * window, axis=1)
    return np.sqrt(spectrum.real**2 + spectrum.imag**2 + 1e-6).astype(np.float32)


def training_phoneme_ids(phonemizer, text: str) -> list[int]:
    """A transcript's phoneme_ids as piper-tts's trainer builds them (``VitsDataModule.prepare_data``) from the
    transcript as the text front end says it (``engines.frontend``: "$3.50" -> "three dollars and fifty cents";
    the voice learns what inference will ask of it).

    For espeak voices that is piper's own ``EspeakPhonemizer`` (the process's one, ``engines.espeak.phonemize``)
    sentence by sentence, each sentence through ``phonemes_to_ids`` with the voice's map, end
    to end. It differs from inference (``engines.phonemes``) in one way Piper's
    checkpoints were trained with: a text ending in a closing quote yields an
    extra empty sentence, which adds ``^ _ $`` (BOS, PAD, EOS). Other phoneme
    types use the inference frontend's sentences.

    Args:
        phonemizer: an ``engines.phonemes.Phonemizer`` for the target voice.
    """
    config = phonemizer.config
    if config.phoneme_type == "espeak":
        with importing("piper.phoneme_ids"):
            from piper.phoneme_ids import phonemes_to_ids

        found = phonemize(config.espeak_voice, phonemizer.normalize(text).text)
        return [i for sentence in found for i in phonemes_to_ids(sentence, id_map=config.phoneme_id_map)]
    from engines.phonemes import sentences

    return [i for sentence in sentences(phonemizer, text) for i in sentence.phoneme_ids]
