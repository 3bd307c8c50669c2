"""The leaderboard: one row of objective measures per candidate, as the Compare page and ``voice-studio compare``
show it.

:func:`score` renders every line by every candidate (``trainer.evaluate.render.render_all``, cached) and
measures each render (``trainer.evaluate.scores``, cached beside the render), then averages per candidate:
val_mel at save time, MCD and F0 error against the lines' reference recordings, speaker similarity of all
renders to all references, DNSMOS P.835, WER of an ASR round trip (Whisper tiny.en, else PocketSphinx) and the
speaking rate against the references'. A measure that fails on one line is left out of that candidate's mean and
counted in ``Row.missing``; one that could not be measured at all is ``None`` with the reason there. Asked to, it
adds a last row for the lines' own recordings (``board.RECORDINGS_LABEL``), heard as the renders are: the DNSMOS
and WER a voice that sounds like them can be asked for (``trainer.evaluate.recommend`` reads it so).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from engines.pool import EnginePool
from engines.words import count
from trainer.evaluate.board import COLUMNS, HEARD, RECORDINGS_LABEL, Column, Row, read_csv, table, to_csv
from trainer.evaluate.lines import Line
from trainer.evaluate.render import Candidate, Rendered, RenderError, RenderSettings, render_all
from trainer.evaluate.scores import Scores
from trainer.evaluate.scoring import NO_REFERENCE, Scorer
from trainer.evaluate.spread import jackknife_error, standard_error
from trainer.tasks import Cancelled, TaskState

__all__ = ["COLUMNS", "Column", "Row", "Scored", "read_csv", "score", "scored", "table", "to_csv", "val_mel_at_save"]


SOURCES = {
    "dnsmos_sig": ("dnsmos_sig", False),
    "dnsmos_bak": ("dnsmos_bak", False),
    "dnsmos_ovrl": ("dnsmos_ovrl", False),
    "wer": ("wer", False),
    "rate_pps": ("rate_pps", False),
    "mcd_db": ("mcd_db", True),
    "f0_rmse_hz": ("f0_rmse_hz", True),
    "f0_gap_hz": ("f0_gap_hz", True),
    "dataset_rate_pps": ("reference_rate_pps", True),
}
"""Row field -> (the per-render score averaged into it, whether only lines with a reference count)."""


def val_mel_at_save(model_path: Path) -> float | None:
    """The val_mel a checkpoint was saved with, or None where nothing tells it (an ONNX voice).

    Looked up in order, precise values first: the checkpoint's own ``val_mel`` (ranked checkpoints saved by
    ``trainer.run.callbacks`` since it was added); its Lightning callback state (a ``ModelCheckpoint`` monitoring
    val_mel); the run's events (``events.jsonl`` of the run folder the checkpoint is in) at the checkpoint's
    epoch; last, the file name (``best-epoch=E-val_mel=V.ckpt``, rounded to 4 decimals). None for a checkpoint
    taken to a strength (``trainer.checkpoints.strength``): the val_mel it keeps, in it and in its name, is its
    checkpoint's as trained, never measured on the weights it holds.
    """
    from trainer.checkpoints.strength import STRENGTH_KEY, strength_of

    model_path = Path(model_path)
    if strength_of(model_path) is not None:
        return None
    found = re.search(r"val_mel=(\d+(?:\.\d+)?)", model_path.name)
    named = float(found.group(1)) if found else None
    if model_path.suffix.lower() != ".ckpt":
        return named
    from engines.base import VoiceError
    from engines.torch.vits.safe_load import load_safely

    try:
        checkpoint = load_safely(model_path)
    except (VoiceError, ImportError, OSError):
        return named
    if STRENGTH_KEY in checkpoint:
        return None
    for value in (
        _finite(checkpoint.get("val_mel")),
        _monitored_val_mel(checkpoint),
        _val_mel_of_epoch(model_path, checkpoint.get("epoch")),
    ):
        if value is not None:
            return value
    return named


def _finite(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def _monitored_val_mel(checkpoint: dict) -> float | None:
    """``current_score`` of a ModelCheckpoint callback that monitors val_mel, in a Lightning checkpoint."""
    for key, state in (checkpoint.get("callbacks") or {}).items():
        if isinstance(state, dict) and "val_mel" in str(key) and state.get("current_score") is not None:
            value = float(state["current_score"])
            return value if math.isfinite(value) else None
    return None


def _val_mel_of_epoch(model_path: Path, epoch: int | None) -> float | None:
    """val_mel of ``epoch`` in the events of the run holding ``model_path`` (``last.ckpt`` or ``checkpoints/``)."""
    from trainer.events.run_state import load_run
    from trainer.run.document import is_run

    if epoch is None:
        return None
    for folder in (model_path.parent, model_path.parent.parent):
        if is_run(folder):
            event = load_run(folder).epochs.get(int(epoch))
            return event.losses.get("val_mel") if event is not None else None
    return None


@dataclass(frozen=True)
class Scored:
    """What :func:`scored` gives: the rows, and the renders they were measured on by ``(candidate label, line
    index)`` (a candidate that failed has none), for the page that shows them to play."""

    rows: list[Row]
    renders: dict[tuple[str, int], Rendered]


def score(
    candidates: list[Candidate],
    lines: list[Line],
    settings: RenderSettings,
    cache_dir: Path,
    state: TaskState | None = None,
    pool: EnginePool | None = None,
    *,
    recordings: bool = False,
) -> list[Row]:
    """The rows of :func:`scored` (its arguments, what it raises)."""
    return scored(candidates, lines, settings, cache_dir, state, pool, recordings=recordings).rows


def scored(
    candidates: list[Candidate],
    lines: list[Line],
    settings: RenderSettings,
    cache_dir: Path,
    state: TaskState | None = None,
    pool: EnginePool | None = None,
    *,
    recordings: bool = False,
) -> Scored:
    """One row per candidate (in order): every line rendered (cached) and measured (cached), then averaged.
    With ``recordings``, a last row for the lines' own recordings (:func:`recordings_row`) where any line has one.

    A candidate that cannot be loaded or spoken does not stop the others: its row has every measure ``None`` and
    ``Row.failed`` says why. Status says ``rendering ... (step 1 of 2)`` then ``scoring ... (step 2 of 2: ...)``;
    progress counts the renders (candidates x lines), then from 0 the scorings (rendered candidates x lines), one
    report per render scored, from the cache or measured now.

    Raises:
        RenderError: no line, two candidates with one label, a line with nothing to speak, or no candidate
            could be rendered (with every reason).
        Cancelled: ``state`` was cancelled; no row is returned (renders and scores done so far stay cached).
    """
    if not lines:
        raise RenderError("nothing to score: no line")
    state = TaskState.of(state)
    state.status(f"rendering {count(len(lines), 'line')} by {count(len(candidates), 'candidate')} (step 1 of 2)")
    failed: dict[str, str] = {}
    renders = _render(candidates, lines, settings, Path(cache_dir), state, pool, failed)
    if len(failed) == len(candidates):
        raise RenderError("; ".join(failed.values()))
    scorer = Scorer(lines, Path(cache_dir), _language(candidates, failed))
    recorded = [i for i, line in enumerate(lines) if line.reference is not None] if recordings else []
    total, done = (len(candidates) - len(failed)) * len(lines) + len(recorded), 0
    state.status(f"scoring {count(total, 'render')} (step 2 of 2: pitch, speaker, words, quality)")
    state.progress(0, total)  # this step's count starts afresh (the bar is not left full from rendering)
    rows: list[Row] = []
    for candidate in candidates:
        if candidate.label in failed:
            rows.append(Row(label=candidate.label, model_path=candidate.model_path, failed=failed[candidate.label]))
            continue
        per_line = []
        for index in range(len(lines)):
            if state.is_cancelled():
                raise Cancelled("scoring cancelled; no row kept (renders and scores so far stay cached)")
            per_line.append(scorer.render_scores(candidate, index, renders[(candidate.label, index)]))
            done += 1
            state.progress(done, total)
        rows.append(candidate_row(candidate, lines, per_line, scorer))
    if recorded:
        rows.append(recordings_row(scorer, recorded, rows, state, done, total))
    return Scored(rows=rows, renders=renders)


def recordings_row(
    scorer: Scorer, recorded: list[int], rows: list[Row], state: TaskState, done: int = 0, total: int = 0
) -> Row:
    """The row of the recordings of lines ``recorded`` (``scorer.lines`` indices), heard as renders are: DNSMOS
    and WER (``Scorer.recording_scores``, cached); the speaking rate is the dataset rate the candidates' ``rows``
    measured. Labelled :data:`board.RECORDINGS_LABEL`, with the recordings' folder as its path.

    Raises:
        Cancelled: ``state`` was cancelled.
    """
    per_line = []
    for index in recorded:
        if state.is_cancelled():
            raise Cancelled("scoring cancelled; no row kept (renders and scores so far stay cached)")
        scores = scorer.recording_scores(index)
        assert scores is not None  # recorded lines have a recording
        per_line.append(scores)
        done += 1
        state.progress(done, total)
    means = _Means()
    for name in HEARD:
        means.add(name, name, per_line)
    means.values["rate_pps"] = means.values["dataset_rate_pps"] = next(
        (row.dataset_rate_pps for row in rows if row.dataset_rate_pps is not None), None
    )
    folders = [str(Path(str(scorer.lines[i].reference)).parent) for i in recorded]
    return Row(
        label=RECORDINGS_LABEL,
        model_path=Path(os.path.commonpath(folders)),
        missing=means.missing,
        failed=None,
        recognizer=_recognizers(per_line),
        lines=means.counted,
        stderr=means.errors,
        **means.values,
    )


@dataclass
class _Means:
    """A row's measures as they are averaged: values, why some are missing, the lines each rests on and its
    standard error over them (``trainer.evaluate.spread``)."""

    values: dict[str, float | None] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    counted: dict[str, int] = field(default_factory=dict)
    errors: dict[str, float] = field(default_factory=dict)

    def add(self, name: str, key: str, scores: list[Scores]) -> None:
        """Row field ``name``: the mean of the per-line score ``key`` over ``scores``, and its spread."""
        self.values[name], reason = _mean(key, scores)
        if reason:
            self.missing[name] = reason
        _spread(name, [float(s.values[key]) for s in scores if key in s.values], self.counted, self.errors)


def _recognizers(per_line: list[Scores]) -> str | None:
    """The recognizers that heard the lines (``Whisper tiny.en``), joined; ``None`` where WER was not measured."""
    return " and ".join(sorted({str(s.values["recognizer"]) for s in per_line if "recognizer" in s.values})) or None


def _language(candidates: list[Candidate], failed: dict[str, str]) -> str:
    """The espeak-ng voice of the first rendered candidate (``en-us``): WER's recognizer and normalization."""
    from engines.base import VoiceError

    for candidate in candidates:
        if candidate.label not in failed:
            try:
                return candidate.voice().config.espeak_voice
            except VoiceError:
                continue
    return "en"


def _render(candidates, lines, settings, cache_dir, state, pool, failed) -> dict[tuple[str, int], Rendered]:
    try:
        texts = [line.text for line in lines]
        return render_all(candidates, texts, settings, cache_dir, state, pool, failed=failed)
    except Cancelled as exc:
        rendered = f"{exc.done} of {exc.total} renders made" if exc.total else "nothing rendered"
        message = f"scoring cancelled; no row kept ({rendered}; the renders so far stay cached)"
        raise Cancelled(message, done=exc.done, total=exc.total) from None


def candidate_row(candidate: Candidate, lines: list[Line], per_line: list[Scores], scorer: Scorer) -> Row:
    """Average a candidate's per-line scores into its row, with how many lines each value rests on and its
    standard error over them (``trainer.evaluate.spread``)."""
    means = _Means()
    values, missing, counted, errors = means.values, means.missing, means.counted, means.errors
    has_reference = [line.reference is not None for line in lines]
    for name, (key, needs_reference) in SOURCES.items():
        means.add(name, key, [s for s, ref in zip(per_line, has_reference, strict=True) if ref or not needs_reference])
    values["similarity"], reason = scorer.similarity(per_line)
    if reason:
        missing["similarity"] = reason
    else:
        _similarity_spread(per_line, scorer, counted, errors)
    missing = _expected_reference(missing, lines)
    values["val_mel"] = val_mel_at_save(candidate.model_path)
    if values["val_mel"] is None:
        missing["val_mel"] = _no_val_mel(candidate)
    return Row(
        label=candidate.label,
        model_path=candidate.model_path,
        missing=missing,
        failed=None,
        recognizer=_recognizers(per_line),
        lines=counted,
        stderr=errors,
        **values,
    )


def _spread(name: str, measured: list[float], counted: dict[str, int], errors: dict[str, float]) -> None:
    """Record in ``counted`` and ``errors`` how many lines ``name``'s mean rests on and its standard error."""
    if measured:
        counted[name] = len(measured)
    error = standard_error(measured)
    if error is not None:
        errors[name] = error


def _similarity_spread(per_line: list[Scores], scorer, counted: dict[str, int], errors: dict[str, float]) -> None:
    """Similarity's renders counted and its jackknife standard error: the similarity recomputed without each
    render in turn (the references all kept; ``Scorer.similarity``)."""
    embedded = [s for s in per_line if "embedding" in s.values]
    counted["similarity"] = len(embedded)
    left_out = [scorer.similarity(embedded[:i] + embedded[i + 1 :])[0] for i in range(len(embedded))]
    error = jackknife_error([v for v in left_out if v is not None]) if len(embedded) >= 2 else None
    if error is not None:
        errors["similarity"] = error


def _expected_reference(missing: dict[str, str], lines: list[Line]) -> dict[str, str]:
    """``missing`` where a metadata.csv's recordings were not found: "no reference" says which file was looked for."""
    expected = next((line.no_reference for line in lines if line.no_reference), "")
    if not expected:
        return missing
    specific = f"no line has a reference recording ({expected})"
    return {name: specific if why == NO_REFERENCE else why for name, why in missing.items()}


def _no_val_mel(candidate: Candidate) -> str:
    from trainer.checkpoints.strength import strength_of

    if strength_of(candidate.model_path) is not None:
        return "a checkpoint at a strength was not validated (the val_mel it is labelled with is its checkpoint's)"
    if candidate.engine == "onnx":
        return "an ONNX voice does not keep the val_mel it was saved with"
    return "neither the checkpoint, its file name nor its run's events tell its val_mel"


def _mean(name: str, scores: list[Scores]) -> tuple[float | None, str | None]:
    """The mean of ``name`` over ``scores`` (one per line) and, when some or all lines lack it, why."""
    if not scores:
        return None, NO_REFERENCE
    measured = [float(s.values[name]) for s in scores if name in s.values]
    errors = [s.errors.get(name) or s.unavailable.get(name) or "not measured" for s in scores if name not in s.values]
    if not measured:
        return None, errors[0]
    mean = sum(measured) / len(measured)
    return mean, f"{len(errors)} of {count(len(scores), 'line')} not measured ({errors[0]})" if errors else None
