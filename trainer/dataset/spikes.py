"""Isolated spikes: single samples (or a few) that stand far out of the audio around them, and their repair.

A click, a dropout written as a huge float or one bad sample of an editor is not loud audio: measured as it is,
one sample of 40.0 raises a clip's loudness and rules its peak, so a gain chosen from either turns the speech
down by 30 dB and keeps the click. A sample is part of a spike when its magnitude is at least ``SPIKE_RATIO``
times the largest magnitude within ``CONTEXT_S`` on either side of it, leaving out ``GUARD_S`` next to it (so a
spike a few samples wide does not hide behind its own samples), and at least ``SPIKE_FLOOR``. Speech loud
throughout has neighbours as loud as its peaks and is no spike, whatever its level.

The repair interpolates each spike linearly from the samples on either side of it, as a declicker does (Godsill
and Rayner, "Digital Audio Restoration", 1998, ch. 5: detect, then replace the corrupted samples from their
neighbours; linear interpolation is its simplest replacement, enough for a spike a fraction of a millisecond
long).
"""

from __future__ import annotations

import numpy as np

from engines.imports import importing

SPIKE_RATIO = 10.0
"""A spike is at least 10 times (20 dB) louder than everything within ``CONTEXT_S`` of it. Measured on the shared
corpus (tests/test_spikes.py): across the ten real 16 kHz clips, the 44 s reading at 48 kHz and the 240 clips of
the target voice, the largest ratio of any sample of -40 dBFS or more to its surroundings was 6.0 (15.5 dB: a
faint click of the recording itself, -22 dBFS, 0.12 s into cards/002.wav), the next 5.5."""
CONTEXT_S = 0.010
"""How far either side the surroundings reach (10 ms: one to three pitch periods of a voice, so a voiced peak
always has a neighbour of its size)."""
GUARD_S = 0.0005
"""Samples this close to a sample (0.5 ms) are left out of its surroundings: a spike up to this long is found."""
SPIKE_FLOOR = 0.01
"""A spike is at least this magnitude (-40 dBFS): smaller ticks in a quiet stretch rule no level measure."""


def spike_mask(audio: np.ndarray, rate: int) -> np.ndarray:
    """True at the samples of isolated spikes (see the module docstring).

    Args:
        audio: float32 ``[frames]`` or ``[frames, channels]`` (each channel on its own), finite.
        rate: Hz (the surroundings are measured in seconds).
    Returns:
        bool, the shape of ``audio``.
    """
    if audio.ndim == 2:
        return np.stack([spike_mask(audio[:, c], rate) for c in range(audio.shape[1])], axis=1)
    magnitude = np.abs(audio)
    return (magnitude >= SPIKE_FLOOR) & (magnitude >= SPIKE_RATIO * _surroundings(magnitude, rate))


def _surroundings(magnitude: np.ndarray, rate: int) -> np.ndarray:
    """Largest magnitude within ``CONTEXT_S`` before and after each sample, without the ``GUARD_S`` next to it
    (0 beyond the ends); ``[N]`` -> ``[N]``, in O(N) (one running maximum, read at two offsets as slices)."""
    with importing("scipy.ndimage"):
        from scipy.ndimage import maximum_filter1d

    reach, guard = max(2, round(CONTEXT_S * rate)), max(1, round(GUARD_S * rate))
    width = reach - guard  # each side's window: [n - reach, n - guard - 1] and [n + guard + 1, n + reach]
    running = maximum_filter1d(magnitude, width, mode="constant", cval=0.0)  # centred at width // 2
    padded = np.concatenate([np.zeros(reach + width, magnitude.dtype), running, np.zeros(reach + width, running.dtype)])
    before, after = width + width // 2, reach + width + guard + 1 + width // 2  # sample n sits at reach + width + n
    return np.maximum(padded[before : before + len(magnitude)], padded[after : after + len(magnitude)])


def interpolate_spikes(audio: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray]:
    """``audio`` with its isolated spikes replaced by the line between the samples on either side of each.

    Args:
        audio: float32 ``[frames]`` or ``[frames, channels]``, finite.
        rate: Hz.
    Returns:
        The repaired audio (float32, same shape; the same array when there is no spike) and :func:`spike_mask`.
    """
    mask = spike_mask(audio, rate)
    if not mask.any():
        return audio, mask
    out = audio.copy()
    for channel, bad in ((out, mask),) if out.ndim == 1 else ((out[:, c], mask[:, c]) for c in range(out.shape[1])):
        if bad.any():
            where = np.arange(len(channel))
            channel[bad] = np.interp(where[bad], where[~bad], channel[~bad]) if (~bad).any() else 0.0
    return out, mask
