"""Distilling: plan the lines, ask the teacher for candidates of each, keep the best, import what was kept.

Kept takes are written to ``distilled/distil_NNNN.wav`` with their prompt beside them (``distil_NNNN.txt``), both
in the project folder, and imported from there as any recordings with sidecar transcripts are
(``trainer.dataset.project.DatasetProject.import_sources``): curated copies, measured, their text confirmed (the
prompt is what was asked for, and the recognizer heard it). ``distilled/`` is the originals' folder: nothing
changes its files after they are written.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engines.errors import VoiceStudioError
from engines.files import write_text
from engines.words import count
from trainer.dataset.distil import CANDIDATES, LINES
from trainer.dataset.distil.judge import REFERENCE_TAKES, Judge, Verdict
from trainer.dataset.distil.own_clips import TAKE_PREFIX, own_voice_notes
from trainer.dataset.distil.record import DistilRecord, LineDone, Provenance, read_record, write_record
from trainer.dataset.distil.teacher import Teacher, TeacherChoice
from trainer.dataset.import_result import ImportResult
from trainer.dataset.project import DatasetProject, check_project_or_new, making
from trainer.tasks import Cancelled, TaskState

FOLDER = "distilled"
"""The project's subfolder holding the kept takes as the teacher said them (the import's sources)."""
CONSENT = (
    "distilling copies a voice: confirm you may use this voice for training (its licence or its owner's consent) "
    "with --i-may-use-this-voice"
)
"""Why a run without the consent flag is refused."""


class DistilError(VoiceStudioError):
    """A distillation that cannot start: no consent, another teacher in the project, nothing to ask for."""


@dataclass(frozen=True, kw_only=True)
class DistilRequest:
    """One distillation.

    Attributes:
        teacher: the server, model and voice.
        corpus: the lines to choose from (``None``: the studio's shipped English prompts); chosen for coverage
            either way (``trainer.dataset.prompts``).
        count: how many lines the project should hold from this teacher (a later run with the same count only
            finishes them; with a larger one, adds).
        candidates: takes asked for each line.
        consent: the person may use this voice (refused without).
        licence: what they say of its terms, recorded as given.
    """

    teacher: TeacherChoice
    corpus: list[str] | None = None
    count: int = LINES
    candidates: int = CANDIDATES
    consent: bool = False
    licence: str = ""


@dataclass(kw_only=True)
class DistilResult:
    """What a run did: lines kept and refused now, lines done before, the import of the kept takes, notes."""

    kept: list[str] = field(default_factory=list)
    refused: list[LineDone] = field(default_factory=list)
    done_before: int = 0
    imported: ImportResult | None = None
    notes: list[str] = field(default_factory=list)

    def counts(self) -> str:
        said = f"kept {count(len(self.kept), 'line')}"
        if self.refused:
            said += f", {len(self.refused)} with every take refused"
        return said + (f"; {self.done_before} done before" if self.done_before else "")


def distil(
    folder: Path | str, request: DistilRequest, state: TaskState | None = None, teacher: Teacher | None = None
) -> DistilResult:
    """Distil ``request.count`` lines from the teacher into the project in ``folder`` (made when missing).

    ``state.progress(done, total)`` counts lines (those done before included); ``state.status`` says which line
    and take. ``teacher``: one already made (tests); by default one is made from ``request.teacher``.

    Raises:
        DistilError: no consent, the project was distilled from another teacher, or the server failed after
            some lines were done (the message says what is kept; running again goes on).
        NotAProject: ``folder`` holds other things and no project (nothing is asked of the server or written).
        EngineError: the server cannot be reached or refuses (before any folder is made, when at the start).
        Cancelled: ``state`` was cancelled; the lines finished are kept and imported (``partial``), and running
            again goes on.
    """
    if not request.consent:
        raise DistilError(CONSENT)
    check_project_or_new(folder)
    earlier = read_record(folder)
    provenance = _provenance(request, earlier)
    ours = teacher is None
    teacher = teacher or Teacher(request.teacher)
    try:
        teacher.check()
        with making(folder) as project:
            project.check_voice()
            project.save()  # a project from now on, even before a take is kept
            document = earlier or DistilRecord(teacher=provenance)
            notes = _plan(project, document, request)
            write_record(project.folder, document)
            return _run(project, document, request, teacher, TaskState.of(state), notes)
    finally:
        if ours:
            teacher.close()


def _provenance(request: DistilRequest, earlier: DistilRecord | None) -> Provenance:
    """This run's teacher as recorded; the earlier record's where it is the same teacher.

    Raises:
        DistilError: the project was distilled from another teacher (one project holds one voice).
    """
    choice = request.teacher
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    now = Provenance(
        url=choice.url, model=choice.model, voice=choice.voice, date=today, consent=True, licence=request.licence
    )
    if earlier is None:
        return now
    if not earlier.teacher.same_teacher(now):
        raise DistilError(
            f"this project was distilled from {earlier.teacher.describe()}: distil {choice.model} / {choice.voice} "
            "into another project (one project holds one voice)"
        )
    return earlier.teacher


def _plan(project: DatasetProject, document: DistilRecord, request: DistilRequest) -> list[str]:
    """Add lines to ``document.planned`` until it holds ``request.count`` (or the corpus runs out), chosen for
    the phonemes and diphones the project's clips and the lines planned before do not cover; a note naming the
    corpus lines left out as too long for one clip (none asked of the server)."""
    missing = request.count - len(document.planned)
    if missing <= 0:
        return []
    from engines.frontend.lexicon import project_lexicon
    from trainer.dataset.jobs import phonemizer
    from trainer.dataset.prompts.corpus import read_corpus, shipped_corpus
    from trainer.dataset.prompts.plan import Recorded, left_out_notes, next_prompts, recorded

    corpus = request.corpus if request.corpus is not None else read_corpus(shipped_corpus())
    held = recorded(project)
    done = Recorded(texts=held.texts + document.planned, seconds=held.seconds)
    said = phonemizer(project.target_config, project_lexicon(project.folder))
    selection = next_prompts(said, corpus, done, missing)
    document.planned += [prompt.text for prompt in selection.chosen]
    return left_out_notes(selection)


def _run(
    project: DatasetProject,
    document: DistilRecord,
    request: DistilRequest,
    teacher: Teacher,
    state: TaskState,
    notes: list[str],
) -> DistilResult:
    planned = document.planned[: request.count]
    finished = document.done()
    todo = [(n, text) for n, text in enumerate(planned, 1) if text not in finished]
    result = DistilResult(done_before=len(planned) - len(todo), notes=list(notes))
    if len(planned) < request.count:
        result.notes.append(f"the lines ran out: {count(len(planned), 'line')} planned of {request.count}")
    judge = Judge(project.target_config, _references(project, document))
    state.progress(result.done_before, len(planned))
    try:
        for n, text in todo:
            line = _line(project, judge, teacher, request.candidates, n, text, state)
            if line is None:  # cancelled within the line: nothing of it is kept
                break
            document.lines.append(line)
            write_record(project.folder, document)
            if line.clip:
                result.kept.append(text)
            else:
                result.refused.append(line)
            state.progress(len(document.done() & set(planned)), len(planned))
    except VoiceStudioError as exc:  # the server stopped or broke mid-run: say what is kept, and that it goes on
        if not (result.kept or result.refused or result.done_before):
            raise
        raise DistilError(
            f"{exc}; stopped after: {result.counts()} (kept takes imported); distil again to go on"
        ) from exc
    finally:
        result.imported = _import(project)
    result.notes += [f"{name} not checked: {why}" for name, why in judge.skipped.items()]
    result.notes += band_notes(project)
    result.notes += own_voice_notes(project, judge.references)
    left = len(planned) - len(document.done() & set(planned))
    if state.is_cancelled() and left:
        message = f"Distilling cancelled: {result.counts()}, {left} left; distil again to go on"
        raise Cancelled(message, done=len(planned) - left, total=len(planned), partial=result)
    return result


def _line(project, judge: Judge, teacher: Teacher, candidates: int, n: int, text: str, state) -> LineDone | None:
    """Ask for ``candidates`` takes of line ``n``, judge each, write the best accepted one; ``None`` when
    cancelled before the line was done."""
    takes: list[tuple[Verdict, np.ndarray, int]] = []
    for k in range(1, candidates + 1):
        if state.is_cancelled():
            return None
        state.status(f"Line {n}: take {k} of {candidates} · {text}")
        audio, rate = teacher.speak(text, cancel=state)
        if state.is_cancelled():
            return None
        takes.append((judge.judge(audio, rate, text), audio, rate))
    accepted = sorted((t for t in takes if t[0].rejected is None), key=lambda t: t[0].rank())
    clip = None
    if accepted:
        verdict, audio, rate = accepted[0]
        clip = _write_take(project, n, text, audio, rate)
        judge.keep(verdict)
    return LineDone(text=text, clip=clip, takes=[t[0].as_dict() for t in takes])


def _write_take(project, n: int, text: str, audio: np.ndarray, rate: int) -> str:
    """Write a kept take and its prompt into ``distilled/``; returns the clip id the import gives it."""
    from trainer.dataset.jobs import write_float_wav

    clip = f"{TAKE_PREFIX}{n:04d}"
    folder = project.folder / FOLDER
    folder.mkdir(exist_ok=True)
    write_text(folder / f"{clip}.txt", text + "\n")
    write_float_wav(folder / f"{clip}.wav", audio, rate)
    return clip


def _import(project: DatasetProject) -> ImportResult | None:
    """Import the kept takes that have no clip yet (by id: a project copied or moved elsewhere, whose sources'
    paths the manifest holds as they were, imports none again); ``None`` when there is none."""
    folder = project.folder / FOLDER
    takes = sorted(folder.glob(f"{TAKE_PREFIX}*.wav")) if folder.is_dir() else []
    new: list[Path | str] = [take for take in takes if take.stem not in project.clips]
    return project.import_sources(new, workers=1) if new else None


def band_notes(project: DatasetProject) -> list[str]:
    """What the teacher's measured band means for the project's voice, as the dataset report and Train's pre-flight
    say it (``trainer.dataset.bandwidth.narrow_sentence``): a teacher narrower than the voice's band (a 16 kHz voice
    server under a 22,050 Hz voice) leaves it an empty top band, and the way on is a 16 kHz voice (scratch with the
    x-low or low preset, or a 16 kHz start) where that loses none of the teacher's band. Nothing where the kept
    takes fill the band or none is measured. The project's own rate is left as it is: it is its voice config's
    (phonemes and start voice); the training rate is chosen on Train (docs/dataset.md "A dataset from a voice
    server")."""
    from engines.voice import load_config
    from trainer.dataset.bandwidth import is_narrow, narrow_sentence

    config = load_config(Path(project.target_config))
    measured = [
        (analysis["bandwidth_hz"], analysis["sample_rate"])
        for clip in project.clips.values()
        if clip.id.startswith(TAKE_PREFIX) and (analysis := clip.analysis or {}).get("bandwidth_hz") is not None
    ]
    narrow = [(width, rate) for width, rate in measured if is_narrow(width, config.sample_rate)]
    if not narrow:
        return []
    who = f"the voice ({config.path.name.removesuffix('.onnx.json')})"
    widths, rates = [w for w, _ in narrow], [r for _, r in narrow]
    return ["the teacher's takes: " + narrow_sentence(widths, rates, config.sample_rate, who, len(measured))]


def _references(project: DatasetProject, document: DistilRecord) -> list[np.ndarray]:
    """The d-vectors of the first ``REFERENCE_TAKES`` takes kept by earlier runs (none where resemblyzer is
    missing or a clip cannot be read: the next kept takes become the references)."""
    from engines.imports import importing
    from trainer.evaluate.measures import MeasureError
    from trainer.evaluate.similarity import utterance_embedding

    with importing("soundfile"):
        import soundfile

    kept = [line.clip for line in document.lines if line.clip][:REFERENCE_TAKES]
    try:
        takes = [soundfile.read(str(project.folder / FOLDER / f"{clip}.wav"), dtype="float32") for clip in kept]
        return [utterance_embedding(audio, rate) for audio, rate in takes]
    except (MeasureError, OSError, RuntimeError):
        return []
