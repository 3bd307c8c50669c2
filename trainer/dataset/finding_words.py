"""Health findings in words for people: a short label per kind, and one sentence per finding that states its
number and the fix ("0.80 s of speech, 0.57 s short of one 1.37 s training segment: merge it with the next
clip or exclude it").

:func:`sentence` maps a finding kind and its values (``trainer.dataset.health.Finding.values``) to that
sentence; the table, its tooltips, the report and the ``voice-studio dataset`` command all use it, so no
raw kind name (``too_long``) reaches a person. Every kind of ``trainer.dataset.health`` is in ``LABELS`` and
``_SENTENCES`` (a test walks them all).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engines.words import count
from engines.words import sentence as sentence_case
from trainer.dataset.analysis import CORRUPT_PEAK, DC_LIMIT
from trainer.dataset.bandwidth import clip_advice, kilohertz
from trainer.dataset.spikes import CONTEXT_S, SPIKE_RATIO

LEFT_OUT = "left out of export and the training cache"

LABELS = {
    "unreadable": "unreadable",
    "no_text": "no text",
    "unreviewed": "draft text",
    "silent": "no speech",
    "too_short": "too short",
    "too_long": "too many phonemes",
    "too_fast": "text longer than audio",
    "non_finite": "NaN samples",
    "out_of_range": "over full scale",
    "dc_offset": "DC offset",
    "denormals": "denormal samples",
    "isolated_spikes": "clicks",
    "clipped": "clipping",
    "missing_symbols": "unknown phonemes",
    "ambiguous_text": "ambiguous text",
    "no_speaker": "no speaker",
    "narrow_band": "narrow band",
    "rate_outlier": "unusual speaking rate",
    "duplicate_text": "same text twice",
    "duplicate_audio": "same audio twice",
}
"""Finding kind -> a short label (the table's warnings column, the report's headings)."""


def _n(n: int, noun: str) -> str:
    """``engines.words.count`` with thousands separated: "1 sample", "1,234 samples"."""
    return count(n, noun).replace(str(n), f"{n:,}", 1)


def _out_of_range(v: Mapping[str, Any]) -> str:
    """Corrupt values, isolated spikes (``spikes`` of the ``samples``: interpolated over) or a clip loud
    throughout (scaled)."""
    said = f"peak {v['peak']:.4g} ({v['peak_dbfs']:+.1f} dBFS), {_n(v['samples'], 'sample')} over full scale (1.0)"
    spikes = v.get("spikes", 0)
    if v["peak"] > CORRUPT_PEAK:
        return (
            f"{said}: corrupt sample values (beyond {CORRUPT_PEAK:g}), not loud audio; {LEFT_OUT}. "
            "Normalize loudness sets them to 0, then normalizes the rest: listen to the result"
        )
    if spikes and spikes >= v["samples"]:
        them = "it" if spikes == 1 else "them"
        return (
            f"{said}: {'an isolated spike' if spikes == 1 else 'isolated spikes'} in the audio around {them} "
            f"(a click), not loud audio; {LEFT_OUT}. Normalize loudness interpolates over {them}, then normalizes "
            "the rest"
        )
    if spikes:
        return (
            f"{said}, {spikes:,} of them in isolated spikes; {LEFT_OUT}. Normalize loudness interpolates over those "
            "and scales the rest under -1 dBFS"
        )
    return f"{said}; {LEFT_OUT}. Normalize loudness scales it under -1 dBFS"


def _clicks(v: Mapping[str, Any]) -> str:
    """Isolated spikes within full scale: how many, what makes them spikes, and the fix."""
    one = v["samples"] == 1
    it, them = ("it", "it") if one else ("they", "them")
    return (
        f"{_n(v['samples'], 'isolated spike sample')} ({'a click' if one else 'clicks'}), {SPIKE_RATIO:g} times or "
        f"more as loud as the audio within {CONTEXT_S * 1000:g} ms of {them}: {it} "
        f"rule{'s' if one else ''} the clip's peak. Normalize loudness interpolates over {them}"
    )


def _narrow_band(v: Mapping[str, Any]) -> str:
    """A clip narrower than its voice's band: its width, its rate, the voice's, and the way on."""
    width, voice = v["width"], v["voice_rate"]
    return (
        f"{kilohertz(width)} wide (measured; a {v['rate']:,} Hz recording), for a voice at {voice:,} Hz "
        f"(up to {kilohertz(voice / 2)}): the voice learns an empty band above {kilohertz(width)} from it. "
        f"{sentence_case(clip_advice(width, voice))}"
    )


def _too_short(v: Mapping[str, Any]) -> str:
    short = v["segment_s"] - v["span_s"]
    return (
        f"{v['span_s']:.2f} s of speech, {short:.2f} s short of one {v['segment_s']:.2f} s training segment: "
        "merge it with a neighbouring clip or exclude it"
    )


_SENTENCES: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "unreadable": lambda v: f"cannot be read ({v['error']}): replace the recording, or exclude the clip",
    "no_text": lambda v: "no transcript: type what is said, or exclude the clip",
    "unreviewed": lambda v: (
        "draft text from the recognizer, not confirmed by a person: correct it, then Confirm it "
        "(Confirm texts, or voice-studio dataset confirm)"
    ),
    "silent": lambda v: f"no speech found in its {v['duration_s']:.2f} s: exclude it, or check the recording",
    "too_short": _too_short,
    "too_long": lambda v: (
        f"{v['phoneme_ids']} phoneme_ids, {v['phoneme_ids'] - v['limit']} more than the limit of {v['limit']}: "
        "split the clip or exclude it"
    ),
    "too_fast": lambda v: (
        f"{v['phoneme_ids']} phoneme_ids but only {v['frames']} spectrogram frames in {v['s']:.2f} s: the "
        "transcript says more than the recording (training needs a frame for each of them); fix the text or "
        "exclude the clip"
    ),
    "non_finite": lambda v: (
        f"{_n(v['samples'], 'NaN or infinite sample')}: {LEFT_OUT}. Normalize loudness sets them to 0"
    ),
    "out_of_range": _out_of_range,
    "dc_offset": lambda v: (
        f"DC offset {v['offset']:+.3f} (mean sample; the limit is ±{DC_LIMIT}): Normalize loudness removes it"
    ),
    "denormals": lambda v: (
        f"{_n(v['samples'], 'denormal sample')} (slow arithmetic): Normalize loudness sets them to 0"
    ),
    "isolated_spikes": _clicks,
    "clipped": lambda v: (
        f"{v['fraction']:.1%} of samples at full scale (clipping): listen, and re-record or exclude it if distorted"
    ),
    "missing_symbols": lambda v: (
        f"{_n(v['count'], 'phoneme')} not in the voice's map ({v['symbols']}): correct the text, or exclude the clip"
    ),
    "ambiguous_text": lambda v: (
        f"{v['readings']}: training teaches the voice the first reading; if the recording says the other, correct "
        "the transcript to its words"
    ),
    "no_speaker": lambda v: (
        f"no speaker, in a project with {v['speakers']} speakers ({v['names']}): {LEFT_OUT}. "
        "Give it one with Set speaker… (Dataset page) or voice-studio dataset speaker"
    ),
    "narrow_band": _narrow_band,
    "rate_outlier": lambda v: (
        f"{v['rate']:.1f} phonemes/s, outside the project's usual {v['low']:.1f}–{v['high']:.1f}: check the "
        "text matches the audio, or trim long pauses"
    ),
    "duplicate_text": lambda v: f"same text as clip {v['other']}: exclude one, unless you want both readings",
    "duplicate_audio": lambda v: f"same audio as clip {v['other']}: exclude the copy",
}

KINDS = tuple(LABELS)
"""Every health finding kind."""


def sentence(kind: str, values: Mapping[str, Any]) -> str:
    """The sentence for a finding of ``kind`` with ``values`` (the numbers it found, see
    ``trainer.dataset.health``): what is wrong, by how much, and the fix.

    Raises:
        KeyError: an unknown kind, or a value the kind's sentence needs is missing.
    """
    return _SENTENCES[kind](values)


def label(kind: str) -> str:
    """The short label of ``kind`` ("too_short" -> "too short"); an unknown kind is returned as is."""
    return LABELS.get(kind, kind)
