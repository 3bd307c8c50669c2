"""Resuming a run with options: what a resume applies (epochs, device, workers, compile, the canary evaluations)
and what it refuses.

A resume continues exactly where the run stopped (``last.ckpt``: weights, optimizers,
loops), so the settings that shaped that state (dataset, start, preset, batch size,
DDP processes and machines, precision) cannot change (more or fewer processes would change the
batches each step averages over and how the epoch is sharded: a new run ``--from`` the best
checkpoint does that); asking for another value is refused,
naming each option and the run's value, rather than silently ignored.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from trainer.run.document import RunDocument, read_run, write_run
from trainer.run.errors import RunError
from trainer.run.options import flag
from trainer.run.train import check_resumable, more_epochs

REFUSED = (
    "dataset",
    "out",
    "start",
    "preset",
    "batch_size",
    "devices",
    "num_nodes",
    "precision",
    "no_recovery_cache",
)
"""``RunOptions`` fields a resume cannot change (it refuses them unless they equal the run's)."""


def resume_settings(run_dir: Path | str, given: dict[str, Any], **changes: Any) -> list[str]:
    """Apply what a resume may change (``epochs``, ``device``, ``workers``, ``compile``, ``eval_every``,
    ``eval_lines``: the keywords of :func:`resume_plan`) by writing ``training.json``, and say so; refuse the
    rest.

    Returns:
        one line per applied change, e.g. ``resuming with --device cpu (was auto)``.
    Raises:
        RunError: as :func:`resume_plan`; nothing is changed then.
    """
    document, messages = resume_plan(run_dir, given, **changes)
    if messages:
        write_run(document)
    return messages


def resume_plan(
    run_dir: Path | str,
    given: dict[str, Any],
    *,
    epochs: int | None = None,
    device: str | None = None,
    workers: int | None = None,
    compile: str | None = None,
    eval_every: int | None = None,
    eval_lines: int | None = None,
) -> tuple[RunDocument, list[str]]:
    """The run's ``training.json`` as a resume trains it, unwritten, and one line per change: what a resume
    may change (``epochs``, ``device``, ``workers``, ``compile``, ``eval_every``, ``eval_lines``) applied, the
    rest refused. The ranks other
    than 0 of a DDP resume train from it while rank 0 writes it (the file read before or after rank 0 wrote
    it gives the same plan).

    Args:
        given: other settings the command named (``RunOptions`` names, one of ``REFUSED``); one equal
            to the run's own is accepted.
    Raises:
        RunError: not a run, nothing to resume yet, settings that differ from the run's (each named
            with the run's value), or a finished run given no more epochs.
    """
    run_dir = Path(run_dir)
    document = read_run(run_dir)
    if not (run_dir / "last.ckpt").exists():
        raise RunError(f"{run_dir}: nothing to resume yet (no last.ckpt)")
    own = _run_values(document)
    refused = [
        f"{flag(key)} {value} (the run's: {own[key]})"
        for key, value in given.items()
        if not _same_setting(key, value, own[key])
    ]
    if refused:
        raise RunError(
            f"{run_dir}: a resume continues with the run's own settings, so these cannot change: "
            f"{'; '.join(refused)}. Leave them out (--epochs, --device, --workers, --compile, --eval-every and "
            "--eval-lines apply on a resume), "
            "or start a new run with --out"
        )
    check_resumable(run_dir, epochs if epochs is not None else int(document.config["epochs"]))  # before any change
    changes = {"device": device, "workers": workers, "compile": compile}
    return _plan(document, epochs, {**changes, "eval_every": eval_every, "eval_lines": eval_lines})


def _run_values(document: RunDocument) -> dict[str, Any]:
    """The run's own value of each setting a resume refuses to change."""
    options = document.options
    own = {key: getattr(options, key) for key in REFUSED}
    return {**own, "dataset": str(options.dataset), "out": str(options.out), "batch_size": options.batch_size or "auto"}


def _plan(document: RunDocument, epochs: int | None, settings: dict[str, Any]) -> tuple[RunDocument, list[str]]:
    """``document`` with the new epoch count and the other settings changed; a line for each."""
    messages = []
    was = document.options
    if epochs is not None and epochs != was.epochs:
        document = more_epochs(document, epochs)
        messages.append(f"resuming to {epochs} epochs (was {was.epochs})")
    changes = {k: v for k, v in settings.items() if v is not None and v != getattr(was, k)}
    if changes:
        messages += [f"resuming with {flag(k)} {v} (was {getattr(was, k)})" for k, v in changes.items()]
        document = replace(document, options=replace(document.options, **changes))
    return document, messages


def _same_setting(key: str, value: Any, own: Any) -> bool:
    if key in ("dataset", "out"):
        return own is not None and Path(value).resolve() == Path(own).resolve()
    return str(value) == str(own)
