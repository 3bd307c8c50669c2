"""One-click fixes on a clip's audio: pure functions from samples to samples.

Each takes and returns float32 ``[frames]`` (mono) or ``[frames, channels]``; the
caller writes results to the curated copy, never to the original.

- Resampling: soxr's VHQ polyphase resampler.
- Repair (before loudness normalization): NaN and infinite samples, corrupt values
  (beyond ``analysis.CORRUPT_PEAK``) and float32 denormals become 0, isolated spikes
  (``trainer.dataset.spikes``: a click of 40.0 in speech) are interpolated from their
  neighbours, so the loudness and the peak the gain is chosen from are the speech's; then a
  DC offset over ``analysis.DC_LIMIT`` (float64 mean of the repaired samples) is subtracted.
  A clip loud throughout has no isolated spike: the normalization's gain scales it whole.
- Loudness normalization: gain to a target integrated loudness (ITU-R BS.1770-4,
  via ``pyloudnorm``), then a peak limit by further gain reduction (no clipping,
  no limiter coloration: the clip only gets quieter to respect the peak).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from engines.imports import importing

DEFAULT_TARGET_LUFS = -23.0
"""EBU R 128's programme loudness target."""
QUIETEST_TAKE_LUFS = DEFAULT_TARGET_LUFS - 17.0
"""Integrated loudness, LUFS, under which a recorded or distilled take is too quiet (-40): 17 dB under the level
Normalize loudness brings clips to, so normalizing it would raise the room's noise as much; quieter, the take is
mostly its noise floor (``trainer.dataset.recording.takes``, ``trainer.dataset.distil.judge``)."""
DEFAULT_PEAK_DBFS = -1.0


def downmix(audio: np.ndarray) -> np.ndarray:
    """Average channels: ``[frames, channels]`` -> ``[frames]`` (mono passes through)."""
    return audio if audio.ndim == 1 else audio.mean(axis=1).astype(np.float32)


def resample(audio: np.ndarray, rate: int, target_rate: int) -> np.ndarray:
    """Resample to ``target_rate`` Hz with soxr (VHQ); the length scales by target_rate / rate."""
    with importing("soxr"):
        import soxr

    if rate == target_rate:
        return audio
    return soxr.resample(audio, rate, target_rate, quality="VHQ").astype(np.float32)


RESAMPLED_CEILING_DBFS = -0.1
"""Where a resampled clip's peak is held when resampling rang over full scale: a clip peaking at 1.0 at 16 kHz
peaks at about 1.04 once upsampled (the band-limited signal between its samples shows), which the health checks
would leave out as "beyond full scale" (measured on the shared corpus's real 16 kHz recordings, 2026-12-03)."""


def hold_peak(audio: np.ndarray, ceiling_dbfs: float = RESAMPLED_CEILING_DBFS) -> tuple[np.ndarray, float]:
    """``audio`` scaled down to peak at ``ceiling_dbfs`` when it peaks over full scale (1.0), else as it is;
    returns the audio (float32) and the gain applied in dB (0.0 when none)."""
    peak = float(np.abs(audio).max()) if audio.size else 0.0
    if peak <= 1.0:
        return audio, 0.0
    gain_db = ceiling_dbfs - 20 * float(np.log10(peak))
    return (audio * np.float32(10 ** (gain_db / 20))).astype(np.float32), gain_db


TRIM_LEAST_S = 0.032
"""The least silence a trim cuts at either end, seconds: one Silero VAD window (512 samples at 16 kHz,
``trainer.dataset.vad.WINDOW``), the step in which the speech span is found. A trimmed clip measured again finds
its speech within a window of where it was, so a second trim cuts nothing (it shaved a few ms each time)."""


def trim(
    audio: np.ndarray,
    rate: int,
    speech_start_s: float | None,
    speech_end_s: float | None,
    margin_s: float = 0.15,
    least_s: float = TRIM_LEAST_S,
) -> np.ndarray:
    """Cut leading and trailing silence, keeping ``margin_s`` seconds around the speech span; an end is cut only
    where that removes at least ``least_s`` seconds (so trimming is idempotent).

    With no speech span (``None``), the audio is returned unchanged (the same array when nothing is cut).
    """
    if speech_start_s is None or speech_end_s is None:
        return audio
    start = max(0, int((speech_start_s - margin_s) * rate))
    end = min(len(audio), int(np.ceil((speech_end_s + margin_s) * rate)))
    least = int(least_s * rate)
    start = start if start >= least else 0
    end = end if len(audio) - end >= least else len(audio)
    return audio if (start, end) == (0, len(audio)) else audio[start:end]


def repair(audio: np.ndarray, rate: int) -> tuple[np.ndarray, list[str]]:
    """Corrupt samples (NaN, inf, or beyond ``analysis.CORRUPT_PEAK``) and denormals set to 0, isolated spikes
    interpolated over, then a DC offset over ``DC_LIMIT`` (the float64 mean of the repaired samples) subtracted.

    Args:
        audio: float32 ``[frames]`` or ``[frames, channels]``.
        rate: Hz (a spike's surroundings are measured in seconds).
    Returns:
        The audio (float32, same shape) and what was done, for the clip's ``edits`` (empty: unchanged).
    """
    from trainer.dataset.analysis import DC_LIMIT

    audio, edits = _zero_broken(audio)
    audio, spike_edits = _interpolate_spikes(audio, rate)
    edits += spike_edits
    offset = float(np.mean(audio, dtype=np.float64)) if audio.size else 0.0
    if abs(offset) > DC_LIMIT:
        audio = (audio.astype(np.float64) - offset).astype(np.float32)
        edits.append(f"remove DC offset {offset:+.3f}")
    return audio, edits


def _zero_broken(audio: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """NaN/inf, corrupt (beyond ``CORRUPT_PEAK``) and denormal samples set to 0, and the edits saying so."""
    from trainer.dataset.analysis import CORRUPT_PEAK, FLOAT32_TINY, corrupt_mask

    finite = np.isfinite(audio)
    with np.errstate(invalid="ignore"):
        tiny = (audio != 0) & (np.abs(audio) < FLOAT32_TINY)
    edits, zero = [], np.zeros(audio.shape, dtype=bool)
    for mask, what in (
        (~finite, "NaN/infinite samples"),
        (corrupt_mask(audio) & finite, f"corrupt samples (beyond +-{CORRUPT_PEAK:g})"),
        (tiny, "denormal samples"),
    ):
        if mask.any():
            edits.append(f"set {int(mask.sum()):,} {what} to 0")
            zero |= mask
    if zero.any():
        audio = np.where(zero, np.float32(0), audio).astype(np.float32)
    return audio, edits


def _interpolate_spikes(audio: np.ndarray, rate: int) -> tuple[np.ndarray, list[str]]:
    """Isolated spikes replaced by the line between their neighbours (``trainer.dataset.spikes``), and the edit:
    "set 1 isolated spike sample over full scale (peak 40) to the line between its neighbours"."""
    from trainer.dataset.spikes import interpolate_spikes

    repaired, mask = interpolate_spikes(audio, rate)
    n = int(mask.sum())
    if not n:
        return audio, []
    peak = float(np.abs(audio[mask]).max())
    said = f"{n:,} isolated spike sample{'s' if n > 1 else ''}" + (" over full scale" if peak > 1.0 else "")
    return repaired, [f"set {said} (peak {peak:.3g}) to the line between {'its' if n == 1 else 'their'} neighbours"]


def normalize_loudness(
    audio: np.ndarray, rate: int, target_lufs: float = DEFAULT_TARGET_LUFS, peak_dbfs: float = DEFAULT_PEAK_DBFS
) -> tuple[np.ndarray, float]:
    """Scale to ``target_lufs`` without letting the peak exceed ``peak_dbfs``; returns audio and gain in dB.

    Clips too short or silent to measure are only peak-limited.
    """
    from trainer.dataset.analysis import loudness

    measured = loudness(downmix(audio), rate)
    gain_db = 0.0 if measured is None else target_lufs - measured
    peak = float(np.abs(audio).max()) if audio.size else 0.0
    if peak > 0:
        gain_db = min(gain_db, peak_dbfs - 20 * np.log10(peak))
    return (audio * 10 ** (gain_db / 20)).astype(np.float32), float(gain_db)


FIX_WORDS = (
    ("trim", "trimmed"),
    ("normalize", "normalized"),
    ("resample", "resampled"),
    ("hold peak", "held under full scale after resampling"),
    ("set ", "repaired"),
)
"""Edit prefixes (``trainer.dataset.jobs.fix``) -> what a person reads ("2 clips normalized")."""


def summary(new_edits: Mapping[str, list[str]]) -> str:
    """What a run of fixes changed, with counts: ``{clip id: the edits it just got}`` ->
    "Fixed 2 clips: 2 normalized (gain -4.1 to +2.0 dB), 1 resampled (44,100 → 22,050 Hz); 1 unchanged";
    "Nothing to fix: 2 clips needed no change" where none changed.
    """
    from engines.words import count

    changed = {i: edits for i, edits in new_edits.items() if edits}
    if new_edits and not changed:  # a trim of clips without silence to cut, say
        return f"Nothing to fix: {count(len(new_edits), 'clip')} needed no change"
    parts = []
    for prefix, word in FIX_WORDS:
        hits = [e for edits in changed.values() for e in edits if e.startswith(prefix)]
        clips = sum(1 for edits in changed.values() if any(e.startswith(prefix) for e in edits))
        if clips:
            parts.append(f"{clips} {word}{_detail(prefix, hits)}")
    text = f"Fixed {count(len(changed), 'clip')}" + (f": {', '.join(parts)}" if parts else "")
    unchanged = len(new_edits) - len(changed)
    return text + (f"; {unchanged} unchanged (nothing to do)" if unchanged else "")


def _detail(prefix: str, edits: list[str]) -> str:
    """The numbers behind one kind of fix: the gain range of normalizations, the rates of resamplings."""
    if prefix == "normalize":
        gains = [float(e.split()[1]) for e in edits]
        low, high = min(gains), max(gains)
        return f" (gain {low:+.1f} dB)" if low == high else f" (gain {low:+.1f} to {high:+.1f} dB)"
    if prefix == "resample":
        return f" ({', '.join(dict.fromkeys(_rates(e.removeprefix('resample ')) for e in edits))})"
    return ""


def _rates(edit: str) -> str:
    """``"32000 -> 22050 Hz"`` (as manifests of earlier versions hold it) or ``"32,000 → 22,050 Hz"`` ->
    ``"32,000 → 22,050 Hz"``."""
    parts = edit.replace("→", "->").removesuffix(" Hz").split(" -> ")
    if len(parts) != 2 or not all(p.replace(",", "").isdigit() for p in parts):
        return edit
    low, high = (int(p.replace(",", "")) for p in parts)
    return f"{low:,} → {high:,} Hz"


def apply_and_describe(project, clip_ids: list[str] | None = None, **fixes) -> str:
    """``project.apply_fixes(clip_ids, **fixes)`` (a ``trainer.dataset.project.DatasetProject``), then
    :func:`summary` of what it changed.

    Raises:
        Cancelled: as ``apply_fixes`` (its message says how many clips were fixed).
    """
    before = {c.id: len(c.edits) for c in project.clips.values()}
    fixed = project.apply_fixes(clip_ids, **fixes)
    said = summary({i: project.clips[i].edits[before[i] :] for i in fixed})
    return said + _no_band_added([project.clips[i].analysis for i in fixed], fixes.get("resample_to"))


def _no_band_added(analyses: list, rate: int | None) -> str:
    """``"; resampling adds no band: 10 clips are still 7.5–7.9 kHz wide (see the report)"`` where clips
    resampled to ``rate`` Hz are narrow for it (``trainer.dataset.bandwidth``), else ``""``."""
    from engines.words import count
    from trainer.dataset.bandwidth import is_narrow, width_range

    widths = [a["bandwidth_hz"] for a in analyses if a and rate and is_narrow(a.get("bandwidth_hz"), rate)]
    if not widths:
        return ""
    clips = f"{count(len(widths), 'clip')} {'is' if len(widths) == 1 else 'are'}"
    return f"; resampling adds no band: {clips} still {width_range(widths)} wide (see the report)"
