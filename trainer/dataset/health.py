"""Dataset-level checks: everything the trainer would skip or choke on, and why.

Works on per-clip measurements (``trainer.dataset.analysis``) and needs no audio.
Speaking-rate outliers use Tukey's fences: below Q1 - 1.5 IQR or above Q3 + 1.5 IQR
(Tukey, "Exploratory Data Analysis", 1977).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from trainer.dataset.analysis import DC_LIMIT, ClipAnalysis
from trainer.dataset.bandwidth import is_narrow
from trainer.dataset.finding_words import sentence

SEGMENT_S = 8192 / 22050
"""Piper's training segment (``segment_size`` 8,192 samples at 22,050 Hz), seconds."""
MAX_PHONEME_IDS = 400
FRAMES_PER_S = 22050 / 256
"""Spectrogram frames per second of audio at Piper's ``sample_rate`` 22,050 Hz and ``hop_length`` 256: MAS needs
at least one frame per phoneme_id (``trainer.data.datamodule.alignable``)."""
CLIPPED_LIMIT = 0.001
"""More than this share of full-scale samples counts as clipping."""
BROKEN_AUDIO = frozenset({"non_finite", "out_of_range"})
"""Finding kinds of broken sample values: such a clip's measures are absurd (a 1e30 sample: +562 LUFS)."""


@dataclass(frozen=True)
class ClipRecord:
    """What the checks need of one clip.

    Attributes:
        id: the clip's id.
        text: transcript, or ``None``.
        analysis: measurements, or ``None`` when the clip could not be read.
        error: why the clip could not be read.
        audio_hash: digest of the decoded samples, to find duplicate audio.
        reviewed: False for a draft transcript (from a recognizer) that no person has confirmed.
        speaker: the speaker's name, or ``None`` (``""`` counts as none).
    """

    id: str
    text: str | None
    analysis: ClipAnalysis | None = None
    error: str | None = None
    audio_hash: str | None = None
    reviewed: bool = True
    speaker: str | None = None


@dataclass(frozen=True)
class Finding:
    """One problem with one clip. ``blocking`` findings make the trainer skip the clip.

    Attributes:
        clip_id, kind: the clip, and what is wrong (a key of ``trainer.dataset.finding_words.LABELS``).
        message: the sentence a person reads (``finding_words.sentence(kind, values)``).
        blocking: the trainer skips the clip.
        values: the numbers found (seconds, counts, limits), by name.
    """

    clip_id: str
    kind: str
    message: str
    blocking: bool = True
    values: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)


def _finding(clip_id: str, kind: str, blocking: bool = True, **values: Any) -> Finding:
    """A finding whose message is ``finding_words.sentence(kind, values)``."""
    return Finding(clip_id, kind, sentence(kind, values), blocking, values)


def check(
    records: list[ClipRecord],
    segment_s: float = SEGMENT_S,
    max_phoneme_ids: int = MAX_PHONEME_IDS,
    voice_rate: int | None = None,
    language: str | None = None,
) -> list[Finding]:
    """All findings for a dataset, clip by clip, then across clips (rate outliers, duplicates).

    ``voice_rate``: the sample rate (Hz) of the voice the dataset is for; clips too narrow for it
    (``trainer.dataset.bandwidth.is_narrow``) are then warned of (``None``: not checked).
    ``language``: the language its texts are normalized for (``engines.phonemes.language_of``); texts whose
    normalization is ambiguous (``1/2``: a half, or January second?) are then warned of (``None``: not checked).
    """
    findings = [f for record in records for f in _clip_findings(record, segment_s, max_phoneme_ids)]
    findings += _narrow(records, voice_rate) if voice_rate else []
    findings += _ambiguous(records, language) if language is not None else []
    findings += _no_speaker(records)
    findings += _rate_outliers(records)
    findings += _duplicates(records, lambda r: " ".join((r.text or "").lower().split()) or None, "duplicate_text")
    findings += _duplicates(records, lambda r: r.audio_hash, "duplicate_audio")
    return findings


def _clip_findings(record: ClipRecord, segment_s: float, max_ids: int) -> list[Finding]:
    if record.error or record.analysis is None:
        return [_finding(record.id, "unreadable", error=record.error or "not analysed")]
    a, out = record.analysis, []
    if not record.text:
        out.append(_finding(record.id, "no_text"))
    elif not record.reviewed:
        out.append(_finding(record.id, "unreviewed"))
    span = a.speech_span_s
    if span is None:
        out.append(_finding(record.id, "silent", duration_s=a.duration_s))
    elif span < segment_s:
        out.append(_finding(record.id, "too_short", span_s=span, segment_s=segment_s))
    if a.num_phoneme_ids is not None and a.num_phoneme_ids > max_ids:
        out.append(_finding(record.id, "too_long", phoneme_ids=a.num_phoneme_ids, limit=max_ids))
    frames = int(a.duration_s * FRAMES_PER_S)
    if a.num_phoneme_ids is not None and a.num_phoneme_ids > frames:
        out.append(_finding(record.id, "too_fast", phoneme_ids=a.num_phoneme_ids, frames=frames, s=a.duration_s))
    out += _sample_findings(record.id, a)
    if a.clipped_fraction > CLIPPED_LIMIT and not a.over_full_scale:  # over full scale: out_of_range says it
        out.append(_finding(record.id, "clipped", False, fraction=a.clipped_fraction))
    if a.missing_symbols:
        symbols = ", ".join(f"{s!r} ×{n}" for s, n in sorted(a.missing_symbols.items()))
        out.append(_finding(record.id, "missing_symbols", False, count=len(a.missing_symbols), symbols=symbols))
    return out


def _sample_findings(clip_id: str, a: ClipAnalysis) -> list[Finding]:
    """NaN/inf and out-of-range samples (blocking: they would reach the spectrograms as inf), isolated spikes
    within full scale (clicks), DC offset and denormals (warnings). The Normalize loudness fix clears each of them
    (``trainer.dataset.fixes.repair``)."""
    out = []
    if a.nonfinite_samples:
        out.append(_finding(clip_id, "non_finite", samples=a.nonfinite_samples))
    if a.peak is not None and a.peak > 1.0:
        found = _finding(
            clip_id,
            "out_of_range",
            peak=a.peak,
            peak_dbfs=a.peak_dbfs,
            samples=a.over_full_scale,
            spikes=a.spike_over_full_scale,
        )
        out.append(found)
    if a.spike_samples > a.spike_over_full_scale:
        out.append(_finding(clip_id, "isolated_spikes", False, samples=a.spike_samples - a.spike_over_full_scale))
    if abs(a.dc_offset) > DC_LIMIT and a.clipped_fraction <= CLIPPED_LIMIT:
        # a clipped clip's mean moves without any DC in the chain: speech clips more on one side (slt_0001 at 3x
        # gain: 9% clipped, mean 0.010, median 0.0003), so the clipping finding says it and its fix
        out.append(_finding(clip_id, "dc_offset", False, offset=a.dc_offset))
    if a.denormal_samples:
        out.append(_finding(clip_id, "denormals", False, samples=a.denormal_samples))
    return out


def _narrow(records: list[ClipRecord], voice_rate: int) -> list[Finding]:
    """Clips whose measured bandwidth leaves a voice at ``voice_rate`` Hz an empty top band (warnings)."""
    return [
        _finding(r.id, "narrow_band", False, width=a.bandwidth_hz, rate=a.sample_rate, voice_rate=voice_rate)
        for r in records
        if (a := r.analysis) is not None and is_narrow(a.bandwidth_hz, voice_rate)
    ]


def _ambiguous(records: list[ClipRecord], language: str) -> list[Finding]:
    """Clips whose text the front end reads one way where a reader might mean another (warnings)."""
    from engines.frontend import normalize

    found = []
    for record in records:
        ambiguous = normalize(record.text, language).ambiguous if record.text else ()
        if ambiguous:
            readings = "; ".join(a.describe() for a in ambiguous)
            found.append(_finding(record.id, "ambiguous_text", False, readings=readings, count=len(ambiguous)))
    return found


def speakers(records: list[ClipRecord]) -> list[str]:
    """The speaker names the clips hold, sorted (empty for a dataset of one unnamed speaker)."""
    return sorted({r.speaker for r in records if r.speaker})


def _no_speaker(records: list[ClipRecord]) -> list[Finding]:
    """Clips without a speaker in a project whose other clips name two or more (blocking): the trainer
    cannot tell whose voice they are, and Piper would read an empty speaker field as one more speaker."""
    names = speakers(records)
    if len(names) < 2:
        return []
    shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
    return [_finding(r.id, "no_speaker", speakers=len(names), names=shown) for r in records if not r.speaker]


def rate_fences(rates: list[float]) -> tuple[float, float] | None:
    """Tukey's fences (Q1 - 1.5 IQR, Q3 + 1.5 IQR) for speaking rates; ``None`` for fewer than 4 values."""
    if len(rates) < 4:
        return None
    q1, q3 = np.percentile(rates, [25, 75])
    return q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)


def _rate_outliers(records: list[ClipRecord]) -> list[Finding]:
    rated = [
        (r.id, r.analysis.phonemes_per_second)
        for r in records
        if r.analysis is not None and r.analysis.phonemes_per_second is not None
    ]
    fences = rate_fences([rate for _, rate in rated])
    if fences is None:
        return []
    low, high = fences
    return [
        _finding(clip_id, "rate_outlier", False, rate=rate, low=low, high=high)
        for clip_id, rate in rated
        if not low <= rate <= high
    ]


def _duplicates(records, key, kind: str) -> list[Finding]:
    groups: dict[str, list[str]] = defaultdict(list)
    for record in records:
        value = key(record)
        if value is not None:
            groups[value].append(record.id)
    return [
        _finding(clip_id, kind, False, other=ids[0]) for ids in groups.values() if len(ids) > 1 for clip_id in ids[1:]
    ]
