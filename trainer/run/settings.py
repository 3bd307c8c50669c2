"""``--set NAME=VALUE``: a ``TrainingConfig`` setting a new run takes instead of its preset's.

The benches' ablations (docs/benchmarks.md: ``--set inference_anchor=0``, ``--set stft_loss=0``…) as
``voice-studio train`` flags, so a user can run what a table measured. Only the settings of how a run learns can be
set (:data:`SETTABLE`); the voice's shape and audio front end (``model``, ``sample_rate``, ``hop_length``, the mel
settings) follow the start voice and the dataset, and ``epochs`` and ``batch_size`` have flags of their own. The
run's ``training.json`` keeps the values in its ``config``, so a resume trains on with them. No torch is imported.
"""

from __future__ import annotations

import difflib
import math
import re
import types
import typing
from dataclasses import fields, replace
from typing import Any

from trainer.run.presets import TrainingConfig, as_started

FIXED = (
    "model",
    "discriminator_width",
    "sample_rate",
    "n_fft",
    "hop_length",
    "win_length",
    "n_mels",
    "mel_fmin",
    "mel_fmax",
    "batch_size",
    "epochs",
)
"""``TrainingConfig`` fields ``--set`` refuses: the network's and the audio front end's shape (they follow the start
and the dataset) and those with a flag of their own (``--epochs``, ``--batch-size``)."""
SETTABLE = tuple(f.name for f in fields(TrainingConfig) if f.name not in FIXED)
"""The settings ``--set`` takes, in ``TrainingConfig``'s order."""
RANGES: dict[str, tuple[float, float | None, str]] = {
    "learning_rate": (0, None, "low"),
    "learning_rate_d": (0, None, "low"),
    "betas": (0, 1, "high"),
    "betas_d": (0, 1, "high"),
    "eps": (0, None, "low"),
    "lr_final_fraction": (0, 1, "low"),
    "lr_decay": (0, 1, "low"),
    "lr_decay_d": (0, 1, "low"),
    "grad_clip": (0, None, "low"),
    "val_fraction": (0, 1, "both"),
    "max_val": (1, None, ""),
    "preview_every": (1, None, ""),
    "checkpoint_every": (1, None, ""),
    "keep_best": (1, None, ""),
    "seed": (0, 2**32 - 1, ""),
    "d_warmup_max_share": (0, 1, ""),
    "recovery_lines": (1, None, ""),
}
"""``(low, high, open ends)`` of a setting's values (each number of a pair), where not "at least 0": ``high``
``None`` for none; the open ends (``low``, ``high``, ``both``) are excluded. What each field's use needs: a rate,
``eps`` and a clip norm above 0 (AdamW, ``clip_grad_norm_``), AdamW's betas below 1, a final fraction and per-epoch
factors in (0, 1] (``trainer.gan.lr_schedule``), a validation share in (0, 1) and a clip or more of it, epochs between
previews and checkpoints (``%``), a checkpoint kept, numpy's seed range (``lightning.seed_everything``), a share of
the run, a line for the recovery to fit on."""
_HINTS = typing.get_type_hints(TrainingConfig)
OWN_FLAGS = {"epochs": "--epochs", "batch_size": "--batch-size"}
"""Settings with a ``voice-studio train`` flag of their own."""


def _kind(hint: Any) -> tuple[Any, bool]:
    """A field's type without ``None``, and whether it may be ``None`` (``float | None`` -> ``(float, True)``)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        kinds = [k for k in typing.get_args(hint) if k is not type(None)]
        return kinds[0], len(kinds) < len(typing.get_args(hint))
    return hint, False


def parse_setting(text: str) -> tuple[str, Any]:
    """``"stft_loss=0"`` -> ``("stft_loss", 0.0)``: the setting's name and its value in the field's type
    (``float``, ``int``, ``bool`` as true/false, a pair as ``0.8,0.99``, ``none`` where the field may be
    ``None``).

    Raises:
        ValueError: no ``=``, a name not in :data:`SETTABLE` (naming the closest, where one is close, and the
            ones that are), or a value the field cannot take (naming the field and what it takes).
    """
    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name:
        raise ValueError(f"'{text}': give NAME=VALUE, e.g. stft_loss=0")
    if name in OWN_FLAGS:
        raise ValueError(f"'{name}' has a flag of its own: {OWN_FLAGS[name]}")
    if name not in SETTABLE:
        why = "follows the start voice and the dataset" if name in FIXED else "is not a training setting"
        close = difflib.get_close_matches(name.lower(), SETTABLE, n=1)
        guess = f" (did you mean {close[0]}?)" if close else ""
        raise ValueError(f"'{name}' {why}{guess}; the settings: {', '.join(SETTABLE)}")
    return name, _value(name, value)


def _value(name: str, text: str) -> Any:
    """``text`` as the value of setting ``name`` (:func:`parse_setting`)."""
    kind, nullable = _kind(_HINTS[name])
    if nullable and text.lower() == "none":
        return None
    try:
        if kind is bool:
            return {"true": True, "1": True, "false": False, "0": False}[text.lower()]
        if typing.get_origin(kind) is tuple:
            value: Any = tuple(_number(name, float(part)) for part in text.split(","))
            if len(value) != len(typing.get_args(kind)):
                raise ValueError
            return value
        return _number(name, kind(text))
    except (KeyError, ValueError):
        raise ValueError(f"{name}={text}: {name} takes {_takes(name)}") from None


def _number(name: str, value: float) -> Any:
    """``value`` if it is finite and within the setting's range (:data:`RANGES`; at least 0 where unlisted)."""
    low, high, open_ends = RANGES.get(name, (0, None, ""))
    below = value <= low if open_ends in ("low", "both") else value < low
    above = high is not None and (value >= high if open_ends in ("high", "both") else value > high)
    if not math.isfinite(value) or below or above:
        raise ValueError
    return value + 0  # -0.0 as 0.0


def _range_words(name: str) -> str:
    """A setting's range in words: ``at least 0``, ``above 0``, ``from 0 to 1``, ``above 0 and below 1``…"""
    low, high, open_ends = RANGES.get(name, (0, None, ""))
    start = f"above {low:,}" if open_ends in ("low", "both") else f"at least {low:,}"
    if high is None:
        return start
    if not open_ends:
        return f"from {low:,} to {high:,}"
    return f"{start} and {'below' if open_ends in ('high', 'both') else 'at most'} {high:,}"


def _takes(name: str) -> str:
    """What setting ``name`` takes, in words: ``a number at least 0``, ``true or false``, ``2 numbers …``."""
    kind, nullable = _kind(_HINTS[name])
    sign = f" {_range_words(name)}"
    if kind is bool:
        words = "true or false"
    elif typing.get_origin(kind) is tuple:
        words = f"{len(typing.get_args(kind))} numbers{sign}, comma-separated (e.g. 0.8,0.99)"
    else:
        words = f"{'a whole number' if kind is int else 'a number'}{sign}"
    return words + (", or none" if nullable else "")


def normal_setting(text: str) -> str:
    """``text`` as ``--set`` keeps it: ``NAME=VALUE`` without spaces around either (``" stft_loss = 0"`` ->
    ``stft_loss=0``), after :func:`parse_setting` has taken it.

    Raises:
        ValueError: as :func:`parse_setting`.
    """
    name, _ = parse_setting(text)
    return f"{name}={text.partition('=')[2].strip()}"


def split_settings(text: str) -> tuple[str, ...]:
    """Settings typed on one line (the Train page's Settings field) as ``--set`` keeps them
    (:func:`normal_setting`): ``"stft_loss=0  betas = 0.8,0.99"`` -> ``("stft_loss=0", "betas=0.8,0.99")``.
    Spaces or semicolons separate them, spaces around ``=`` and a pair's comma are allowed; empty text is none.

    Raises:
        ValueError: as :func:`parse_setting`, for the first part that is not a setting.
    """
    joined = re.sub(r"\s*([=,])\s*", r"\1", text.replace("\u200b", " "))  # a pair's comma too; zero-width spaces
    return tuple(normal_setting(part) for part in re.split(r"[\s;]+", joined) if part)


def apply_settings(config: TrainingConfig, settings: tuple[str, ...]) -> TrainingConfig:
    """``config`` with each ``NAME=VALUE`` of ``settings`` (:func:`parse_setting`; a later one wins).

    Raises:
        ValueError: as :func:`parse_setting`.
    """
    return replace(config, **dict(parse_setting(text) for text in settings))


def as_run(config: TrainingConfig, start: str, settings: tuple[str, ...]) -> TrainingConfig:
    """``config`` as the run from ``start`` with ``settings`` trains with it: a run from scratch's own settings
    (``trainer.run.presets.as_started``), then the user's ``--set`` over them (:func:`apply_settings`). What the run
    (``trainer.run.train``) and its step timing (``trainer.run.step_timing``) both take.

    Raises:
        ValueError: as :func:`parse_setting`.
    """
    return apply_settings(as_started(config, start), settings)
