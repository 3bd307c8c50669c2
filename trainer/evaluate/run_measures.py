"""A run's canary evaluations as the verdict, the recommendation and Export read them (no Qt, no torch).

The trainer writes one ``evaluation`` event per evaluated epoch (``trainer.run.canary_callback``); here each becomes a
:class:`~trainer.evaluate.evaluation.Evaluation` (epochs counted from 1, the epoch's val_mel added to the heard
measures) whose ``path`` is the epoch's evaluation checkpoint where the run still keeps it. The run keeps the
checkpoint of the recommended epoch (:func:`keep_recommended`), so "keep epoch N" can always be exported, also
when val_mel, still falling, has ranked epoch N out of the best checkpoints.
"""

from __future__ import annotations

from pathlib import Path

from trainer.checkpoints.best import RankedCheckpoint
from trainer.evaluate.bands import Bands
from trainer.evaluate.canary import FOLDER, checkpoint_path
from trainer.evaluate.evaluation import Evaluation
from trainer.evaluate.verdict import Verdict, verdict
from trainer.events.run_state import RunState


def canary_evaluations(state: RunState) -> list[Evaluation]:
    """The run's canary evaluations in epoch order, each with its epoch's val_mel (where validated) and the
    evaluation checkpoint it measured (``path``, "" where no longer kept)."""
    found = []
    for epoch in sorted(state.evaluations):
        event = state.evaluations[epoch]
        values = dict(event.values)
        done = state.epochs.get(epoch)
        if done is not None and "val_mel" in done.losses:
            values["val_mel"] = float(done.losses["val_mel"])
        kept = checkpoint_path(state.folder, epoch)
        path = str(kept) if kept.is_file() else ""
        found.append(
            Evaluation(epoch=epoch + 1, values=values, lines=event.lines, label=f"epoch {epoch + 1}", path=path)
        )
    return found


def run_recordings(state: RunState) -> Evaluation | None:
    """The canary lines' own recordings as the run heard them (``RunState.recordings``), as an evaluation
    labelled ``board.RECORDINGS_LABEL``: the floor of the recommendation's guards; ``None`` where not measured."""
    from trainer.evaluate.board import RECORDINGS_LABEL

    heard = state.recordings
    if heard is None:
        return None
    values, lines = heard
    return Evaluation(epoch=0, values=values, lines=lines, label=RECORDINGS_LABEL)


def run_verdict(state: RunState) -> Verdict | None:
    """Still improving / levelled off / getting worse over the run's canary evaluations, with the run's own noise
    bands and its recordings' floor; ``None`` before the first evaluation."""
    evaluations = canary_evaluations(state)
    return verdict(evaluations, state.noise_bands, recordings=run_recordings(state)) if evaluations else None


def kept_checkpoints(evaluations: list[Evaluation], ranked: list[RankedCheckpoint]) -> list[RankedCheckpoint]:
    """The checkpoints (``.ckpt``; an exported voice measured beside them is none) measured that are still on disk
    beside the run's ranking, as ranked checkpoints (metric val_mel, its value where known, else NaN) for Export to
    choose from: the evaluation checkpoints whose epoch the ranking does not hold, and those taken to a strength
    (``trainer.checkpoints.strength``: known by their file, since their epoch is a ranked checkpoint's)."""
    from trainer.checkpoints.strength import strength_of

    held = {c.epoch for c in ranked}
    kept = []
    for evaluation in evaluations:
        path = Path(evaluation.path) if evaluation.path else None
        if path is None or path.suffix.lower() != ".ckpt" or not path.is_file():
            continue
        named = strength_of(path)
        if named is None and evaluation.epoch - 1 in held:
            continue
        value = evaluation.values.get("val_mel", float("nan"))
        strength = named[1] if named is not None else None
        kept.append(
            RankedCheckpoint(path=path, epoch=evaluation.epoch - 1, metric="val_mel", value=value, strength=strength)
        )
    return kept


def keep_recommended(state: RunState, bands: Bands | None = None) -> Path | None:
    """Remove the run's evaluation checkpoints already measured except the recommended epoch's; returns the one
    kept (``None`` without any). A checkpoint still waiting for its measures is left alone.

    Raises:
        OSError: a checkpoint cannot be removed.
    """
    from trainer.evaluate.recommend import recommend

    evaluations = [e for e in canary_evaluations(state) if e.path]
    if not evaluations:
        return None
    chosen = recommend(evaluations, bands or state.noise_bands, recordings=run_recordings(state)).chosen
    keep = Path(chosen.path) if chosen is not None and chosen.path else None
    for evaluation in evaluations:
        if keep is None or Path(evaluation.path) != keep:
            Path(evaluation.path).unlink(missing_ok=True)
    return keep


def evaluations_folder(run_dir: Path | str) -> Path:
    """``RUN/evaluations``: where the canary's checkpoints, results and logs are."""
    return Path(run_dir) / FOLDER
