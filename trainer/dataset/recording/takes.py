"""A take checked at once and written into the project as a curated clip with its confirmed text.

The checks are the dataset's own findings (``trainer.dataset.health``: silent, too short, clipped, DC offset,
broken samples…) plus three a booth needs: ``too_quiet`` (speech under ``QUIET_LUFS``), ``pace`` and ``misread``
(the best installed recognizer's round trip, ``trainer.evaluate.round_trip``, over its ``MISREAD_WER``: a take of
another text; a word or two slipped is not told from the recognizer's own errors, docs/benchmarks.md "Misread
threshold"); all are worded for a take just recorded (``take_words``), not for a file in a dataset.
A take is written atomically (``trainer.dataset.jobs.write_float_wav``, then the manifest), and a retake of the
same prompt replaces its clip: one clip per prompt, ``clip_id_for(text)``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from trainer.dataset.fixes import QUIETEST_TAKE_LUFS
from trainer.dataset.health import ClipRecord, Finding
from trainer.dataset.manifest import ClipEntry
from trainer.dataset.recording.take_words import FINE, take_sentence
from trainer.evaluate.round_trip import RoundTrip, round_trip

QUIET_LUFS = QUIETEST_TAKE_LUFS
"""Speech quieter than this, LUFS, is too quiet (``trainer.dataset.fixes.QUIETEST_TAKE_LUFS``)."""
PACE_LIMIT = 0.25
"""A take read more than this share faster or slower than the speaker's own median (phonemes per second of speech,
over the takes already accepted) is flagged: a voice learns its pace from the clips, and a rushed or dragged take
stands out. Needs ``PACE_TAKES`` takes to judge by."""
PACE_TAKES = 3
"""Accepted takes needed before the pace is judged."""
ORIGIN = "recorded"
"""``ClipEntry.text_origin`` of a take recorded in the booth."""


@dataclass(frozen=True, kw_only=True)
class TakeCheck:
    """What the checks found in one take: its ``analysis`` (a ``ClipAnalysis`` dict), the ``findings``, and what
    the recognizer ``heard`` with its ``wer`` (``None``: no recognizer for the language, ``note`` says why)."""

    analysis: dict[str, Any]
    findings: list[Finding] = field(default_factory=list)
    heard: str | None = None
    wer: float | None = None
    note: str = ""

    @property
    def kinds(self) -> list[str]:
        return [f.kind for f in self.findings]

    def lines(self) -> list[str]:
        """One sentence per finding, worded for the take (``take_words``); ``take_words.FINE`` when none."""
        return [f.message for f in self.findings] or [FINE]


def clip_id_for(text: str) -> str:
    """The clip id of a prompt's take: ``rec_`` and 10 hex digits of its text's SHA-1 (case and spacing aside)."""
    from trainer.dataset.prompts.corpus import text_key

    return "rec_" + hashlib.sha1(text_key(text).encode()).hexdigest()[:10]


def check_take(
    audio: np.ndarray, rate: int, text: str, voice_config: str, *, recognizer=None, median_pace: float | None = None
) -> TakeCheck:
    """Measure and check a take (float32 ``[N]`` at ``rate`` Hz) of ``text`` for the voice ``voice_config``.

    ``recognizer``: a ``trainer.dataset.recognizers.Recognizer`` (default: the best installed for the voice's
    language, ``trainer.evaluate.measures.wer_recognizer``). ``median_pace``: the speaker's median phonemes per
    second (:func:`median_pace`; ``None``: the pace is not judged).
    """
    from trainer.dataset import jobs
    from trainer.dataset.analysis import ClipAnalysis
    from trainer.dataset.health import check

    analysis = jobs.measure(audio, rate, text, voice_config)
    record = ClipRecord("take", text, ClipAnalysis(**analysis), audio_hash=jobs.audio_digest(audio))
    found = [(f.kind, f.blocking, f.values, f.message) for f in check([record]) if f.kind != "no_text"]
    loudness = analysis.get("loudness_lufs")
    if loudness is not None and loudness < QUIET_LUFS and analysis.get("speech_start_s") is not None:
        found.append(("too_quiet", False, {"lufs": loudness, "limit": QUIET_LUFS}, ""))
    found += _pace(analysis.get("phonemes_per_second"), median_pace)
    heard = _round_trip(audio, rate, text, voice_config, recognizer)
    if heard.misread:
        found.append(("misread", False, {"wer": heard.wer, "heard": heard.heard}, ""))
    findings = [
        Finding("take", kind, take_sentence(kind, values, message, len(audio)), blocking, values)
        for kind, blocking, values, message in found
    ]
    return TakeCheck(analysis=analysis, findings=findings, heard=heard.heard, wer=heard.wer, note=_no_round_trip(heard))


def median_pace(project) -> float | None:
    """The median phonemes per second of a ``DatasetProject``'s accepted takes (``None`` under ``PACE_TAKES``)."""
    paces = [
        c.analysis["phonemes_per_second"]
        for c in project.clips.values()
        if c.text_origin == ORIGIN and c.status == "ok" and (c.analysis or {}).get("phonemes_per_second")
    ]
    return float(np.median(paces)) if len(paces) >= PACE_TAKES else None


def _pace(pace: float | None, median: float | None) -> list[tuple[str, bool, dict[str, float], str]]:
    """A ``pace`` finding (kind, blocking, values, no dataset sentence) where ``pace`` is more than ``PACE_LIMIT``
    off ``median`` (phonemes per second)."""
    if not pace or not median or abs(pace / median - 1) <= PACE_LIMIT:
        return []
    return [("pace", False, {"pace": pace, "median": median}, "")]


def _round_trip(audio, rate, text, voice_config, recognizer) -> RoundTrip:
    """The recognizer round trip of a take (``trainer.evaluate.round_trip``) in the voice's language."""
    from trainer.dataset.jobs import phonemizer

    language = phonemizer(voice_config).language or "en"
    return round_trip(audio, rate, text, language=language, recognizer=recognizer)


def _no_round_trip(heard: RoundTrip) -> str:
    """Why a take has no WER, in words ("" when it has one)."""
    return f"no recognizer round trip: {heard.note}" if heard.note else ""


def write_take(project, text: str, audio: np.ndarray, rate: int, analysis: dict[str, Any]) -> ClipEntry:
    """Write a take of ``text`` (float32 ``[N]`` at ``rate`` Hz, measured as ``analysis``) into ``project`` (a
    ``trainer.dataset.project.DatasetProject``) as the prompt's curated clip with a confirmed text, replacing an
    earlier take of the same prompt; the WAV and then the manifest are written atomically."""
    from engines.files import sha256_file
    from trainer.dataset.jobs import audio_digest, write_float_wav

    clip_id = clip_id_for(text)
    path = project.clip_path(clip_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_float_wav(path, audio, rate)
    entry = ClipEntry(
        clip_id,
        str(path),
        sha256_file(path),
        text,
        text_origin=ORIGIN,
        analysis=analysis,
        audio_sha256=audio_digest(audio),
    )
    project.clips[clip_id] = entry
    project.save()
    return entry
