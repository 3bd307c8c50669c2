"""Editing a dataset project clip by clip: exclude or include, edit and confirm texts, set speakers,
split, merge.

Edits change the manifest and the curated copies, never the sources. A clip that
is split or merged is kept, excluded, with an edit naming what replaced it, so
nothing is lost and the step can be undone by including it again. New clips are
measured again in a worker process (Silero VAD must not run in the studio's
process); text edits are measured in this process (phonemes only).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engines.errors import VoiceStudioError
from engines.frontend.lexicon import project_lexicon
from trainer.dataset import jobs
from trainer.dataset.manifest import ClipEntry
from trainer.dataset.project import DatasetProject
from trainer.dataset.workers import worker_pool


class CurationError(VoiceStudioError, ValueError):
    """An edit that cannot be applied (unknown clip, a split point outside the clip, ...)."""


@dataclass
class TextPreview:
    """What the trainer will see of a text.

    Attributes:
        phonemes: the espeak-ng phonemes, sentences separated by `` | ``.
        num_phoneme_ids: length of the ``phoneme_ids`` over all sentences.
        missing: phonemes absent from the voice's ``phoneme_id_map``, with counts.
        normalized: the text as the front end says it (``engines.frontend``), ``""`` where that is the text.
    """

    phonemes: str
    num_phoneme_ids: int
    missing: dict[str, int] = field(default_factory=dict)
    normalized: str = ""


def preview_text(phonemizer, text: str) -> TextPreview:
    """Normalize and phonemize ``text`` with an ``engines.phonemes.Phonemizer`` for a live preview."""
    from engines.phonemes import FrontendReport, sentences

    report = FrontendReport()
    found = list(sentences(phonemizer, text, report))
    said = phonemizer.normalize(text).text
    return TextPreview(
        " | ".join("".join(s.phonemes) for s in found),
        sum(len(s.phoneme_ids) for s in found),
        dict(report.missing),
        said if said != text else "",
    )


def _clip(project: DatasetProject, clip_id: str) -> ClipEntry:
    try:
        return project.clips[clip_id]
    except KeyError:
        raise CurationError(f"no clip {clip_id!r} in {project.folder}") from None


def set_excluded(project: DatasetProject, clip_ids: list[str], excluded: bool) -> list[str]:
    """Exclude clips from (or include them again in) the training set; returns the ids changed. An unreadable
    clip can be excluded too (its finding leaves the report); included again, it is unreadable (``error``) still."""
    changed = []
    for clip_id in clip_ids:
        clip = _clip(project, clip_id)
        if (clip.status == "excluded") == excluded:
            continue
        clip.status = "excluded" if excluded else "error" if clip.error is not None else "ok"
        clip.edits.append("exclude" if excluded else "include")
        changed.append(clip_id)
    project.save()
    return changed


def speaker_name(text: str) -> str:
    """``text`` as a speaker name: stripped; non-empty, without ``|`` or line breaks (``metadata.csv``).

    Raises:
        CurationError: a name that is empty or holds ``|`` or a line break.
    """
    name = text.strip()
    if not name or "|" in name or "\n" in name or "\r" in name:
        raise CurationError(f"speaker name {text!r}: must be non-empty, without '|' or line breaks")
    return name


def set_speaker(project: DatasetProject, clip_ids: list[str], speaker: str) -> list[str]:
    """Set the speaker of clips (a clip whose speaker is already ``speaker`` is left as it is); returns the
    ids changed. Each changed clip's ``edits`` records ``speaker OLD -> NEW``.

    Raises:
        CurationError: no clip given, an unknown clip, or a name that is empty or holds ``|`` or a line
            break (it would break ``metadata.csv``'s ``id|speaker|text`` lines). Nothing is changed then.
    """
    name = speaker_name(speaker)
    if not clip_ids:
        raise CurationError("no clip given to set the speaker of")
    clips = [_clip(project, clip_id) for clip_id in clip_ids]  # every id checked before any change
    changed = []
    for clip in clips:
        if clip.speaker != name:
            clip.edits.append(f"speaker {clip.speaker or '(none)'} -> {name}")
            clip.speaker = name
            changed.append(clip.id)
    project.save()
    return changed


def set_text(project: DatasetProject, clip_id: str, text: str, phonemizer=None) -> ClipEntry:
    """Replace a clip's text (a person typed it, so it counts as reviewed) and measure its phonemes again.

    Raises:
        CurationError: unknown clip, or an empty text.
    """
    clip = _clip(project, clip_id)
    text = " ".join(text.split())
    if not text:
        raise CurationError(f"{clip_id}: the text is empty")
    clip.text, clip.reviewed, clip.text_origin = text, True, "edited"
    clip.edits.append("text")
    if clip.analysis:
        _measure_text(project, clip, phonemizer)
    project.save()
    return clip


def confirm(
    project: DatasetProject, clip_ids: list[str], texts: dict[str, str] | None = None, phonemizer=None
) -> list[str]:
    """Mark draft texts as reviewed by a person; clips without text are left unreviewed.

    ``texts`` holds what the person sees for a clip when it differs from its saved text (an edit not saved
    yet): it is saved first (:func:`set_text`), so the text confirmed is the text on screen.

    Raises:
        CurationError: unknown clip, or an empty text in ``texts``.
    """
    done = []
    for clip_id in clip_ids:
        clip = _clip(project, clip_id)
        if texts and clip_id in texts and " ".join(texts[clip_id].split()) != clip.text:
            set_text(project, clip_id, texts[clip_id], phonemizer)
            clip.edits.append("confirm text")
            done.append(clip_id)
        elif clip.text and not clip.reviewed:
            clip.reviewed = True
            clip.edits.append("confirm text")
            done.append(clip_id)
    project.save()
    return done


def split(
    project: DatasetProject, clip_id: str, at_s: float, texts: tuple[str | None, str | None] = (None, None)
) -> list[str]:
    """Cut a clip in two at ``at_s`` seconds; returns the new ids. The original is excluded.

    ``texts`` are the two parts' transcripts (``None``: none yet; an unknown text
    cannot be divided by itself).

    Raises:
        CurationError: unknown or unreadable clip, or ``at_s`` not inside it.
    """
    from trainer.dataset.probe import load

    clip = _clip(project, clip_id)
    if clip.unreadable:
        raise CurationError(f"{clip_id}: cannot split an unreadable clip")
    audio, info = load(project.clip_path(clip_id))
    cut = round(at_s * info.sample_rate)
    if not 0 < cut < info.frames:
        raise CurationError(f"{clip_id}: split point {at_s:.3f} s is outside the clip (0..{info.duration_s:.3f} s)")
    parts = [(audio[:cut, 0], texts[0], 0.0), (audio[cut:, 0], texts[1], cut / info.sample_rate)]
    ids = [_unique(project, f"{clip_id}_{suffix}") for suffix in "ab"]
    for new_id, (piece, text, offset) in zip(ids, parts, strict=True):
        span = None
        if clip.span:
            start = clip.span[0] + offset
            span = [round(start, 3), round(start + len(piece) / info.sample_rate, 3)]
        _add(project, clip, new_id, (piece, info.sample_rate), text, text is not None, span, f"split from {clip_id}")
    _retire(project, clip, f"split into {ids[0]}, {ids[1]}")
    _remeasure(project, ids)
    return ids


def trim_clip(project: DatasetProject, clip_id: str, start_s: float, end_s: float) -> ClipEntry:
    """Keep only ``start_s``..``end_s`` (seconds) of a clip's curated copy, then measure it again.

    Raises:
        CurationError: unknown or unreadable clip, or a range that is empty or outside the clip.
    """
    from trainer.dataset.probe import load

    clip = _clip(project, clip_id)
    if clip.unreadable:
        raise CurationError(f"{clip_id}: cannot trim an unreadable clip")
    audio, info = load(project.clip_path(clip_id))
    start, end = round(max(0.0, start_s) * info.sample_rate), round(min(end_s, info.duration_s) * info.sample_rate)
    if end - start <= 0:
        raise CurationError(f"{clip_id}: nothing left between {start_s:.3f} s and {end_s:.3f} s")
    jobs.write_float_wav(project.clip_path(clip_id), audio[start:end, 0], info.sample_rate)
    if clip.span:
        clip.span = [round(clip.span[0] + start / info.sample_rate, 3), round(clip.span[0] + end / info.sample_rate, 3)]
    clip.edits.append(f"trim to {start / info.sample_rate:.3f}-{end / info.sample_rate:.3f} s")
    _remeasure(project, [clip_id])
    return clip


def merge(project: DatasetProject, clip_ids: list[str]) -> str:
    """Join clips end to end, in the order given, into one new clip; returns its id. The originals are excluded.

    Audio is resampled to the first clip's rate where rates differ; texts are
    joined with spaces (the result is reviewed only if every part was).

    Raises:
        CurationError: fewer than two clips, an unknown or unreadable one.
    """
    from trainer.dataset.fixes import resample
    from trainer.dataset.probe import load

    if len(clip_ids) < 2:
        raise CurationError("merging needs at least two clips")
    clips = [_clip(project, i) for i in clip_ids]
    if any(c.unreadable for c in clips):
        raise CurationError("cannot merge unreadable clips: " + ", ".join(c.id for c in clips if c.unreadable))
    pieces, rate = [], None
    for clip in clips:
        audio, info = load(project.clip_path(clip.id))
        rate = rate or info.sample_rate
        pieces.append(resample(audio[:, 0], info.sample_rate, rate))
    texts = [c.text for c in clips if c.text]
    new_id = _unique(project, f"{clip_ids[0]}_merged")
    reviewed = all(c.reviewed for c in clips)
    _add(project, clips[0], new_id, (np.concatenate(pieces), rate), " ".join(texts) or None, reviewed, None, "merged")
    for clip in clips:
        _retire(project, clip, f"merged into {new_id}")
    _remeasure(project, [new_id])
    return new_id


def _unique(project: DatasetProject, base: str) -> str:
    candidate, n = base, 1
    while candidate in project.clips:
        n += 1
        candidate = f"{base}{n}"
    return candidate


def _add(project, parent: ClipEntry, new_id: str, audio, text, reviewed: bool, span, edit: str) -> None:
    """A new clip from ``audio`` = ``(samples [N], rate)``, with the parent's source and speaker."""
    jobs.write_float_wav(project.clip_path(new_id), *audio)
    project.clips[new_id] = ClipEntry(
        id=new_id,
        source=parent.source,
        source_sha256=parent.source_sha256,
        text=text,
        speaker=parent.speaker,
        text_origin=edit,
        reviewed=reviewed,
        span=span,
        edits=[edit],
    )


def _retire(project: DatasetProject, clip: ClipEntry, edit: str) -> None:
    clip.status = "excluded"
    clip.edits.append(edit)


def _remeasure(project: DatasetProject, clip_ids: list[str]) -> None:
    work = [(str(project.clip_path(i)), project.clips[i].text, project.target_config) for i in clip_ids]
    with worker_pool(1, len(work)) as pool:
        for clip_id, fields in zip(clip_ids, pool.map(jobs.remeasure, work), strict=True):
            project.clips[clip_id].analysis = fields["analysis"]
            project.clips[clip_id].audio_sha256 = fields["audio_sha256"]
    project.save()


def _measure_text(project: DatasetProject, clip: ClipEntry, phonemizer) -> None:
    if phonemizer is None:
        phonemizer = jobs.phonemizer(project.target_config, project_lexicon(project.folder))
    assert clip.analysis is not None and clip.text is not None  # set_text measures only an analysed clip it named
    clip.analysis = jobs.measure_new_text(clip.analysis, clip.text, phonemizer)
