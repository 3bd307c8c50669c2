"""A run's ``training.json``: its :class:`~trainer.run.options.RunOptions`, cache, training config and start
conversions.

:func:`read_run` is the one reader (the trainer, a resume and the studio's run list all use it);
:func:`write_run` the one writer (atomic). The file keeps the keys, order and version it had before
``RunDocument`` existed, so the runs made before read as they are::

    {"version": 1, "dataset": ..., "cache": ..., "start": ..., "preset": ..., "device": ..., "workers": ...,
     "devices": ..., "precision": ..., "config": {...}, "lr_schedule": "...", "conversions": [...]}

``num_nodes``, ``no_recovery_cache``, ``compile``, ``eval_every`` and ``eval_lines`` are written only when they
differ from their defaults.

``epochs`` and ``batch_size`` live in ``config`` (the preset's values with the run's overrides). A config
written before a setting existed reads with the value it ran with (``trainer.run.presets.BEFORE``): a run's config
without ``lr_final_fraction`` keeps its fixed per-epoch learning-rate factors.

``lr_schedule`` says the run's learning-rate schedule in words (``trainer.gan.lr_schedule.words``: ``exponential per
epoch to 5% of the start at the last epoch (1,000): generator 2e-4 → 1e-5, discriminators 1e-4 → 5e-6``), written
again with every change of the epochs; only for runs made with the schedule (their files only: an older run's
file is written back as it was). The reader ignores it: ``config`` says the same.
"""

from __future__ import annotations

import json
import types
import typing
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from engines.base import VoiceError
from engines.records import matches, read_json_object
from trainer.gan.lr_schedule import words
from trainer.run.options import RunOptions
from trainer.run.presets import unknown_settings

RUN_VERSION = 1
"""``version`` of ``training.json``."""
TRAINING_FILE = "training.json"
CHECKPOINTS_FOLDER = "checkpoints"
"""A run's ranked checkpoints (``best-epoch=NNNN-val_mel=….ckpt``); ``last.ckpt`` lies beside ``training.json``."""
EVALUATIONS_FOLDER = "evaluations"
"""A run's canary evaluations (``trainer.evaluate.canary``): checkpoints while measured, results, logs."""
STRENGTHS_FOLDER = "strengths"
"""A run's checkpoints taken to a strength (``trainer.checkpoints.strength``: ``<checkpoint>-strength=0.70.ckpt``)."""
RUN_FOLDERS = (CHECKPOINTS_FOLDER, EVALUATIONS_FOLDER, STRENGTHS_FOLDER)
"""The folders of a run whose ``.ckpt`` files are the run's (:func:`run_of`)."""
STORED = (
    "start",
    "preset",
    "device",
    "workers",
    "devices",
    "num_nodes",
    "precision",
    "no_recovery_cache",
    "compile",
    "eval_every",
    "eval_lines",
)
"""``RunOptions`` fields kept in ``training.json`` as they are (``dataset`` as text; ``out`` is the folder)."""
OPTIONAL = {
    "device": "auto",
    "workers": 0,
    "devices": 1,
    "num_nodes": 1,
    "precision": "auto",
    "no_recovery_cache": False,
    "compile": "auto",
    "eval_every": None,
    "eval_lines": None,
}
"""Keys older runs may lack, and the value they ran with."""
WRITTEN_WHEN_SET = ("num_nodes", "no_recovery_cache", "compile", "eval_every", "eval_lines")
"""Settings written only when they differ from their ``OPTIONAL`` value: a run that sets none writes the file it
always wrote."""


@dataclass(frozen=True, kw_only=True)
class RunDocument:
    """What ``training.json`` says about a run.

    Attributes:
        options: the run's options; ``out`` is the run folder, ``dataset`` absolute, ``epochs`` and
            ``batch_size`` the config's.
        cache: the preprocessed cache the run trains on (absolute).
        config: ``trainer.run.presets.TrainingConfig.to_dict()`` of the run.
        conversions: how the start was made to fit the dataset (``trainer.start.shape``), said at the start.
    """

    options: RunOptions
    cache: Path
    config: dict[str, Any]
    conversions: list[str] = field(default_factory=list)

    def with_epochs(self, epochs: int) -> RunDocument:
        """The same run set to train ``epochs`` epochs in all."""
        return replace(self, options=replace(self.options, epochs=epochs), config={**self.config, "epochs": epochs})

    def to_json(self) -> dict[str, Any]:
        """The ``training.json`` object (keys in the order the file has always had)."""
        stored = {name: getattr(self.options, name) for name in STORED}
        stored = {k: v for k, v in stored.items() if k not in WRITTEN_WHEN_SET or v != OPTIONAL[k]}  # as it was
        said = words(self.config) if "lr_final_fraction" in self.config else ""  # a run made with the schedule
        schedule = {"lr_schedule": said} if said else {}
        return {
            "version": RUN_VERSION,
            "dataset": str(self.options.dataset),
            "cache": str(self.cache),
            **stored,
            **({"settings": list(self.options.settings)} if self.options.settings else {}),
            "config": self.config,
            **schedule,
            "conversions": self.conversions,
        }


def read_run(folder: Path | str) -> RunDocument:
    """The ``training.json`` of run folder ``folder``.

    Raises:
        RunError: not a run folder (no ``training.json``), or another version.
        VoiceError: a cut or garbled file, a missing or mistyped field, or a setting this studio does not have
            (naming the file, line or field).
    """
    from trainer.run.errors import RunError

    folder = Path(folder)
    path = folder / TRAINING_FILE
    if not path.exists():
        raise RunError(f"{folder}: not a run folder (no {TRAINING_FILE})")
    raw = read_json_object(path)
    if raw.get("version") != RUN_VERSION:
        raise RunError(f"{path}: run version {raw.get('version')!r} is not {RUN_VERSION}")
    config = _field(raw, path, "config", dict[str, Any])
    unknown = unknown_settings(config)
    if unknown:
        raise VoiceError(path, f"unknown setting {unknown[0]!r}: this studio does not have it", f"config.{unknown[0]}")
    hints = typing.get_type_hints(RunOptions)
    values = {name: _field(raw, path, name, hints[name], fallback=OPTIONAL.get(name)) for name in STORED}
    try:
        options = RunOptions(
            dataset=Path(_field(raw, path, "dataset", str)),
            out=folder,
            epochs=_field(config, path, "epochs", int, "config.epochs"),
            batch_size=_field(config, path, "batch_size", int | None, "config.batch_size"),
            settings=_settings(raw, path),
            **values,
        )
    except RunError as exc:  # a value out of its range (RunOptions names the option)
        raise RunError(f"{path}: {exc}") from None
    conversions = _field(raw, path, "conversions", list[str]) if "conversions" in raw else []
    return RunDocument(
        options=options, cache=Path(_field(raw, path, "cache", str)), config=config, conversions=conversions
    )


def _settings(raw: dict[str, Any], path: Path) -> tuple[str, ...]:
    """The run's ``--set`` texts (``settings``; none where absent).

    Raises:
        VoiceError: not a list of strings, or a setting this studio does not take, naming the field.
    """
    from trainer.run.settings import parse_setting

    settings = tuple(_field(raw, path, "settings", list[str])) if "settings" in raw else ()
    for index, text in enumerate(settings):
        try:
            parse_setting(text)
        except ValueError as exc:
            raise VoiceError(path, str(exc), f"settings[{index}]") from None
    return settings


def _field(
    raw: dict[str, Any], path: Path, name: str, hint: Any, where: str | None = None, fallback: Any = None
) -> Any:
    """``raw[name]`` (``fallback`` when absent: the value an older run ran with), checked against ``hint``.

    Raises:
        VoiceError: missing or of another type, naming ``where`` (default ``name``).
    """
    value = raw.get(name, fallback)
    if not matches(value, hint):
        raise VoiceError(
            path, "missing" if name not in raw else f"must be {_json_type(hint)}, got {value!r}", where or name
        )
    return value


def _json_type(hint: Any) -> str:
    """How a JSON value of type ``hint`` is called in an error: ``int | None`` -> ``an integer or null``."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_json_type(a) for a in typing.get_args(hint))
    if origin in (dict, list):
        return "an object" if origin is dict else "a list of strings"
    return {int: "an integer", str: "a string", float: "a number", type(None): "null"}.get(hint, str(hint))


def write_run(document: RunDocument) -> Path:
    """Write ``document`` to ``training.json`` in its run folder (``options.out``) atomically; returns the path."""
    from engines.files import write_text

    return write_text(document.options.out / TRAINING_FILE, json.dumps(document.to_json(), indent=2))


def is_run(folder: Path) -> bool:
    """Whether ``folder`` holds a ``training.json`` (it may still be unreadable: :func:`read_run` says why)."""
    return (folder / TRAINING_FILE).is_file()


def run_of(path: Path | str) -> Path | None:
    """The run folder a checkpoint belongs to (``RUN/checkpoints/*.ckpt``, the evaluation checkpoint it keeps in
    ``RUN/evaluations/``, one taken to a strength in ``RUN/strengths/``, or ``RUN/last.ckpt``), else ``None`` (not
    a ``.ckpt``, or no run there)."""
    path = Path(path)
    if path.suffix.lower() != ".ckpt":
        return None
    run = path.parent.parent if path.parent.name in RUN_FOLDERS else path.parent
    return run if is_run(run) else None
