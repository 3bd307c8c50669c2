"""A recording's real bandwidth, measured from its spectrum (not its header), and what it means for a voice's rate.

A 16,000 Hz recording holds nothing above 8 kHz, and upsampled to 22,050 or 48,000 Hz it still does not: its
header then says 22,050 but its band ends where the first anti-aliasing filter cut it. A voice trained at
22,050 Hz (up to 11,025 Hz) on such clips learns that the band above 8 kHz is empty, and sounds muffled.

:func:`bandwidth_hz` is a spectral roll-off: the long-term average spectrum (Welch's method, Hann windows of
about ``RESOLUTION_HZ``) is compared with its mean power in the telephone speech band (``SPEECH_BAND``,
300-3,400 Hz, ITU-T G.712), and the bandwidth is the first frequency above that band where it falls more than
``DROP_DB`` below it. Scanning up from the speech band, the first fall counts: noise or coding artefacts above a
filter's cut (a 48 kHz file with a 16 kHz past) do not extend it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

import numpy as np

SPEECH_BAND = (300.0, 3400.0)
"""Hz: the telephone band (ITU-T G.712), where every recording of speech has its energy."""
DROP_DB = 50.0
"""The band ends where the long-term spectrum falls 50 dB below the speech band's mean power. Measured on the
shared corpus (tests/test_bandwidth.py): all 240 clips of the target voice at 32 kHz measure 15.0-16.0 kHz wide
(10.68-10.85 kHz resampled to 22,050 Hz), while the ten real 16 kHz recordings and the target voice taken down
to 16 kHz, then upsampled to 22,050 Hz with soxr, measure 7.5-7.9 kHz, float or 16-bit (at 30 dB one target clip
measured 4.5 kHz; at 70 dB a 16 kHz past hidden in a 48 kHz file measured 12.3 kHz: 50 dB sits between)."""
RESOLUTION_HZ = 250.0
"""Welch segments are the power of two of samples nearest above 2 x rate / 250 (86-125 Hz bins at 16-48 kHz)."""
NARROW_FRACTION = 0.8
"""A clip narrower than 80% of a voice's Nyquist frequency (8,820 Hz at 22,050 Hz) leaves the voice an empty top
band. Resampled to 22,050 Hz, the 32 kHz corpus measures 10.7 kHz (97%), 16 kHz recordings at most 8.0 (73%)."""
LOW_RATE = 16000
"""Piper's rate for its x-low and low qualities (its medium and high voices are 22,050 Hz)."""
MEASURED_CLIPS = 200
"""At most this many clips of a training cache or a Piper folder are measured for their bandwidth before a run
(:func:`spread` evenly; a project's clips were measured at import)."""


def bandwidth_hz(mono: np.ndarray, rate: int) -> float | None:
    """The highest frequency (Hz) up to which the long-term spectrum stays within ``DROP_DB`` of the speech band.

    Args:
        mono: float32 ``[N]`` at ``rate`` Hz, finite.
    Returns:
        Hz (``rate / 2`` when it never falls that far), or ``None`` for digital silence or a clip shorter than
        one Welch segment.
    """
    with_bins = _long_term_spectrum(mono, rate)
    if with_bins is None:
        return None
    freqs, power = with_bins
    band = (freqs >= SPEECH_BAND[0]) & (freqs <= SPEECH_BAND[1])
    reference = float(power[band].mean())
    if reference <= 0:
        return None
    fallen = np.flatnonzero((freqs > SPEECH_BAND[1]) & (power < reference * 10 ** (-DROP_DB / 10)))
    return float(freqs[fallen[0]]) if len(fallen) else rate / 2


def _long_term_spectrum(mono: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Welch's power spectral density ``(freqs [K] Hz, power [K] per Hz)``, or ``None`` for a clip under one segment.

    Welch (1967): the mean periodogram of periodic-Hann-windowed segments overlapping by half, each with its mean
    removed, one-sided and scaled to a density: ``scipy.signal.welch(mono, rate, window="hann", nperseg=segment)``
    to float64 rounding (tests/test_bandwidth.py), in a sixth of its time (4.5 against 27 ms for a 2.8 s clip at
    32 kHz: scipy frames through ``ShortTimeFFT`` and detrends with a second pass).
    """
    segment = 2 ** math.ceil(math.log2(2 * rate / RESOLUTION_HZ))
    if len(mono) < segment:
        return None
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(segment) / segment)
    frames = np.lib.stride_tricks.sliding_window_view(np.asarray(mono, dtype=np.float64), segment)[:: segment // 2]
    frames = frames - frames.mean(axis=1, keepdims=True)
    power = np.mean(np.abs(np.fft.rfft(frames * window, axis=1)) ** 2, axis=0) / (rate * float(window @ window))
    power[1:-1] *= 2  # one-sided: the negative frequencies' share (not DC, not Nyquist: the segment is even)
    return np.fft.rfftfreq(segment, 1 / rate), power


def spread(total: int) -> list[int]:
    """Up to ``MEASURED_CLIPS`` indices spread evenly over ``range(total)``."""
    return sorted({int(i) for i in np.linspace(0, total - 1, min(total, MEASURED_CLIPS))}) if total else []


def measured_bands(clips: Iterable[tuple[np.ndarray, int]]) -> list[tuple[float, int]]:
    """``(bandwidth Hz, rate Hz)`` of each ``(mono [N], rate Hz)`` clip that has one (not silent, not too short)."""
    bands = ((bandwidth_hz(np.asarray(mono, np.float32), rate), rate) for mono, rate in clips)
    return [(width, rate) for width, rate in bands if width is not None]


def folder_bands(folder: Path, ids: list[str]) -> list[tuple[float, int]]:
    """:func:`measured_bands` of a Piper folder's recordings of ``ids`` (``trainer.dataset.sources.find_audio``;
    a :func:`spread` of them); a file missing or unreadable is left to the import to name."""
    from trainer.dataset.probe import ClipError, load
    from trainer.dataset.sources import find_audio

    def read(clip_id: str) -> tuple[np.ndarray, int] | None:
        path = find_audio(folder, clip_id)
        if path is None:
            return None
        try:
            audio, info = load(path)
        except ClipError:
            return None
        return audio.mean(axis=1), info.sample_rate  # [frames, channels] -> mono

    return measured_bands(clip for clip in (read(ids[i]) for i in spread(len(ids))) if clip is not None)


def is_narrow(bandwidth: float | None, voice_rate: int) -> bool:
    """Whether a clip ``bandwidth`` Hz wide leaves a voice at ``voice_rate`` Hz an empty top band
    (``NARROW_FRACTION`` of its Nyquist frequency); an unmeasured clip (``None``) is not."""
    return bandwidth is not None and bandwidth < NARROW_FRACTION * voice_rate / 2


def kilohertz(hz: float) -> str:
    """``7843.1`` -> ``"7.8 kHz"``."""
    return f"{hz / 1000:.1f} kHz"


def width_range(bandwidths: Iterable[float]) -> str:
    """``"7.5–7.9 kHz"`` (or ``"7.8 kHz"`` when all round alike) for measured widths in Hz."""
    widths = sorted(bandwidths)
    low, high = kilohertz(widths[0]), kilohertz(widths[-1])
    return high if low == high else f"{low.removesuffix(' kHz')}–{high}"


def rates_said(rates: Iterable[int]) -> str:
    """``"10 at 16,000 Hz, 2 at 44,100 Hz"``: how many clips are at each rate (from their headers), rate order."""
    from collections import Counter

    return ", ".join(f"{n} at {rate:,} Hz" for rate, n in sorted(Counter(rates).items()))


def fits_low_rate(widest: float, voice_rate: int) -> bool:
    """Whether a voice at ``LOW_RATE`` would hold all of clips at most ``widest`` Hz wide, where ``voice_rate`` is
    higher (a lower-rate voice is then the match)."""
    return voice_rate > LOW_RATE and widest <= LOW_RATE / 2


def clip_advice(width: float, voice_rate: int) -> str:
    """The way on for one narrow clip, in a few words (the dataset's :func:`narrow_advice` has the command)."""
    if fits_low_rate(width, voice_rate):
        return f"a {LOW_RATE:,} Hz voice (Piper's x-low and low) would lose none of it; or keep it knowingly"
    return "record it wider, or keep it knowingly"


def narrow_advice(widest: float, voice_rate: int) -> str:
    """What to do about clips at most ``widest`` Hz wide for a voice at ``voice_rate`` Hz: a 16,000 Hz voice where
    that loses none of their band (the presets that train one: ``trainer.run.presets.scratch_rate``), or else only
    going on knowingly."""
    if fits_low_rate(widest, voice_rate):
        return (
            f"a {LOW_RATE:,} Hz voice loses none of their band: train from scratch (not from a voice at a higher rate) "
            f"with the x-low or low preset, Piper's {LOW_RATE:,} Hz qualities (a project or a Piper folder is then "
            f"prepared at {LOW_RATE:,} Hz; a training cache keeps the rate it was built at: "
            f"`voice-studio dataset cache PROJECT --out CACHE --rate {LOW_RATE}`), or from a {LOW_RATE:,} Hz voice; "
            "or go on knowingly"
        )
    return "record or find wider recordings, or go on knowingly"


def narrow_sentence(widths: list[float], rates: list[int], voice_rate: int, who: str, total: int) -> str:
    """The dataset-level statement of narrow clips: how many, their rates (headers) and measured widths, what it
    means for ``who`` (a voice at ``voice_rate`` Hz) and the way on.

    Args:
        widths: measured bandwidths (Hz) of the narrow clips; rates: their sample rates (Hz), as their headers say.
        total: clips measured in all.
    """
    from engines.words import count

    nyquist, advice = voice_rate / 2, narrow_advice(max(widths), voice_rate)
    clips = count(len(widths), "clip") if len(widths) == total else f"{len(widths)} of {count(total, 'clip')}"
    return (
        f"{clips} ({rates_said(rates)}) {'is' if len(widths) == 1 else 'are'} only {width_range(widths)} wide "
        f"(measured: where their spectrum falls "
        f"{DROP_DB:g} dB below the speech band); {who} is at {voice_rate:,} Hz, up to {kilohertz(nyquist)}. "
        f"Trained on them, the voice learns an empty band from {kilohertz(max(widths))} to {kilohertz(nyquist)} and "
        f"sounds muffled; resampling adds no band. {advice[0].upper()}{advice[1:]}."
    )
