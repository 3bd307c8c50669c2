"""Does a long recording's speaker sound like the dataset's? Checked before it is sliced into the project.

The measure is the Compare page's speaker similarity (``trainer.evaluate.similarity``: resemblyzer d-vectors,
cosine): the first ``RECORDING_S`` seconds of the recording against the mean embedding of up to
``REFERENCE_CLIPS`` of the dataset's clips (reviewed ones first, none from this recording).

``THRESHOLD`` measured on ``../shared/corpus`` (``real-speech/librivox``, ``real-speech/cards``, the 44 s
``real-speech/long/two_cities.wav`` in 10 s pieces, and 5 clips of ``target-voice``), one clip or piece
against the mean of others:
- same speaker (against the other 4 clips or pieces of its set): lowest 0.809 (cards), then 0.840 (librivox),
  0.878 (target-voice), 0.937 (two_cities); means 0.87-0.95;
- different speakers (against 3 clips of another set, all 12 pairs of sets): highest 0.735 (librivox vs cards,
  two real men), then 0.726, 0.627; means 0.41-0.70.
0.77 lies between the two (0.035 above the highest different pair, 0.04 below the lowest same one).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engines.imports import importing

THRESHOLD = 0.77
"""Cosine similarity below which the speakers may differ (see the module docstring for the measurements)."""
REFERENCE_CLIPS = 3
RECORDING_S = 20.0


@dataclass(frozen=True, kw_only=True)
class SpeakerCheck:
    """The outcome: ``similarity`` (``None`` when not measured) and one line for the user (``''``: same speaker
    or nothing to compare with)."""

    similarity: float | None
    note: str

    @property
    def differs(self) -> bool:
        return self.similarity is not None and self.similarity < THRESHOLD


def check_speaker(project, source: Path) -> SpeakerCheck:
    """Compare ``source``'s speaker with ``project``'s clips (``trainer.dataset.project.DatasetProject``).

    Never raises for a measure that cannot be taken: the note then says the check was skipped and why
    (resemblyzer missing, a silent clip).
    """
    from trainer.evaluate.measures import MeasureError
    from trainer.evaluate.similarity import cosine, utterance_embedding

    from_source = {c.id for c in project.clips.values() if c.source == str(source)}
    references = reference_clips(project, exclude=from_source)
    if not references:
        return SpeakerCheck(similarity=None, note="")
    try:
        similarity = cosine(clips_speaker(project, references), utterance_embedding(*_read(source, RECORDING_S)))
    except MeasureError as exc:  # MeasureUnavailable (no resemblyzer) among them
        return SpeakerCheck(similarity=None, note=f"speaker check skipped: {exc}")
    if similarity >= THRESHOLD:
        return SpeakerCheck(similarity=similarity, note="")
    note = (
        f"the speaker of {source.name} may differ from the dataset's (similarity {similarity:.2f} to "
        f"{len(references)} of its clips, below {THRESHOLD}): listen before confirming, or set their speaker"
    )
    return SpeakerCheck(similarity=similarity, note=note)


def clips_speaker(project, clips: list) -> np.ndarray:
    """The speaker of ``clips`` (``ClipEntry``s of ``project``, a ``DatasetProject``): their mean resemblyzer
    d-vector ``[256]`` float32 (``trainer.evaluate.similarity.speaker_embedding``).

    Raises:
        MeasureError: resemblyzer missing (``MeasureUnavailable``), or a clip without speech.
    """
    from trainer.evaluate.similarity import speaker_embedding

    return speaker_embedding([_read(project.clip_path(c.id)) for c in clips])


def reference_clips(project, exclude: set[str] | None = None) -> list:
    """Up to ``REFERENCE_CLIPS`` usable clips of ``project`` (reviewed ones first), none of ``exclude`` (ids): the
    dataset's speaker as the checks hear it."""
    clips = [c for c in project.clips.values() if c.status == "ok" and c.id not in (exclude or set())]
    clips.sort(key=lambda c: not c.reviewed)
    return clips[:REFERENCE_CLIPS]


def _read(path: Path, seconds: float | None = None) -> tuple[np.ndarray, int]:
    """Mono float32 ``[N]`` samples of ``path`` (its first ``seconds`` only, when given) and the rate, Hz, as
    analysis measures them (``trainer.dataset.analysis.as_measured``): no NaN or spike rules the embedding's
    volume normalization or its voice activity."""
    with importing("soundfile"):
        import soundfile

    from trainer.dataset.analysis import as_measured

    rate = soundfile.info(str(path)).samplerate
    frames = -1 if seconds is None else int(seconds * rate)
    audio, _ = soundfile.read(str(path), frames=frames, dtype="float32", always_2d=True)
    return as_measured(audio.mean(axis=1), rate), rate
