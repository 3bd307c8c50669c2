"""Slicing long recordings into a project: find the cuts, check the speaker, draft each utterance, keep each draft.

Four steps, each reported through the ``trainer.tasks.TaskState``:

1. Finding the pauses (Silero VAD, ``trainer.dataset.jobs.find_utterances``), one worker job per recording.
2. The speaker check (``trainer.dataset.speaker_check``) of each recording against the dataset's clips; its
   warning, or why it was skipped, goes into the result's ``notes``.
3. Drafting: one worker job per utterance (``trainer.dataset.jobs.draft_clip``: cut, recognise, write, measure),
   so progress moves within a recording: ``state.progress(seconds of audio drafted, seconds in all)`` and
   ``state.status("Recognising draft n of m …")``. The manifest is saved after every draft; a Cancel hands out no
   more drafts, stops those being recognised (``run_jobs(stop_in_flight=True)``), keeps every draft finished,
   and :class:`~trainer.tasks.Cancelled` says how many ("Slicing cancelled: 2 drafts of 6 kept; ...").
4. The loudness check (``trainer.dataset.loudness_gap``): pieces far louder or quieter than the dataset's
   clips are said in the result's ``notes``, with the fix.

Clips are named ``STEM_001``... and stay unreviewed until their text is confirmed.

Slicing is resumable: once its pauses are found, a recording's cuts are recorded in the manifest
(``trainer.dataset.manifest.SlicePlan``) before any draft is made, and marked complete in the same atomic
manifest write as its last draft. Slicing a recording again (same path and content) whose plan is not complete
(a Cancel, Ctrl+C, the studio closed, a kill, a draft that failed) drafts only the utterances that have no clip
yet, at the recorded cuts and with the recorded ids, so the drafts are those of one uninterrupted run; a
complete one is skipped. Each is said in the result's ``earlier``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from engines.files import sha256_file
from engines.words import count
from trainer.dataset import jobs
from trainer.dataset.import_result import ImportResult
from trainer.dataset.loudness_gap import loudness_note
from trainer.dataset.manifest import ClipEntry, SlicePlan
from trainer.dataset.project import DatasetProject
from trainer.dataset.slicing import SliceOptions
from trainer.dataset.workers import run_jobs
from trainer.tasks import Cancelled, TaskState


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


def slice_recordings(
    project: DatasetProject,
    paths: Sequence[Path | str],
    options: SliceOptions | None = None,
    recognizer: str | None = "pocketsphinx",
    model: str | None = None,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    *,
    language: str | None = None,
    state: TaskState | None = None,
) -> ImportResult:
    """Cut long recordings into utterance clips of ``project`` with draft texts.

    ``recognizer``/``model``/``language`` choose the drafts (``trainer.dataset.recognizers``; ``None``:
    no drafts). Clips are named ``STEM_001``... and stay unreviewed until their text is confirmed; a
    recording partly sliced (same path and content) is resumed, one completely sliced is skipped (both said
    in the result's ``earlier``). ``progress(done, total)`` (or ``state.progress``) counts seconds of audio
    drafted; ``notes`` of the result hold speaker and loudness warnings.

    Raises:
        Cancelled: ``state`` was cancelled; the drafts made until then are in the manifest, and slicing
            again resumes.
    """
    drafting = Drafting(recognizer=recognizer, model=model, language=language)
    task = TaskState.of(state, progress)
    return slice_into(project, list(paths), options or SliceOptions(), drafting, workers, task)


def slice_into(
    project: DatasetProject,
    paths: list,
    options: SliceOptions,
    drafting: Drafting,
    workers: int | None,
    state: TaskState,
) -> ImportResult:
    """Slice ``paths`` into ``project`` (a ``DatasetProject``); returns its ``ImportResult`` (``notes``: speaker
    and loudness warnings; ``earlier``: recordings resumed or skipped as already sliced). See the module docstring.

    Raises:
        RecognizerError: the recognizer is unknown, not installed, has no such language, or needs a model.
        Cancelled: ``state`` was cancelled; the drafts made until then are in the manifest (``partial``), and
            slicing the same recordings again resumes.
    """
    from trainer.dataset import recognizers

    if drafting.recognizer:
        recognizers.check(drafting.recognizer, drafting.model, drafting.language)
    result = ImportResult()
    resumed, recordings = _sort_out(project, paths, options, result)
    plans = _find_pauses(project, recordings, options, workers, state, result) if recordings else []
    _check_speakers(project, recordings, plans, state, result)
    _draft(project, resumed + plans, drafting, workers, state, result)
    if note := loudness_note(project, result.resumed + result.added):
        result.notes.append(note)
    return result


def _sort_out(project, paths: list, options: SliceOptions, result) -> tuple[list[SlicePlan], list[Recording]]:
    """The plans to resume, and the recordings never sliced; the others (complete) are skipped and said."""
    plans = {(p.source, p.source_sha256): p for p in project.slicings}
    known = {(c.source, c.source_sha256) for c in project.clips.values()}
    resumed: list[SlicePlan] = []
    recordings: list[Recording] = []
    seen: set[tuple[str, str]] = set()
    for path in map(Path, paths):
        key = (str(path), sha256_file(path))
        plan = plans.get(key)
        if key in seen:
            continue  # named twice
        seen.add(key)
        if plan is None and key in known:  # sliced (or imported) before plans were recorded: cuts unknown
            result.unchanged += 1
            result.earlier.append(f"{path.name} already in the project (added, or sliced before cuts were recorded)")
        elif plan is None:
            base = _slice_base(project, path, {r.base for r in recordings} | {p.base for p in project.slicings})
            recordings.append(Recording(path=path, digest=key[1], base=base))
        elif _missing(project, plan):
            resumed.append(plan)
            result.earlier.append(_resuming(project, plan, options))
            result.resumed.extend(i for i in map(plan.clip_id, range(len(plan.spans))) if i in project.clips)
        else:
            _finish(project, plan)  # every draft was made, the mark not yet written (killed between the two)
            result.unchanged += 1
            result.earlier.append(f"{path.name} already sliced: all {count(len(plan.spans), 'draft')} made")
    return resumed, recordings


def _slice_base(project: DatasetProject, path: Path, taken: set[str]) -> str:
    """A name prefix for a recording's slices that no clip id of ``project`` starts with."""
    base = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in path.stem) or "recording"
    candidate, n = base, 1
    while candidate in taken or any(i == candidate or i.startswith(candidate + "_") for i in project.clips):
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def _missing(project, plan: SlicePlan) -> list[int]:
    """Indexes in ``plan.spans`` of the utterances with no clip yet (none once the plan is complete)."""
    return [] if plan.complete else [i for i in range(len(plan.spans)) if plan.clip_id(i) not in project.clips]


def _finish(project, plan: SlicePlan) -> None:
    """Mark ``plan`` complete (and save) once every utterance has its clip."""
    if not plan.complete and not _missing(project, plan):
        plan.complete = True
        project.save()


def _resuming(project, plan: SlicePlan, options: SliceOptions) -> str:
    made = len(plan.spans) - len(_missing(project, plan))
    line = f"{Path(plan.source).name} resumed: {made} of {count(len(plan.spans), 'draft')} already made"
    if plan.options and plan.options != asdict(options):
        line += " (cut where its first slicing chose, not with the options given now)"
    return line


def _find_pauses(project, recordings: list[Recording], options, workers, state: TaskState, result) -> list:
    """A plan for each recording whose pauses were found (``None`` where it could not be read or has no
    utterance: a problem), recorded in the manifest before any draft is made."""
    state.status(f"Finding the pauses in {', '.join(r.path.name for r in recordings)}…")
    found = dict(run_jobs(jobs.find_utterances, [(str(r.path), options) for r in recordings], workers, state))
    if state.is_cancelled():
        raise Cancelled("Slicing cancelled while finding the pauses: no draft was made", partial=result)
    plans: list = []
    for index, recording in enumerate(recordings):
        spans = found[index].get("spans")
        if not spans:
            result.problems.append(f"{recording.path}: {found[index].get('error', 'no utterance found')}")
            plans.append(None)
            continue
        source, digest, base = str(recording.path), recording.digest, recording.base
        plans.append(SlicePlan(source=source, source_sha256=digest, base=base, spans=spans, options=asdict(options)))
    project.slicings.extend(p for p in plans if p)
    project.save()
    return plans


def _check_speakers(project, recordings: list[Recording], plans: list, state: TaskState, result) -> None:
    """The speaker check of each recording sliced for the first time (a resumed one was checked then)."""
    from trainer.dataset.speaker_check import REFERENCE_CLIPS, check_speaker

    for recording, plan in zip(recordings, plans, strict=True):
        if plan is None or state.is_cancelled() or not project.clips:
            continue
        state.status(f"Comparing the speaker of {recording.path.name} with up to {REFERENCE_CLIPS} dataset clips…")
        note = check_speaker(project, recording.path).note
        if note:
            result.notes.append(note)


def _draft(project, plans: list, drafting: Drafting, workers, state: TaskState, result) -> None:
    """Draft every utterance of ``plans`` (``None``: skipped) without a clip; each plan is marked complete with
    its last draft."""
    how = (drafting.recognizer, drafting.model, drafting.language)
    drafts = [(plan, i) for plan in plans if plan for i in _missing(project, plan)]
    work = [_job(project, plan, i, how) for plan, i in drafts]
    spans = [job[3] for job in work]
    total_s, done_s, made = sum(e - s for s, e in spans), 0.0, 0
    origin = f"draft ({drafting.recognizer})" if drafting.recognizer else ""
    _report(state, 0, len(drafts), 0.0, total_s)
    added: dict[int, str] = {}  # drafts finish in any order; said in the recording's order
    for index, outcome in run_jobs(jobs.draft_clip, work, workers, state, stop_in_flight=True):
        plan = drafts[index][0]
        if "error" in outcome:
            result.problems.append(outcome["error"])
        else:
            entry = ClipEntry(
                source=plan.source, source_sha256=plan.source_sha256, text_origin=origin, reviewed=False, **outcome
            )
            project.clips[entry.id] = entry
            added[index] = entry.id
            plan.complete = not _missing(project, plan)
            project.save()  # the draft and, with the last one, its recording's mark: one atomic write
        made, done_s = made + 1, done_s + spans[index][1] - spans[index][0]
        _report(state, made, len(drafts), done_s, total_s)
    result.added.extend(added[i] for i in sorted(added))
    if made < len(drafts):
        kept = f"{count(len(result.added), 'draft')} of {len(drafts)} kept" if result.added else "no draft was made"
        warnings = "".join(f"; warning: {note}" for note in result.notes)  # said even when cut short
        raise Cancelled(
            f"Slicing cancelled: {kept}; slicing again resumes{warnings}",
            done=made,
            total=len(drafts),
            partial=result,
        )


def _job(project, plan: SlicePlan, index: int, how: tuple) -> tuple:
    """The ``trainer.dataset.jobs.draft_clip`` job of ``plan.spans[index]``."""
    clip_id = plan.clip_id(index)
    return (plan.source, str(project.clip_path(clip_id)), clip_id, tuple(plan.spans[index]), how, project.target_config)


def _report(state: TaskState, made: int, drafts: int, done_s: float, total_s: float) -> None:
    state.progress(round(done_s), round(total_s))
    if made < drafts:
        state.status(f"Recognising draft {made + 1} of {drafts} · {done_s:.0f} of {total_s:.0f} s of audio")
