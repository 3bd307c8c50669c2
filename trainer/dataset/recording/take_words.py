"""A take's findings in words for the person who has just recorded it ("This take clipped 120 samples — lower the
gain and retake?"), where the dataset's sentences (``trainer.dataset.finding_words``) speak of a file in a dataset
and its fixes. The checks are the same (``trainer.dataset.health`` and the booth's own in ``takes``); only the
words differ. A kind without a take's sentence here keeps the dataset's, after "This take:".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from trainer.dataset.analysis import DC_LIMIT
from trainer.dataset.bandwidth import kilohertz

FINE = "This take is fine."
RETAKE = "retake?"


def _clipped(v: Mapping[str, Any]) -> str:
    samples = round(v["fraction"] * v["take_samples"])
    return f"This take clipped {samples:,} samples at full scale ({v['fraction']:.1%}) — lower the gain and {RETAKE}"


def _pace(v: Mapping[str, Any]) -> str:
    share, how = abs(v["pace"] / v["median"] - 1), "faster" if v["pace"] > v["median"] else "slower"
    return (
        f"This take was read {share:.0%} {how} than your median ({v['pace']:.1f} against {v['median']:.1f} phonemes "
        f"a second) — at your usual pace, {RETAKE}"
    )


def _broken(v: Mapping[str, Any]) -> str:
    return (
        f"This take has {v['samples']:,} broken samples (not numbers, or beyond full scale): the input device or its "
        f"driver sent them — {RETAKE}"
    )


_SENTENCES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "silent": lambda v: (
        f"This take has no speech in its {v['duration_s']:.1f} s — check that the microphone chosen is the one you "
        f"speak into and is not muted, and {RETAKE}"
    ),
    "too_short": lambda v: (
        f"This take has {v['span_s']:.2f} s of speech, under one {v['segment_s']:.2f} s training segment — did it "
        f"stop early? {RETAKE.capitalize()}"
    ),
    "too_fast": lambda v: (
        f"This take is shorter than its text needs ({v['frames']} frames for {v['phoneme_ids']} phoneme ids) — did "
        f"it stop early? {RETAKE.capitalize()}"
    ),
    "too_long": lambda v: (
        f"This prompt is too long for one clip ({v['phoneme_ids']} phoneme ids, the limit is {v['limit']}) — skip it"
    ),
    "clipped": _clipped,
    "out_of_range": _broken,
    "non_finite": _broken,
    "denormals": lambda v: f"This take has {v['samples']:,} denormal samples (the input's driver) — {RETAKE}",
    "isolated_spikes": lambda v: f"This take has {v['samples']:,} clicks louder than the speech — {RETAKE}",
    "dc_offset": lambda v: (
        f"This take sits off centre (DC offset {v['offset']:+.3f}, the limit is ±{DC_LIMIT}): the microphone's "
        "input adds it; Normalize loudness removes it — accept, or check the interface"
    ),
    "narrow_band": lambda v: (
        f"This take is {kilohertz(v['width'])} wide, for a voice at {v['voice_rate']:,} Hz — capture at a higher "
        "rate, or with another microphone"
    ),
    "missing_symbols": lambda v: f"This prompt has sounds the voice lacks ({v['symbols']}) — skip it",
    "ambiguous_text": lambda v: (
        f"This prompt reads two ways ({v['readings']}); the voice learns the first — if you read the other, {RETAKE}"
    ),
    "too_quiet": lambda v: (
        f"This take is quiet (speech at {v['lufs']:.0f} LUFS, under {v['limit']:.0f}) — move closer or raise the "
        f"gain, and {RETAKE}"
    ),
    "pace": _pace,
    "misread": lambda v: (
        f"This take may not say the prompt: the recognizer heard {v['heard']!r} (word error rate {v['wer']:.2f}) — "
        f"listen, or {RETAKE}"
    ),
}


def take_sentence(kind: str, values: Mapping[str, Any], message: str, take_samples: int) -> str:
    """The sentence for a finding of ``kind`` with ``values`` in a take of ``take_samples`` samples; ``message``
    (the dataset's sentence) after "This take:" for a kind this module does not word."""
    words = _SENTENCES.get(kind)
    return words({**values, "take_samples": take_samples}) if words else f"This take: {message}"
