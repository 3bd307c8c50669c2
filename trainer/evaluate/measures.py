"""Objective measures of synthesized speech for the leaderboard, on float32 mono audio ``[N]``.

- ``mel_cepstral_distortion``: spectral distance to a reference recording, in dB, after DTW.
- ``f0_rmse``: pitch error to a reference, in Hz, over the same DTW path.
- ``speaking_rate`` / ``phoneme_rate``: phonemes per second.
- ``word_error_rate``: intelligibility, an offline recognizer (PocketSphinx) against the text.

The analysis libraries (``pyworld``, ``pysptk``, ``librosa``, ``jiwer``: the ``compare`` extra) are
imported inside the functions, so importing this module costs nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engines.errors import VoiceStudioError
from engines.imports import importing, librosa_ready

RATE = 16000
"""Common sample rate, Hz, both signals are resampled to before analysis (and the recognizer's rate)."""

FRAME_PERIOD_MS = 5.0
"""WORLD analysis hop, milliseconds."""

MCEP_ORDER = 24
"""Mel-cepstrum order; coefficients c1..c24 enter the distortion (c0, the energy, is left out)."""

_NOT_PHONEMES = set(" \t\n.,;:!?-—…\"'()ˈˌːˑ")
"""Symbols of an espeak-ng phoneme string that are not phonemes: spaces, punctuation, stress and length."""


class MeasureError(VoiceStudioError, ValueError):
    """Audio or text a measure cannot score (empty, silent, no voiced frames, empty text)."""


class MeasureUnavailable(MeasureError):
    """A measure whose package is not installed (the message says what to install); nothing was scored."""


def _at_rate(audio: np.ndarray, rate: int, name: str) -> np.ndarray:
    """``audio`` float ``[N]`` at ``rate`` Hz -> float64 ``[M]`` at ``RATE``; raises MeasureError when empty."""
    with importing("soxr"):
        import soxr

    samples = np.asarray(audio, dtype=np.float64).reshape(-1)
    if samples.size < rate * FRAME_PERIOD_MS / 1000 * 4 or not np.any(samples):
        raise MeasureError(f"{name} audio is empty or silent ({samples.size} samples at {rate} Hz)")
    return samples if rate == RATE else soxr.resample(samples, rate, RATE, quality="HQ")


def _world(audio: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """WORLD analysis of float64 ``[N]`` at ``RATE`` -> (F0 ``[T]`` Hz, 0 where unvoiced; mel-cepstra ``[T, 25]``).

    F0 by Harvest (more robust to octave errors than DIO), spectral envelope by CheapTrick (Morise et al.,
    2016), mel-cepstra by ``pysptk.sp2mc`` with the all-pass constant ``alpha`` that fits ``RATE``
    (``pysptk.util.mcepalpha``).
    """
    with importing("pysptk", "pyworld"):
        import pysptk
        import pyworld

    f0, times = pyworld.harvest(audio, RATE, frame_period=FRAME_PERIOD_MS)
    envelope = pyworld.cheaptrick(audio, f0, times, RATE)
    mcep = pysptk.sp2mc(envelope, order=MCEP_ORDER, alpha=pysptk.util.mcepalpha(RATE))
    return f0, mcep


@dataclass(frozen=True)
class Aligned:
    """WORLD features of a reference and a synthesized signal and their DTW path (what MCD and F0 error use).

    Attributes:
        f0_ref, f0_syn: F0 per frame, Hz, 0 where unvoiced, ``[T_ref]`` / ``[T_syn]``.
        mc_ref, mc_syn: mel-cepstra ``[T, 25]``.
        i, j: the DTW path, frame indices into the reference and the synthesized signal, ``[P]`` each.
    """

    f0_ref: np.ndarray
    mc_ref: np.ndarray
    f0_syn: np.ndarray
    mc_syn: np.ndarray
    i: np.ndarray
    j: np.ndarray


def align(reference: np.ndarray, rate_ref: int, synthesized: np.ndarray, rate_syn: int) -> Aligned:
    """WORLD analysis of both signals (float32 ``[N]`` mono, rates in Hz) and their DTW path, for
    :func:`mcd_of` and :func:`f0_error_of` (one analysis for both).

    The path minimises the Euclidean distance of c1..c24 (``librosa.sequence.dtw``).

    Raises:
        MeasureError: either signal is empty or silent.
    """
    librosa = librosa_ready()

    f0_ref, mc_ref = _world(_at_rate(reference, rate_ref, "reference"))
    f0_syn, mc_syn = _world(_at_rate(synthesized, rate_syn, "synthesized"))
    _, path = librosa.sequence.dtw(X=mc_ref[:, 1:].T, Y=mc_syn[:, 1:].T, metric="euclidean")
    path = path[::-1]
    return Aligned(f0_ref, mc_ref, f0_syn, mc_syn, path[:, 0], path[:, 1])


def mel_cepstral_distortion(reference: np.ndarray, rate_ref: int, synthesized: np.ndarray, rate_syn: int) -> float:
    """Mel-cepstral distortion (MCD), dB, of ``synthesized`` to ``reference`` (float32 ``[N]`` mono, rates in Hz).

    MCD = (10 / ln 10) * sqrt(2 * sum_{d=1..24} (c_d - c'_d)^2), averaged over the frames of the DTW path
    (Kubichek, 1993, "Mel-cepstral distance measure for objective speech quality assessment"); c0 (energy)
    is excluded. 0 for identical audio; a few dB between different utterances.

    Raises:
        MeasureError: either signal is empty or silent.
    """
    return mcd_of(align(reference, rate_ref, synthesized, rate_syn))


def mcd_of(aligned: Aligned) -> float:
    """:func:`mel_cepstral_distortion` of signals already aligned, dB."""
    diff = aligned.mc_ref[aligned.i, 1:] - aligned.mc_syn[aligned.j, 1:]
    per_frame = (10.0 / math.log(10.0)) * np.sqrt(2.0 * np.sum(diff**2, axis=1))
    return float(np.mean(per_frame))


def f0_rmse(reference: np.ndarray, rate_ref: int, synthesized: np.ndarray, rate_syn: int) -> tuple[float, float]:
    """F0 error of ``synthesized`` to ``reference`` (float32 ``[N]`` mono, rates in Hz).

    Returns:
        (RMSE in Hz over the DTW-aligned frames voiced in both, mean F0 of ``synthesized`` minus mean F0 of
        ``reference`` in Hz, each over its own voiced frames; > 0 means the synthesized voice is higher).

    Raises:
        MeasureError: either signal is empty or silent, or no aligned frame is voiced in both.
    """
    return f0_error_of(align(reference, rate_ref, synthesized, rate_syn))


def f0_error_of(aligned: Aligned) -> tuple[float, float]:
    """:func:`f0_rmse` of signals already aligned: (RMSE Hz, mean-F0 gap Hz). Raises MeasureError (no frame
    voiced in both)."""
    a, b = aligned.f0_ref[aligned.i], aligned.f0_syn[aligned.j]
    both = (a > 0) & (b > 0)
    if not np.any(both):
        raise MeasureError("no frame is voiced in both the reference and the synthesized audio")
    rmse = float(np.sqrt(np.mean((a[both] - b[both]) ** 2)))
    f0_syn, f0_ref = aligned.f0_syn, aligned.f0_ref
    return rmse, float(np.mean(f0_syn[f0_syn > 0]) - np.mean(f0_ref[f0_ref > 0]))


def speaking_rate(phoneme_count: int, seconds: float) -> float:
    """Phonemes per second. Raises MeasureError when ``seconds`` is not > 0 or the count is negative."""
    if not seconds > 0 or phoneme_count < 0:
        raise MeasureError(
            f"speaking rate needs a positive duration and a count >= 0, got {phoneme_count} in {seconds} s"
        )
    return phoneme_count / seconds


def count_phonemes(phonemizer, text: str) -> int:
    """Phonemes in ``text`` by a voice's ``engines.phonemes.Phonemizer`` (no spaces, punctuation, stress, length)."""
    return sum(1 for sentence in phonemizer.phonemize(text) for p in sentence if p not in _NOT_PHONEMES)


def phoneme_rate(phonemizer, text: str, audio: np.ndarray, rate: int, top_db: float = 40.0) -> float:
    """Phonemes per second of ``audio`` (float32 ``[N]`` at ``rate`` Hz) speaking ``text``.

    The duration leaves out leading and trailing silence quieter than ``top_db`` below the peak
    (``librosa.effects.trim``). Raises MeasureError for silent audio or text with no phonemes.
    """
    librosa = librosa_ready()

    samples = np.asarray(audio, dtype=np.float32).reshape(-1)
    if not np.any(samples):
        raise MeasureError("the audio is empty or silent")
    count = count_phonemes(phonemizer, text)
    if count == 0:
        raise MeasureError(f"the text has no phonemes: {text!r}")
    trimmed, _ = librosa.effects.trim(samples, top_db=top_db)
    return speaking_rate(count, trimmed.size / rate)


def word_error_rate(audio: np.ndarray, rate: int, text: str, recognizer=None) -> float:
    """Word error rate of ``recognizer`` (default PocketSphinx) on ``audio`` (float32 ``[N]`` at ``rate`` Hz).

    Both ``text`` and the transcript are lower-cased with punctuation removed before ``jiwer.wer``;
    0 is perfect, 1 is every word wrong (more is possible with insertions).

    Raises:
        MeasureError: ``text`` has no words or the audio is empty.
        trainer.dataset.recognizers.RecognizerError: the recognizer is not installed.
    """
    with importing("jiwer"):
        import jiwer

    from trainer.dataset import recognizers

    normalise = jiwer.Compose(
        [
            jiwer.ToLowerCase(),
            jiwer.RemovePunctuation(),
            jiwer.RemoveMultipleSpaces(),
            jiwer.Strip(),
            jiwer.ReduceToListOfListOfWords(),
        ]
    )
    if not " ".join(jiwer.RemovePunctuation()(text).split()):
        raise MeasureError(f"the reference text has no words: {text!r}")
    samples = _at_rate(audio, rate, "the").astype(np.float32)
    hypothesis = (recognizer or recognizers.create("pocketsphinx")).transcribe(samples)
    if not hypothesis.strip():
        return 1.0
    return float(jiwer.wer(text, hypothesis, reference_transform=normalise, hypothesis_transform=normalise))
