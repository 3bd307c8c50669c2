"""Resuming a run with options: what a resume applies (epochs, device, workers) and what it refuses.

A resume continues exactly where the run stopped (``last.ckpt``: weights, optimizers,
loops), so the settings that shaped that state (dataset, start, preset, batch size,
DDP processes, precision) cannot change; asking for another value is refused,
naming each option and the run's value, rather than silently ignored.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from trainer.options import flag
from trainer.run import check_resumable, extend_run
from trainer.run_file import RunDocument, read_run, write_run
from trainer.starts import RunError

REFUSED = ("dataset", "out", "start", "preset", "batch_size", "devices", "precision", "no_recovery_cache")
"""``RunOptions`` fields a resume cannot change (it refuses them unless they equal the run's)."""


def resume_settings(
    run_dir: Path | str,
    given: dict[str, Any],
    *,
    epochs: int | None = None,
    device: str | None = None,
    workers: int | None = None,
    compile: str | None = None,
) -> list[str]:
    """Apply what a resume may change (``epochs``, ``device``, ``workers``, ``compile``) and say so; refuse the
    rest.

    Args:
        given: other settings the command named (``RunOptions`` names, one of ``REFUSED``); one equal
            to the run's own is accepted.
    Returns:
        one line per applied change, e.g. ``resuming with --device cpu (was auto)``.
    Raises:
        RunError: not a run, nothing to resume yet, settings that differ from the run's (each named
            with the run's value), or a finished run given no more epochs; nothing is changed then.
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
            f"{'; '.join(refused)}. Leave them out (--epochs, --device, --workers and --compile apply on a resume), "
            "or start a new run with --out"
        )
    check_resumable(run_dir, epochs if epochs is not None else int(document.config["epochs"]))  # before any change
    return _apply(document, epochs, {"device": device, "workers": workers, "compile": compile})


def _run_values(document: RunDocument) -> dict[str, Any]:
    """The run's own value of each setting a resume refuses to change."""
    options = document.options
    own = {key: getattr(options, key) for key in REFUSED}
    return {**own, "dataset": str(options.dataset), "out": str(options.out), "batch_size": options.batch_size or "auto"}


def _apply(document: RunDocument, epochs: int | None, settings: dict[str, Any]) -> list[str]:
    """Write the new epoch count and the changed ``device``/``workers``/``compile`` into ``training.json``; say each."""
    messages = []
    run_dir, was = document.options.out, document.options
    if epochs is not None and epochs != was.epochs:
        extend_run(run_dir, epochs)
        messages.append(f"resuming to {epochs} epochs (was {was.epochs})")
    changes = {k: v for k, v in settings.items() if v is not None and v != getattr(was, k)}
    if changes:
        document = read_run(run_dir)
        messages += [f"resuming with {flag(k)} {v} (was {getattr(was, k)})" for k, v in changes.items()]
        write_run(replace(document, options=replace(document.options, **changes)))
    return messages


def _same_setting(key: str, value: Any, own: Any) -> bool:
    if key in ("dataset", "out"):
        return own is not None and Path(value).resolve() == Path(own).resolve()
    return str(value) == str(own)
