"""Slicing long recordings into a project: find the cuts, check the speaker, draft each utterance, keep each draft.

Three steps, each reported through the ``trainer.tasks.TaskState``:

1. Finding the pauses (Silero VAD, ``trainer.dataset.jobs.find_utterances``), one worker job per recording.
2. The speaker check (``trainer.dataset.speaker_check``) of each recording against the dataset's clips; its
   warning, or why it was skipped, goes into the result's ``notes``.
3. Drafting: one worker job per utterance (``trainer.dataset.jobs.draft_clip``: cut, recognise, write, measure),
   so progress moves within a recording: ``state.progress(seconds of audio drafted, seconds in all)`` and
   ``state.status("Recognising draft n of m …")``. The manifest is saved after every draft, so a Cancel keeps
   every draft made (those in flight included) and :class:`~trainer.tasks.Cancelled` says how many.

Clips are named ``STEM_001``... and stay unreviewed until their text is confirmed. A recording already sliced
(same path and content, even in part) is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engines.files import sha256_file
from engines.words import count
from trainer.dataset import jobs
from trainer.dataset.manifest import ClipEntry
from trainer.dataset.slicing import SliceOptions
from trainer.dataset.workers import run_jobs
from trainer.tasks import Cancelled, TaskState

if TYPE_CHECKING:
    from trainer.dataset.project import DatasetProject, ImportResult


@dataclass(frozen=True, kw_only=True)
class Drafting:
    """Which recognizer drafts the texts (``trainer.dataset.recognizers``): ``recognizer`` ``None`` for no drafts;
    ``model`` where the back-end needs one; ``language`` one of ``recognizers.languages(recognizer)``."""

    recognizer: str | None = "pocketsphinx"
    model: str | None = None
    language: str | None = None


@dataclass(frozen=True, kw_only=True)
class Recording:
    """One recording to slice: its path, content digest and the name prefix of its clips."""

    path: Path
    digest: str
    base: str


def slice_into(
    project: DatasetProject,
    paths: list,
    options: SliceOptions,
    drafting: Drafting,
    workers: int | None,
    state: TaskState,
) -> ImportResult:
    """Slice ``paths`` into ``project`` (a ``DatasetProject``); returns its ``ImportResult`` (``notes``: speaker
    warnings). See the module docstring.

    Raises:
        RecognizerError: the recognizer is unknown, not installed, has no such language, or needs a model.
        Cancelled: ``state`` was cancelled; the drafts made until then are in the manifest (``partial``).
    """
    from trainer.dataset import recognizers
    from trainer.dataset.project import ImportResult

    if drafting.recognizer:
        recognizers.check(drafting.recognizer, drafting.model, drafting.language)
    result = ImportResult()
    recordings = _new_recordings(project, paths, result)
    if not recordings:
        return result
    state.status(f"Finding the pauses in {', '.join(r.path.name for r in recordings)}…")
    found = dict(run_jobs(jobs.find_utterances, [(str(r.path), options) for r in recordings], workers, state))
    if state.is_cancelled():
        raise Cancelled("Slicing cancelled while finding the pauses: no draft was made", partial=result)
    drafts = _draft_jobs(project, recordings, found, drafting, result)
    _check_speakers(project, recordings, found, state, result)
    _draft(project, drafts, drafting, workers, state, result)
    return result


def _new_recordings(project, paths: list, result) -> list[Recording]:
    known = {(c.source, c.source_sha256) for c in project.clips.values()}
    recordings: list[Recording] = []
    for path in map(Path, paths):
        digest = sha256_file(path)
        if (str(path), digest) in known:
            result.unchanged += 1
            continue
        base = project._slice_base(path, {r.base for r in recordings})
        recordings.append(Recording(path=path, digest=digest, base=base))
    return recordings


def _draft_jobs(project, recordings: list[Recording], found: dict, drafting: Drafting, result) -> list:
    """``(recording, job)`` for each utterance found; a recording that could not be read is a problem."""
    how = (drafting.recognizer, drafting.model, drafting.language)
    drafts = []
    for index, recording in enumerate(recordings):
        if "error" in found[index]:
            result.problems.append(f"{recording.path}: {found[index]['error']}")
            continue
        for n, span in enumerate(found[index]["spans"], start=1):
            clip_id = f"{recording.base}_{n:03d}"
            target = str(project.clip_path(clip_id))
            job = (str(recording.path), target, clip_id, tuple(span), how, project.target_config)
            drafts.append((recording, job))
    return drafts


def _check_speakers(project, recordings: list[Recording], found: dict, state: TaskState, result) -> None:
    from trainer.dataset.speaker_check import REFERENCE_CLIPS, check_speaker

    for index, recording in enumerate(recordings):
        if "error" in found[index] or state.is_cancelled() or not project.clips:
            continue
        state.status(f"Comparing the speaker of {recording.path.name} with up to {REFERENCE_CLIPS} dataset clips…")
        note = check_speaker(project, recording.path).note
        if note:
            result.notes.append(note)


def _draft(project, drafts: list, drafting: Drafting, workers, state: TaskState, result) -> None:
    spans = [job[3] for _, job in drafts]
    total_s, done_s, made = sum(e - s for s, e in spans), 0.0, 0
    origin = f"draft ({drafting.recognizer})" if drafting.recognizer else ""
    _report(state, 0, len(drafts), 0.0, total_s)
    for index, outcome in run_jobs(jobs.draft_clip, [job for _, job in drafts], workers, state):
        recording, job = drafts[index]
        if "error" in outcome:
            result.problems.append(outcome["error"])
        else:
            source, digest = str(recording.path), recording.digest
            entry = ClipEntry(source=source, source_sha256=digest, text_origin=origin, reviewed=False, **outcome)
            project.clips[entry.id] = entry
            result.added.append(entry.id)
            project.save()
        made, done_s = made + 1, done_s + spans[index][1] - spans[index][0]
        _report(state, made, len(drafts), done_s, total_s)
    if made < len(drafts):
        kept = f"{count(len(result.added), 'draft')} of {len(drafts)} kept" if result.added else "no draft was made"
        warnings = "".join(f"; warning: {note}" for note in result.notes)  # said even when cut short
        raise Cancelled(f"Slicing cancelled: {kept}{warnings}", done=made, total=len(drafts), partial=result)


def _report(state: TaskState, made: int, drafts: int, done_s: float, total_s: float) -> None:
    state.progress(round(done_s), round(total_s))
    if made < drafts:
        state.status(f"Recognising draft {made + 1} of {drafts} · {done_s:.0f} of {total_s:.0f} s of audio")
