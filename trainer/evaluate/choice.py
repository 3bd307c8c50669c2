"""Which of a run's checkpoints Export takes, and why, in words (``voice-studio export RUN`` and the Train page's
Export voice say it; no Qt, no torch).

By default Export takes the **recommended** checkpoint (``trainer.evaluate.recommend``'s rule) among the run's
measured checkpoints still on disk, and names the lowest-val_mel one beside it; where nothing of the run was
measured, the lowest val_mel (the run's ranking, ``checkpoints/best.json``), saying so. It warns in one line
when the checkpoint taken is worse than the start voice beyond the noise bands on WER or DNSMOS, naming the
recommended one; a measure on which it is no worse than the lines' own recordings is not warned of (a voice
cannot be asked to be cleaner than the speech it learns from).

A run's measurements are evaluations (``trainer.evaluate.evaluation.Evaluation``): :func:`measured` reads the
run's canary evaluations (its ``evaluation`` events, ``trainer.evaluate.run_measures``), else the leaderboard row
saved in the run folder (``trainer.evaluate.best_row``); other evaluations can be passed to :func:`run_choice`.
:func:`measured_recordings` reads the recordings' own measures from the same source.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from trainer.checkpoints.best import RankedCheckpoint, best_checkpoint, ranked_checkpoints
from trainer.evaluate.bands import DEFAULT_BANDS, Bands
from trainer.evaluate.evaluation import Evaluation, band_text, listed, measure_name, shown
from trainer.evaluate.recommend import GUARDS, Recommendation, level_with_recordings, recommend

TAKES = ("recommended", "val_mel")
"""What Export can be asked to take: the recommended checkpoint, or the lowest val_mel."""


@dataclass(frozen=True, kw_only=True)
class ExportChoice:
    """The checkpoint Export takes and what to say about it.

    Attributes:
        checkpoint: the one taken.
        why: ``epoch 6 · val_mel 0.6200 (file best-epoch=0005-….ckpt, …) — the highest similarity (0.800) among …``:
            it (its file too), and why it.
        lowest: the lowest-val_mel checkpoint (the run's ranking's first).
        recommended: the recommended checkpoint on disk; ``None`` where nothing measured is on disk.
        beside: the other choice in one sentence ("" when they are the same checkpoint).
        warning: one line when the one taken is worse than the start voice beyond the bands, else "".
    """

    checkpoint: RankedCheckpoint
    why: str
    lowest: RankedCheckpoint
    recommended: RankedCheckpoint | None = None
    beside: str = ""
    warning: str = ""

    def lines(self) -> list[str]:
        """What Export says before it writes: why this one, the other choice, the warning."""
        return [text for text in (f"Exporting {self.why}.", self.beside, self.warning) if text]


def on_disk(evaluation: Evaluation, ranked: list[RankedCheckpoint]) -> RankedCheckpoint | None:
    """The ranked checkpoint ``evaluation`` measured: the same file, else the same epoch (counted from 1 in an
    evaluation, from 0 in a ranking) as trained; ``None`` when the run no longer keeps it. A checkpoint taken to a
    strength (``trainer.checkpoints.strength``) is the same file only: its epoch's checkpoint is another voice."""
    from trainer.checkpoints.strength import strength_of

    same = [c for c in ranked if evaluation.path and Path(evaluation.path).resolve() == c.path.resolve()]
    if same or (evaluation.path and strength_of(Path(evaluation.path)) is not None):
        return next(iter(same), None)
    return next((c for c in ranked if c.strength is None and c.epoch + 1 == evaluation.epoch), None)


def choose(
    ranked: list[RankedCheckpoint],
    evaluations: list[Evaluation],
    start: Evaluation | None,
    bands: Bands = DEFAULT_BANDS,
    take: str = "recommended",
    *,
    recordings: Evaluation | None = None,
) -> ExportChoice:
    """The checkpoint to export among ``ranked`` (best-val_mel first, on disk), by ``take`` (:data:`TAKES`);
    ``recordings``: the lines' own recordings measured alike, where known (the guards' floor).

    Raises:
        ValueError: ``ranked`` is empty, or ``take`` is not one of :data:`TAKES`.
    """
    if not ranked or take not in TAKES:
        raise ValueError(f"nothing to choose from, or {take!r} is not one of {', '.join(TAKES)}")
    kept = [(e, c) for e in evaluations if (c := on_disk(e, ranked)) is not None]
    lowest = ranked[0]
    if not kept:
        return ExportChoice(checkpoint=lowest, lowest=lowest, why=f"{lowest.describe()} — {_unmeasured(evaluations)}")
    advice = recommend([e for e, _ in kept], bands, start, recordings=recordings)
    recommended = next(c for e, c in kept if e is advice.chosen)
    taken = recommended if take == "recommended" else lowest
    why = f"{taken.describe()} — " + (advice.why if taken is recommended else "the lowest val_mel, as asked")
    evaluation = next((e for e, c in kept if c is taken), None)
    return ExportChoice(
        checkpoint=taken,
        why=why + (", which is also the lowest val_mel" if taken is recommended is lowest else ""),
        lowest=lowest,
        recommended=recommended,
        beside=_beside(taken, lowest, recommended, advice),
        warning=_warning(evaluation, start, bands, _other(taken, recommended, len(kept)), recordings),
    )


def _unmeasured(evaluations: list[Evaluation]) -> str:
    """Why the lowest val_mel is taken where no measured checkpoint is on disk."""
    if evaluations:
        return "the lowest val_mel (the checkpoints measured are no longer kept, so none can be recommended)"
    return (
        "the lowest val_mel (nothing of this run was measured, so none can be recommended: the Compare page's "
        "Leaderboard, or Score on the Train page, measures its checkpoints)"
    )


def _beside(
    taken: RankedCheckpoint, lowest: RankedCheckpoint, recommended: RankedCheckpoint, advice: Recommendation
) -> str:
    """The choice not taken, in one sentence."""
    if taken is lowest and taken is recommended:
        return ""
    if taken is recommended:
        return f"The lowest val_mel is {lowest.label()}."
    return f"The recommended checkpoint is {recommended.label()}: {advice.why}."


def _other(taken: RankedCheckpoint, recommended: RankedCheckpoint, measured: int) -> str:
    """The end of a warning: what else there is to take."""
    if recommended is not taken:
        return f"the recommended checkpoint is {recommended.label()}"
    if measured == 1:
        return "no other checkpoint of this run was measured (the Train page's Compare scores them all)"
    return "no other measured checkpoint of this run does better by the rule"


def _warning(
    evaluation: Evaluation | None,
    start: Evaluation | None,
    bands: Bands,
    other: str,
    recordings: Evaluation | None = None,
) -> str:
    """``Warning: epoch 5 is measurably worse than the start voice joe: WER 1.00 against 0.33 (beyond its ±0.03
    band); {other}.`` — or "" when it is not (or either is not measured), or only on measures where it is no
    worse than ``recordings``."""
    if evaluation is None or start is None:
        return ""
    worse = [m for m in GUARDS if evaluation.has(m) and start.has(m)]
    worse = [m for m in worse if bands.worse(m, evaluation.values[m], start.values[m])]
    worse = [m for m in worse if not level_with_recordings(evaluation, m, recordings, bands)]
    if not worse:
        return ""
    said = listed(
        [
            f"{measure_name(m)} {shown(m, evaluation.values[m])} against {shown(m, start.values[m])} "
            f"(beyond its {band_text(m, bands.of(m))} band)"
            for m in worse
        ]
    )
    return f"Warning: {evaluation.name()} is measurably worse than {start.name()}: {said}; {other}."


def measured_recordings(run_dir: Path, state=None) -> Evaluation | None:
    """The lines' own recordings as the run measured them, from the source :func:`measured` reads: its canary
    evaluations' (``run_measures.run_recordings``), else the recordings' row of the Compare page's saved
    leaderboard; ``None`` where neither has them. ``state``: as for :func:`measured`."""
    from trainer.evaluate.run_measures import canary_evaluations, run_recordings

    state = state if state is not None else _run_state(Path(run_dir))
    if state is not None and canary_evaluations(state):
        return run_recordings(state)
    return _compared_recordings(Path(run_dir))


def measured(run_dir: Path, state=None) -> tuple[list[Evaluation], Evaluation | None]:
    """A run's measurements: its canary evaluations (``trainer.evaluate.run_measures``), else the Compare page's
    saved leaderboard of the run (``leaderboard.csv``), else its best checkpoint's saved row; and the start voice's
    (that leaderboard's ``start: …`` row, else ``leaderboard-start.csv`` while it describes that voice), as
    ``(checkpoint evaluations, the start voice's or None)``. ``state``: the run's events already read
    (``trainer.events.run_state.RunState``), else they are read here."""
    from trainer.checkpoints.best import CheckpointError
    from trainer.evaluate.best_row import saved_best_row, saved_start_row
    from trainer.evaluate.evaluation import from_row
    from trainer.evaluate.run_measures import canary_evaluations

    start = saved_start_row(Path(run_dir))
    baseline = from_row(start) if start is not None else None
    state = state if state is not None else _run_state(Path(run_dir))
    canary = canary_evaluations(state) if state is not None else []
    if canary:
        return canary, baseline
    board, board_start = _compared(Path(run_dir))
    if board:
        return board, board_start or baseline
    try:
        best = saved_best_row(Path(run_dir), best_checkpoint(run_dir))
    except CheckpointError:
        best = None
    return ([from_row(best)] if best is not None else []), baseline


def _compared(run_dir: Path) -> tuple[list[Evaluation], Evaluation | None]:
    """The run's checkpoints and start voice as the Compare page's saved leaderboard of this run measured them
    (``RUN/leaderboard.csv``); nothing where there is none, it cannot be read, or an older scorer wrote it."""
    from trainer.evaluate.board import is_recordings
    from trainer.evaluate.evaluation import START_PREFIX, from_row

    rows = _board_rows(run_dir)
    start = next((from_row(r) for r in rows if r.label.startswith(START_PREFIX)), None)
    voices = [r for r in rows if not r.label.startswith(START_PREFIX) and not is_recordings(r)]
    return [from_row(r) for r in voices], start


def _compared_recordings(run_dir: Path) -> Evaluation | None:
    """The recordings' row of the Compare page's saved leaderboard of the run, as an evaluation, or ``None``."""
    from trainer.evaluate.board import is_recordings
    from trainer.evaluate.evaluation import from_row

    return next((from_row(r) for r in _board_rows(run_dir) if is_recordings(r)), None)


def _board_rows(run_dir: Path) -> list:
    """The rendered rows of ``RUN/leaderboard.csv``; none where there is no file, it cannot be read, or an older
    scorer wrote it (PocketSphinx's WER, floored MCD and F0). A row whose file was rewritten since it was scored
    (``last.ckpt`` after more epochs, by ``leaderboard.json``) is left out: it measured another voice."""
    from trainer.evaluate.best_row import BOARD_FILE, rewritten_since_scored
    from trainer.evaluate.board import BoardError, read_csv

    try:
        rows = [r for r in read_csv((run_dir / BOARD_FILE).read_text(encoding="utf-8")) if r.failed is None]
    except (OSError, BoardError, UnicodeDecodeError):
        return []
    if any(r.wer is not None and r.recognizer is None for r in rows):
        return []
    stale = rewritten_since_scored(run_dir)
    return [r for r in rows if str(Path(r.model_path).absolute()) not in stale]


def _run_state(run_dir: Path):
    """The run's state from its events (``trainer.events.run_state.load_run``), or ``None`` for a folder that is
    not a run or whose events cannot be read."""
    from trainer.events.run_state import load_run
    from trainer.run.document import is_run

    try:
        return load_run(run_dir) if is_run(run_dir) else None
    except (OSError, ValueError):
        return None


def run_choice(
    run_dir: Path,
    take: str = "recommended",
    evaluations: list[Evaluation] | None = None,
    start: Evaluation | None = None,
    bands: Bands = DEFAULT_BANDS,
    *,
    recordings: Evaluation | None = None,
) -> ExportChoice:
    """:func:`choose` over a run folder's ranked checkpoints and the evaluation checkpoint it keeps (the
    recommended epoch's, which val_mel may have ranked out); ``evaluations`` (and ``start``, ``recordings``)
    given, or else :func:`measured` and :func:`measured_recordings` from the run folder with the run's own noise
    bands.

    Raises:
        CheckpointError: not a run folder, no ranked checkpoint on disk, or an unreadable ranking.
        ValueError: ``take`` is not one of :data:`TAKES`.
    """
    best_checkpoint(run_dir)  # raises what a run without a ranked checkpoint raises
    judged = _judged(Path(run_dir), evaluations, start, bands, recordings)
    heard = judged.recordings
    return choose(judged.checkpoints, judged.evaluations, judged.start, judged.bands, take, recordings=heard)


@dataclass(frozen=True, kw_only=True)
class _Judged:
    """What a run's Export choice rests on: its checkpoints on disk (ranked, then the evaluation checkpoints kept),
    its measurements, the start voice's, the noise bands and the recordings' own measures."""

    checkpoints: list[RankedCheckpoint]
    evaluations: list[Evaluation]
    start: Evaluation | None
    bands: Bands
    recordings: Evaluation | None


def _judged(
    run_dir: Path,
    evaluations: list[Evaluation] | None = None,
    start: Evaluation | None = None,
    bands: Bands = DEFAULT_BANDS,
    recordings: Evaluation | None = None,
) -> _Judged:
    """The inputs of :func:`run_choice` (and of :func:`file_warning`, so both judge alike): those given, else the
    run folder's measurements with the run's own noise bands.

    Raises:
        CheckpointError: an unreadable ranking.
    """
    from trainer.evaluate.run_measures import kept_checkpoints

    if evaluations is None:
        state = _run_state(run_dir)  # read once: the evaluations and the run's own bands
        evaluations, start = measured(run_dir, state)
        recordings = measured_recordings(run_dir, state)
        bands = state.noise_bands if state is not None and bands is DEFAULT_BANDS else bands
    ranked = ranked_checkpoints(run_dir)
    everything = ranked + kept_checkpoints(evaluations, ranked)
    return _Judged(checkpoints=everything, evaluations=evaluations, start=start, bands=bands, recordings=recordings)


def file_warning(path: Path) -> str:
    """The warning :func:`run_choice` would give for one checkpoint file named outright (a run's ranked checkpoint,
    or the evaluation checkpoint it keeps) where the run measured it worse than its start voice, judged as
    ``run_choice`` judges (the run's own noise bands, the same recommended checkpoint named); "" otherwise (never
    raises)."""
    from trainer.checkpoints.best import CheckpointError
    from trainer.run.document import run_of

    run = run_of(path)
    if run is None:
        return ""
    try:
        judged = _judged(run)
    except CheckpointError:
        return ""
    chosen = next((c for c in judged.checkpoints if c.path.resolve() == Path(path).resolve()), None)
    if chosen is None:
        return ""
    kept = [(e, c) for e in judged.evaluations if (c := on_disk(e, judged.checkpoints)) is not None]
    evaluation = next((e for e, c in kept if c is chosen), None)
    advice = recommend([e for e, _ in kept], judged.bands, judged.start, recordings=judged.recordings)
    recommended = next((c for e, c in kept if e is advice.chosen), chosen)
    other = _other(chosen, recommended, len(kept))
    return _warning(evaluation, judged.start, judged.bands, other, judged.recordings)
