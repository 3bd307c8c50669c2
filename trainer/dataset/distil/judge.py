"""Is a teacher's take good enough to keep, and which take of a line is best?

A take is measured as an imported clip is (``trainer.dataset.jobs.measure``) and checked with the dataset's own
finding kinds (``trainer.dataset.health``: silent, too short, too long, broken samples, clipped…); then:

- **loudness**: integrated loudness at least ``MIN_LUFS``;
- **recognizer round trip**: the studio's best installed recognizer for the language
  (``trainer.evaluate.measures.wer_recognizer``: Whisper ``tiny.en`` with the ``compare`` extra, else
  PocketSphinx) hears the take; its word error rate against the prompt must be at most ``MAX_WER``;
- **speaker**: once ``REFERENCE_TAKES`` takes are kept, each later take's resemblyzer d-vector
  (``trainer.evaluate.similarity``) must be at least ``trainer.dataset.speaker_check.THRESHOLD`` (0.77, measured
  there between same and different speakers) from the mean of those first takes: a server that drifts to another
  voice (a cloning server's failure) is caught. The first takes define the speaker; listen to them.

A measure that cannot be taken here (no recognizer for the language, resemblyzer missing) is skipped and said
(``Judge.skipped``). Of a line's accepted takes the best has the lowest WER, then the highest similarity.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from trainer.dataset.fixes import QUIETEST_TAKE_LUFS
from trainer.dataset.speaker_check import THRESHOLD

MAX_WER = 0.25
"""Highest word error rate a take may have: about one word in four misheard. Stricter than the booth's misread flag
(``trainer.evaluate.round_trip.MISREAD_WER``, 0.7) on purpose: a refused take costs only another request, and a kept
one with a wrong word teaches it to the voice. On 250 recordings with their texts (docs/benchmarks.md, "Misread
threshold") 0.25 refuses 8.8% of correct reads and every take of another line, and catches 20% of takes with one word
changed and 40% with two (no limit separates those from correct reads: one word changed scores a median 0.13).
With the default voice (``en_US-joe-medium``) through our own server, the first 20 coverage-chosen shipped prompts,
2 takes each: most takes 0 to 0.22 (a name, "Prof. Lindqvist", heard as "Professor Lentis"); 19 lines kept, one
refused at 0.43 in both takes (joe says "a croissant cost" so that it is heard as "a quas-a-quas")."""
MIN_LUFS = QUIETEST_TAKE_LUFS
"""Quietest integrated loudness a take may have, LUFS (``trainer.dataset.fixes.QUIETEST_TAKE_LUFS``)."""
REFUSED_KINDS = frozenset({"clipped", "dc_offset", "isolated_spikes", "non_finite", "out_of_range", "denormals"})
"""Warnings (besides every blocking finding) that refuse a take: a clip imported from a person's recordings keeps
them and can be fixed, but another take can simply be asked for."""
REFERENCE_TAKES = 3
"""Takes kept whose mean d-vector the later takes' speaker is compared with."""


@dataclass(kw_only=True)
class Verdict:
    """One take's measures and whether it is kept.

    Attributes:
        rejected: why it was refused, in words (``None``: accepted).
        wer: word error rate of the round trip (``None``: not measured).
        similarity: cosine to the first kept takes' speaker (``None``: not measured).
        lufs: integrated loudness, LUFS (``None``: silence or under 0.4 s).
        seconds: the take's duration, s.
        analysis: ``trainer.dataset.analysis.ClipAnalysis`` as a dict.
        embedding: the take's d-vector ``[256]`` (``None``: not measured); not written to disk.
    """

    rejected: str | None = None
    wer: float | None = None
    similarity: float | None = None
    lufs: float | None = None
    seconds: float = 0.0
    analysis: dict[str, Any] = field(default_factory=dict)
    embedding: np.ndarray | None = None

    def rank(self) -> tuple[float, float]:
        """Sort key of accepted takes: lowest WER first, then highest similarity."""
        return (self.wer if self.wer is not None else 0.0, -(self.similarity if self.similarity is not None else 0.0))

    def as_dict(self) -> dict[str, Any]:
        """What ``distil.json`` records of the take (rounded)."""

        def rounded(value):
            return None if value is None else round(float(value), 3)

        return {
            "rejected": self.rejected,
            "wer": rounded(self.wer),
            "similarity": rounded(self.similarity),
            "lufs": rounded(self.lufs),
            "seconds": rounded(self.seconds),
        }


class Judge:
    """Measures takes against their prompts for the voice ``voice_config`` (a Piper ``.onnx.json``: its
    phonemizer, its language)."""

    def __init__(self, voice_config: str, references: list[np.ndarray] | None = None) -> None:
        from engines.phonemes import language_of
        from engines.voice import load_config

        self.voice_config = voice_config
        self.language = language_of(load_config(Path(voice_config))) or "en"
        self.references: list[np.ndarray] = list(references or [])
        """d-vectors of the first kept takes (at most ``REFERENCE_TAKES``)."""
        self.skipped: dict[str, str] = {}
        """Measure name -> why it is not taken here."""

    def judge(self, audio: np.ndarray, rate: int, text: str) -> Verdict:
        """The verdict on one take: ``audio`` float32 ``[N]`` at ``rate`` Hz of the prompt ``text``."""
        verdict = self._health(audio, rate, text)
        if verdict.rejected is None:
            verdict.wer = self._wer(audio, rate, text)
            if verdict.wer is not None and verdict.wer > MAX_WER:
                verdict.rejected = f"the recognizer heard another text (word error rate {verdict.wer:.2f} > {MAX_WER})"
        if verdict.rejected is None:
            self._speaker(audio, rate, verdict)
        return verdict

    def keep(self, verdict: Verdict) -> None:
        """Record a kept take: its d-vector joins the references until there are ``REFERENCE_TAKES``."""
        if verdict.embedding is not None and len(self.references) < REFERENCE_TAKES:
            self.references.append(verdict.embedding)

    def _health(self, audio: np.ndarray, rate: int, text: str) -> Verdict:
        from trainer.dataset.analysis import ClipAnalysis
        from trainer.dataset.health import ClipRecord, check
        from trainer.dataset.jobs import measure

        if audio.size == 0:
            return Verdict(rejected="the server sent no audio")
        analysis = measure(audio, rate, text, self.voice_config)
        measured = ClipAnalysis(**analysis)
        verdict = Verdict(lufs=measured.loudness_lufs, seconds=measured.duration_s, analysis=analysis)
        refused = [f for f in check([ClipRecord("take", text, measured)]) if f.blocking or f.kind in REFUSED_KINDS]
        if refused:
            verdict.rejected = refused[0].message
        elif measured.loudness_lufs is None or measured.loudness_lufs < MIN_LUFS:
            level = "unmeasurable" if measured.loudness_lufs is None else f"{measured.loudness_lufs:.1f} LUFS"
            verdict.rejected = f"too quiet ({level}, under {MIN_LUFS:g} LUFS)"
        return verdict

    def _wer(self, audio: np.ndarray, rate: int, text: str) -> float | None:
        """The take's recognizer round trip WER (``trainer.evaluate.round_trip``; ``None``: not measured)."""
        from trainer.evaluate.round_trip import round_trip

        if "recognizer" in self.skipped:
            return None
        heard = round_trip(audio, rate, text, language=self.language)
        if heard.unavailable:
            self.skipped["recognizer"] = heard.note
        return heard.wer

    def _speaker(self, audio: np.ndarray, rate: int, verdict: Verdict) -> None:
        from trainer.evaluate.measures import MeasureError, MeasureUnavailable
        from trainer.evaluate.similarity import cosine, mean_embedding, utterance_embedding

        if "speaker" in self.skipped:
            return
        try:
            verdict.embedding = utterance_embedding(audio, rate)
        except MeasureUnavailable as exc:
            self.skipped["speaker"] = str(exc)
            return
        except MeasureError as exc:
            verdict.rejected = str(exc)
            return
        if len(self.references) >= REFERENCE_TAKES:
            verdict.similarity = cosine(mean_embedding(self.references), verdict.embedding)
            if verdict.similarity < THRESHOLD:
                verdict.rejected = (
                    f"another speaker than the first takes kept (similarity {verdict.similarity:.2f} < {THRESHOLD})"
                )
