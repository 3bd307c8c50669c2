"""Objective measures of synthesized speech for the leaderboard, on float32 mono audio ``[N]``.

- ``mel_cepstral_distortion``: spectral distance to a reference recording, in dB, after DTW, over the frames
  where the reference speaks.
- ``f0_rmse``: pitch error to a reference, in Hz, over the same DTW path and the frames voiced in both.
- ``speaking_rate`` / ``phoneme_rate``: phonemes per second.
- ``word_error_rate``: intelligibility, an offline recognizer (Whisper tiny.en, else PocketSphinx) against the
  text, both normalized alike (``trainer.evaluate.wer_text``).

The analysis libraries (``pyworld``, ``pysptk``, ``librosa``, ``jiwer``: the ``compare`` extra) are
imported inside the functions, so importing this module costs nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engines.errors import VoiceStudioError
from engines.frontend.markup import heard, parse_markup, said
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


FRAME_LENGTH = 512
"""Analysis window, samples at ``RATE`` (32 ms, Hann), centred on each frame; a power of two for the FFT."""

HOP = int(RATE * FRAME_PERIOD_MS / 1000)
"""Frame hop, samples at ``RATE`` (80: 5 ms)."""

SPECTRUM_RANGE_DB = 60.0
"""Dynamic range kept in each power spectrum: bins more than this below the utterance's loudest bin are raised to
that floor before the mel-cepstrum. 16-bit quantisation noise lies about 100 dB below a speech peak; without a floor
it fills the empty bands (above 8 kHz of a 22,050 Hz voice, the silences) and audio identical to ±1 LSB scored
0.5 dB MCD. Measured on joe's renders with ±1 LSB noise: a 60 / 80 / 100 dB range gives 0.006 / 0.04 / 0.16 dB."""

SILENCE_DB = 40.0
"""A reference frame whose level is more than this below the reference's loudest frame is silence and left out of
MCD and F0 error: the ``top_db`` that :func:`phoneme_rate` trims with (``librosa.effects.trim``'s measure of
silence, frame RMS relative to the peak)."""

MCD_LEGEND = (
    "MCD: MCD-DTW on mel-cepstra c1-c24 (alpha 0.41 at 16 kHz), (10/ln 10)*sqrt(2*sum (c_d - c'_d)^2) dB "
    "(constant 6.142; Kubichek 1993), over the reference's non-silent frames"
)
"""The variant and constant of :func:`mel_cepstral_distortion`, for legends."""


def _frames(audio: np.ndarray) -> np.ndarray:
    """float64 ``[N]`` at ``RATE`` -> Hann-windowed frames ``[T, FRAME_LENGTH]``, frame ``t`` centred on sample
    ``t * HOP`` (``T = N // HOP + 1``, the frame count of WORLD's analysis at the same period)."""
    padded = np.pad(audio, FRAME_LENGTH // 2)
    count = audio.size // HOP + 1
    index = np.arange(FRAME_LENGTH)[None, :] + HOP * np.arange(count)[:, None]
    return padded[index] * np.hanning(FRAME_LENGTH)


def _mel_cepstra(frames: np.ndarray) -> np.ndarray:
    """Windowed frames ``[T, FRAME_LENGTH]`` -> mel-cepstra ``[T, 25]`` (c0..c24) of their power spectra, each
    floored ``SPECTRUM_RANGE_DB`` below the loudest bin, by frequency warping (``pysptk.sp2mc``) with the all-pass
    constant that fits ``RATE`` (``pysptk.util.mcepalpha``: 0.41)."""
    with importing("pysptk"):
        import pysptk

    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    floor = max(float(power.max()), 1e-20) * 10 ** (-SPECTRUM_RANGE_DB / 10)
    return pysptk.sp2mc(np.maximum(power, floor), order=MCEP_ORDER, alpha=pysptk.util.mcepalpha(RATE))


def _f0(audio: np.ndarray) -> np.ndarray:
    """F0 per frame, Hz, 0 where unvoiced, ``[T]``, of float64 ``[N]`` at ``RATE``: WORLD's DIO refined by
    StoneMask (Morise et al., 2016), 60-600 Hz. DIO rather than Harvest: on joe's renders with ±1 LSB noise
    Harvest's F0 moved by 1.5-4.5 Hz RMS on the frames voiced in both, DIO's by 0.02-0.3 Hz."""
    with importing("pyworld"):
        import pyworld

    f0, times = pyworld.dio(audio, RATE, f0_floor=60.0, f0_ceil=600.0, frame_period=FRAME_PERIOD_MS)
    return pyworld.stonemask(audio, f0, times, RATE)


GROSS_ERROR = 0.2
"""A frame whose F0 differs from the reference's by more than this fraction is a gross pitch error (an octave
jump of either tracker, mostly) and left out of the F0 RMSE and gap, which then measure the fine pitch error
(Chu and Alwan, 2009, "Reducing F0 frame error of F0 tracking algorithms under noisy conditions"; the 20% of
Rabiner et al., 1976)."""


def _level_db(frames: np.ndarray) -> np.ndarray:
    """Each frame's RMS level, dB relative to the loudest frame (0 at the loudest), ``[T]``."""
    rms = np.sqrt(np.mean(frames**2, axis=1)) + 1e-12
    return 20.0 * np.log10(rms / rms.max())


@dataclass(frozen=True)
class Aligned:
    """Features of a reference and a synthesized signal and their DTW path (what MCD and F0 error use).

    Attributes:
        f0_ref, f0_syn: F0 per frame, Hz, 0 where unvoiced, ``[T_ref]`` / ``[T_syn]``.
        mc_ref, mc_syn: mel-cepstra ``[T, 25]``.
        i, j: the DTW path, frame indices into the reference and the synthesized signal, ``[P]`` each.
        speech_ref: which reference frames carry speech (not ``SILENCE_DB`` below its loudest), ``[T_ref]`` bool.
    """

    f0_ref: np.ndarray
    mc_ref: np.ndarray
    f0_syn: np.ndarray
    mc_syn: np.ndarray
    i: np.ndarray
    j: np.ndarray
    speech_ref: np.ndarray


def align(reference: np.ndarray, rate_ref: int, synthesized: np.ndarray, rate_syn: int) -> Aligned:
    """Analysis of both signals (float32 ``[N]`` mono, rates in Hz, resampled to ``RATE``) and their DTW path, for
    :func:`mcd_of` and :func:`f0_error_of` (one analysis for both).

    The path minimises the Euclidean distance of c1..c24 (``librosa.sequence.dtw``).

    Raises:
        MeasureError: either signal is empty or silent.
    """
    librosa = librosa_ready()

    ref, syn = _at_rate(reference, rate_ref, "reference"), _at_rate(synthesized, rate_syn, "synthesized")
    frames_ref, frames_syn = _frames(ref), _frames(syn)
    mc_ref, mc_syn = _mel_cepstra(frames_ref), _mel_cepstra(frames_syn)
    _, path = librosa.sequence.dtw(X=mc_ref[:, 1:].T, Y=mc_syn[:, 1:].T, metric="euclidean")
    path = path[::-1]
    speech = _level_db(frames_ref) > -SILENCE_DB
    return Aligned(_f0(ref), mc_ref, _f0(syn), mc_syn, path[:, 0], path[:, 1], speech)


def mel_cepstral_distortion(reference: np.ndarray, rate_ref: int, synthesized: np.ndarray, rate_syn: int) -> float:
    """Mel-cepstral distortion (MCD), dB, of ``synthesized`` to ``reference`` (float32 ``[N]`` mono, rates in Hz).

    MCD = (10 / ln 10) * sqrt(2 * sum_{d=1..24} (c_d - c'_d)^2), averaged over the DTW path's frames where the
    reference speaks (``SILENCE_DB``) (Kubichek, 1993, "Mel-cepstral distance measure for objective speech quality
    assessment"; the MCD-DTW variant); c0 (energy) is excluded (:data:`MCD_LEGEND`). Below 0.05 dB for audio
    identical to ±1 LSB; a few dB between different utterances.

    Raises:
        MeasureError: either signal is empty or silent.
    """
    return mcd_of(align(reference, rate_ref, synthesized, rate_syn))


def mcd_of(aligned: Aligned) -> float:
    """:func:`mel_cepstral_distortion` of signals already aligned, dB. Raises MeasureError (no speech frame)."""
    speaks = aligned.speech_ref[aligned.i]
    if not np.any(speaks):
        raise MeasureError("the reference has no frame that carries speech")
    diff = aligned.mc_ref[aligned.i[speaks], 1:] - aligned.mc_syn[aligned.j[speaks], 1:]
    per_frame = (10.0 / math.log(10.0)) * np.sqrt(2.0 * np.sum(diff**2, axis=1))
    return float(np.mean(per_frame))


def f0_rmse(reference: np.ndarray, rate_ref: int, synthesized: np.ndarray, rate_syn: int) -> tuple[float, float]:
    """F0 error of ``synthesized`` to ``reference`` (float32 ``[N]`` mono, rates in Hz).

    Scored over the DTW path's frames voiced in both signals, away from voicing edges (each signal's voiced runs
    less 3 frames, 15 ms, at each end, where F0 trackers disagree with themselves), where the reference speaks,
    leaving out gross pitch errors (``GROSS_ERROR``).

    Returns:
        (RMSE in Hz, the median of synthesized F0 minus reference F0 in Hz over the same frames; > 0 means the
        synthesized voice is higher; a median, since a tracker's sub-octave slips inside the 20% move a mean
        by a hertz or two). Both below 0.5 Hz for audio identical to ±1 LSB.

    Raises:
        MeasureError: either signal is empty or silent, or no aligned frame is voiced in both.
    """
    return f0_error_of(align(reference, rate_ref, synthesized, rate_syn))


def f0_error_of(aligned: Aligned) -> tuple[float, float]:
    """:func:`f0_rmse` of signals already aligned: (RMSE Hz, mean F0 gap Hz). Raises MeasureError (no frame
    voiced in both)."""
    with importing("scipy.ndimage"):
        from scipy.ndimage import binary_erosion

    a, b = aligned.f0_ref[aligned.i], aligned.f0_syn[aligned.j]
    steady_ref = binary_erosion(aligned.f0_ref > 0, iterations=3)
    steady_syn = binary_erosion(aligned.f0_syn > 0, iterations=3)
    both = steady_ref[aligned.i] & steady_syn[aligned.j] & aligned.speech_ref[aligned.i]
    if not np.any(both):
        raise MeasureError("no frame is voiced in both the reference and the synthesized audio")
    fine = both & (np.abs(b - a) <= GROSS_ERROR * a)
    if not np.any(fine):
        raise MeasureError("every frame voiced in both differs by more than 20% (a gross pitch error)")
    return float(np.sqrt(np.mean((a[fine] - b[fine]) ** 2))), float(np.median(b[fine] - a[fine]))


def speaking_rate(phoneme_count: int, seconds: float) -> float:
    """Phonemes per second. Raises MeasureError when ``seconds`` is not > 0 or the count is negative."""
    if not seconds > 0 or phoneme_count < 0:
        raise MeasureError(
            f"speaking rate needs a positive duration and a count >= 0, got {phoneme_count} in {seconds} s"
        )
    return phoneme_count / seconds


def count_phonemes(phonemizer, text: str) -> int:
    """Phonemes in ``text`` as a voice's ``engines.phonemes.Phonemizer`` says it (its markup read and its text
    normalized first, its lexicon's words as their entries, as every engine speaks it: "2 kg" counts the phonemes
    of "two kilograms", SSML's tags none; no spaces, punctuation, stress, length).

    Raises:
        MarkupError: malformed SSML (``engines.frontend.markup``).
    """
    spoken = said(parse_markup(text), phonemizer.language, lexicon=phonemizer.lexicon).text
    return sum(1 for sentence in phonemizer.phonemize(spoken) for p in sentence if p not in _NOT_PHONEMES)


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


def wer_recognizer(language: str = "en"):
    """The recognizer WER uses for ``language`` (an espeak-ng voice such as ``en-us``): Whisper ``tiny.en`` where the
    ``compare`` extra is installed, else PocketSphinx; loaded once per process (``recognizers.shared``).

    Raises:
        MeasureUnavailable: no recognizer here knows the language (both bundled models are English only), or none
            is installed.
    """
    from trainer.dataset import recognizers

    if not language.lower().startswith("en"):
        raise MeasureUnavailable(f"no speech recognizer for {language!r}: Whisper tiny.en and PocketSphinx are English")
    for name in ("whisper", "pocketsphinx"):
        if name in recognizers.available():
            return recognizers.shared(name)
    raise MeasureUnavailable(f"no speech recognizer is installed: {recognizers.BACKENDS['whisper'][1]}")


def recognizer_label(recognizer) -> str:
    """How tables name a recognizer: ``Whisper tiny.en``, ``PocketSphinx``."""
    return getattr(recognizer, "model_name", None) or {"pocketsphinx": "PocketSphinx"}.get(
        recognizer.name, recognizer.name
    )


def word_error_rate(audio: np.ndarray, rate: int, text: str, recognizer=None, language: str = "en") -> float:
    """Word error rate of ``recognizer`` (default :func:`wer_recognizer`) on ``audio`` (float32 ``[N]`` at ``rate``)
    against ``text``: :func:`transcript_wer` of :func:`transcript`.

    Raises:
        MeasureError: ``text`` has no words or the audio is empty.
        MeasureUnavailable: no recognizer for ``language`` (without a ``recognizer`` given).
        trainer.dataset.recognizers.RecognizerError: the recognizer is not installed.
    """
    reference_words(text, language)  # a text with no words is refused before the recognizer's time is spent
    return transcript_wer(text, transcript(audio, rate, recognizer or wer_recognizer(language)), language)


def transcript(audio: np.ndarray, rate: int, recognizer) -> str:
    """What ``recognizer`` hears in ``audio`` (float ``[N]`` at ``rate`` Hz, resampled to its 16 kHz).

    Raises:
        MeasureError: the audio is empty or silent.
    """
    return recognizer.transcribe(_at_rate(audio, rate, "the").astype(np.float32))


def reference_words(text: str, language: str = "en") -> str:
    """``text`` as WER compares it: its words as heard (markup left out: ``engines.frontend.markup.heard``; an
    aside in parentheses is read, so its brackets become commas), through ``trainer.evaluate.wer_text.normalize``
    (numbers, units, abbreviations, case and punctuation). Whisper's normalizer drops words in parentheses (a
    transcript's "(laughs)"); a prompt's parentheses are read aloud, and dropping them scored a correct read of
    "… every evening (much to the neighbors' mixed delight)." at 1.67 (docs/benchmarks.md, "Misread threshold").

    Raises:
        MeasureError: ``text`` has no words.
    """
    from trainer.evaluate.wer_text import normalize

    reference = normalize(heard(text).replace("(", ", ").replace(")", ", "), language)
    if not reference:
        raise MeasureError(f"the reference text has no words: {text!r}")
    return reference


def transcript_wer(text: str, transcript: str, language: str = "en") -> float:
    """Word error rate of a recognizer's ``transcript`` against ``text``: both go through the same normalization
    (:func:`reference_words`; the transcript has no markup) before ``jiwer.wer``; 0 is perfect, 1 is every word
    wrong (more is possible with insertions), and an empty transcript is 1.

    Raises:
        MeasureError: ``text`` has no words.
    """
    with importing("jiwer"):
        import jiwer

    from trainer.evaluate.wer_text import join_compounds, normalize

    reference = reference_words(text, language)
    hypothesis = normalize(transcript, language)
    if not hypothesis:
        return 1.0
    return float(jiwer.wer(*join_compounds(reference, hypothesis)))
