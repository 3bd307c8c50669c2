"""Resuming a run with options: what a resume applies (epochs, device, workers) and what it refuses.

A resume continues exactly where the run stopped (``last.ckpt``: weights, optimizers,
loops), so the settings that shaped that state (dataset, start, preset, batch size,
DDP processes, precision) cannot change; asking for another value is refused,
naming each option and the run's value, rather than silently ignored.
"""

from __future__ import annotations

import json
from pathlib import Path

from engines.files import write_text
from trainer.run import _read_run, extend_run
from trainer.starts import RunError

RESUME_FLAGS = {
    "dataset": "--dataset",
    "out": "--out",
    "start": "--from",
    "preset": "--preset",
    "batch_size": "--batch-size",
    "devices": "--devices",
    "precision": "--precision",
    "device": "--device",
    "workers": "--workers",
}
"""Command-line names of the run settings a resume is asked about."""


def resume_settings(
    run_dir: Path | str,
    given: dict,
    *,
    epochs: int | None = None,
    device: str | None = None,
    workers: int | None = None,
) -> list[str]:
    """Apply what a resume may change (``epochs``, ``device``, ``workers``) and say so; refuse the rest.

    Args:
        given: other settings the command named (``RunOptions`` names: dataset, out, start, preset,
            batch_size, devices, precision); one equal to the run's own is accepted.
    Returns:
        one line per applied change, e.g. ``resuming with --device cpu (was auto)``.
    Raises:
        RunError: not a run, nothing to resume yet, settings that differ from the run's (each named
            with the run's value; nothing is changed then), or an epoch count the run has done already.
    """
    run_dir = Path(run_dir)
    document = _read_run(run_dir)
    if not (run_dir / "last.ckpt").exists():
        raise RunError(f"{run_dir}: nothing to resume yet (no last.ckpt)")
    own = _run_values(run_dir, document)
    refused = [
        f"{RESUME_FLAGS[key]} {value} (the run's: {own[key]})"
        for key, value in given.items()
        if not _same_setting(key, value, own[key])
    ]
    if refused:
        raise RunError(
            f"{run_dir}: a resume continues with the run's own settings, so these cannot change: "
            f"{'; '.join(refused)}. Leave them out (--epochs, --device and --workers apply on a resume), "
            "or start a new run with --out"
        )
    return _apply(run_dir, document, epochs, {"device": device, "workers": workers})


def _run_values(run_dir: Path, document: dict) -> dict:
    """The run's own value of each setting a resume refuses to change."""
    return {
        "dataset": document.get("dataset"),
        "out": str(run_dir),
        "start": document["start"],
        "preset": document["preset"],
        "batch_size": document["config"].get("batch_size") or "auto",
        "devices": document.get("devices", 1),
        "precision": document.get("precision", "auto"),
    }


def _apply(run_dir: Path, document: dict, epochs: int | None, settings: dict) -> list[str]:
    """Write the new epoch count and the changed ``device``/``workers`` into ``training.json``; say each."""
    messages = []
    if epochs is not None and epochs != document["config"]["epochs"]:
        extend_run(run_dir, epochs)
        messages.append(f"resuming to {epochs} epochs (was {document['config']['epochs']})")
    changes = {k: v for k, v in settings.items() if v is not None and v != document.get(k)}
    if changes:
        document = _read_run(run_dir)
        messages += [f"resuming with {RESUME_FLAGS[k]} {v} (was {document.get(k)})" for k, v in changes.items()]
        document.update(changes)
        write_text(run_dir / "training.json", json.dumps(document, indent=2))
    return messages


def _same_setting(key: str, value, own) -> bool:
    if key in ("dataset", "out"):
        return own is not None and Path(value).resolve() == Path(own).resolve()
    return str(value) == str(own)
